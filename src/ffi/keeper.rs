//! The session keeper, cancellation, the social wait and the machine code, for C hosts.

use std::ffi::{c_char, c_void, CString};
use std::ptr;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::json;

use super::client::{borrow_handle, deliver, verify_client};
use super::guard::{clear_out, guard, guard_code, optional_str, required_str};
use super::reply::{give, verify_reply};
use crate::actions::SessionKind;
use crate::cancel::CancelToken;
use crate::error::{Error, ErrorKind, CODE_OK};
use crate::keeper::{Event, EventKind, Keeper, KeeperOptions, KeeperState};
use crate::reply::Reply;

/// `kind` of a `verify_event`: a heartbeat succeeded; `expire_at` is the new expiry.
pub const VERIFY_EVENT_ALIVE: i32 = 1;
/// `kind` of a `verify_event`: a back-office message, in `text`, delivered once.
pub const VERIFY_EVENT_MESSAGE: i32 = 2;
/// `kind` of a `verify_event`: a heartbeat failed; the keeper retries within the grace
/// period and the session stays usable.
pub const VERIFY_EVENT_TROUBLE: i32 = 3;
/// `kind` of a `verify_event`: the session ended (1005, 1006 with `remark`, 1007, or the
/// grace period ran out); the keeper has stopped.
pub const VERIFY_EVENT_ENDED: i32 = 4;

/// `verify_keeper_state`: the last heartbeat succeeded (or none was due yet).
pub const VERIFY_KEEPER_ALIVE: i32 = 1;
/// `verify_keeper_state`: heartbeats fail; the grace period runs.
pub const VERIFY_KEEPER_GRACE: i32 = 2;
/// `verify_keeper_state`: the session ended or the keeper was stopped.
pub const VERIFY_KEEPER_ENDED: i32 = 3;

/// Length of a machine code from `verify_machine_code`, without the terminating NUL.
pub const VERIFY_MACHINE_CODE_LEN: usize = 32;

/// One report of a keeper, passed to its callback. Every string is borrowed: valid only
/// during the callback (copy what you keep); NULL where noted.
#[repr(C)]
pub struct verify_event {
    /// `VERIFY_EVENT_ALIVE`, `_MESSAGE`, `_TROUBLE` or `_ENDED`.
    pub kind: i32,
    /// The heartbeat's code: 200, the server's refusal, or a negative local code.
    pub code: i32,
    /// The server's message or the local failure's explanation (may be empty; never NULL).
    pub message: *const c_char,
    /// `remark` of a refusal (the reason of a 1006), or NULL.
    pub remark: *const c_char,
    /// The session's expiry on `VERIFY_EVENT_ALIVE`, else NULL.
    pub expire_at: *const c_char,
    /// The back-office message on `VERIFY_EVENT_MESSAGE`, else NULL.
    pub text: *const c_char,
}

/// A keeper's event callback: `user_data` as given to `verify_keeper_start`, and the event
/// (borrowed for the call). It runs on the keeper's event thread, never on the thread that
/// started the keeper, and must not unwind (no C++ exception, no longjmp out of it).
#[allow(non_camel_case_types)]
pub type verify_event_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, event: *const verify_event)>;

/// A running session keeper. Opaque; created by `verify_keeper_start`, freed by
/// `verify_keeper_free`.
#[allow(non_camel_case_types)]
pub struct verify_keeper {
    keeper: Arc<Keeper>,
}

/// A cancellation token for `verify_social_login_wait`. Opaque; created by
/// `verify_cancel_new`, freed by `verify_cancel_free`.
#[allow(non_camel_case_types)]
pub struct verify_cancel {
    token: CancelToken,
}

/// The host's `user_data`, moved to the event thread. The host promises, by passing it to
/// `verify_keeper_start`, that it may be used from that thread.
struct UserData(*mut c_void);

// SAFETY: see the type's comment: the host's contract of `verify_keeper_start`.
unsafe impl Send for UserData {}

fn c_text(text: &str) -> CString {
    CString::new(text.replace('\0', " ")).unwrap_or_default()
}

