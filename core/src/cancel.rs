//! Cancellation of long-running work (the keeper's loop, a social wait): a flag that wakes
//! waiters at once and interrupts the request in flight on the thread that watches it, so
//! that it fails immediately instead of running out its timeout.
//!
//! The work runs on the client's own connections (no second connection pool): the thread
//! doing it calls [`CancelToken::watch`], and while the scope lives every read and write of
//! a connection on that thread registers the connection's socket with the token, which
//! shuts that one socket down on cancel. Other threads' calls on the same client are not
//! touched.

use std::cell::RefCell;
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
}

/// While alive, the I/O of this thread is watched by a token; restores the previous one
/// when dropped.
pub(crate) struct Watch {
    previous: Option<CancelToken>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let previous = self.previous.take();
        WATCHING.with(|watching| *watching.borrow_mut() = previous);
    }
}

/// The token watching this thread's I/O, if any.
pub(crate) fn watching() -> Option<CancelToken> {
    WATCHING.with(|watching| watching.borrow().clone())
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

    /// Makes this token watch the calling thread's requests until the returned scope is
    /// dropped: a cancel interrupts them.
    pub(crate) fn watch(&self) -> Watch {
        let previous = WATCHING.with(|watching| watching.borrow_mut().replace(self.clone()));
        Watch { previous }
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
