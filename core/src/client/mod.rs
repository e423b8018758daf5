//! `Client`: one program's client of the service, what its calls share, and its public
//! methods. What the calls do is in the files beside this one, each using only those
//! listed before it:
//! - [`body`]: how a reply body is read (the service's envelope, or not the service's);
//! - [`init`]: the Init handshake, the session secret (held, replaced by a re-Init, owned by
//!   the base URL that issued it), failing over between base URLs, the clock offset learned
//!   from a 1014 refusal;
//! - [`exchange`]: one business request on the session (the Handle entry point), its size
//!   check, when it is sent again (once, for a failure on the way; to another base URL when
//!   this one cannot be reached; after a re-Init on 1001 or a clock correction on 1014);
//! - [`licensed`]: the offline verdicts around an exchange (a login's verdict stored or
//!   answered from the store, a heartbeat or a password change observed) and the start
//!   budget, with the logins that go on in the background.

mod body;
mod exchange;
mod init;
mod licensed;

use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use crate::error::Error;
use crate::log::{log, LogHook, LogLevel};
use crate::net::connect::Origin;
use crate::net::transport::{Settings, Transport, Uri};
use crate::net::url::BaseUrl;
use crate::offline::clock_mark::ClockMark;
use crate::offline::{Offline, Pending};
use crate::options::Options;
use crate::options::MAX_ATTEMPT_DELAY;
use crate::reply::Reply;
use crate::request::ActionRequest;
use crate::session::SessionKind;
use crate::state::Sealed;
use crate::util::deadline::Deadline;
use crate::util::process::Thread;
use crate::util::wiped::Wiped;

pub use exchange::MAX_REQUEST_BYTES;
use init::Session;

/// One base URL of the service (the first, or a mirror).
#[derive(Debug)]
struct Endpoint {
    /// `{base}/api/verify`.
    init_url: String,
    /// The same, parsed.
    init_uri: Uri,
    /// `scheme://host[:port]` as given, for messages.
    origin: String,
    /// `scheme://host:port`, as connections name it.
    line: String,
    /// A loopback host: never through a proxy.
    direct: bool,
}

/// A client of the service for one program (`AppId` + `AppKey`).
///
/// `Client` is `Send + Sync`: share it between threads (for example in an `Arc`). No lock
/// is held across network I/O, and connections are kept alive and reused. Dropping it stops
/// and joins the exchanges it runs in the background (a login that goes on after its start
/// budget ran out).
pub struct Client {
    shared: Arc<Shared>,
}

/// What a client's calls share, with the exchanges it runs in the background.
pub(crate) struct Shared {
    endpoints: Vec<Endpoint>,
    /// The endpoint that answered last: later calls start there.
    current: AtomicUsize,
    app_id: String,
    app_key: Wiped<String>,
    transport: Transport,
    session: Mutex<Option<Session>>,
    generations: AtomicU64,
    clock_offset: AtomicI64,
    /// The offline verdicts, when the host opted in (a state folder and an offline grace).
    offline: Option<Offline>,
    /// Exchanges going on in the background, stopped and joined when the client is dropped.
    background: Mutex<Vec<(Arc<Pending>, Thread)>>,
    log: Option<LogHook>,
    /// The base URL and the options the client was made with (the doctor runs with them).
    made: (String, Options),
}

/// What a client was made with, for the doctor ([`crate::diagnose::diagnose_client`]).
pub(crate) struct MadeWith<'a> {
    pub(crate) base_url: &'a str,
    pub(crate) app_id: &'a str,
    pub(crate) app_key: &'a str,
    pub(crate) options: &'a Options,
}

impl fmt::Debug for Client {
    /// The AppKey and the session secret are never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoints", &self.shared.endpoints)
            .field("app_id", &self.shared.app_id)
            .field("clock_offset", &self.clock_offset())
            .field("offline", &self.shared.offline)
            .finish_non_exhaustive()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.shared.stop_background();
    }
}

impl Client {
    /// A client for the service at `base_url` (`http://` or `https://`, with or without a
    /// trailing `/`; see [`BaseUrl::parse`] for what is refused), for the program `app_id`
    /// with its secret `app_key`, with the default [`Options`]. Nothing is sent until the
    /// first call.
    pub fn new(base_url: &str, app_id: &str, app_key: &str) -> Result<Client, Error> {
        Client::with_options(base_url, app_id, app_key, Options::default())
    }

