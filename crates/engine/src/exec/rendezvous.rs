//! A step started on cue: several load clients (`--clients`) each run a share of one
//! step, and all of them must start measuring at one agreed instant.
//!
//! Without a rendezvous the clock starts as soon as every connection is ready (the
//! one-machine path). With one, the controller says "ready" once every connection is
//! up, then waits for the start instant the coordinator sends (or its abort), and the
//! measured window starts at that instant; every interval is also handed over with
//! its own latency histogram, so that the coordinator merges per-second percentiles
//! exactly instead of averaging them.

use std::time::{Instant, SystemTime};

use crate::cancel::CancelToken;
use crate::results::IntervalRecord;
use crate::stats::LatencyHistogram;

/// The other side of a step run on cue (the agent, talking to the coordinator).
pub trait StepRendezvous: Sync {
    /// Every connection of the step is open. Returns the instant (this machine's clock)
    /// at which the step's clock starts, or None when the step is called off.
    fn ready(&self) -> Option<SystemTime>;

    /// One interval just recorded, with the histogram of its transaction latencies.
    fn interval(&self, record: &IntervalRecord, latency: &LatencyHistogram);
}

/// `at` on this process's monotonic clock: an instant already past is now.
pub(super) fn instant_of(at: SystemTime) -> Instant {
    let now_wall = SystemTime::now();
    let now = Instant::now();
    match at.duration_since(now_wall) {
        Ok(ahead) => now + ahead,
        Err(_) => now,
    }
}

/// Sleeps until `start` in short naps. False when a cancel came first.
pub(super) fn wait_for_start(start: Instant, cancel: &CancelToken) -> bool {
    super::shared::sleep_until(start, || cancel.is_cancelled())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_wall_clock_instant_maps_to_the_monotonic_clock() {
        let before = Instant::now();
        let at = instant_of(SystemTime::now() + Duration::from_millis(300));
        let ahead = at.duration_since(before);
        assert!(
            ahead >= Duration::from_millis(290) && ahead <= Duration::from_millis(400),
            "{ahead:?}"
        );
        let past = instant_of(SystemTime::now() - Duration::from_secs(5));
        assert!(past >= before, "an instant already past starts now");
    }

    #[test]
    fn a_cancel_ends_the_wait_for_the_start() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let t = Instant::now();
        assert!(!wait_for_start(t + Duration::from_secs(5), &cancel));
        assert!(t.elapsed() < Duration::from_secs(1));
        assert!(wait_for_start(Instant::now(), &CancelToken::new()));
    }
}
