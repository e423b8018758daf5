/*
 * verify.hpp: header-only C++17 binding of the verify licensing client, over verify.h (ABI 2).
 *
 *   #include "verify.hpp"          // also includes verify.h; link libverify as for C
 *
 *   verify::Client client("http://127.0.0.1:8080", "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
 *   verify::Reply login = client.single_login("DEMO-CARD-0000-0001", "3F2A9C0B7D1E4F56");
 *   if (login.ok()) {
 *       std::optional<std::string> token = login.str("/data/token");   // a JSON Pointer
 *   } else if (login.code() == verify::codes::disabled) {
 *       show(login.message(), login.remark().value_or(""));   // the reason of the ban
 *   }
 *
 * Ownership
 * - verify::Client and verify::Reply own a verify_client / verify_reply through a
 *   std::unique_ptr whose deleter is verify_client_free / verify_reply_free. They are
 *   move-only: moving transfers the handle and leaves the source empty (`!object`); the
 *   destructor frees what it owns and never throws. A moved-from Reply throws verify::Error
 *   (VERIFY_ERR_INVALID_ARGUMENT) from its accessors; a moved-from Client's calls throw the
 *   same (the library refuses the NULL client).
 * - verify::Keeper (a verify_keeper and its on_event function) and verify::CancelToken (a
 *   verify_cancel) are move-only owners in the same way; see their sections below. A
 *   Client made with a log function owns that function too. The short-lived C handles of
 *   client options, keeper options and status snapshots never leave the binding:
 *   verify::ClientOptions, verify::KeeperOptions and verify::KeeperStatus are plain values.
 * - Everything a Reply hands out is copied into std::string (or std::optional of it), so a
 *   value stays valid after its Reply is gone. describe() and version() return views of
 *   static library strings: they are valid for the life of the program.
 *
 * Results: a Reply or an exception, never both
 * - A call returns a Reply whenever the server answered, whatever its code: success (200),
 *   pending (201) and every refusal (1001..1024). A refusal is not an exception because it
 *   is an answer the host has to branch on: 1006 carries the reason of a ban in remark(),
 *   1022 the previously bound machine code, 1007 means "log in again". The server's code is
 *   never hidden or translated: Reply::code() is the integer of the C API (see codes::).
 * - A call throws verify::Error when no answer of the server exists: the local failures of
 *   the C API, its negative codes (invalid argument, network, timeout, TLS, pin mismatch,
 *   proxy, protocol for a reply that is not the service's JSON, cancelled, system, a
 *   request too large to send, ...).
 *   There is then no Reply object that could be returned. Error::code() is that negative code and what() the
 *   library's message (verify_last_error_message(), copied when it is thrown).
 * - A field the server left out, named otherwise or sent with another type never fails a
 *   call (ABI 2): the call returns its Reply, and that field's accessor gives std::nullopt.
 *   The fields each call documents are what the service is expected to send, not a promise.
 * - Arguments are checked before they reach C: a string argument containing a NUL
 *   character (C would silently cut it there) throws VERIFY_ERR_INVALID_ARGUMENT, as do
 *   timeouts outside 1..UINT32_MAX milliseconds. Other checks (empty required strings, an
 *   interval under 1 s, ...) are the library's and throw the same code.
 * - std::bad_alloc may come from any function that copies a string.
 *
 * Reply fields: JSON Pointers
 * - Reply::str / integer / boolean / json take a JSON Pointer (RFC 6901) from the top of
 *   the reply, as verify_reply_str & co. do: "/data/token", "/data/variables/a.b" (a key may
 *   contain a dot), "/data/list/0", "/code". Each gives std::nullopt when the value is
 *   absent or of another type (VERIFY_ERR_NO_SUCH_FIELD of the C API) and throws
 *   verify::Error (codes::err_invalid_argument) for a malformed pointer, such as "token"
 *   without its leading "/" (the dotted paths of ABI 1 are gone).
 * - In a pointer, "~" is written "~0" and "/" is written "~1". verify::field(name) builds
 *   the pointer of one field of data with that escaping ("token" -> "/data/token",
 *   "a/b" -> "/data/a~1b"), and verify::pointer({"data", "variables", name}) one of any
 *   depth: use them for names that come from elsewhere (a variable's name, user input).
 *
 * Strings
 * - In: std::string_view (anything convertible: std::string, string literals). The
 *   binding copies every argument into a NUL-terminated std::string for the duration of
 *   the call. Optional parameters are std::optional<std::string_view>: pass std::nullopt
 *   (never a null `const char *`, which std::string_view cannot hold); an empty string is
 *   the same as std::nullopt (not sent). UTF-8, at most 65536 bytes, as verify.h says.
 * - Out: std::string, std::optional<std::string> / <int64_t> / <bool> for fields that may be
 *   absent.
 *
 * Threads (as verify.h)
 * - One Client may be used by any number of threads at once: every call method is const
 *   and the library holds no lock across network I/O. Moving, assigning or destroying a
 *   Client must not overlap with any call on it.
 * - A Reply may be read from several threads at once; moving or destroying it must not
 *   overlap with reads.
 * - The C API's last error is per thread. An absent field leaves it as it is; Error copies
 *   its message when it is thrown, so C++ code never needs verify_last_error_message().
 *
 * Client settings (verify::ClientOptions, the second Client constructor)
 *
 *   verify::ClientOptions options;                   // empty fields: the library's defaults
 *   options.mirrors = {"https://backup.example.com"};
 *   options.pins = {"sha256/..."};
 *   options.on_log = [](verify::LogLevel level, std::string_view text) { log(level, text); };
 *   verify::Client client("https://verify.example.com", app_id, app_key, options);
 *
 * - A plain value mapped onto a verify_client_options handle when the client is made:
 *   mirrors, trust stores (verify::Trust), extra roots (PEM texts or files), pinned keys,
 *   the proxy (verify::Proxy), plain http:// to a host that is not loopback, timeouts, and a
 *   log function. TLS verification cannot be turned off.
 * - on_log runs on the thread making a call (a keeper's heartbeats: the keeper's thread),
 *   on several threads at once; it never receives a secret. The Client owns it (on the
 *   heap, so moving the Client does not move it) and frees it only after the client.
 *
 * Code page: strings go in and come out in the library's code page, UTF-8 unless the
 * process changed it (verify::set_code_page, verify_set_code_page in verify.h).
 *
 * Calling convention: every function of verify.h and its callback types use VERIFY_CALL
 * (__stdcall on 32-bit Windows, the C convention elsewhere); the binding's own callbacks (of
 * the keeper and of the log) are declared with it, so nothing changes for C++ hosts.
 *
 * Session keeper (Client::keep_alive, verify::Keeper)
 *
 *   verify::KeeperOptions options;                   // unset fields: the library's defaults
 *   options.interval = std::chrono::minutes(5);
 *   options.grace = std::chrono::minutes(15);
 *   verify::Keeper keeper = client.keep_alive(token, verify::SessionKind::User, options,
 *       [&](const verify::Event &event) {            // on the keeper's event thread
 *           if (event.kind == verify::EventKind::Ended) {
 *               post_to_ui_thread(event.code, event.remark.value_or(""));   // 1006: the reason
 *           }
 *       });
 *
 * - A Keeper sends a heartbeat every interval (keep_alive(token): the first at once, so a
 *   token the server does not know ends it at once; keep_alive(reply): one interval after) and
 *   reports Alive, Message (a back-office message, once), Trouble (a failure within the
 *   grace period: the session stays usable) and Ended (1005, 1006 with remark, 1007, the
 *   grace period ran out, or codes::err_panic when the keeper's thread failed; the keeper
 *   has stopped then). See verify_keeper_start in verify.h.
 * - KeeperOptions is a plain value mapped onto a verify_keeper_options handle for the
 *   start (interval, grace, ip; the callback is on_event). Fields left std::nullopt keep
 *   the library's defaults (a heartbeat every 5 minutes, 15 minutes of grace, no IP).
 * - KeeperState and EventKind are `enum class : std::int32_t` holding the C integers. Later
 *   versions of the library may report values this header does not name: they are kept as
 *   they are (never an exception, never mapped to Ended). Treat a value you do not know as
 *   "not alive"; verify::session_usable(state) does so.
 * - Keeper::status() is a typed snapshot (verify_keeper_status and its accessors): state,
 *   last code, message and remark, expiry, last success, heartbeat counts, messages.
 * - It is a move-only owner of a verify_keeper and of the on_event function: the function is
 *   kept on the heap, at an address that moving the Keeper does not change, and destroyed
 *   only after verify_keeper_free returned (which stops the keeper and joins its event
 *   thread), so on_event never runs after the Keeper is gone. The Keeper may outlive its
 *   Client: destroying the Client stops the keeper, whose state() is then Ended.
 * - on_event runs on the keeper's event thread, one event at a time, never on the thread
 *   that called keep_alive: synchronize what it shares with other threads. Every Event is a
 *   copy, valid after the callback returned. A slow on_event delays only later events.
 *   An exception thrown by on_event is caught and dropped by the binding: it cannot cross
 *   the C boundary (verify.h forbids unwinding out of a callback), so handle errors inside
 *   on_event. on_event may call stop() of its own Keeper (it returns at once); it must not
 *   destroy or move-assign that Keeper, and a thread that destroys the Keeper must not hold
 *   a lock that on_event waits for (destruction waits for a running on_event to return).
 * - Without on_event, back-office messages are queued and handed out by status().messages,
 *   each once; with on_event they arrive as EventKind::Message and status() has none.
 * - stop(), state() and status() may be called from any thread at once (they are const);
 *   moving, assigning or destroying a Keeper must not overlap with them.
 *
 * Social wait and cancellation (Client::social_login_wait, verify::CancelToken)
 * - social_login_wait polls step 2 until the user authorizes (a Reply, 200), the server
 *   refuses (a Reply with its code, e.g. 1016), the timeout passes (throws verify::Error
 *   codes::err_timeout) or the CancelToken is cancelled (throws codes::err_cancelled, within
 *   milliseconds, a poll in flight interrupted). It blocks the calling thread.
 * - CancelToken::cancel() may be called from any thread, any number of times, through a
 *   const reference, while a wait uses the token; a cancelled token stays cancelled (later
 *   waits with it throw at once). Destroying or moving the token must not overlap with a
 *   wait or a cancel() using it.
 *
 * Machine code: verify::machine_code(salt) is 32 uppercase hex characters, the same on every
 * call and in every process on this machine (see verify_machine_code in verify.h).
 *
 * Porting from the ABI 1 binding (CHANGELOG.md has the C side)
 * - reply.str("token") -> reply.str("/data/token") or reply.str(verify::field("token"));
 *   "variables.NAME" -> verify::pointer({"data", "variables", NAME}). A name without the
 *   leading "/" now throws codes::err_invalid_argument instead of reading nothing.
 * - user_login(user, password, card, mac) -> user_login(user, password, mac) to log in,
 *   user_login_with_card(user, password, card, mac) to renew with a card.
 * - get_variable() (all) -> get_variables(); get_variable(name) requires the name.
 * - A 200 reply with fields missing or of other types is a Reply (ABI 1 threw
 *   codes::err_protocol with Error::reply_json()); its accessors give std::nullopt.
 * - KeeperOptions fields are std::optional (unset: the library's default; 0 is no longer
 *   "default" but invalid); KeeperStatus adds heartbeats_ok and heartbeats_failed, and an
 *   unknown state no longer throws codes::err_protocol.
 */

