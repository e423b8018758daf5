/// @file
/// verify/result.hpp: verify::Result<T>, the typed outcome of a call, and verify::Answer, what
/// every typed result holds besides its fields.
///
/// Typed results (verify::Result<T>, the structs of verify/results.hpp)
/// - Every action of the table returns a verify::Result<T>, T its reply view's struct
///   (CardLogin, UserSession, Registration, Heartbeat, ...), generated from
///   core/src/actions/table.rs: the action table's fields, each std::optional (absent when the
///   server left it out or sent another type), strings as std::string, integers std::int64_t,
///   booleans bool, objects std::map<std::string, std::string>, and the service's times (the
///   "*_at" fields, "YYYY-MM-DD HH:mm:ss" in UTC+08:00) as verify::Time, converted; every T is
///   also an Answer (code, message, offline_info for an offline verdict, which has the stored
///   fields and no token).
/// - A Result is std::expected-like: has_value() / operator bool (200, 201, 202), value(), *,
///   -> (throw verify::Refused on a refusal), error() (a verify::Refusal: code, message, remark,
///   json), and with C++23 (VERIFY_HAS_EXPECTED) expected(), an std::expected<T, Refusal>.
/// - A Result is a Reply too (below): code(), message(), remark(), str("/data/...") for the
///   fields the action table does not name; verify::Reply r = client.single_login(...) still compiles.
/// - Registering without a card (user_register) creates an account that has already expired
///   (its expire_at is the registration time, no token).

#ifndef VERIFY_RESULT_HPP
#define VERIFY_RESULT_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include "../verify.h"
#include "detail/call.hpp"
#include "error.hpp"
#include "reply.hpp"
#include "time.hpp"

#if defined(__has_include)
#if __has_include(<version>)
#include <version>
#endif
#endif
#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L
#include <expected>
/// 1 when this translation unit has std::expected (C++23): Result::expected() is declared.
#define VERIFY_HAS_EXPECTED 1
#else
#define VERIFY_HAS_EXPECTED 0
#endif

namespace verify {

/// What every typed result holds besides its fields: the code of the answer and its message,
/// and for an offline verdict (code 202: the server could not be reached and the stored
/// verdict of the last good login answered, with the stored fields and no token) what it
/// knows besides its fields.
struct Answer {
    /// 200, 201 (pending: a social login not authorized yet) or 202 (an offline verdict).
    Code code{};
    /// The server's message (localized; may be empty); for an offline verdict, why the
    /// network failed, in words.
    std::string message;
    /// Set for an offline verdict (code 202): when the server last confirmed the licence,
    /// when the offline grace ends, and the local failure's code.
    std::optional<OfflineInfo> offline_info;

