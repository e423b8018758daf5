//! Guards of the C boundary: panics caught, arguments checked, the last error recorded.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use verify_core::codes;
use verify_core::{Error, ErrorKind};

/// Longest string argument accepted, in bytes: anything longer is an invalid argument.
pub(crate) const MAX_ARG_BYTES: usize = 64 * 1024;

struct LastError {
    code: i32,
    message: CString,
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> = RefCell::new(LastError {
        code: 0,
        message: CString::default(),
    });
}

/// Records the last error of the calling thread.
pub fn set_last_error(code: i32, message: &str) {
    let message = crate::codepage::encode(message);
    LAST_ERROR.with(|last| *last.borrow_mut() = LastError { code, message });
}

/// Records `error` as the last error and returns its code.
pub fn record(error: &Error) -> i32 {
    set_last_error(error.code(), &error.to_string());
    error.code()
}

/// The code of the calling thread's last error (0 when none).
pub fn last_error_code() -> i32 {
    LAST_ERROR.with(|last| last.borrow().code)
}

/// The message of the calling thread's last error; valid until the thread's next call into
/// the library that fails.
pub fn last_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().message.as_ptr())
}

/// Runs `body`, turning a panic into `fallback` with the panic recorded as the last error.
/// Every exported function runs its body through this, so no panic crosses the boundary.
pub fn guard<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            set_last_error(
                codes::ERR_PANIC,
                &format!("internal error (panic caught at the boundary): {what}"),
            );
            fallback
        }
    }
}

/// Runs a body that returns a code or an error; errors are recorded and become their code.
pub fn guard_code(body: impl FnOnce() -> Result<i32, Error>) -> i32 {
    guard(codes::ERR_PANIC, || match body() {
        Ok(code) => code,
        Err(error) => record(&error),
    })
}

/// A required UTF-8 string argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid during the call.
pub unsafe fn required_str<'a>(ptr: *const c_char, name: &str) -> Result<Cow<'a, str>, Error> {
    optional_str(ptr, name)?
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, format!("{name} is NULL")))
}

/// An optional string argument: NULL is `None`. The bytes are UTF-8, or in the code page
/// set with `verify_set_code_page` (then the text is converted).
///
/// # Safety
/// As for [`required_str`].
pub unsafe fn optional_str<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<Cow<'a, str>>, Error> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller guarantees a NUL-terminated string valid for the call.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    if bytes.len() > MAX_ARG_BYTES {
        return Err(Error::local(
            ErrorKind::InvalidArgument,
            format!("{name} is longer than {MAX_ARG_BYTES} bytes"),
        ));
    }
    crate::codepage::decode(bytes, name).map(Some)
}

/// Writes `value` through a required out-pointer.
///
/// # Safety
/// `out` is NULL or valid for writing one `T`.
pub unsafe fn write_out<T>(out: *mut T, name: &str, value: T) -> Result<(), Error> {
    if out.is_null() {
        return Err(Error::local(
            ErrorKind::InvalidArgument,
            format!("{name} is NULL"),
        ));
    }
    // SAFETY: checked non-NULL; the caller guarantees it is writable.
    unsafe { out.write(value) };
    Ok(())
}

/// Hands a new handle to the caller: `*out` becomes the owned `value`, which the caller
/// frees with the handle's `_free` function ([`free_handle`]).
///
/// # Safety
/// `out` was checked by [`clear_out`] (non-NULL, writable).
pub unsafe fn give_handle<T>(out: *mut *mut T, value: T) {
    // SAFETY: as documented above.
    unsafe { *out = Box::into_raw(Box::new(value)) };
}

/// Frees a handle given by [`give_handle`]; NULL does nothing. Every `_free` function of
/// the ABI runs inside [`guard`] and calls this.
///
/// # Safety
/// `handle` is NULL or a pointer from [`give_handle`] of the same type, freed once.
pub unsafe fn free_handle<T>(handle: *mut T) {
    if !handle.is_null() {
        // SAFETY: as documented above.
        drop(unsafe { Box::from_raw(handle) });
    }
}

/// Checks that an out-pointer is not NULL, and sets `*out` to NULL.
///
/// # Safety
/// `out` is NULL or valid for writing one pointer.
pub unsafe fn clear_out<T>(out: *mut *mut T, name: &str) -> Result<(), Error> {
    if out.is_null() {
        return Err(Error::local(
            ErrorKind::InvalidArgument,
            format!("{name} is NULL"),
        ));
    }
    // SAFETY: checked non-NULL; the caller guarantees it is writable.
    unsafe { *out = std::ptr::null_mut() };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_fallback_and_the_last_error() {
        let code = guard_code(|| panic!("boom in the body"));
        assert_eq!(code, codes::ERR_PANIC);
        assert_eq!(last_error_code(), codes::ERR_PANIC);
        // SAFETY: the pointer is the thread's last-error string, valid until the next error.
        let message = unsafe { CStr::from_ptr(last_error_message()) };
        assert!(message.to_string_lossy().contains("boom in the body"));
        assert_eq!(guard(7, || 3), 3);
    }

    #[test]
    fn messages_with_nul_bytes_are_kept_readable() {
        set_last_error(-1, "a\0b");
        // SAFETY: as above.
        let message = unsafe { CStr::from_ptr(last_error_message()) };
        assert_eq!(message.to_str(), Ok("a b"));
    }
}