#ifndef VERIFY_HPP
#define VERIFY_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verify.h"

static_assert(VERIFY_ABI_VERSION == 2, "verify.hpp is written for ABI 2 of verify.h");

namespace verify {

/* The result codes of verify.h (the same integers): compare Reply::code() and
 * Error::code() with them. */
namespace codes {
// BEGIN GENERATED: codes (tests/generated.rs; do not edit)
inline constexpr std::int32_t ok = VERIFY_OK;
inline constexpr std::int32_t pending = VERIFY_PENDING;
inline constexpr std::int32_t offline = VERIFY_OFFLINE;
inline constexpr std::int32_t program_not_found = VERIFY_PROGRAM_NOT_FOUND;
inline constexpr std::int32_t wrong_password = VERIFY_WRONG_PASSWORD;
inline constexpr std::int32_t card_invalid = VERIFY_CARD_INVALID;
inline constexpr std::int32_t expired = VERIFY_EXPIRED;
inline constexpr std::int32_t disabled = VERIFY_DISABLED;
inline constexpr std::int32_t token_invalid = VERIFY_TOKEN_INVALID;
inline constexpr std::int32_t signature_error = VERIFY_SIGNATURE_ERROR;
inline constexpr std::int32_t app_key_wrong = VERIFY_APP_KEY_WRONG;
inline constexpr std::int32_t not_approved = VERIFY_NOT_APPROVED;
inline constexpr std::int32_t incomplete_parameters = VERIFY_INCOMPLETE_PARAMETERS;
inline constexpr std::int32_t timestamp_skew = VERIFY_TIMESTAMP_SKEW;
inline constexpr std::int32_t unknown_action = VERIFY_UNKNOWN_ACTION;
inline constexpr std::int32_t user_not_registered = VERIFY_USER_NOT_REGISTERED;
inline constexpr std::int32_t username_taken = VERIFY_USERNAME_TAKEN;
inline constexpr std::int32_t ip_registration_limit = VERIFY_IP_REGISTRATION_LIMIT;
inline constexpr std::int32_t same_machine_code = VERIFY_SAME_MACHINE_CODE;
inline constexpr std::int32_t rebind_limit = VERIFY_REBIND_LIMIT;
inline constexpr std::int32_t machine_changed = VERIFY_MACHINE_CHANGED;
inline constexpr std::int32_t blacklisted = VERIFY_BLACKLISTED;
inline constexpr std::int32_t count_card_not_allowed = VERIFY_COUNT_CARD_NOT_ALLOWED;
inline constexpr std::int32_t err_invalid_argument = VERIFY_ERR_INVALID_ARGUMENT;
inline constexpr std::int32_t err_invalid_utf8 = VERIFY_ERR_INVALID_UTF8;
inline constexpr std::int32_t err_network = VERIFY_ERR_NETWORK;
inline constexpr std::int32_t err_timeout = VERIFY_ERR_TIMEOUT;
inline constexpr std::int32_t err_tls = VERIFY_ERR_TLS;
inline constexpr std::int32_t err_protocol = VERIFY_ERR_PROTOCOL;
inline constexpr std::int32_t err_cancelled = VERIFY_ERR_CANCELLED;
inline constexpr std::int32_t err_panic = VERIFY_ERR_PANIC;
inline constexpr std::int32_t err_no_such_field = VERIFY_ERR_NO_SUCH_FIELD;
inline constexpr std::int32_t err_system = VERIFY_ERR_SYSTEM;
inline constexpr std::int32_t err_pin = VERIFY_ERR_PIN;
inline constexpr std::int32_t err_proxy = VERIFY_ERR_PROXY;
inline constexpr std::int32_t err_too_large = VERIFY_ERR_TOO_LARGE;
inline constexpr std::int32_t err_clock_back = VERIFY_ERR_CLOCK_BACK;
inline constexpr std::int32_t err_grace_over = VERIFY_ERR_GRACE_OVER;
inline constexpr std::int32_t err_offline_expired = VERIFY_ERR_OFFLINE_EXPIRED;
// END GENERATED: codes
}  // namespace codes

/* The session a heartbeat keeps alive: the token of single_login (Card) or of user_login
 * (User). */
enum class SessionKind : std::int32_t {
    Card = VERIFY_SESSION_CARD,
    User = VERIFY_SESSION_USER,
};

/* The ABI version of the header this program was compiled with; compare with abi_version(). */
inline constexpr std::uint32_t header_abi_version = VERIFY_ABI_VERSION;

/* A static English description of any result code. Valid for the life of the program. */
inline std::string_view describe(std::int32_t code) noexcept {
    const char *text = verify_code_describe(code);
    return text != nullptr ? std::string_view(text) : std::string_view();
}

/* The library version, e.g. "0.2.0". Valid for the life of the program. */
inline std::string_view version() noexcept {
    const char *text = verify_version();
    return text != nullptr ? std::string_view(text) : std::string_view();
}

/* The library's ABI version (header_abi_version is the header's). */
inline std::uint32_t abi_version() noexcept { return verify_abi_version(); }

/* The code page of every string the library takes and gives, for the whole process
 * (verify_set_code_page): VERIFY_CODE_PAGE_UTF8 (65001, the default), VERIFY_CODE_PAGE_SYSTEM
 * (0) or a Windows code page number. Every std::string and std::string_view of this binding
 * is in it. Set it once, before other calls; throws verify::Error for an unknown one. */
inline void set_code_page(std::int32_t code_page);

/* The code page set with set_code_page() (65001, UTF-8, unless changed). */
inline std::int32_t code_page() noexcept { return verify_code_page(); }

/*
 * The JSON Pointer (RFC 6901) of `tokens` from the top of a reply, each token escaped
 * ("~" as "~0", "/" as "~1"): pointer({"data", "variables", "a/b"}) is
 * "/data/variables/a~1b". No token: "" (the whole reply). Array items are their index
 * as a token: pointer({"data", "list", "0"}).
 */
inline std::string pointer(std::initializer_list<std::string_view> tokens) {
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

/* The JSON Pointer of the field `name` of the reply's data: "/data/" + name, escaped as
 * pointer() does. field("token") is "/data/token", field("a.b") is "/data/a.b". */
inline std::string field(std::string_view name) { return pointer({"data", name}); }

/*
 * A local failure: no answer of the server exists (see the top of this file).
 * code() is negative (a VERIFY_ERR_* / codes::err_*), what() the library's message.
 * Copying never throws.
 */
class Error : public std::runtime_error {
public:
    Error(std::int32_t code, const std::string &message,
          std::shared_ptr<const std::string> reply_json = nullptr)
        : std::runtime_error(message), code_(code), reply_json_(std::move(reply_json)) {}

    /* The result code (negative for every failure the library reports). */
    std::int32_t code() const noexcept { return code_; }

    /* verify::describe(code()). */
    std::string_view description() const noexcept { return describe(code_); }

    /* The JSON of a reply the library handed out together with a negative code, if it ever
     * does; std::nullopt otherwise. In ABI 2 no call does: a reply comes only with the
     * server's own code, and that is a Reply, not an Error. The view is valid as long as
     * this Error or a copy of it lives. */
    std::optional<std::string_view> reply_json() const noexcept {
        if (!reply_json_) {
            return std::nullopt;
        }
        return std::string_view(*reply_json_);
    }

private:
    std::int32_t code_;
    std::shared_ptr<const std::string> reply_json_;
};

namespace detail {

struct ClientDeleter {
    void operator()(verify_client *client) const noexcept { verify_client_free(client); }
};

struct ReplyDeleter {
    void operator()(verify_reply *reply) const noexcept { verify_reply_free(reply); }
};

using ClientPtr = std::unique_ptr<verify_client, ClientDeleter>;
using ReplyPtr = std::unique_ptr<verify_reply, ReplyDeleter>;

/* An Error made on this side of the boundary, with a message shaped like the library's. */
[[noreturn]] inline void fail(std::int32_t code, std::string_view what) {
    std::string message(describe(code));
    message += " (";
    message += std::to_string(code);
    message += "): ";
    message += what;
    throw Error(code, message);
}

/* The Error of a C call that failed with `code`: the library's message (copied now, before
 * any other call can replace it), or the code's description when it left none. */
[[noreturn]] inline void raise(std::int32_t code) {
    const char *text = verify_last_error_message();
    std::string message = text != nullptr ? std::string(text) : std::string();
    if (message.empty()) {
        message = std::string(describe(code)) + " (" + std::to_string(code) + ")";
    }
    throw Error(code, message);
}

/* The outcome of a C accessor (verify_reply_str, verify_keeper_status_*): true when it wrote
 * its out parameter (0), false when the value is absent (VERIFY_ERR_NO_SUCH_FIELD); any
 * other code throws. */
/* A time point of Unix seconds (system_clock counts from the Unix epoch on every supported
 * platform). */
inline std::chrono::system_clock::time_point unix_time(std::int64_t seconds) {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::seconds(seconds)));
}

inline bool found(std::int32_t code) {
    if (code == 0) {
        return true;
    }
    if (code == codes::err_no_such_field) {
        return false;
    }
    raise(code);
}

/* Throws unless a C call that answers 200 on success did. */
inline void check_ok(std::int32_t code) {
    if (code != codes::ok) {
        raise(code);
    }
}

/* Refuses a string argument that C would silently cut at an embedded NUL. */
inline void check(std::string_view value, const char *name) {
    if (value.find('\0') != std::string_view::npos) {
        fail(codes::err_invalid_argument,
             std::string("argument `") + name + "` contains a NUL character");
    }
}

/* A NUL-terminated copy of a required string argument. */
inline std::string arg(std::string_view value, const char *name) {
    check(value, name);
    return std::string(value);
}

/* A duration as the uint32_t milliseconds of the C API, refused (VERIFY_ERR_INVALID_ARGUMENT)
 * outside `minimum`..UINT32_MAX. */
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

/* The seconds of `value`, 0..UINT32_MAX, or throws codes::err_invalid_argument. */
inline std::uint32_t to_seconds(std::chrono::seconds value, const char *name) {
    if (value.count() < 0 || static_cast<std::uint64_t>(value.count()) > (std::numeric_limits<std::uint32_t>::max)()) {
        detail::fail(codes::err_invalid_argument, std::string(name) + " must be 0..4294967295 s");
    }
    return static_cast<std::uint32_t>(value.count());
}

/* A NUL-terminated copy of an optional string argument; c_str() is NULL when absent. */
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

/* A copy of a string the library lent; NULL (which a successful accessor never gives) is
 * read as empty. */
inline std::string copy(const char *text) { return text != nullptr ? std::string(text) : std::string(); }

}  // namespace detail

