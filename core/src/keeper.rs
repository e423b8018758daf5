//! The session keeper: a background heartbeat after a login, reporting to the host instead
//! of deciding for it.
//!
//! A keeper sends `UserHeartbeat` every interval (default 300 s, as the spec recommends;
//! at least 1 s) with a small random jitter, scheduled on the monotonic clock. It reports:
//! - `Alive` after each successful heartbeat, with the new expiry;
//! - `Message` for a back-office message (the heartbeat's `msg`), exactly once;
//! - `Trouble` when a heartbeat fails for another reason than the end of the session
//!   (network down, timeout, a reply that is not the service's): it retries with bounded
//!   exponential backoff (1 s doubling, at most 60 s or the interval) and the session stays
//!   usable through the grace period (default 15 minutes) counted from the first failure;
//! - `Ended` when the server ends the session (1005 expired, 1006 disabled with its remark,
//!   1007 token invalid) or the grace period runs out; the keeper stops then;
//! - with offline verdicts on (a state folder and an offline grace): `Offline` when the
//!   server cannot be reached any more (the grace then is the offline grace, counted from
//!   the last confirmation in the store, so it carries across restarts), and `Online` when it
//!   confirms the licence again.
//!
//! A keeper started from a login's reply ([`Keeper::start_from`]) follows an offline
//! verdict too: it sends the login again (or waits for the one still going on after a start
//! budget) until the server answers: `Online` with the session then, or `Ended` with the
//! server's code and remark (which clears the stored verdict), or `Ended` when the offline
//! grace runs out. Keepers started from one offline verdict share that login: it is sent
//! once (a count card never loses two uses to one start).
//!
//! Events go to an optional callback, which runs on the keeper's event thread (not the
//! heartbeat thread), so a slow callback delays only the events after it. Without a
//! callback, back-office messages are queued for [`Keeper::take_messages`]; the state is
//! readable at any time with [`Keeper::status`].
//!
//! Heartbeats go over the client's own connections: between the host's calls, a heartbeat
//! reuses the connection the host's calls keep alive, so a kept session costs no second
//! connection. [`Keeper::stop`] (and drop) is prompt: it wakes the wait, interrupts a
//! heartbeat in flight (it shuts down the one socket that heartbeat is blocked on; the
//! host's calls on other connections go on), and joins the threads. It waits for a callback
//! that is running to return.
//!
//! In a process forked from the one that started it, a keeper's threads do not exist: there
//! it reads `Ended` ([`codes::ERR_SYSTEM`], a message saying the process forked), and stop
//! and drop return at once without touching the parent's heartbeat (`util/process.rs`).

use std::collections::hash_map::RandomState;
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread::ThreadId;
use std::time::{Duration, Instant, SystemTime};

use crate::actions::{request, Heartbeat};
use crate::cancel::CancelToken;
use crate::client::Client;
use crate::codes;
use crate::error::{Error, ErrorKind};
use crate::offline::{Pending, Resume};
use crate::reply::Reply;
use crate::request::ActionRequest;
use crate::session::SessionKind;
use crate::util::deadline::Deadline;
use crate::util::process::{Born, Thread};

/// The last message of a keeper read in a process forked from the one that started it.
const FORKED: &str = "the process forked: the keeper's threads run in the parent process \
                      only, where the session goes on; start a keeper in this process to keep \
                      one here";

/// Longest pause between retries while in trouble.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Settings of a keeper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperOptions {
    /// Time between heartbeats: at least 1 s. Default 300 s.
    pub interval: Duration,
    /// How long the session stays usable while heartbeats fail for reasons other than the
    /// end of the session, counted from the first failure. Default 15 minutes.
    pub grace: Duration,
    /// The client IP to report in each heartbeat (`IP`), if any.
    pub ip: Option<String>,
}

impl Default for KeeperOptions {
    fn default() -> Self {
        KeeperOptions {
            interval: Duration::from_secs(300),
            grace: Duration::from_secs(15 * 60),
            ip: None,
        }
    }
}

