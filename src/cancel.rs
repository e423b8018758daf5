//! `verify_cancel`: a cancellation token for the blocking waits.

use verify_core::{codes, CancelToken, Error, ErrorKind};

use crate::guard::{clear_out, free_handle, give_handle, guard, guard_code};

/// A cancellation token for `verify_social_login_wait`. Opaque; created by
/// `verify_cancel_new`, freed by `verify_cancel_free`.
#[allow(non_camel_case_types)]
pub struct verify_cancel {
    pub(crate) token: CancelToken,
}

/// Creates a cancellation token. Ownership: the caller owns `*out` and frees it with
/// `verify_cancel_free`. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_cancel_new(out: *mut *mut verify_cancel) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe {
            clear_out(out, "out")?;
            give_handle(
                out,
                verify_cancel {
                    token: CancelToken::new(),
                },
            );
        }
        Ok(codes::OK)
    })
}

/// Cancels: a `verify_social_login_wait` using this token returns `VERIFY_ERR_CANCELLED`
/// within milliseconds (a poll in flight is interrupted), and later waits with it return at
/// once. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread, any number
/// of times, while the token is not being freed.
#[no_mangle]
pub extern "system" fn verify_cancel_cancel(cancel: *const verify_cancel) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or a live token (the caller's contract).
        let cancel = unsafe { cancel.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "cancel is NULL"))?;
        cancel.token.cancel();
        Ok(codes::OK)
    })
}

/// Frees a cancellation token. `verify_cancel_free(NULL)` does nothing.
/// Ownership: takes `cancel`. Thread-safety: no wait may still be using it.
#[no_mangle]
pub extern "system" fn verify_cancel_free(cancel: *mut verify_cancel) {
    // SAFETY: NULL or a pointer from `verify_cancel_new`, freed once (caller's contract).
    guard((), || unsafe { free_handle(cancel) })
}