inline void set_code_page(std::int32_t code_page) { detail::check_ok(verify_set_code_page(code_page)); }

/*
 * An answer of the server, of any code. Move-only owner of a verify_reply.
 * Every accessor copies out of the reply; reads may run on several threads at once.
 * Fields are read by JSON Pointer ("/data/token"; see the top of this file): std::nullopt
 * when absent or of another type, verify::Error for a malformed pointer.
 */
class Reply {
public:
    /* Takes ownership of `reply` (from a verify_* call; NULL gives an empty Reply). */
    explicit Reply(verify_reply *reply) noexcept : handle_(reply) {}

    Reply(Reply &&) noexcept = default;
    Reply &operator=(Reply &&) noexcept = default;
    Reply(const Reply &) = delete;
    Reply &operator=(const Reply &) = delete;
    ~Reply() = default;

    /* false once moved from (or released). */
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /* The server's code: 200, 201 or its refusal (1001..1024), never translated. */
    std::int32_t code() const {
        std::int32_t code = verify_reply_code(live());
        if (code < 0) {
            detail::raise(code);
        }
        return code;
    }

    /* code() == codes::ok. */
    bool ok() const { return code() == codes::ok; }

    /* code() == codes::pending (social authorization: poll again). */
    bool pending() const { return code() == codes::pending; }

    /* Whether this is an offline verdict (codes::offline): the server could not be reached
     * and the stored verdict of the last good login answered (offline verdicts on:
     * ClientOptions::offline_grace). Its fields are those of the server's last confirmed
     * login, without the token; offline_info() says more. */
    bool offline() const { return code() == codes::offline; }

    /* ok() or offline(): the program may run. */
    bool licensed() const {
        std::int32_t c = code();
        return c == codes::ok || c == codes::offline;
    }

    /* What an offline verdict knows besides its fields. */
    struct OfflineInfo {
        /* When the server last confirmed the licence. */
        std::chrono::system_clock::time_point confirmed_at;
        /* When the offline grace period ends. */
        std::chrono::system_clock::time_point grace_end;
        /* The local failure that kept the server out of reach (codes::err_network,
         * err_timeout...); its words are in message(). */
        std::int32_t reason = 0;
    };

    /* An offline verdict's info (verify_reply_offline); std::nullopt for the server's own
     * reply. */
    std::optional<OfflineInfo> offline_info() const {
        std::int64_t confirmed_at = 0;
        std::int64_t grace_end = 0;
        std::int32_t reason = 0;
        if (!detail::found(verify_reply_offline(live(), &confirmed_at, &grace_end, &reason))) {
            return std::nullopt;
        }
        return OfflineInfo{detail::unix_time(confirmed_at), detail::unix_time(grace_end), reason};
    }

    /* verify::describe(code()). */
    std::string_view description() const { return describe(code()); }

    /* The server's message (localized; may be empty). */
    std::string message() const {
        const char *text = verify_reply_message(live());
        if (text == nullptr) {
            detail::raise(verify_last_error_code());
        }
        return std::string(text);
    }

