//! Guards of the C boundary: panics caught, arguments checked, the last error recorded.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

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

/// Longest part of a server's message (or remark) that the last error repeats, in
/// characters: a server may echo a caller's value in it (1013 naming a 64 KiB variable);
/// the reply keeps the whole message.
const SERVER_TEXT_CHARS: usize = 128;

/// A server's text as the last error repeats it: its first [`SERVER_TEXT_CHARS`] characters,
/// and when it is longer, "..." and its length.
pub(crate) fn bounded(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(SERVER_TEXT_CHARS) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!(
            "{}... ({} bytes; the reply holds all of it)",
            &text[..end],
            text.len()
        )),
    }
}

/// Records `error` as the last error and returns its code. The message leads with what is
/// wrong (the error's own message, and the server's remark), then the code and its generic
/// text: "host \"-a.example\" is not a host name: ... (-1: invalid argument: ...)". A
/// server's message and remark are repeated up to [`SERVER_TEXT_CHARS`] characters each.
pub fn record(error: &Error) -> i32 {
    let code = error.code();
    let generic = codes::describe(code);
    let (message, remark) = match error.reply() {
        Some(_) => (bounded(error.message()), error.remark().map(bounded)),
        None => (Cow::Borrowed(error.message()), None),
    };
    let message = match (&*message, remark) {
        ("", None) => format!("{generic} ({code})"),
        (message, None) => format!("{message} ({code}: {generic})"),
        (message, Some(remark)) => format!("{message} [remark: {remark}] ({code}: {generic})"),
    };
    set_last_error(code, &message);
    code
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

thread_local! {
    /// Where the calling thread's last panic happened (`file:line`), for the guard's message.
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

static QUIET_PANICS: Once = Once::new();

/// Replaces the panic hook of this library's copy of the standard library (a C host's own
/// code, and another Rust library in the process, have hooks of their own): a panic prints
/// nothing on the host's stderr, on any thread of the library. Its place is kept for
/// [`guard`], which reports it by code and by `verify_last_error_message`; a panic on a
/// keeper's thread ends the keeper with `VERIFY_ERR_PANIC` in its status and its last
/// event. The library's own unit tests keep the default hook outside a guard and the
/// library's threads, so that a failing test still says why.
fn quiet_panics() {
    QUIET_PANICS.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            let at = info
                .location()
                .map(|at| format!("{}:{}", at.file(), at.line()));
            let _ = PANIC_AT.try_with(|cell| cell.replace(at));
            if cfg!(test) && IN_GUARD.try_with(Cell::get) != Ok(true) && !on_library_thread() {
                previous(info);
            }
        }));
    });
}

/// Whether the calling thread is one the library started (all named `verify-...`).
fn on_library_thread() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|name| name.starts_with("verify-"))
}

thread_local! {
    /// Whether the calling thread runs a guarded body (only the unit tests ask).
    static IN_GUARD: Cell<bool> = const { Cell::new(false) };
}

/// Runs `body`, turning a panic into `fallback` with the panic recorded as the last error.
/// Every exported function runs its body through this, so no panic crosses the boundary,
/// and none is printed ([`quiet_panics`]).
pub fn guard<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    quiet_panics();
    let outer = cfg!(test) && !IN_GUARD.replace(true);
    let outcome = catch_unwind(AssertUnwindSafe(body));
    if outer {
        IN_GUARD.set(false);
    }
    match outcome {
        Ok(value) => value,
        Err(payload) => {
            caught(payload);
            fallback
        }
    }
}

/// Records a panic caught by [`guard`] as the last error. Out of line: one copy, not one in
/// each exported function.
#[cold]
#[inline(never)]
fn caught(payload: Box<dyn std::any::Any + Send>) {
    set_last_error(codes::ERR_PANIC, &panic_text(&*payload));
    PANIC_AT.take();
}

/// What the last error (and a client's log hook) says of a caught panic: its message, and
/// where it happened.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    let at = PANIC_AT
        .with_borrow(|at| at.as_ref().map(|at| format!(" at {at}")))
        .unwrap_or_default();
    format!("internal error (panic caught at the boundary{at}): {what}")
}

/// Runs a body that returns a code or an error; errors are recorded and become their code.
pub fn guard_code(body: impl FnOnce() -> Result<i32, Error>) -> i32 {
    guard(codes::ERR_PANIC, || match body() {
        Ok(code) => code,
        Err(error) => record_owned(error),
    })
}

/// [`record`] of an error that is dropped afterwards. Out of line: one copy, not one in each
/// exported function.
#[cold]
#[inline(never)]
fn record_owned(error: Error) -> i32 {
    record(&error)
}

/// The error of a NULL argument `name`. Out of line: one copy of the formatting, not one in
/// each caller.
#[cold]
#[inline(never)]
pub(crate) fn null_argument(name: &str) -> Error {
    Error::local(ErrorKind::InvalidArgument, format!("{name} is NULL"))
}

