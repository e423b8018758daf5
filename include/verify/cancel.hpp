/*
 * verify/cancel.hpp: verify::CancelToken, which cancels Client::social_login_wait.
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
 */

#ifndef VERIFY_CANCEL_HPP
#define VERIFY_CANCEL_HPP

#include "../verify.h"
#include "detail/call.hpp"
#include "detail/handles.hpp"
#include "error.hpp"

namespace verify {

/*
 * A cancellation token for Client::social_login_wait. Move-only owner of a verify_cancel.
 * cancel() may be called from any thread (through a const reference too) while a wait uses
 * the token; moving or destroying it must not overlap with a wait or a cancel() using it.
 */
class [[nodiscard]] CancelToken {
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
    [[nodiscard]] const verify_cancel *get() const noexcept { return handle_.get(); }

    /* Gives up ownership: the caller must verify_cancel_free() the result. */
    [[nodiscard]] verify_cancel *release() noexcept { return handle_.release(); }

private:
    detail::CancelPtr handle_;
};

}  // namespace verify

#endif /* VERIFY_CANCEL_HPP */
