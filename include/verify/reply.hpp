/// @file
/// verify/reply.hpp: verify::Reply, the server's answer read field by field; pointer() and
/// field(), the pointers of fields.
///
/// Reply fields: JSON Pointers
/// - Reply::str / integer / boolean / json take a JSON Pointer (RFC 6901) from the top of
///   the reply, as verify_reply_str & co. do: "/data/token", "/data/variables/a.b" (a key may
///   contain a dot), "/data/list/0", "/code". Each gives std::nullopt when the value is
///   absent or of another type (VERIFY_ERR_NO_SUCH_FIELD of the C API) and throws
///   verify::Error (codes::err_invalid_argument) for a malformed pointer, such as "token"
///   without its leading "/" (the dotted paths of ABI 1 are gone).
/// - In a pointer, "~" is written "~0" and "/" is written "~1". verify::field(name) builds
///   the pointer of one field of data with that escaping ("token" -> "/data/token",
///   "a/b" -> "/data/a~1b"), and verify::pointer({"data", "variables", name}) one of any
///   depth: use them for names that come from elsewhere (a variable's name, user input).

#ifndef VERIFY_REPLY_HPP
#define VERIFY_REPLY_HPP

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include "../verify.h"
#include "detail/call.hpp"
#include "detail/handles.hpp"
#include "error.hpp"
#include "time.hpp"

namespace verify {

/// The JSON Pointer (RFC 6901) of `tokens` from the top of a reply, each token escaped
/// ("~" as "~0", "/" as "~1"): pointer({"data", "variables", "a/b"}) is
/// "/data/variables/a~1b". No token: "" (the whole reply). Array items are their index
/// as a token: pointer({"data", "list", "0"}).
[[nodiscard]] inline std::string pointer(std::initializer_list<std::string_view> tokens) {
    std::string out;
    for (std::string_view token : tokens) {
        out += '/';
        for (char c : token) {
            if (c == '~') {
                out += "~0";
            } else if (c == '/') {
                out += "~1";
            } else {
                out += c;
            }
        }
    }
    return out;
}

/// The JSON Pointer of the field `name` of the reply's data: "/data/" + name, escaped as
/// pointer() does. field("token") is "/data/token", field("a.b") is "/data/a.b".
[[nodiscard]] inline std::string field(std::string_view name) { return pointer({"data", name}); }

/// What an offline verdict (codes::offline) knows besides its fields (verify_reply_offline).
struct OfflineInfo {
    /// When the server last confirmed the licence.
    Time confirmed_at;
    /// When the offline grace period ends.
    Time grace_end;
    /// The local failure that kept the server out of reach (Code::err_network,
    /// err_timeout...); its words are the reply's message.
    Code reason{};
};

/// An answer of the server, of any code. Move-only owner of a verify_reply.
/// Every accessor copies out of the reply; reads may run on several threads at once.
/// Fields are read by JSON Pointer ("/data/token"; see the top of this file): std::nullopt
/// when absent or of another type, verify::Error for a malformed pointer.
class [[nodiscard]] Reply {
public:
    /// Takes ownership of `reply` (from a verify_* call; NULL gives an empty Reply).
    explicit Reply(verify_reply *reply) noexcept : handle_(reply) {}

    Reply(Reply &&) noexcept = default;
    Reply &operator=(Reply &&) noexcept = default;
    Reply(const Reply &) = delete;
    Reply &operator=(const Reply &) = delete;
    ~Reply() = default;

    /// false once moved from (or released).
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /// The server's code: 200, 201 or its refusal (1001..1024), never translated: switch on
    /// it, compare it with Code or codes::, print it (verify/format.hpp).
    [[nodiscard]] Code code() const {
        std::int32_t code = verify_reply_code(live());
        if (code < 0) {
            detail::raise(code);
        }
        return static_cast<Code>(code);
    }

    /// code() == codes::ok.
    [[nodiscard]] bool ok() const { return code() == codes::ok; }

    /// code() == codes::pending (social authorization: poll again).
    [[nodiscard]] bool pending() const { return code() == codes::pending; }

    /// Whether this is an offline verdict (codes::offline): the server could not be reached
    /// and the stored verdict of the last good login answered (offline verdicts on:
    /// ClientOptions::offline_grace). Its fields are those of the server's last confirmed
    /// login, without the token; offline_info() says more.
    [[nodiscard]] bool offline() const { return code() == codes::offline; }

    /// ok() or offline(): the program may run.
    [[nodiscard]] bool licensed() const {
        Code c = code();
        return c == Code::ok || c == Code::offline;
    }

    /// What an offline verdict knows besides its fields (verify::OfflineInfo).
    using OfflineInfo = verify::OfflineInfo;

    /// An offline verdict's info (verify_reply_offline); std::nullopt for the server's own
    /// reply.
    [[nodiscard]] std::optional<OfflineInfo> offline_info() const {
        std::int64_t confirmed_at = 0;
        std::int64_t grace_end = 0;
        std::int32_t reason = 0;
        if (!detail::found(verify_reply_offline(live(), &confirmed_at, &grace_end, &reason))) {
            return std::nullopt;
        }
        return OfflineInfo{detail::unix_time(confirmed_at), detail::unix_time(grace_end), static_cast<Code>(reason)};
    }

