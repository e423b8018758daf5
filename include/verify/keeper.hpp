/// @file
/// verify/keeper.hpp: verify::Keeper, a session kept alive in the background
/// (Client::keep_alive), its options, events and status.
///
/// Session keeper (Client::keep_alive, verify::Keeper)
///
///   verify::KeeperOptions options;                   // unset fields: the library's defaults
///   options.interval = std::chrono::minutes(5);
///   options.grace = std::chrono::minutes(15);
///   verify::Keeper keeper = client.keep_alive(token, verify::SessionKind::User, options,
///       [&](const verify::Event &event) {            // on the keeper's event thread
///           if (event.kind == verify::EventKind::Ended) {
///               post_to_ui_thread(event.code, event.remark.value_or(""));   // 1006: the reason
///           }
///       });
///
/// - A Keeper sends a heartbeat every interval (keep_alive(token): the first at once, so a
///   token the server does not know ends it at once, as keep_alive(login) of a typed CardLogin
///   or UserSession; keep_alive(reply): one interval after) and
///   reports Alive, Message (a back-office message, once), Trouble (a failure within the
///   grace period: the session stays usable) and Ended (1005, 1006 with remark, 1007, the
///   grace period ran out, or codes::err_panic when the keeper's thread failed; the keeper
///   has stopped then). See verify_keeper_start in verify.h.
/// - KeeperOptions is a plain value mapped onto a verify_keeper_options handle for the
///   start (interval, grace, ip; the callback is on_event). Fields left std::nullopt keep
///   the library's defaults (a heartbeat every 5 minutes, 15 minutes of grace, no IP).
/// - KeeperState and EventKind are `enum class : std::int32_t` holding the C integers. Later
///   versions of the library may report values this header does not name: they are kept as
///   they are (never an exception, never mapped to Ended). Treat a value you do not know as
///   "not alive"; verify::session_usable(state) does so.
/// - Keeper::status() is a typed snapshot (verify_keeper_status and its accessors): state,
///   last code, message and remark, expiry, last success, heartbeat counts, messages.
/// - It is a move-only owner of a verify_keeper and of the on_event function: the function is
///   kept on the heap, at an address that moving the Keeper does not change, and destroyed
///   only after verify_keeper_free returned (which stops the keeper and joins its event
///   thread), so on_event never runs after the Keeper is gone. The Keeper may outlive its
///   Client: destroying the Client stops the keeper, whose state() is then Ended.
/// - on_event runs on the keeper's event thread, one event at a time, never on the thread
///   that called keep_alive: synchronize what it shares with other threads. Every Event is a
///   copy, valid after the callback returned. A slow on_event delays only later events.
///   An exception thrown by on_event is caught and dropped by the binding: it cannot cross
///   the C boundary (verify.h forbids unwinding out of a callback), so handle errors inside
///   on_event. on_event may call stop() of its own Keeper (it returns at once); it must not
///   destroy or move-assign that Keeper, and a thread that destroys the Keeper must not hold
///   a lock that on_event waits for (destruction waits for a running on_event to return).
/// - Without on_event, back-office messages are queued and handed out by status().messages,
///   each once; with on_event they arrive as EventKind::Message and status() has none.
/// - stop(), state() and status() may be called from any thread at once (they are const);
///   moving, assigning or destroying a Keeper must not overlap with them.

#ifndef VERIFY_KEEPER_HPP
#define VERIFY_KEEPER_HPP

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../verify.h"
#include "detail/call.hpp"
#include "detail/handles.hpp"
#include "enums.hpp"
#include "error.hpp"
#include "time.hpp"

