//! `Client`: the Init handshake, the Handle entry point, the session secret, re-init and
//! the clock offset (DESIGN section 4).

use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::clock_mark::ClockMark;
use crate::codes;
use crate::connect::Origin;
use crate::deadline::Deadline;
use crate::error::{Error, ErrorKind};
use crate::log::{log, LogHook, LogLevel};
use crate::offline::{heartbeat_kind, is_local, session_of, Login, Offline, Pending};
use crate::options::Options;
use crate::options::MAX_ATTEMPT_DELAY;
use crate::process::Thread;
use crate::reply::Reply;
pub use crate::request::ActionRequest;
use crate::session::SessionKind;
use crate::state::Sealed;
use crate::transport::{
    none_reachable, wiped_shared, HeaderValue, HttpReply, SendError, Settings, Transport, Uri,
};
use crate::url::BaseUrl;
use crate::wiped::{Wipe, Wiped};
use crate::wire;

/// The largest request body the library sends: 1 MiB (servers of this kind cap theirs).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;
/// The body around `Data`: `TimeStamp=..&Data=&Sign=<32 hex>` (see `wire::handle_body`).
const BODY_OVERHEAD: usize = 96;

/// What the client checks of a request before anything is sent.
impl ActionRequest {
    /// Refuses a request whose body would exceed [`MAX_REQUEST_BYTES`] (`Data` is the hex of
    /// the plaintext: twice its length), before anything is sent.
    pub fn check_size(&self) -> Result<(), Error> {
        // Percent-encoding at most triples a character: this bound is exact enough.
        let bound: usize = self.action.len() * 3
            + self
                .params()
                .iter()
                .map(|(k, v)| 2 + 3 * (k.len() + v.len()))
                .sum::<usize>();
        let body = |plaintext: usize| plaintext.saturating_mul(2).saturating_add(BODY_OVERHEAD);
        if body(bound) <= MAX_REQUEST_BYTES {
            return Ok(());
        }
        let exact = Wiped::new(wire::plaintext(&self.action, self.params())).len();
        if body(exact) <= MAX_REQUEST_BYTES {
            return Ok(());
        }
        Err(Error::local(
            ErrorKind::TooLarge,
            format!(
                "{} request of {} bytes of parameters would make a body of {} bytes, over the \
                 {MAX_REQUEST_BYTES} the library sends",
                self.action,
                exact,
                body(exact)
            ),
        ))
    }
}

