//! `verify_client` and the calls: Init, the 12 actions, the social steps, the generic call.
//!
//! Every call takes the client, its parameters as NUL-terminated UTF-8 strings (NULL only
//! where a parameter is optional) and `verify_reply **out`, and returns the result code:
//! 200 or 201, the server's refusal code (1001..1024), or a negative local code. `*out` is
//! set to NULL first, then to a new reply whenever the server answered (refusals included);
//! the caller owns that reply and frees it with `verify_reply_free`.

use std::ffi::c_char;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use super::guard::{
    clear_out, guard, guard_code, optional_str, record, required_str, set_last_error,
};
use super::reply::{give, verify_reply};
use crate::actions::{request, Call, SessionKind};
use crate::client::{ActionRequest, Client};
use crate::error::{describe, Error, ErrorKind, CODE_OK, CODE_PENDING};
use crate::keeper::Keeper;
use crate::reply::{FromData, Reply};

/// Most parameters accepted by `verify_call`.
const MAX_CALL_PARAMS: usize = 256;

/// A client of the service for one program. Opaque; created by `verify_client_new`, freed
/// by `verify_client_free`. Thread-safe: any number of threads may make calls on one client
/// at once; no lock is held across network I/O.
#[allow(non_camel_case_types)]
pub struct verify_client {
    pub(crate) client: Arc<Client>,
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

/// Borrows a client argument.
///
/// # Safety
/// `client` is NULL or a live pointer from `verify_client_new`.
unsafe fn borrow<'a>(client: *const verify_client) -> Result<&'a Client, Error> {
    // SAFETY: as documented above.
    unsafe { borrow_handle(client) }.map(|c| &*c.client)
}

/// Borrows the client handle itself.
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

/// Records a server refusal as the last error, so that hosts can print one line.
fn note_refusal(reply: &Reply) {
    let code = reply.code();
    if code != CODE_OK && code != CODE_PENDING {
        let mut text = format!("{} ({code}): {}", describe(code), reply.message());
        if let Some(remark) = reply.remark() {
            text.push_str(&format!(" [remark: {remark}]"));
        }
        set_last_error(code, &text);
    }
}

/// Hands the outcome of an exchange to the caller: the code, and the reply through `out`
/// whenever the server answered. A code-200 reply whose data does not have the documented
/// shape gives `VERIFY_ERR_PROTOCOL`, with the reply still given.
///
/// # Safety
/// `out` was checked by `clear_out`.
pub(crate) unsafe fn deliver(
    out: *mut *mut verify_reply,
    outcome: Result<Reply, Error>,
    check: impl FnOnce(&Reply) -> Result<(), String>,
) -> Result<i32, Error> {
    match outcome {
        Ok(reply) => {
            let code = reply.code();
            let checked = check(&reply);
            note_refusal(&reply);
            // SAFETY: forwarded from the caller.
            unsafe { give(out, reply) };
            checked.map(|()| code).map_err(Error::protocol)
        }
        Err(error) => {
            let code = record(&error);
            if let Some(reply) = error.into_reply() {
                // SAFETY: forwarded from the caller.
                unsafe { give(out, reply) };
            }
            Ok(code)
        }
    }
}

/// Runs a typed call: checks `out` and `client`, builds the request, exchanges, delivers.
///
/// # Safety
/// `client` and `out` as documented on the exported functions; `build` reads only string
/// arguments valid for the call.
unsafe fn answer<T: FromData>(
    client: *const verify_client,
    out: *mut *mut verify_reply,
    build: impl FnOnce() -> Result<Call<T>, Error>,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out, "out")? };
        // SAFETY: the caller's contract.
        let client = unsafe { borrow(client)? };
        let call = build()?;
        let outcome = client.exchange(&call.request);
        // SAFETY: `out` was checked above.
        unsafe { deliver(out, outcome, |reply| call.check(reply)) }
    })
}

