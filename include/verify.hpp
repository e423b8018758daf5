/*
 * verify.hpp: header-only C++17 binding of the verify licensing client, over verify.h (ABI 2).
 *
 *   #include "verify.hpp"          // also includes verify.h; link libverify as for C
 *
 *   verify::Client client("http://127.0.0.1:8080", "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
 *   try {
 *       verify::CardLogin login = client.single_login(card, verify::machine_code("10001")).value();
 *       use(login.token.value(), login.expire_at);    // expire_at: std::optional<verify::Time>
 *   } catch (const verify::Refused &refused) {         // the server refused: 1004, 1006, ...
 *       show(refused.code(), refused.message(), refused.remark().value_or(""));
 *   }                                                  // verify::Error: no answer (network, ...)
 *
 *   auto result = client.single_login(card, mac);      // or without exceptions
 *   if (!result) { show(result.error().code, result.error().remark.value_or("")); }
 *
 * Typed results (verify::Result<T>, the structs of the "results" section)
 * - Every action of the table returns a verify::Result<T>, T its reply view's struct
 *   (CardLogin, UserSession, Registration, Heartbeat, ...), generated from
 *   core/src/actions/table.rs: the fields of the spec, each std::optional (absent when the
 *   server left it out or sent another type), strings as std::string, integers std::int64_t,
 *   booleans bool, objects std::map<std::string, std::string>, and the service's times (the
 *   "*_at" fields, "YYYY-MM-DD HH:mm:ss" in UTC+08:00) as verify::Time, converted; every T is
 *   also an Answer (code, message, offline_info for an offline verdict, which has the stored
 *   fields and no token).
 * - A Result is std::expected-like: has_value() / operator bool (200, 201, 202), value(), *,
 *   -> (throw verify::Refused on a refusal), error() (a verify::Refusal: code, message, remark,
 *   json), and with C++23 (VERIFY_HAS_EXPECTED) expected(), an std::expected<T, Refusal>.
 * - A Result is a Reply too (below): code(), message(), remark(), str("/data/...") for the
 *   fields the spec does not show; verify::Reply r = client.single_login(...) still compiles.
 * - Registering without a card (user_register) creates an account that has already expired
 *   (its expire_at is the registration time, no token).
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
 * Results: a Reply, and an exception only where the host asks for it
 * - A call returns a Result (a Reply) whenever the server answered, whatever its code:
 *   success (200), pending (201), an offline verdict (202) and every refusal (1001..1024).
 *   The host chooses: branch on it (1006 carries the reason of a ban in remark(), 1022 the
 *   previously bound machine code, 1007 means "log in again"), or take value() /
 *   Reply::ensure_ok(), which throw verify::Refused (an Error with the server's code, its
 *   message and remark; configuration() for 1001, 1010, 1011, 1012). The server's code is
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
 * verify::machine_code(salt, MachineVersion::V2, folder) is machine code v2; machine_check()
 * says for each component whether it matches the stored one; machine_virtual() whether the
 * machine looks virtual (docs/machine-code.md).
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
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__has_include)
#if __has_include(<version>)
#include <version>
#endif
#endif
#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L
#include <expected>
/* 1 when this translation unit has std::expected (C++23): Result::expected() is declared. */
#define VERIFY_HAS_EXPECTED 1
#else
#define VERIFY_HAS_EXPECTED 0
#endif

#include "verify.h"

static_assert(VERIFY_ABI_VERSION == 2, "verify.hpp is written for ABI 2 of verify.h");