    /// code == 200.
    bool ok() const noexcept { return code == codes::ok; }
    /// code == 201: a social login the user has not authorized yet; poll again.
    bool pending() const noexcept { return code == codes::pending; }
    /// code == 202: an offline verdict (see offline_info).
    bool offline() const noexcept { return code == codes::offline; }
};

namespace detail {

inline void read_answer(const Reply &reply, Answer &out) {
    out.code = reply.code();
    out.message = reply.message();
    out.offline_info = reply.offline_info();
}

/// A "*_at" field as a time (Reply::time: read by the library); std::nullopt when absent,
/// empty or not in the service's form (the text stays readable with Reply::str).
inline std::optional<Time> read_time(const Reply &reply, std::string_view pointer) { return reply.time(pointer); }

/// An object field as name -> text, listed by the library (verify_reply_member_count and
/// verify_reply_member_name): strings as they are, numbers and booleans in JSON notation (as
/// Reply::str gives them); null, objects and arrays are left out. std::nullopt when the
/// field is absent or not an object.
inline std::optional<std::map<std::string, std::string>> read_map(const Reply &reply, std::string_view pointer) {
    const std::string path = arg(pointer, "pointer");
    const verify_reply *raw = reply.get();
    std::size_t count = 0;
    if (!found(verify_reply_member_count(raw, path.c_str(), &count))) {
        return std::nullopt;
    }
    std::map<std::string, std::string> out;
    for (std::size_t index = 0; index < count; ++index) {
        const char *name = nullptr;
        if (!found(verify_reply_member_name(raw, path.c_str(), index, &name))) {
            continue;
        }
        std::string key = copy(name);
        std::optional<std::string> value = reply.str(path + verify::pointer({key}));
        if (value) {
            out.emplace(std::move(key), std::move(*value));
        }
    }
    return out;
}

}  // namespace detail
/// The typed outcome of a call: the server's reply (a Result is a Reply: code(), message(),
/// remark(), str("/data/...") for fields the action table does not name) and, when the server answered
/// 200, 201 or 202, the action's typed fields as a T (verify::CardLogin, verify::UserSession,
/// ...; generated from the action table), with an std::expected-like interface:
///
///   verify::CardLogin login = client.single_login(card, mac).value();   // throws on refusal
///
///   auto login = client.single_login(card, mac);                          // or branch on it
///   if (login) { use(login->expire_at); } else { show(login.error().remark); }
///
///   #if VERIFY_HAS_EXPECTED                                               // C++23
///   std::expected<verify::CardLogin, verify::Refusal> e = client.single_login(card, mac).expected();
///   #endif
///
/// - has_value() and operator bool: the server answered 200, 201 or 202 (unlike Reply's
///   operator bool, which only says the object is not moved-from).
/// - value(), operator* and operator->: the typed fields; they throw verify::Refused (a
///   verify::Error with the server's code, its message and remark) for a refusal, where
///   std::expected would be undefined behaviour.
/// - error(): the Refusal (code, message, remark, JSON) of a refused call.
/// - expected() (C++23, VERIFY_HAS_EXPECTED): the same as std::expected<T, Refusal>.
/// - Local failures (no answer) still throw verify::Error from the call itself.
/// A Result converts to a Reply by moving (verify::Reply r = client.single_login(...)), so code
/// written for the Reply of earlier versions compiles unchanged.
template <typename T>
class [[nodiscard]] Result : public Reply {
public:
    using value_type = T;
    using error_type = Refusal;

    /// The typed outcome of `reply` (the fields are read now, once).
    explicit Result(Reply reply) : Reply(std::move(reply)) {
        if (is_success(code())) {
            value_ = T::from(*this);
        }
    }

    /// Whether the server answered 200, 201 or 202 (then value() holds the typed fields).
    [[nodiscard]] bool has_value() const noexcept { return value_.has_value(); }
    /// has_value().
    explicit operator bool() const noexcept { return has_value(); }

    /// The typed fields; throws verify::Refused when the server refused the call.
    [[nodiscard]] const T &value() const {
        if (!value_) {
            throw Refused(refusal());
        }
        return *value_;
    }
    /// value().
    [[nodiscard]] const T &operator*() const { return value(); }
    /// &value().
    [[nodiscard]] const T *operator->() const { return &value(); }

    /// The typed fields, or `fallback` when the server refused the call.
    [[nodiscard]] T value_or(T fallback) const { return value_ ? *value_ : std::move(fallback); }

    /// The server's refusal; throws verify::Error (codes::err_invalid_argument) when the call
    /// succeeded (has_value()).
    [[nodiscard]] Refusal error() const {
        if (value_) {
            detail::fail(codes::err_invalid_argument, "error() of a verify::Result that holds a value");
        }
        return refusal();
    }

#if VERIFY_HAS_EXPECTED
    /// C++23: the outcome as std::expected<T, Refusal>.
    [[nodiscard]] std::expected<T, Refusal> expected() const {
        if (value_) {
            return *value_;
        }
        return std::unexpected(refusal());
    }
#endif

    /// The raw reply (this object), for fields the action table does not name.
    [[nodiscard]] const Reply &reply() const noexcept { return *this; }

private:
    std::optional<T> value_;
};

}  // namespace verify

#endif /* VERIFY_RESULT_HPP */
