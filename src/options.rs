//! `verify_client_options`: the settings of a client (mirrors, trust, proxy, plain-http
//! opt-in, timeouts, the attempt delay, fixed addresses, the state folder and the age of the
//! addresses remembered there, log hook), given
//! to `verify_client_new_with_options`. Setters only, so
//! the settings can grow without breaking the ABI.

use std::ffi::{c_char, c_void};
use std::sync::Arc;
use std::time::Duration;

use verify_core::{codes, Error, ErrorKind, LogLevel, Options, ProxyChoice, StateFolder};

use crate::client::{new_client, verify_client};
use crate::generated::enums::{
    VERIFY_LOG_DEBUG, VERIFY_LOG_ERROR, VERIFY_LOG_INFO, VERIFY_LOG_WARN, VERIFY_PROXY_NONE,
    VERIFY_PROXY_SYSTEM, VERIFY_PROXY_URL, VERIFY_TRUST_MOZILLA, VERIFY_TRUST_SYSTEM,
};
use crate::guard::{
    clear_out, free_handle, give_handle, guard, guard_code, optional_str, required_str,
};

/// A log callback: `user_data` as given to `verify_client_options_set_log`, the level
/// (`VERIFY_LOG_*`; later versions may add levels) and an English message (borrowed for the
/// call, in the code page set with `verify_set_code_page`). It runs on the thread that makes
/// the call (a keeper's heartbeats: the keeper's thread), so it may run on several threads at
/// once; it must not unwind and should return quickly. It never receives a secret: no api
/// password, AppKey, card key, password, token or machine code.
#[allow(non_camel_case_types)]
pub type verify_log_callback =
    Option<unsafe extern "system" fn(user_data: *mut c_void, level: i32, message: *const c_char)>;

/// Settings of a client. Opaque; created by `verify_client_options_new` with the defaults,
/// changed by its setters, given to `verify_client_new_with_options` (which copies them:
/// they may be freed or reused afterwards), freed by `verify_client_options_free`. Not
/// thread-safe: one thread at a time.
#[allow(non_camel_case_types)]
pub struct verify_client_options {
    options: Options,
}

/// The host's `user_data` for the log callback, used from any thread that makes calls.
struct LogTarget {
    callback: unsafe extern "system" fn(*mut c_void, i32, *const c_char),
    user_data: *mut c_void,
}

impl LogTarget {
    fn call(&self, level: i32, message: &str) {
        let text = crate::codepage::encode(message);
        // SAFETY: the host's function, called as documented; the text outlives the call.
        unsafe { (self.callback)(self.user_data, level, text.as_ptr()) };
    }
}

// SAFETY: the host's contract of `verify_client_options_set_log`: the callback and its
// `user_data` may be used from any thread.
unsafe impl Send for LogTarget {}
// SAFETY: as above.
unsafe impl Sync for LogTarget {}

/// Borrows an options argument mutably.
///
/// # Safety
/// `options` is NULL or a live pointer from `verify_client_options_new`, used by no other
/// thread during the call.
unsafe fn options_mut<'a>(options: *mut verify_client_options) -> Result<&'a mut Options, Error> {
    // SAFETY: as documented above.
    unsafe { options.as_mut() }
        .map(|o| &mut o.options)
        .ok_or_else(|| Error::local(ErrorKind::InvalidArgument, "options is NULL"))
}

/// A copy of the options of a handle, or the defaults for NULL.
///
/// # Safety
/// `options` is NULL or a live pointer from `verify_client_options_new`, changed by no
/// other thread during the call.
pub(crate) unsafe fn options_or_default(options: *const verify_client_options) -> Options {
    // SAFETY: as documented above.
    unsafe { options.as_ref() }
        .map(|o| o.options.clone())
        .unwrap_or_default()
}

/// Runs a setter on an options handle.
///
/// # Safety
/// As for [`options_mut`].
unsafe fn set(
    options: *mut verify_client_options,
    change: impl FnOnce(&mut Options) -> Result<(), Error>,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        change(unsafe { options_mut(options)? })?;
        Ok(codes::OK)
    })
}

