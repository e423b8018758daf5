/// @file
/// verify/client.hpp: verify::Client, a client of the service for one program. Its action
/// methods (single_login, user_login, heartbeat, ...) come from its base detail::Actions<Client>,
/// generated from the action table (verify/actions.hpp).
///
/// Ownership
/// - verify::Client and verify::Reply own a verify_client / verify_reply through a
///   std::unique_ptr whose deleter is verify_client_free / verify_reply_free. They are
///   move-only: moving transfers the handle and leaves the source empty (`!object`); the
///   destructor frees what it owns and never throws. A moved-from Reply throws verify::Error
///   (VERIFY_ERR_INVALID_ARGUMENT) from its accessors; a moved-from Client's calls throw the
///   same (the library refuses the NULL client).
/// - verify::Keeper (a verify_keeper and its on_event function) and verify::CancelToken (a
///   verify_cancel) are move-only owners in the same way; see verify/keeper.hpp and verify/cancel.hpp. A
///   Client made with a log function owns that function too. The short-lived C handles of
///   client options, keeper options and status snapshots never leave the binding:
///   verify::ClientOptions, verify::KeeperOptions and verify::KeeperStatus are plain values.
/// - Everything a Reply hands out is copied into std::string (or std::optional of it), so a
///   value stays valid after its Reply is gone. describe() and version() return views of
///   static library strings: they are valid for the life of the program.
///
/// Results: a Reply, and an exception only where the host asks for it
/// - A call returns a Result (a Reply) whenever the server answered, whatever its code:
///   success (200), pending (201), an offline verdict (202) and every refusal (1001..1024).
///   The host chooses: branch on it (1006 carries the reason of a ban in remark(), 1022 the
///   previously bound machine code, 1007 means "log in again"), or take value() /
///   Reply::ensure_ok(), which throw verify::Refused (an Error with the server's code, its
///   message and remark; configuration() for 1001, 1010, 1011, 1012). The server's code is
///   never hidden or translated: Reply::code() is the integer of the C API (see codes::).
/// - A call throws verify::Error when no answer of the server exists: the local failures of
///   the C API, its negative codes (invalid argument, network, timeout, TLS, pin mismatch,
///   proxy, protocol for a reply that is not the service's JSON, cancelled, system, a
///   request too large to send, ...).
///   There is then no Reply object that could be returned. Error::code() is that negative code and what() the
///   library's message (verify_last_error_message(), copied when it is thrown).
/// - A field the server left out, named otherwise or sent with another type never fails a
///   call (ABI 2): the call returns its Reply, and that field's accessor gives std::nullopt.
///   The fields each call documents are what the service is expected to send, not a promise.
/// - Arguments are checked before they reach C: a string argument containing a NUL
///   character (C would silently cut it there) throws VERIFY_ERR_INVALID_ARGUMENT, as do
///   timeouts outside 1..UINT32_MAX milliseconds. Other checks (empty required strings, an
///   interval under 1 s, ...) are the library's and throw the same code.
/// - std::bad_alloc may come from any function that copies a string.
///
/// Strings
/// - In: std::string_view (anything convertible: std::string, string literals). The
///   binding copies every argument into a NUL-terminated std::string for the duration of
///   the call. Optional parameters are std::optional<std::string_view>: pass std::nullopt
///   (never a null `const char *`, which std::string_view cannot hold); an empty string is
///   the same as std::nullopt (not sent). UTF-8, at most 65536 bytes, as verify.h says.
/// - Out: std::string, std::optional<std::string> / <int64_t> / <bool> for fields that may be
///   absent.
///
/// Threads (as verify.h)
/// - One Client may be used by any number of threads at once: every call method is const
///   and the library holds no lock across network I/O. Moving, assigning or destroying a
///   Client must not overlap with any call on it.
/// - A Reply may be read from several threads at once; moving or destroying it must not
///   overlap with reads.
/// - The C API's last error is per thread. An absent field leaves it as it is; Error copies
///   its message when it is thrown, so C++ code never needs verify_last_error_message().
///
/// Code page: strings go in and come out in the library's code page, UTF-8 unless the
/// process changed it (verify::set_code_page, verify_set_code_page in verify.h).
///
/// Calling convention: every function of verify.h and its callback types use VERIFY_CALL
/// (__stdcall on 32-bit Windows, the C convention elsewhere); the binding's own callbacks (of
/// the keeper and of the log) are declared with it, so nothing changes for C++ hosts.

