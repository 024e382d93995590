//! State the workers of one step share with the step's controller.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::open_loop::{ArrivalSchedule, LATE_AFTER_US};
use crate::plan::ConnectOptions;
use crate::results::QueryCounts;
use crate::stats::LatencyHistogram;
use crate::workload::{Scenario, WorkloadOptions};

/// The live figures of one worker since the controller last looked. The worker locks
/// it once per transaction; the controller swaps it out once per interval.
#[derive(Default)]
pub struct IntervalCell {
    pub transactions: u64,
    pub queries: QueryCounts,
    pub errors: u64,
    pub reconnects: u64,
    pub latency: LatencyHistogram,
    /// Open loop: transactions that started late, and the longest start lag (µs).
    pub late_starts: u64,
    pub max_lag_us: u64,
}

impl IntervalCell {
    /// Moves this interval's figures into `into` and zeroes the cell in place. The
    /// histogram keeps its allocation: a fresh one per worker per interval cost a
    /// 1,024-thread step 50 MB of allocator churn a second.
    pub fn drain_into(&mut self, into: &mut IntervalCell) {
        into.transactions += std::mem::take(&mut self.transactions);
        into.queries.merge(&std::mem::take(&mut self.queries));
        into.errors += std::mem::take(&mut self.errors);
        into.reconnects += std::mem::take(&mut self.reconnects);
        into.late_starts += std::mem::take(&mut self.late_starts);
        into.max_lag_us = into.max_lag_us.max(std::mem::take(&mut self.max_lag_us));
        into.latency.add(&self.latency);
        self.latency.reset();
    }
}

/// How late a transaction started against its intended start, in µs, and whether that
/// counts as a late start.
pub fn start_lag(intended: Instant, started: Instant) -> (u64, bool) {
    let lag_us = started.saturating_duration_since(intended).as_micros() as u64;
    (lag_us, lag_us > LATE_AFTER_US)
}

/// When the step's clock started and when measurement starts (after warmup).
#[derive(Debug, Clone, Copy)]
pub struct Timeline {
    pub t0: Instant,
    /// Transactions that start before this instant are warmup: run, not recorded.
    pub measure_start: Instant,
}

pub struct Shared {
    pub scenario: Scenario,
    /// This process's workers of the step.
    pub threads: u32,
    /// Where they sit among the step's workers on every load client.
    pub workers: super::share::WorkerSlice,
    pub connect: ConnectOptions,
    pub workload: WorkloadOptions,
    pub stmt_cache: usize,
    /// Set once by the controller when every connection is ready.
    pub timeline: OnceLock<Timeline>,
    pub stop: AtomicBool,
    /// --events: stop after this many measured transactions (0 = no limit).
    pub event_limit: u64,
    pub events_done: AtomicU64,
    /// --rate: the intended starts of the step's transactions; None in a closed loop.
    pub arrivals: Option<Mutex<ArrivalSchedule>>,
    /// Transactions in flight now (sysbench's "concurrency" under --rate).
    pub in_flight: AtomicU64,
    /// Each worker's waits and answers, for the controller's silence watch.
    pub answers: Vec<super::silence::AnswerSlot>,
    /// The instant the slots count their milliseconds from.
    pub epoch: Instant,
}

impl Shared {
    /// The intended start of the next transaction under --rate, or None when unpaced.
    pub fn next_intended_start(&self, t0: Instant) -> Option<Instant> {
        let arrivals = self.arrivals.as_ref()?;
        let offset_s = arrivals.lock().unwrap().take();
        Some(t0 + Duration::from_secs_f64(offset_s))
    }

    /// The queue at `now`: arrivals due and not taken, and how long the oldest waited.
    pub fn queue_at(&self, t0: Instant, now: Instant) -> Option<(u64, Duration)> {
        let arrivals = self.arrivals.as_ref()?.lock().unwrap();
        let elapsed_s = now.saturating_duration_since(t0).as_secs_f64();
        Some((
            arrivals.waiting_at(elapsed_s),
            Duration::from_secs_f64(arrivals.head_lag_s(elapsed_s)),
        ))
    }

    /// Reserves one measured transaction under --events before it starts, so the
    /// step ends at exactly the number asked for. False when the limit is reached.
    pub fn reserve_event(&self) -> bool {
        if self.event_limit == 0 {
            return true;
        }
        let n = self.events_done.fetch_add(1, Ordering::Relaxed);
        if n >= self.event_limit {
            self.stop.store(true, Ordering::SeqCst);
            false
        } else {
            true
        }
    }

    /// Gives back a reservation whose transaction failed and will be retried.
    pub fn release_event(&self) {
        if self.event_limit > 0 {
            self.events_done.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Sleeps until `t` in naps of at most 20 ms, so that a stop is seen within one nap.
/// Returns false when `stopped` turned true first (--rate pacing, connect backoff).
pub fn sleep_until(t: Instant, stopped: impl Fn() -> bool) -> bool {
    loop {
        if stopped() {
            return false;
        }
        let now = Instant::now();
        if now >= t {
            return true;
        }
        std::thread::sleep((t - now).min(Duration::from_millis(20)));
    }
}