/// Creates client options with the defaults: no mirror, Mozilla's roots, the system's proxy
/// settings, plain http only to loopback, timeouts 10 s (connect) and 30 s (call), an
/// attempt delay of 250 ms, no fixed address, no state folder (remembered addresses used for
/// a day once there is one), no offline verdicts, no start budget, a clock tolerance of 600 s, no log.
/// Ownership: the caller owns `*out` and frees it with `verify_client_options_free`.
/// Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`. Thread-safety: any thread.
#[no_mangle]
pub extern "system" fn verify_client_options_new(out: *mut *mut verify_client_options) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract.
        unsafe {
            clear_out(out, "out")?;
            give_handle(
                out,
                verify_client_options {
                    options: Options::default(),
                },
            );
        }
        Ok(codes::OK)
    })
}

/// Frees client options. `verify_client_options_free(NULL)` does nothing. Clients made with
/// them are not affected. Ownership: takes `options`.
#[no_mangle]
pub extern "system" fn verify_client_options_free(options: *mut verify_client_options) {
    // SAFETY: NULL or a pointer from `verify_client_options_new`, freed once.
    guard((), || unsafe { free_handle(options) })
}

/// Adds a mirror: another base URL of the same service. A new connection races the base
/// URLs (see `verify_client_options_set_attempt_delay`): a mirror gets its attempt when the
/// ones before it have not connected within the attempt delay, or failed (connect, DNS or
/// TLS failure); through a proxy they are tried in turn. The server that connects first is
/// kept for later calls (and across starts, with a state folder); switching server runs
/// Init there. A request that may have reached a server is never sent to another. Checked
/// like the base URL of `verify_client_new` when the client is made. Returns 200 or a
/// negative code.
#[no_mangle]
pub extern "system" fn verify_client_options_add_mirror(
    options: *mut verify_client_options,
    base_url: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            o.mirrors
                .push(required_str(base_url, "base_url")?.into_owned());
            Ok(())
        })
    }
}

/// Chooses the trust stores: a combination of `VERIFY_TRUST_MOZILLA` (the default) and
/// `VERIFY_TRUST_SYSTEM`, or 0 for none (then only the roots and pins added below are
/// trusted). Roots added with `_add_root_*` are trusted in addition. Verification cannot be
/// turned off. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT` for an unknown flag.
#[no_mangle]
pub extern "system" fn verify_client_options_set_trust(
    options: *mut verify_client_options,
    flags: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            if flags & !(VERIFY_TRUST_MOZILLA | VERIFY_TRUST_SYSTEM) != 0 {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    format!("trust flags {flags:#x} have unknown bits"),
                ));
            }
            o.trust.mozilla = flags & VERIFY_TRUST_MOZILLA != 0;
            o.trust.system = flags & VERIFY_TRUST_SYSTEM != 0;
            Ok(())
        })
    }
}

/// Trusts every certificate of a PEM text (`-----BEGIN CERTIFICATE-----` blocks) as a root,
/// in addition to the stores chosen. Copied. Returns 200, or `VERIFY_ERR_INVALID_ARGUMENT`
/// when there is no certificate or one does not parse.
#[no_mangle]
pub extern "system" fn verify_client_options_add_root_pem(
    options: *mut verify_client_options,
    pem: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            o.trust
                .add_roots_pem(required_str(pem, "pem")?.as_bytes())
                .map(|_| ())
        })
    }
}

/// Trusts the certificates of a PEM file as roots (read now). Returns 200, or
/// `VERIFY_ERR_INVALID_ARGUMENT` when the file cannot be read or holds no certificate.
#[no_mangle]
pub extern "system" fn verify_client_options_add_root_file(
    options: *mut verify_client_options,
    path: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            let path = required_str(path, "path")?;
            o.trust
                .add_roots_file(std::path::Path::new(path.as_ref()))
                .map(|_| ())
        })
    }
}

/// Pins a key of the service's certificate chain: base64 of the SHA-256 of its DER
/// SubjectPublicKeyInfo, as `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der
/// | openssl dgst -sha256 -binary | base64` prints (a `sha256/` prefix is accepted). With
/// pins, a server whose leaf key is pinned is accepted without a CA (a pinned self-signed
/// certificate works); a chain that validates but has no pinned key fails with
/// `VERIFY_ERR_PIN`. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_client_options_add_pin(
    options: *mut verify_client_options,
    sha256_base64: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            o.trust.add_pin(&required_str(sha256_base64, "pin")?)
        })
    }
}

