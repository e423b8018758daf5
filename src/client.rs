//! `verify_client` and the calls that are not in the action table: Init, the generic call,
//! the social wait. The action table's calls are in `generated/actions.rs` and use
//! [`answer`].
//!
//! Every call takes the client, its parameters as NUL-terminated UTF-8 strings (NULL only
//! where a parameter is optional) and `verify_reply **out`, and returns the result code:
//! 200 or 201, the server's refusal code (1001..1024), or a negative local code. `*out` is
//! set to NULL first, then to a new reply whenever the server answered (refusals included);
//! the caller owns that reply and frees it with `verify_reply_free`.

use std::ffi::c_char;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use verify_core::{
    codes, ActionRequest, CancelToken, Client, Error, ErrorKind, Keeper, LogHook, LogLevel,
    Options, Reply, SessionKind,
};

use crate::cancel::verify_cancel;
use crate::generated::enums::{VERIFY_SESSION_CARD, VERIFY_SESSION_USER};
use crate::guard::{
    bounded, clear_out, free_handle, give_handle, guard, guard_code, optional_str, panic_text,
    record, required_str, set_last_error,
};
use crate::reply::{give, verify_reply};

/// Most parameters accepted by `verify_call`.
const MAX_CALL_PARAMS: usize = 256;

/// A client of the service for one program. Opaque; created by `verify_client_new`, freed
/// by `verify_client_free`. Thread-safe: any number of threads may make calls on one client
/// at once; no lock is held across network I/O.
#[allow(non_camel_case_types)]
pub struct verify_client {
    pub(crate) client: Arc<Client>,
    /// The client's log hook, which also hears of a panic caught in one of its calls.
    pub(crate) log: Option<LogHook>,
    /// Keepers started on this client, stopped when it is freed.
    pub(crate) keepers: Mutex<Vec<Weak<Keeper>>>,
}

impl Drop for verify_client {
    fn drop(&mut self) {
        let keepers =
            std::mem::take(&mut *self.keepers.lock().unwrap_or_else(PoisonError::into_inner));
        for keeper in keepers.iter().filter_map(Weak::upgrade) {
            keeper.stop();
        }
    }
}

/// Borrows the client handle.
///
/// # Safety
/// `client` is NULL or a live pointer from `verify_client_new`.
pub(crate) unsafe fn borrow_handle<'a>(
    client: *const verify_client,
) -> Result<&'a verify_client, Error> {
    // SAFETY: as documented above.
    unsafe { client.as_ref() }
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "client is NULL"))
}

/// The session kind of a `kind` argument.
pub(crate) fn session_kind(kind: i32) -> Result<SessionKind, Error> {
    match kind {
        VERIFY_SESSION_CARD => Ok(SessionKind::Card),
        VERIFY_SESSION_USER => Ok(SessionKind::User),
        other => Err(Error::local(
            ErrorKind::InvalidArgument,
            format!("kind {other} is neither VERIFY_SESSION_CARD nor VERIFY_SESSION_USER"),
        )),
    }
}

/// Records a server refusal as the last error, so that hosts can print one line: the code's
/// text, the code, then the server's message and its remark. The line stays the developer's
/// English first; the server's own message follows as it came, up to its bound (a server may
/// echo a caller's value; the reply keeps the whole message).
fn note_refusal(reply: &Reply) {
    let code = reply.code();
    if code != codes::OK && code != codes::PENDING {
        let message = bounded(reply.message());
        let mut text = format!("{} ({code}): {message}", codes::describe(code));
        if let Some(remark) = reply.remark() {
            text.push_str(&format!(" [remark: {}]", bounded(remark)));
        }
        set_last_error(code, &text);
    }
}

/// Hands the outcome of an exchange to the caller: the code, and the reply through `out`
/// whenever the server answered.
///
/// # Safety
/// `out` was checked by `clear_out`.
#[inline(never)] // one copy for the calls and the social login's poll and wait
pub(crate) unsafe fn deliver(out: *mut *mut verify_reply, outcome: Result<Reply, Error>) -> i32 {
    match outcome {
        Ok(reply) => {
            let code = reply.code();
            note_refusal(&reply);
            // SAFETY: forwarded from the caller.
            unsafe { give(out, reply) };
            code
        }
        Err(error) => {
            let code = record(&error);
            if let Some(reply) = error.into_reply() {
                // SAFETY: forwarded from the caller.
                unsafe { give(out, reply) };
            }
            code
        }
    }
}

/// Runs a call: clears `out`, borrows `client`, builds the request, exchanges, delivers.
///
/// # Safety
/// `client` and `out` as documented on the exported functions; `build` reads only string
/// arguments valid for the call.
pub(crate) unsafe fn answer(
    client: *const verify_client,
    out: *mut *mut verify_reply,
    build: impl Fn() -> Result<ActionRequest, Error>,
) -> i32 {
    // SAFETY: forwarded from the caller.
    unsafe { answer_with(client, out, &build) }
}