namespace verify {

/* The result codes of verify.h (the same integers): compare Reply::code() and
 * Error::code() with them. */
namespace codes {
// BEGIN GENERATED: codes (tests/generated.rs; do not edit)
// success. End user: "Success."
inline constexpr std::int32_t ok = VERIFY_OK;
// waiting for social authorization; keep polling. End user: "Waiting for your authorization; please
// finish it and wait a moment."
inline constexpr std::int32_t pending = VERIFY_PENDING;
// licensed offline: the server could not be reached; the stored verdict answers. End user: "The
// server cannot be reached right now; you are signed in offline for the time being."
inline constexpr std::int32_t offline = VERIFY_OFFLINE;
// program not found (or session secret unknown to the server). End user: "This program is not
// registered with the licensing service. Please contact the software's author."
inline constexpr std::int32_t program_not_found = VERIFY_PROGRAM_NOT_FOUND;
// wrong password. End user: "Wrong password. Please check it and try again."
inline constexpr std::int32_t wrong_password = VERIFY_WRONG_PASSWORD;
// card invalid, refunded, or not of this program. End user: "This licence key is not valid. Please
// check it and enter it again."
inline constexpr std::int32_t card_invalid = VERIFY_CARD_INVALID;
// expired, not activated, or count card used up. End user: "Your licence has expired or is used up.
// Please renew it and try again."
inline constexpr std::int32_t expired = VERIFY_EXPIRED;
// disabled, frozen or banned; the remark carries the reason. End user: "This account or licence key
// has been disabled. Please contact customer service."
inline constexpr std::int32_t disabled = VERIFY_DISABLED;
// token invalid; log in again. End user: "Your sign-in has expired. Please sign in again."
inline constexpr std::int32_t token_invalid = VERIFY_TOKEN_INVALID;
// signature error. End user: "The request could not be verified. Please contact the software's
// author."
inline constexpr std::int32_t signature_error = VERIFY_SIGNATURE_ERROR;
// program key (AppKey) wrong. End user: "The program's licensing settings are wrong. Please contact
// the software's author."
inline constexpr std::int32_t app_key_wrong = VERIFY_APP_KEY_WRONG;
// program not approved (pending, rejected, or plan expired). End user: "This program cannot be used
// at the moment. Please contact the software's author."
inline constexpr std::int32_t not_approved = VERIFY_NOT_APPROVED;
// incomplete parameters, or invalid heartbeat type. End user: "Some required information is
// missing. Please fill in every field and try again."
inline constexpr std::int32_t incomplete_parameters = VERIFY_INCOMPLETE_PARAMETERS;
// timestamp outside the server's tolerance of 300 seconds. End user: "Your computer's clock is
// wrong. Please correct the date and time and try again."
inline constexpr std::int32_t timestamp_skew = VERIFY_TIMESTAMP_SKEW;
// unknown action. End user: "The licensing service does not support this operation. Please update
// the program or contact its author."
inline constexpr std::int32_t unknown_action = VERIFY_UNKNOWN_ACTION;
// user not registered, or social identity not bound. End user: "This account does not exist. Please
// check the user name or register first."
inline constexpr std::int32_t user_not_registered = VERIFY_USER_NOT_REGISTERED;
// username already registered. End user: "This user name is already taken. Please choose another
// one."
inline constexpr std::int32_t username_taken = VERIFY_USERNAME_TAKEN;
// registration limit per IP address reached. End user: "Too many accounts have been registered from
// this network. Please try again later."
inline constexpr std::int32_t ip_registration_limit = VERIFY_IP_REGISTRATION_LIMIT;
// new machine code equals the current one. End user: "The licence is already bound to this
// computer; nothing needs to change."
inline constexpr std::int32_t same_machine_code = VERIFY_SAME_MACHINE_CODE;
// rebind limit reached. End user: "The licence cannot be moved to another computer again. Please
// contact customer service."
inline constexpr std::int32_t rebind_limit = VERIFY_REBIND_LIMIT;
// machine code changed; the remark is the previously bound code. End user: "This licence is bound
// to another computer. Please use it there, or move it to this one first."
inline constexpr std::int32_t machine_changed = VERIFY_MACHINE_CHANGED;
// blacklisted (IP address or machine code). End user: "This computer or network has been blocked.
// Please contact customer service."
inline constexpr std::int32_t blacklisted = VERIFY_BLACKLISTED;
// count card not allowed here. End user: "This kind of licence key cannot be used here. Please use
// another key."
inline constexpr std::int32_t count_card_not_allowed = VERIFY_COUNT_CARD_NOT_ALLOWED;
// invalid argument: NULL where required, empty, too long, or out of range. End user: "Some
// information is empty or too long. Please check what you entered and try again."
inline constexpr std::int32_t err_invalid_argument = VERIFY_ERR_INVALID_ARGUMENT;
// a string argument is not valid UTF-8. End user: "What you entered contains characters that cannot
// be used. Please check it and try again."
inline constexpr std::int32_t err_invalid_utf8 = VERIFY_ERR_INVALID_UTF8;
// network error: server unreachable or connection broken. End user: "Cannot connect to the
// licensing server. Please check your network and try again."
inline constexpr std::int32_t err_network = VERIFY_ERR_NETWORK;
// timed out (connect or whole-call timeout). End user: "The licensing server did not answer in
// time. Please try again later."
inline constexpr std::int32_t err_timeout = VERIFY_ERR_TIMEOUT;
// TLS handshake or certificate check failed. End user: "A secure connection to the licensing server
// could not be made. Please check the date and time and your network, then try again."
inline constexpr std::int32_t err_tls = VERIFY_ERR_TLS;
// protocol error: the reply is not the service's JSON. End user: "The licensing server gave an
// answer that could not be read. Please check your network and try again."
inline constexpr std::int32_t err_protocol = VERIFY_ERR_PROTOCOL;
// cancelled by the host. End user: "The operation was cancelled."
inline constexpr std::int32_t err_cancelled = VERIFY_ERR_CANCELLED;
// internal error (panic caught at the library boundary). End user: "An internal error occurred.
// Please restart the program and try again."
inline constexpr std::int32_t err_panic = VERIFY_ERR_PANIC;
// no such field in the reply, or of another type. End user: "The server's answer is missing some
// information. Please try again later or contact the software's author."
inline constexpr std::int32_t err_no_such_field = VERIFY_ERR_NO_SUCH_FIELD;
// operating system failure (thread, machine identity, randomness). End user: "A system error
// occurred. Please restart the program and try again."
inline constexpr std::int32_t err_system = VERIFY_ERR_SYSTEM;
// TLS: the server's certificate matches none of the pinned keys. End user: "The licensing server's
// identity could not be confirmed; the network may be intercepting the connection. Please try
// another network."
inline constexpr std::int32_t err_pin = VERIFY_ERR_PIN;
// proxy unreachable, or it refused the credentials or the tunnel. End user: "The proxy server could
// not be used. Please check the proxy settings and try again."
inline constexpr std::int32_t err_proxy = VERIFY_ERR_PROXY;
// request too large: its body would exceed 1 MiB; nothing was sent. End user: "What you entered is
// too long. Please shorten it and try again."
inline constexpr std::int32_t err_too_large = VERIFY_ERR_TOO_LARGE;
// offline verdict refused: the clock was moved back. End user: "Offline use is not possible because
// the computer's clock was set back. Please correct the date and time, or connect to the internet."
inline constexpr std::int32_t err_clock_back = VERIFY_ERR_CLOCK_BACK;
// offline verdict refused: the offline grace period is over. End user: "You have been offline for
// too long. Please connect to the internet and sign in again."
inline constexpr std::int32_t err_grace_over = VERIFY_ERR_GRACE_OVER;
// offline verdict refused: the stored licence has expired. End user: "Your licence has expired and
// cannot be used offline. Please connect to the internet and try again."
inline constexpr std::int32_t err_offline_expired = VERIFY_ERR_OFFLINE_EXPIRED;
// offline verdict refused: wrong password. End user: "The password does not match the one saved for
// offline use. Please check it, or connect to the internet and try again."
inline constexpr std::int32_t err_offline_password = VERIFY_ERR_OFFLINE_PASSWORD;
// the state folder cannot be created or written. End user: "The program cannot save its licence
// data on this computer. Please check that its folder can be written and that the disk is not
// full."
inline constexpr std::int32_t err_state_folder = VERIFY_ERR_STATE_FOLDER;
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

/* The message for the end user of any result code (verify_code_user_message): short, polite,
 * saying what to do, in `lang` ("zh-CN", "zh-TW", "en", or any language tag or POSIX locale;
 * nullptr or "" for the language of set_language(), by default the user's UI language), in
 * the code page of set_code_page(). Show it for local results and for refusals whose server
 * message is empty; describe() stays the developer's English. Valid for the life of the
 * program. */
inline std::string_view user_message(std::int32_t code, const char *lang = nullptr) noexcept {
    const char *text = verify_code_user_message(code, lang);
    return text != nullptr ? std::string_view(text) : std::string_view();
}

/* Sets the language of user_message() for the whole process (verify_set_language): "zh-CN",
 * "zh-TW", "en", or any language tag or POSIX locale; "" goes back to the user's UI language.
 * Throws verify::Error for a tag that is not well formed. */
inline void set_language(const std::string &lang);

/* The language user_message() gives by default: "zh-CN", "zh-TW" or "en". Valid for the life
 * of the program. */
inline std::string_view language() noexcept {
    const char *text = verify_language();
    return text != nullptr ? std::string_view(text) : std::string_view();
}

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
 * A failure of a call. Thrown as it is for a local failure, where no answer of the server
 * exists (see the top of this file): code() is negative (a VERIFY_ERR_* / codes::err_*),
 * what() the library's message. Its subclass verify::Refused is a refusal by the server
 * (positive code), thrown only where the host asks (Result::value(), Reply::ensure_ok()).
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

/*
 * A point in time. The service writes its times ("expire_at", "updated_at", ...) as
 * "YYYY-MM-DD HH:mm:ss" in Beijing time, UTC+08:00, without an offset; the typed results
 * give them as this type, already converted: a Time is an instant (system_clock counts from
 * the Unix epoch, UTC, on every supported platform), and format_service_time() writes it back
 * in the service's form.
 */
using Time = std::chrono::system_clock::time_point;

/* The offset of every time the service writes: UTC+08:00 (Beijing time, no daylight saving). */
inline constexpr std::chrono::hours service_utc_offset{8};

namespace detail {

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/* The date of a day count since 1970-01-01 (H. Hinnant's civil_from_days). */
constexpr void civil_from_days(std::int64_t z, std::int64_t &y, unsigned &m, unsigned &d) noexcept {
    z += 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
}

/* The number of `count` decimal digits at `at` of `text`, or -1 when one is not a digit. */
constexpr int digits(std::string_view text, std::size_t at, std::size_t count) noexcept {
    int value = 0;
    for (std::size_t i = at; i < at + count; ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return -1;
        }
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

}  // namespace detail

/*
 * A time of the service, "YYYY-MM-DD HH:mm:ss" in UTC+08:00, as an instant; std::nullopt for
 * anything else (an empty string, another format, a date that does not exist). The typed
 * results read every "*_at" field with it.
 */
inline std::optional<Time> service_time(std::string_view text) noexcept {
    if (text.size() != 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' ||
        text[16] != ':') {
        return std::nullopt;
    }
    const int year = detail::digits(text, 0, 4);
    const int month = detail::digits(text, 5, 2);
    const int day = detail::digits(text, 8, 2);
    const int hour = detail::digits(text, 11, 2);
    const int minute = detail::digits(text, 14, 2);
    const int second = detail::digits(text, 17, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 ||
        second < 0 || second > 59) {
        return std::nullopt;
    }
    static constexpr int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (day > month_days[month - 1] || (month == 2 && day == 29 && !leap)) {
        return std::nullopt;
    }
    const std::int64_t days =
        detail::days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second -
                                 std::chrono::seconds(service_utc_offset).count();
    return Time(std::chrono::duration_cast<Time::duration>(std::chrono::seconds(seconds)));
}

/* `time` as the service writes it: "YYYY-MM-DD HH:mm:ss" in UTC+08:00 (whole seconds, rounded
 * down). service_time(format_service_time(t)) is t rounded down to the second. */
inline std::string format_service_time(Time time) {
    const std::int64_t seconds =
        std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count() +
        std::chrono::seconds(service_utc_offset).count();
    std::int64_t days = seconds / 86400;
    std::int64_t rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days -= 1;
    }
    std::int64_t year = 0;
    unsigned month = 0;
    unsigned day = 0;
    detail::civil_from_days(days, year, month, day);
    char out[32] = {};
    std::snprintf(out, sizeof out, "%04lld-%02u-%02u %02lld:%02lld:%02lld", static_cast<long long>(year), month, day,
                  static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                  static_cast<long long>(rest % 60));
    return std::string(out);
}

/* What an offline verdict (codes::offline) knows besides its fields (verify_reply_offline). */
struct OfflineInfo {
    /* When the server last confirmed the licence. */
    Time confirmed_at;
    /* When the offline grace period ends. */
    Time grace_end;
    /* The local failure that kept the server out of reach (codes::err_network,
     * err_timeout...); its words are the reply's message. */
    std::int32_t reason = 0;
};

/* Whether `code` is a refusal of the program's configuration rather than of a licence:
 * 1001 (program not found), 1010 (signature error), 1011 (AppKey wrong), 1012 (program not
 * approved). Those are the developer's to fix (the AppId, the AppKey, the back office), not
 * the user's (a card, a password, a ban). */
inline constexpr bool is_configuration_refusal(std::int32_t code) noexcept {
    return code == codes::program_not_found || code == codes::signature_error || code == codes::app_key_wrong ||
           code == codes::not_approved;
}

/*
 * The server's refusal of a call, copied out of its reply: the error of a typed Result (its
 * error(), the error of its expected()), and what a Refused exception carries.
 */
struct Refusal {
    /* The server's code: 1001..1024, or another code of the server (never 200, 201, 202). */
    std::int32_t code = 0;
    /* The server's message (localized; may be empty). */
    std::string message;
    /* /data/remark: on 1006 the reason of the ban, on 1022 the previously bound machine code. */
    std::optional<std::string> remark;
    /* The whole reply as JSON, for fields the spec does not show. */
    std::string json;

