//! A run with repeats (`dbdyno ladder --repeat=N`): the repeats of one (scenario,
//! threads) step make one cell.
//!
//! Its figures are the **mean** of the repeats' whole-step figures (the centre of the
//! interval below, so the Δ a report prints is the centre of the Δ interval it shows).
//! With at least [`MIN_REPEATS`] finished repeats, each figure's 95% interval is the t
//! interval of the repeats' values ([`repeats_interval`]): the spread between runs, which
//! holds what changes from run to run (the buffer pool, a neighbour, the time of day) as
//! well as the noise within each run. With fewer (a run cancelled after its first round),
//! the one finished repeat's own batch-means interval is kept, as for a single run.
//!
//! Counts (errors, reconnects, server samples, measured seconds) are summed over the
//! repeats; server figures (CPU, disk, I/O wait) are averaged over those that have them.
//! A cancelled repeat is left out; a step with no finished repeat is shown as cancelled.

use dbdyno_stats::{repeats_interval, MIN_REPEATS};

use super::noise::{Spread, StepIntervals};
use super::Cell;

/// One cell from the cells of a step's repeats (in the order they ran); `None` for none.
pub fn combine(repeats: Vec<Cell>) -> Option<Cell> {
    let last_cancelled = repeats.last().filter(|c| c.cancelled).cloned();
    let done: Vec<Cell> = repeats.into_iter().filter(|c| !c.cancelled).collect();
    match done.len() {
        0 => last_cancelled,
        1 => done.into_iter().next(),
        n => Some(combined(&done, n)),
    }
}

/// How a cell's intervals were made, in words: "spread of 3 repeats" or "batch means of
/// one run".
pub fn interval_source(c: &Cell) -> String {
    if c.repeats >= MIN_REPEATS {
        format!("spread of {} repeats", c.repeats)
    } else {
        "batch means of one run".to_string()
    }
}

/// How a compared cell's Δ intervals were made, when a side used repeats; `None` when
/// both are single runs (batch means, what a report says of its intervals by default).
pub fn delta_source(baseline: &Cell, candidate: &Cell) -> Option<String> {
    if baseline.repeats < MIN_REPEATS && candidate.repeats < MIN_REPEATS {
        return None;
    }
    let (b, n) = (interval_source(baseline), interval_source(candidate));
    Some(if b == n {
        format!("intervals from the {b}")
    } else {
        format!("intervals from the {b} (baseline) and the {n} (candidate)")
    })
}