/// Chooses the proxy: `VERIFY_PROXY_SYSTEM` (the default), `VERIFY_PROXY_NONE`, or
/// `VERIFY_PROXY_URL` with `url` (`http://`, `https://` CONNECT, `socks5://`, `socks5h://`,
/// with optional `user:password@`; required for this mode, NULL otherwise). Loopback hosts
/// never go through a proxy. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`.
/// cbindgen:optional=[url]
#[no_mangle]
pub extern "system" fn verify_client_options_set_proxy(
    options: *mut verify_client_options,
    mode: i32,
    url: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            let url = optional_str(url, "url")?;
            o.proxy = match (mode, url) {
                (VERIFY_PROXY_SYSTEM, None) => ProxyChoice::System,
                (VERIFY_PROXY_NONE, None) => ProxyChoice::None,
                (VERIFY_PROXY_URL, Some(url)) if !url.is_empty() => {
                    ProxyChoice::Url(url.into_owned())
                }
                (VERIFY_PROXY_URL, _) => {
                    return Err(Error::local(
                        ErrorKind::InvalidArgument,
                        "VERIFY_PROXY_URL needs a proxy URL",
                    ))
                }
                (VERIFY_PROXY_SYSTEM | VERIFY_PROXY_NONE, Some(_)) => {
                    return Err(Error::local(
                        ErrorKind::InvalidArgument,
                        "a proxy URL is given only with VERIFY_PROXY_URL",
                    ))
                }
                (other, _) => {
                    return Err(Error::local(
                        ErrorKind::InvalidArgument,
                        format!("proxy mode {other} is not a VERIFY_PROXY_* value"),
                    ))
                }
            };
            Ok(())
        })
    }
}

/// Allows (1) or refuses (0, the default) plain `http://` to a host that is not loopback:
/// the api password travels in an HTTP header, readable by anyone on the path. Returns 200
/// or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_client_options_allow_insecure_http(
    options: *mut verify_client_options,
    allow: i32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            o.allow_insecure_http = match allow {
                0 => false,
                1 => true,
                other => {
                    return Err(Error::local(
                        ErrorKind::InvalidArgument,
                        format!("allow is {other}, not 0 or 1"),
                    ))
                }
            };
            Ok(())
        })
    }
}

/// Sets the connect and whole-call timeouts in milliseconds (each at least 1; defaults
/// 10000 and 30000), as `verify_client_set_timeouts` does on a client. Returns 200 or
/// `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_client_options_set_timeouts(
    options: *mut verify_client_options,
    connect_ms: u32,
    call_ms: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            if connect_ms == 0 || call_ms == 0 {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    "timeouts must be at least 1 millisecond",
                ));
            }
            o.connect_timeout = Duration::from_millis(connect_ms.into());
            o.call_timeout = Duration::from_millis(call_ms.into());
            Ok(())
        })
    }
}

/// Sets the attempt delay in milliseconds (default 250, at most 10000): a new connection
/// races its attempts, after RFC 8305 ("Happy Eyeballs"). Every address of the host name
/// (IPv6 and IPv4 in turn) and every mirror gets an attempt when the earlier ones have not
/// connected within the delay (at once when they failed); the first to finish TCP, and TLS
/// for https, wins and the others are closed. 0 starts every attempt at once. Racing ends
/// before a request byte is written: no request is ever sent twice because of it. Returns
/// 200 or `VERIFY_ERR_INVALID_ARGUMENT` (over 10000).
#[no_mangle]
pub extern "system" fn verify_client_options_set_attempt_delay(
    options: *mut verify_client_options,
    delay_ms: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            let delay = Duration::from_millis(delay_ms.into());
            if delay > verify_core::options::MAX_ATTEMPT_DELAY {
                return Err(Error::local(
                    ErrorKind::InvalidArgument,
                    format!("the attempt delay of {delay_ms} ms is over the 10000 ms allowed"),
                ));
            }
            o.attempt_delay = delay;
            Ok(())
        })
    }
}

/// Gives a fixed address for a host name, like curl's `--resolve`: the name is then never
/// looked up in DNS (for a domain that DNS poisons or blocks), and every address given for
/// it is used (call once per address, IPv4 or IPv6). TLS still checks the certificate
/// against the name. Copied. Returns 200, or `VERIFY_ERR_INVALID_ARGUMENT` for a host that
/// is not a host name or an `ip` that is not an IP address.
#[no_mangle]
pub extern "system" fn verify_client_options_add_address(
    options: *mut verify_client_options,
    host: *const c_char,
    ip: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            o.add_address(&required_str(host, "host")?, &required_str(ip, "ip")?)
        })
    }
}

