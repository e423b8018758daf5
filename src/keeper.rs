//! The session keeper for C hosts: its options (setters on an options handle), the keeper
//! handle, its events (a callback) and a typed status snapshot for hosts that poll.

use std::borrow::Cow;
use std::ffi::{c_char, c_void, CString};
use std::ptr;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use verify_core::error::quoted;
use verify_core::{codes, Error, ErrorKind, Event, EventKind, Keeper, KeeperOptions, KeeperState};

use crate::client::{borrow_handle, session_kind, verify_client};
use crate::generated::enums::{
    VERIFY_EVENT_ALIVE, VERIFY_EVENT_ENDED, VERIFY_EVENT_MESSAGE, VERIFY_EVENT_OFFLINE,
    VERIFY_EVENT_ONLINE, VERIFY_EVENT_TROUBLE, VERIFY_KEEPER_ALIVE, VERIFY_KEEPER_ENDED,
    VERIFY_KEEPER_GRACE,
};
use crate::guard::{
    clear_out, free_handle, give_handle, guard, guard_code, optional_str, required_str, write_out,
};
use crate::reply::{borrow_reply, verify_reply};

/// One report of a keeper, passed to its callback. Every string is borrowed: valid only
/// during the callback (copy what you keep); NULL where noted. Hosts must accept `kind`
/// values added in later versions.
#[repr(C)]
pub struct verify_event {
    /// `VERIFY_EVENT_ALIVE`, `_MESSAGE`, `_TROUBLE`, `_ENDED`, `_OFFLINE` or `_ONLINE`.
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
    /// When the grace period ends (Unix seconds) on `VERIFY_EVENT_OFFLINE` and on
    /// `VERIFY_EVENT_TROUBLE` and `VERIFY_EVENT_ENDED` while offline, else 0. (Added after
    /// the first fields: a host built with an older header reads those alone.)
    pub grace_end: i64,
}

/// A keeper's event callback: `user_data` as given to `verify_keeper_options_set_callback`,
/// and the event (borrowed for the call). It runs on the keeper's event thread, never on the
/// thread that started the keeper, and must not unwind (no C++ exception, no longjmp out of
/// it).
#[allow(non_camel_case_types)]
pub type verify_event_callback =
    Option<unsafe extern "system" fn(user_data: *mut c_void, event: *const verify_event)>;

/// Settings of a keeper, given to `verify_keeper_start`. Opaque; created by
/// `verify_keeper_options_new` with the defaults, changed by its setters, freed by
/// `verify_keeper_options_free`. It may be freed once the keeper started (the keeper keeps
/// a copy) and reused for other keepers. Not thread-safe: one thread at a time.
#[allow(non_camel_case_types)]
pub struct verify_keeper_options {
    options: KeeperOptions,
    callback: verify_event_callback,
    user_data: *mut c_void,
}

/// A running session keeper. Opaque; created by `verify_keeper_start`, freed by
/// `verify_keeper_free`. Thread-safe.
#[allow(non_camel_case_types)]
pub struct verify_keeper {
    keeper: Arc<Keeper>,
}

/// A snapshot of a keeper's status, read with the `verify_keeper_status_*` accessors.
/// Opaque; created by `verify_keeper_get_status`, freed by `verify_keeper_status_free`.
/// Immutable: any number of threads may read it at once.
#[allow(non_camel_case_types)]
pub struct verify_keeper_status {
    state: i32,
    last_code: i32,
    last_message: CString,
    remark: Option<CString>,
    expire_at: Option<CString>,
    last_success: Option<i64>,
    last_confirmed: Option<i64>,
    grace_end: Option<i64>,
    beats_ok: u64,
    beats_failed: u64,
    messages: Vec<CString>,
}

/// Unix seconds of a time after 1970.
fn unix_seconds(time: SystemTime) -> Option<i64> {
    time.duration_since(UNIX_EPOCH)
        .ok()
        .map(|since| i64::try_from(since.as_secs()).unwrap_or(i64::MAX))
}