/// A required UTF-8 string argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid during the call.
pub unsafe fn required_str<'a>(ptr: *const c_char, name: &str) -> Result<Cow<'a, str>, Error> {
    optional_str(ptr, name)?.ok_or_else(|| null_argument(name))
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
        return Err(null_argument(name));
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
        return Err(null_argument(name));
    }
    // SAFETY: checked non-NULL; the caller guarantees it is writable.
    unsafe { *out = std::ptr::null_mut() };
    Ok(())
}

/// The text that makes `verify_panic_self_test` panic.
const PANIC_SELF_TEST: &str = "panic";

/// Panics inside the library on purpose when `confirm` is the text `"panic"`, and returns
/// what any export returns when a panic is caught at the boundary: `VERIFY_ERR_PANIC`, with
/// `verify_last_error_message` saying "internal error (panic caught at the boundary ...):
/// verify_panic_self_test". The host process goes on as after any other failed call.
///
/// A self-test for the host's own process: a program can run it once at start to prove that
/// the library's panic guard holds there, with the other libraries it loads (on 32-bit
/// Windows, a `libgcc_s_dw2-1.dll`, a C++ runtime or another unwinder loaded before
/// `verify.dll`). It changes nothing else, reads no secret and touches no file or network.
/// Any other `confirm` does nothing: NULL or another text returns
/// `VERIFY_ERR_INVALID_ARGUMENT` without a panic.
///
/// Ownership: `confirm` is only read. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_panic_self_test(confirm: *const c_char) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract: NULL or a NUL-terminated string valid for the call.
        let confirm = unsafe { required_str(confirm, "confirm") }?;
        if confirm != PANIC_SELF_TEST {
            return Err(Error::local(
                ErrorKind::InvalidArgument,
                format!("confirm is not \"{PANIC_SELF_TEST}\": no panic was made"),
            ));
        }
        panic!("verify_panic_self_test");
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_text_is_repeated_up_to_its_bound() {
        assert_eq!(bounded("卡密不存在"), "卡密不存在");
        let echo = format!("参数不完整: {}", "x".repeat(65536));
        let shown = bounded(&echo);
        assert!(shown.chars().count() < SERVER_TEXT_CHARS + 60, "{shown}");
        assert!(shown.starts_with("参数不完整: xxx"), "{shown}");
        assert!(
            shown.ends_with("... (65553 bytes; the reply holds all of it)"),
            "{shown}"
        );
    }

    #[test]
    fn a_panic_becomes_the_fallback_and_the_last_error() {
        let code = guard_code(|| panic!("boom in the body"));
        assert_eq!(code, codes::ERR_PANIC);
        assert_eq!(last_error_code(), codes::ERR_PANIC);
        // SAFETY: the pointer is the thread's last-error string, valid until the next error.
        let message = unsafe { CStr::from_ptr(last_error_message()) };
        assert!(message.to_string_lossy().contains("boom in the body"));
        assert!(message.to_string_lossy().contains("src/guard.rs:"));
        assert_eq!(guard(7, || 3), 3);
    }

    /// Run by the test below in a process of its own, with its output not captured.
    #[test]
    #[ignore = "run by a_caught_panic_prints_nothing"]
    fn panics_in_a_guard_and_on_a_thread() {
        assert_eq!(
            guard_code(|| panic!("boom at the boundary")),
            codes::ERR_PANIC
        );
        guard((), || {
            let thread = std::thread::Builder::new()
                .name("verify-test".into())
                .spawn(|| panic!("boom on a library thread"))
                .expect("a thread");
            assert!(thread.join().is_err());
        });
    }

    #[test]
    fn a_caught_panic_prints_nothing() {
        // This test binary again, running the test above alone with its output not captured:
        // the default hook would print both panics on stderr.
        let output = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "guard::tests::panics_in_a_guard_and_on_a_thread",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .output()
            .expect("run the test binary");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stdout}{stderr}");
        assert!(stdout.contains("1 passed"), "{stdout}");
        assert!(
            !stderr.contains("boom") && !stdout.contains("boom"),
            "panic text printed:\n{stdout}{stderr}"
        );
    }

    #[test]
    fn the_panic_self_test_panics_only_when_asked() {
        assert_eq!(verify_panic_self_test(c"panic".as_ptr()), codes::ERR_PANIC);
        // SAFETY: the thread's last-error string, valid until the next error.
        let message = unsafe { CStr::from_ptr(last_error_message()) }.to_string_lossy();
        assert!(
            message.contains("panic caught at the boundary")
                && message.contains("verify_panic_self_test"),
            "{message}"
        );
        for other in [c"Panic", c"", c"panic "] {
            assert_eq!(
                verify_panic_self_test(other.as_ptr()),
                codes::ERR_INVALID_ARGUMENT
            );
            assert_eq!(last_error_code(), codes::ERR_INVALID_ARGUMENT);
        }
        assert_eq!(
            verify_panic_self_test(std::ptr::null()),
            codes::ERR_INVALID_ARGUMENT
        );
    }

    #[test]
    fn messages_with_nul_bytes_are_kept_readable() {
        set_last_error(-1, "a\0b");
        // SAFETY: as above.
        let message = unsafe { CStr::from_ptr(last_error_message()) };
        assert_eq!(message.to_str(), Ok("a b"));
    }
}