#ifndef VERIFY_CLIENT_HPP
#define VERIFY_CLIENT_HPP

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../verify.h"
#include "actions.hpp"
#include "cancel.hpp"
#include "detail/call.hpp"
#include "detail/handles.hpp"
#include "error.hpp"
#include "keeper.hpp"
#include "options.hpp"
#include "reply.hpp"
#include "result.hpp"
#include "results.hpp"

namespace verify {

/// A client of the service for one program. Move-only owner of a verify_client.
///
/// Every call method returns a Reply whenever the server answered (refusals included) and
/// throws verify::Error for local failures; see the top of this file. The call methods are
/// const and may run on several threads at once on one Client.
class [[nodiscard]] Client : public detail::Actions<Client> {
public:
    /// A client for the service at `base_url` (http:// or https://, host, optional port and
    /// path prefix, without /api/verify), for the program `app_id` with its secret `app_key`.
    /// Nothing is sent yet: Init runs on the first call unless init() is called. Throws
    /// verify::Error on invalid arguments (the message says what to pass instead).
    Client(std::string_view base_url, std::string_view app_id, std::string_view app_key) {
        std::string url = detail::arg(base_url, "base_url");
        std::string id = detail::arg(app_id, "app_id");
        std::string key = detail::arg(app_key, "app_key");
        verify_client *raw = nullptr;
        std::int32_t code = verify_client_new(url.c_str(), id.c_str(), key.c_str(), &raw);
        handle_.reset(raw);
        if (code != codes::ok || !handle_) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
    }

    /// A client with settings (mirrors, trust, pins, proxy, timeouts, a log function): see
    /// ClientOptions. Besides the checks of the first constructor, plain http:// to a host
    /// that is not loopback throws unless allowed, and so do mirrors that do not parse, roots
    /// or pins that do not parse, and a trust setting that trusts nothing.
    Client(std::string_view base_url, std::string_view app_id, std::string_view app_key,
           const ClientOptions &options) {
        std::string url = detail::arg(base_url, "base_url");
        std::string id = detail::arg(app_id, "app_id");
        std::string key = detail::arg(app_key, "app_key");
        if (options.on_log) {
            log_ = std::make_unique<LogHandler>(options.on_log);
        }
        detail::ClientOptionsPtr settings = detail::client_options(options, log_.get());
        verify_client *raw = nullptr;
        std::int32_t code =
            verify_client_new_with_options(url.c_str(), id.c_str(), key.c_str(), settings.get(), &raw);
        handle_.reset(raw);
        if (code != codes::ok || !handle_) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
    }

    Client(Client &&) noexcept = default;
    /// Frees the client this one held first (its threads joined, so its log function is no
    /// longer called), then takes `other`'s.
    Client &operator=(Client &&other) noexcept {
        if (this != &other) {
            handle_.reset();
            log_ = std::move(other.log_);
            handle_ = std::move(other.handle_);
        }
        return *this;
    }
    Client(const Client &) = delete;
    Client &operator=(const Client &) = delete;
    /// Stops and joins the client's background work, wipes its secrets. Never throws.
    ~Client() = default;

    /// false once moved from (or released).
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /// Connect timeout and whole-call timeout for calls that start afterwards, each
    /// 1..UINT32_MAX ms (std::chrono::seconds and the like convert implicitly). Defaults
    /// 10 s and 30 s. The call timeout bounds everything one call does (a lazy Init, a
    /// re-Init, connects, a resend). Any thread, at any time.
    void set_timeouts(std::chrono::milliseconds connect, std::chrono::milliseconds call) const {
        std::uint32_t connect_ms = detail::to_ms(connect, "timeout `connect`");
        std::uint32_t call_ms = detail::to_ms(call, "timeout `call`");
        detail::check_ok(verify_client_set_timeouts(handle_.get(), connect_ms, call_ms));
    }

    /// The Init handshake now (otherwise the first call runs it).
    [[nodiscard]] Reply init() const {
        verify_reply *out = nullptr;
        std::int32_t code = verify_init(handle_.get(), &out);
        return detail::finish(code, out);
    }