/// Calls the host's callback with a C view of `event`.
fn call_host(
    callback: unsafe extern "C" fn(*mut c_void, *const verify_event),
    user_data: &UserData,
    event: &Event,
) {
    let message = c_text(&event.message);
    let remark = event.remark.as_deref().map(c_text);
    let expire_at = event.expire_at.as_deref().map(c_text);
    let text = event.text.as_deref().map(c_text);
    let as_ptr = |s: &Option<CString>| s.as_ref().map_or(ptr::null(), |s| s.as_ptr());
    let view = verify_event {
        kind: match event.kind {
            EventKind::Alive => VERIFY_EVENT_ALIVE,
            EventKind::Message => VERIFY_EVENT_MESSAGE,
            EventKind::Trouble => VERIFY_EVENT_TROUBLE,
            EventKind::Ended => VERIFY_EVENT_ENDED,
        },
        code: event.code,
        message: message.as_ptr(),
        remark: as_ptr(&remark),
        expire_at: as_ptr(&expire_at),
        text: as_ptr(&text),
    };
    // SAFETY: the host's function, called as documented; the strings outlive the call.
    unsafe { callback(user_data.0, &view) };
}

fn session_kind(kind: i32) -> Result<SessionKind, Error> {
    match kind {
        super::codes::VERIFY_SESSION_CARD => Ok(SessionKind::Card),
        super::codes::VERIFY_SESSION_USER => Ok(SessionKind::User),
        other => Err(Error::local(
            ErrorKind::InvalidArgument,
            format!("kind {other} is neither VERIFY_SESSION_CARD nor VERIFY_SESSION_USER"),
        )),
    }
}

/// Starts keeping a session alive in the background: `token` from `verify_single_login`
/// (`kind` `VERIFY_SESSION_CARD`) or `verify_user_login` (`VERIFY_SESSION_USER`).
///
/// - `interval_ms`: time between heartbeats, at least 1000; 0 for the default, 300000 (the
///   spec's 5 minutes). A small random jitter is added. The first heartbeat is one interval
///   after the start.
/// - `grace_ms`: how long the session stays usable while heartbeats fail for other reasons
///   than its end (network down), counted from the first failure; 0 for the default, 15
///   minutes. Retries back off 1 s, 2 s, 4 s... up to 60 s or the interval.
/// - `ip`: optional client IP reported with each heartbeat.
/// - `callback` (optional) receives every event with `user_data`, on the keeper's event
///   thread; a slow callback delays only later events. Without a callback, back-office
///   messages are queued for `verify_keeper_status`.
///
/// On success `*out` is a new keeper the caller owns and frees with `verify_keeper_free`.
/// Returns 200 or a negative code. Thread-safety: any thread.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn verify_keeper_start(
    client: *mut verify_client,
    token: *const c_char,
    kind: i32,
    ip: *const c_char,
    interval_ms: u32,
    grace_ms: u32,
    callback: verify_event_callback,
    user_data: *mut c_void,
    out: *mut *mut verify_keeper,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (handle, token, ip) = unsafe {
            clear_out(out, "out")?;
            (
                borrow_handle(client)?,
                required_str(token, "token")?,
                optional_str(ip, "ip")?,
            )
        };
        let defaults = KeeperOptions::default();
        let options = KeeperOptions {
            interval: match interval_ms {
                0 => defaults.interval,
                ms => Duration::from_millis(ms.into()),
            },
            grace: match grace_ms {
                0 => defaults.grace,
                ms => Duration::from_millis(ms.into()),
            },
            ip: ip.map(str::to_owned),
        };
        let on_event = callback.map(|callback| {
            let user_data = UserData(user_data);
            Box::new(move |event: &Event| call_host(callback, &user_data, event))
                as crate::keeper::EventCallback
        });
        let keeper = Arc::new(Keeper::start(
            Arc::clone(&handle.client),
            token,
            session_kind(kind)?,
            options,
            on_event,
        )?);
        {
            let mut keepers = handle
                .keepers
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            keepers.retain(|weak| weak.strong_count() > 0);
            keepers.push(Arc::downgrade(&keeper));
        }
        // SAFETY: `out` was checked above.
        unsafe { *out = Box::into_raw(Box::new(verify_keeper { keeper })) };
        Ok(CODE_OK)
    })
}

