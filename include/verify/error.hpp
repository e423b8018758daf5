/// @file
/// verify/error.hpp: what a failure is. verify::Error (a local failure: no answer of the
/// server exists), verify::Refusal and verify::Refused (the server's refusal), describe(), and
/// the std::error_category of the codes (verify::category(), std::error_code of verify::Code).

#ifndef VERIFY_ERROR_HPP
#define VERIFY_ERROR_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include "../verify.h"
#include "codes.hpp"

namespace verify {

/// A static English description of any result code. Valid for the life of the program.
[[nodiscard]] inline std::string_view describe(std::int32_t code) noexcept {
    const char *text = verify_code_describe(code);
    return text != nullptr ? std::string_view(text) : std::string_view();
}

/// describe(to_int(code)).
[[nodiscard]] inline std::string_view describe(Code code) noexcept { return describe(to_int(code)); }

/// A Code and an integer code compare as their integers:
/// reply.code() == verify::Code::card_invalid, refusal.code != verify::Code::disabled.
constexpr bool operator==(Code code, std::int32_t value) noexcept { return static_cast<std::int32_t>(code) == value; }
constexpr bool operator==(std::int32_t value, Code code) noexcept { return static_cast<std::int32_t>(code) == value; }
constexpr bool operator!=(Code code, std::int32_t value) noexcept { return !(code == value); }
constexpr bool operator!=(std::int32_t value, Code code) noexcept { return !(code == value); }

namespace detail {

/// The std::error_category of the codes: its name is "verify", its messages describe().
class Category final : public std::error_category {
public:
    const char *name() const noexcept override { return "verify"; }
    [[nodiscard]] std::string message(int code) const override { return std::string(describe(code)); }
};

}  // namespace detail

/// The std::error_category of every code of verify.h (one object for the whole program):
/// std::error_code(code, verify::category()), or a verify::Code converted
/// (std::error_code e = verify::Code::err_network).
[[nodiscard]] inline const std::error_category &category() noexcept {
    static const detail::Category instance;
    return instance;
}

/// `code` as a std::error_code of category() (found by std::error_code's conversion).
[[nodiscard]] inline std::error_code make_error_code(Code code) noexcept {
    return std::error_code(static_cast<int>(code), category());
}
/// A failure of a call. Thrown as it is for a local failure, where no answer of the server
/// exists (see verify/client.hpp): code() is negative (a VERIFY_ERR_* / codes::err_*),
/// what() the library's message. Its subclass verify::Refused is a refusal by the server
/// (positive code), thrown only where the host asks (Result::value(), Reply::ensure_ok()).
/// Copying never throws.
class Error : public std::runtime_error {
public:
    Error(Code code, const std::string &message, std::shared_ptr<const std::string> reply_json = nullptr)
        : std::runtime_error(message), code_(code), reply_json_(std::move(reply_json)) {}

    /// The same with the C API's integer code.
    Error(std::int32_t code, const std::string &message,
          std::shared_ptr<const std::string> reply_json = nullptr)
        : Error(static_cast<Code>(code), message, std::move(reply_json)) {}

    /// The result code (negative for every failure the library reports): switch on it, compare
    /// it with Code or codes::, print it (verify/format.hpp); to_int() gives the integer.
    [[nodiscard]] Code code() const noexcept { return code_; }

    /// verify::describe(code()).
    [[nodiscard]] std::string_view description() const noexcept { return describe(code_); }

    /// code() as a std::error_code of verify::category() (== verify::Code::err_network...).
    [[nodiscard]] std::error_code error_code() const noexcept { return make_error_code(code_); }

    /// The JSON of a reply the library handed out together with a negative code, if it ever
    /// does; std::nullopt otherwise. In ABI 2 no call does: a reply comes only with the
    /// server's own code, and that is a Reply, not an Error. The view is valid as long as
    /// this Error or a copy of it lives.
    [[nodiscard]] std::optional<std::string_view> reply_json() const noexcept {
        if (!reply_json_) {
            return std::nullopt;
        }
        return std::string_view(*reply_json_);
    }

private:
    Code code_;
    std::shared_ptr<const std::string> reply_json_;
};

/// The server's refusal of a call, copied out of its reply: the error of a typed Result (its
/// error(), the error of its expected()), and what a Refused exception carries.
struct Refusal {
    /// The server's code: 1001..1024, or another code of the server (never 200, 201, 202).
    Code code{};
    /// The server's message (localized; may be empty).
    std::string message;
    /// /data/remark: on 1006 the reason of the ban, on 1022 the previously bound machine code.
    std::optional<std::string> remark;
    /// The whole reply as JSON, for fields the action table does not name.
    std::string json;

    /// is_configuration_refusal(code): 1001, 1010, 1011 or 1012.
    [[nodiscard]] bool configuration() const noexcept { return is_configuration_refusal(code); }
    /// verify::describe(code).
    [[nodiscard]] std::string_view description() const noexcept { return describe(code); }
};

/// The throwing form of a refusal: thrown by Result::value(), Result::operator* and ->, and
/// Reply::ensure_ok(). It is a verify::Error whose code() is the server's (positive) code, so
/// one `catch (const verify::Error &)` handles refusals and local failures alike; catch
/// verify::Refused first to tell them apart. what() reads "1006 disabled, ...: <message>".
class Refused : public Error {
public:
    explicit Refused(Refusal refusal)
        : Error(refusal.code, what_of(refusal)), refusal_(std::make_shared<const Refusal>(std::move(refusal))) {}

    /// The refusal: code, the server's message, remark, the reply's JSON.
    [[nodiscard]] const Refusal &refusal() const noexcept { return *refusal_; }
    /// The server's message (what() adds the code and its description).
    [[nodiscard]] const std::string &message() const noexcept { return refusal_->message; }
    /// /data/remark of the refusal: the reason of a ban (1006), the bound machine code (1022).
    [[nodiscard]] const std::optional<std::string> &remark() const noexcept { return refusal_->remark; }
    /// 1001, 1010, 1011 or 1012: the program's configuration, not a licence, was refused.
    [[nodiscard]] bool configuration() const noexcept { return refusal_->configuration(); }

private:
    static std::string what_of(const Refusal &refusal) {
        std::string text = std::to_string(to_int(refusal.code));
        text += ' ';
        text += describe(refusal.code);
        if (!refusal.message.empty()) {
            text += ": ";
            text += refusal.message;
        }
        return text;
    }

    std::shared_ptr<const Refusal> refusal_;
};

}  // namespace verify

/// verify::Code converts to std::error_code (make_error_code above).
namespace std {
template <>
struct is_error_code_enum<verify::Code> : true_type {};
}  // namespace std

#endif /* VERIFY_ERROR_HPP */
