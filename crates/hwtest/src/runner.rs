//! sysbench's event loop (sysbench.c `thread_run`): each worker asks its test for the
//! next event, times only the event's execution, and stops at the time or event limit.
//! Per-thread counters and latency histograms are merged at the end into sysbench's
//! general statistics, latency block and thread fairness.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::HwTestError;
use crate::histogram::{bucket_of, Histogram, BUCKETS};
use crate::options::GeneralOptions;
use crate::result::{Fairness, IntervalFigures, LatencySummary, Percentile};

/// One test as the loop drives it.
pub trait Workload: Sync {
    /// What a worker keeps for itself (buffers, a random number generator).
    type State: Send;
    type Event;

    fn thread_state(&self, thread: usize) -> Result<Self::State, HwTestError>;
    /// `None` ends this worker (sysbench's `SB_REQ_TYPE_NULL`).
    fn next_event(&self, state: &mut Self::State) -> Option<Self::Event>;
    fn execute(&self, state: &mut Self::State, event: Self::Event) -> Result<(), HwTestError>;
    /// After the worker's last event, untimed (fileio's final fsync).
    fn thread_done(&self, _state: &mut Self::State) -> Result<(), HwTestError> {
        Ok(())
    }
    /// The test's own figures for an interval line.
    fn interval(&self, common: &IntervalCommon) -> IntervalFigures;
}

/// What the loop knows about an interval; the test adds its own figures.
#[derive(Debug, Clone)]
pub struct IntervalCommon {
    pub elapsed_s: u64,
    pub interval_s: f64,
    pub threads_running: u32,
    pub events: u64,
    pub latency_pct_ms: Option<f64>,
}

/// The loop's figures, before the test adds its own.
#[derive(Debug, Clone)]
pub struct LoopFigures {
    pub total_time_s: f64,
    pub total_events: u64,
    pub latency: LatencySummary,
    pub fairness: Fairness,
    pub histogram: Histogram,
    pub intervals: Vec<IntervalFigures>,
}

/// One worker's running totals, readable by the interval reporter while it runs.
struct ThreadCounters {
    events: AtomicU64,
    sum_ns: AtomicU64,
    min_ns: AtomicU64,
    max_ns: AtomicU64,
    buckets: Vec<AtomicU64>,
}

