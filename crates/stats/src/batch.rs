//! Batch means: the 95% interval of a step's throughput, or of a percentile, from its
//! per-second values.
//!
//! Per-second values are autocorrelated: a slow second (a checkpoint, a lock wait) is
//! usually followed by another, so n per-second values carry much less information than
//! n independent ones, and the textbook `t × s / √n` interval is far too narrow (on
//! simulated series whose values keep 60% of the previous second's deviation it covers
//! the true mean about 2 times in 3 instead of 19 in 20; see the tests). Batch means
//! fixes that: average consecutive values in batches long enough that the batch means
//! are close to independent, then make the t interval from the batch means.
//!
//! The batch size is chosen from the data, in the sequence 1, 2, 4, 8, …:
//!
//! 1. At each size that leaves at least 10 batches, measure the lag-1 autocorrelation of
//!    the batch means, corrected for its small-sample bias (with k batches the plain
//!    estimate of a correlation ρ averages about ρ − (1 + 4ρ)/k, so 0 reads as −0.1 with
//!    10 batches and hides real correlation). The first size where it is below 0.1 is
//!    taken.
//! 2. When every size that leaves 10 batches is still correlated (a short step, or a
//!    series that drifts), the size is doubled once more (5 to 9 batches, too few to
//!    check) and the variance widened by (1 + r)/(1 − r), where r is half the correlation
//!    measured at the previous size (for short-memory series the batch means' correlation
//!    roughly halves when the batch size doubles). The result says so
//!    (`decorrelated: false`).
//! 3. Fewer than 10 values: no interval ("too short for an interval").
//!
//! The thresholds were set by simulation (the tests repeat it): with 0.2 on the plain
//! estimate, as textbooks often suggest, intervals of 30-value series covered 85%; the
//! rule above gives 91–95% from 20 to 300 values, and 95% on independent values.
//!
//! Values the batches do not fill (n not a multiple of the batch size) are left out at
//! the start of the series, where a step is least settled. The caller chooses the window:
//! the steady part of a step ([`crate::steady_state`]) is the one to pass.
//!
//! Non-goals: overlapping batch means and spectral estimators (a little more precise,
//! much harder to explain on a report).

use crate::describe::{
    coefficient_of_variation_pct, finite, lag1_autocorrelation, mean, sample_variance,
};
use crate::estimate::{Estimate, Interval, Method};
use crate::wording::count;

/// Fewest values for an interval; fewer give `Method::TooShort`.
pub const MIN_VALUES: usize = 10;
/// Fewest batches at which the batch means' correlation is measured.
const TEST_BATCHES: usize = 10;
/// The batch means count as independent below this (bias-corrected) lag-1 correlation.
pub const MAX_LAG1: f64 = 0.1;
/// Cap on the remaining correlation used to widen an unconfirmed interval (×9 variance).
const MAX_RESIDUAL_LAG1: f64 = 0.8;

/// The 95% interval of the mean of a step's per-second values: its TPS or QPS each
/// second, over the window the caller trusts (the steady part). Non-finite values are
/// left out. See the module documentation for the method.
pub fn batch_means_interval(per_second: &[f64]) -> Estimate {
    let values = finite(per_second);
    let dropped = per_second.len() - values.len();
    let dropped_note = match dropped {
        0 => String::new(),
        k => format!(" ({} left out)", count(k as u32, "non-finite value")),
    };
    let n = values.len();
    if n < MIN_VALUES {
        let note = format!(
            "too short for an interval: {}{dropped_note}, at least \
             {MIN_VALUES} are needed (per-second values are correlated, so fewer cannot show \
             how far the mean could move)",
            count(n as u32, "per-second value")
        );
        return Estimate::too_short(&values, MIN_VALUES, note);
    }
    if sample_variance(&values) == 0.0 {
        return constant(&values, &dropped_note);
    }
    let choice = choose_batch_size(&values);
    let means = batch_means(&values, choice.batch_size);
    let k = means.len();
    let centre = mean(&means);
    let std_error = (choice.inflation * sample_variance(&means) / k as f64).sqrt();
    let estimate = Estimate {
        mean: centre,
        interval: Interval::around(centre, std_error, (k - 1) as f64),
        method: Method::BatchMeans {
            batch_size: choice.batch_size,
            batches: k,
            left_out: n - k * choice.batch_size,
            lag1: choice.lag1,
            decorrelated: choice.decorrelated,
            inflation: choice.inflation,
        },
        values: n,
        cv_pct: coefficient_of_variation_pct(&values),
        note: format!("{}{dropped_note}", choice.describe(n)),
    };
    estimate.at_least_zero_for(&values)
}