    /// verify::describe(code()).
    [[nodiscard]] std::string_view description() const { return describe(code()); }

    /// Whether the server refused the program's configuration (1001, 1010, 1011, 1012:
    /// is_configuration_refusal) rather than a licence.
    [[nodiscard]] bool configuration_refusal() const { return is_configuration_refusal(code()); }

    /// The throwing form: returns this reply when the server answered 200, 201 (pending) or
    /// the stored verdict answered offline (202); throws verify::Refused (code, message,
    /// remark) for any other code.
    const Reply &ensure_ok() const {
        if (!is_success(code())) {
            throw Refused(refusal());
        }
        return *this;
    }

    /// The refusal this reply carries (code, message, remark, JSON), whatever its code.
    [[nodiscard]] Refusal refusal() const {
        Refusal out;
        out.code = code();
        out.message = message();
        out.remark = remark();
        out.json = json();
        return out;
    }

    /// The server's message (localized; may be empty).
    [[nodiscard]] std::string message() const {
        const char *text = verify_reply_message(live());
        if (text == nullptr) {
            detail::raise(verify_last_error_code());
        }
        return std::string(text);
    }

    /// /data/remark: on 1006 the reason, on 1022 the bound machine code, on a login the
    /// back-office note. std::nullopt when absent.
    [[nodiscard]] std::optional<std::string> remark() const { return str("/data/remark"); }

    /// The value at the JSON Pointer `pointer` as text: a string as it is, a number or
    /// boolean in JSON notation. std::nullopt when absent, null, an object or an array.
    [[nodiscard]] std::optional<std::string> str(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        const char *text = nullptr;
        if (!detail::found(verify_reply_str(reply, path.c_str(), &text))) {
            return std::nullopt;
        }
        return detail::copy(text);
    }

    /// The value at `pointer` as an integer; std::nullopt when absent or not an integer in
    /// range (a string such as "5" is not parsed).
    [[nodiscard]] std::optional<std::int64_t> integer(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        std::int64_t value = 0;
        if (!detail::found(verify_reply_int(reply, path.c_str(), &value))) {
            return std::nullopt;
        }
        return value;
    }

    /// The value at `pointer` as a time of the service ("YYYY-MM-DD HH:mm:ss" in UTC+08:00,
    /// read by the library: verify_reply_time); std::nullopt when absent, not a string or not
    /// such a time (str() still gives the text).
    [[nodiscard]] std::optional<Time> time(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        std::int64_t seconds = 0;
        if (!detail::found(verify_reply_time(reply, path.c_str(), &seconds, nullptr))) {
            return std::nullopt;
        }
        return detail::unix_time(seconds);
    }

    /// The value at `pointer` as a boolean; std::nullopt when absent or not a boolean.
    [[nodiscard]] std::optional<bool> boolean(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        std::int32_t value = 0;
        if (!detail::found(verify_reply_bool(reply, path.c_str(), &value))) {
            return std::nullopt;
        }
        return value != 0;
    }

    /// The value at `pointer` as JSON text, of any type (an object lists its keys, an array
    /// its items); std::nullopt when absent.
    [[nodiscard]] std::optional<std::string> json(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        const char *text = nullptr;
        if (!detail::found(verify_reply_json(reply, path.c_str(), &text))) {
            return std::nullopt;
        }
        return detail::copy(text);
    }

    /// The whole reply as JSON: {"code":..,"message":..,"data":..}, unknown fields included.
    [[nodiscard]] std::string json() const {
        const char *text = nullptr;
        detail::check_read(verify_reply_json(live(), nullptr, &text));
        return detail::copy(text);
    }

    /// The C handle, still owned by this Reply (NULL when empty).
    [[nodiscard]] const verify_reply *get() const noexcept { return handle_.get(); }

    /// Gives up ownership: the caller must verify_reply_free() the result.
    [[nodiscard]] verify_reply *release() noexcept { return handle_.release(); }

private:
    const verify_reply *live() const {
        if (!handle_) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::Reply");
        }
        return handle_.get();
    }

    detail::ReplyPtr handle_;
};

namespace detail {

/// The outcome of a C call: a Reply when the server answered, else an Error. `raw` is owned
/// from here on, so nothing leaks whichever way this goes.
inline Reply finish(std::int32_t code, verify_reply *raw) {
    Reply reply(raw);
    if (code >= 0 && reply) {
        return reply;
    }
    /// Copy the message first: any later call into the library may replace it.
    const char *text = verify_last_error_message();
    std::string message = text != nullptr ? std::string(text) : std::string();
    if (message.empty()) {
        message = std::string(describe(code)) + " (" + std::to_string(code) + ")";
    }
    std::shared_ptr<const std::string> json;
    if (reply) {
        const char *whole = nullptr;
        if (verify_reply_json(reply.get(), nullptr, &whole) == 0 && whole != nullptr) {
            json = std::make_shared<const std::string>(whole);
        }
    }
    throw Error(code, message, std::move(json));
}

}  // namespace detail

}  // namespace verify

#endif /* VERIFY_REPLY_HPP */