    /* /data/remark: on 1006 the reason, on 1022 the bound machine code, on a login the
     * back-office note. std::nullopt when absent. */
    std::optional<std::string> remark() const { return str("/data/remark"); }

    /* The value at the JSON Pointer `pointer` as text: a string as it is, a number or
     * boolean in JSON notation. std::nullopt when absent, null, an object or an array. */
    std::optional<std::string> str(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        const char *text = nullptr;
        if (!detail::found(verify_reply_str(reply, path.c_str(), &text))) {
            return std::nullopt;
        }
        return detail::copy(text);
    }

    /* The value at `pointer` as an integer; std::nullopt when absent or not an integer in
     * range (a string such as "5" is not parsed). */
    std::optional<std::int64_t> integer(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        std::int64_t value = 0;
        if (!detail::found(verify_reply_int(reply, path.c_str(), &value))) {
            return std::nullopt;
        }
        return value;
    }

    /* The value at `pointer` as a boolean; std::nullopt when absent or not a boolean. */
    std::optional<bool> boolean(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        std::int32_t value = 0;
        if (!detail::found(verify_reply_bool(reply, path.c_str(), &value))) {
            return std::nullopt;
        }
        return value != 0;
    }

    /* The value at `pointer` as JSON text, of any type (an object lists its keys, an array
     * its items); std::nullopt when absent. */
    std::optional<std::string> json(std::string_view pointer) const {
        const verify_reply *reply = live();
        std::string path = detail::arg(pointer, "pointer");
        const char *text = nullptr;
        if (!detail::found(verify_reply_json(reply, path.c_str(), &text))) {
            return std::nullopt;
        }
        return detail::copy(text);
    }

    /* The whole reply as JSON: {"code":..,"message":..,"data":..}, unknown fields included. */
    std::string json() const {
        const char *text = nullptr;
        std::int32_t code = verify_reply_json(live(), nullptr, &text);
        if (code != 0) {
            detail::raise(code);
        }
        return detail::copy(text);
    }

    /* The C handle, still owned by this Reply (NULL when empty). */
    const verify_reply *get() const noexcept { return handle_.get(); }