/// The host's `user_data`, moved to the event thread. The host promises, by passing it to
/// `verify_keeper_options_set_callback`, that it may be used from that thread.
struct UserData(*mut c_void);

// SAFETY: see the type's comment: the host's contract of the callback setter.
unsafe impl Send for UserData {}

fn c_text(text: &str) -> CString {
    crate::codepage::encode(text)
}

fn state_code(state: KeeperState) -> i32 {
    match state {
        KeeperState::Alive => VERIFY_KEEPER_ALIVE,
        KeeperState::Grace => VERIFY_KEEPER_GRACE,
        _ => VERIFY_KEEPER_ENDED,
    }
}

/// Calls the host's callback with a C view of `event`.
fn call_host(
    callback: unsafe extern "system" fn(*mut c_void, *const verify_event),
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
            EventKind::Offline => VERIFY_EVENT_OFFLINE,
            EventKind::Online => VERIFY_EVENT_ONLINE,
            _ => VERIFY_EVENT_ENDED,
        },
        code: event.code,
        message: message.as_ptr(),
        remark: as_ptr(&remark),
        expire_at: as_ptr(&expire_at),
        text: as_ptr(&text),
        grace_end: event.grace_end.and_then(unix_seconds).unwrap_or(0),
    };
    // SAFETY: the host's function, called as documented; the strings outlive the call.
    unsafe { callback(user_data.0, &view) };
}

/// Borrows an options argument mutably.
///
/// # Safety
/// `options` is NULL or a live pointer from `verify_keeper_options_new`, not used by another
/// thread during the call.
unsafe fn options_mut<'a>(
    options: *mut verify_keeper_options,
) -> Result<&'a mut verify_keeper_options, Error> {
    // SAFETY: as documented above.
    unsafe { options.as_mut() }
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "options is NULL"))
}

/// Creates keeper options with the defaults: a heartbeat every 300 s (the service's 5
/// minutes), a grace period of 15 minutes, no IP, no callback.
/// Ownership: the caller owns `*out` and frees it with `verify_keeper_options_free`.
/// Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_keeper_options_new(out: *mut *mut verify_keeper_options) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe {
            clear_out(out, "out")?;
            give_handle(
                out,
                verify_keeper_options {
                    options: KeeperOptions::default(),
                    callback: None,
                    user_data: ptr::null_mut(),
                },
            );
        }
        Ok(codes::OK)
    })
}

/// Frees keeper options. `verify_keeper_options_free(NULL)` does nothing. Keepers started
/// with them are not affected. Ownership: takes `options`.
#[no_mangle]
pub extern "system" fn verify_keeper_options_free(options: *mut verify_keeper_options) {
    // SAFETY: NULL or a pointer from `verify_keeper_options_new`, freed once.
    guard((), || unsafe { free_handle(options) })
}

/// Sets the time between heartbeats, in milliseconds: at least 1000 (default 300000). A
/// small random jitter is added; the first heartbeat of `verify_keeper_start` is sent at once (a token the server does not know ends the keeper at once with 1007), that of `verify_keeper_start_from_reply` one interval after the start.
/// Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: one thread at a time.
#[no_mangle]
pub extern "system" fn verify_keeper_options_set_interval(
    options: *mut verify_keeper_options,
    interval_ms: u32,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let options = unsafe { options_mut(options)? };
        if interval_ms < 1000 {
            return Err(Error::local(
                ErrorKind::InvalidArgument,
                format!("interval_ms {interval_ms} is less than 1000"),
            ));
        }
        options.options.interval = Duration::from_millis(interval_ms.into());
        Ok(codes::OK)
    })
}