/// The session secret of one Init, shared by the calls that use it; wiped when the last
/// user drops it. It belongs to the server (endpoint) that issued it.
#[derive(Clone)]
struct Session {
    api_password: Arc<Wiped<String>>,
    /// `{base}/api/verify/{ApiPassword}`, parsed once per session over wiped bytes (its
    /// clones, one per call, share them).
    handle_url: Uri,
    /// The `X-Api-Password` header, the same way.
    password_header: HeaderValue,
    generation: u64,
    endpoint: usize,
}

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
            let origin = origin_of(base.as_str());
            let init_url = format!("{}/api/verify", base.as_str());
            let init_uri = Uri::try_from(init_url.as_str()).map_err(|err| {
                Error::invalid_argument(format!("{} is not a usable URL: {err}", base.as_str()))
            })?;
            let line = Origin::of(&init_uri).ok_or_else(|| {
                Error::invalid_argument(format!("{} has no host or port", base.as_str()))
            })?;
            endpoints.push(Endpoint {
                init_url,
                init_uri,
                origin,
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
        let settings = Arc::new(Settings::new(&options, &service, state.clone())?);
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
    /// verdict of `kind` (card or account mode), when offline verdicts are on and the store
    /// holds one.
    pub fn offline_confirmation(&self, kind: SessionKind) -> Option<(SystemTime, SystemTime)> {
        self.shared.offline.as_ref()?.confirmation(kind)
    }

    /// [`Client::exchange`] without offline verdicts (a keeper sends a login again after an
    /// offline start): the server's answer, or the local failure; the store still keeps a
    /// success and is cleared by a refusal.
    pub(crate) fn exchange_online(&self, request: &ActionRequest) -> Result<Reply, Error> {
        let shared = &self.shared;
        let outcome = shared.exchange_within(&shared.transport, request, true);
        if let (Some(offline), Some(login)) = (&shared.offline, Login::of(request)) {
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

    fn init_exchange(&self) -> Result<Reply, Error> {
        let generation = self.lock_session().as_ref().map(|s| s.generation);
        let deadline = self.call_deadline();
        let start = self.current.load(Ordering::Relaxed);
        self.init_failover(&self.transport, generation, deadline, start, true)
            .map(|(reply, _)| reply)
    }

    /// The deadline of a host call starting now: the call timeout bounds all it does.
    fn call_deadline(&self) -> Deadline {
        Deadline::after(self.transport.timeouts().1)
    }

    /// [`Client::exchange`]: a login with offline verdicts goes through [`Shared::licensed`].
    fn exchange(shared: &Arc<Shared>, request: &ActionRequest) -> Result<Reply, Error> {
        if let (Some(offline), Some(login)) = (&shared.offline, Login::of(request)) {
            return shared.licensed(shared, offline, login, request);
        }
        let outcome = shared.exchange_within(&shared.transport, request, true);
        if let (Some(offline), Some(kind)) = (&shared.offline, heartbeat_kind(request)) {
            offline.observe_heartbeat(kind, &outcome);
        }
        if let (Some(offline), "UpdatePwd") = (&shared.offline, request.action.as_str()) {
            offline.observe_password_change(request, &outcome);
        }
        shared.logged(request, outcome)
    }

    /// A login with offline verdicts: the server's answer is stored (or clears the store);
    /// a local failure answers from the store when it may. With a start budget and a store
    /// that may answer, the exchange runs in the background: an answer within the budget is
    /// the verdict, else the store answers and the exchange goes on.
    fn licensed(
        &self,
        shared: &Arc<Shared>,
        offline: &Offline,
        login: Login,
        request: &ActionRequest,
    ) -> Result<Reply, Error> {
        let answers = offline.could_answer(&login);
        let Some(budget) = offline.budget().filter(|_| answers) else {
            // A stored verdict that may answer waits for one connect timeout at most: a
            // request that timed out or could not connect is not sent again.
            let outcome = self.exchange_within(&self.transport, request, !answers);
            offline.observe_login(&login, &outcome);
            return match outcome {
                Err(failure) if is_local(&failure) && failure.reply().is_none() => {
                    self.logged(request, offline.answer(&login, request, failure, None))
                }
                other => self.logged(request, other),
            };
        };
        let pending = Arc::new(Pending::default());
        let worker = Arc::clone(shared);
        let finished = Arc::clone(&pending);
        let owned = request.clone();
        let started = std::thread::Builder::new()
            .name("verify-login".into())
            .spawn(move || {
                let _watch = finished.cancel.watch();
                let outcome = worker.exchange_within(&worker.transport, &owned, true);
                if let (Some(offline), Some(login)) = (&worker.offline, Login::of(&owned)) {
                    offline.observe_login(&login, &outcome);
                }
                let outcome = worker.logged(&owned, outcome);
                finished.finish(outcome);
            })
            .map_err(|err| Error::system(format!("cannot start the login's thread: {err}")))?;
        self.keep_in_background(Arc::clone(&pending), Thread::new(started));
        if let Some(outcome) = pending.wait_until(Instant::now() + budget) {
            return match outcome {
                Err(failure) if is_local(&failure) && failure.reply().is_none() => {
                    offline.answer(&login, request, failure, None)
                }
                other => other,
            };
        }
        let failure = Error::local(
            ErrorKind::Timeout,
            format!(
                "the server did not answer within the start budget of {} ms; the exchange \
                 goes on in the background",
                budget.as_millis()
            ),
        );
        offline.answer(&login, request, failure, Some(pending))
    }

    /// Keeps a background exchange, to stop and join it when the client is dropped.
    fn keep_in_background(&self, pending: Arc<Pending>, thread: Thread) {
        let mut background = self
            .background
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        background.retain(|(_, thread)| !thread.is_finished());
        background.push((pending, thread));
    }

    /// Stops the exchanges going on in the background (their connections are shut down) and
    /// joins their threads. A forked child leaves its parent's alone: their sockets are the
    /// parent's too, and their threads run in the parent only.
    fn stop_background(&self) {
        let background = std::mem::take(
            &mut *self
                .background
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for (pending, thread) in &background {
            if thread.is_here() {
                pending.cancel.cancel();
            }
        }
        for (_, thread) in background {
            thread.join();
        }
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

    /// Sends `request` on the current session (a lazy Init first); `resend`: whether a
    /// request that failed on the way (a timeout, a broken connection) may be sent again
    /// once.
    fn exchange_within(
        &self,
        transport: &Transport,
        request: &ActionRequest,
        resend: bool,
    ) -> Result<Reply, Error> {
        request.check_size()?;
        let deadline = self.call_deadline();
        let mut session = self.current_session(transport, deadline, resend)?;
        let mut reinit_done = false;
        let mut clock_done = false;
        let mut resend_done = !resend;
        let mut failovers = 0;
        let mut moves = 0;
        loop {
            let http = match self.post_handle(transport, &session, request, deadline) {
                Ok(http) => http,
                Err(failure) => {
                    let here = &self.endpoints[session.endpoint];
                    // Another base URL won the race for the connection: nothing was sent;
                    // the session moves there (a new Init there).
                    let winner = failure
                        .elsewhere
                        .as_deref()
                        .and_then(|l| self.endpoint_of(l));
                    if let Some(winner) = winner.filter(|_| moves < self.endpoints.len()) {
                        moves += 1;
                        log(&self.log, LogLevel::Warn, || {
                            format!(
                                "{}: {} unreachable or slower: {} connected first; running \
                                 Init there",
                                request.action, here.origin, self.endpoints[winner].origin
                            )
                        });
                        session = self
                            .init_failover(
                                transport,
                                Some(session.generation),
                                deadline,
                                winner,
                                resend,
                            )?
                            .1;
                        continue;
                    }
                    // The request never reached this server: another one may take it (a new
                    // Init there: the session belongs to the server that issued it).
                    if failure.unreachable && failovers + 1 < self.endpoints.len() {
                        failovers += 1;
                        let next = (session.endpoint + 1) % self.endpoints.len();
                        log(&self.log, LogLevel::Warn, || {
                            format!(
                                "{}: {} unreachable ({}); failing over",
                                request.action,
                                here.origin,
                                failure.error.message()
                            )
                        });
                        session = self
                            .init_failover(
                                transport,
                                Some(session.generation),
                                deadline,
                                next,
                                resend,
                            )?
                            .1;
                        continue;
                    }
                    if !resend_done
                        && failure.worth_resending(request.repeatable)
                        && !deadline.passed()
                    {
                        resend_done = true;
                        log(&self.log, LogLevel::Warn, || {
                            format!(
                                "{} to {} failed ({}); sending it again",
                                request.action,
                                here.origin,
                                failure.error.message()
                            )
                        });
                        continue;
                    }
                    return Err(failure.error);
                }
            };
            let reply = parse(&http)?
                .with_date(http.date())
                .with_session(session_of(request));
            match reply.code() {
                codes::PROGRAM_NOT_FOUND if !reinit_done => {
                    reinit_done = true;
                    log(&self.log, LogLevel::Warn, || {
                        format!(
                            "{}: the server no longer knows the session (1001); running Init \
                             again",
                            request.action
                        )
                    });
                    session = self
                        .run_init(
                            transport,
                            Some(session.generation),
                            deadline,
                            session.endpoint,
                            resend,
                        )
                        .map_err(|failure| failure.error)?
                        .1;
                }
                codes::TIMESTAMP_SKEW if !clock_done && self.learn_clock(&http) => {
                    clock_done = true;
                }
                _ => return Ok(reply),
            }
        }
    }

    /// The held session, or a new one from a lazy Init.
    fn current_session(
        &self,
        transport: &Transport,
        deadline: Deadline,
        resend: bool,
    ) -> Result<Session, Error> {
        if let Some(session) = self.lock_session().clone() {
            return Ok(session);
        }
        let start = self.current.load(Ordering::Relaxed);
        self.init_failover(transport, None, deadline, start, resend)
            .map(|(_, session)| session)
    }

    /// Runs Init on the endpoint `start`, then on the next ones while an endpoint cannot be
    /// reached (DNS, connect or TLS failure); the one that answers becomes the current one.
    /// When none can be reached, the error names each URL and why.
    fn init_failover(
        &self,
        transport: &Transport,
        stale: Option<u64>,
        deadline: Deadline,
        start: usize,
        resend: bool,
    ) -> Result<(Reply, Session), Error> {
        let count = self.endpoints.len();
        let mut failures: Vec<(String, Error)> = Vec::new();
        let mut index = start % count.max(1);
        let mut moves = 0;
        loop {
            let failure = match self.run_init(transport, stale, deadline, index, resend) {
                Ok(done) => {
                    self.current.store(index, Ordering::Relaxed);
                    return Ok(done);
                }
                Err(failure) => failure,
            };
            let here = &self.endpoints[index].origin;
            // Another base URL won the race for the connection: Init goes there.
            let winner = failure
                .elsewhere
                .as_deref()
                .and_then(|l| self.endpoint_of(l));
            if let Some(winner) = winner.filter(|_| moves < count) {
                moves += 1;
                log(&self.log, LogLevel::Warn, || {
                    format!(
                        "Init: {here} unreachable or slower: {} connected first; Init goes there",
                        self.endpoints[winner].origin
                    )
                });
                index = winner;
                continue;
            }
            if !failure.unreachable {
                return Err(failure.error);
            }
            failures.push((here.clone(), failure.error));
            if failures.len() >= count {
                return Err(if failures.len() == 1 {
                    failures.remove(0).1
                } else {
                    none_reachable(&failures)
                });
            }
            let next = (index + 1) % count;
            log(&self.log, LogLevel::Warn, || {
                format!(
                    "Init: {here} unreachable ({}); trying {}",
                    failures.last().map_or("", |(_, error)| error.message()),
                    self.endpoints[next].origin
                )
            });
            index = next;
        }
    }

    /// Runs Init unless another thread already replaced the session `stale` (then its newer
    /// session is used). Retries once on 1014 with the server's clock, and once when the
    /// request surely did not reach the server.
    fn run_init(
        &self,
        transport: &Transport,
        stale: Option<u64>,
        deadline: Deadline,
        endpoint: usize,
        resend: bool,
    ) -> Result<(Reply, Session), SendError> {
        let here = &self.endpoints[endpoint];
        let fail = |error: Error| SendError::new(error, true, false);
        let mut clock_done = false;
        let mut resend_done = !resend;
        loop {
            let timestamp = self.timestamp();
            let sign = wire::init_sign(&self.app_id, &self.app_key, &timestamp);
            let body = wire::form_body(&[
                ("AppId", self.app_id.as_str()),
                ("AppKey", self.app_key.as_str()),
                ("TimeStamp", timestamp.as_str()),
                ("Sign", sign.as_str()),
            ]);
            let sent =
                transport.post_form(&here.init_uri, &[], body.as_bytes(), deadline, here.direct);
            let mut http = match sent {
                Ok(http) => http,
                // Init changes no state on the server: sending it again is harmless, unless
                // another server may answer.
                Err(failure)
                    if failure.worth_resending(true)
                        && !(resend_done
                            || deadline.passed()
                            || (failure.unreachable && self.endpoints.len() > 1)) =>
                {
                    resend_done = true;
                    log(&self.log, LogLevel::Warn, || {
                        format!(
                            "Init to {} failed ({}); sending it again",
                            here.origin,
                            failure.error.message()
                        )
                    });
                    continue;
                }
                Err(failure) => return Err(failure),
            };
            let parsed = parse(&http);
            // The raw body holds the session secret: wipe it as soon as it is parsed.
            http.body.wipe_now();
            // The Date travels with the reply (a refusal's too): the doctor reads the clock.
            let mut reply = parsed.map_err(fail)?.with_date(http.date());
            log(&self.log, LogLevel::Info, || {
                format!("Init with {}: code {}", here.init_url, reply.code())
            });
            if reply.code() == codes::TIMESTAMP_SKEW && !clock_done && self.learn_clock(&http) {
                clock_done = true;
                continue;
            }
            if reply.code() != codes::OK {
                return Err(fail(Error::refused(reply)));
            }
            // The secret is taken out of the reply: hosts see the reply, never the secret.
            let api_password = match reply.take_field("api_password") {
                // It keys RC4 and travels in a header and in the path: 1 to 256 bytes without
                // control characters (a line break could never travel in the header).
                Some(Value::String(secret))
                    if (1..=256).contains(&secret.len())
                        && !secret.chars().any(char::is_control) =>
                {
                    Wiped::new(secret)
                }
                Some(Value::String(mut secret)) => {
                    secret.wipe();
                    return Err(fail(Error::protocol(
                        "Init reply `api_password` is empty, longer than 256 bytes, or holds a \
                         control character",
                    )));
                }
                _ => {
                    return Err(fail(Error::protocol(
                        "Init reply (code 200) has no string `api_password`",
                    )))
                }
            };
            let mut held = self.lock_session();
            if let (Some(current), Some(stale)) = (held.as_ref(), stale) {
                if current.generation != stale {
                    // Another thread re-initialized meanwhile; keep its session.
                    return Ok((reply, current.clone()));
                }
            }
            let encoded = Wiped::new(wire::encode_component(&api_password));
            let handle_url = Wiped::new(format!("{}/{}", here.init_url, encoded.as_str()));
            // Percent-encoded, the secret makes a valid path; without control characters, a
            // valid header value: these only keep a failure free of a panic.
            let handle_url = Uri::from_maybe_shared(wiped_shared(handle_url.as_bytes()))
                .map_err(|_| fail(Error::protocol("Init reply `api_password` makes no URL")))?;
            let mut password_header = HeaderValue::from_maybe_shared(wiped_shared(
                api_password.as_bytes(),
            ))
            .map_err(|_| {
                fail(Error::protocol(
                    "Init reply `api_password` is no header value",
                ))
            })?;
            // Its `Debug` prints `Sensitive`, not the secret.
            password_header.set_sensitive(true);
            let session = Session {
                api_password: Arc::new(api_password),
                handle_url,
                password_header,
                generation: self.generations.fetch_add(1, Ordering::Relaxed) + 1,
                endpoint,
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
        deadline: Deadline,
    ) -> Result<HttpReply, SendError> {
        let api_password = session.api_password.as_str();
        let plaintext = Wiped::new(wire::plaintext(&request.action, request.params()));
        let timestamp = self.timestamp();
        let body = wire::handle_body(api_password, &plaintext, &timestamp).map_err(|bad| {
            SendError::new(
                Error::protocol(format!("session secret of {} bytes cannot key RC4", bad.0)),
                false,
                false,
            )
        })?;

        let endpoint = &self.endpoints[session.endpoint];
        transport.post_form(
            &session.handle_url,
            &[("X-Api-Password", &session.password_header)],
            &body,
            deadline,
            endpoint.direct,
        )
    }

    /// Keeps the offset to the server's clock from a reply's `Date` header. Returns whether
    /// it changed (only then is a retry useful).
    fn learn_clock(&self, http: &HttpReply) -> bool {
        let Some(server) = http.date().map(unix_seconds) else {
            return false;
        };
        let offset = server.saturating_sub(unix_seconds(SystemTime::now()));
        let changed = self.clock_offset.swap(offset, Ordering::Relaxed) != offset;
        if changed {
            log(&self.log, LogLevel::Warn, || {
                format!("timestamp refused (1014): the clock is corrected by {offset} s from the reply's Date header; sending again")
            });
        }
        changed
    }

    /// `TimeStamp`: Unix seconds on the corrected clock, taken per request.
    fn timestamp(&self) -> String {
        (unix_seconds(SystemTime::now()) + self.clock_offset.load(Ordering::Relaxed)).to_string()
    }

    fn lock_session(&self) -> std::sync::MutexGuard<'_, Option<Session>> {
        // A panic while holding this lock cannot leave the Option half-written.
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `scheme://host[:port]` of a base URL.
fn origin_of(base: &str) -> String {
    match base.split_once("://") {
        Some((scheme, rest)) => {
            format!("{scheme}://{}", rest.split('/').next().unwrap_or(rest))
        }
        None => base.to_owned(),
    }
}

/// Parses a reply body; a body that is not the service's envelope is a protocol error that
/// names the HTTP status. A redirect (3xx) is never taken as the service's answer, whatever
/// its body: it names its status and the origin of its `Location`. A reply that is not the
/// service's at all (a redirect, or a body that is no JSON object with a `code`: an HTTP
/// error page, HTML, empty, cut short) is marked as such: for an offline verdict it is an
/// outage (the service was not reached); a JSON object with a `code` never is.
fn parse(http: &HttpReply) -> Result<Reply, Error> {
    if (300..400).contains(&http.status) {
        let target = http.location.as_deref().unwrap_or("no Location");
        return Err(Error::not_the_service(format!(
            "HTTP {} redirect to {target} (redirects are not followed): the base URL should be \
             the service itself",
            http.status
        )));
    }
    Reply::from_body(&http.body).map_err(|detail| {
        let status = match http.status {
            200 => String::new(),
            status => format!("HTTP {status}: "),
        };
        if has_code(&http.body) {
            Error::protocol(format!("{status}{detail}"))
        } else {
            Error::not_the_service(format!("{status}{detail}"))
        }
    })
}

/// Whether `body` is a JSON object with a `code` member (the service's, whatever else is
/// wrong with it).
fn has_code(body: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Map<String, Value>>(body)
        .is_ok_and(|object| object.contains_key("code"))
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
            assert_eq!(err.code(), codes::ERR_INVALID_ARGUMENT);
        }
        assert!(Client::new("HTTP://127.0.0.1:1/", "1", "K").is_ok());
    }

    #[test]
    fn oversized_requests_are_refused_before_sending() {
        let fits = ActionRequest::new("GetVariable", true).param("Name", &"a".repeat(400_000));
        assert!(fits.check_size().is_ok());
        let big = ActionRequest::new("GetVariable", true).param("Name", &"a".repeat(600_000));
        let err = big.check_size().expect_err("over 1 MiB of body");
        assert_eq!(err.code(), codes::ERR_TOO_LARGE);
        assert!(err.message().contains("1048576"), "{}", err.message());
        // Escaped characters count three times: 200k of them is over the cap.
        let escaped = ActionRequest::new("GetVariable", true).param("Name", &"&".repeat(200_000));
        assert!(escaped.check_size().is_err());
    }

    #[test]
    fn debug_hides_secrets() {
        let client = Client::new("http://127.0.0.1:1", "1", "TOPSECRETKEY").expect("client");
        assert!(!format!("{client:?}").contains("TOPSECRET"));
        let request = ActionRequest::new("UserLogin", true).param("Password", "hunter2");
        assert!(!format!("{request:?}").contains("hunter2"));
    }
}