/// The body of [`answer`], one copy for every call: only the request's building differs
/// between them, behind `build`'s `dyn` call (a generic body would be copied into each of
/// the action table's functions).
///
/// # Safety
/// As for [`answer`].
#[inline(never)]
unsafe fn answer_with(
    client: *const verify_client,
    out: *mut *mut verify_reply,
    build: &dyn Fn() -> Result<ActionRequest, Error>,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out, "out")? };
        // SAFETY: the caller's contract.
        let client = unsafe { borrow_handle(client)? };
        let exchange = || -> Result<_, Error> { Ok(client.client.exchange(&build()?)) };
        let outcome = match catch_unwind(AssertUnwindSafe(exchange)) {
            Ok(outcome) => outcome?,
            Err(payload) => {
                // The client's log hears of it too; the guard records it and returns its code.
                if let Some(log) = &client.log {
                    log(LogLevel::Error, &panic_text(&*payload));
                }
                resume_unwind(payload)
            }
        };
        // SAFETY: `out` was checked above.
        Ok(unsafe { deliver(out, outcome) })
    })
}

/// Creates a client for the service at `base_url`, for the program `app_id` with its
/// secret `app_key`. Nothing is sent until the first call; the Init handshake runs then if
/// `verify_init` was not called.
///
/// `base_url` is `http://` or `https://`, a host (name, IPv4, or IPv6 in brackets), an
/// optional port 1..65535 and an optional path prefix, ASCII only, without `/api/verify`
/// (the library adds it), user information, query or fragment; anything else is
/// `VERIFY_ERR_INVALID_ARGUMENT` with a message saying what to pass instead. Plain `http://`
/// is accepted only for loopback hosts (see `verify_client_new_with_options` for the other
/// settings: mirrors, trust, proxy, log).
///
/// Ownership: all three strings are required, NUL-terminated UTF-8, copied (the caller keeps
/// them). `out` is required; on success `*out` is a new client that the caller owns and must
/// free with `verify_client_free`; on failure `*out` is NULL.
/// Returns 200, `VERIFY_ERR_INVALID_ARGUMENT` or `VERIFY_ERR_INVALID_UTF8`.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_client_new(
    base_url: *const c_char,
    app_id: *const c_char,
    app_key: *const c_char,
    out: *mut *mut verify_client,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        unsafe { new_client(base_url, app_id, app_key, Options::default(), out) }
    })
}

/// Makes a client with `options` and hands it out through `out`.
///
/// # Safety
/// `out` NULL or writable; the strings NULL or NUL-terminated.
pub(crate) unsafe fn new_client(
    base_url: *const c_char,
    app_id: *const c_char,
    app_key: *const c_char,
    options: Options,
    out: *mut *mut verify_client,
) -> Result<i32, Error> {
    // SAFETY: the caller's contract.
    unsafe {
        clear_out(out, "out")?;
        let log = options.log.clone();
        let client = Client::with_options(
            &required_str(base_url, "base_url")?,
            &required_str(app_id, "app_id")?,
            &required_str(app_key, "app_key")?,
            options,
        )?;
        give_handle(
            out,
            verify_client {
                client: Arc::new(client),
                log,
                keepers: Mutex::new(Vec::new()),
            },
        );
    }
    Ok(codes::OK)
}

/// Frees a client: keepers started on it are stopped and their threads joined (within
/// 100 ms, a heartbeat in flight is cancelled; a callback that is running is waited for),
/// its session secret and AppKey are wiped from memory and its connections closed, so the
/// library may be unloaded afterwards. `verify_client_free(NULL)` does nothing. Keeper
/// handles of this client stay valid until freed, and report the state ended.
/// Ownership: takes `client` (from `verify_client_new`); it must not be used afterwards.
/// Thread-safety: no call on `client` may be in progress or start during or after this.
#[no_mangle]
pub extern "system" fn verify_client_free(client: *mut verify_client) {
    // SAFETY: NULL or a pointer from `verify_client_new`, freed once (caller's contract).
    guard((), || unsafe { free_handle(client) })
}

/// Sets the connect timeout and the whole-call timeout, in milliseconds, for calls that
/// start afterwards. Both must be at least 1. Defaults: 10000 and 30000. The call timeout
/// bounds everything one call does (a lazy Init, a re-Init, connects, a resend); each
/// connect gets at most the connect timeout within it.
/// Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread, at any time.
#[no_mangle]
pub extern "system" fn verify_client_set_timeouts(
    client: *const verify_client,
    connect_ms: u32,
    call_ms: u32,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let handle = unsafe { borrow_handle(client)? };
        handle.client.set_timeouts(
            Duration::from_millis(connect_ms.into()),
            Duration::from_millis(call_ms.into()),
        )?;
        Ok(codes::OK)
    })
}

/// Runs the Init handshake now (otherwise it runs on the first action). Returns 200, the
/// server's code (1001, 1010, 1011, 1012, 1013, 1014) or a negative code; `*out` as for
/// every call (an Init reply never holds the session secret). Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_init(
    client: *const verify_client,
    out: *mut *mut verify_reply,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out, "out")? };
        // SAFETY: the caller's contract.
        let handle = unsafe { borrow_handle(client)? };
        let outcome = handle.client.init_exchange();
        // SAFETY: `out` was checked above.
        Ok(unsafe { deliver(out, outcome) })
    })
}