    /* Gives up ownership: the caller must verify_reply_free() the result. */
    verify_reply *release() noexcept { return handle_.release(); }

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

/*
 * The outcome of a C call: a Reply when the server answered, else an Error. `raw` is owned
 * from here on, so nothing leaks whichever way this goes.
 */
inline Reply finish(std::int32_t code, verify_reply *raw) {
    Reply reply(raw);
    if (code >= 0 && reply) {
        return reply;
    }
    // Copy the message first: any later call into the library may replace it.
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

/* What a keeper's Event reports (the VERIFY_EVENT_* integers). Later versions of the
 * library may add kinds: an Event may hold a value not named here (kept as it is). */
enum class EventKind : std::int32_t {
    /* A heartbeat succeeded; expire_at is the session's new expiry. */
    Alive = VERIFY_EVENT_ALIVE,
    /* A back-office message, in text, delivered once. */
    Message = VERIFY_EVENT_MESSAGE,
    /* A heartbeat failed; the keeper retries within the grace period, the session stays
     * usable. */
    Trouble = VERIFY_EVENT_TROUBLE,
    /* The session ended (1005, 1006 with remark, 1007, another refusal of a login sent
     * again after an offline start, the grace period ran out (codes::err_grace_over when
     * offline), or codes::err_panic when the keeper's thread failed); the keeper has
     * stopped. */
    Ended = VERIFY_EVENT_ENDED,
    /* Offline verdicts on: the server cannot be reached; the session goes on offline until
     * grace_end. Also the first event of a keeper started from an offline verdict. */
    Offline = VERIFY_EVENT_OFFLINE,
    /* Offline verdicts on: the server confirmed the licence again, or for the first time
     * after an offline start; expire_at is its expiry. */
    Online = VERIFY_EVENT_ONLINE,
};

/* The state of a kept session (the VERIFY_KEEPER_* integers). Later versions of the library
 * may add states: a KeeperState may hold a value not named here (kept as it is; treat it as
 * "not alive", as session_usable() does). */
enum class KeeperState : std::int32_t {
    /* The last heartbeat succeeded (or none was due yet). */
    Alive = VERIFY_KEEPER_ALIVE,
    /* Heartbeats fail; the grace period runs; the session stays usable. */
    Grace = VERIFY_KEEPER_GRACE,
    /* The session ended or the keeper was stopped. */
    Ended = VERIFY_KEEPER_ENDED,
};

/* Whether a session in `state` may still be used: Alive or Grace. false for Ended and for
 * any state this header does not know. */
inline constexpr bool session_usable(KeeperState state) noexcept {
    return state == KeeperState::Alive || state == KeeperState::Grace;
}

/* One report of a keeper: a copy of the C verify_event, valid after the callback. */
struct Event {
    /* What happened (possibly a kind this header does not name). */
    EventKind kind = EventKind::Alive;
    /* The heartbeat's code: 200, the server's refusal (1005, 1006, 1007...), or a negative
     * local code (codes::err_network...). */
    std::int32_t code = 0;
    /* The server's message or the local failure's explanation (may be empty). */
    std::string message;
    /* remark of a refusal: the reason of a 1006. */
    std::optional<std::string> remark;
    /* The session's expiry, on EventKind::Alive. */
    std::optional<std::string> expire_at;
    /* The back-office message, on EventKind::Message. */
    std::optional<std::string> text;
    /* When the grace period ends, on EventKind::Offline (and Trouble and Ended while
     * offline). */
    std::optional<std::chrono::system_clock::time_point> grace_end;
};

/* The function receiving a keeper's events, on the keeper's event thread. Exceptions it
 * throws are caught and dropped (they cannot cross the C boundary). */
using EventHandler = std::function<void(const Event &)>;

/*
 * Settings of Client::keep_alive, a plain value mapped onto a verify_keeper_options handle
 * (verify_keeper_options_set_interval, _set_grace, _set_ip) when the keeper starts. A field
 * left std::nullopt keeps the library's default. Aggregate: KeeperOptions{interval, grace, ip}.
 */
struct KeeperOptions {
    /* Time between heartbeats, at least 1 s (a small random jitter is added). Default: the
     * spec's 5 minutes. */
    std::optional<std::chrono::milliseconds> interval = std::nullopt;
    /* How long the session stays usable while heartbeats fail for other reasons than its
     * end (network down), counted from the first failure; at least 1 ms. Default: 15 min. */
    std::optional<std::chrono::milliseconds> grace = std::nullopt;
    /* The client IP reported with each heartbeat (empty: none). Default: none. */
    std::optional<std::string> ip = std::nullopt;
};

/* A snapshot of a keeper (Keeper::status()), from the accessors of verify_keeper_status. */
struct KeeperStatus {
    /* Alive, in grace, ended, or a state this header does not name. */
    KeeperState state = KeeperState::Alive;
    /* The code of the last heartbeat: 0 before the first, 200, a refusal, or a negative
     * local code. */
    std::int32_t last_code = 0;
    /* The message of the last heartbeat (empty after a success). */
    std::string last_message;
    /* remark of the last refusal (the reason of a 1006); std::nullopt when none. */
    std::optional<std::string> remark;
    /* When the last heartbeat succeeded (wall clock, whole seconds; system_clock counts
     * from the Unix epoch on every supported platform); std::nullopt before the first. */
    std::optional<std::chrono::system_clock::time_point> last_success;
    /* The session's expiry from the last successful heartbeat; std::nullopt before it. */
    std::optional<std::string> expire_at;
    /* When the server last confirmed the licence (with offline verdicts on, the stored
     * verdict's confirmation, carried across restarts); std::nullopt when none. */
    std::optional<std::chrono::system_clock::time_point> last_confirmed;
    /* When the grace period ends while heartbeats fail or the session is offline;
     * std::nullopt while alive. */
    std::optional<std::chrono::system_clock::time_point> grace_end;
    /* How many heartbeats succeeded, and how many failed (for any reason). */
    std::uint64_t heartbeats_ok = 0;
    std::uint64_t heartbeats_failed = 0;
    /* Back-office messages received since the previous status(), oldest first, each handed
     * out once. Always empty for a keeper with an on_event function (which receives them
     * as EventKind::Message instead). */
    std::vector<std::string> messages;
};

namespace detail {

struct KeeperDeleter {
    void operator()(verify_keeper *keeper) const noexcept { verify_keeper_free(keeper); }
};

struct KeeperOptionsDeleter {
    void operator()(verify_keeper_options *options) const noexcept {
        verify_keeper_options_free(options);
    }
};

/* The C type of a status snapshot (from verify_keeper_get_status). */
using KeeperStatusHandle = verify_keeper_status;

struct KeeperStatusDeleter {
    void operator()(KeeperStatusHandle *status) const noexcept { verify_keeper_status_free(status); }
};

struct CancelDeleter {
    void operator()(verify_cancel *cancel) const noexcept { verify_cancel_free(cancel); }
};

using KeeperPtr = std::unique_ptr<verify_keeper, KeeperDeleter>;
using KeeperOptionsPtr = std::unique_ptr<verify_keeper_options, KeeperOptionsDeleter>;
using KeeperStatusPtr = std::unique_ptr<KeeperStatusHandle, KeeperStatusDeleter>;
using CancelPtr = std::unique_ptr<verify_cancel, CancelDeleter>;

/*
 * What a Keeper owns, on the heap so that moving the Keeper moves neither. Members are
 * destroyed in reverse order: `handle` first (verify_keeper_free stops the keeper and joins
 * its event thread, waiting for a running callback), then `on_event`, which the C library
 * holds a pointer to until then.
 */
struct KeeperBox {
    EventHandler on_event;
    KeeperPtr handle;
};

inline std::optional<std::string> optional_text(const char *text) {
    if (text == nullptr) {
        return std::nullopt;
    }
    return std::string(text);
}

/* The C callback of every keeper with an on_event function. */
struct EventTrampoline {
    /* `user_data` is the keeper's EventHandler. Declared with VERIFY_CALL, as
     * verify_event_callback is. No exception leaves it: the C library's thread cannot
     * unwind a C++ exception. */
    static void VERIFY_CALL deliver(void *user_data, const verify_event *event) noexcept {
        if (user_data == nullptr || event == nullptr) {
            return;
        }
        try {
            Event copy;
            // Any int32_t is a valid EventKind (fixed underlying type): an unknown kind of a
            // later library is kept as it is.
            copy.kind = static_cast<EventKind>(event->kind);
            copy.code = event->code;
            copy.message = detail::copy(event->message);
            copy.remark = optional_text(event->remark);
            copy.expire_at = optional_text(event->expire_at);
            copy.text = optional_text(event->text);
            if (event->grace_end != 0) {
                copy.grace_end = unix_time(event->grace_end);
            }
            const EventHandler &on_event = *static_cast<const EventHandler *>(user_data);
            on_event(copy);
        } catch (...) {
            // Swallowed on purpose (documented on EventHandler): an exception of on_event, or
            // a std::bad_alloc while copying the event, must not reach the C caller.
        }
    }
};

/* The status snapshot's values, read through its accessors. */
inline KeeperStatus read_status(const KeeperStatusHandle *handle) {
    KeeperStatus status;
    std::int32_t state = 0;
    if (found(verify_keeper_status_state(handle, &state))) {
        // Any int32_t is a valid KeeperState: a state of a later library is kept as it is.
        status.state = static_cast<KeeperState>(state);
    }
    std::int32_t last_code = 0;
    if (found(verify_keeper_status_last_code(handle, &last_code))) {
        status.last_code = last_code;
    }
    const char *text = nullptr;
    if (found(verify_keeper_status_last_message(handle, &text))) {
        status.last_message = copy(text);
    }
    text = nullptr;
    if (found(verify_keeper_status_remark(handle, &text))) {
        status.remark = copy(text);
    }
    text = nullptr;
    if (found(verify_keeper_status_expire_at(handle, &text))) {
        status.expire_at = copy(text);
    }
    std::int64_t seconds = 0;
    if (found(verify_keeper_status_last_success(handle, &seconds))) {
        status.last_success = unix_time(seconds);
    }
    if (found(verify_keeper_status_last_confirmed(handle, &seconds))) {
        status.last_confirmed = unix_time(seconds);
    }
    if (found(verify_keeper_status_grace_end(handle, &seconds))) {
        status.grace_end = unix_time(seconds);
    }
    std::uint64_t ok = 0;
    std::uint64_t failed = 0;
    if (found(verify_keeper_status_counts(handle, &ok, &failed))) {
        status.heartbeats_ok = ok;
        status.heartbeats_failed = failed;
    }
    std::size_t count = 0;
    if (found(verify_keeper_status_message_count(handle, &count))) {
        status.messages.reserve(count);
        for (std::size_t index = 0; index < count; ++index) {
            text = nullptr;
            if (found(verify_keeper_status_message(handle, index, &text))) {
                status.messages.push_back(copy(text));
            }
        }
    }
    return status;
}

}  // namespace detail

class Client;

/*
 * A running session keeper, from Client::keep_alive. Move-only owner of a verify_keeper and
 * of its on_event function; destroying it stops the keeper and joins its threads (promptly:
 * a heartbeat in flight is cancelled; a running on_event is waited for). Never throws from
 * its destructor. Must not be destroyed from its own on_event. A moved-from Keeper is empty
 * (`!keeper`) and its methods throw verify::Error (codes::err_invalid_argument).
 * stop(), state() and status() may run on several threads at once.
 */
class Keeper {
public:
    Keeper(Keeper &&) noexcept = default;
    Keeper &operator=(Keeper &&) noexcept = default;
    Keeper(const Keeper &) = delete;
    Keeper &operator=(const Keeper &) = delete;
    ~Keeper() = default;

    /* false once moved from. */
    explicit operator bool() const noexcept { return box_ != nullptr; }

    /* Stops the keeper: no heartbeat and no event after it returns (unless called from
     * on_event itself: it returns at once and the event thread ends after that callback).
     * Idempotent; state() is Ended afterwards. */
    void stop() const { detail::check_ok(verify_keeper_stop(live())); }

    /* The current state, without a snapshot (possibly a state this header does not name). */
    KeeperState state() const {
        std::int32_t code = verify_keeper_state(live());
        if (code < 0) {
            detail::raise(code);
        }
        return static_cast<KeeperState>(code);
    }

    /* A typed snapshot for hosts that poll. Hands out the queued back-office messages (each
     * once), so two threads calling it at once each get some of them. */
    KeeperStatus status() const {
        detail::KeeperStatusHandle *raw = nullptr;
        std::int32_t code = verify_keeper_get_status(live(), &raw);
        detail::KeeperStatusPtr snapshot(raw);
        if (code != codes::ok || !snapshot) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
        return detail::read_status(snapshot.get());
    }

    /* The C handle, still owned by this Keeper (NULL when empty). There is no release():
     * the Keeper also owns the on_event function the handle calls. */
    verify_keeper *get() const noexcept { return box_ ? box_->handle.get() : nullptr; }

private:
    friend class Client;

    explicit Keeper(std::unique_ptr<detail::KeeperBox> box) noexcept : box_(std::move(box)) {}

    const verify_keeper *live() const {
        if (!box_) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::Keeper");
        }
        return box_->handle.get();
    }

    std::unique_ptr<detail::KeeperBox> box_;
};

/*
 * A cancellation token for Client::social_login_wait. Move-only owner of a verify_cancel.
 * cancel() may be called from any thread (through a const reference too) while a wait uses
 * the token; moving or destroying it must not overlap with a wait or a cancel() using it.
 */
class CancelToken {
public:
    /* A token not cancelled yet. */
    CancelToken() {
        verify_cancel *raw = nullptr;
        std::int32_t code = verify_cancel_new(&raw);
        handle_.reset(raw);
        if (code != codes::ok || !handle_) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
    }

    CancelToken(CancelToken &&) noexcept = default;
    CancelToken &operator=(CancelToken &&) noexcept = default;
    CancelToken(const CancelToken &) = delete;
    CancelToken &operator=(const CancelToken &) = delete;
    ~CancelToken() = default;

    /* false once moved from. */
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /* Cancels: a wait using this token throws codes::err_cancelled within milliseconds, and
     * later waits with it throw at once. Any thread, any number of times. */
    void cancel() const {
        if (!handle_) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::CancelToken");
        }
        detail::check_ok(verify_cancel_cancel(handle_.get()));
    }

    /* The C handle, still owned by this token (NULL when empty). */
    const verify_cancel *get() const noexcept { return handle_.get(); }

    /* Gives up ownership: the caller must verify_cancel_free() the result. */
    verify_cancel *release() noexcept { return handle_.release(); }

private:
    detail::CancelPtr handle_;
};