    /// [`Client::new`] with settings: mirrors, trust, proxy, plain-http opt-in, timeouts,
    /// log hook. Plain `http://` to a host that is not loopback is refused unless
    /// `options.allow_insecure_http` (the api password travels in a header).
    pub fn with_options(
        base_url: &str,
        app_id: &str,
        app_key: &str,
        options: Options,
    ) -> Result<Client, Error> {
        if app_id.is_empty() {
            return Err(Error::invalid_argument("app_id must not be empty"));
        }
        if app_key.is_empty() {
            return Err(Error::invalid_argument("app_key must not be empty"));
        }
        let made = (base_url.to_owned(), options.clone());
        let mut endpoints = Vec::with_capacity(1 + options.mirrors.len());
        let mut service = Vec::new();
        for url in std::iter::once(base_url).chain(options.mirrors.iter().map(String::as_str)) {
            let base = BaseUrl::parse(url)?;
            if !base.is_https() && !base.is_loopback() && !options.allow_insecure_http {
                return Err(Error::invalid_argument(format!(
                    "{} is plain http to a host that is not loopback: the api password would \
                     travel in clear; use https://, or allow insecure http explicitly",
                    base.as_str()
                )));
            }
            let line = Origin::of_base(&base);
            endpoints.push(Endpoint {
                init_url: base.request_url().to_owned(),
                init_uri: base.request_uri().clone(),
                origin: base.origin().to_owned(),
                line: line.label(),
                direct: base.is_loopback(),
            });
            service.push((line, base.is_loopback()));
        }
        if options.connect_timeout.is_zero() || options.call_timeout.is_zero() {
            return Err(Error::invalid_argument(
                "timeouts must be at least 1 millisecond",
            ));
        }
        if options.attempt_delay > MAX_ATTEMPT_DELAY {
            return Err(Error::invalid_argument(format!(
                "the attempt delay of {} ms is over the {} ms allowed",
                options.attempt_delay.as_millis(),
                MAX_ATTEMPT_DELAY.as_millis()
            )));
        }
        if options.offline_grace.is_some() && options.state_folder.is_none() {
            return Err(Error::invalid_argument(
                "an offline grace period needs a state folder to keep the verdict in",
            ));
        }
        if options.start_budget.is_some() && options.offline_grace.is_none() {
            return Err(Error::invalid_argument(
                "a start budget needs an offline grace period: past the budget, the stored \
                 verdict answers",
            ));
        }
        let mut mark = None;
        let state = match &options.state_folder {
            Some(folder) => {
                let identity = match &options.machine_identity {
                    Some(identity) => identity.clone(),
                    None => crate::machine::identity()?,
                };
                let folder = folder.path()?;
                let store = Arc::new(Sealed::new(
                    folder.clone(),
                    app_id,
                    app_key.as_bytes(),
                    identity.as_bytes(),
                    options.log.clone(),
                )?);
                if options.offline_grace.is_some() {
                    mark = Some(ClockMark::open(
                        Arc::clone(&store),
                        &folder,
                        app_id,
                        app_key.as_bytes(),
                        identity.as_bytes(),
                        &options,
                    )?);
                }
                Some(store)
            }
            None => None,
        };
        // With offline verdicts on, a store that cannot be written is refused now, never
        // discovered at the first outage.
        if let (Some(store), Some(_)) = (&state, options.offline_grace) {
            store.check_writable()?;
        }
        let settings = Arc::new(Settings::new(
            options.connection(),
            &service,
            state.clone(),
        )?);
        // Calls start at the remembered winning line's base URL.
        let current = settings
            .lines()
            .remembered()
            .and_then(|line| endpoints.iter().position(|e| e.line == line.label()))
            .unwrap_or(0);
        let offline = match (&state, mark, options.offline_grace) {
            (Some(store), Some(mark), Some(grace)) => Some(Offline::new(
                Arc::clone(store),
                mark,
                grace,
                options.clock_tolerance,
                options.start_budget,
                options.log.clone(),
            )),
            _ => None,
        };
        let shared = Shared {
            endpoints,
            current: AtomicUsize::new(current),
            app_id: app_id.to_owned(),
            app_key: Wiped::new(app_key.to_owned()),
            transport: Transport::new(settings, options.connect_timeout, options.call_timeout),
            session: Mutex::new(None),
            generations: AtomicU64::new(0),
            clock_offset: AtomicI64::new(0),
            offline,
            background: Mutex::default(),
            log: options.log,
            made,
        };
        Ok(Client {
            shared: Arc::new(shared),
        })
    }

    /// Sets the connect and whole-call timeouts (defaults: 10 s and 30 s).
    pub fn set_timeouts(&self, connect: Duration, call: Duration) -> Result<(), Error> {
        self.shared.transport.set_timeouts(connect, call)
    }

    /// The current (connect, call) timeouts.
    pub fn timeouts(&self) -> (Duration, Duration) {
        self.shared.transport.timeouts()
    }

    /// The program's AppId.
    pub fn app_id(&self) -> &str {
        &self.shared.app_id
    }