    /* is_configuration_refusal(code): 1001, 1010, 1011 or 1012. */
    bool configuration() const noexcept { return is_configuration_refusal(code); }
    /* verify::describe(code). */
    std::string_view description() const noexcept { return describe(code); }
};

/*
 * The throwing form of a refusal: thrown by Result::value(), Result::operator* and ->, and
 * Reply::ensure_ok(). It is a verify::Error whose code() is the server's (positive) code, so
 * one `catch (const verify::Error &)` handles refusals and local failures alike; catch
 * verify::Refused first to tell them apart. what() reads "1006 disabled, ...: <message>".
 */
class Refused : public Error {
public:
    explicit Refused(Refusal refusal)
        : Error(refusal.code, what_of(refusal)), refusal_(std::make_shared<const Refusal>(std::move(refusal))) {}

    /* The refusal: code, the server's message, remark, the reply's JSON. */
    const Refusal &refusal() const noexcept { return *refusal_; }
    /* The server's message (what() adds the code and its description). */
    const std::string &message() const noexcept { return refusal_->message; }
    /* /data/remark of the refusal: the reason of a ban (1006), the bound machine code (1022). */
    const std::optional<std::string> &remark() const noexcept { return refusal_->remark; }
    /* 1001, 1010, 1011 or 1012: the program's configuration, not a licence, was refused. */
    bool configuration() const noexcept { return refusal_->configuration(); }

private:
    static std::string what_of(const Refusal &refusal) {
        std::string text = std::to_string(refusal.code);
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

inline void set_language(const std::string &lang) { detail::check_ok(verify_set_language(lang.c_str())); }

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

    /* What an offline verdict knows besides its fields (verify::OfflineInfo). */
    using OfflineInfo = verify::OfflineInfo;

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

    /* Whether the server refused the program's configuration (1001, 1010, 1011, 1012:
     * is_configuration_refusal) rather than a licence. */
    bool configuration_refusal() const { return is_configuration_refusal(code()); }

    /* The throwing form: returns this reply when the server answered 200, 201 (pending) or
     * the stored verdict answered offline (202); throws verify::Refused (code, message,
     * remark) for any other code. */
    const Reply &ensure_ok() const {
        std::int32_t c = code();
        if (c != codes::ok && c != codes::pending && c != codes::offline) {
            throw Refused(refusal());
        }
        return *this;
    }

    /* The refusal this reply carries (code, message, remark, JSON), whatever its code. */
    Refusal refusal() const {
        Refusal out;
        out.code = code();
        out.message = message();
        out.remark = remark();
        out.json = json();
        return out;
    }

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

/* The JSON reading of Result's map fields: the library's JSON text (valid, compact) of an
 * object, read into name -> text. */

inline void json_space(std::string_view text, std::size_t &at) noexcept {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) {
        ++at;
    }
}

inline void utf8_append(std::string &out, std::uint32_t point) {
    if (point < 0x80) {
        out += static_cast<char>(point);
    } else if (point < 0x800) {
        out += static_cast<char>(0xC0 | (point >> 6));
        out += static_cast<char>(0x80 | (point & 0x3F));
    } else if (point < 0x10000) {
        out += static_cast<char>(0xE0 | (point >> 12));
        out += static_cast<char>(0x80 | ((point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (point & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (point >> 18));
        out += static_cast<char>(0x80 | ((point >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((point >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (point & 0x3F));
    }
}

/* Four hex digits at `at`, or false. */
inline bool json_hex4(std::string_view text, std::size_t at, std::uint32_t &out) noexcept {
    if (at + 4 > text.size()) {
        return false;
    }
    out = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
        const char c = text[i];
        const std::uint32_t digit = c >= '0' && c <= '9'   ? static_cast<std::uint32_t>(c - '0')
                                    : c >= 'a' && c <= 'f' ? static_cast<std::uint32_t>(c - 'a' + 10)
                                    : c >= 'A' && c <= 'F' ? static_cast<std::uint32_t>(c - 'A' + 10)
                                                           : 16u;
        if (digit > 15) {
            return false;
        }
        out = out * 16 + digit;
    }
    return true;
}

/* The JSON string starting at text[at] ('"'), unescaped into `out`; `at` moves past it. */
inline bool json_string(std::string_view text, std::size_t &at, std::string &out) {
    if (at >= text.size() || text[at] != '"') {
        return false;
    }
    ++at;
    while (at < text.size()) {
        const char c = text[at++];
        if (c == '"') {
            return true;
        }
        if (c != '\\') {
            out += c;
            continue;
        }
        if (at >= text.size()) {
            return false;
        }
        const char e = text[at++];
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            std::uint32_t point = 0;
            if (!json_hex4(text, at, point)) {
                return false;
            }
            at += 4;
            std::uint32_t low = 0;
            if (point >= 0xD800 && point < 0xDC00 && at + 6 <= text.size() && text[at] == '\\' &&
                text[at + 1] == 'u' && json_hex4(text, at + 2, low) && low >= 0xDC00 && low < 0xE000) {
                point = 0x10000 + ((point - 0xD800) << 10) + (low - 0xDC00);
                at += 6;
            }
            utf8_append(out, point);
            break;
        }
        default: return false;
        }
    }
    return false;
}

/* Skips the JSON value at `at`; its text is text.substr(start, at - start). */
inline bool json_skip(std::string_view text, std::size_t &at, int depth = 0) {
    json_space(text, at);
    if (at >= text.size() || depth > 64) {
        return false;
    }
    const char c = text[at];
    if (c == '"') {
        std::string ignored;
        return json_string(text, at, ignored);
    }
    if (c == '{' || c == '[') {
        const char close = c == '{' ? '}' : ']';
        ++at;
        json_space(text, at);
        if (at < text.size() && text[at] == close) {
            ++at;
            return true;
        }
        while (at < text.size()) {
            if (c == '{') {
                std::string key;
                json_space(text, at);
                if (!json_string(text, at, key)) {
                    return false;
                }
                json_space(text, at);
                if (at >= text.size() || text[at++] != ':') {
                    return false;
                }
            }
            if (!json_skip(text, at, depth + 1)) {
                return false;
            }
            json_space(text, at);
            if (at >= text.size()) {
                return false;
            }
            const char next = text[at++];
            if (next == close) {
                return true;
            }
            if (next != ',') {
                return false;
            }
        }
        return false;
    }
    while (at < text.size() && text[at] != ',' && text[at] != '}' && text[at] != ']' && text[at] != ' ' &&
           text[at] != '\n' && text[at] != '\r' && text[at] != '\t') {
        ++at;
    }
    return true;
}

/* A JSON object's members as name -> text: strings unescaped, numbers and booleans in JSON
 * notation (as Reply::str gives them); null, objects and arrays are left out. std::nullopt
 * when `text` is not an object. */
inline std::optional<std::map<std::string, std::string>> json_string_map(std::string_view text) {
    std::map<std::string, std::string> out;
    std::size_t at = 0;
    json_space(text, at);
    if (at >= text.size() || text[at] != '{') {
        return std::nullopt;
    }
    ++at;
    json_space(text, at);
    if (at < text.size() && text[at] == '}') {
        return out;
    }
    while (at < text.size()) {
        std::string key;
        json_space(text, at);
        if (!json_string(text, at, key)) {
            return std::nullopt;
        }
        json_space(text, at);
        if (at >= text.size() || text[at++] != ':') {
            return std::nullopt;
        }
        json_space(text, at);
        if (at < text.size() && text[at] == '"') {
            std::string value;
            if (!json_string(text, at, value)) {
                return std::nullopt;
            }
            out[key] = std::move(value);
        } else {
            const std::size_t start = at;
            if (!json_skip(text, at)) {
                return std::nullopt;
            }
            const std::string_view raw = text.substr(start, at - start);
            if (!raw.empty() && raw != "null" && raw.front() != '{' && raw.front() != '[') {
                out[key] = std::string(raw);
            }
        }
        json_space(text, at);
        if (at >= text.size()) {
            return std::nullopt;
        }
        const char next = text[at++];
        if (next == '}') {
            return out;
        }
        if (next != ',') {
            return std::nullopt;
        }
    }
    return std::nullopt;
}

}  // namespace detail

/*
 * What every typed result holds besides its fields: the code of the answer and its message,
 * and for an offline verdict (code 202: the server could not be reached and the stored
 * verdict of the last good login answered, with the stored fields and no token) what it
 * knows besides its fields.
 */
struct Answer {
    /* 200, 201 (pending: a social login not authorized yet) or 202 (an offline verdict). */
    std::int32_t code = 0;
    /* The server's message (localized; may be empty); for an offline verdict, why the
     * network failed, in words. */
    std::string message;
    /* Set for an offline verdict (code 202): when the server last confirmed the licence,
     * when the offline grace ends, and the local failure's code. */
    std::optional<OfflineInfo> offline_info;

    /* code == 200. */
    bool ok() const noexcept { return code == codes::ok; }
    /* code == 201: a social login the user has not authorized yet; poll again. */
    bool pending() const noexcept { return code == codes::pending; }
    /* code == 202: an offline verdict (see offline_info). */
    bool offline() const noexcept { return code == codes::offline; }
};

namespace detail {

inline void read_answer(const Reply &reply, Answer &out) {
    out.code = reply.code();
    out.message = reply.message();
    out.offline_info = reply.offline_info();
}

/* A "*_at" field: its text read as a service time; std::nullopt when absent, empty or not
 * in the service's form (the text stays readable with Reply::str). */
inline std::optional<Time> read_time(const Reply &reply, std::string_view pointer) {
    std::optional<std::string> text = reply.str(pointer);
    if (!text) {
        return std::nullopt;
    }
    return service_time(*text);
}

/* An object field as name -> text (see json_string_map). */
inline std::optional<std::map<std::string, std::string>> read_map(const Reply &reply, std::string_view pointer) {
    std::optional<std::string> text = reply.json(pointer);
    if (!text) {
        return std::nullopt;
    }
    return json_string_map(*text);
}

}  // namespace detail

/*
 * The typed outcome of a call: the server's reply (a Result is a Reply: code(), message(),
 * remark(), str("/data/...") for fields the spec does not show) and, when the server answered
 * 200, 201 or 202, the action's typed fields as a T (verify::CardLogin, verify::UserSession,
 * ...; generated from the action table), with an std::expected-like interface:
 *
 *   verify::CardLogin login = client.single_login(card, mac).value();   // throws on refusal
 *
 *   auto login = client.single_login(card, mac);                          // or branch on it
 *   if (login) { use(login->expire_at); } else { show(login.error().remark); }
 *
 *   #if VERIFY_HAS_EXPECTED                                               // C++23
 *   std::expected<verify::CardLogin, verify::Refusal> e = client.single_login(card, mac).expected();
 *   #endif
 *
 * - has_value() and operator bool: the server answered 200, 201 or 202 (unlike Reply's
 *   operator bool, which only says the object is not moved-from).
 * - value(), operator* and operator->: the typed fields; they throw verify::Refused (a
 *   verify::Error with the server's code, its message and remark) for a refusal, where
 *   std::expected would be undefined behaviour.
 * - error(): the Refusal (code, message, remark, JSON) of a refused call.
 * - expected() (C++23, VERIFY_HAS_EXPECTED): the same as std::expected<T, Refusal>.
 * - Local failures (no answer) still throw verify::Error from the call itself.
 * A Result converts to a Reply by moving (verify::Reply r = client.single_login(...)), so code
 * written for the Reply of earlier versions compiles unchanged.
 */
template <typename T>
class Result : public Reply {
public:
    using value_type = T;
    using error_type = Refusal;

    /* The typed outcome of `reply` (the fields are read now, once). */
    explicit Result(Reply reply) : Reply(std::move(reply)) {
        const std::int32_t c = code();
        if (c == codes::ok || c == codes::pending || c == codes::offline) {
            value_ = T::from(*this);
        }
    }

    /* Whether the server answered 200, 201 or 202 (then value() holds the typed fields). */
    bool has_value() const noexcept { return value_.has_value(); }
    /* has_value(). */
    explicit operator bool() const noexcept { return has_value(); }

    /* The typed fields; throws verify::Refused when the server refused the call. */
    const T &value() const {
        if (!value_) {
            throw Refused(refusal());
        }
        return *value_;
    }
    /* value(). */
    const T &operator*() const { return value(); }
    /* &value(). */
    const T *operator->() const { return &value(); }

    /* The typed fields, or `fallback` when the server refused the call. */
    T value_or(T fallback) const { return value_ ? *value_ : std::move(fallback); }

    /* The server's refusal; throws verify::Error (codes::err_invalid_argument) when the call
     * succeeded (has_value()). */
    Refusal error() const {
        if (value_) {
            detail::fail(codes::err_invalid_argument, "error() of a verify::Result that holds a value");
        }
        return refusal();
    }

#if VERIFY_HAS_EXPECTED
    /* C++23: the outcome as std::expected<T, Refusal>. */
    std::expected<T, Refusal> expected() const {
        if (value_) {
            return *value_;
        }
        return std::unexpected(refusal());
    }
#endif

    /* The raw reply (this object), for fields the spec does not show. */
    const Reply &reply() const noexcept { return *this; }

private:
    std::optional<T> value_;
};

/*
 * The typed results of the action table (core/src/actions/table.rs), one per reply view: each
 * is an Answer (code, message, offline_info) with the fields the spec shows, each
 * std::nullopt when the server left it out or sent another type. Strings are std::string,
 * integers std::int64_t, booleans bool, the service's times ("*_at" fields) verify::Time
 * (converted from UTC+08:00), objects std::map<std::string, std::string>. Plain copyable
 * values: they stay valid after the Result they came from is gone.
 */
// BEGIN GENERATED: results (tests/generated.rs; do not edit)
/* Success of `SingleLogin` (card mode).
 * The result of `Result<CardLogin>::value()`. */
struct CardLogin : Answer {
    /* token: the session token (40 characters) for a card heartbeat. */
    std::optional<std::string> token;
    /* status: `active`. */
    std::optional<std::string> status;
    /* is_times: true for a count card. */
    std::optional<bool> is_times;
    /* card_type: the card type's display name. */
    std::optional<std::string> card_type;
    /* expire_at: `YYYY-MM-DD HH:mm:ss`; far future for a count card (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* total: uses the count card was sold with (count cards only). */
    std::optional<std::int64_t> total;
    /* used: uses consumed so far (count cards only). */
    std::optional<std::int64_t> used;
    /* remaining: uses left; 0 makes the card invalid (count cards only). */
    std::optional<std::int64_t> remaining;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static CardLogin from(const Reply &reply) {
        CardLogin out;
        detail::read_answer(reply, out);
        out.token = reply.str("/data/token");
        out.status = reply.str("/data/status");
        out.is_times = reply.boolean("/data/is_times");
        out.card_type = reply.str("/data/card_type");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.total = reply.integer("/data/total");
        out.used = reply.integer("/data/used");
        out.remaining = reply.integer("/data/remaining");
        return out;
    }
};

/* Success of a password `UserLogin` without a card, or of a social login.
 * The result of `Result<UserSession>::value()`. */
struct UserSession : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;
    /* device_id: the bound machine code; empty if unbound. */
    std::optional<std::string> device_id;
    /* expire_at: `YYYY-MM-DD HH:mm:ss` (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* status: `active`. */
    std::optional<std::string> status;
    /* token: the session token (40 characters) for a user heartbeat. */
    std::optional<std::string> token;
    /* remark: back-office note (social login: the social account's display name). */
    std::optional<std::string> remark;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static UserSession from(const Reply &reply) {
        UserSession out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        out.device_id = reply.str("/data/device_id");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.status = reply.str("/data/status");
        out.token = reply.str("/data/token");
        out.remark = reply.str("/data/remark");
        return out;
    }
};

/* Success of `UserLogin` with a card (the renewal branch): no token.
 * The result of `Result<Renewal>::value()`. */
struct Renewal : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;
    /* expire_at: the new expiry (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* added_days: days added. */
    std::optional<std::int64_t> added_days;
    /* status: `active`. */
    std::optional<std::string> status;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Renewal from(const Reply &reply) {
        Renewal out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.added_days = reply.integer("/data/added_days");
        out.status = reply.str("/data/status");
        return out;
    }
};

/* Success of `UserRegin`. Without a card the account is created already expired and
 * no token is returned; with a duration card it is active and has a token.
 * The result of `Result<Registration>::value()`. */
struct Registration : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;
    /* user_id: the account identifier. */
    std::optional<std::int64_t> user_id;
    /* expire_at: the expiry (the registration time without a card) (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* token: the session token, when registered with a card. */
    std::optional<std::string> token;
    /* status: `active`, when registered with a card. */
    std::optional<std::string> status;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Registration from(const Reply &reply) {
        Registration out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        out.user_id = reply.integer("/data/user_id");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.token = reply.str("/data/token");
        out.status = reply.str("/data/status");
        return out;
    }
};

/* Success of `UpdatePwd`.
 * The result of `Result<PasswordChanged>::value()`. */
struct PasswordChanged : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static PasswordChanged from(const Reply &reply) {
        PasswordChanged out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        return out;
    }
};

/* Success of `ChangeBind`.
 * The result of `Result<Rebind>::value()`. */
struct Rebind : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;
    /* device_id: the new machine code. */
    std::optional<std::string> device_id;
    /* bind_count: rebinds used, this one included. */
    std::optional<std::int64_t> bind_count;
    /* bind_limit: the product's rebind limit (0: no limit). */
    std::optional<std::int64_t> bind_limit;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Rebind from(const Reply &reply) {
        Rebind out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        out.device_id = reply.str("/data/device_id");
        out.bind_count = reply.integer("/data/bind_count");
        out.bind_limit = reply.integer("/data/bind_limit");
        return out;
    }
};

/* Success of `UserHeartbeat`.
 * The result of `Result<Heartbeat>::value()`. */
struct Heartbeat : Answer {
    /* expire_at: the session's expiry (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* status: `active`. */
    std::optional<std::string> status;
    /* msg: a back-office message, delivered once; empty when none. */
    std::optional<std::string> msg;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Heartbeat from(const Reply &reply) {
        Heartbeat out;
        detail::read_answer(reply, out);
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.status = reply.str("/data/status");
        out.msg = reply.str("/data/msg");
        return out;
    }
};

/* Success of `UserRecharge`.
 * The result of `Result<Recharge>::value()`. */
struct Recharge : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;
    /* expire_at: the new expiry (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* added_days: the amount added with its unit (a string in this action). */
    std::optional<std::string> added_days;
    /* status: `active`. */
    std::optional<std::string> status;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Recharge from(const Reply &reply) {
        Recharge out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.added_days = reply.str("/data/added_days");
        out.status = reply.str("/data/status");
        return out;
    }
};

