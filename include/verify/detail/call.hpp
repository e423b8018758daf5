/// @file
/// verify/detail/call.hpp: the binding's side of a C call: arguments checked and copied
/// (a NUL refused, durations in range), codes turned into verify::Error, borrowed strings
/// copied. Internal to the binding.

#ifndef VERIFY_DETAIL_CALL_HPP
#define VERIFY_DETAIL_CALL_HPP

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include "../../verify.h"
#include "../error.hpp"

namespace verify {

namespace detail {

/// An Error made on this side of the boundary, with a message shaped like the library's.
[[noreturn]] inline void fail(std::int32_t code, std::string_view what) {
    std::string message(describe(code));
    message += " (";
    message += std::to_string(code);
    message += "): ";
    message += what;
    throw Error(code, message);
}

/// The Error of a C call that failed with `code`: the library's message (copied now, before
/// any other call can replace it), or the code's description when it left none.
[[noreturn]] inline void raise(std::int32_t code) {
    const char *text = verify_last_error_message();
    std::string message = text != nullptr ? std::string(text) : std::string();
    if (message.empty()) {
        message = std::string(describe(code)) + " (" + std::to_string(code) + ")";
    }
    throw Error(code, message);
}

/// A time point of Unix seconds (system_clock counts from the Unix epoch on every supported
/// platform).
inline std::chrono::system_clock::time_point unix_time(std::int64_t seconds) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::seconds(seconds)));
}

/// The outcome of a C accessor (verify_reply_str, verify_keeper_status_*): true when it wrote
/// its out parameter (0), false when the value is absent (VERIFY_ERR_NO_SUCH_FIELD); any
/// other code throws.
inline bool found(std::int32_t code) {
    if (code == 0) {
        return true;
    }
    if (code == codes::err_no_such_field) {
        return false;
    }
    raise(code);
}

/// Throws unless a C call that answers 200 on success did.
inline void check_ok(std::int32_t code) {
    if (code != codes::ok) {
        raise(code);
    }
}

/// Throws unless an accessor, which answers 0 on success (not 200), did.
inline void check_read(std::int32_t code) {
    if (code != 0) {
        raise(code);
    }
}

/// Refuses a string argument that C would silently cut at an embedded NUL.
inline void check(std::string_view value, const char *name) {
    if (value.find('\0') != std::string_view::npos) {
        fail(codes::err_invalid_argument,
             std::string("argument `") + name + "` contains a NUL character");
    }
}

/// A NUL-terminated copy of a required string argument.
inline std::string arg(std::string_view value, const char *name) {
    check(value, name);
    return std::string(value);
}

/// A duration as the uint32_t milliseconds of the C API, refused (VERIFY_ERR_INVALID_ARGUMENT)
/// outside `minimum`..UINT32_MAX.
inline std::uint32_t to_ms(std::chrono::milliseconds value, const char *name,
                           std::chrono::milliseconds::rep minimum = 1) {
    if (value.count() < minimum || static_cast<std::uint64_t>(value.count()) >
                                       (std::numeric_limits<std::uint32_t>::max)()) {
        detail::fail(codes::err_invalid_argument, std::string(name) + " must be " +
                                                      std::to_string(minimum) +
                                                      "..4294967295 ms");
    }
    return static_cast<std::uint32_t>(value.count());
}

/// The seconds of `value`, 0..UINT32_MAX, or throws codes::err_invalid_argument.
inline std::uint32_t to_seconds(std::chrono::seconds value, const char *name) {
    if (value.count() < 0 || static_cast<std::uint64_t>(value.count()) > (std::numeric_limits<std::uint32_t>::max)()) {
        detail::fail(codes::err_invalid_argument, std::string(name) + " must be 0..4294967295 s");
    }
    return static_cast<std::uint32_t>(value.count());
}

/// A NUL-terminated copy of an optional string argument; c_str() is NULL when absent.
class OptionalArg {
public:
    OptionalArg(const std::optional<std::string_view> &value, const char *name) {
        if (value) {
            text_ = arg(*value, name);
        }
    }
    const char *c_str() const noexcept { return text_ ? text_->c_str() : nullptr; }

private:
    std::optional<std::string> text_;
};

/// A copy of a string the library lent; NULL (which a successful accessor never gives) is
/// read as empty.
inline std::string copy(const char *text) { return text != nullptr ? std::string(text) : std::string(); }

inline std::optional<std::string> optional_text(const char *text) {
    if (text == nullptr) {
        return std::nullopt;
    }
    return std::string(text);
}

}  // namespace detail

}  // namespace verify

#endif /* VERIFY_DETAIL_CALL_HPP */