impl ThreadCounters {
    fn new() -> Self {
        ThreadCounters {
            events: AtomicU64::new(0),
            sum_ns: AtomicU64::new(0),
            min_ns: AtomicU64::new(u64::MAX),
            max_ns: AtomicU64::new(0),
            buckets: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Only this worker writes, so relaxed loads and stores are enough.
    fn record(&self, ns: u64) {
        let r = Ordering::Relaxed;
        self.events.store(self.events.load(r) + 1, r);
        self.sum_ns.store(self.sum_ns.load(r) + ns, r);
        if ns < self.min_ns.load(r) {
            self.min_ns.store(ns, r);
        }
        if ns > self.max_ns.load(r) {
            self.max_ns.store(ns, r);
        }
        let b = &self.buckets[bucket_of(ns as f64 / 1e6)];
        b.store(b.load(r) + 1, r);
    }
}

fn merged_histogram(all: &[ThreadCounters]) -> Histogram {
    let mut h = Histogram::default();
    for t in all {
        for (sum, b) in h.counts.iter_mut().zip(&t.buckets) {
            *sum += b.load(Ordering::Relaxed);
        }
    }
    h
}

/// Runs `workload` on `opts.threads` workers until the time or event limit, calling
/// `on_interval` with each `--report-interval` line's figures as they come.
/// Setting `cancel` ends the run early with [`HwTestError::Cancelled`].
pub fn run<W: Workload>(
    workload: &W,
    opts: &GeneralOptions,
    on_interval: &(dyn Fn(&IntervalFigures) + Sync),
    cancel: &AtomicBool,
) -> Result<LoopFigures, HwTestError> {
    let threads = opts.threads as usize;
    let counters: Vec<ThreadCounters> = (0..threads).map(|_| ThreadCounters::new()).collect();
    let mut states = Vec::with_capacity(threads);
    for t in 0..threads {
        states.push(workload.thread_state(t)?);
    }
    let deadline = (opts.time_s > 0).then(|| Duration::from_secs(opts.time_s));
    let events_started = AtomicU64::new(0);
    let running = AtomicU64::new(threads as u64);
    let stop = AtomicBool::new(false);
    let intervals = Mutex::new(Vec::new());
    let start = Instant::now();

    let outcome: Result<(), HwTestError> = std::thread::scope(|s| {
        let reporter = (opts.report_interval_s > 0).then(|| {
            s.spawn(|| {
                report_intervals(
                    workload,
                    opts,
                    start,
                    deadline,
                    &counters,
                    &running,
                    &stop,
                    &|f| {
                        on_interval(f);
                        intervals.lock().unwrap().push(f.clone());
                    },
                )
            })
        });
        let workers: Vec<_> = states
            .into_iter()
            .zip(&counters)
            .map(|(mut state, counters)| {
                let (events_started, running, stop) = (&events_started, &running, &stop);
                s.spawn(move || {
                    let result = worker_loop(
                        workload,
                        &mut state,
                        counters,
                        opts,
                        start,
                        deadline,
                        events_started,
                        stop,
                        cancel,
                    )
                    .and_then(|()| workload.thread_done(&mut state));
                    if result.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    running.fetch_sub(1, Ordering::Relaxed);
                    result
                })
            })
            .collect();
        let mut first_error = Ok(());
        for w in workers {
            let r = w.join().unwrap_or(Err(HwTestError::WorkerPanicked));
            if first_error.is_ok() {
                first_error = r;
            }
        }
        stop.store(true, Ordering::Relaxed);
        if let Some(r) = reporter {
            let _ = r.join();
        }
        first_error
    });
    outcome?;
    let total_time_s = start.elapsed().as_secs_f64();
    let intervals = intervals.into_inner().unwrap();
    Ok(summarise(&counters, opts, total_time_s, intervals))
}

#[allow(clippy::too_many_arguments)]
fn worker_loop<W: Workload>(
    workload: &W,
    state: &mut W::State,
    counters: &ThreadCounters,
    opts: &GeneralOptions,
    start: Instant,
    deadline: Option<Duration>,
    events_started: &AtomicU64,
    stop: &AtomicBool,
    cancel: &AtomicBool,
) -> Result<(), HwTestError> {
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(HwTestError::Cancelled);
        }
        // sb_more_events: the time limit, then the shared event count.
        if stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| start.elapsed() >= d) {
            return Ok(());
        }
        if opts.events > 0 && events_started.fetch_add(1, Ordering::Relaxed) >= opts.events {
            return Ok(());
        }
        let Some(event) = workload.next_event(state) else {
            return Ok(());
        };
        let t0 = Instant::now();
        workload.execute(state, event)?;
        counters.record(t0.elapsed().as_nanos() as u64);
    }
}

#[allow(clippy::too_many_arguments)]
fn report_intervals<W: Workload>(
    workload: &W,
    opts: &GeneralOptions,
    start: Instant,
    deadline: Option<Duration>,
    counters: &[ThreadCounters],
    running: &AtomicU64,
    stop: &AtomicBool,
    emit: &dyn Fn(&IntervalFigures),
) {
    let every = Duration::from_secs(opts.report_interval_s);
    let mut last_events = 0;
    let mut last_hist = Histogram::default();
    let mut last_at = start;
    let mut n = 1u32;
    loop {
        // sysbench prints no line for the interval the run ends in.
        if deadline.is_some_and(|d| every * n >= d) {
            return;
        }
        let due = start + every * n;
        while Instant::now() < due {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            std::thread::sleep((due - Instant::now()).min(Duration::from_millis(20)));
        }
        if stop.load(Ordering::Relaxed) || running.load(Ordering::Relaxed) == 0 {
            return;
        }
        let now = Instant::now();
        let events: u64 = counters
            .iter()
            .map(|c| c.events.load(Ordering::Relaxed))
            .sum();
        let hist = merged_histogram(counters);
        let interval_hist = hist.minus(&last_hist);
        let common = IntervalCommon {
            elapsed_s: (now - start).as_secs_f64().round() as u64,
            interval_s: (now - last_at).as_secs_f64(),
            threads_running: running.load(Ordering::Relaxed) as u32,
            events: events - last_events,
            latency_pct_ms: (opts.percentile > 0)
                .then(|| interval_hist.percentile_ms(opts.percentile)),
        };
        emit(&workload.interval(&common));
        last_events = events;
        last_hist = hist;
        last_at = now;
        n += 1;
    }
}

