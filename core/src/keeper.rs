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
//!   1007 token invalid) or the grace period runs out; the keeper stops then.
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

use std::collections::hash_map::RandomState;
use std::collections::VecDeque;
use std::hash::{BuildHasher, Hasher};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant, SystemTime};

use crate::actions::{request, Heartbeat, SessionKind};
use crate::cancel::CancelToken;
use crate::client::Client;
use crate::codes;
use crate::deadline::Deadline;
use crate::error::Error;

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
    /// Heartbeats fail for a reason other than the session's end; the grace period runs.
    Grace,
    /// The session ended (or the keeper was stopped); no more heartbeats.
    Ended,
}

/// What an [`Event`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A heartbeat succeeded: `expire_at` is the session's expiry.
    Alive,
    /// A message from the back office: `text`, delivered once.
    Message,
    /// A heartbeat failed; the keeper retries within the grace period.
    Trouble,
    /// The session ended: 1005, 1006 (with `remark`), 1007, or the grace period ran out.
    Ended,
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
    heartbeat: Mutex<Option<JoinHandle<()>>>,
    events: Mutex<Option<JoinHandle<()>>>,
    events_thread: Option<ThreadId>,
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
    /// `user_login`: `SessionKind::User`) alive. The first heartbeat is sent one interval
    /// after the start.
    pub fn start(
        client: Arc<Client>,
        token: &str,
        kind: SessionKind,
        options: KeeperOptions,
        on_event: Option<EventCallback>,
    ) -> Result<Keeper, Error> {
        if options.interval < Duration::from_secs(1) {
            return Err(Error::invalid_argument(
                "the heartbeat interval must be at least 1 second",
            ));
        }
        // Checks the token and IP now, so that a bad argument fails the start.
        let request = request::heartbeat(token, kind, options.ip.as_deref())?;
        let shared = Arc::new(Shared {
            cancel: CancelToken::new(),
            status: Mutex::new(KeeperStatus {
                state: KeeperState::Alive,
                last_code: 0,
                last_message: String::new(),
                remark: None,
                last_success: None,
                expire_at: None,
                beats_ok: 0,
                beats_failed: 0,
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
                let beat = Beat {
                    client,
                    request,
                    options,
                    shared: loop_shared,
                    events: sender,
                };
                // Whatever ends the loop, the host sees a final state and event.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| beat.run()));
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
            heartbeat: Mutex::new(Some(heartbeat)),
            events: Mutex::new(events),
            events_thread,
        })
    }

    /// A snapshot of the state.
    pub fn status(&self) -> KeeperStatus {
        self.shared.status().clone()
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
        self.shared.cancel.cancel();
        let heartbeat = self
            .heartbeat
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = heartbeat {
            let _ = handle.join();
        }
        if self.events_thread != Some(std::thread::current().id()) {
            let events = self
                .events
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(handle) = events {
                let _ = handle.join();
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

/// The heartbeat loop, on the keeper thread.
struct Beat {
    client: Arc<Client>,
    request: crate::client::ActionRequest,
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
            remark: None,
            expire_at: None,
            text: None,
        };
        self.record(KeeperState::Ended, &event);
        self.emit(event);
    }

    fn run(&self) {
        // Stopping the keeper interrupts the heartbeat in flight on this thread.
        let _watch = self.shared.cancel.watch();
        let mut next = Deadline::after(jittered(self.options.interval));
        let mut trouble_since: Option<Instant> = None;
        let mut failures: u32 = 0;
        loop {
            if self.shared.cancel.wait_until(next.instant()) {
                return;
            }
            let outcome = self.beat();
            if self.shared.cancel.is_cancelled() {
                return;
            }
            let now = Instant::now();
            match outcome {
                Outcome::Alive(beat) => {
                    trouble_since = None;
                    failures = 0;
                    self.alive(beat);
                    next = Deadline::at(now, jittered(self.options.interval));
                }
                Outcome::Ended(event) => {
                    self.record(KeeperState::Ended, &event);
                    self.emit(event);
                    return;
                }
                Outcome::Trouble(mut event) => {
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
                    self.record(KeeperState::Grace, &event);
                    self.emit(event);
                    failures = failures.saturating_add(1);
                    next =
                        Deadline::at(now, backoff(failures, self.options.interval)).min(grace_end);
                }
            }
        }
    }

    fn beat(&self) -> Outcome {
        let reply = match self.client.exchange(&self.request) {
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

    fn alive(&self, beat: Heartbeat) {
        let expire_at = beat.expire_at().map(str::to_owned);
        {
            let mut status = self.shared.status();
            status.state = KeeperState::Alive;
            status.last_code = codes::OK;
            status.last_message.clear();
            status.remark = None;
            status.last_success = Some(SystemTime::now());
            status.expire_at.clone_from(&expire_at);
            status.beats_ok = status.beats_ok.saturating_add(1);
        }
        self.emit(Event {
            kind: EventKind::Alive,
            code: codes::OK,
            message: String::new(),
            remark: None,
            expire_at,
            text: None,
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
                message: String::new(),
                remark: None,
                expire_at: None,
                text: Some(text),
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
        expire_at: None,
        text: None,
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
