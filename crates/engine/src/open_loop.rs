//! Open-loop load: transactions arrive on a schedule (`--rate`, `--rates`), whether or
//! not the server keeps up, and each one's latency counts from when it was meant to
//! start. A closed loop (a fixed number of threads, each starting its next transaction
//! when the last one ends) slows down with the server, so a stall delays the few
//! transactions in flight and hides the many that would have arrived meanwhile: the
//! "coordinated omission" that makes closed-loop percentiles look better than what
//! users see.
//!
//! This module holds the pure parts: the arrival schedule (fixed interval or Poisson),
//! how many connections a rate step opens, and what counts as a sustained rate. The
//! worker loop (`exec::worker`) follows the schedule; the step's controller samples the
//! queue once per interval.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// How arrivals are spaced at a given rate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum RateDist {
    /// One arrival every `1 / rate` seconds: the queue a step shows is the server's
    /// doing, not the arrivals' bursts.
    #[default]
    Fixed,
    /// Exponential gaps of mean `1 / rate` (independent users), drawn from the run's
    /// `--rand-seed` when one is given. sysbench 1.0's `--rate` spaces its events so
    /// (its event generator thread, `eventgen_thread_proc`).
    Poisson,
}

impl RateDist {
    pub fn name(self) -> &'static str {
        match self {
            RateDist::Fixed => "fixed",
            RateDist::Poisson => "poisson",
        }
    }
}

impl std::fmt::Display for RateDist {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for RateDist {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "fixed" => Ok(RateDist::Fixed),
            "poisson" => Ok(RateDist::Poisson),
            other => Err(format!(
                "unknown rate distribution '{other}' (fixed, poisson)"
            )),
        }
    }
}

/// Little's law: connections busy at once = arrival rate × mean latency. A rate step
/// opens enough for a mean latency of [`LATENCY_ALLOWANCE_S`] (twice a 25 ms budget, so
/// Poisson bursts and slower seconds find a free connection), at least
/// [`MIN_CONNECTIONS`] and at most [`MAX_CONNECTIONS`]. Slower than that, the step
/// falls behind, and says so (late starts, a queue, "not sustained").
pub const LATENCY_ALLOWANCE_S: f64 = 0.050;
pub const MIN_CONNECTIONS: u32 = 4;
pub const MAX_CONNECTIONS: u32 = 256;

/// The connections a rate step opens at `rate` transactions per second.
pub fn connections_for_rate(rate: f64) -> u32 {
    let want = (rate * LATENCY_ALLOWANCE_S).ceil();
    if !want.is_finite() {
        return MAX_CONNECTIONS;
    }
    (want as u32).clamp(MIN_CONNECTIONS, MAX_CONNECTIONS)
}

/// A transaction that begins more than this after its intended start is a late start:
/// no connection was free when it was due. Below it is the timer's own jitter.
pub const LATE_AFTER_US: u64 = 1_000;

/// A step sustained its rate when it completed at least this share of the target...
pub const SUSTAINED_SHARE: f64 = 0.95;
/// ...and ended with no more than this many seconds of arrivals still waiting.
pub const SUSTAINED_BACKLOG_S: f64 = 1.0;

/// Why a step did not sustain its target rate, or None when it did.
pub fn unsustained_reason(target: f64, achieved: f64, queue_at_end: u64) -> Option<String> {
    if target <= 0.0 {
        return None;
    }
    if achieved < SUSTAINED_SHARE * target {
        return Some(format!(
            "achieved {achieved:.1}/s, below {:.0}% of the target {target:.0}/s",
            SUSTAINED_SHARE * 100.0
        ));
    }
    let backlog_s = queue_at_end as f64 / target;
    if backlog_s > SUSTAINED_BACKLOG_S {
        return Some(format!(
            "{queue_at_end} arrivals ({backlog_s:.1}s of load) still waiting when the step ended"
        ));
    }
    None
}