/// Sets the grace period, in milliseconds (at least 1; default 900000, 15 minutes): how
/// long the session stays usable while heartbeats fail for other reasons than its end
/// (network down), counted from the first failure. Retries back off 1 s, 2 s, 4 s... up to
/// 60 s or the interval. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`.
/// Thread-safety: one thread at a time.
#[no_mangle]
pub extern "system" fn verify_keeper_options_set_grace(
    options: *mut verify_keeper_options,
    grace_ms: u32,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let options = unsafe { options_mut(options)? };
        if grace_ms == 0 {
            return Err(Error::local(
                ErrorKind::InvalidArgument,
                "grace_ms must be at least 1",
            ));
        }
        options.options.grace = Duration::from_millis(grace_ms.into());
        Ok(codes::OK)
    })
}

/// Sets the client IP reported with each heartbeat (`IP`): an IPv4 or IPv6 address; NULL or
/// empty: none (the default). Copied. Returns 200, `VERIFY_ERR_INVALID_ARGUMENT` (not an IP
/// address) or `VERIFY_ERR_INVALID_UTF8`.
/// Thread-safety: one thread at a time.
/// cbindgen:optional=[ip]
#[no_mangle]
pub extern "system" fn verify_keeper_options_set_ip(
    options: *mut verify_keeper_options,
    ip: *const c_char,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let (options, ip) = unsafe { (options_mut(options)?, optional_str(ip, "ip")?) };
        let ip = ip.filter(|ip| !ip.is_empty());
        if let Some(ip) = &ip {
            if ip.parse::<std::net::IpAddr>().is_err() {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    format!("ip {} is not an IPv4 or IPv6 address", quoted(ip)),
                ));
            }
        }
        options.options.ip = ip.map(Cow::into_owned);
        Ok(codes::OK)
    })
}

/// Sets the event callback and its `user_data` (NULL callback: none, the default). The
/// callback receives every event on the keeper's event thread; a slow callback delays only
/// later events. Without a callback, back-office messages are queued for
/// `verify_keeper_get_status`. `user_data` is passed as it is; the host keeps what it points to
/// alive until the keeper is freed, and allows its use from the event thread.
/// Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: one thread at a time.
/// cbindgen:optional=[callback, user_data]
#[no_mangle]
pub extern "system" fn verify_keeper_options_set_callback(
    options: *mut verify_keeper_options,
    callback: verify_event_callback,
    user_data: *mut c_void,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let options = unsafe { options_mut(options)? };
        options.callback = callback;
        options.user_data = user_data;
        Ok(codes::OK)
    })
}

/// The keeper settings and callback of an options argument (NULL: the defaults).
fn keeper_settings(
    options: Option<&verify_keeper_options>,
) -> (KeeperOptions, Option<verify_core::keeper::EventCallback>) {
    match options {
        Some(options) => (
            options.options.clone(),
            options.callback.map(|callback| {
                let user_data = UserData(options.user_data);
                Box::new(move |event: &Event| call_host(callback, &user_data, event))
                    as verify_core::keeper::EventCallback
            }),
        ),
        None => (KeeperOptions::default(), None),
    }
}

/// Hands a started keeper to the caller and registers it with its client (which stops it
/// when freed).
///
/// # Safety
/// `out` was checked by `clear_out`.
unsafe fn give_keeper(handle: &verify_client, keeper: Keeper, out: *mut *mut verify_keeper) {
    let keeper = Arc::new(keeper);
    {
        let mut keepers = handle
            .keepers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        keepers.retain(|weak| weak.strong_count() > 0);
        keepers.push(Arc::downgrade(&keeper));
    }
    // SAFETY: forwarded from the caller.
    unsafe { give_handle(out, verify_keeper { keeper }) };
}