/// The state of a kept session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeeperState {
    /// The last heartbeat succeeded (or none was due yet since the login).
    Alive,
    /// Heartbeats fail for a reason other than the session's end, or the session was
    /// started from an offline verdict and the server has not confirmed it yet; the grace
    /// period runs.
    Grace,
    /// The session ended (or the keeper was stopped); no more heartbeats.
    Ended,
}

/// What an [`Event`] reports. Later versions may add kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventKind {
    /// A heartbeat succeeded: `expire_at` is the session's expiry.
    Alive,
    /// A message from the back office: `text`, delivered once.
    Message,
    /// A heartbeat (or, offline, a login) failed; the keeper retries within the grace
    /// period.
    Trouble,
    /// The session ended: 1005, 1006 (with `remark`), 1007, another refusal of a login sent
    /// again after an offline start, or the grace period ran out (offline:
    /// `VERIFY_ERR_GRACE_OVER`).
    Ended,
    /// The server cannot be reached (offline verdicts on): the session goes on offline until
    /// `grace_end`.
    Offline,
    /// The server confirmed the licence again (or for the first time after an offline
    /// start): `expire_at` is its expiry.
    Online,
}

/// One report of the keeper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The code of the heartbeat: 200, the server's refusal, or a negative local code.
    pub code: i32,
    /// The server's message, or the local failure's explanation.
    pub message: String,
    /// `data.remark` of a refusal (the reason of a 1006), if any.
    pub remark: Option<String>,
    /// The session's expiry, on `Alive`.
    pub expire_at: Option<String>,
    /// The back-office message, on `Message`.
    pub text: Option<String>,
    /// When the grace period ends, on `Offline` (and `Trouble` while offline).
    pub grace_end: Option<SystemTime>,
}

impl Default for Event {
    /// An `Ended` event with no code: the fields a report leaves empty.
    fn default() -> Event {
        Event {
            kind: EventKind::Ended,
            code: 0,
            message: String::new(),
            remark: None,
            expire_at: None,
            text: None,
            grace_end: None,
        }
    }
}

/// A snapshot of a keeper's state, for hosts that poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeeperStatus {
    /// Alive, in grace, or ended.
    pub state: KeeperState,
    /// Code of the last heartbeat (0 before the first).
    pub last_code: i32,
    /// Message of the last heartbeat.
    pub last_message: String,
    /// Remark of the last refusal, if any.
    pub remark: Option<String>,
    /// When the last heartbeat succeeded (wall clock).
    pub last_success: Option<SystemTime>,
    /// The session's expiry from the last successful heartbeat.
    pub expire_at: Option<String>,
    /// Heartbeats that succeeded.
    pub beats_ok: u64,
    /// Heartbeats that failed (any reason).
    pub beats_failed: u64,
    /// When the server last confirmed the licence: the last successful heartbeat or login,
    /// or, with offline verdicts on, the stored verdict's confirmation (carried across
    /// restarts).
    pub last_confirmed: Option<SystemTime>,
    /// When the grace period ends while heartbeats fail or the session is offline; `None`
    /// while alive.
    pub grace_end: Option<SystemTime>,
}

/// A callback receiving the keeper's events, on the keeper's event thread.
pub type EventCallback = Box<dyn FnMut(&Event) + Send + 'static>;

struct Shared {
    cancel: CancelToken,
    status: Mutex<KeeperStatus>,
    messages: Mutex<VecDeque<String>>,
    queue_messages: bool,
}

impl Shared {
    fn status(&self) -> MutexGuard<'_, KeeperStatus> {
        self.status.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A running session keeper. Stops on drop.
pub struct Keeper {
    shared: Arc<Shared>,
    heartbeat: Mutex<Option<Thread>>,
    events: Mutex<Option<Thread>>,
    events_thread: Option<ThreadId>,
    /// The process that started it: in a forked child its threads do not run.
    born: Born,
}

impl std::fmt::Debug for Keeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keeper")
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

impl Keeper {
    /// Starts keeping the session of `token` (from `single_login`: `SessionKind::Card`; from
    /// `user_login`: `SessionKind::User`) alive. The first heartbeat is sent at once, so that
    /// a token the server does not know ends the session at once (`Ended`, 1007) instead of
    /// reporting a session alive for one interval; the next ones every interval.
    pub fn start(
        client: Arc<Client>,
        token: &str,
        kind: SessionKind,
        options: KeeperOptions,
        on_event: Option<EventCallback>,
    ) -> Result<Keeper, Error> {
        // Checks the token and IP now, so that a bad argument fails the start.
        let request = request::heartbeat(token, kind, options.ip.as_deref())?;
        let mode = Mode::Online {
            request,
            checked: false,
        };
        Keeper::launch(client, mode, options, on_event)
    }