/* Success of `GetLatestVersion`.
 * The result of `Result<LatestVersion>::value()`. */
struct LatestVersion : Answer {
    /* version: the latest version number. */
    std::optional<std::string> version;
    /* changelog: its change log. */
    std::optional<std::string> changelog;
    /* download_url: where to download it. */
    std::optional<std::string> download_url;
    /* force_update: whether the back office requires the update. */
    std::optional<bool> force_update;
    /* has_update: whether it is newer than the version given. */
    std::optional<bool> has_update;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static LatestVersion from(const Reply &reply) {
        LatestVersion out;
        detail::read_answer(reply, out);
        out.version = reply.str("/data/version");
        out.changelog = reply.str("/data/changelog");
        out.download_url = reply.str("/data/download_url");
        out.force_update = reply.boolean("/data/force_update");
        out.has_update = reply.boolean("/data/has_update");
        return out;
    }
};

/* Success of `GetBulletin`.
 * The result of `Result<Bulletin>::value()`. */
struct Bulletin : Answer {
    /* bulletin: the bulletin text. */
    std::optional<std::string> bulletin;
    /* updated_at: when it was last changed (read from UTC+08:00). */
    std::optional<Time> updated_at;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Bulletin from(const Reply &reply) {
        Bulletin out;
        detail::read_answer(reply, out);
        out.bulletin = reply.str("/data/bulletin");
        out.updated_at = detail::read_time(reply, "/data/updated_at");
        return out;
    }
};