/// Creates a client for the service at `base_url` (`http://` or `https://`), for the program
/// `app_id` with its secret `app_key`. Nothing is sent until the first call; the Init
/// handshake runs then if `verify_init` was not called.
///
/// All three strings are required (NUL-terminated UTF-8, copied: the caller keeps ownership).
/// `out` is required; on success `*out` is a new client that the caller owns and must free
/// with `verify_client_free`; on failure `*out` is NULL.
/// Returns 200, or a negative code (`VERIFY_ERR_INVALID_ARGUMENT`, `VERIFY_ERR_INVALID_UTF8`).
/// Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_client_new(
    base_url: *const c_char,
    app_id: *const c_char,
    app_key: *const c_char,
    out: *mut *mut verify_client,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract: `out` NULL or writable, strings NULL or valid.
        unsafe {
            clear_out(out, "out")?;
            let client = Client::new(
                required_str(base_url, "base_url")?,
                required_str(app_id, "app_id")?,
                required_str(app_key, "app_key")?,
            )?;
            *out = Box::into_raw(Box::new(verify_client {
                client: Arc::new(client),
                keepers: Mutex::new(Vec::new()),
            }));
        }
        Ok(CODE_OK)
    })
}

/// Frees a client: keepers started on it are stopped and their threads joined (within
/// 100 ms, a heartbeat in flight is cancelled; a callback that is running is waited for),
/// its session secret and AppKey are wiped from memory and its connections closed, so the
/// library may be unloaded afterwards. `verify_client_free(NULL)` does nothing. Keeper
/// handles of this client stay valid until freed, and report the state ended.
/// Thread-safety: no call on `client` may be in progress or start during or after this.
#[no_mangle]
pub extern "C" fn verify_client_free(client: *mut verify_client) {
    guard((), || {
        if !client.is_null() {
            // SAFETY: a pointer from `verify_client_new`, freed once (caller's contract).
            drop(unsafe { Box::from_raw(client) });
        }
    })
}

/// Sets the connect timeout and the whole-call timeout, in milliseconds, for calls that
/// start afterwards. Both must be at least 1. Defaults: 10000 and 30000.
/// Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread, at any time.
#[no_mangle]
pub extern "C" fn verify_client_set_timeouts(
    client: *mut verify_client,
    connect_ms: u32,
    call_ms: u32,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        let client = unsafe { borrow(client)? };
        client.set_timeouts(
            Duration::from_millis(connect_ms.into()),
            Duration::from_millis(call_ms.into()),
        )?;
        Ok(CODE_OK)
    })
}

/// Runs the Init handshake now (otherwise it runs on the first action). Returns 200, the
/// server's code (1001, 1010, 1011, 1012, 1013, 1014) or a negative code; `*out` as for
/// every call. Thread-safety: any thread.
#[no_mangle]
pub extern "C" fn verify_init(client: *mut verify_client, out: *mut *mut verify_reply) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe { clear_out(out, "out")? };
        // SAFETY: the caller's contract.
        let client = unsafe { borrow(client)? };
        let outcome = client.init_exchange();
        // SAFETY: `out` was checked above.
        unsafe { deliver(out, outcome, |_| Ok(())) }
    })
}

/// `SingleLogin` (card mode): `card` and `mac` required, `device_name` optional (NULL).
/// Reply fields: `token`, `status`, `is_times`, `card_type`, `expire_at`, and for a count card
/// `total`, `used`, `remaining`; on 1006 and 1022 `remark`. Never sent twice by a retry.
#[no_mangle]
pub extern "C" fn verify_single_login(
    client: *mut verify_client,
    card: *const c_char,
    mac: *const c_char,
    device_name: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::single_login(
                required_str(card, "card")?,
                required_str(mac, "mac")?,
                optional_str(device_name, "device_name")?,
            )
        })
    }
}