    /// Starts keeping the session of a login's reply: the reply of `single_login` or
    /// `user_login` (or a social login), the server's own (code 200: its token and session
    /// kind) or an offline verdict (code 202, [`Reply::offline`]). From an offline verdict
    /// the keeper waits for the login still going on in the background (after a start
    /// budget), or sends the login again, until the server answers: `Online` and heartbeats
    /// from then on, or `Ended` with the server's refusal; it ends when the offline grace
    /// runs out first. From the server's own reply the token was just issued: the first
    /// heartbeat is sent one interval after the start.
    pub fn start_from(
        client: Arc<Client>,
        reply: &Reply,
        options: KeeperOptions,
        on_event: Option<EventCallback>,
    ) -> Result<Keeper, Error> {
        if let Some(offline) = reply.offline() {
            let resume = Arc::clone(&offline.resume)
                .downcast::<Resume>()
                .map_err(|_| Error::invalid_argument("the offline verdict cannot be resumed"))?;
            let mode = Mode::Offline {
                resume,
                kind: offline.kind,
                seen: None,
                grace_end: offline.grace_end,
            };
            return Keeper::launch(client, mode, options, on_event);
        }
        let (Some(kind), Some(token), codes::OK) =
            (reply.session(), reply.str_field("token"), reply.code())
        else {
            return Err(Error::invalid_argument(
                "the reply is not a successful login with a token, nor an offline verdict",
            ));
        };
        let request = request::heartbeat(token, kind, options.ip.as_deref())?;
        let mode = Mode::Online {
            request,
            checked: true,
        };
        Keeper::launch(client, mode, options, on_event)
    }