/* The machine code of this machine for `salt` (one per program, such as its AppId; may be
 * empty): 32 uppercase hex characters, the same on every call and in every process. Throws
 * verify::Error on failure (a NUL in `salt`; codes::err_system when no machine identity can
 * be read or stored). */
inline std::string machine_code(std::string_view salt) {
    std::string s = detail::arg(salt, "salt");
    char out[VERIFY_MACHINE_CODE_LEN + 1] = {};
    detail::check_ok(verify_machine_code(s.c_str(), out, sizeof out));
    return std::string(out);
}

/* The level of a log message (the VERIFY_LOG_* integers). Later versions of the library may
 * add levels: a LogLevel may hold a value not named here (kept as it is). */
enum class LogLevel : std::int32_t {
    /* A call failed because of it. */
    Error = VERIFY_LOG_ERROR,
    /* Something went wrong and was handled (a retry, a failover, a re-Init). */
    Warn = VERIFY_LOG_WARN,
    /* A notable step (a new connection, an Init). */
    Info = VERIFY_LOG_INFO,
    /* Detail. */
    Debug = VERIFY_LOG_DEBUG,
};

/* The function receiving a client's log messages: its level and an English text (borrowed
 * for the call: copy what you keep). It runs on the thread making the call (a keeper's
 * heartbeats: the keeper's thread), so on several threads at once: it must be thread-safe
 * and should return quickly. Exceptions it throws are caught and dropped. It never receives
 * a secret (api password, AppKey, card key, password, token, machine code). */
using LogHandler = std::function<void(LogLevel, std::string_view)>;

/* The trust stores of a client (VERIFY_TRUST_* flags), combined with `|`. */
enum class Trust : std::uint32_t {
    /* Only the roots and pins given in ClientOptions. */
    None = 0,
    /* Mozilla's root certificates (the default). */
    Mozilla = VERIFY_TRUST_MOZILLA,
    /* The operating system's store (company CAs, TLS-inspecting proxies). */
    System = VERIFY_TRUST_SYSTEM,
};

inline constexpr Trust operator|(Trust a, Trust b) noexcept {
    return static_cast<Trust>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}

/* How a client reaches the service (verify_client_options_set_proxy); loopback hosts never
 * go through a proxy. */
struct Proxy {
    enum class Mode : std::int32_t {
        /* The system's settings (ALL_PROXY, HTTPS_PROXY, HTTP_PROXY with NO_PROXY; on
         * Windows the registry's Internet settings): the default. */
        System = VERIFY_PROXY_SYSTEM,
        /* No proxy. */
        None = VERIFY_PROXY_NONE,
        /* The proxy of `url`. */
        Url = VERIFY_PROXY_URL,
    };
    Mode mode = Mode::System;
    /* For Mode::Url: http://, https:// (CONNECT), socks5:// or socks5h://, with an optional
     * user:password@. */
    std::string url;

    static Proxy system() { return Proxy{Mode::System, std::string()}; }
    static Proxy none() { return Proxy{Mode::None, std::string()}; }
    static Proxy with_url(std::string url) { return Proxy{Mode::Url, std::move(url)}; }
};

/*
 * Settings of a Client (the second constructor), a plain value mapped onto a
 * verify_client_options handle when the client is made. Fields left empty or std::nullopt
 * keep the library's defaults: no mirror, Mozilla's roots, the system's proxy settings,
 * plain http:// only to loopback, timeouts 10 s (connect) and 30 s (call), an attempt delay
 * of 250 ms, no fixed address, no state folder, no log.
 */
struct ClientOptions {
    /* Other base URLs of the same service. A new connection races them with the first
     * (see attempt_delay); the one that connects first is kept; a request that may have
     * reached a server is never sent to another. */
    std::vector<std::string> mirrors;
    /* The trust stores; Trust::None trusts only `root_pems`, `root_files` and `pins`. TLS
     * verification cannot be turned off. */
    std::optional<Trust> trust = std::nullopt;
    /* PEM texts whose certificates are trusted as roots, in addition to the stores. */
    std::vector<std::string> root_pems;
    /* PEM files whose certificates are trusted as roots (read when the client is made). */
    std::vector<std::string> root_files;
    /* Pinned keys: base64 of the SHA-256 of a DER SubjectPublicKeyInfo of the chain
     * ("sha256/" prefix accepted); a pinned self-signed certificate needs no CA. */
    std::vector<std::string> pins;
    /* The proxy; unset: the system's settings. */
    std::optional<Proxy> proxy = std::nullopt;
    /* Allows plain http:// to a host that is not loopback (the api password then travels
     * readable by anyone on the path). */
    bool allow_insecure_http = false;
    /* The connect and whole-call timeouts, each 1..UINT32_MAX ms; when only one is set, the
     * other is its default (10 s, 30 s). */
    std::optional<std::chrono::milliseconds> connect_timeout = std::nullopt;
    std::optional<std::chrono::milliseconds> call_timeout = std::nullopt;
    /* Racing connections (RFC 8305): every address of the name (IPv6 and IPv4 in turn) and
     * every mirror gets an attempt when the earlier ones have not connected within this
     * delay; the first to finish TCP and TLS wins. 0..10000 ms; unset: 250 ms. */
    std::optional<std::chrono::milliseconds> attempt_delay = std::nullopt;
    /* Fixed addresses for host names, like curl's --resolve: {host, ip} pairs; a listed
     * name is never looked up in DNS, and TLS still checks it. */
    std::vector<std::pair<std::string, std::string>> addresses;
    /* The client's state folder (the remembered winning line, the last good verdict): a
     * path, or an empty string for the per-user default; unset: nothing is written. */
    std::optional<std::string> state_folder = std::nullopt;
    /* Offline verdicts (a state folder needed): a login that cannot reach the server
     * answers from the stored verdict (Reply::offline()) when the server confirmed it less
     * than this long ago; unset: off. */
    std::optional<std::chrono::seconds> offline_grace = std::nullopt;
    /* A start that never waits long (offline verdicts needed): past this budget a login
     * whose stored verdict may answer gets it, and the login goes on in the background
     * (follow it with Client::keep_alive(reply)); unset: no budget. */
    std::optional<std::chrono::milliseconds> start_budget = std::nullopt;
    /* How far the local clock may be behind the latest server time seen before offline
     * verdicts are refused (codes::err_clock_back); unset: 10 minutes. */
    std::optional<std::chrono::seconds> clock_tolerance = std::nullopt;
    /* Receives the client's log messages (see LogHandler); empty: no log. The Client keeps
     * it, at an address that moving the Client does not change, until the client is freed. */
    LogHandler on_log;
};

