//! An exchange that goes on in the background after a start budget, and what an offline
//! verdict needs to be confirmed once the server can be reached.

use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Instant;

use crate::cancel::CancelToken;
use crate::error::Error;
use crate::reply::Reply;
use crate::request::ActionRequest;

/// What an offline verdict needs to go on: the login to send again once the server can be
/// reached (its values are wiped when dropped), and the attempt to confirm it (at first the
/// exchange still going on in the background after a start budget). Held by the reply
/// ([`OfflineInfo`]), shared by every keeper started from it: one offline verdict is
/// confirmed by one login, however many keepers start from it (a count card never loses
/// two uses to one start).
#[derive(Debug)]
pub(crate) struct Resume {
    pub(crate) login: ActionRequest,
    attempt: Mutex<Option<Arc<Pending>>>,
}

impl Resume {
    pub(crate) fn new(login: ActionRequest, pending: Option<Arc<Pending>>) -> Resume {
        Resume {
            login,
            attempt: Mutex::new(pending),
        }
    }

    /// The attempt to follow, and whether the caller must run it (send the login and
    /// [`Pending::finish`] it): the attempt going on, or the one the server answered, is
    /// shared; a new one is made only when there is none, or when the one the caller
    /// already saw (`seen`) failed locally.
    pub(crate) fn attempt(&self, seen: Option<&Arc<Pending>>) -> (Arc<Pending>, bool) {
        let mut slot = self.attempt.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(current) = slot.as_ref() {
            let unseen = seen.is_none_or(|seen| !Arc::ptr_eq(seen, current));
            if unseen || !current.failed_locally() {
                return (Arc::clone(current), false);
            }
        }
        let fresh = Arc::new(Pending::default());
        *slot = Some(Arc::clone(&fresh));
        (fresh, true)
    }
}

/// The outcome of an exchange that goes on in the background.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    outcome: Mutex<Option<Result<Reply, Error>>>,
    done: Condvar,
    /// Cancels the exchange (the client is being freed).
    pub(crate) cancel: CancelToken,
}

impl Pending {
    pub(crate) fn finish(&self, outcome: Result<Reply, Error>) {
        *self.outcome.lock().unwrap_or_else(PoisonError::into_inner) = Some(outcome);
        self.done.notify_all();
    }

    /// Finishes it with `outcome` unless it has an outcome already.
    pub(crate) fn finish_if_open(&self, outcome: impl FnOnce() -> Result<Reply, Error>) {
        let mut held = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        if held.is_none() {
            *held = Some(outcome());
            self.done.notify_all();
        }
    }

    /// Whether it ended without an answer of the server (a local failure).
    fn failed_locally(&self) -> bool {
        matches!(
            &*self.outcome.lock().unwrap_or_else(PoisonError::into_inner),
            Some(Err(error)) if error.reply().is_none()
        )
    }

    /// The outcome once there is one, waiting until `until` at most.
    pub(crate) fn wait_until(&self, until: Instant) -> Option<Result<Reply, Error>> {
        let mut outcome = self.outcome.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(done) = outcome.as_ref() {
                return Some(done.clone());
            }
            let now = Instant::now();
            if now >= until {
                return None;
            }
            outcome = self
                .done
                .wait_timeout(outcome, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}