/// Sets the client's state folder, the one place for state that outlives the process: the
/// winning line of racing connections (so that a primary blocked for weeks costs nothing
/// after the first start) and its host name's addresses (so that a later start does not wait
/// for a slow name server: `verify_client_options_set_remembered_addresses_max_age`), and the
/// last good verdict when offline verdicts are on
/// (`verify_client_options_set_offline_grace`). `path` is a folder (created when
/// first written; with offline verdicts on, checked and created when the client is made),
/// or NULL (or empty) for the per-user default: `$XDG_STATE_HOME/verify` or
/// `~/.local/state/verify` on Linux, `~/Library/Application Support/verify/state` on macOS,
/// `%LOCALAPPDATA%\verify\state` on Windows. Without this call nothing is written.
/// Several programs may share a folder: each file is one program's, sealed under a key of
/// its AppKey and the machine, readable by its owner only, and holds no secret in clear.
/// A file that does not open is ignored and reported to the log. Returns 200, or
/// `VERIFY_ERR_INVALID_ARGUMENT`.
/// cbindgen:optional=[path]
#[no_mangle]
pub extern "system" fn verify_client_options_set_state_folder(
    options: *mut verify_client_options,
    path: *const c_char,
) -> i32 {
    // SAFETY: the caller's contract on every pointer.
    unsafe {
        set(options, |o| {
            o.state_folder = Some(match optional_str(path, "path")? {
                Some(path) if !path.is_empty() => {
                    StateFolder::Path(std::path::PathBuf::from(path.as_ref()))
                }
                _ => StateFolder::UserDefault,
            });
            Ok(())
        })
    }
}

/// Sets how long (in seconds) the addresses of the winning line's host name (https base URLs
/// only), kept in the state folder (`verify_client_options_set_state_folder`), stay in use after they were last
/// seen connecting (default 86400, a day). A later start connects to them at once, beside a
/// fresh lookup of the name (the fresh answer joins when it comes; a remembered address that
/// no longer answers costs at most the attempt delay), so that it does not wait for a slow
/// name server. TLS still checks the certificate against the name, and fixed addresses
/// (`verify_client_options_add_address`) still win. 0: addresses are neither remembered nor
/// used. Without a state folder nothing is kept. Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`
/// (`options` NULL). Not thread-safe on one `options`; `options` is not kept.
#[no_mangle]
pub extern "system" fn verify_client_options_set_remembered_addresses_max_age(
    options: *mut verify_client_options,
    max_age_seconds: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            o.remembered_addresses_max_age = Duration::from_secs(max_age_seconds.into());
            Ok(())
        })
    }
}

/// Turns offline verdicts on (a state folder is needed: `verify_client_options_set_state_folder`):
/// after every successful login (`verify_single_login`, `verify_user_login`) and heartbeat
/// the client keeps the verdict, sealed, in the state folder (in account mode with a slow
/// salted hash of the password, never the password); a login that cannot reach the service
/// then answers from it with `VERIFY_OFFLINE` (202) when it is for the same program,
/// identity and machine code (and password), the server confirmed it less than
/// `grace_seconds` ago, it has not expired and the clock was not moved back (else
/// `VERIFY_ERR_OFFLINE_PASSWORD`, `VERIFY_ERR_GRACE_OVER`, `VERIFY_ERR_OFFLINE_EXPIRED`,
/// `VERIFY_ERR_CLOCK_BACK`: the clock is judged against a high-water mark of the time kept
/// in the state folder and in a second place, the user's configuration folder
/// (`$XDG_CONFIG_HOME/verify` or `~/.config/verify`; `~/Library/Preferences/verify` on
/// macOS), on Windows `HKEY_CURRENT_USER\Software\verify`; and `VERIFY_ERR_TIME_UNCONFIRMED`:
/// a verdict answers only when both places hold the mark it was written under, at least as
/// late as itself, and the second place is where it was: a piece deleted, put back from an
/// older copy or pointed elsewhere refuses until one login reaches the server, which heals
/// it). The service was not reached when
/// DNS, connect, the TLS handshake or the proxy failed, a timeout ran out, or the reply is
/// not the service's: an HTTP 5xx (502, 503, 504, 522), HTML, an empty or cut body, a
/// captive portal's page or redirect (without offline verdicts these stay
/// `VERIFY_ERR_PROTOCOL`); a reply of the service (JSON with a `code`) never is. A refusal
/// by the server never gives an offline verdict and clears the stored verdict of that card
/// or account (1001 and 1012: every verdict of the program). The state folder must be
/// writable: `verify_client_new_with_options` refuses one that is not
/// (`VERIFY_ERR_STATE_FOLDER`). 0 turns them off (the default: nothing changes for the
/// host). Returns 200 or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_client_options_set_offline_grace(
    options: *mut verify_client_options,
    grace_seconds: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            o.offline_grace =
                (grace_seconds > 0).then(|| Duration::from_secs(grace_seconds.into()));
            Ok(())
        })
    }
}

