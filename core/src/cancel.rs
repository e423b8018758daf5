//! Cancellation of long-running work (the keeper's loop, a social wait): a flag that wakes
//! waiters at once and shuts down the transports attached to it, so that a request in
//! flight fails immediately instead of running out its timeout.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::transport::Transport;

#[derive(Default)]
struct State {
    cancelled: bool,
    transports: Vec<Arc<Transport>>,
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

impl CancelToken {
    /// A token not cancelled yet.
    pub fn new() -> CancelToken {
        CancelToken::default()
    }

    /// Cancels: wakes every wait at once and interrupts requests in flight on the attached
    /// transports.
    pub fn cancel(&self) {
        let transports = {
            let mut state = self.lock();
            state.cancelled = true;
            std::mem::take(&mut state.transports)
        };
        self.inner.wake.notify_all();
        for transport in transports {
            transport.shutdown();
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
        self.wait_until(crate::deadline::Deadline::after(duration).instant())
    }

    /// Attaches a transport to shut down on cancel (at once if already cancelled).
    pub(crate) fn attach(&self, transport: Arc<Transport>) {
        let mut state = self.lock();
        if state.cancelled {
            drop(state);
            transport.shutdown();
        } else {
            state.transports.push(transport);
        }
    }

    /// Detaches a transport attached by [`CancelToken::attach`] once its work is done.
    pub(crate) fn detach(&self, transport: &Arc<Transport>) {
        self.lock()
            .transports
            .retain(|held| !Arc::ptr_eq(held, transport));
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
