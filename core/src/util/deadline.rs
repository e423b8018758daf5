//! Deadlines on the monotonic clock, with saturating arithmetic: a huge timeout or interval
//! from a host means "far in the future", never an overflow.

use std::time::{Duration, Instant};

/// About 30 years: the farthest a deadline is set, whatever duration is asked for.
const FAR: Duration = Duration::from_secs(30 * 365 * 24 * 3600);

/// A point on the monotonic clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Deadline(Instant);

impl Deadline {
    /// `duration` from now (at most about 30 years).
    pub fn after(duration: Duration) -> Deadline {
        Deadline::at(Instant::now(), duration)
    }

    /// `duration` after `start` (at most about 30 years).
    pub fn at(start: Instant, duration: Duration) -> Deadline {
        let capped = duration.min(FAR);
        Deadline(
            start
                .checked_add(capped)
                .or_else(|| start.checked_add(Duration::from_secs(24 * 3600)))
                .unwrap_or(start),
        )
    }

    /// Time left until the deadline (zero once it passed).
    pub fn remaining(&self) -> Duration {
        self.0.saturating_duration_since(Instant::now())
    }

    /// Whether the deadline has passed.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.0
    }

    /// The deadline as an instant.
    pub fn instant(&self) -> Instant {
        self.0
    }

    /// The earlier of two deadlines.
    pub fn min(self, other: Deadline) -> Deadline {
        if other.0 < self.0 {
            other
        } else {
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_durations_saturate() {
        let far = Deadline::after(Duration::MAX);
        assert!(far.remaining() > Duration::from_secs(365 * 24 * 3600));
        assert!(!far.passed());
        let now = Deadline::after(Duration::ZERO);
        assert!(now.passed());
        assert_eq!(now.remaining(), Duration::ZERO);
        assert_eq!(far.min(now), now);
    }
}