/// `UserLogin` with a password: `username`, `password` required; `mac` optional (strongly
/// recommended). With `card` (optional) it is the renewal branch: reply `username`,
/// `expire_at`, `added_days` (integer), `status`, and no token. Without: `username`,
/// `device_id`, `expire_at`, `status`, `token`, `remark`. On 1006/1022 `remark`.
#[no_mangle]
pub extern "C" fn verify_user_login(
    client: *mut verify_client,
    username: *const c_char,
    password: *const c_char,
    card: *const c_char,
    mac: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        // The branch is chosen before `answer`, so `out` is cleared here first.
        let card = match clear_out(out, "out").and_then(|()| optional_str(card, "card")) {
            Ok(card) => card,
            Err(error) => return record(&error),
        };
        match card {
            Some(card) => answer(client, out, || {
                request::user_login_with_card(
                    required_str(username, "username")?,
                    required_str(password, "password")?,
                    card,
                    optional_str(mac, "mac")?,
                )
            }),
            None => answer(client, out, || {
                request::user_login(
                    required_str(username, "username")?,
                    required_str(password, "password")?,
                    optional_str(mac, "mac")?,
                )
            }),
        }
    }
}

/// `UserRegin`: `username`, `password` required; `card`, `mac`, `device_name` optional.
/// Reply: `username`, `user_id`, `expire_at`, and with a card `token`, `status`.
#[no_mangle]
pub extern "C" fn verify_user_register(
    client: *mut verify_client,
    username: *const c_char,
    password: *const c_char,
    card: *const c_char,
    mac: *const c_char,
    device_name: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::user_register(
                required_str(username, "username")?,
                required_str(password, "password")?,
                optional_str(card, "card")?,
                optional_str(mac, "mac")?,
                optional_str(device_name, "device_name")?,
            )
        })
    }
}

/// `UpdatePwd`: all three required. Reply: `username`.
#[no_mangle]
pub extern "C" fn verify_update_password(
    client: *mut verify_client,
    username: *const c_char,
    old_password: *const c_char,
    new_password: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::update_password(
                required_str(username, "username")?,
                required_str(old_password, "old_password")?,
                required_str(new_password, "new_password")?,
            )
        })
    }
}

/// `ChangeBind`: all three required. Reply: `username`, `device_id`, `bind_count`,
/// `bind_limit`.
#[no_mangle]
pub extern "C" fn verify_change_bind(
    client: *mut verify_client,
    username: *const c_char,
    password: *const c_char,
    new_mac: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::change_bind(
                required_str(username, "username")?,
                required_str(password, "password")?,
                required_str(new_mac, "new_mac")?,
            )
        })
    }
}

/// `UserHeartbeat`: `token` required; `kind` is `VERIFY_SESSION_CARD` (token of
/// `verify_single_login`) or `VERIFY_SESSION_USER` (token of `verify_user_login`); `ip`
/// optional. Reply: `expire_at`, `status`, `msg` (a back-office message, delivered once;
/// empty when none). Any other `kind` is `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "C" fn verify_heartbeat(
    client: *mut verify_client,
    token: *const c_char,
    kind: i32,
    ip: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            let kind = match kind {
                super::codes::VERIFY_SESSION_CARD => SessionKind::Card,
                super::codes::VERIFY_SESSION_USER => SessionKind::User,
                other => {
                    return Err(Error::local(
                        ErrorKind::InvalidArgument,
                        format!(
                            "kind {other} is neither VERIFY_SESSION_CARD nor VERIFY_SESSION_USER"
                        ),
                    ))
                }
            };
            request::heartbeat(required_str(token, "token")?, kind, optional_str(ip, "ip")?)
        })
    }
}

/// `UserRecharge`: `username`, `card` required. Reply: `username`, `expire_at`,
/// `added_days` (a string with its unit), `status`.
#[no_mangle]
pub extern "C" fn verify_user_recharge(
    client: *mut verify_client,
    username: *const c_char,
    card: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::user_recharge(
                required_str(username, "username")?,
                required_str(card, "card")?,
            )
        })
    }
}