    /// The base URL, AppId, AppKey and options the client was made with.
    pub(crate) fn made_with(&self) -> MadeWith<'_> {
        let shared = &self.shared;
        MadeWith {
            base_url: &shared.made.0,
            app_id: &shared.app_id,
            app_key: &shared.app_key,
            options: &shared.made.1,
        }
    }

    /// Seconds added to the local clock to get the server's, learned from a 1014 refusal.
    pub fn clock_offset(&self) -> i64 {
        self.shared.clock_offset.load(Ordering::Relaxed)
    }

    /// Whether an Init has succeeded and its session secret is held.
    pub fn has_session(&self) -> bool {
        self.shared.lock_session().is_some()
    }

    /// Runs the Init handshake now (it otherwise runs lazily on the first action).
    /// A refusal (1001, 1010, 1011, 1012, 1013, 1014) is an error carrying the reply.
    pub fn init(&self) -> Result<(), Error> {
        self.init_exchange().map(|_| ())
    }

    /// Init, returning the server's reply: `Ok` only for code 200, else the refusal.
    pub fn init_exchange(&self) -> Result<Reply, Error> {
        self.shared.init_exchange()
    }

    /// Sends a business request and returns the server's reply whatever its code; `Err` only
    /// for local failures, and for an Init refusal when the lazy Init fails (then the error
    /// carries the Init reply).
    ///
    /// With offline verdicts (a state folder and an offline grace), a login (`SingleLogin`,
    /// a password `UserLogin` without a card) that fails for a local reason answers from the
    /// stored verdict when it may (code 202, [`Reply::offline`]), and with a start budget a
    /// login the server has not answered within the budget does too, while the exchange goes
    /// on in the background ([`crate::Keeper::start_from`] follows it).
    pub fn exchange(&self, request: &ActionRequest) -> Result<Reply, Error> {
        Shared::exchange(&self.shared, request)
    }

    /// The last confirmation by the server and the end of the offline grace of the stored
    /// verdict of `kind` (card or account mode) the server confirmed last, when offline
    /// verdicts are on and the store holds one (it holds one per card or account, at most
    /// [`crate::offline::MAX_VERDICTS_PER_MODE`] per mode).
    pub fn offline_confirmation(&self, kind: SessionKind) -> Option<(SystemTime, SystemTime)> {
        self.shared.offline.as_ref()?.confirmation(kind)
    }

    /// [`Client::offline_confirmation`] of the verdict of `request`'s session: a login's card
    /// or account, or the session of a heartbeat's token.
    pub(crate) fn offline_confirmation_of(
        &self,
        request: &ActionRequest,
    ) -> Option<(SystemTime, SystemTime)> {
        self.shared.offline.as_ref()?.confirmation_of(request)
    }

    /// [`Client::exchange`] without offline verdicts (a keeper sends a login again after an
    /// offline start): the server's answer, or the local failure; the store still keeps a
    /// success and is cleared by a refusal.
    pub(crate) fn exchange_online(&self, request: &ActionRequest) -> Result<Reply, Error> {
        let shared = &self.shared;
        let outcome = shared.exchange_within(&shared.transport, request, true);
        if let (Some(offline), Some(login)) = (&shared.offline, request.login()) {
            offline.observe_login(&login, &outcome);
        }
        shared.logged(request, outcome)
    }
}

impl Shared {
    /// The index of the base URL whose connection line is `line` (`scheme://host:port`).
    fn endpoint_of(&self, line: &str) -> Option<usize> {
        self.endpoints.iter().position(|e| e.line == line)
    }

    /// The deadline of a host call starting now: the call timeout bounds all it does.
    fn call_deadline(&self) -> Deadline {
        Deadline::after(self.transport.timeouts().1)
    }

    /// [`Client::exchange`]'s outcome, a failure reported to the log hook.
    fn logged(
        &self,
        request: &ActionRequest,
        outcome: Result<Reply, Error>,
    ) -> Result<Reply, Error> {
        if let Err(error) = &outcome {
            log(&self.log, LogLevel::Error, || {
                format!(
                    "{} failed: {} ({})",
                    request.action,
                    error.message(),
                    error.code()
                )
            });
        }
        outcome
    }

    fn lock_session(&self) -> std::sync::MutexGuard<'_, Option<Session>> {
        // A panic while holding this lock cannot leave the Option half-written.
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes;

    #[test]
    fn base_url_must_be_http_or_https() {
        for bad in ["", "ftp://x", "http://", "localhost:80"] {
            let err = Client::new(bad, "1", "K").expect_err(bad);
            assert_eq!(err.code(), codes::ERR_INVALID_ARGUMENT);
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
