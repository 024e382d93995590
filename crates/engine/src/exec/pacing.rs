//! The open-loop figures of a step under --rate: the queue sampled at each interval's
//! end and the step's verdict on its rate (see [`crate::open_loop`]).

use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::shared::Shared;
use super::worker::WorkerTotals;
use super::WorkerSlice;
use crate::open_loop::{unsustained_reason, ArrivalSchedule, IntervalQueue, OpenLoopResult};
use crate::plan::{RunSettings, StepPlan};
use crate::results::{per_sec, IntervalRecord};

/// The step's arrival schedule under --rate, seeded from `--rand-seed`. A load
/// client's share (`workers` not from the first) is moved by its place among the
/// step's workers, and seeded apart, so that the shares' arrivals together are the
/// one-machine schedule (fixed) or independent streams (Poisson), not one copied.
pub fn schedule(
    settings: &RunSettings,
    seed: u64,
    workers: WorkerSlice,
) -> Option<Mutex<ArrivalSchedule>> {
    let rate = settings.rate;
    if rate <= 0.0 {
        return None;
    }
    let seed = match seed {
        0 => 0,
        s => s.wrapping_add(u64::from(workers.first).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
    };
    let phase_s = f64::from(workers.first) / f64::from(workers.of.max(1)) / rate;
    let s = ArrivalSchedule::new(rate, settings.rate_dist, seed).starting_at(phase_s);
    Some(Mutex::new(s))
}

/// The queue at an interval's end; None in a closed loop. `late_starts` and
/// `max_lag_us` are what the workers recorded in the interval: a stall shows as the
/// lag of the oldest arrival still waiting even when nothing started.
pub fn interval_queue(
    shared: &Shared,
    now: Instant,
    late_starts: u64,
    max_lag_us: u64,
) -> Option<IntervalQueue> {
    let t0 = shared.timeline.get()?.t0;
    let (queue, head_lag) = shared.queue_at(t0, now)?;
    Some(IntervalQueue {
        queue,
        concurrency: shared.in_flight.load(Ordering::Relaxed),
        late_starts,
        max_lag_ms: (max_lag_us as f64 / 1000.0).max(head_lag.as_secs_f64() * 1000.0),
    })
}

/// The step's open-loop result; None in a closed loop. `measured`: the step's measured
/// time, which ended at `ended`.
pub fn step_result(
    step: &StepPlan,
    shared: &Shared,
    totals: &[WorkerTotals],
    intervals: &[IntervalRecord],
    measured: Duration,
    ended: Instant,
) -> Option<OpenLoopResult> {
    let settings = &step.settings;
    if settings.rate <= 0.0 {
        return None;
    }
    let transactions: u64 = totals.iter().map(|t| t.transactions).sum();
    let achieved_rate = per_sec(transactions, measured.as_secs_f64());
    let queues: Vec<IntervalQueue> = intervals.iter().filter_map(|i| i.open_loop).collect();
    let worker_lag_ms = totals.iter().map(|t| t.max_lag_us).max().unwrap_or(0) as f64 / 1000.0;
    let max_lag_ms = queues
        .iter()
        .map(|q| q.max_lag_ms)
        .fold(worker_lag_ms, f64::max);
    // The last interval ends when measurement ends: its queue is what was left undone.
    let queue_at_end = match queues.last() {
        Some(q) => q.queue,
        None => shared
            .timeline
            .get()
            .and_then(|t| shared.queue_at(t.t0, ended))
            .map_or(0, |(q, _)| q),
    };
    let reason = unsustained_reason(settings.rate, achieved_rate, queue_at_end);
    Some(OpenLoopResult {
        target_rate: settings.rate,
        dist: settings.rate_dist,
        connections: step.threads,
        achieved_rate,
        late_starts: totals.iter().map(|t| t.late_starts).sum(),
        max_lag_ms,
        max_queue: queues.iter().map(|q| q.queue).max().unwrap_or(queue_at_end),
        queue_at_end,
        sustained: reason.is_none(),
        reason,
    })
}