/// The intended start of every transaction of a step, as seconds after the step's
/// clock started. Workers take arrivals in order; the controller asks how many are due
/// and not yet taken (the queue).
#[derive(Debug, Clone)]
pub struct ArrivalSchedule {
    rate: f64,
    dist: RateDist,
    rng: SmallRng,
    /// Arrivals handed out so far.
    taken: u64,
    /// Intended start of the next arrival to hand out.
    next_s: f64,
    /// When the first arrival is due ([`ArrivalSchedule::starting_at`]).
    phase_s: f64,
}

impl ArrivalSchedule {
    /// `seed` 0 seeds from the clock, as `--rand-seed=0` does. The first arrival is
    /// at 0 (fixed) or one exponential gap after it (Poisson).
    pub fn new(rate: f64, dist: RateDist, seed: u64) -> ArrivalSchedule {
        // Apart from the workers' streams, which are seeded from the same value.
        let rng = SmallRng::seed_from_u64(
            crate::workload::rand::seed_or_clock(seed) ^ 0xA5A5_5A5A_DEAD_BEEF,
        );
        let mut s = ArrivalSchedule {
            rate,
            dist,
            rng,
            taken: 0,
            next_s: 0.0,
            phase_s: 0.0,
        };
        if dist == RateDist::Poisson {
            s.next_s = s.exponential_gap();
        }
        s
    }

    /// The same schedule moved `phase_s` seconds later: a load client's share of a
    /// fixed-interval step takes its arrivals between the other shares' instead of on
    /// top of them.
    pub fn starting_at(mut self, phase_s: f64) -> ArrivalSchedule {
        let phase_s = phase_s.max(0.0);
        self.next_s += phase_s - self.phase_s;
        self.phase_s = phase_s;
        self
    }

    /// A Poisson process's gap: -ln(U) / rate with U in (0, 1] (inverse transform).
    fn exponential_gap(&mut self) -> f64 {
        -(1.0 - self.rng.gen::<f64>()).ln() / self.rate
    }

    /// Hands out the next arrival: its intended start in seconds.
    pub fn take(&mut self) -> f64 {
        let t = self.next_s;
        self.taken += 1;
        self.next_s = match self.dist {
            // n / rate rather than a running sum: no drift over millions of arrivals.
            RateDist::Fixed => self.phase_s + self.taken as f64 / self.rate,
            RateDist::Poisson => t + self.exponential_gap(),
        };
        t
    }

    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Arrivals due by `elapsed_s` that no worker has taken yet: the queue.
    pub fn waiting_at(&self, elapsed_s: f64) -> u64 {
        if self.next_s > elapsed_s {
            return 0;
        }
        match self.dist {
            RateDist::Fixed => {
                let due = ((elapsed_s - self.phase_s) * self.rate).floor() as u64 + 1;
                due.saturating_sub(self.taken)
            }
            RateDist::Poisson => {
                // Draw ahead on a copy, so the real schedule stays as it is.
                let mut ahead = self.clone();
                let mut n = 0;
                while ahead.next_s <= elapsed_s {
                    ahead.take();
                    n += 1;
                }
                n
            }
        }
    }

    /// How long the oldest waiting arrival has waited at `elapsed_s` (0 with no queue).
    pub fn head_lag_s(&self, elapsed_s: f64) -> f64 {
        (elapsed_s - self.next_s).max(0.0)
    }
}