fn combined(done: &[Cell], n: usize) -> Cell {
    let first = &done[0];
    let mean_of = |pick: fn(&Cell) -> Option<f64>| -> Option<f64> {
        let v: Vec<f64> = done.iter().filter_map(pick).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let sum_of = |pick: fn(&Cell) -> Option<u64>| -> Option<u64> {
        done.iter().filter_map(pick).reduce(|a, b| a + b)
    };
    let tps = mean_of(|c| Some(c.tps)).unwrap_or(0.0);
    let qps = mean_of(|c| Some(c.qps)).unwrap_or(0.0);
    let cpu_pct = mean_of(|c| c.cpu_pct);
    Cell {
        threads: first.threads,
        tps,
        qps,
        p95_ms: mean_of(|c| c.p95_ms),
        p99_ms: mean_of(|c| c.p99_ms),
        cpu_pct,
        disk_util_pct: mean_of(|c| c.disk_util_pct),
        iowait_pct: mean_of(|c| c.iowait_pct),
        samples: sum_of(|c| c.samples.map(u64::from)).map(|s| s as u32),
        expected_samples: sum_of(|c| c.expected_samples.map(u64::from)).map(|s| s as u32),
        errors: done.iter().map(|c| c.errors).sum(),
        reconnects: done.iter().map(|c| c.reconnects).sum(),
        client_cpu_pct: mean_of(|c| Some(c.client_cpu_pct)).unwrap_or(0.0),
        // As one step's: QPS per percent of server CPU, over the means.
        qps_per_cpu: mean_of(|c| c.qps_per_cpu).and(cpu_pct.map(|cpu| qps / cpu)),
        steady_tps: mean_of(|c| c.steady_tps),
        row_lock_waits: sum_of(|c| c.row_lock_waits),
        seconds: done.iter().map(|c| c.seconds).sum(),
        cancelled: false,
        intervals: intervals(done),
        repeats: n,
        // Repeats of one step share its mode; the first one's figures stand for it.
        open_loop: first.open_loop.clone(),
    }
}

/// Each figure's interval across the repeats. The steadiness shown is the least settled
/// repeat's (a repeat that never settled is worth the flag).
fn intervals(done: &[Cell]) -> StepIntervals {
    let spread = |name: &str, values: Vec<Option<f64>>| -> Spread {
        match values.into_iter().collect::<Option<Vec<f64>>>() {
            Some(v) => Spread::Estimated(repeats_interval(&v)),
            None => Spread::NoSeries {
                reason: format!("a repeat of the step has no {name} figure"),
            },
        }
    };
    let steadiness = done
        .iter()
        .map(|c| &c.intervals.steadiness)
        .find(|s| !s.settled())
        .unwrap_or(&done[0].intervals.steadiness)
        .clone();
    StepIntervals {
        steadiness,
        all_seconds: done.iter().any(|c| c.intervals.all_seconds),
        tps: spread("TPS", done.iter().map(|c| Some(c.tps)).collect()),
        qps: spread("QPS", done.iter().map(|c| Some(c.qps)).collect()),
        p95: spread("p95", done.iter().map(|c| c.p95_ms).collect()),
        p99: spread("p99", done.iter().map(|c| c.p99_ms).collect()),
    }
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::stats::testing::records;
    use dbdyno_stats::Method;

    use super::*;
    use crate::model::knee::tests::c;
    use crate::model::noise::{self, Figures};

    /// A cell of `tps` whose intervals come from 30 quiet seconds (a single run's).
    fn run(tps: f64, p95: f64) -> Cell {
        let mut cell = c(4, tps, p95);
        cell.intervals = noise::step_intervals(
            &records(30, tps, 0.02, 95.0),
            Figures {
                tps,
                qps: cell.qps,
                p95_ms: Some(p95),
                p99_ms: None,
            },
        );
        cell
    }

    #[test]
    fn repeats_give_the_mean_and_the_spread_between_them() {
        let cell = combine(vec![run(100.0, 2.0), run(104.0, 2.2), run(96.0, 1.8)]).unwrap();
        assert_eq!(cell.repeats, 3);
        assert_eq!(cell.tps, 100.0);
        assert!((cell.p95_ms.unwrap() - 2.0).abs() < 1e-9);
        let Spread::Estimated(e) = &cell.intervals.tps else {
            panic!("{:?}", cell.intervals.tps)
        };
        assert_eq!(e.method, Method::Repeats { repeats: 3 });
        // s = 4, t(2) = 4.30: ±9.9, far wider than one quiet run's batch means.
        let i = e.interval.unwrap();
        assert!(
            (i.half_width - 4.3027 * 4.0 / 3f64.sqrt()).abs() < 1e-3,
            "{i:?}"
        );
        let Spread::Estimated(p95) = &cell.intervals.p95 else {
            panic!("{:?}", cell.intervals.p95)
        };
        assert_eq!(p95.method, Method::Repeats { repeats: 3 });
        assert!(matches!(cell.intervals.p99, Spread::NoSeries { .. }));
        assert_eq!(interval_source(&cell), "spread of 3 repeats");
    }

    #[test]
    fn one_finished_repeat_keeps_its_own_interval() {
        let mut cut = run(50.0, 9.0);
        cut.cancelled = true;
        let one = combine(vec![run(100.0, 2.0), cut.clone()]).unwrap();
        assert_eq!((one.repeats, one.tps, one.cancelled), (1, 100.0, false));
        let Spread::Estimated(e) = &one.intervals.tps else {
            panic!("{:?}", one.intervals.tps)
        };
        assert!(
            matches!(e.method, Method::BatchMeans { .. }),
            "{:?}",
            e.method
        );
        assert_eq!(interval_source(&one), "batch means of one run");
        let none = combine(vec![cut]).unwrap();
        assert!(none.cancelled);
        assert!(combine(Vec::new()).is_none());
    }

    #[test]
    fn a_delta_says_where_its_intervals_came_from() {
        let repeated = combine(vec![run(100.0, 2.0), run(101.0, 2.0)]).unwrap();
        let single = run(100.0, 2.0);
        assert_eq!(
            delta_source(&repeated, &repeated).as_deref(),
            Some("intervals from the spread of 2 repeats")
        );
        assert_eq!(
            delta_source(&repeated, &single).as_deref(),
            Some("intervals from the spread of 2 repeats (baseline) and the batch means of one run (candidate)")
        );
        assert_eq!(delta_source(&single, &single), None);
    }
}
