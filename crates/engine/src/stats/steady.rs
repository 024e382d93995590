//! Steady-state detection: which part of a step's interval series to trust.
//!
//! A step that starts cold (empty buffer pool, fresh connections, JIT-less caches) reports
//! a whole-step TPS pulled down by its first intervals; seed 003 shows 76.84 TPS overall
//! against 88–92 once warm. We find the warm part from the interval series alone, with
//! a rule a person can check by eye against the `[ 10s ] ...` lines:
//!
//! 1. Ignore a short last interval (less than half the usual length): a partial
//!    interval's rate is noise.
//! 2. The reference level is the median TPS of the last half of the series (the end of a
//!    step is where a warm-up has surely finished; the median ignores single spikes).
//! 3. The band is ±10 % of that level, widened up to ±20 % when the intervals themselves
//!    are noisy (three robust standard deviations, from the median absolute deviation),
//!    so that noise is not mistaken for a warm-up.
//! 4. Walk back from the end while intervals stay in the band. A single interval outside
//!    it is kept when the one before it is back inside (a checkpoint stall is part of
//!    steady behaviour); two in a row end the walk (that is the warm-up).
//! 5. The window must hold at least 3 intervals. When the end of the step is itself
//!    unsteady (throughput fell away), we fall back to the longest run of intervals
//!    within the band around the median of the whole series, and say so in `method`.
//!
//! Non-goal: change-point statistics (CUSUM, Bayesian). They find more, but nobody can
//! verify their answer from the printed lines.

use dbdyno_stats::median;
use dbdyno_stats::wording::{count, plural};

use crate::results::{IntervalRecord, SteadyWindow};

/// Fewer intervals than this say nothing about stability.
const MIN_INTERVALS: usize = 3;
/// A last interval shorter than this share of the typical length is left out.
const PARTIAL_SHARE: f64 = 0.5;

/// Finds the steady part of a step, or `None` when the series is too short (fewer than
/// 3 full intervals) or holds no stable stretch of 3 intervals at all.
/// `whole_step_tps` is the step's own TPS, compared with the window's in
/// `whole_vs_steady_pct`.
pub fn find_steady_window(
    intervals: &[IntervalRecord],
    whole_step_tps: f64,
) -> Option<SteadyWindow> {
    let (series, dropped_partial) = without_partial_tail(intervals);
    let n = series.len();
    if n < MIN_INTERVALS {
        return None;
    }
    let tps: Vec<f64> = series.iter().map(|r| r.tps).collect();

    // Steps 2-5, on the TPS values: the rule lives in dbdyno-stats, which reports use too.
    let found = dbdyno_stats::steady_state(&tps);
    let window = found.window?;
    let (first, last) = (window.first, window.first + window.len - 1);
    let note = if found.settled() {
        let warmup = match first {
            0 => "no interval was excluded".to_string(),
            k => format!(
                "the first {} {} excluded as warm-up",
                count(k as u32, "interval"),
                plural(k as f64, "was")
            ),
        };
        format!(
            "longest run of intervals reaching the end of the step whose TPS stays within \
             ±{:.0}% of {:.2} (the median TPS of the last half of the step), a single \
             interval outside the band being tolerated; {warmup}",
            found.band * 100.0,
            found.level
        )
    } else {
        format!(
            "the step did not end steady (its last intervals left the ±{:.0}% band around \
             the median TPS of its last half); this is the longest run of intervals whose TPS \
             stays within ±{:.0}% of {:.2} (the median TPS of the whole step), and it ends {} \
             before the step does",
            found.tail_band * 100.0,
            found.band * 100.0,
            found.level,
            count((n - 1 - last) as u32, "interval")
        )
    };

    let window = &series[first..=last];
    let method = if dropped_partial {
        format!("{note}; the short last interval was left out")
    } else {
        note
    };
    Some(summarise(window, first, whole_step_tps, method))
}