/// What an open-loop step did against its schedule (on [`crate::StepResult`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OpenLoopResult {
    /// Target arrival rate, transactions per second.
    pub target_rate: f64,
    pub dist: RateDist,
    /// Connections the step opened to serve the rate.
    pub connections: u32,
    /// Measured transactions completed per second.
    pub achieved_rate: f64,
    /// Measured transactions that began more than [`LATE_AFTER_US`] after their
    /// intended start.
    pub late_starts: u64,
    /// The longest wait between an intended start and the actual one, in ms (a started
    /// transaction's, or the oldest still waiting at an interval's end).
    pub max_lag_ms: f64,
    /// The longest queue seen at an interval's end.
    pub max_queue: u64,
    /// Arrivals due but not started when the step ended (never run, never measured).
    pub queue_at_end: u64,
    /// False when [`unsustained_reason`] found one; `reason` says which.
    pub sustained: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl OpenLoopResult {
    /// "open loop at 500/s (poisson)" or "open loop at 500/s".
    pub fn mode(&self) -> String {
        mode_name(self.target_rate, self.dist)
    }

    /// The line `dbdyno` prints under an open-loop step's line:
    /// `  open loop at 500/s on 25 connections: achieved 499.80/s, 12 late starts, max lag 2003.10 ms, max queue 398, sustained`.
    pub fn line(&self) -> String {
        let verdict = match &self.reason {
            None => "sustained".to_string(),
            Some(why) => format!("NOT sustained: {why}"),
        };
        format!(
            "  {} on {} connections: achieved {:.2}/s, {} late starts, max lag {:.2} ms, max queue {}, {verdict}",
            self.mode(),
            self.connections,
            self.achieved_rate,
            self.late_starts,
            self.max_lag_ms,
            self.max_queue
        )
    }
}

/// How a step was driven, for text and reports: "closed loop" with no rate.
pub fn mode_name(rate: f64, dist: RateDist) -> String {
    if rate <= 0.0 {
        return "closed loop".into();
    }
    let rate = if rate.fract() == 0.0 {
        format!("{rate:.0}")
    } else {
        format!("{rate}")
    };
    match dist {
        RateDist::Fixed => format!("open loop at {rate}/s"),
        RateDist::Poisson => format!("open loop at {rate}/s (poisson)"),
    }
}