    fn launch(
        client: Arc<Client>,
        mode: Mode,
        options: KeeperOptions,
        on_event: Option<EventCallback>,
    ) -> Result<Keeper, Error> {
        if options.interval < Duration::from_secs(1) {
            return Err(Error::invalid_argument(
                "the heartbeat interval must be at least 1 second",
            ));
        }
        let (offline_start, confirmed) = match &mode {
            Mode::Offline {
                grace_end, resume, ..
            } => (
                Some(*grace_end),
                client.offline_confirmation_of(&resume.login),
            ),
            Mode::Online { request, .. } => (None, client.offline_confirmation_of(request)),
        };
        let shared = Arc::new(Shared {
            cancel: CancelToken::new(),
            status: Mutex::new(KeeperStatus {
                state: if offline_start.is_some() {
                    KeeperState::Grace
                } else {
                    KeeperState::Alive
                },
                last_code: 0,
                last_message: String::new(),
                remark: None,
                last_success: None,
                expire_at: None,
                beats_ok: 0,
                beats_failed: 0,
                last_confirmed: confirmed.map(|(at, _)| at),
                grace_end: offline_start,
            }),
            messages: Mutex::new(VecDeque::new()),
            queue_messages: on_event.is_none(),
        });

        let (sender, events, events_thread) = match on_event {
            Some(mut callback) => {
                let (sender, receiver) = mpsc::channel::<Event>();
                let cancel = shared.cancel.clone();
                let handle = std::thread::Builder::new()
                    .name("verify-keeper-events".into())
                    .spawn(move || {
                        for event in receiver {
                            if cancel.is_cancelled() {
                                break;
                            }
                            // A panicking callback must not take the thread down silently
                            // with the events after it; the panic is contained here.
                            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                                callback(&event)
                            }));
                        }
                    })
                    .map_err(|err| {
                        Error::system(format!("cannot start the keeper's event thread: {err}"))
                    })?;
                let id = handle.thread().id();
                (Some(sender), Some(handle), Some(id))
            }
            None => (None, None, None),
        };

        let loop_shared = Arc::clone(&shared);
        let heartbeat = std::thread::Builder::new()
            .name("verify-keeper".into())
            .spawn(move || {
                let mut beat = Beat {
                    client,
                    options,
                    shared: loop_shared,
                    events: sender,
                };
                // Whatever ends the loop, the host sees a final state and event.
                let outcome =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| beat.run(mode)));
                if outcome.is_err() {
                    beat.died();
                }
            });
        let heartbeat = match heartbeat {
            Ok(handle) => handle,
            Err(err) => {
                shared.cancel.cancel();
                if let Some(events) = events {
                    let _ = events.join();
                }
                return Err(Error::system(format!(
                    "cannot start the keeper thread: {err}"
                )));
            }
        };
        Ok(Keeper {
            shared,
            heartbeat: Mutex::new(Some(Thread::new(heartbeat))),
            events: Mutex::new(events.map(Thread::new)),
            events_thread,
            born: Born::here(),
        })
    }

    /// A snapshot of the state. In a process forked from the one that started the keeper,
    /// `Ended` with [`codes::ERR_SYSTEM`] and a message that says why: its threads stayed in
    /// the parent, where the keeper goes on.
    pub fn status(&self) -> KeeperStatus {
        if self.born.is_here() {
            return self.shared.status().clone();
        }
        // The parent's keeper thread may have held the lock when the process forked: then
        // it stays locked in the child, and the state before the fork is not readable.
        let mut status = match self.shared.status.try_lock() {
            Ok(status) => status.clone(),
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().clone(),
            Err(TryLockError::WouldBlock) => KeeperStatus {
                state: KeeperState::Ended,
                last_code: 0,
                last_message: String::new(),
                remark: None,
                last_success: None,
                expire_at: None,
                beats_ok: 0,
                beats_failed: 0,
                last_confirmed: None,
                grace_end: None,
            },
        };
        status.state = KeeperState::Ended;
        status.last_code = codes::ERR_SYSTEM;
        status.last_message = FORKED.to_owned();
        status.remark = None;
        status.grace_end = None;
        status
    }

    /// Back-office messages received since the last call, oldest first. Filled only when
    /// the keeper has no callback (a callback receives them as `Message` events instead).
    pub fn take_messages(&self) -> Vec<String> {
        self.shared
            .messages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect()
    }

    /// Stops the keeper: wakes it, cancels a heartbeat in flight, and joins its threads
    /// (waiting for a callback that is running to return). Idempotent. Called from inside
    /// the keeper's own callback, it joins the heartbeat thread only; the event thread ends
    /// when the callback returns.
    pub fn stop(&self) {
        if !self.born.is_here() {
            // A forked child: the threads are the parent's, and cancelling would shut down
            // the heartbeat's socket, which the parent shares.
            // Their handles are forgotten when the keeper is dropped (`util/process.rs`).
            return;
        }
        self.shared.cancel.cancel();
        let heartbeat = self
            .heartbeat
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = heartbeat {
            handle.join();
        }
        if self.events_thread != Some(std::thread::current().id()) {
            let events = self
                .events
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(handle) = events {
                handle.join();
            }
        }
        let mut status = self.shared.status();
        if status.state != KeeperState::Ended {
            status.state = KeeperState::Ended;
        }
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What a keeper keeps alive.
enum Mode {
    /// A session with a token: heartbeats (the first at once unless the token is `checked`,
    /// fresh from the server's login).
    Online {
        request: ActionRequest,
        checked: bool,
    },
    /// An offline verdict: the login to send again (or the one still going on), until the
    /// offline grace ends.
    Offline {
        resume: Arc<Resume>,
        kind: SessionKind,
        /// The last attempt to confirm the verdict this keeper followed.
        seen: Option<Arc<Pending>>,
        grace_end: SystemTime,
    },
}

/// The heartbeat loop, on the keeper thread.
struct Beat {
    client: Arc<Client>,
    options: KeeperOptions,
    shared: Arc<Shared>,
    events: Option<Sender<Event>>,
}

/// What one heartbeat came to.
enum Outcome {
    Alive(Heartbeat),
    Ended(Event),
    Trouble(Event),
}

/// An attempt to confirm an offline verdict that this keeper runs: should the keeper stop
/// (or panic) before its outcome, the keepers that follow it see a local failure and try
/// again.
struct Unfinished<'a>(&'a Pending);

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        self.0.finish_if_open(|| {
            Err(Error::local(
                ErrorKind::Cancelled,
                "the keeper that sent the login again stopped before its answer",
            ))
        });
    }
}