/* Success of `GetVariable` with a name.
 * The result of `Result<Variable>::value()`. */
struct Variable : Answer {
    /* name: the variable's name. */
    std::optional<std::string> name;
    /* value: its value. */
    std::optional<std::string> value;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Variable from(const Reply &reply) {
        Variable out;
        detail::read_answer(reply, out);
        out.name = reply.str("/data/name");
        out.value = reply.str("/data/value");
        return out;
    }
};

/* Success of `GetVariable` without a name: every variable.
 * The result of `Result<Variables>::value()`. */
struct Variables : Answer {
    /* variables: every variable, name to value. */
    std::optional<std::map<std::string, std::string>> variables;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static Variables from(const Reply &reply) {
        Variables out;
        detail::read_answer(reply, out);
        out.variables = detail::read_map(reply, "/data/variables");
        return out;
    }
};

/* Success of `GetUserInfo`.
 * The result of `Result<UserInfo>::value()`. */
struct UserInfo : Answer {
    /* username: the account's username. */
    std::optional<std::string> username;
    /* user_id: the account identifier. */
    std::optional<std::int64_t> user_id;
    /* device_id: the bound machine code; empty if unbound. */
    std::optional<std::string> device_id;
    /* expire_at: the expiry (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* status: `active`, `expired` or `banned`. */
    std::optional<std::string> status;
    /* bind_count: rebinds used. */
    std::optional<std::int64_t> bind_count;
    /* bind_limit: the product's rebind limit (0: no limit). */
    std::optional<std::int64_t> bind_limit;
    /* remark: back-office note. */
    std::optional<std::string> remark;
    /* created_at: registration time (read from UTC+08:00). */
    std::optional<Time> created_at;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static UserInfo from(const Reply &reply) {
        UserInfo out;
        detail::read_answer(reply, out);
        out.username = reply.str("/data/username");
        out.user_id = reply.integer("/data/user_id");
        out.device_id = reply.str("/data/device_id");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.status = reply.str("/data/status");
        out.bind_count = reply.integer("/data/bind_count");
        out.bind_limit = reply.integer("/data/bind_limit");
        out.remark = reply.str("/data/remark");
        out.created_at = detail::read_time(reply, "/data/created_at");
        return out;
    }
};

/* Success of `GetCardInfo`: the card's state, consuming nothing.
 * The result of `Result<CardInfo>::value()`. */
struct CardInfo : Answer {
    /* card: the card key. */
    std::optional<std::string> card;
    /* card_type: the card type's display name. */
    std::optional<std::string> card_type;
    /* status: `unused`, `active`, `expired`, `exhausted`, `used`, `disabled` or `refunded`. */
    std::optional<std::string> status;
    /* is_times: true for a count card. */
    std::optional<bool> is_times;
    /* device_id: the bound machine code; empty when not bound. */
    std::optional<std::string> device_id;
    /* activated_at: first use; empty when unused (read from UTC+08:00). */
    std::optional<Time> activated_at;
    /* expire_at: expiry; empty when unused (read from UTC+08:00). */
    std::optional<Time> expire_at;
    /* duration: duration in `duration_type` units. */
    std::optional<std::int64_t> duration;
    /* duration_type: `day` or `hour`. */
    std::optional<std::string> duration_type;
    /* total: uses the count card was sold with (count cards only). */
    std::optional<std::int64_t> total;
    /* used: uses consumed so far (count cards only). */
    std::optional<std::int64_t> used;
    /* remaining: uses left (count cards only). */
    std::optional<std::int64_t> remaining;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static CardInfo from(const Reply &reply) {
        CardInfo out;
        detail::read_answer(reply, out);
        out.card = reply.str("/data/card");
        out.card_type = reply.str("/data/card_type");
        out.status = reply.str("/data/status");
        out.is_times = reply.boolean("/data/is_times");
        out.device_id = reply.str("/data/device_id");
        out.activated_at = detail::read_time(reply, "/data/activated_at");
        out.expire_at = detail::read_time(reply, "/data/expire_at");
        out.duration = reply.integer("/data/duration");
        out.duration_type = reply.str("/data/duration_type");
        out.total = reply.integer("/data/total");
        out.used = reply.integer("/data/used");
        out.remaining = reply.integer("/data/remaining");
        return out;
    }
};

/* Step 1 of a social login: the authorization URL to show, and the state to poll with.
 * The result of `Result<SocialStart>::value()`. */
struct SocialStart : Answer {
    /* url: the external authorization link. */
    std::optional<std::string> url;
    /* state: the value to pass to the social poll or wait. */
    std::optional<std::string> state;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static SocialStart from(const Reply &reply) {
        SocialStart out;
        detail::read_answer(reply, out);
        out.url = reply.str("/data/url");
        out.state = reply.str("/data/state");
        return out;
    }
};