/// `GetLatestVersion`: `current_version` optional. Reply: `version`, `changelog`,
/// `download_url`, `force_update`, `has_update`.
#[no_mangle]
pub extern "C" fn verify_get_latest_version(
    client: *mut verify_client,
    current_version: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::get_latest_version(optional_str(current_version, "current_version")?)
        })
    }
}

/// `GetBulletin`. Reply: `bulletin`, `updated_at`.
#[no_mangle]
pub extern "C" fn verify_get_bulletin(
    client: *mut verify_client,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe { answer(client, out, request::get_bulletin) }
}

/// `GetVariable`: with `name`, reply `name`, `value`; with `name` NULL, every variable,
/// readable as `variables.NAME`.
#[no_mangle]
pub extern "C" fn verify_get_variable(
    client: *mut verify_client,
    name: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        // The branch is chosen before `answer`, so `out` is cleared here first.
        match clear_out(out, "out").and_then(|()| optional_str(name, "name")) {
            Ok(Some(name)) => answer(client, out, || request::get_variable(name)),
            Ok(None) => answer(client, out, request::get_variables),
            Err(error) => record(&error),
        }
    }
}

/// `GetUserInfo`: `username`, `password` required. Reply: `username`, `user_id`,
/// `device_id`, `expire_at`, `status`, `bind_count`, `bind_limit`, `remark`, `created_at`.
#[no_mangle]
pub extern "C" fn verify_get_user_info(
    client: *mut verify_client,
    username: *const c_char,
    password: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::get_user_info(
                required_str(username, "username")?,
                required_str(password, "password")?,
            )
        })
    }
}

/// `GetCardInfo`: `card` required; consumes nothing. Reply: `card`, `card_type`, `status`,
/// `is_times`, `device_id`, `activated_at`, `expire_at`, `duration`, `duration_type`, and for
/// a count card `total`, `used`, `remaining`.
#[no_mangle]
pub extern "C" fn verify_get_card_info(
    client: *mut verify_client,
    card: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::get_card_info(required_str(card, "card")?)
        })
    }
}

/// Social login step 1: `mac` optional. Reply: `url` (show it to the user), `state` (pass
/// it to `verify_social_login_poll`).
#[no_mangle]
pub extern "C" fn verify_social_login_start(
    client: *mut verify_client,
    mac: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::social_login_start(optional_str(mac, "mac")?)
        })
    }
}

/// Social login step 2, once: `state` required, `mac` optional. Returns 201
/// (`VERIFY_PENDING`) while the user has not authorized: poll again; 200 with the login
/// reply (`remark` is the social display name); 1016 when the identity is not bound.
#[no_mangle]
pub extern "C" fn verify_social_login_poll(
    client: *mut verify_client,
    state: *const c_char,
    mac: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::social_login_poll(required_str(state, "state")?, optional_str(mac, "mac")?)
        })
    }
}

/// Social registration step 1: `username` required, `mac` and `device_name` optional.
/// Reply: `url`. The account is created when the user completes the authorization.
#[no_mangle]
pub extern "C" fn verify_social_register_start(
    client: *mut verify_client,
    username: *const c_char,
    mac: *const c_char,
    device_name: *const c_char,
    out: *mut *mut verify_reply,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        answer(client, out, || {
            request::social_register_start(
                required_str(username, "username")?,
                optional_str(mac, "mac")?,
                optional_str(device_name, "device_name")?,
            )
        })
    }
}

/// Any action with any parameters: `action` required; `keys` and `values` are arrays of
/// `count` strings (each required; values may be empty), NULL when `count` is 0. At most 256
/// parameters. Never sent twice once it may have reached the server.
#[no_mangle]
pub extern "C" fn verify_call(
    client: *mut verify_client,
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
            let request: ActionRequest =
                request::generic(required_str(action, "action")?, &params)?;
            Ok(Call::<Unchecked>::from_request(request))
        })
    }
}

/// The reply type of `verify_call`: any data is accepted.
struct Unchecked;

impl FromData for Unchecked {
    fn from_data(_: &serde_json::Value) -> Result<Self, String> {
        Ok(Unchecked)
    }
}