/// Starts keeping a session alive in the background: `token` from `verify_single_login`
/// (`kind` `VERIFY_SESSION_CARD`) or `verify_user_login` (`VERIFY_SESSION_USER`), with
/// `options` (NULL: the defaults; copied, so they may be freed afterwards).
/// Ownership: on success `*out` is a new keeper the caller owns and frees with
/// `verify_keeper_free`. Returns 200, `VERIFY_ERR_INVALID_ARGUMENT`,
/// `VERIFY_ERR_INVALID_UTF8`, or `VERIFY_ERR_SYSTEM` when a thread cannot start.
/// Thread-safety: any thread.
/// cbindgen:optional=[options]
#[no_mangle]
pub extern "system" fn verify_keeper_start(
    client: *const verify_client,
    token: *const c_char,
    kind: i32,
    options: *const verify_keeper_options,
    out: *mut *mut verify_keeper,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (handle, token, options) = unsafe {
            clear_out(out, "out")?;
            (
                borrow_handle(client)?,
                required_str(token, "token")?,
                options.as_ref(),
            )
        };
        let (keeper_options, on_event) = keeper_settings(options);
        let keeper = Keeper::start(
            Arc::clone(&handle.client),
            &token,
            session_kind(kind)?,
            keeper_options,
            on_event,
        )?;
        // SAFETY: `out` was checked above.
        unsafe { give_keeper(handle, keeper, out) };
        Ok(codes::OK)
    })
}

/// Starts keeping the session of a login's reply: the reply of `verify_single_login` or
/// `verify_user_login` (or of a social login), the server's own (code 200: its token and
/// session kind are used, as `verify_keeper_start` would) or an offline verdict (code
/// `VERIFY_OFFLINE`). From an offline verdict the keeper reports `VERIFY_EVENT_OFFLINE`,
/// waits for the login still going on after a start budget or sends the login again (with
/// backoff; keepers started from one offline verdict share that login, sent once), and
/// reports `VERIFY_EVENT_ONLINE` once the server takes it (heartbeats follow),
/// or `VERIFY_EVENT_ENDED` with the server's code and remark when it refuses (the stored
/// verdict is cleared), or with `VERIFY_ERR_GRACE_OVER` when the offline grace runs out
/// first. `options` as for `verify_keeper_start`. The reply is only read: the caller still
/// owns and frees it. Ownership: on success `*out` is a new keeper the caller frees with
/// `verify_keeper_free`. Returns 200, `VERIFY_ERR_INVALID_ARGUMENT` (NULL, or a reply that
/// is neither a successful login with a token nor an offline verdict), or
/// `VERIFY_ERR_SYSTEM`. Thread-safety: any thread.
/// cbindgen:optional=[options]
#[no_mangle]
pub extern "system" fn verify_keeper_start_from_reply(
    client: *const verify_client,
    reply: *const verify_reply,
    options: *const verify_keeper_options,
    out: *mut *mut verify_keeper,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract on every pointer.
        let (handle, reply, options) = unsafe {
            clear_out(out, "out")?;
            (
                borrow_handle(client)?,
                borrow_reply(reply)?,
                options.as_ref(),
            )
        };
        let (keeper_options, on_event) = keeper_settings(options);
        let keeper =
            Keeper::start_from(Arc::clone(&handle.client), reply, keeper_options, on_event)?;
        // SAFETY: `out` was checked above.
        unsafe { give_keeper(handle, keeper, out) };
        Ok(codes::OK)
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
pub extern "system" fn verify_keeper_stop(keeper: *const verify_keeper) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { borrow_keeper(keeper)? }.stop();
        Ok(codes::OK)
    })
}

/// Stops (as `verify_keeper_stop`) and frees a keeper. `verify_keeper_free(NULL)` does
/// nothing. Ownership: takes `keeper`. Thread-safety: no other call on `keeper` may be in
/// progress or start; must not be called from the keeper's own callback.
#[no_mangle]
pub extern "system" fn verify_keeper_free(keeper: *mut verify_keeper) {
    guard((), || {
        if !keeper.is_null() {
            // SAFETY: a pointer from `verify_keeper_start`, freed once (caller's contract).
            let keeper = unsafe { Box::from_raw(keeper) };
            keeper.keeper.stop();
        }
    })
}