/// The 95% interval of a step's latency percentile (p95, p99) from the same percentile
/// of each second, moved onto the step's own percentile `step_percentile` (from its
/// whole-step histogram) with the same relative width.
///
/// Why this way: the step's histogram gives one percentile and no spread, and a
/// percentile has no simple standard error; the per-second percentiles show how much it
/// moves from second to second, and batch means turn that into an interval as for
/// throughput. Limits, also stated in docs/reports.md:
///
/// - the mean of per-second p95s is not the step's p95 (a percentile of all the step's
///   transactions, usually higher when seconds differ); only the relative width is
///   carried over, which assumes the step's percentile moves in proportion with the
///   per-second ones;
/// - at low rates a second's p95 rests on a handful of transactions (at 20 per second,
///   it is the 19th of 20), so the per-second values are noisy and the interval wide —
///   honest, but wider than the step's percentile really is; at such rates longer
///   intervals (2 s, 5 s) are the better input;
/// - seconds without a transaction have no percentile: values ≤ 0 (which sysbench
///   prints for them) and non-finite values are left out.
///
/// When `step_percentile` is not a positive finite number, the interval stays around
/// the mean of the per-second values.
pub fn percentile_interval(per_second: &[f64], step_percentile: f64) -> Estimate {
    let positive: Vec<f64> = per_second.iter().copied().filter(|v| *v > 0.0).collect();
    let mut estimate = batch_means_interval(&positive);
    estimate.note = format!("per-second percentiles: {}", estimate.note);
    let idle = per_second.len() - positive.len();
    if idle > 0 {
        estimate.note.push_str(&format!(
            "; {} without a usable percentile (≤ 0 or not finite) left out",
            count(idle as u32, "second")
        ));
    }
    // A negative lower bound was already raised to 0 (the values are positive), and
    // rescaling onto a positive percentile keeps it there.
    if step_percentile.is_finite() && step_percentile > 0.0 {
        estimate.rescaled_to(step_percentile)
    } else {
        estimate
    }
}

/// A series whose values are all equal: no spread, a zero-width interval.
fn constant(values: &[f64], dropped_note: &str) -> Estimate {
    let level = values[0];
    Estimate {
        mean: level,
        interval: Interval::around(level, 0.0, (values.len() - 1) as f64),
        method: Method::BatchMeans {
            batch_size: 1,
            batches: values.len(),
            left_out: 0,
            lag1: 0.0,
            decorrelated: true,
            inflation: 1.0,
        },
        values: values.len(),
        cv_pct: coefficient_of_variation_pct(values),
        note: format!(
            "all {} per-second values are equal ({level}){dropped_note}: no spread, so the \
             interval has zero width",
            values.len()
        ),
    }
}

/// The batch size chosen and why.
struct Choice {
    batch_size: usize,
    lag1: f64,
    decorrelated: bool,
    inflation: f64,
    /// The correlation measured at the last size that had 10 batches (fallback only).
    previous: Option<(usize, f64)>,
}

impl Choice {
    fn describe(&self, n: usize) -> String {
        let b = self.batch_size;
        let k = n / b;
        let left = match n - k * b {
            0 => String::new(),
            l => format!(", the first {l} left out to fill every batch"),
        };
        let head = format!("batch means of {n} per-second values: {k} batches of {b}{left}");
        match self.previous {
            None => format!(
                "{head}; {b} is the smallest size in 1, 2, 4, … whose batch means have a \
                 lag-1 autocorrelation below {MAX_LAG1} ({:.2}), so they are close to \
                 independent; Student t with {} degrees of freedom",
                self.lag1,
                k - 1
            ),
            Some((at, r)) => format!(
                "{head}; the batch means were still correlated at every size that leaves \
                 {TEST_BATCHES} batches (lag-1 {r:.2} at size {at}), so the interval is \
                 widened ×{:.2} in variance for the correlation that may remain and may \
                 still be too narrow: a longer step or repeats give a firmer one",
                self.inflation
            ),
        }
    }
}

fn choose_batch_size(values: &[f64]) -> Choice {
    let n = values.len();
    let mut b = 1;
    let mut previous = (1, 0.0);
    while n / b >= TEST_BATCHES {
        let lag1 = corrected_lag1(&batch_means(values, b));
        if lag1 < MAX_LAG1 {
            return Choice {
                batch_size: b,
                lag1,
                decorrelated: true,
                inflation: 1.0,
                previous: None,
            };
        }
        previous = (b, lag1);
        b *= 2;
    }
    // n ≥ MIN_VALUES means size 1 was measured, so the doubled size still leaves ≥ 5.
    let residual = (previous.1 / 2.0).clamp(0.0, MAX_RESIDUAL_LAG1);
    Choice {
        batch_size: b,
        lag1: residual,
        decorrelated: false,
        inflation: (1.0 + residual) / (1.0 - residual),
        previous: Some(previous),
    }
}

/// Means of consecutive batches of `size` values; the values that do not fill a batch
/// are left out at the start.
fn batch_means(values: &[f64], size: usize) -> Vec<f64> {
    let k = values.len() / size;
    let skip = values.len() - k * size;
    values[skip..].chunks_exact(size).map(mean).collect()
}

/// Lag-1 autocorrelation with its small-sample bias removed: with k values the plain
/// estimate averages about ρ − (1 + 4ρ)/k, so ρ ≈ (r + 1/k)/(1 − 4/k). Only used with
/// k ≥ 10.
fn corrected_lag1(means: &[f64]) -> f64 {
    let k = means.len() as f64;
    (lag1_autocorrelation(means) + 1.0 / k) / (1.0 - 4.0 / k)
}

#[cfg(test)]
mod tests;
