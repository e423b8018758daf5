//! `Client`: the Init handshake, the Handle entry point, the session secret, re-init and
//! the clock offset (DESIGN section 4).

use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use zeroize::Zeroizing;

use crate::error::{Error, CODE_OK};
use crate::reply::Reply;
use crate::transport::{HttpReply, SendError, Transport};
use crate::wire;

/// Code the server gives to Handle when it does not know the session secret (any more).
const CODE_UNKNOWN_SESSION: i32 = 1001;
/// Code of a timestamp outside the server's tolerance.
const CODE_CLOCK_SKEW: i32 = 1014;

/// One business request: the action and its plaintext parameters, in order.
#[derive(Clone)]
pub struct ActionRequest {
    /// The `action` value.
    pub action: String,
    /// The other parameters, in the order they are sent.
    pub params: Vec<(String, String)>,
    /// Whether sending the request twice is harmless. A request that may have reached the
    /// server (read timeout, connection reset after sending) is sent again only when this is
    /// true; requests that surely did not reach it are always sent again once.
    pub repeatable: bool,
}

impl ActionRequest {
    /// A request for `action` with no parameters yet.
    pub fn new(action: &str, repeatable: bool) -> ActionRequest {
        ActionRequest {
            action: action.to_owned(),
            params: Vec::new(),
            repeatable,
        }
    }

    /// Adds a parameter.
    pub fn param(mut self, key: &str, value: &str) -> ActionRequest {
        self.params.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Adds a parameter when `value` is `Some`.
    pub fn opt_param(self, key: &str, value: Option<&str>) -> ActionRequest {
        match value {
            Some(value) => self.param(key, value),
            None => self,
        }
    }
}

impl fmt::Debug for ActionRequest {
    /// Parameter values are not printed: they hold passwords, cards and tokens.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<&str> = self.params.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("ActionRequest")
            .field("action", &self.action)
            .field("param_keys", &keys)
            .field("repeatable", &self.repeatable)
            .finish()
    }
}

/// The session secret of one Init, shared by the calls that use it; wiped when the last
/// user drops it.
#[derive(Clone)]
struct Session {
    api_password: Arc<Zeroizing<String>>,
    /// `{base}/api/verify/{ApiPassword}`, built once per session.
    handle_url: Arc<Zeroizing<String>>,
    generation: u64,
}

/// A client of the service for one program (`AppId` + `AppKey`).
///
/// `Client` is `Send + Sync`: share it between threads (for example in an `Arc`). No lock
/// is held across network I/O, and connections are kept alive and reused.
pub struct Client {
    init_url: String,
    app_id: String,
    app_key: Zeroizing<String>,
    transport: Transport,
    session: Mutex<Option<Session>>,
    generations: AtomicU64,
    clock_offset: AtomicI64,
}