/// The keeper's state: `VERIFY_KEEPER_ALIVE`, `VERIFY_KEEPER_GRACE` or `VERIFY_KEEPER_ENDED`
/// (later versions may add states); `VERIFY_ERR_INVALID_ARGUMENT` when `keeper` is NULL.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_keeper_state(keeper: *const verify_keeper) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        Ok(state_code(unsafe { borrow_keeper(keeper)? }.status().state))
    })
}

/// A snapshot of the keeper for hosts that poll, read with the `verify_keeper_status_*`
/// accessors. It takes the back-office messages received since the previous snapshot (each
/// is handed out once; only without a callback).
/// Ownership: the caller owns `*out` and frees it with `verify_keeper_status_free`.
/// Returns 200 or a negative code. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_keeper_get_status(
    keeper: *const verify_keeper,
    out: *mut *mut verify_keeper_status,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let keeper = unsafe {
            clear_out(out, "out")?;
            borrow_keeper(keeper)?
        };
        let status = keeper.status();
        let snapshot = verify_keeper_status {
            state: state_code(status.state),
            last_code: status.last_code,
            last_message: c_text(&status.last_message),
            remark: status.remark.as_deref().map(c_text),
            expire_at: status.expire_at.as_deref().map(c_text),
            last_success: status.last_success.and_then(unix_seconds),
            last_confirmed: status.last_confirmed.and_then(unix_seconds),
            grace_end: status.grace_end.and_then(unix_seconds),
            beats_ok: status.beats_ok,
            beats_failed: status.beats_failed,
            messages: keeper.take_messages().iter().map(|m| c_text(m)).collect(),
        };
        // SAFETY: `out` was checked above.
        unsafe { give_handle(out, snapshot) };
        Ok(codes::OK)
    })
}

/// Frees a status snapshot and its strings. `verify_keeper_status_free(NULL)` does nothing.
/// Ownership: takes `status`.
#[no_mangle]
pub extern "system" fn verify_keeper_status_free(status: *mut verify_keeper_status) {
    // SAFETY: NULL or a pointer from `verify_keeper_get_status`, freed once.
    guard((), || unsafe { free_handle(status) })
}

/// Reads one value of a snapshot through `out`: 0, `VERIFY_ERR_NO_SUCH_FIELD` when
/// `read` has none (last error untouched), `VERIFY_ERR_INVALID_ARGUMENT` for NULL.
///
/// # Safety
/// `status` NULL or live; `out` NULL or writable.
unsafe fn status_value<T>(
    status: *const verify_keeper_status,
    out: *mut T,
    read: impl FnOnce(&verify_keeper_status) -> Option<T>,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let status = unsafe { status.as_ref() }
            .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "status is NULL"))?;
        if out.is_null() {
            return Err(Error::local(ErrorKind::InvalidArgument, "out is NULL"));
        }
        match read(status) {
            Some(value) => {
                // SAFETY: checked non-NULL; writable by the caller's contract.
                unsafe { write_out(out, "out", value)? };
                Ok(0)
            }
            None => Ok(codes::ERR_NO_SUCH_FIELD),
        }
    })
}

/// The state (`VERIFY_KEEPER_*`) into `*out`; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
/// Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_keeper_status_state(
    status: *const verify_keeper_status,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| Some(s.state)) }
}

/// The code of the last heartbeat into `*out` (0 before the first, 200, a refusal, or a
/// negative local code); returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_keeper_status_last_code(
    status: *const verify_keeper_status,
    out: *mut i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| Some(s.last_code)) }
}

/// The message of the last heartbeat (empty after a success) into `*out`; returns 0.
/// Ownership: borrowed, valid until `status` is freed.
#[no_mangle]
pub extern "system" fn verify_keeper_status_last_message(
    status: *const verify_keeper_status,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| Some(s.last_message.as_ptr())) }
}