    /// Social login step 2, repeated every `interval` (at least 1 ms) until the user
    /// authorizes (ok(), the login fields: a Result<UserSession>) or the server refuses (its
    /// code, e.g. 1016 when the identity is not bound). Throws verify::Error codes::err_timeout when
    /// `timeout` (0..UINT32_MAX ms; 0 polls once) passes, codes::err_cancelled within
    /// milliseconds when `cancel` (optional, not owned; it must outlive the call) is
    /// cancelled from another thread. Blocks the calling thread.
    [[nodiscard]] Result<UserSession> social_login_wait(std::string_view state, std::optional<std::string_view> mac,
                            std::chrono::milliseconds interval, std::chrono::milliseconds timeout,
                            const CancelToken *cancel = nullptr) const {
        std::string s = detail::arg(state, "state");
        detail::OptionalArg m(mac, "mac");
        std::uint32_t interval_ms = detail::to_ms(interval, "interval");
        std::uint32_t timeout_ms = detail::to_ms(timeout, "timeout", 0);
        if (cancel != nullptr && !*cancel) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::CancelToken");
        }
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_login_wait(handle_.get(), s.c_str(), m.c_str(), interval_ms,
                                                     timeout_ms, cancel != nullptr ? cancel->get() : nullptr,
                                                     &out);
        return Result<UserSession>(detail::finish(code, out));
    }

    /// Starts keeping the session of `token` alive in the background: the token of
    /// single_login (SessionKind::Card) or user_login (SessionKind::User), with `options`
    /// (unset fields: the library's defaults). The first heartbeat is sent at once (a token the
    /// server does not know ends the keeper with 1007), the next ones every interval after
    /// the start. `on_event` (optional) receives every Event on the keeper's event thread;
    /// exceptions it throws are swallowed (they cannot cross the C boundary). Without it,
    /// back-office messages are queued for Keeper::status(). Throws verify::Error for invalid
    /// arguments (an interval under 1 s, a grace of 0, a bad token or kind) and
    /// codes::err_system when the keeper's threads cannot start. See verify/keeper.hpp.
    [[nodiscard]] Keeper keep_alive(std::string_view token, SessionKind kind, const KeeperOptions &options = {},
                      EventHandler on_event = {}) const {
        std::string t = detail::arg(token, "token");
        return start_keeper(options, std::move(on_event), [&](verify_keeper_options *settings, verify_keeper **raw) {
            return verify_keeper_start(handle_.get(), t.c_str(), static_cast<std::int32_t>(kind), settings, raw);
        });
    }

    /// Starts keeping the session of a login's Reply: the server's own (ok(): its token and
    /// session kind) or an offline verdict (offline()). From an offline verdict the keeper
    /// reports EventKind::Offline, waits for the login still going on after a start budget
    /// or sends it again, and reports EventKind::Online once the server takes it, or
    /// EventKind::Ended with the server's refusal (the stored verdict is cleared) or
    /// codes::err_grace_over. The reply is only read. Throws verify::Error
    /// (codes::err_invalid_argument) for a reply that is neither.
    [[nodiscard]] Keeper keep_alive(const Reply &login, const KeeperOptions &options = {},
                                    EventHandler on_event = {}) const {
        return start_keeper(options, std::move(on_event), [&](verify_keeper_options *settings, verify_keeper **raw) {
            return verify_keeper_start_from_reply(handle_.get(), login.get(), settings, raw);
        });
    }

    /// Starts keeping the session of a typed card login (the value() of single_login): its
    /// token with SessionKind::Card, as keep_alive(login.token, SessionKind::Card, ...) (the
    /// first heartbeat at once). An offline verdict has no token: keep its Result instead
    /// (keep_alive(result)); throws verify::Error (codes::err_invalid_argument) for a login
    /// without a token.
    [[nodiscard]] Keeper keep_alive(const CardLogin &login, const KeeperOptions &options = {},
                                    EventHandler on_event = {}) const {
        return keep_alive(login_token(login.token), SessionKind::Card, options, std::move(on_event));
    }