/// What a login sent again after an offline start came to.
enum Relogin {
    /// The server took it: the session's heartbeat request.
    Online(ActionRequest),
    /// The server refused it.
    Ended(Event),
    /// It failed locally: try again within the grace.
    Trouble(Event),
}

/// How long a wait for a login going on in the background sleeps between looks at the
/// keeper's cancel (a stop returns within 100 ms).
const PENDING_SLICE: Duration = Duration::from_millis(20);

impl Beat {
    /// The loop ended by a panic: report it as the end of the session.
    fn died(&self) {
        if self.shared.cancel.is_cancelled() {
            return;
        }
        let event = Event {
            kind: EventKind::Ended,
            code: codes::ERR_PANIC,
            message: "the keeper thread stopped on an internal error".to_owned(),
            ..Event::default()
        };
        self.record(KeeperState::Ended, &event);
        self.emit(event);
    }

    fn run(&mut self, mut mode: Mode) {
        // Stopping the keeper interrupts the heartbeat in flight on this thread.
        let _watch = self.shared.cancel.watch();
        let mut next = match &mode {
            Mode::Online { checked: false, .. } => Deadline::after(Duration::ZERO),
            Mode::Online { .. } => Deadline::after(jittered(self.options.interval)),
            Mode::Offline { grace_end, .. } => {
                self.emit(Event {
                    kind: EventKind::Offline,
                    code: codes::OFFLINE,
                    message: "started offline from the stored verdict".to_owned(),
                    grace_end: Some(*grace_end),
                    ..Event::default()
                });
                Deadline::after(Duration::ZERO)
            }
        };
        let mut trouble_since: Option<Instant> = None;
        let mut offline = false;
        let mut failures: u32 = 0;
        loop {
            if self.shared.cancel.wait_until(next.instant()) {
                return;
            }
            let now = Instant::now();
            match &mut mode {
                Mode::Offline {
                    resume,
                    kind,
                    seen,
                    grace_end,
                } => {
                    // One login confirms the verdict, whichever keeper sends it: the others
                    // follow its outcome.
                    let (attempt, run) = resume.attempt(seen.as_ref());
                    if run {
                        let _open = Unfinished(&attempt);
                        attempt.finish(self.client.exchange_online(&resume.login));
                    }
                    let Some(outcome) = self.wait_for(&attempt) else {
                        return;
                    };
                    *seen = Some(attempt);
                    if self.shared.cancel.is_cancelled() {
                        return;
                    }
                    match self.logged_in(outcome, *kind) {
                        Relogin::Online(request) => {
                            mode = Mode::Online {
                                request,
                                checked: true,
                            };
                            failures = 0;
                            next = Deadline::at(now, jittered(self.options.interval));
                        }
                        Relogin::Trouble(event) => {
                            match self.offline_trouble(event, *grace_end, &mut failures) {
                                Some(at) => next = at,
                                None => return,
                            }
                        }
                        Relogin::Ended(event) => {
                            self.record(KeeperState::Ended, &event);
                            self.emit(event);
                            return;
                        }
                    }
                }
                Mode::Online { request, .. } => match self.beat(request) {
                    Outcome::Alive(beat) => {
                        trouble_since = None;
                        failures = 0;
                        if std::mem::take(&mut offline) {
                            self.emit(Event {
                                kind: EventKind::Online,
                                code: codes::OK,
                                message: "the server confirmed the licence again".to_owned(),
                                expire_at: beat.expire_at().map(str::to_owned),
                                ..Event::default()
                            });
                        }
                        self.alive(beat);
                        next = Deadline::at(now, jittered(self.options.interval));
                    }
                    Outcome::Ended(event) => {
                        self.record(KeeperState::Ended, &event);
                        self.emit(event);
                        return;
                    }
                    Outcome::Trouble(mut event) => {
                        // With offline verdicts on, the grace is the offline grace, counted
                        // from the last confirmation in the store.
                        if let Some((_, grace_end)) = self.client.offline_confirmation_of(request) {
                            if !std::mem::replace(&mut offline, true) {
                                {
                                    let mut status = self.shared.status();
                                    status.state = KeeperState::Grace;
                                    status.grace_end = Some(grace_end);
                                }
                                self.emit(Event {
                                    kind: EventKind::Offline,
                                    grace_end: Some(grace_end),
                                    ..event.clone()
                                });
                            }
                            match self.offline_trouble(event, grace_end, &mut failures) {
                                Some(at) => next = at,
                                None => return,
                            }
                            continue;
                        }
                        let since = *trouble_since.get_or_insert(now);
                        let grace_end = Deadline::at(since, self.options.grace);
                        if grace_end.passed() {
                            event.kind = EventKind::Ended;
                            event.message = format!(
                                "grace period of {} s ran out: {}",
                                self.options.grace.as_secs(),
                                event.message
                            );
                            self.record(KeeperState::Ended, &event);
                            self.emit(event);
                            return;
                        }
                        let left = grace_end.remaining();
                        event.grace_end = SystemTime::now().checked_add(left);
                        self.record(KeeperState::Grace, &event);
                        self.emit(event);
                        failures = failures.saturating_add(1);
                        next = Deadline::at(now, backoff(failures, self.options.interval))
                            .min(grace_end);
                    }
                },
            }
        }
    }