/// Drops the last interval when it is much shorter than the others.
fn without_partial_tail(intervals: &[IntervalRecord]) -> (&[IntervalRecord], bool) {
    if intervals.len() < 2 {
        return (intervals, false);
    }
    let (last, rest) = intervals.split_last().expect("len >= 2");
    let durations: Vec<f64> = rest
        .iter()
        .map(|r| r.duration_s)
        .filter(|d| *d > 0.0)
        .collect();
    if durations.is_empty() || last.duration_s <= 0.0 {
        return (intervals, false);
    }
    if last.duration_s < PARTIAL_SHARE * median(&durations) {
        (rest, true)
    } else {
        (intervals, false)
    }
}

fn summarise(
    window: &[IntervalRecord],
    first: usize,
    whole_step_tps: f64,
    method: String,
) -> SteadyWindow {
    // Weight by duration so that a window's TPS is its transactions over its time.
    let time: f64 = window.iter().map(weight).sum();
    let weighted =
        |f: fn(&IntervalRecord) -> f64| window.iter().map(|r| f(r) * weight(r)).sum::<f64>() / time;
    let tps = weighted(|r| r.tps);
    let qps = weighted(|r| r.qps);
    let first_rec = &window[0];
    let last_rec = &window[window.len() - 1];
    let lat: Vec<f64> = window.iter().map(|r| r.latency_ms).collect();
    let whole_vs_steady_pct = if tps > 0.0 && whole_step_tps > 0.0 {
        (whole_step_tps / tps - 1.0) * 100.0
    } else {
        0.0
    };
    SteadyWindow {
        first_interval: first,
        intervals: window.len(),
        start_s: (first_rec.elapsed_s - first_rec.duration_s).max(0.0),
        end_s: last_rec.elapsed_s,
        tps,
        qps,
        tps_min: window.iter().map(|r| r.tps).fold(f64::INFINITY, f64::min),
        tps_max: window
            .iter()
            .map(|r| r.tps)
            .fold(f64::NEG_INFINITY, f64::max),
        latency_ms_avg: lat.iter().sum::<f64>() / lat.len() as f64,
        latency_ms_max: lat.iter().copied().fold(0.0, f64::max),
        whole_vs_steady_pct,
        method,
    }
}