/// Sets a start budget in milliseconds (offline verdicts must be on): a login whose stored
/// verdict may answer waits this long for the server; past it the stored verdict answers
/// (`VERIFY_OFFLINE`) and the exchange goes on in the background, its outcome reported by a
/// keeper started with `verify_keeper_start_from_reply` (`VERIFY_EVENT_ONLINE`, or
/// `VERIFY_EVENT_ENDED` with the server's code and remark). A login with nothing stored
/// waits for the server as usual. 0: no budget (the default). Returns 200 or
/// `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_client_options_set_start_budget(
    options: *mut verify_client_options,
    budget_ms: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            o.start_budget = (budget_ms > 0).then(|| Duration::from_millis(budget_ms.into()));
            Ok(())
        })
    }
}

/// Sets how far (in seconds) the local clock may be behind the latest server time seen
/// before offline verdicts are refused with `VERIFY_ERR_CLOCK_BACK` (default 600). Offline,
/// expiry and grace are judged by the later of the local clock and that time. Returns 200
/// or `VERIFY_ERR_INVALID_ARGUMENT`.
#[no_mangle]
pub extern "system" fn verify_client_options_set_clock_tolerance(
    options: *mut verify_client_options,
    tolerance_seconds: u32,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            o.clock_tolerance = Duration::from_secs(tolerance_seconds.into());
            Ok(())
        })
    }
}

/// Sets the log callback and its `user_data` (NULL callback: none, the default). It
/// receives connect, TLS, proxy, retry, failover and re-Init events; see
/// `verify_log_callback` for its thread and what it never receives. `user_data` must stay
/// valid while a client made with these options lives. Returns 200 or
/// `VERIFY_ERR_INVALID_ARGUMENT`.
/// cbindgen:optional=[callback, user_data]
#[no_mangle]
pub extern "system" fn verify_client_options_set_log(
    options: *mut verify_client_options,
    callback: verify_log_callback,
    user_data: *mut c_void,
) -> i32 {
    // SAFETY: the caller's contract.
    unsafe {
        set(options, |o| {
            o.log = callback.map(|callback| {
                let target = LogTarget {
                    callback,
                    user_data,
                };
                Arc::new(move |level: LogLevel, message: &str| {
                    let level = match level {
                        LogLevel::Error => VERIFY_LOG_ERROR,
                        LogLevel::Warn => VERIFY_LOG_WARN,
                        LogLevel::Info => VERIFY_LOG_INFO,
                        LogLevel::Debug => VERIFY_LOG_DEBUG,
                    };
                    target.call(level, message);
                }) as verify_core::LogHook
            });
            Ok(())
        })
    }
}

/// `verify_client_new` with settings: `options` NULL for the defaults, or a handle from
/// `verify_client_options_new` (copied: it may be freed or reused afterwards). Besides the
/// checks of `verify_client_new`, plain `http://` to a host that is not loopback is
/// `VERIFY_ERR_INVALID_ARGUMENT` unless allowed, and so are mirrors that do not parse and a
/// trust setting that trusts nothing; with offline verdicts on, a state folder that cannot
/// be created or written is `VERIFY_ERR_STATE_FOLDER` (`verify_last_error_message` names the
/// folder and why). Ownership: on success `*out` is a new client the caller frees with
/// `verify_client_free`. Thread-safety: any thread.
/// cbindgen:optional=[options]
#[no_mangle]
pub extern "system" fn verify_client_new_with_options(
    base_url: *const c_char,
    app_id: *const c_char,
    app_key: *const c_char,
    options: *const verify_client_options,
    out: *mut *mut verify_client,
) -> i32 {
    guard_code(|| {
        // SAFETY: the caller's contract: NULL or a live options handle.
        let options = unsafe { options.as_ref() }
            .map(|o| o.options.clone())
            .unwrap_or_default();
        // SAFETY: the caller's contract on every pointer.
        unsafe { new_client(base_url, app_id, app_key, options, out) }
    })
}