fn summarise(
    counters: &[ThreadCounters],
    opts: &GeneralOptions,
    total_time_s: f64,
    intervals: Vec<IntervalFigures>,
) -> LoopFigures {
    let r = Ordering::Relaxed;
    let n = counters.len() as f64;
    let events: Vec<u64> = counters.iter().map(|c| c.events.load(r)).collect();
    let sums_s: Vec<f64> = counters
        .iter()
        .map(|c| c.sum_ns.load(r) as f64 / 1e9)
        .collect();
    let total_events: u64 = events.iter().sum();
    let sum_s: f64 = sums_s.iter().sum();
    let min_ns = counters.iter().map(|c| c.min_ns.load(r)).min().unwrap_or(0);
    let max_ns = counters.iter().map(|c| c.max_ns.load(r)).max().unwrap_or(0);
    let histogram = merged_histogram(counters);
    let events_avg = total_events as f64 / n;
    let time_avg = sum_s / n;
    let stddev = |values: &mut dyn Iterator<Item = f64>, avg: f64| {
        (values.map(|v| (v - avg).powi(2)).sum::<f64>() / n).sqrt()
    };
    LoopFigures {
        total_time_s,
        total_events,
        latency: LatencySummary {
            min_ms: if total_events == 0 {
                0.0
            } else {
                min_ns as f64 / 1e6
            },
            avg_ms: if total_events == 0 {
                0.0
            } else {
                sum_s * 1e3 / total_events as f64
            },
            max_ms: max_ns as f64 / 1e6,
            percentile: (opts.percentile > 0).then(|| Percentile {
                rank: opts.percentile,
                ms: histogram.percentile_ms(opts.percentile),
            }),
            sum_ms: sum_s * 1e3,
        },
        fairness: Fairness {
            events_avg,
            events_stddev: stddev(&mut events.iter().map(|&e| e as f64), events_avg),
            execution_time_avg_s: time_avg,
            execution_time_stddev_s: stddev(&mut sums_s.iter().copied(), time_avg),
        },
        histogram,
        intervals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sleeps 1 ms per event and stops after `limit` events per worker.
    struct Sleeper {
        limit: u64,
    }

    impl Workload for Sleeper {
        type State = u64;
        type Event = ();
        fn thread_state(&self, _: usize) -> Result<u64, HwTestError> {
            Ok(0)
        }
        fn next_event(&self, done: &mut u64) -> Option<()> {
            *done += 1;
            (*done <= self.limit).then_some(())
        }
        fn execute(&self, _: &mut u64, _: ()) -> Result<(), HwTestError> {
            std::thread::sleep(Duration::from_millis(1));
            Ok(())
        }
        fn interval(&self, c: &IntervalCommon) -> IntervalFigures {
            IntervalFigures {
                elapsed_s: c.elapsed_s,
                events_per_s: Some(c.events as f64 / c.interval_s),
                ..Default::default()
            }
        }
    }

    #[test]
    fn events_are_timed_and_fairness_is_per_thread() {
        let opts = GeneralOptions {
            threads: 2,
            ..Default::default()
        };
        let f = run(
            &Sleeper { limit: 20 },
            &opts,
            &|_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(f.total_events, 40);
        assert_eq!(f.fairness.events_avg, 20.0);
        assert_eq!(f.fairness.events_stddev, 0.0);
        assert!(f.latency.min_ms >= 1.0, "{:?}", f.latency);
        assert!(f.latency.sum_ms >= 40.0 && f.latency.avg_ms >= 1.0);
        assert_eq!(f.histogram.total(), 40);
        assert!(f.latency.percentile.unwrap().ms >= 0.9);
    }

    #[test]
    fn the_event_limit_is_shared_by_all_threads() {
        let opts = GeneralOptions {
            threads: 3,
            events: 10,
            ..Default::default()
        };
        let f = run(
            &Sleeper { limit: u64::MAX },
            &opts,
            &|_| {},
            &AtomicBool::new(false),
        )
        .unwrap();
        assert_eq!(f.total_events, 10);
    }

    #[test]
    fn the_time_limit_ends_the_run_and_intervals_are_reported() {
        let opts = GeneralOptions {
            time_s: 2,
            report_interval_s: 1,
            ..Default::default()
        };
        let seen = Mutex::new(0);
        let count = |_: &IntervalFigures| *seen.lock().unwrap() += 1;
        let f = run(
            &Sleeper { limit: u64::MAX },
            &opts,
            &count,
            &AtomicBool::new(false),
        )
        .unwrap();
        assert!(
            f.total_time_s >= 2.0 && f.total_time_s < 2.5,
            "{}",
            f.total_time_s
        );
        assert_eq!(f.intervals.len(), 1, "{:?}", f.intervals);
        assert_eq!(*seen.lock().unwrap(), 1);
        assert_eq!(f.intervals[0].elapsed_s, 1);
        assert!(f.intervals[0].events_per_s.unwrap() > 100.0);
    }
}