    /// Waits for a login going on in the background: `None` when the keeper is stopped.
    fn wait_for(&self, pending: &Pending) -> Option<Result<Reply, Error>> {
        loop {
            if let Some(outcome) = pending.wait_until(Instant::now() + PENDING_SLICE) {
                return Some(outcome);
            }
            if self.shared.cancel.is_cancelled() {
                return None;
            }
        }
    }

    /// A login sent again after an offline start: its heartbeat request when the server
    /// took it (reported `Online`), else what it came to.
    fn logged_in(&self, outcome: Result<Reply, Error>, kind: SessionKind) -> Relogin {
        let reply = match outcome {
            Ok(reply) if reply.code() == codes::OK => reply,
            Ok(reply) => return Relogin::Ended(event_of(EventKind::Ended, &Error::refused(reply))),
            Err(error) if error.reply().is_some() => {
                return Relogin::Ended(event_of(EventKind::Ended, &error))
            }
            Err(error) => return Relogin::Trouble(event_of(EventKind::Trouble, &error)),
        };
        let heartbeat = reply
            .str_field("token")
            .ok_or_else(|| Error::protocol("the login's reply (code 200) has no token"))
            .and_then(|token| request::heartbeat(token, kind, self.options.ip.as_deref()));
        let request = match heartbeat {
            Ok(request) => request,
            Err(error) => return Relogin::Trouble(event_of(EventKind::Trouble, &error)),
        };
        let expire_at = reply.str_field("expire_at").map(str::to_owned);
        self.confirmed(&expire_at);
        self.emit(Event {
            kind: EventKind::Online,
            code: codes::OK,
            message: "the server confirmed the licence".to_owned(),
            expire_at,
            ..Event::default()
        });
        Relogin::Online(request)
    }

