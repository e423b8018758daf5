/// @file
/// verify/cancel.hpp: cancelling a call in flight. verify::CancelToken (the library's token),
/// verify::CancelScope (a token, or a C++20 std::stop_token, watching the calls of this thread
/// while the scope lives), and VERIFY_HAS_STOP_TOKEN.
///
/// Any call can be cancelled while it runs, in every phase (name lookup, connect, TLS,
/// sending, waiting for the reply), from another thread: it throws verify::Error with
/// Code::err_cancelled within milliseconds of the cancel.
/// - Every action of Client has an overload taking the token first:
///       std::stop_source stop;                                   // C++20
///       auto login = client.single_login(stop.get_token(), card, mac);   // stop.request_stop()
///   or client.single_login(cancel_token, card, mac) with a verify::CancelToken (C++17).
/// - Any call, without such an overload (init(), call(), social_login_wait()...): in a
///   verify::CancelScope, which attaches a token to the calling thread
///   (verify_cancel_attach) until it is destroyed:
///       { verify::CancelScope scope(stop.get_token()); client.init(); client.call(...); }
/// - An action that changes state on the server (single_login, user_login_with_card,
///   user_register, user_recharge, change_bind, update_password) cancelled after its request
///   left says so in the Error's what(): "the server may have received it"; the library
///   never sends it again: look at the state (log in, read the card) before sending it again.
/// - A cancelled token stays cancelled: calls under it throw at once. Use a new one for the
///   next call. A stop_token that was already stopped cancels at once too.
///
/// Social wait (Client::social_login_wait, verify::CancelToken)
/// - social_login_wait polls step 2 until the user authorizes (a Reply, 200), the server
///   refuses (a Reply with its code, e.g. 1016), the timeout passes (throws verify::Error
///   codes::err_timeout) or the CancelToken is cancelled (throws codes::err_cancelled, within
///   milliseconds, a poll in flight interrupted). It blocks the calling thread. Without a
///   token of its own it is cancelled by the one a CancelScope attached to the thread.
///
/// Threads
/// - CancelToken::cancel() may be called from any thread, any number of times, through a
///   const reference, while a call uses the token. Destroying or moving the token must not
///   overlap with a cancel() using it; a scope may outlive the token (the thread keeps its
///   own reference).
/// - A CancelScope belongs to the thread that made it: destroy it there, in the reverse order
///   of making (it is neither copyable nor movable, so a scope in a block does that).

#ifndef VERIFY_CANCEL_HPP
#define VERIFY_CANCEL_HPP

#include <optional>
#include <utility>
#include "../verify.h"
#include "detail/call.hpp"
#include "detail/handles.hpp"
#include "error.hpp"

/// VERIFY_HAS_STOP_TOKEN is 1 where the standard library has std::stop_token (C++20): then
/// CancelScope and every action take one.
#if !defined(VERIFY_HAS_STOP_TOKEN)
#if __cplusplus >= 202002L || (defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#include <version>
#endif
#if defined(__cpp_lib_jthread) && __cpp_lib_jthread >= 201911L
#define VERIFY_HAS_STOP_TOKEN 1
#else
#define VERIFY_HAS_STOP_TOKEN 0
#endif
#endif
#if VERIFY_HAS_STOP_TOKEN
#include <stop_token>
#endif

namespace verify {

/// The library's cancellation token: passed to an action (its overload taking the token
/// first), held by a CancelScope, or given to Client::social_login_wait. Move-only owner of a
/// verify_cancel. cancel() may be called from any thread (through a const reference too)
/// while a call uses the token; moving or destroying it must not overlap with a cancel()
/// using it.
class [[nodiscard]] CancelToken {
public:
    /// A token not cancelled yet.
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

    /// false once moved from.
    explicit operator bool() const noexcept { return handle_ != nullptr; }

    /// Cancels: a call under this token throws codes::err_cancelled within milliseconds, and
    /// later calls under it throw at once. Any thread, any number of times.
    void cancel() const {
        if (!handle_) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::CancelToken");
        }
        detail::check_ok(verify_cancel_cancel(handle_.get()));
    }

    /// Whether cancel() was called. Any thread.
    [[nodiscard]] bool cancelled() const {
        if (!handle_) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::CancelToken");
        }
        std::int32_t yes = 0;
        detail::check_ok(verify_cancel_is_cancelled(handle_.get(), &yes));
        return yes != 0;
    }

    /// The C handle, still owned by this token (NULL when empty).
    [[nodiscard]] const verify_cancel *get() const noexcept { return handle_.get(); }

    /// Gives up ownership: the caller must verify_cancel_free() the result.
    [[nodiscard]] verify_cancel *release() noexcept { return handle_.release(); }

private:
    detail::CancelPtr handle_;
};

/// While it lives, a token watches the calls of the thread that made it
/// (verify_cancel_attach; destroyed: verify_cancel_detach): each of them throws
/// codes::err_cancelled within milliseconds of the token's cancel. Scopes nest: the innermost
/// one's token cancels. Made and destroyed on one thread, in the reverse order; neither
/// copyable nor movable.
class [[nodiscard]] CancelScope {
public:
    /// `token` watches this thread until the scope ends (the token may be destroyed before:
    /// the thread keeps its own reference). Throws verify::Error for an empty token.
    explicit CancelScope(const CancelToken &token) : attached_(token.get()) {
        if (attached_ == nullptr) {
            detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::CancelToken");
        }
        detail::check_ok(verify_cancel_attach(attached_));
    }

#if VERIFY_HAS_STOP_TOKEN
    /// `stop` watches this thread until the scope ends: stop.request_stop() (any thread)
    /// cancels the calls in flight here. A token already stopped cancels at once.
    explicit CancelScope(std::stop_token stop) : own_(std::in_place), attached_(own_->get()) {
        detail::check_ok(verify_cancel_attach(attached_));
        try {
            stopping_.emplace(std::move(stop), Stopper{&*own_});
        } catch (...) {
            verify_cancel_detach(attached_);
            throw;
        }
    }
#endif

    CancelScope(const CancelScope &) = delete;
    CancelScope &operator=(const CancelScope &) = delete;
    CancelScope(CancelScope &&) = delete;
    CancelScope &operator=(CancelScope &&) = delete;

    ~CancelScope() {
#if VERIFY_HAS_STOP_TOKEN
        // No cancel may run into a token being freed: the callback is gone first.
        stopping_.reset();
#endif
        verify_cancel_detach(attached_);
    }

private:
#if VERIFY_HAS_STOP_TOKEN
    /// Cancels the scope's own token when the stop_token is stopped (never throws).
    struct Stopper {
        const CancelToken *token;
        void operator()() const noexcept { verify_cancel_cancel(token->get()); }
    };
    std::optional<CancelToken> own_;
    std::optional<std::stop_callback<Stopper>> stopping_;
#endif
    const verify_cancel *attached_;
};

}  // namespace verify

#endif /* VERIFY_CANCEL_HPP */