/* Step 1 of a social registration: the authorization URL. The account is created when
 * the user completes the authorization.
 * The result of `Result<SocialRegistration>::value()`. */
struct SocialRegistration : Answer {
    /* url: the external authorization link (its `state` parameter is the state). */
    std::optional<std::string> url;

    /* The fields of `reply`, each std::nullopt when absent or of another type. */
    static SocialRegistration from(const Reply &reply) {
        SocialRegistration out;
        detail::read_answer(reply, out);
        out.url = reply.str("/data/url");
        return out;
    }
};

// END GENERATED: results

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
    /* The session's expiry, on EventKind::Alive and Online (the service's time, read from
     * UTC+08:00). */
    std::optional<Time> expire_at;
    /* The same expiry as the server wrote it ("YYYY-MM-DD HH:mm:ss", UTC+08:00). */
    std::optional<std::string> expire_at_text;
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
    /* The session's expiry from the last successful heartbeat (the service's time, read from
     * UTC+08:00); std::nullopt before it. */
    std::optional<Time> expire_at;
    /* The same expiry as the server wrote it ("YYYY-MM-DD HH:mm:ss", UTC+08:00). */
    std::optional<std::string> expire_at_text;
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
            copy.expire_at_text = optional_text(event->expire_at);
            if (copy.expire_at_text) {
                copy.expire_at = service_time(*copy.expire_at_text);
            }
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
        status.expire_at_text = copy(text);
        status.expire_at = service_time(*status.expire_at_text);
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

/* The machine code's algorithm: v1 (the default, frozen) or v2 (several components,
 * tolerant matching, kept in the state folder; docs/machine-code.md). */
enum class MachineVersion : std::int32_t {
    V1 = VERIFY_MACHINE_V1,
    V2 = VERIFY_MACHINE_V2,
};

/* The machine code of `version` for `salt`; v2 keeps it in `state_folder` (empty: the
 * per-user default), v1 ignores it. Throws verify::Error on failure (see
 * verify_machine_code_ex). */
inline std::string machine_code(std::string_view salt, MachineVersion version,
                                std::string_view state_folder = {}) {
    std::string s = detail::arg(salt, "salt");
    std::string folder = detail::arg(state_folder, "state_folder");
    char out[VERIFY_MACHINE_CODE_LEN + 1] = {};
    detail::check_ok(verify_machine_code_ex(s.c_str(), static_cast<std::int32_t>(version),
                                            folder.empty() ? nullptr : folder.c_str(), out,
                                            sizeof out));
    return std::string(out);
}

/* A component of machine code v2 (the VERIFY_MACHINE_* component numbers). Later versions of
 * the library may add components: a value not named here is kept as it is. */
enum class MachineComponentKind : std::int32_t {
    /* The SMBIOS system UUID. */
    BoardUuid = VERIFY_MACHINE_BOARD_UUID,
    /* The board's serial number. */
    BoardSerial = VERIFY_MACHINE_BOARD_SERIAL,
    /* The OS installation (MachineGuid, /etc/machine-id). */
    OsInstall = VERIFY_MACHINE_OS_INSTALL,
    /* The system volume (its serial, the root file system's UUID). */
    SystemVolume = VERIFY_MACHINE_SYSTEM_VOLUME,
    /* The processor's signature. */
    Cpu = VERIFY_MACHINE_CPU,
    /* The machine's model names. */
    Model = VERIFY_MACHINE_MODEL,
};

/* How a component compares with the stored one (VERIFY_COMPONENT_*); later values are kept. */
enum class ComponentState : std::int32_t {
    /* Read, equal to the stored one. */
    Matches = VERIFY_COMPONENT_MATCHES,
    /* Read, not the stored one. */
    Differs = VERIFY_COMPONENT_DIFFERS,
    /* Read, nothing stored to compare with. */
    NotStored = VERIFY_COMPONENT_NOT_STORED,
    /* Not readable now. */
    Unreadable = VERIFY_COMPONENT_UNREADABLE,
    /* A known placeholder value (counts nothing). */
    Placeholder = VERIFY_COMPONENT_PLACEHOLDER,
};

/* How the code of a MachineCheck came about (VERIFY_MACHINE_ISSUED...); later values are
 * kept. */
enum class MachineOutcome : std::int32_t {
    /* Nothing was stored: issued and stored. */
    Issued = VERIFY_MACHINE_ISSUED,
    /* The stored code was kept. */
    Kept = VERIFY_MACHINE_KEPT,
    /* The components say another machine: a new code. */
    Reissued = VERIFY_MACHINE_REISSUED,
    /* A stored code did not open: issued again. */
    StoreUnreadable = VERIFY_MACHINE_STORE_UNREADABLE,
};

/* One component of a MachineCheck: what it is and whether it matches the stored one, never
 * its value. Later versions may add kinds and states (kept as their numbers: `name` and
 * `state_name` say "unknown" then). */
struct MachineComponent {
    MachineComponentKind kind = MachineComponentKind::BoardUuid;
    std::string name;
    ComponentState state = ComponentState::Matches;
    std::string state_name;
    std::int32_t weight = 0;
};

/* Machine code v2 and why it is what it is ("why did it change"); `note` says what went wrong
 * with the store (empty when nothing did). */
struct MachineCheck {
    std::string code;
    MachineOutcome outcome = MachineOutcome::Issued;
    std::int32_t score = 0;
    std::vector<MachineComponent> components;
    std::string note;
};

/* Machine code v2 for `salt` with its explanation: issues, keeps and stores the code as
 * machine_code(salt, MachineVersion::V2, state_folder) does (verify_machine_check_new).
 * Throws verify::Error on failure. */
inline MachineCheck machine_check(std::string_view salt, std::string_view state_folder = {}) {
    std::string s = detail::arg(salt, "salt");
    std::string folder = detail::arg(state_folder, "state_folder");
    verify_machine_check *raw = nullptr;
    detail::check_ok(verify_machine_check_new(s.c_str(), folder.empty() ? nullptr : folder.c_str(), &raw));
    std::unique_ptr<verify_machine_check, void (*)(verify_machine_check *)> owned(raw, [](verify_machine_check *c) {
        verify_machine_check_free(c);
    });
    MachineCheck check;
    const char *text = nullptr;
    verify_machine_check_code(raw, &text);
    check.code = detail::copy(text);
    std::int32_t outcome = 0;
    verify_machine_check_outcome(raw, &outcome);
    // Any int32_t is a valid MachineOutcome: a value of a later library is kept as it is.
    check.outcome = static_cast<MachineOutcome>(outcome);
    verify_machine_check_score(raw, &check.score);
    if (verify_machine_check_note(raw, &text) == 0) {
        check.note = detail::copy(text);
    }
    std::size_t count = 0;
    verify_machine_check_count(raw, &count);
    for (std::size_t i = 0; i < count; ++i) {
        MachineComponent component;
        std::int32_t kind = 0;
        std::int32_t state = 0;
        if (verify_machine_check_component(raw, i, &kind, &state, &component.weight) != 0) {
            break;
        }
        component.kind = static_cast<MachineComponentKind>(kind);
        component.state = static_cast<ComponentState>(state);
        component.name = detail::copy(verify_machine_component_name(kind));
        component.state_name = detail::copy(verify_machine_state_name(state));
        check.components.push_back(std::move(component));
    }
    return check;
}

/* A sign of virtualisation (VERIFY_VIRTUAL_*); later values are kept as their numbers. */
enum class VirtualSignKind : std::int32_t {
    /* CPUID's hypervisor bit; the detail is the hypervisor's vendor. */
    HypervisorBit = VERIFY_VIRTUAL_HYPERVISOR_BIT,
    /* A firmware string of a virtual machine. */
    Firmware = VERIFY_VIRTUAL_FIRMWARE,
    /* A container marker. */
    Container = VERIFY_VIRTUAL_CONTAINER,
    /* The OS says it runs under a hypervisor. */
    System = VERIFY_VIRTUAL_SYSTEM,
};

/* One sign of virtualisation: what it is, and `detail`, what was seen (a vendor string, a file
 * name; never an identity). */
struct VirtualSign {
    VirtualSignKind kind = VirtualSignKind::HypervisorBit;
    std::string detail;
};

/* Whether this machine looks virtual or containerised, and what was seen. It only reports:
 * the host decides what it means for its licence. */
struct MachineVirtual {
    bool looks_virtual = false;
    std::vector<VirtualSign> signs;
};