/// Borrows a keeper argument.
///
/// # Safety
/// `keeper` is NULL or a live pointer from `verify_keeper_start`.
unsafe fn borrow_keeper<'a>(keeper: *const verify_keeper) -> Result<&'a Keeper, Error> {
    // SAFETY: as documented above.
    unsafe { keeper.as_ref() }
        .map(|k| &*k.keeper)
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "keeper is NULL"))
}

/// Stops a keeper: wakes it, cancels a heartbeat in flight, and joins its threads before
/// returning (within 100 ms, unless a callback is running: it is waited for). Idempotent.
/// Called from the keeper's own callback, it returns at once and the event thread ends after
/// the callback. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_keeper_stop(keeper: *mut verify_keeper) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { borrow_keeper(keeper)? }.stop();
        Ok(CODE_OK)
    })
}

/// Stops (as `verify_keeper_stop`) and frees a keeper. `verify_keeper_free(NULL)` does
/// nothing. Thread-safety: no other call on `keeper` may be in progress or start; must not be
/// called from the keeper's own callback.
#[no_mangle]
pub extern "C" fn verify_keeper_free(keeper: *mut verify_keeper) {
    guard((), || {
        if !keeper.is_null() {
            // SAFETY: a pointer from `verify_keeper_start`, freed once (caller's contract).
            let keeper = unsafe { Box::from_raw(keeper) };
            keeper.keeper.stop();
        }
    })
}

/// The keeper's state: `VERIFY_KEEPER_ALIVE`, `VERIFY_KEEPER_GRACE` or
/// `VERIFY_KEEPER_ENDED`; `VERIFY_ERR_INVALID_ARGUMENT` when `keeper` is NULL.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_keeper_state(keeper: *const verify_keeper) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        Ok(match unsafe { borrow_keeper(keeper)? }.status().state {
            KeeperState::Alive => VERIFY_KEEPER_ALIVE,
            KeeperState::Grace => VERIFY_KEEPER_GRACE,
            KeeperState::Ended => VERIFY_KEEPER_ENDED,
        })
    })
}

/// A snapshot of the keeper for hosts that poll, as a reply (code 200) read with the
/// `verify_reply_*` accessors: `state` (`"alive"`, `"grace"`, `"ended"`), `last_code` (0
/// before the first heartbeat), `last_message`, `remark` (of the last refusal, absent when
/// none), `last_success` (Unix seconds of the last successful heartbeat, 0 when none),
/// `expire_at` (absent before the first success), and `messages`: the back-office messages
/// received since the previous snapshot (`message_count`, then `messages.0`, `messages.1`...),
/// each returned once (only without a callback). The caller owns `*out` and frees it with
/// `verify_reply_free`. Returns 200 or a negative code. Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_keeper_status(
    keeper: *const verify_keeper,
    out: *mut *mut verify_reply,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let keeper = unsafe {
            clear_out(out, "out")?;
            borrow_keeper(keeper)?
        };
        let status = keeper.status();
        let messages = keeper.take_messages();
        let last_success = status
            .last_success
            .and_then(|at| at.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |since| since.as_secs());
        let state = match status.state {
            KeeperState::Alive => "alive",
            KeeperState::Grace => "grace",
            KeeperState::Ended => "ended",
        };
        let mut data = json!({
            "state": state,
            "last_code": status.last_code,
            "last_message": status.last_message,
            "last_success": last_success,
            "message_count": messages.len(),
            "messages": messages,
        });
        if let Some(remark) = status.remark {
            data["remark"] = json!(remark);
        }
        if let Some(expire_at) = status.expire_at {
            data["expire_at"] = json!(expire_at);
        }
        let body = json!({"code": CODE_OK, "message": "", "data": data}).to_string();
        let reply = Reply::from_body(body.as_bytes())?;
        // SAFETY: `out` was checked above.
        unsafe { give(out, reply) };
        Ok(CODE_OK)
    })
}

/// Creates a cancellation token for `verify_social_login_wait`. The caller owns `*out` and
/// frees it with `verify_cancel_free`. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn verify_cancel_new(out: *mut *mut verify_cancel) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe {
            clear_out(out, "out")?;
            *out = Box::into_raw(Box::new(verify_cancel {
                token: CancelToken::new(),
            }));
        }
        Ok(CODE_OK)
    })
}

