//! `verify_cancel`: a cancellation token, for any call in flight (attached to the calling
//! thread around the call) and for `verify_social_login_wait`.
//!
//! A token is attached to a thread, not passed to each call: every call the library has
//! (the generated action functions among them) stays as it is, and a host wraps the calls it
//! wants to cancel in `verify_cancel_attach` / `verify_cancel_detach` (C# and C++ do it for
//! their `CancellationToken` and `std::stop_token`). Attachments nest, per thread.

use std::cell::RefCell;

use verify_core::{codes, CancelToken, Error, ErrorKind, Watch};

use crate::guard::{clear_out, free_handle, give_handle, guard, guard_code};

/// A cancellation token: attached to a thread (`verify_cancel_attach`), it cancels the calls
/// made on that thread; passed to `verify_social_login_wait`, it cancels that wait. Opaque;
/// created by `verify_cancel_new`, freed by `verify_cancel_free`.
#[allow(non_camel_case_types)]
pub struct verify_cancel {
    pub(crate) token: CancelToken,
}

thread_local! {
    /// The tokens attached to this thread, innermost last, each with the handle it was
    /// attached through (compared, never read) and its watch of the thread.
    static ATTACHED: RefCell<Vec<(usize, Watch)>> = const { RefCell::new(Vec::new()) };
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

/// Cancels: every call in flight on a thread the token is attached to returns
/// `VERIFY_ERR_CANCELLED` within milliseconds, in any phase (name lookup, connect, TLS,
/// sending, waiting for the reply), and later calls there fail at once with it until the
/// token is detached; a `verify_social_login_wait` using it returns `VERIFY_ERR_CANCELLED`
/// too. A cancelled token stays cancelled: make a new one for the next call. Returns 200 or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread, any number of times, while the
/// token is not being freed.
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

/// Whether the token was cancelled: writes 1 or 0 to `*out`. Returns 200 or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_cancel_is_cancelled(
    cancel: *const verify_cancel,
    out: *mut i32,
) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or a live token, NULL or a writable int (the caller's contract).
        unsafe {
            let cancel = cancel
                .as_ref()
                .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "cancel is NULL"))?;
            crate::guard::write_out(out, "out", i32::from(cancel.token.is_cancelled()))?;
        }
        Ok(codes::OK)
    })
}

/// Attaches the token to the calling thread: until `verify_cancel_detach(cancel)` on this
/// thread, every call of the library made on it (every action, Init, the login of an offline
/// start within its start budget) is cancelled by `verify_cancel_cancel(cancel)` from any
/// thread: it returns `VERIFY_ERR_CANCELLED` (no reply) within milliseconds. An action that
/// changes state on the server (those the README's retry table never sends twice:
/// SingleLogin, UserLogin with a card, UserRegin, UserRecharge, ChangeBind, UpdatePwd)
/// cancelled after its request may have left says in its last error message that the server
/// may have received it; the library never sends it again. A cancelled login gives no
/// offline verdict. Attachments nest: the innermost token is the one that cancels, and
/// detaching it restores the one before. Unused, a token costs nothing: calls on a thread
/// without one run as before. Ownership: the thread keeps its own reference to the token
/// while attached (freeing the handle meanwhile is safe; the token stays attached until
/// detached). Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread;
/// attach and detach on the same thread.
#[no_mangle]
pub extern "system" fn verify_cancel_attach(cancel: *const verify_cancel) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or a live token (the caller's contract).
        let token = unsafe { cancel.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "cancel is NULL"))?;
        let watch = token.token.watch();
        ATTACHED.with(|attached| attached.borrow_mut().push((cancel as usize, watch)));
        Ok(codes::OK)
    })
}

/// Detaches the token attached last to the calling thread by `verify_cancel_attach(cancel)`:
/// calls on this thread are then cancelled by the token attached before it, if any, or by
/// none. `cancel` must be the innermost token attached to this thread (detach in the reverse
/// order of attach), else nothing changes and `VERIFY_ERR_INVALID_ARGUMENT` is returned.
/// `cancel` is only compared, never read: it may have been freed already. Returns 200 or
/// `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: the thread that attached it.
#[no_mangle]
pub extern "system" fn verify_cancel_detach(cancel: *const verify_cancel) -> i32 {
    guard_code(|| {
        let key = cancel as usize;
        let watch = ATTACHED.with(|attached| {
            let mut attached = attached.borrow_mut();
            let why = match attached.last() {
                Some((top, _)) if *top == key => return Ok(attached.pop()),
                Some(_) if attached.iter().any(|(held, _)| *held == key) => {
                    "this token is not the one attached last to this thread: detach in the \
                     reverse order of attach"
                }
                _ => {
                    "this token is not attached to this thread (attach and detach on the same \
                     thread)"
                }
            };
            Err(Error::local(ErrorKind::InvalidArgument, why))
        })?;
        // Dropped outside the borrow: the thread is watched again by the previous token.
        drop(watch);
        Ok(codes::OK)
    })
}

/// Frees a cancellation token. `verify_cancel_free(NULL)` does nothing. A thread it is
/// attached to keeps its own reference until `verify_cancel_detach`.
/// Ownership: takes `cancel`. Thread-safety: no `verify_cancel_cancel` or wait may still be
/// using it.
#[no_mangle]
pub extern "system" fn verify_cancel_free(cancel: *mut verify_cancel) {
    // SAFETY: NULL or a pointer from `verify_cancel_new`, freed once (caller's contract).
    guard((), || unsafe { free_handle(cancel) })
}