/// The remark of the last refusal (the reason of a 1006) into `*out`; returns 0, or
/// `VERIFY_ERR_NO_SUCH_FIELD` when there is none. Ownership: borrowed, valid until `status`
/// is freed.
#[no_mangle]
pub extern "system" fn verify_keeper_status_remark(
    status: *const verify_keeper_status,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| s.remark.as_ref().map(|r| r.as_ptr())) }
}

/// The session's expiry from the last successful heartbeat into `*out`; returns 0, or
/// `VERIFY_ERR_NO_SUCH_FIELD` before the first success. Ownership: borrowed, valid until
/// `status` is freed.
#[no_mangle]
pub extern "system" fn verify_keeper_status_expire_at(
    status: *const verify_keeper_status,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| s.expire_at.as_ref().map(|e| e.as_ptr())) }
}

/// When the server last confirmed the licence (Unix seconds) into `*out`: the last
/// successful heartbeat or login, or with offline verdicts on the stored verdict's
/// confirmation (carried across restarts); returns 0, or `VERIFY_ERR_NO_SUCH_FIELD` when
/// there is none.
#[no_mangle]
pub extern "system" fn verify_keeper_status_last_confirmed(
    status: *const verify_keeper_status,
    out: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| s.last_confirmed) }
}

/// When the grace period ends (Unix seconds) into `*out` while heartbeats fail or the
/// session is offline (with offline verdicts on: the last confirmation plus the offline
/// grace); returns 0, or `VERIFY_ERR_NO_SUCH_FIELD` while alive.
#[no_mangle]
pub extern "system" fn verify_keeper_status_grace_end(
    status: *const verify_keeper_status,
    out: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| s.grace_end) }
}

/// When the last heartbeat succeeded (Unix seconds) into `*out`; returns 0, or
/// `VERIFY_ERR_NO_SUCH_FIELD` before the first success.
#[no_mangle]
pub extern "system" fn verify_keeper_status_last_success(
    status: *const verify_keeper_status,
    out: *mut i64,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| s.last_success) }
}

/// How many heartbeats succeeded into `*ok` and failed (any reason) into `*failed`; both
/// required; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_keeper_status_counts(
    status: *const verify_keeper_status,
    ok: *mut u64,
    failed: *mut u64,
) -> i32 {
    guard_code(|| {
        if status.is_null() {
            return Err(Error::local(ErrorKind::InvalidArgument, "status is NULL"));
        }
        if ok.is_null() {
            return Err(Error::local(ErrorKind::InvalidArgument, "ok is NULL"));
        }
        if failed.is_null() {
            return Err(Error::local(ErrorKind::InvalidArgument, "failed is NULL"));
        }
        // SAFETY: the caller's contract.
        let code = unsafe { status_value(status, ok, |s| Some(s.beats_ok)) };
        if code == 0 {
            // SAFETY: the caller's contract (checked above: the status is live).
            let beats_failed = unsafe { (*status).beats_failed };
            // SAFETY: checked non-NULL; writable by the caller's contract.
            unsafe { write_out(failed, "failed", beats_failed)? };
        }
        Ok(code)
    })
}

/// How many back-office messages this snapshot took (see `verify_keeper_get_status`) into
/// `*out`; returns 0 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_keeper_status_message_count(
    status: *const verify_keeper_status,
    out: *mut usize,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| Some(s.messages.len())) }
}

/// The back-office message number `index` (0 = oldest) into `*out`; returns 0, or
/// `VERIFY_ERR_NO_SUCH_FIELD` when `index` is past the last. Ownership: borrowed, valid
/// until `status` is freed.
#[no_mangle]
pub extern "system" fn verify_keeper_status_message(
    status: *const verify_keeper_status,
    index: usize,
    out: *mut *const c_char,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe { status_value(status, out, |s| s.messages.get(index).map(|m| m.as_ptr())) }
}