/// Any action with any parameters: `action` required; `keys` and `values` are arrays of
/// `count` strings (each required; values may be empty), NULL when `count` is 0. At most 256
/// parameters. Never sent twice once it may have reached the server. `*out` as for every
/// call. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_call(
    client: *const verify_client,
    action: *const c_char,
    keys: *const *const c_char,
    values: *const *const c_char,
    count: usize,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            if count > MAX_CALL_PARAMS {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    format!("count {count} is more than {MAX_CALL_PARAMS}"),
                ));
            }
            if count > 0 && (keys.is_null() || values.is_null()) {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    "keys or values is NULL while count is not 0",
                ));
            }
            let mut params = Vec::with_capacity(count);
            for index in 0..count {
                // SAFETY: both arrays hold `count` pointers (caller's contract).
                let (key, value) = (*keys.add(index), *values.add(index));
                params.push((
                    required_str(key, "keys[i]")?,
                    required_str(value, "values[i]")?,
                ));
            }
            let params: Vec<(&str, &str)> = params
                .iter()
                .map(|(k, v)| (k.as_ref(), v.as_ref()))
                .collect();
            verify_core::actions::generic_request(&required_str(action, "action")?, &params)
        })
    }
}

/// Social login step 2, repeated every `interval_ms` (at least 1) until the user authorizes
/// (200 with the login reply), the server refuses (its code with its reply, e.g. 1016),
/// `timeout_ms` passes (`VERIFY_ERR_TIMEOUT`, no reply) or `cancel` (optional) is cancelled
/// from another thread (`VERIFY_ERR_CANCELLED`, no reply, within milliseconds). `state` is
/// required, `mac` optional. Blocks the calling thread. `*out` as for every call.
/// Thread-safety: any thread.
/// cbindgen:optional=[mac, cancel]
#[no_mangle]
pub extern "system" fn verify_social_login_wait(
    client: *const verify_client,
    state: *const c_char,
    mac: *const c_char,
    interval_ms: u32,
    timeout_ms: u32,
    cancel: *const verify_cancel,
    out: *mut *mut verify_reply,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (handle, state, mac, token) = unsafe {
            clear_out(out, "out")?;
            (
                borrow_handle(client)?,
                required_str(state, "state")?,
                optional_str(mac, "mac")?,
                cancel.as_ref().map(|c| c.token.clone()),
            )
        };
        // Without a token of its own, the wait is cancelled by the one attached to the thread.
        let token = token
            .or_else(CancelToken::watching_this_thread)
            .unwrap_or_default();
        let outcome = handle.client.social_login_wait_reply(
            &state,
            mac.as_deref(),
            Duration::from_millis(interval_ms.into()),
            Duration::from_millis(timeout_ms.into()),
            &token,
        );
        // SAFETY: `out` was checked above.
        Ok(unsafe { deliver(out, outcome) })
    })
}

#[cfg(test)]
mod tests {
    use std::ffi::{c_void, CStr};
    use std::ptr;

    use super::*;
    use crate::options::{
        verify_client_new_with_options, verify_client_options_free, verify_client_options_new,
        verify_client_options_set_log,
    };

    static HEARD: Mutex<Vec<String>> = Mutex::new(Vec::new());

    unsafe extern "system" fn hear(_user_data: *mut c_void, _level: i32, message: *const c_char) {
        // SAFETY: the library passes a NUL-terminated message valid for the call.
        let text = unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned();
        HEARD
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(text);
    }

    #[test]
    fn a_panic_in_a_call_is_its_code_its_last_error_and_a_log_line() {
        let mut options = ptr::null_mut();
        assert_eq!(verify_client_options_new(&mut options), codes::OK);
        assert_eq!(
            verify_client_options_set_log(options, Some(hear), ptr::null_mut()),
            codes::OK
        );
        let mut client = ptr::null_mut();
        let code = verify_client_new_with_options(
            c"http://127.0.0.1:9".as_ptr(),
            c"app".as_ptr(),
            c"key".as_ptr(),
            options,
            &mut client,
        );
        verify_client_options_free(options);
        assert_eq!(code, codes::OK);
        let mut out = ptr::null_mut();
        // SAFETY: a live client of this test and a writable out-pointer.
        let code = unsafe {
            answer(client, &mut out, || -> Result<ActionRequest, Error> {
                panic!("boom in a call")
            })
        };
        assert_eq!(code, codes::ERR_PANIC);
        assert!(out.is_null());
        // SAFETY: the thread's last-error string, valid until its next failing call.
        let last = unsafe { CStr::from_ptr(crate::guard::last_error_message()) };
        let last = last.to_string_lossy();
        assert!(
            last.contains("boom in a call") && last.contains("src/client.rs:"),
            "{last}"
        );
        let heard = HEARD.lock().unwrap_or_else(PoisonError::into_inner);
        assert!(
            heard.iter().any(|line| *line == *last),
            "the log heard {heard:?}"
        );
        verify_client_free(client);
    }
}