/// Cancels: a `verify_social_login_wait` using this token returns `VERIFY_ERR_CANCELLED`
/// within milliseconds (a poll in flight is interrupted), and later waits with it return at
/// once. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread, while the
/// token is not being freed.
#[no_mangle]
pub extern "C" fn verify_cancel_cancel(cancel: *mut verify_cancel) -> i32 {
    guard_code(|| {
        // SAFETY: NULL or a live token (the caller's contract).
        let cancel = unsafe { cancel.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "cancel is NULL"))?;
        cancel.token.cancel();
        Ok(CODE_OK)
    })
}

/// Frees a cancellation token. `verify_cancel_free(NULL)` does nothing. No wait may still
/// be using it.
#[no_mangle]
pub extern "C" fn verify_cancel_free(cancel: *mut verify_cancel) {
    guard((), || {
        if !cancel.is_null() {
            // SAFETY: a pointer from `verify_cancel_new`, freed once (caller's contract).
            drop(unsafe { Box::from_raw(cancel) });
        }
    })
}

/// Social login step 2, repeated every `interval_ms` (at least 1) until the user authorizes
/// (200 with the login reply), the server refuses (its code with its reply, e.g. 1016),
/// `timeout_ms` passes (`VERIFY_ERR_TIMEOUT`, no reply) or `cancel` (optional) is cancelled
/// from another thread (`VERIFY_ERR_CANCELLED`, no reply, within milliseconds). `state` is
/// required, `mac` optional. Blocks the calling thread. Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_social_login_wait(
    client: *mut verify_client,
    state: *const c_char,
    mac: *const c_char,
    interval_ms: u32,
    timeout_ms: u32,
    cancel: *const verify_cancel,
    out: *mut *mut verify_reply,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (client, state, mac, token) = unsafe {
            clear_out(out, "out")?;
            (
                &*borrow_handle(client)?.client,
                required_str(state, "state")?,
                optional_str(mac, "mac")?,
                cancel.as_ref().map(|c| c.token.clone()),
            )
        };
        let token = token.unwrap_or_default();
        let outcome = client.social_login_wait_reply(
            state,
            mac,
            Duration::from_millis(interval_ms.into()),
            Duration::from_millis(timeout_ms.into()),
            &token,
        );
        let check = |reply: &Reply| {
            crate::actions::request::social_login_poll(state, mac)
                .map_err(|e| e.to_string())
                .and_then(|call| call.check(reply))
        };
        // SAFETY: `out` was checked above.
        unsafe { deliver(out, outcome, check) }
    })
}

/// Writes the machine code of this machine for `salt` (one salt per program, such as its
/// AppId; may be empty) into `out`: 32 uppercase hex characters and a NUL, so `out_len` must
/// be at least 33. The code is a salted hash of the OS machine identity (`/etc/machine-id`,
/// Windows `MachineGuid`, macOS hardware UUID), the same on every call and in every process;
/// where the OS gives none, a random identity is created once in the user's configuration
/// folder (`verify/machine-id` under `$XDG_CONFIG_HOME` or `~/.config`, `%APPDATA%`,
/// `~/Library/Application Support`). No process is spawned. Returns 200 or a negative code.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_machine_code(
    salt: *const c_char,
    out: *mut c_char,
    out_len: usize,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        // SAFETY: the caller's contract. An empty salt is allowed.
        let salt = unsafe { required_str(salt, "salt")? };
        if out.is_null() || out_len <= VERIFY_MACHINE_CODE_LEN {
            return Err(Error::local(
                ErrorKind::InvalidArgument,
                format!("out must hold {} bytes", VERIFY_MACHINE_CODE_LEN + 1),
            ));
        }
        let code = crate::machine::machine_code(salt)?;
        let bytes = code.as_bytes();
        // SAFETY: `out` is writable for `out_len` > 32 bytes (the caller's contract) and the
        // code is 32 bytes.
        unsafe {
            ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, bytes.len());
            *out.add(bytes.len()) = 0;
        }
        Ok(CODE_OK)
    })
}