namespace verify {

/// Whether a session in `state` may still be used: Alive or Grace. false for Ended and for
/// any state this header does not know.
[[nodiscard]] inline constexpr bool session_usable(KeeperState state) noexcept {
    return state == KeeperState::Alive || state == KeeperState::Grace;
}

/// One report of a keeper: a copy of the C verify_event, valid after the callback.
struct Event {
    /// What happened (possibly a kind this header does not name).
    EventKind kind = EventKind::Alive;
    /// The heartbeat's code: 200, the server's refusal (1005, 1006, 1007...), or a negative
    /// local code (Code::err_network...).
    Code code{};
    /// The server's message or the local failure's explanation (may be empty).
    std::string message;
    /// remark of a refusal: the reason of a 1006.
    std::optional<std::string> remark;
    /// The session's expiry, on EventKind::Alive and Online (the service's time, read from
    /// UTC+08:00).
    std::optional<Time> expire_at;
    /// The same expiry as the server wrote it ("YYYY-MM-DD HH:mm:ss", UTC+08:00).
    std::optional<std::string> expire_at_text;
    /// The back-office message, on EventKind::Message.
    std::optional<std::string> text;
    /// When the grace period ends, on EventKind::Offline (and Trouble and Ended while
    /// offline).
    std::optional<Time> grace_end;
};

/// The function receiving a keeper's events, on the keeper's event thread. Exceptions it
/// throws are caught and dropped (they cannot cross the C boundary).
using EventHandler = std::function<void(const Event &)>;

/// Settings of Client::keep_alive, a plain value mapped onto a verify_keeper_options handle
/// (verify_keeper_options_set_interval, _set_grace, _set_ip) when the keeper starts. A field
/// left std::nullopt keeps the library's default. Aggregate: KeeperOptions{interval, grace, ip}.
struct KeeperOptions {
    /// Time between heartbeats, at least 1 s (a small random jitter is added). Default: the
    /// service's 5 minutes.
    std::optional<std::chrono::milliseconds> interval = std::nullopt;
    /// How long the session stays usable while heartbeats fail for other reasons than its
    /// end (network down), counted from the first failure; at least 1 ms. Default: 15 min.
    std::optional<std::chrono::milliseconds> grace = std::nullopt;
    /// The client IP reported with each heartbeat (empty: none). Default: none.
    std::optional<std::string> ip = std::nullopt;
};

/// A snapshot of a keeper (Keeper::status()), from the accessors of verify_keeper_status.
struct KeeperStatus {
    /// Alive, in grace, ended, or a state this header does not name.
    KeeperState state = KeeperState::Alive;
    /// The code of the last heartbeat: 0 (to_int) before the first, 200, a refusal, or a
    /// negative local code.
    Code last_code{};
    /// The message of the last heartbeat (empty after a success).
    std::string last_message;
    /// remark of the last refusal (the reason of a 1006); std::nullopt when none.
    std::optional<std::string> remark;
    /// When the last heartbeat succeeded (wall clock, whole seconds; system_clock counts
    /// from the Unix epoch on every supported platform); std::nullopt before the first.
    std::optional<Time> last_success;
    /// The session's expiry from the last successful heartbeat (the service's time, read from
    /// UTC+08:00); std::nullopt before it.
    std::optional<Time> expire_at;
    /// The same expiry as the server wrote it ("YYYY-MM-DD HH:mm:ss", UTC+08:00).
    std::optional<std::string> expire_at_text;
    /// When the server last confirmed the licence (with offline verdicts on, the stored
    /// verdict's confirmation, carried across restarts); std::nullopt when none.
    std::optional<Time> last_confirmed;
    /// When the grace period ends while heartbeats fail or the session is offline;
    /// std::nullopt while alive.
    std::optional<Time> grace_end;
    /// How many heartbeats succeeded, and how many failed (for any reason).
    std::uint64_t heartbeats_ok = 0;
    std::uint64_t heartbeats_failed = 0;
    /// Back-office messages received since the previous status(), oldest first, each handed
    /// out once. Always empty for a keeper with an on_event function (which receives them
    /// as EventKind::Message instead).
    std::vector<std::string> messages;
};

namespace detail {

/// What a Keeper owns, on the heap so that moving the Keeper moves neither. Members are
/// destroyed in reverse order: `handle` first (verify_keeper_free stops the keeper and joins
/// its event thread, waiting for a running callback), then `on_event`, which the C library
/// holds a pointer to until then.
struct KeeperBox {
    EventHandler on_event;
    KeeperPtr handle;
};

/// The C callback of every keeper with an on_event function.
struct EventTrampoline {
    /// `user_data` is the keeper's EventHandler. Declared with VERIFY_CALL, as
    /// verify_event_callback is. No exception leaves it: the C library's thread cannot
    /// unwind a C++ exception.
    static void VERIFY_CALL deliver(void *user_data, const verify_event *event) noexcept {
        if (user_data == nullptr || event == nullptr) {
            return;
        }
        try {
            Event copy;
            // Any int32_t is a valid EventKind (fixed underlying type): an unknown kind of a
            // later library is kept as it is.
            copy.kind = static_cast<EventKind>(event->kind);
            copy.code = static_cast<Code>(event->code);
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

/// The status snapshot's values, read through its accessors.
inline KeeperStatus read_status(const KeeperStatusHandle *handle) {
    KeeperStatus status;
    std::int32_t state = 0;
    if (found(verify_keeper_status_state(handle, &state))) {
        // Any int32_t is a valid KeeperState: a state of a later library is kept as it is.
        status.state = static_cast<KeeperState>(state);
    }
    std::int32_t last_code = 0;
    if (found(verify_keeper_status_last_code(handle, &last_code))) {
        status.last_code = static_cast<Code>(last_code);
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

/// A running session keeper, from Client::keep_alive. Move-only owner of a verify_keeper and
/// of its on_event function; destroying it stops the keeper and joins its threads (promptly:
/// a heartbeat in flight is cancelled; a running on_event is waited for). Never throws from
/// its destructor. Must not be destroyed from its own on_event. A moved-from Keeper is empty
/// (`!keeper`) and its methods throw verify::Error (codes::err_invalid_argument).
/// stop(), state() and status() may run on several threads at once.
class [[nodiscard]] Keeper {
public:
    Keeper(Keeper &&) noexcept = default;
    Keeper &operator=(Keeper &&) noexcept = default;
    Keeper(const Keeper &) = delete;
    Keeper &operator=(const Keeper &) = delete;
    ~Keeper() = default;

    /// false once moved from.
    explicit operator bool() const noexcept { return box_ != nullptr; }

    /// Stops the keeper: no heartbeat and no event after it returns (unless called from
    /// on_event itself: it returns at once and the event thread ends after that callback).
    /// Idempotent; state() is Ended afterwards.
    void stop() const { detail::check_ok(verify_keeper_stop(live())); }

    /// The current state, without a snapshot (possibly a state this header does not name).
    [[nodiscard]] KeeperState state() const {
        std::int32_t code = verify_keeper_state(live());
        if (code < 0) {
            detail::raise(code);
        }
        return static_cast<KeeperState>(code);
    }

    /// A typed snapshot for hosts that poll. Hands out the queued back-office messages (each
    /// once), so two threads calling it at once each get some of them.
    [[nodiscard]] KeeperStatus status() const {
        detail::KeeperStatusHandle *raw = nullptr;
        std::int32_t code = verify_keeper_get_status(live(), &raw);
        detail::KeeperStatusPtr snapshot(raw);
        if (code != codes::ok || !snapshot) {
            detail::raise(code != codes::ok ? code : codes::err_panic);
        }
        return detail::read_status(snapshot.get());
    }

    /// The C handle, still owned by this Keeper (NULL when empty). There is no release():
    /// the Keeper also owns the on_event function the handle calls.
    [[nodiscard]] verify_keeper *get() const noexcept { return box_ ? box_->handle.get() : nullptr; }

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

}  // namespace verify

#endif /* VERIFY_KEEPER_HPP */