/// The queue of one interval of an open-loop step (on [`crate::IntervalRecord`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IntervalQueue {
    /// Arrivals due and not yet started at the interval's end (sysbench's "queue length").
    pub queue: u64,
    /// Transactions in flight at the interval's end (sysbench's "concurrency").
    pub concurrency: u64,
    /// Transactions of this interval that started late.
    pub late_starts: u64,
    /// The longest start lag of the interval (started, or still waiting at its end), ms.
    pub max_lag_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_arrivals_are_evenly_spaced_from_zero() {
        let mut s = ArrivalSchedule::new(4.0, RateDist::Fixed, 1);
        let got: Vec<f64> = (0..5).map(|_| s.take()).collect();
        assert_eq!(got, [0.0, 0.25, 0.5, 0.75, 1.0]);
    }

    #[test]
    fn poisson_arrivals_repeat_with_a_seed_and_average_the_rate() {
        let draw = |seed| {
            let mut s = ArrivalSchedule::new(1000.0, RateDist::Poisson, seed);
            (0..20_000).map(|_| s.take()).collect::<Vec<f64>>()
        };
        let a = draw(42);
        assert_eq!(a, draw(42), "same seed, same schedule");
        assert_ne!(a, draw(43));
        assert!(a.windows(2).all(|w| w[1] >= w[0]), "in order");
        // 20,000 arrivals at 1000/s take 20 s, give or take a few standard deviations
        // (sqrt(20000)/1000 = 0.14 s).
        let last = *a.last().unwrap();
        assert!((19.4..20.6).contains(&last), "{last}");
        // Exponential gaps: about as many below the mean's ln 2 as above it.
        let below = a
            .windows(2)
            .filter(|w| w[1] - w[0] < std::f64::consts::LN_2 / 1000.0)
            .count();
        assert!((9_500..10_500).contains(&below), "{below}");
    }

    #[test]
    fn a_phased_schedule_fills_the_gaps_of_another() {
        // Two shares of 4/s at 2/s each: the second starts half its interval later, so
        // together they are the one-machine schedule.
        let mut a = ArrivalSchedule::new(2.0, RateDist::Fixed, 1);
        let mut b = ArrivalSchedule::new(2.0, RateDist::Fixed, 1).starting_at(0.25);
        let mut both: Vec<f64> = (0..3).flat_map(|_| [a.take(), b.take()]).collect();
        both.sort_by(f64::total_cmp);
        assert_eq!(both, [0.0, 0.25, 0.5, 0.75, 1.0, 1.25]);
        let b = ArrivalSchedule::new(2.0, RateDist::Fixed, 1).starting_at(0.25);
        assert_eq!(b.waiting_at(0.2), 0, "not due before its phase");
        assert_eq!(b.waiting_at(0.8), 2);
    }

    #[test]
    fn the_queue_counts_due_arrivals_not_taken() {
        let mut s = ArrivalSchedule::new(10.0, RateDist::Fixed, 1);
        assert_eq!(s.waiting_at(0.0), 1, "the first arrival is due at once");
        s.take();
        // A stall: nothing taken while 2 s pass, 20 more arrivals fall due.
        assert_eq!(s.waiting_at(2.0), 20);
        assert!((s.head_lag_s(2.0) - 1.9).abs() < 1e-9);
        for _ in 0..20 {
            s.take();
        }
        assert_eq!(s.waiting_at(2.0), 0);
        assert_eq!(s.head_lag_s(2.0), 0.0);
        // Taken ahead of time (a worker sleeping until it): no queue.
        s.take();
        assert_eq!(s.waiting_at(2.05), 0);
    }

    #[test]
    fn the_poisson_queue_does_not_move_the_schedule() {
        let mut s = ArrivalSchedule::new(100.0, RateDist::Poisson, 7);
        let waiting = s.waiting_at(1.0);
        assert!((60..140).contains(&waiting), "{waiting}");
        assert_eq!(s.waiting_at(1.0), waiting, "asking twice changes nothing");
        let mut taken = 0;
        while s.waiting_at(1.0) > 0 {
            s.take();
            taken += 1;
        }
        assert_eq!(taken, waiting);
    }

    #[test]
    fn connections_follow_littles_law_within_bounds() {
        assert_eq!(connections_for_rate(10.0), MIN_CONNECTIONS);
        assert_eq!(connections_for_rate(500.0), 25);
        assert_eq!(connections_for_rate(2000.0), 100);
        assert_eq!(connections_for_rate(1e9), MAX_CONNECTIONS);
    }

    #[test]
    fn a_rate_is_sustained_only_near_its_target_with_no_backlog() {
        assert_eq!(unsustained_reason(1000.0, 990.0, 10), None);
        let slow = unsustained_reason(1000.0, 900.0, 0).unwrap();
        assert!(slow.contains("below 95%"), "{slow}");
        let behind = unsustained_reason(1000.0, 990.0, 1500).unwrap();
        assert!(behind.contains("1500 arrivals"), "{behind}");
        assert_eq!(unsustained_reason(0.0, 0.0, 0), None, "closed loop");
    }

    #[test]
    fn the_step_line_says_the_mode_and_whether_the_rate_held() {
        let mut r = OpenLoopResult {
            target_rate: 500.0,
            dist: RateDist::Fixed,
            connections: 25,
            achieved_rate: 499.8,
            late_starts: 12,
            max_lag_ms: 2003.1,
            max_queue: 398,
            queue_at_end: 0,
            sustained: true,
            reason: None,
        };
        assert_eq!(
            r.line(),
            "  open loop at 500/s on 25 connections: achieved 499.80/s, 12 late starts, max lag 2003.10 ms, max queue 398, sustained"
        );
        r.reason = unsustained_reason(500.0, 300.0, 0);
        r.sustained = false;
        assert!(
            r.line()
                .ends_with("NOT sustained: achieved 300.0/s, below 95% of the target 500/s"),
            "{}",
            r.line()
        );
    }

    #[test]
    fn modes_are_named_for_reports() {
        assert_eq!(mode_name(0.0, RateDist::Fixed), "closed loop");
        assert_eq!(mode_name(500.0, RateDist::Fixed), "open loop at 500/s");
        assert_eq!(
            mode_name(12.5, RateDist::Poisson),
            "open loop at 12.5/s (poisson)"
        );
        assert_eq!("Poisson".parse::<RateDist>(), Ok(RateDist::Poisson));
        assert!("burst".parse::<RateDist>().is_err());
    }
}
