//! When the doctor's steps stop: at its deadline, or within [`SLICE`] of a cancel of the
//! host's token. The steps wait on their sockets and lookups in slices of at most
//! [`SLICE`] and look at both between them (Init, which runs on the client's own
//! connections, is watched by the token itself: `CancelToken::watch`).

use std::time::Duration;

use crate::cancel::CancelToken;
use crate::util::deadline::Deadline;

/// The longest a step waits before it looks at the cancel again.
pub(crate) const SLICE: Duration = Duration::from_millis(10);

/// The doctor's deadline and the host's cancel token, if any.
#[derive(Clone, Debug)]
pub(crate) struct Stop {
    deadline: Deadline,
    cancel: Option<CancelToken>,
}

impl Stop {
    pub(crate) fn new(deadline: Deadline, cancel: Option<CancelToken>) -> Stop {
        Stop { deadline, cancel }
    }

    /// The time left before the deadline.
    pub(crate) fn remaining(&self) -> Duration {
        self.deadline.remaining()
    }

    /// Whether the host cancelled.
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancelToken::is_cancelled)
    }

    /// The host's token, for the work that it watches itself (Init).
    pub(crate) fn token(&self) -> Option<&CancelToken> {
        self.cancel.as_ref()
    }

    /// How long to wait next: the time left, at most [`SLICE`] (zero when cancelled).
    pub(crate) fn slice(&self) -> Duration {
        if self.cancelled() {
            return Duration::ZERO;
        }
        self.remaining().min(SLICE)
    }
}
