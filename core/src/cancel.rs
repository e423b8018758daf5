//! Cancellation: a flag that wakes waiters at once and interrupts the work in flight on the
//! threads it watches, so that a call fails at once (`ErrorKind::Cancelled`) instead of
//! running out its timeout.
//!
//! A token watches a thread ([`CancelToken::watch`], for as long as the returned [`Watch`]
//! lives): every call of this crate made on that thread is then cancellable by it, in every
//! phase. The calls run on the client's own connections (no second connection pool):
//! - a race for a new connection (DNS lookups, TCP connects, TLS handshakes; `net/race.rs`)
//!   is woken and ends;
//! - a read or write of a connection (sending the request, waiting for the reply; and the
//!   handshakes with a proxy) registers the connection's socket with the token, which shuts
//!   that one socket down on cancel;
//! - a wait (a social login's pause, a login's start budget) wakes.
//!
//! Other threads' calls on the same client are not touched. Unused, a token costs a
//! thread-local read per request and per read or write of a connection (which was there
//! before: the keeper's heartbeats are cancelled the same way).
//!
//! Whether the request may have left when a call was cancelled is known per thread
//! ([`request_may_have_left`]): a cancelled action that changes state on the server says so.

use std::cell::{Cell, RefCell};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use ureq::unversioned::transport::ShutdownHandle;

#[derive(Default)]
struct State {
    cancelled: bool,
    /// The sockets that watched I/O is blocked on right now.
    in_flight: Vec<Weak<dyn ShutdownHandle>>,
}

#[derive(Default)]
struct Inner {
    state: Mutex<State>,
    wake: Condvar,
}

/// A cancellation token. Clones share the flag: cancelling one cancels all.
/// `Send + Sync`; `cancel` may be called from any thread, any number of times.
#[derive(Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CancelToken")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}

thread_local! {
    /// The token whose work runs on this thread, if any (see [`CancelToken::watch`]).
    static WATCHING: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
    /// Whether a byte of the request being sent on this thread may have left (see
    /// [`request_may_have_left`]); kept only while a token watches the thread.
    static LEFT: Cell<bool> = const { Cell::new(false) };
}

/// While alive, the calls made on the thread that made it are watched by a token
/// ([`CancelToken::watch`]); dropped, the thread is watched again by the token that watched
/// it before (if any). Not `Send`: it belongs to its thread.
#[must_use = "the thread is watched only while the Watch lives"]
pub struct Watch {
    previous: Option<CancelToken>,
    /// Not `Send`, not `Sync`: dropped on the thread it watches.
    _thread: std::marker::PhantomData<*const ()>,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let previous = self.previous.take();
        // At a thread's exit the slot may be gone already: nothing is watched any more then.
        let _ = WATCHING.try_with(|watching| *watching.borrow_mut() = previous);
    }
}

/// The token watching this thread's calls, if any.
pub(crate) fn watching() -> Option<CancelToken> {
    WATCHING.with(|watching| watching.borrow().clone())
}

/// A request starts on this thread (watched by a token): none of its bytes has left yet.
pub(crate) fn request_starts() {
    LEFT.with(|left| left.set(false));
}

/// A byte of the request on this thread may leave now (it is being written).
pub(crate) fn request_leaves() {
    LEFT.with(|left| left.set(true));
}

/// Whether a byte of the last request started on this thread may have left: after a
/// cancel, `false` means the server cannot have received it.
pub(crate) fn request_may_have_left() -> bool {
    LEFT.with(Cell::get)
}

/// The error a cancelled connection, or a cancelled race, gives ureq (`transport.rs` reads
/// it back as `ErrorKind::Cancelled`).
#[derive(Debug)]
pub(crate) struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled by the host")
    }
}

impl std::error::Error for Cancelled {}

impl Cancelled {
    /// As ureq's error.
    pub(crate) fn as_ureq() -> ureq::Error {
        ureq::Error::Other(Box::new(Cancelled))
    }
}

/// While alive, a cancel of one token cancels another too ([`CancelToken::forward_to`]).
pub(crate) struct Forward {
    from: CancelToken,
    handle: Arc<dyn ShutdownHandle>,
}

impl Drop for Forward {
    fn drop(&mut self) {
        self.from.leave_io(&Arc::downgrade(&self.handle));
    }
}

/// Wakes a `mio` poll when "shut down": how a cancel (or another thread) reaches a wait on
/// non-blocking sockets (a race, a connect to a proxy).
pub(crate) struct WakePoll(pub(crate) Arc<mio::Waker>);

impl ShutdownHandle for WakePoll {
    fn shutdown(&self) {
        let _ = self.0.wake();
    }
}

/// Cancels a token when "shut down" (registered like a socket with the token it follows).
struct CancelOther(CancelToken);

