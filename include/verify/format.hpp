/// @file
/// verify/format.hpp: printing the binding's values. operator<< for verify::Code, the states
/// and kinds (KeeperState, EventKind, SessionKind), Event, Refusal and Error (Refused too),
/// and the same as a std::formatter (C++20 <format>, where the standard library has it) and
/// an fmt::formatter (when <fmt/format.h> is included before this header, or with
/// VERIFY_WITH_FMT defined: then this header includes it).
///
///   std::cout << error.code() << '\n';               // err_network (-4)
///   std::cout << event << '\n';                      // Ended: disabled (1006): banned [remark: ...]
///   std::string line = std::format("{}", refused);   // or fmt::format: what() of the error
///
/// What each prints:
/// - a Code: its name and its integer, "card_invalid (1004)" ("unknown (1099)" for a code
///   this header does not name);
/// - a state or kind: its name ("Alive"), or "unknown (N)";
/// - an Event: "Kind: code: message", and " [remark: ...]", " [text: ...]" when it has them;
/// - a Refusal: "code: message", and " [remark: ...]";
/// - an Error (Refused too): what(), the library's message with its code.
/// The formatters take the format spec of a string ("{:>30}").

#ifndef VERIFY_FORMAT_HPP
#define VERIFY_FORMAT_HPP

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include "codes.hpp"
#include "enums.hpp"
#include "error.hpp"
#include "keeper.hpp"

#if defined(VERIFY_WITH_FMT) && !defined(FMT_VERSION)
#include <fmt/format.h>
#endif

#if __cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#include <version>
#endif
#if defined(__cpp_lib_format) && __cpp_lib_format >= 201907L
#include <format>
#define VERIFY_HAS_STD_FORMAT 1
#else
#define VERIFY_HAS_STD_FORMAT 0
#endif

namespace verify {

namespace detail {

/// The name of an enum value, or "unknown (N)".
template <typename Enum>
std::string enum_text(Enum value) {
    std::string_view name = to_string(value);
    if (name == "unknown") {
        return "unknown (" + std::to_string(static_cast<std::int64_t>(value)) + ")";
    }
    return std::string(name);
}

}  // namespace detail

/// "card_invalid (1004)".
[[nodiscard]] inline std::string to_text(Code code) {
    std::string text(to_string(code));
    text += " (";
    text += std::to_string(to_int(code));
    text += ')';
    return text;
}

/// "Alive", or "unknown (N)".
[[nodiscard]] inline std::string to_text(KeeperState state) { return detail::enum_text(state); }

/// "Ended", or "unknown (N)".
[[nodiscard]] inline std::string to_text(EventKind kind) { return detail::enum_text(kind); }

/// "Card", "User", or "unknown (N)".
[[nodiscard]] inline std::string to_text(SessionKind kind) { return detail::enum_text(kind); }

/// "code: message [remark: ...]".
[[nodiscard]] inline std::string to_text(const Refusal &refusal) {
    std::string text = to_text(refusal.code);
    if (!refusal.message.empty()) {
        text += ": ";
        text += refusal.message;
    }
    if (refusal.remark) {
        text += " [remark: ";
        text += *refusal.remark;
        text += ']';
    }
    return text;
}

/// "Kind: code: message [remark: ...] [text: ...]".
[[nodiscard]] inline std::string to_text(const Event &event) {
    std::string text = to_text(event.kind);
    text += ": ";
    text += to_text(event.code);
    if (!event.message.empty()) {
        text += ": ";
        text += event.message;
    }
    if (event.remark) {
        text += " [remark: ";
        text += *event.remark;
        text += ']';
    }
    if (event.text) {
        text += " [text: ";
        text += *event.text;
        text += ']';
    }
    return text;
}

/// what().
[[nodiscard]] inline std::string to_text(const Error &error) { return error.what(); }

inline std::ostream &operator<<(std::ostream &out, Code code) { return out << to_text(code); }
inline std::ostream &operator<<(std::ostream &out, KeeperState state) { return out << to_text(state); }
inline std::ostream &operator<<(std::ostream &out, EventKind kind) { return out << to_text(kind); }
inline std::ostream &operator<<(std::ostream &out, SessionKind kind) { return out << to_text(kind); }
inline std::ostream &operator<<(std::ostream &out, const Refusal &refusal) { return out << to_text(refusal); }
inline std::ostream &operator<<(std::ostream &out, const Event &event) { return out << to_text(event); }
inline std::ostream &operator<<(std::ostream &out, const Error &error) { return out << to_text(error); }

}  // namespace verify

/// A formatter of `Type` (for std:: or fmt::) printing to_text(value) with a string's spec.
#define VERIFY_FORMATTER_(space, Type)                                                                 \
    template <>                                                                                        \
    struct space::formatter<Type> : space::formatter<std::string_view> {                               \
        template <typename Context>                                                                    \
        auto format(const Type &value, Context &context) const {                                      \
            std::string text = verify::to_text(value);                                                 \
            return space::formatter<std::string_view>::format(std::string_view(text), context);        \
        }                                                                                              \
    };

#define VERIFY_FORMATTERS_(space)                                                                      \
    VERIFY_FORMATTER_(space, verify::Code)                                                             \
    VERIFY_FORMATTER_(space, verify::KeeperState)                                                      \
    VERIFY_FORMATTER_(space, verify::EventKind)                                                        \
    VERIFY_FORMATTER_(space, verify::SessionKind)                                                      \
    VERIFY_FORMATTER_(space, verify::Refusal)                                                          \
    VERIFY_FORMATTER_(space, verify::Event)                                                            \
    VERIFY_FORMATTER_(space, verify::Error)                                                            \
    VERIFY_FORMATTER_(space, verify::Refused)

#if VERIFY_HAS_STD_FORMAT
VERIFY_FORMATTERS_(std)
#endif

#if defined(FMT_VERSION)
VERIFY_FORMATTERS_(fmt)
#endif

#undef VERIFY_FORMATTERS_
#undef VERIFY_FORMATTER_

#endif /* VERIFY_FORMAT_HPP */