namespace detail {

struct ClientOptionsDeleter {
    void operator()(verify_client_options *options) const noexcept {
        verify_client_options_free(options);
    }
};

using ClientOptionsPtr = std::unique_ptr<verify_client_options, ClientOptionsDeleter>;

/* The C log callback of every client with an on_log function. */
struct LogTrampoline {
    /* `user_data` is the client's LogHandler. Declared with VERIFY_CALL, as
     * verify_log_callback is. No exception leaves it. */
    static void VERIFY_CALL deliver(void *user_data, std::int32_t level, const char *message) noexcept {
        if (user_data == nullptr) {
            return;
        }
        try {
            const LogHandler &on_log = *static_cast<const LogHandler *>(user_data);
            // Any int32_t is a valid LogLevel: a level of a later library is kept as it is.
            on_log(static_cast<LogLevel>(level),
                   message != nullptr ? std::string_view(message) : std::string_view());
        } catch (...) {
            // Swallowed on purpose (documented on LogHandler): nothing may unwind into C.
        }
    }
};

/* A verify_client_options handle with `options` set, the log callback pointing at
 * `on_log` (which must outlive every client made with it). */
inline ClientOptionsPtr client_options(const ClientOptions &options, LogHandler *on_log) {
    verify_client_options *raw = nullptr;
    std::int32_t code = verify_client_options_new(&raw);
    ClientOptionsPtr handle(raw);
    if (code != codes::ok || !handle) {
        raise(code != codes::ok ? code : codes::err_panic);
    }
    for (const std::string &mirror : options.mirrors) {
        check_ok(verify_client_options_add_mirror(handle.get(), arg(mirror, "mirror").c_str()));
    }
    if (options.trust) {
        check_ok(verify_client_options_set_trust(handle.get(), static_cast<std::uint32_t>(*options.trust)));
    }
    for (const std::string &pem : options.root_pems) {
        check_ok(verify_client_options_add_root_pem(handle.get(), arg(pem, "root_pem").c_str()));
    }
    for (const std::string &file : options.root_files) {
        check_ok(verify_client_options_add_root_file(handle.get(), arg(file, "root_file").c_str()));
    }
    for (const std::string &pin : options.pins) {
        check_ok(verify_client_options_add_pin(handle.get(), arg(pin, "pin").c_str()));
    }
    if (options.proxy) {
        const bool with_url = options.proxy->mode == Proxy::Mode::Url;
        std::string url = arg(options.proxy->url, "proxy url");
        check_ok(verify_client_options_set_proxy(handle.get(), static_cast<std::int32_t>(options.proxy->mode),
                                                 with_url ? url.c_str() : nullptr));
    }
    if (options.allow_insecure_http) {
        check_ok(verify_client_options_allow_insecure_http(handle.get(), 1));
    }
    if (options.connect_timeout || options.call_timeout) {
        std::uint32_t connect_ms =
            to_ms(options.connect_timeout.value_or(std::chrono::seconds(10)), "timeout `connect`");
        std::uint32_t call_ms = to_ms(options.call_timeout.value_or(std::chrono::seconds(30)), "timeout `call`");
        check_ok(verify_client_options_set_timeouts(handle.get(), connect_ms, call_ms));
    }
    if (options.attempt_delay) {
        check_ok(verify_client_options_set_attempt_delay(handle.get(),
                                                         to_ms(*options.attempt_delay, "attempt_delay", 0)));
    }
    for (const auto &[host, ip] : options.addresses) {
        check_ok(verify_client_options_add_address(handle.get(), arg(host, "address host").c_str(),
                                                   arg(ip, "address ip").c_str()));
    }
    if (options.state_folder) {
        const std::string folder = arg(*options.state_folder, "state_folder");
        check_ok(verify_client_options_set_state_folder(handle.get(), folder.empty() ? nullptr : folder.c_str()));
    }
    if (options.offline_grace) {
        check_ok(verify_client_options_set_offline_grace(handle.get(), to_seconds(*options.offline_grace, "offline_grace")));
    }
    if (options.start_budget) {
        check_ok(verify_client_options_set_start_budget(handle.get(), to_ms(*options.start_budget, "start_budget", 0)));
    }
    if (options.clock_tolerance) {
        check_ok(
            verify_client_options_set_clock_tolerance(handle.get(), to_seconds(*options.clock_tolerance, "clock_tolerance")));
    }
    if (on_log != nullptr && *on_log) {
        check_ok(verify_client_options_set_log(handle.get(), &LogTrampoline::deliver,
                                               static_cast<void *>(on_log)));
    }
    return handle;
}

}  // namespace detail

/*
 * A client of the service for one program. Move-only owner of a verify_client.
 *
 * Every call method returns a Reply whenever the server answered (refusals included) and
 * throws verify::Error for local failures; see the top of this file. The call methods are
 * const and may run on several threads at once on one Client.
 */
class Client {
public:
    /* A client for the service at `base_url` (http:// or https://, host, optional port and
     * path prefix, without /api/verify), for the program `app_id` with its secret `app_key`.
     * Nothing is sent yet: Init runs on the first call unless init() is called. Throws
     * verify::Error on invalid arguments (the message says what to pass instead). */
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

    /* A client with settings (mirrors, trust, pins, proxy, timeouts, a log function): see
     * ClientOptions. Besides the checks of the first constructor, plain http:// to a host
     * that is not loopback throws unless allowed, and so do mirrors that do not parse, roots
     * or pins that do not parse, and a trust setting that trusts nothing. */
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
    /* Frees the client this one held first (its threads joined, so its log function is no
     * longer called), then takes `other`'s. */
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
    /* Stops and joins the client's background work, wipes its secrets. Never throws. */
    ~Client() = default;

    /* false once moved from (or released). */
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /* Connect timeout and whole-call timeout for calls that start afterwards, each
     * 1..UINT32_MAX ms (std::chrono::seconds and the like convert implicitly). Defaults
     * 10 s and 30 s. The call timeout bounds everything one call does (a lazy Init, a
     * re-Init, connects, a resend). Any thread, at any time. */
    void set_timeouts(std::chrono::milliseconds connect, std::chrono::milliseconds call) const {
        std::uint32_t connect_ms = detail::to_ms(connect, "timeout `connect`");
        std::uint32_t call_ms = detail::to_ms(call, "timeout `call`");
        detail::check_ok(verify_client_set_timeouts(handle_.get(), connect_ms, call_ms));
    }

    /* The Init handshake now (otherwise the first call runs it). */
    Reply init() const {
        verify_reply *out = nullptr;
        std::int32_t code = verify_init(handle_.get(), &out);
        return detail::finish(code, out);
    }