/// An interval's weight: its length, or 1 when the length is unknown (imported logs
/// whose intervals all have the same printed spacing).
fn weight(r: &IntervalRecord) -> f64 {
    if r.duration_s > 0.0 {
        r.duration_s
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(step_s: f64, tps: &[f64], lat: &[f64]) -> Vec<IntervalRecord> {
        tps.iter()
            .zip(lat)
            .enumerate()
            .map(|(i, (&t, &l))| IntervalRecord {
                elapsed_s: step_s * (i + 1) as f64,
                duration_s: step_s,
                end_unix_ms: 0,
                threads: 2,
                tps: t,
                qps: t * 20.0,
                reads_ps: t * 14.0,
                writes_ps: t * 4.0,
                other_ps: t * 2.0,
                latency_ms: l,
                percentile: 95.0,
                p95_ms: None,
                p99_ms: None,
                errors_ps: 0.0,
                reconnects_ps: 0.0,
                open_loop: None,
            })
            .collect()
    }

    #[test]
    fn seed_003_cold_start_is_excluded() {
        let s = series(
            10.0,
            &[23.30, 77.70, 89.00, 92.50, 88.40, 90.40],
            &[272.27, 56.84, 46.63, 41.10, 46.63, 32.53],
        );
        let w = find_steady_window(&s, 76.84).expect("window");
        assert_eq!(w.first_interval, 2);
        assert_eq!(w.intervals, 4);
        assert_eq!((w.start_s, w.end_s), (20.0, 60.0));
        assert!((88.0..=92.0).contains(&w.tps), "tps {}", w.tps);
        assert!((w.tps - 90.075).abs() < 1e-9);
        assert_eq!((w.tps_min, w.tps_max), (88.40, 92.50));
        assert!(
            (32.0..=47.0).contains(&w.latency_ms_avg),
            "{}",
            w.latency_ms_avg
        );
        assert!(
            (32.0..=47.0).contains(&w.latency_ms_max),
            "{}",
            w.latency_ms_max
        );
        assert_eq!(w.latency_ms_max, 46.63);
        assert!(
            (w.whole_vs_steady_pct - -14.69).abs() < 0.05,
            "{}",
            w.whole_vs_steady_pct
        );
        assert!(w.method.contains("warm-up"), "{}", w.method);
    }

    #[test]
    fn too_few_intervals_say_nothing() {
        assert!(find_steady_window(&[], 10.0).is_none());
        let s = series(1.0, &[100.0, 100.0], &[1.0, 1.0]);
        assert!(find_steady_window(&s, 100.0).is_none());
    }

    #[test]
    fn flat_series_is_all_steady() {
        let tps = [1000.0, 1004.0, 998.0, 1001.0, 997.0, 1003.0, 1000.0, 999.0];
        let s = series(1.0, &tps, &[2.0; 8]);
        let w = find_steady_window(&s, 1000.25).unwrap();
        assert_eq!(w.first_interval, 0);
        assert_eq!(w.intervals, 8);
        assert!(w.whole_vs_steady_pct.abs() < 0.01);
        assert!(
            w.method.contains("no interval was excluded"),
            "{}",
            w.method
        );
    }

    #[test]
    fn short_last_interval_is_left_out() {
        let mut s = series(1.0, &[500.0, 500.0, 500.0, 500.0, 20.0], &[1.0; 5]);
        s[4].duration_s = 0.1;
        s[4].elapsed_s = 4.1;
        let w = find_steady_window(&s, 480.0).unwrap();
        assert_eq!((w.first_interval, w.intervals), (0, 4));
        assert_eq!(w.end_s, 4.0);
        assert!(w.method.contains("short last interval"), "{}", w.method);
    }

    #[test]
    fn degrading_end_gives_the_plateau_and_says_so() {
        // Steady at ~100 TPS for 9 s, then throughput falls away (e.g. a flush storm).
        let tps = [
            60.0, 99.0, 101.0, 100.0, 102.0, 98.0, 100.0, 101.0, 99.0, 80.0, 65.0, 50.0,
        ];
        let s = series(1.0, &tps, &[5.0; 12]);
        let w = find_steady_window(&s, 88.0).unwrap();
        assert_eq!(w.first_interval, 1);
        assert_eq!(w.intervals, 8);
        assert_eq!(w.end_s, 9.0);
        assert!((99.0..=101.0).contains(&w.tps));
        assert!(w.method.contains("did not end steady"), "{}", w.method);
        assert!(w.method.contains("3 intervals before"), "{}", w.method);
    }

    #[test]
    fn noisy_series_keeps_most_intervals() {
        // ±12 % jitter around 1000 with a single deep stall; the start is the only warm-up.
        let tps = [
            300.0, 1080.0, 920.0, 1110.0, 950.0, 1040.0, 890.0, 1120.0, 400.0, 1010.0, 960.0,
            1090.0, 900.0, 1050.0, 980.0,
        ];
        let s = series(1.0, &tps, &[3.0; 15]);
        let w = find_steady_window(&s, 950.0).unwrap();
        assert_eq!(w.first_interval, 1, "{}", w.method);
        assert_eq!(w.intervals, 14);
        assert_eq!(w.tps_min, 400.0, "the stall is part of steady behaviour");
        assert!(w.method.contains("±"), "{}", w.method);
    }

    #[test]
    fn two_slow_intervals_in_a_row_end_the_window() {
        let tps = [500.0, 520.0, 300.0, 310.0, 500.0, 505.0, 498.0, 502.0];
        let s = series(1.0, &tps, &[1.0; 8]);
        let w = find_steady_window(&s, 450.0).unwrap();
        assert_eq!(w.first_interval, 4);
        assert_eq!(w.intervals, 4);
    }

    #[test]
    fn all_zero_series_does_not_divide_by_zero() {
        let s = series(1.0, &[0.0; 5], &[0.0; 5]);
        let w = find_steady_window(&s, 0.0).unwrap();
        assert_eq!(w.tps, 0.0);
        assert_eq!(w.whole_vs_steady_pct, 0.0);
    }
}