    /// Starts keeping the session of a typed account login (the value() of user_login,
    /// social_login_poll or social_login_wait): its token with SessionKind::User, as
    /// keep_alive(login.token, SessionKind::User, ...). An offline verdict has no token: keep
    /// its Result instead; throws verify::Error (codes::err_invalid_argument) for a login
    /// without a token.
    [[nodiscard]] Keeper keep_alive(const UserSession &login, const KeeperOptions &options = {},
                                    EventHandler on_event = {}) const {
        return keep_alive(login_token(login.token), SessionKind::User, options, std::move(on_event));
    }

    /// Any action with any parameters (key, value), in order; at most 256, and at most
    /// 1 MiB of request body (more throws codes::err_too_large, nothing sent). Never sent
    /// twice once it may have reached the server.
    [[nodiscard]] Reply call(std::string_view action,
               const std::vector<std::pair<std::string, std::string>> &params = {}) const {
        std::string a = detail::arg(action, "action");
        std::vector<const char *> keys;
        std::vector<const char *> values;
        keys.reserve(params.size());
        values.reserve(params.size());
        for (const auto &param : params) {
            // std::string may hold a NUL: check it, then borrow its buffer for the call.
            detail::check(param.first, "key");
            detail::check(param.second, "value");
            keys.push_back(param.first.c_str());
            values.push_back(param.second.c_str());
        }
        verify_reply *out = nullptr;
        std::int32_t code = verify_call(handle_.get(), a.c_str(), keys.empty() ? nullptr : keys.data(),
                                        values.empty() ? nullptr : values.data(), params.size(), &out);
        return detail::finish(code, out);
    }

    /// The C handle, still owned by this Client (NULL when empty).
    [[nodiscard]] verify_client *get() const noexcept { return handle_.get(); }

    /// Gives up ownership: the caller must verify_client_free() the result. A log function
    /// of ClientOptions is then kept alive for the rest of the program (deliberately leaked:
    /// the released client may still call it).
    [[nodiscard]] verify_client *release() noexcept {
        (void)log_.release();
        return handle_.release();
    }

private:
    /// The token of a typed login, or an error saying what to pass instead.
    static std::string_view login_token(const std::optional<std::string> &token) {
        if (!token) {
            detail::fail(codes::err_invalid_argument,
                         "this login has no token (an offline verdict): pass its Result to keep_alive");
        }
        return *token;
    }

    /// The keeper settings of `options`, the handler in a box, and `start` (the C call that
    /// makes the keeper with those settings).
    template <typename Start>
    Keeper start_keeper(const KeeperOptions &options, EventHandler on_event, Start start) const {
        std::optional<std::string_view> ip;
        if (options.ip) {
            ip = std::string_view(*options.ip);
        }
        detail::OptionalArg i(ip, "ip");

        verify_keeper_options *raw_options = nullptr;
        std::int32_t code = verify_keeper_options_new(&raw_options);
        detail::KeeperOptionsPtr settings(raw_options);
        if (code != codes::ok || !settings) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
        if (options.interval) {
            detail::check_ok(verify_keeper_options_set_interval(
                settings.get(), detail::to_ms(*options.interval, "interval")));
        }
        if (options.grace) {
            detail::check_ok(
                verify_keeper_options_set_grace(settings.get(), detail::to_ms(*options.grace, "grace")));
        }
        if (i.c_str() != nullptr) {
            detail::check_ok(verify_keeper_options_set_ip(settings.get(), i.c_str()));
        }

        auto box = std::make_unique<detail::KeeperBox>();
        box->on_event = std::move(on_event);
        if (box->on_event) {
            // The handler lives in the box, on the heap: its address outlives moves of the
            // Keeper, and the box frees it only after the keeper's thread is joined.
            detail::check_ok(verify_keeper_options_set_callback(
                settings.get(), &detail::EventTrampoline::deliver, static_cast<void *>(&box->on_event)));
        }
        verify_keeper *raw = nullptr;
        code = start(settings.get(), &raw);
        box->handle.reset(raw);
        if (code != codes::ok || !box->handle) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
        return Keeper(std::move(box));
    }
    /// Declared before handle_, so destroyed after it: the client (and the threads that may
    /// log) is freed before its log function.
    std::unique_ptr<LogHandler> log_;
    detail::ClientPtr handle_;
};

}  // namespace verify

#endif /* VERIFY_CLIENT_HPP */