    // BEGIN GENERATED: actions (tests/generated.rs; do not edit)
    /* `SingleLogin` (card mode): activates the card on first use and binds it to `mac`;
     * later logins from the same machine refresh it (a count card spends one use). Never
     * sent twice by a retry.
     * Reply fields (each std::nullopt when absent): str("/data/token"), str("/data/status"),
     * boolean("/data/is_times"), str("/data/card_type"), str("/data/expire_at"),
     * integer("/data/total"), integer("/data/used"), integer("/data/remaining"). */
    Reply single_login(std::string_view card, std::string_view mac, std::optional<std::string_view> device_name = std::nullopt) const {
        std::string card_ = detail::arg(card, "card");
        std::string mac_ = detail::arg(mac, "mac");
        detail::OptionalArg device_name_(device_name, "device_name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_single_login(handle_.get(), card_.c_str(), mac_.c_str(), device_name_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `UserLogin` with username and password (account mode). `mac` is strongly
     * recommended (rebind detection).
     * Reply fields (each std::nullopt when absent): str("/data/username"), str("/data/device_id"),
     * str("/data/expire_at"), str("/data/status"), str("/data/token"), str("/data/remark"). */
    Reply user_login(std::string_view username, std::string_view password, std::optional<std::string_view> mac = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_login(handle_.get(), username_.c_str(), password_.c_str(), mac_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `UserLogin` with a recharge card: renews the account and returns no token (log in
     * again without a card for one). Never sent twice by a retry.
     * Reply fields (each std::nullopt when absent): str("/data/username"), str("/data/expire_at"),
     * integer("/data/added_days"), str("/data/status"). */
    Reply user_login_with_card(std::string_view username, std::string_view password, std::string_view card, std::optional<std::string_view> mac = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        std::string card_ = detail::arg(card, "card");
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_login_with_card(handle_.get(), username_.c_str(), password_.c_str(), card_.c_str(), mac_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `UserRegin`: registers an account, activated when a duration card is given. Never
     * sent twice by a retry.
     * Reply fields (each std::nullopt when absent): str("/data/username"),
     * integer("/data/user_id"), str("/data/expire_at"), str("/data/token"), str("/data/status"). */
    Reply user_register(std::string_view username, std::string_view password, std::optional<std::string_view> card = std::nullopt, std::optional<std::string_view> mac = std::nullopt, std::optional<std::string_view> device_name = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        detail::OptionalArg card_(card, "card");
        detail::OptionalArg mac_(mac, "mac");
        detail::OptionalArg device_name_(device_name, "device_name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_register(handle_.get(), username_.c_str(), password_.c_str(), card_.c_str(), mac_.c_str(), device_name_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `UpdatePwd`: checks the old password and sets the new one. Never sent twice by a
     * retry.
     * Reply fields (each std::nullopt when absent): str("/data/username"). */
    Reply update_password(std::string_view username, std::string_view old_password, std::string_view new_password) const {
        std::string username_ = detail::arg(username, "username");
        std::string old_password_ = detail::arg(old_password, "old_password");
        std::string new_password_ = detail::arg(new_password, "new_password");
        verify_reply *out = nullptr;
        std::int32_t code = verify_update_password(handle_.get(), username_.c_str(), old_password_.c_str(), new_password_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `ChangeBind`: binds the account to a new machine code. Never sent twice by a retry.
     * Reply fields (each std::nullopt when absent): str("/data/username"), str("/data/device_id"),
     * integer("/data/bind_count"), integer("/data/bind_limit"). */
    Reply change_bind(std::string_view username, std::string_view password, std::string_view new_mac) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        std::string new_mac_ = detail::arg(new_mac, "new_mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_change_bind(handle_.get(), username_.c_str(), password_.c_str(), new_mac_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `UserHeartbeat`: keeps a card or account session alive and collects a back-office
     * message (delivered once).
     * Reply fields (each std::nullopt when absent): str("/data/expire_at"), str("/data/status"),
     * str("/data/msg"). */
    Reply heartbeat(std::string_view token, SessionKind kind, std::optional<std::string_view> ip = std::nullopt) const {
        std::string token_ = detail::arg(token, "token");
        detail::OptionalArg ip_(ip, "ip");
        verify_reply *out = nullptr;
        std::int32_t code = verify_heartbeat(handle_.get(), token_.c_str(), static_cast<std::int32_t>(kind), ip_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `UserRecharge`: adds a duration card's time to an account (no password). Never sent
     * twice by a retry.
     * Reply fields (each std::nullopt when absent): str("/data/username"), str("/data/expire_at"),
     * str("/data/added_days"), str("/data/status"). */
    Reply user_recharge(std::string_view username, std::string_view card) const {
        std::string username_ = detail::arg(username, "username");
        std::string card_ = detail::arg(card, "card");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_recharge(handle_.get(), username_.c_str(), card_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `GetLatestVersion`, optionally with the program's current version.
     * Reply fields (each std::nullopt when absent): str("/data/version"), str("/data/changelog"),
     * str("/data/download_url"), boolean("/data/force_update"), boolean("/data/has_update"). */
    Reply get_latest_version(std::optional<std::string_view> current_version = std::nullopt) const {
        detail::OptionalArg current_version_(current_version, "current_version");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_latest_version(handle_.get(), current_version_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `GetBulletin`: the program's bulletin.
     * Reply fields (each std::nullopt when absent): str("/data/bulletin"), str("/data/updated_at"). */
    Reply get_bulletin() const {
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_bulletin(handle_.get(), &out);
        return detail::finish(code, out);
    }

    /* `GetVariable` for one variable.
     * Reply fields (each std::nullopt when absent): str("/data/name"), str("/data/value"). */
    Reply get_variable(std::string_view name) const {
        std::string name_ = detail::arg(name, "name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_variable(handle_.get(), name_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `GetVariable` for every variable.
     * Reply fields (each std::nullopt when absent): json("/data/variables"). */
    Reply get_variables() const {
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_variables(handle_.get(), &out);
        return detail::finish(code, out);
    }

    /* `GetUserInfo`: the account's details.
     * Reply fields (each std::nullopt when absent): str("/data/username"),
     * integer("/data/user_id"), str("/data/device_id"), str("/data/expire_at"),
     * str("/data/status"), integer("/data/bind_count"), integer("/data/bind_limit"),
     * str("/data/remark"), str("/data/created_at"). */
    Reply get_user_info(std::string_view username, std::string_view password) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_user_info(handle_.get(), username_.c_str(), password_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* `GetCardInfo`: the card's state, expiry and binding, consuming nothing.
     * Reply fields (each std::nullopt when absent): str("/data/card"), str("/data/card_type"),
     * str("/data/status"), boolean("/data/is_times"), str("/data/device_id"),
     * str("/data/activated_at"), str("/data/expire_at"), integer("/data/duration"),
     * str("/data/duration_type"), integer("/data/total"), integer("/data/used"),
     * integer("/data/remaining"). */
    Reply get_card_info(std::string_view card) const {
        std::string card_ = detail::arg(card, "card");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_card_info(handle_.get(), card_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* Social login step 1: the URL to show the user, and the state to poll with.
     * Reply fields (each std::nullopt when absent): str("/data/url"), str("/data/state"). */
    Reply social_login_start(std::optional<std::string_view> mac = std::nullopt) const {
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_login_start(handle_.get(), mac_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* Social login step 2, once: code 201 (pending) while the user has not authorized;
     * 200 with the login payload (`remark` is the social display name); 1016 when the
     * identity is not bound. Its success consumes the state, so it is never sent twice.
     * Reply fields (each std::nullopt when absent): str("/data/username"), str("/data/device_id"),
     * str("/data/expire_at"), str("/data/status"), str("/data/token"), str("/data/remark"). */
    Reply social_login_poll(std::string_view state, std::optional<std::string_view> mac = std::nullopt) const {
        std::string state_ = detail::arg(state, "state");
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_login_poll(handle_.get(), state_.c_str(), mac_.c_str(), &out);
        return detail::finish(code, out);
    }

    /* Social registration step 1: the URL to show the user. Never sent twice by a retry.
     * Reply fields (each std::nullopt when absent): str("/data/url"). */
    Reply social_register_start(std::string_view username, std::optional<std::string_view> mac = std::nullopt, std::optional<std::string_view> device_name = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        detail::OptionalArg mac_(mac, "mac");
        detail::OptionalArg device_name_(device_name, "device_name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_register_start(handle_.get(), username_.c_str(), mac_.c_str(), device_name_.c_str(), &out);
        return detail::finish(code, out);
    }

    // END GENERATED: actions

    /* Social login step 2, repeated every `interval` (at least 1 ms) until the user
     * authorizes (ok(), the login fields) or the server refuses (a Reply with its code, e.g.
     * 1016 when the identity is not bound). Throws verify::Error codes::err_timeout when
     * `timeout` (0..UINT32_MAX ms; 0 polls once) passes, codes::err_cancelled within
     * milliseconds when `cancel` (optional, not owned; it must outlive the call) is
     * cancelled from another thread. Blocks the calling thread. */
    Reply social_login_wait(std::string_view state, std::optional<std::string_view> mac,
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
        return detail::finish(code, out);
    }

    /* Starts keeping the session of `token` alive in the background: the token of
     * single_login (SessionKind::Card) or user_login (SessionKind::User), with `options`
     * (unset fields: the library's defaults). The first heartbeat is sent at once (a token the
     * server does not know ends the keeper with 1007), the next ones every interval after
     * the start. `on_event` (optional) receives every Event on the keeper's event thread;
     * exceptions it throws are swallowed (they cannot cross the C boundary). Without it,
     * back-office messages are queued for Keeper::status(). Throws verify::Error for invalid
     * arguments (an interval under 1 s, a grace of 0, a bad token or kind) and
     * codes::err_system when the keeper's threads cannot start. See the top of this file. */
    Keeper keep_alive(std::string_view token, SessionKind kind, const KeeperOptions &options = {},
                      EventHandler on_event = {}) const {
        std::string t = detail::arg(token, "token");
        return start_keeper(options, std::move(on_event), [&](verify_keeper_options *settings, verify_keeper **raw) {
            return verify_keeper_start(handle_.get(), t.c_str(), static_cast<std::int32_t>(kind), settings, raw);
        });
    }

    /* Starts keeping the session of a login's Reply: the server's own (ok(): its token and
     * session kind) or an offline verdict (offline()). From an offline verdict the keeper
     * reports EventKind::Offline, waits for the login still going on after a start budget
     * or sends it again, and reports EventKind::Online once the server takes it, or
     * EventKind::Ended with the server's refusal (the stored verdict is cleared) or
     * codes::err_grace_over. The reply is only read. Throws verify::Error
     * (codes::err_invalid_argument) for a reply that is neither. */
    Keeper keep_alive(const Reply &login, const KeeperOptions &options = {}, EventHandler on_event = {}) const {
        return start_keeper(options, std::move(on_event), [&](verify_keeper_options *settings, verify_keeper **raw) {
            return verify_keeper_start_from_reply(handle_.get(), login.get(), settings, raw);
        });
    }

    /* Any action with any parameters (key, value), in order; at most 256, and at most
     * 1 MiB of request body (more throws codes::err_too_large, nothing sent). Never sent
     * twice once it may have reached the server. */
    Reply call(std::string_view action,
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

    /* The C handle, still owned by this Client (NULL when empty). */
    verify_client *get() const noexcept { return handle_.get(); }

    /* Gives up ownership: the caller must verify_client_free() the result. A log function
     * of ClientOptions is then kept alive for the rest of the program (deliberately leaked:
     * the released client may still call it). */
    verify_client *release() noexcept {
        (void)log_.release();
        return handle_.release();
    }

private:
    /* The keeper settings of `options`, the handler in a box, and `start` (the C call that
     * makes the keeper with those settings). */
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
    // Declared before handle_, so destroyed after it: the client (and the threads that may
    // log) is freed before its log function.
    std::unique_ptr<LogHandler> log_;
    detail::ClientPtr handle_;
};

}  // namespace verify

#endif /* VERIFY_HPP */