impl ShutdownHandle for CancelOther {
    fn shutdown(&self) {
        self.0.cancel();
    }
}

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: wakes every wait at once and shuts down the sockets that watched I/O is
    /// blocked on (the request in flight fails at once; the client's other connections
    /// stay open).
    pub fn cancel(&self) {
        let in_flight = {
            let mut state = self.lock();
            state.cancelled = true;
            std::mem::take(&mut state.in_flight)
        };
        self.inner.wake.notify_all();
        for socket in in_flight.iter().filter_map(Weak::upgrade) {
            socket.shutdown();
        }
    }

    /// Whether [`CancelToken::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.lock().cancelled
    }

    /// Waits until `deadline` (monotonic clock) or until cancelled; returns whether it was
    /// cancelled.
    pub fn wait_until(&self, deadline: Instant) -> bool {
        let mut state = self.lock();
        loop {
            if state.cancelled {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            state = self
                .inner
                .wake
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Waits for `duration` (a huge one means "until cancelled") or until cancelled; returns
    /// whether it was cancelled.
    pub fn wait(&self, duration: Duration) -> bool {
        self.wait_until(crate::util::deadline::Deadline::after(duration).instant())
    }

    /// Makes this token watch the calling thread until the returned [`Watch`] is dropped:
    /// every call of this crate made on the thread meanwhile (any action, Init, a social
    /// login's wait) is cancelled by [`CancelToken::cancel`] from any thread, in every phase
    /// (name lookup, connect, TLS, sending, waiting for the reply), within milliseconds, and
    /// fails with `ErrorKind::Cancelled`; once cancelled, later calls on the thread fail at
    /// once until the `Watch` is dropped. An action that changes state on the server,
    /// cancelled after its request may have left, says that the server may have received it;
    /// it is never sent again by the library. Watches nest: dropping one restores the
    /// token that watched before.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), verify_core::Error> {
    /// use verify_core::{CancelToken, Client};
    /// let client = Client::new("https://licensing.example.com", "10001", "APPKEY")?;
    /// let token = CancelToken::new();
    /// let stopper = token.clone(); // give it to the thread that may cancel
    /// let watch = token.watch();
    /// let outcome = client.single_login("CARD-KEY", "MACHINE-CODE", None);
    /// drop(watch);
    /// # let _ = (stopper, outcome);
    /// # Ok(())
    /// # }
    /// ```
    pub fn watch(&self) -> Watch {
        let previous = WATCHING.with(|watching| watching.borrow_mut().replace(self.clone()));
        Watch {
            previous,
            _thread: std::marker::PhantomData,
        }
    }

    /// The token watching the calling thread ([`CancelToken::watch`]), if any.
    pub fn watching_this_thread() -> Option<CancelToken> {
        watching()
    }

    /// While the returned guard lives, a cancel of this token cancels `other` too (at once
    /// when this one is cancelled already).
    pub(crate) fn forward_to(&self, other: &CancelToken) -> Forward {
        let handle: Arc<dyn ShutdownHandle> = Arc::new(CancelOther(other.clone()));
        if !self.enter_io(&Arc::downgrade(&handle)) {
            other.cancel();
        }
        Forward {
            from: self.clone(),
            handle,
        }
    }

    /// Registers `socket` as blocked in watched I/O; `false` (nothing registered) when the
    /// token is already cancelled, and the I/O must not start.
    pub(crate) fn enter_io(&self, socket: &Weak<dyn ShutdownHandle>) -> bool {
        let mut state = self.lock();
        if state.cancelled {
            return false;
        }
        state.in_flight.push(Weak::clone(socket));
        true
    }

    /// Unregisters `socket` after its watched I/O.
    pub(crate) fn leave_io(&self, socket: &Weak<dyn ShutdownHandle>) {
        let mut state = self.lock();
        if let Some(index) = state
            .in_flight
            .iter()
            .position(|held| Weak::ptr_eq(held, socket))
        {
            state.in_flight.swap_remove(index);
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancel_wakes_a_wait_at_once() {
        let token = CancelToken::new();
        let waiter = {
            let token = token.clone();
            std::thread::spawn(move || {
                let started = Instant::now();
                (token.wait(Duration::from_secs(30)), started.elapsed())
            })
        };
        // The waiter may not be waiting yet: cancellation is a state, not an event.
        token.cancel();
        let (cancelled, waited) = waiter.join().expect("waiter");
        assert!(cancelled);
        assert!(waited < Duration::from_secs(5), "{waited:?}");
        assert!(token.is_cancelled());
        assert!(
            token.wait(Duration::from_secs(30)),
            "a cancelled token does not wait"
        );
    }

    #[test]
    fn an_uncancelled_wait_runs_out() {
        let token = CancelToken::new();
        assert!(!token.wait(Duration::from_millis(5)));
    }
}