    /// A failure while offline: `Trouble` until `grace_end`, then `Ended` with
    /// `ERR_GRACE_OVER` (`None`: the keeper stops). Returns when to try again.
    fn offline_trouble(
        &self,
        mut event: Event,
        grace_end: SystemTime,
        failures: &mut u32,
    ) -> Option<Deadline> {
        let left = grace_end
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO);
        if left.is_zero() {
            let ended = Event {
                kind: EventKind::Ended,
                code: codes::ERR_GRACE_OVER,
                message: format!(
                    "the offline grace period is over and the server still cannot be \
                     reached: {}",
                    event.message
                ),
                grace_end: Some(grace_end),
                ..Event::default()
            };
            self.record(KeeperState::Ended, &ended);
            self.emit(ended);
            return None;
        }
        event.grace_end = Some(grace_end);
        self.record(KeeperState::Grace, &event);
        self.shared.status().grace_end = Some(grace_end);
        self.emit(event);
        *failures = failures.saturating_add(1);
        Some(Deadline::after(backoff(*failures, self.options.interval)).min(Deadline::after(left)))
    }

    fn beat(&self, request: &ActionRequest) -> Outcome {
        let reply = match self.client.exchange(request) {
            Ok(reply) => reply,
            Err(error) => return Outcome::Trouble(event_of(EventKind::Trouble, &error)),
        };
        match reply.code() {
            codes::OK => Outcome::Alive(Heartbeat::from(reply)),
            codes::EXPIRED | codes::DISABLED | codes::TOKEN_INVALID => {
                Outcome::Ended(event_of(EventKind::Ended, &Error::refused(reply)))
            }
            _ => Outcome::Trouble(event_of(EventKind::Trouble, &Error::refused(reply))),
        }
    }

    /// The status after the server confirmed the session (a heartbeat, or a login sent again
    /// after an offline start): alive, its expiry, no grace.
    fn confirmed(&self, expire_at: &Option<String>) {
        let mut status = self.shared.status();
        status.state = KeeperState::Alive;
        status.last_code = codes::OK;
        status.last_message.clear();
        status.remark = None;
        status.last_success = Some(SystemTime::now());
        status.last_confirmed = status.last_success;
        status.grace_end = None;
        status.expire_at.clone_from(expire_at);
    }

    fn alive(&self, beat: Heartbeat) {
        let expire_at = beat.expire_at().map(str::to_owned);
        self.confirmed(&expire_at);
        {
            let mut status = self.shared.status();
            status.beats_ok = status.beats_ok.saturating_add(1);
        }
        self.emit(Event {
            kind: EventKind::Alive,
            code: codes::OK,
            expire_at,
            ..Event::default()
        });
        if let Some(text) = beat
            .msg()
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
        {
            if self.shared.queue_messages {
                self.shared
                    .messages
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push_back(text.clone());
            }
            self.emit(Event {
                kind: EventKind::Message,
                code: codes::OK,
                text: Some(text),
                ..Event::default()
            });
        }
    }

    fn record(&self, state: KeeperState, event: &Event) {
        let mut status = self.shared.status();
        if event.code != codes::ERR_PANIC {
            status.beats_failed = status.beats_failed.saturating_add(1);
        }
        status.state = state;
        status.last_code = event.code;
        status.last_message = event.message.clone();
        status.remark = event.remark.clone();
    }

    fn emit(&self, event: Event) {
        if let Some(events) = &self.events {
            // The event thread is gone only when the keeper is stopping.
            let _ = events.send(event);
        }
    }
}

fn event_of(kind: EventKind, error: &Error) -> Event {
    Event {
        kind,
        code: error.code(),
        message: error.message().to_owned(),
        remark: error.remark().map(str::to_owned),
        ..Event::default()
    }
}

/// The interval plus a random jitter of up to 5% of it (at most 10 s), so that many
/// clients started together do not beat in step.
fn jittered(interval: Duration) -> Duration {
    let span = (interval / 20).min(Duration::from_secs(10));
    let span_ms = u64::try_from(span.as_millis()).unwrap_or(0);
    if span_ms == 0 {
        return interval;
    }
    let random = RandomState::new().build_hasher().finish();
    interval.saturating_add(Duration::from_millis(random % span_ms))
}

/// 1 s, 2 s, 4 s, ... after the n-th failure in a row, at most 60 s or the interval.
fn backoff(failures: u32, interval: Duration) -> Duration {
    let doubled = Duration::from_secs(1u64 << failures.saturating_sub(1).min(6));
    doubled.min(MAX_BACKOFF).min(interval)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_bounded() {
        let interval = Duration::from_secs(300);
        let pauses: Vec<u64> = (1..=9).map(|n| backoff(n, interval).as_secs()).collect();
        assert_eq!(pauses, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(backoff(5, Duration::from_secs(3)), Duration::from_secs(3));
    }

    #[test]
    fn jitter_is_small_and_positive() {
        for _ in 0..100 {
            let pause = jittered(Duration::from_secs(300));
            assert!(pause >= Duration::from_secs(300) && pause < Duration::from_secs(310));
        }
        assert_eq!(
            jittered(Duration::from_millis(10)),
            Duration::from_millis(10)
        );
    }
}