/* Reads the signs of virtualisation (verify_machine_virtual_new). Throws verify::Error on
 * failure. */
inline MachineVirtual machine_virtual() {
    verify_machine_virtual *raw = nullptr;
    detail::check_ok(verify_machine_virtual_new(&raw));
    std::unique_ptr<verify_machine_virtual, void (*)(verify_machine_virtual *)> owned(
        raw, [](verify_machine_virtual *v) { verify_machine_virtual_free(v); });
    MachineVirtual seen;
    std::int32_t looks = 0;
    verify_machine_virtual_looks_virtual(raw, &looks);
    seen.looks_virtual = looks != 0;
    std::size_t count = 0;
    verify_machine_virtual_count(raw, &count);
    for (std::size_t i = 0; i < count; ++i) {
        VirtualSign sign;
        std::int32_t kind = 0;
        const char *detail = nullptr;
        if (verify_machine_virtual_sign(raw, i, &kind, &detail) != 0) {
            break;
        }
        sign.kind = static_cast<VirtualSignKind>(kind);
        sign.detail = detail::copy(detail);
        seen.signs.push_back(std::move(sign));
    }
    return seen;
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
    /* The client's state folder (the remembered winning line and its name's addresses, the
     * last good verdict): a path, or an empty string for the per-user default; unset:
     * nothing is written. */
    std::optional<std::string> state_folder = std::nullopt;
    /* With a state folder: how long the winning line's addresses (https) stay in use after
     * they were last seen connecting; a later start connects to them at once beside a fresh
     * lookup (no wait for a slow name server; TLS still checks the name, fixed addresses
     * still win). 0: neither remembered nor used; unset: a day. */
    std::optional<std::chrono::seconds> remembered_addresses_max_age = std::nullopt;
    /* Offline verdicts (a state folder needed): a login that cannot reach the service
     * answers from the stored verdict (Reply::offline()) when the server confirmed it less
     * than this long ago; unset: off. An outage is a failed connection, a timeout, or a reply
     * that is not the service's (HTTP 5xx such as 502/503/504/522, HTML, empty, cut short,
     * a captive portal's page); a reply of the service (JSON with a code) never is. In
     * account mode a wrong password offline is codes::err_offline_password; a state folder
     * that cannot be written refuses the client (codes::err_state_folder). */
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
    if (options.remembered_addresses_max_age) {
        check_ok(verify_client_options_set_remembered_addresses_max_age(
            handle.get(),
            to_seconds(*options.remembered_addresses_max_age, "remembered_addresses_max_age")));
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
     * Success of `SingleLogin` (card mode).
     * Returns Result<CardLogin>, fields: token, status, is_times, card_type, expire_at, total,
     * used, remaining. */
    Result<CardLogin> single_login(std::string_view card, std::string_view mac, std::optional<std::string_view> device_name = std::nullopt) const {
        std::string card_ = detail::arg(card, "card");
        std::string mac_ = detail::arg(mac, "mac");
        detail::OptionalArg device_name_(device_name, "device_name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_single_login(handle_.get(), card_.c_str(), mac_.c_str(), device_name_.c_str(), &out);
        return Result<CardLogin>(detail::finish(code, out));
    }

    /* `UserLogin` with username and password (account mode). `mac` is strongly
     * recommended (rebind detection).
     * Success of a password `UserLogin` without a card, or of a social login.
     * Returns Result<UserSession>, fields: username, device_id, expire_at, status, token, remark. */
    Result<UserSession> user_login(std::string_view username, std::string_view password, std::optional<std::string_view> mac = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_login(handle_.get(), username_.c_str(), password_.c_str(), mac_.c_str(), &out);
        return Result<UserSession>(detail::finish(code, out));
    }

    /* `UserLogin` with a recharge card: renews the account and returns no token (log in
     * again without a card for one). Never sent twice by a retry.
     * Success of `UserLogin` with a card (the renewal branch): no token.
     * Returns Result<Renewal>, fields: username, expire_at, added_days, status. */
    Result<Renewal> user_login_with_card(std::string_view username, std::string_view password, std::string_view card, std::optional<std::string_view> mac = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        std::string card_ = detail::arg(card, "card");
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_login_with_card(handle_.get(), username_.c_str(), password_.c_str(), card_.c_str(), mac_.c_str(), &out);
        return Result<Renewal>(detail::finish(code, out));
    }

    /* `UserRegin`: registers an account, activated when a duration card is given. Never
     * sent twice by a retry.
     * Success of `UserRegin`. Without a card the account is created already expired and
     * no token is returned; with a duration card it is active and has a token.
     * Returns Result<Registration>, fields: username, user_id, expire_at, token, status. */
    Result<Registration> user_register(std::string_view username, std::string_view password, std::optional<std::string_view> card = std::nullopt, std::optional<std::string_view> mac = std::nullopt, std::optional<std::string_view> device_name = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        detail::OptionalArg card_(card, "card");
        detail::OptionalArg mac_(mac, "mac");
        detail::OptionalArg device_name_(device_name, "device_name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_register(handle_.get(), username_.c_str(), password_.c_str(), card_.c_str(), mac_.c_str(), device_name_.c_str(), &out);
        return Result<Registration>(detail::finish(code, out));
    }

    /* `UpdatePwd`: checks the old password and sets the new one. Never sent twice by a
     * retry.
     * Success of `UpdatePwd`.
     * Returns Result<PasswordChanged>, fields: username. */
    Result<PasswordChanged> update_password(std::string_view username, std::string_view old_password, std::string_view new_password) const {
        std::string username_ = detail::arg(username, "username");
        std::string old_password_ = detail::arg(old_password, "old_password");
        std::string new_password_ = detail::arg(new_password, "new_password");
        verify_reply *out = nullptr;
        std::int32_t code = verify_update_password(handle_.get(), username_.c_str(), old_password_.c_str(), new_password_.c_str(), &out);
        return Result<PasswordChanged>(detail::finish(code, out));
    }

    /* `ChangeBind`: binds the account to a new machine code. Never sent twice by a retry.
     * Success of `ChangeBind`.
     * Returns Result<Rebind>, fields: username, device_id, bind_count, bind_limit. */
    Result<Rebind> change_bind(std::string_view username, std::string_view password, std::string_view new_mac) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        std::string new_mac_ = detail::arg(new_mac, "new_mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_change_bind(handle_.get(), username_.c_str(), password_.c_str(), new_mac_.c_str(), &out);
        return Result<Rebind>(detail::finish(code, out));
    }

    /* `UserHeartbeat`: keeps a card or account session alive and collects a back-office
     * message (delivered once).
     * Success of `UserHeartbeat`.
     * Returns Result<Heartbeat>, fields: expire_at, status, msg. */
    Result<Heartbeat> heartbeat(std::string_view token, SessionKind kind, std::optional<std::string_view> ip = std::nullopt) const {
        std::string token_ = detail::arg(token, "token");
        detail::OptionalArg ip_(ip, "ip");
        verify_reply *out = nullptr;
        std::int32_t code = verify_heartbeat(handle_.get(), token_.c_str(), static_cast<std::int32_t>(kind), ip_.c_str(), &out);
        return Result<Heartbeat>(detail::finish(code, out));
    }

    /* `UserRecharge`: adds a duration card's time to an account (no password). Never sent
     * twice by a retry.
     * Success of `UserRecharge`.
     * Returns Result<Recharge>, fields: username, expire_at, added_days, status. */
    Result<Recharge> user_recharge(std::string_view username, std::string_view card) const {
        std::string username_ = detail::arg(username, "username");
        std::string card_ = detail::arg(card, "card");
        verify_reply *out = nullptr;
        std::int32_t code = verify_user_recharge(handle_.get(), username_.c_str(), card_.c_str(), &out);
        return Result<Recharge>(detail::finish(code, out));
    }

    /* `GetLatestVersion`, optionally with the program's current version.
     * Success of `GetLatestVersion`.
     * Returns Result<LatestVersion>, fields: version, changelog, download_url, force_update,
     * has_update. */
    Result<LatestVersion> get_latest_version(std::optional<std::string_view> current_version = std::nullopt) const {
        detail::OptionalArg current_version_(current_version, "current_version");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_latest_version(handle_.get(), current_version_.c_str(), &out);
        return Result<LatestVersion>(detail::finish(code, out));
    }

    /* `GetBulletin`: the program's bulletin.
     * Success of `GetBulletin`.
     * Returns Result<Bulletin>, fields: bulletin, updated_at. */
    Result<Bulletin> get_bulletin() const {
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_bulletin(handle_.get(), &out);
        return Result<Bulletin>(detail::finish(code, out));
    }

    /* `GetVariable` for one variable.
     * Success of `GetVariable` with a name.
     * Returns Result<Variable>, fields: name, value. */
    Result<Variable> get_variable(std::string_view name) const {
        std::string name_ = detail::arg(name, "name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_variable(handle_.get(), name_.c_str(), &out);
        return Result<Variable>(detail::finish(code, out));
    }

    /* `GetVariable` for every variable.
     * Success of `GetVariable` without a name: every variable.
     * Returns Result<Variables>, fields: variables. */
    Result<Variables> get_variables() const {
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_variables(handle_.get(), &out);
        return Result<Variables>(detail::finish(code, out));
    }

    /* `GetUserInfo`: the account's details.
     * Success of `GetUserInfo`.
     * Returns Result<UserInfo>, fields: username, user_id, device_id, expire_at, status,
     * bind_count, bind_limit, remark, created_at. */
    Result<UserInfo> get_user_info(std::string_view username, std::string_view password) const {
        std::string username_ = detail::arg(username, "username");
        std::string password_ = detail::arg(password, "password");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_user_info(handle_.get(), username_.c_str(), password_.c_str(), &out);
        return Result<UserInfo>(detail::finish(code, out));
    }

    /* `GetCardInfo`: the card's state, expiry and binding, consuming nothing.
     * Success of `GetCardInfo`: the card's state, consuming nothing.
     * Returns Result<CardInfo>, fields: card, card_type, status, is_times, device_id, activated_at,
     * expire_at, duration, duration_type, total, used, remaining. */
    Result<CardInfo> get_card_info(std::string_view card) const {
        std::string card_ = detail::arg(card, "card");
        verify_reply *out = nullptr;
        std::int32_t code = verify_get_card_info(handle_.get(), card_.c_str(), &out);
        return Result<CardInfo>(detail::finish(code, out));
    }

    /* Social login step 1: the URL to show the user, and the state to poll with.
     * Step 1 of a social login: the authorization URL to show, and the state to poll with.
     * Returns Result<SocialStart>, fields: url, state. */
    Result<SocialStart> social_login_start(std::optional<std::string_view> mac = std::nullopt) const {
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_login_start(handle_.get(), mac_.c_str(), &out);
        return Result<SocialStart>(detail::finish(code, out));
    }

    /* Social login step 2, once: code 201 (pending) while the user has not authorized;
     * 200 with the login payload (`remark` is the social display name); 1016 when the
     * identity is not bound. Its success consumes the state, so it is never sent twice.
     * Success of a password `UserLogin` without a card, or of a social login.
     * Returns Result<UserSession>, fields: username, device_id, expire_at, status, token, remark. */
    Result<UserSession> social_login_poll(std::string_view state, std::optional<std::string_view> mac = std::nullopt) const {
        std::string state_ = detail::arg(state, "state");
        detail::OptionalArg mac_(mac, "mac");
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_login_poll(handle_.get(), state_.c_str(), mac_.c_str(), &out);
        return Result<UserSession>(detail::finish(code, out));
    }

    /* Social registration step 1: the URL to show the user. Never sent twice by a retry.
     * Step 1 of a social registration: the authorization URL. The account is created when
     * the user completes the authorization.
     * Returns Result<SocialRegistration>, fields: url. */
    Result<SocialRegistration> social_register_start(std::string_view username, std::optional<std::string_view> mac = std::nullopt, std::optional<std::string_view> device_name = std::nullopt) const {
        std::string username_ = detail::arg(username, "username");
        detail::OptionalArg mac_(mac, "mac");
        detail::OptionalArg device_name_(device_name, "device_name");
        verify_reply *out = nullptr;
        std::int32_t code = verify_social_register_start(handle_.get(), username_.c_str(), mac_.c_str(), device_name_.c_str(), &out);
        return Result<SocialRegistration>(detail::finish(code, out));
    }

    // END GENERATED: actions

    /* Social login step 2, repeated every `interval` (at least 1 ms) until the user
     * authorizes (ok(), the login fields: a Result<UserSession>) or the server refuses (its
     * code, e.g. 1016 when the identity is not bound). Throws verify::Error codes::err_timeout when
     * `timeout` (0..UINT32_MAX ms; 0 polls once) passes, codes::err_cancelled within
     * milliseconds when `cancel` (optional, not owned; it must outlive the call) is
     * cancelled from another thread. Blocks the calling thread. */
    Result<UserSession> social_login_wait(std::string_view state, std::optional<std::string_view> mac,
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

/* What a step of the doctor checked (VERIFY_STEP_*); later values are kept as their numbers. */
enum class DiagnosisStepKind : std::int32_t {
    Options = VERIFY_STEP_OPTIONS,
    Lookup = VERIFY_STEP_LOOKUP,
    Tcp = VERIFY_STEP_TCP,
    Proxy = VERIFY_STEP_PROXY,
    Tls = VERIFY_STEP_TLS,
    Clock = VERIFY_STEP_CLOCK,
    Init = VERIFY_STEP_INIT,
    Offline = VERIFY_STEP_OFFLINE,
    Machine = VERIFY_STEP_MACHINE,
};

/* How a step of the doctor went (VERIFY_VERDICT_*), from best to worst. */
enum class Verdict : std::int32_t {
    Pass = VERIFY_VERDICT_PASS,
    Skip = VERIFY_VERDICT_SKIP,
    Warn = VERIFY_VERDICT_WARN,
    Fail = VERIFY_VERDICT_FAIL,
};

/* One step of the doctor's report: what it checked, how it went, its stable key (such as
 * "tls.pin_mismatch" or "init.1011", for messages in another language) and its sentence. */
struct DiagnosisStep {
    DiagnosisStepKind kind = DiagnosisStepKind::Options;
    Verdict verdict = Verdict::Pass;
    std::string key;
    std::string message;
};

/* The doctor's report, copied out of the library: the worst verdict, every step, the JSON
 * (schema version 1, docs/doctor.md) and the short text to paste into a chat. It holds no
 * secret. */
struct Diagnosis {
    Verdict verdict = Verdict::Pass;
    std::vector<DiagnosisStep> steps;
    std::string json;
    std::string text;

    /* Whether a step failed. */
    bool failed() const noexcept { return verdict == Verdict::Fail; }
};

/* The doctor (verify_diagnose): runs every step a login depends on with the same URL, AppId,
 * AppKey and options as the program's Client, within `deadline` (default 10 s), and returns
 * the report. It never logs in and changes nothing on the server (Init is its only request).
 * A report is returned whatever its steps say; throws verify::Error only for arguments the
 * library refuses (options that do not map, such as a pin that is not base64). */
inline Diagnosis diagnose(std::string_view base_url, std::string_view app_id, std::string_view app_key,
                          const ClientOptions &options = {},
                          std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    std::string url = detail::arg(base_url, "base_url");
    std::string id = detail::arg(app_id, "app_id");
    std::string key = detail::arg(app_key, "app_key");
    // The log function, if any, is used during the call only.
    LogHandler on_log = options.on_log;
    detail::ClientOptionsPtr settings = detail::client_options(options, &on_log);
    verify_diagnosis *raw = nullptr;
    detail::check_ok(verify_diagnose(url.c_str(), id.c_str(), key.c_str(), settings.get(),
                                     detail::to_ms(deadline, "deadline"), &raw));
    std::unique_ptr<verify_diagnosis, void (*)(verify_diagnosis *)> owned(raw, [](verify_diagnosis *d) {
        verify_diagnosis_free(d);
    });
    Diagnosis report;
    std::int32_t verdict = 0;
    verify_diagnosis_verdict(raw, &verdict);
    report.verdict = static_cast<Verdict>(verdict);
    const char *text = nullptr;
    if (verify_diagnosis_json(raw, &text) == 0) {
        report.json = detail::copy(text);
    }
    if (verify_diagnosis_text(raw, &text) == 0) {
        report.text = detail::copy(text);
    }
    std::size_t count = 0;
    verify_diagnosis_count(raw, &count);
    for (std::size_t i = 0; i < count; ++i) {
        std::int32_t kind = 0;
        std::int32_t step_verdict = 0;
        const char *step_key = nullptr;
        const char *message = nullptr;
        if (verify_diagnosis_step(raw, i, &kind, &step_verdict, &step_key, &message) != 0) {
            break;
        }
        report.steps.push_back(DiagnosisStep{static_cast<DiagnosisStepKind>(kind), static_cast<Verdict>(step_verdict),
                                             detail::copy(step_key), detail::copy(message)});
    }
    return report;
}

}  // namespace verify

#endif /* VERIFY_HPP */