impl fmt::Debug for Client {
    /// The AppKey and the session secret are never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("init_url", &self.init_url)
            .field("app_id", &self.app_id)
            .field("clock_offset", &self.clock_offset())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client for the service at `base_url` (`http://` or `https://`, with or without a
    /// trailing `/`), for the program `app_id` with its secret `app_key`.
    /// Nothing is sent until the first call.
    pub fn new(base_url: &str, app_id: &str, app_key: &str) -> Result<Client, Error> {
        let base = base_url.trim_end_matches('/');
        let scheme_ok = ["http://", "https://"].iter().any(|scheme| {
            base.len() > scheme.len() && base[..scheme.len()].eq_ignore_ascii_case(scheme)
        });
        if !scheme_ok {
            return Err(Error::invalid_argument(
                "base_url must start with http:// or https:// and name a host",
            ));
        }
        if app_id.is_empty() {
            return Err(Error::invalid_argument("app_id must not be empty"));
        }
        if app_key.is_empty() {
            return Err(Error::invalid_argument("app_key must not be empty"));
        }
        Ok(Client {
            init_url: format!("{base}/api/verify"),
            app_id: app_id.to_owned(),
            app_key: Zeroizing::new(app_key.to_owned()),
            transport: Transport::new(),
            session: Mutex::new(None),
            generations: AtomicU64::new(0),
            clock_offset: AtomicI64::new(0),
        })
    }

    /// Sets the connect and whole-call timeouts (defaults: 10 s and 30 s).
    pub fn set_timeouts(&self, connect: Duration, call: Duration) -> Result<(), Error> {
        self.transport.set_timeouts(connect, call)
    }

    /// The current (connect, call) timeouts.
    pub fn timeouts(&self) -> (Duration, Duration) {
        self.transport.timeouts()
    }

    /// A transport of its own with this client's timeouts, for cancellable work.
    pub(crate) fn sibling_transport(&self) -> Transport {
        self.transport.sibling()
    }

    /// Seconds added to the local clock to get the server's, learned from a 1014 refusal.
    pub fn clock_offset(&self) -> i64 {
        self.clock_offset.load(Ordering::Relaxed)
    }

    /// Whether an Init has succeeded and its session secret is held.
    pub fn has_session(&self) -> bool {
        self.lock_session().is_some()
    }

    /// Runs the Init handshake now (it otherwise runs lazily on the first action).
    /// A refusal (1001, 1010, 1011, 1012, 1013, 1014) is an error carrying the reply.
    pub fn init(&self) -> Result<(), Error> {
        self.init_exchange().map(|_| ())
    }

    /// Init, returning the server's reply: `Ok` only for code 200, else the refusal.
    pub(crate) fn init_exchange(&self) -> Result<Reply, Error> {
        let generation = self.lock_session().as_ref().map(|s| s.generation);
        self.run_init(&self.transport, generation)
            .map(|(reply, _)| reply)
    }

    /// Sends a business request and returns the server's reply whatever its code; `Err` only
    /// for local failures, and for an Init refusal when the lazy Init fails (then the error
    /// carries the Init reply).
    pub(crate) fn exchange(&self, request: &ActionRequest) -> Result<Reply, Error> {
        self.exchange_on(&self.transport, request)
    }

    /// [`Client::exchange`] over another transport of this client (one that can be shut
    /// down on its own: see [`Transport::sibling`]).
    pub(crate) fn exchange_on(
        &self,
        transport: &Transport,
        request: &ActionRequest,
    ) -> Result<Reply, Error> {
        let mut session = self.current_session(transport)?;
        let mut reinit_done = false;
        let mut clock_done = false;
        let mut resend_done = false;
        loop {
            let http = match self.post_handle(transport, &session, request) {
                Ok(http) => http,
                Err(failure) => {
                    if !resend_done && failure.worth_resending(request.repeatable) {
                        resend_done = true;
                        continue;
                    }
                    return Err(failure.error);
                }
            };
            let reply = Reply::from_body(&http.body)?;
            match reply.code() {
                CODE_UNKNOWN_SESSION if !reinit_done => {
                    reinit_done = true;
                    session = self.run_init(transport, Some(session.generation))?.1;
                }
                CODE_CLOCK_SKEW if !clock_done && self.learn_clock(&http) => {
                    clock_done = true;
                }
                _ => return Ok(reply),
            }
        }
    }

    /// The held session, or a new one from a lazy Init.
    fn current_session(&self, transport: &Transport) -> Result<Session, Error> {
        if let Some(session) = self.lock_session().clone() {
            return Ok(session);
        }
        self.run_init(transport, None).map(|(_, session)| session)
    }

    /// Runs Init unless another thread already replaced the session `stale` (then its newer
    /// session is used). Retries once on 1014 with the server's clock, and once when the
    /// request surely did not reach the server.
    fn run_init(
        &self,
        transport: &Transport,
        stale: Option<u64>,
    ) -> Result<(Reply, Session), Error> {
        let mut clock_done = false;
        let mut resend_done = false;
        loop {
            let timestamp = self.timestamp();
            let sign = wire::init_sign(&self.app_id, &self.app_key, &timestamp);
            let form = [
                ("AppId", self.app_id.as_str()),
                ("AppKey", self.app_key.as_str()),
                ("TimeStamp", timestamp.as_str()),
                ("Sign", sign.as_str()),
            ];
            let mut http = match transport.post_form(&self.init_url, &[], &form) {
                Ok(http) => http,
                // Init changes no state on the server: sending it again is harmless.
                Err(failure) if !resend_done && failure.worth_resending(true) => {
                    resend_done = true;
                    continue;
                }
                Err(failure) => return Err(failure.error),
            };
            let parsed = Reply::from_body(&http.body);
            // The raw body holds the session secret: wipe it as soon as it is parsed.
            zeroize::Zeroize::zeroize(&mut http.body);
            let mut reply = parsed?;
            if reply.code() == CODE_CLOCK_SKEW && !clock_done && self.learn_clock(&http) {
                clock_done = true;
                continue;
            }
            if reply.code() != CODE_OK {
                return Err(Error::refused(reply));
            }
            // The secret is taken out of the reply: hosts see the reply, never the secret.
            let api_password = match reply.take_field("api_password") {
                Some(Value::String(secret)) if (1..=256).contains(&secret.len()) => {
                    Zeroizing::new(secret)
                }
                Some(Value::String(mut secret)) => {
                    zeroize::Zeroize::zeroize(&mut secret);
                    return Err(Error::bad_shape(
                        reply,
                        "Init reply `api_password` is empty or longer than 256 bytes",
                    ));
                }
                _ => {
                    return Err(Error::bad_shape(
                        reply,
                        "Init reply has no string `api_password`",
                    ))
                }
            };
            let mut held = self.lock_session();
            if let (Some(current), Some(stale)) = (held.as_ref(), stale) {
                if current.generation != stale {
                    // Another thread re-initialized meanwhile; keep its session.
                    return Ok((reply, current.clone()));
                }
            }
            let handle_url = Zeroizing::new(format!(
                "{}/{}",
                self.init_url,
                wire::encode_component(&api_password)
            ));
            let session = Session {
                api_password: Arc::new(api_password),
                handle_url: Arc::new(handle_url),
                generation: self.generations.fetch_add(1, Ordering::Relaxed) + 1,
            };
            *held = Some(session.clone());
            return Ok((reply, session));
        }
    }

    fn post_handle(
        &self,
        transport: &Transport,
        session: &Session,
        request: &ActionRequest,
    ) -> Result<HttpReply, SendError> {
        let api_password = session.api_password.as_str();
        let plaintext = Zeroizing::new(wire::plaintext(&request.action, &request.params));
        let data = wire::encrypt_data(api_password, &plaintext).map_err(|bad| SendError {
            error: Error::protocol(format!("session secret of {} bytes cannot key RC4", bad.0)),
            maybe_delivered: false,
        })?;
        let timestamp = self.timestamp();
        let sign = wire::handle_sign(api_password, &timestamp, &data);

        transport.post_form(
            session.handle_url.as_str(),
            &[("X-Api-Password", api_password)],
            &[
                ("TimeStamp", timestamp.as_str()),
                ("Data", data.as_str()),
                ("Sign", sign.as_str()),
            ],
        )
    }

    /// Keeps the offset to the server's clock from a reply's `Date` header. Returns whether
    /// it changed (only then is a retry useful).
    fn learn_clock(&self, http: &HttpReply) -> bool {
        let Some(server) = http.date().map(unix_seconds) else {
            return false;
        };
        let offset = server - unix_seconds(SystemTime::now());
        self.clock_offset.swap(offset, Ordering::Relaxed) != offset
    }

    /// `TimeStamp`: Unix seconds on the corrected clock, taken per request.
    fn timestamp(&self) -> String {
        (unix_seconds(SystemTime::now()) + self.clock_offset()).to_string()
    }

    fn lock_session(&self) -> std::sync::MutexGuard<'_, Option<Session>> {
        // A panic while holding this lock cannot leave the Option half-written.
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn unix_seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_must_be_http_or_https() {
        for bad in ["", "ftp://x", "http://", "localhost:80"] {
            let err = Client::new(bad, "1", "K").expect_err(bad);
            assert_eq!(err.code(), crate::error::local::INVALID_ARGUMENT);
        }
        assert!(Client::new("HTTP://127.0.0.1:1/", "1", "K").is_ok());
    }

    #[test]
    fn debug_hides_secrets() {
        let client = Client::new("http://127.0.0.1:1", "1", "TOPSECRETKEY").expect("client");
        assert!(!format!("{client:?}").contains("TOPSECRET"));
        let request = ActionRequest::new("UserLogin", true).param("Password", "hunter2");
        assert!(!format!("{request:?}").contains("hunter2"));
    }
}
