//! The result every estimator returns: a figure, its 95% interval, and how it was made.
//!
//! An [`Estimate`] always has a point value (`mean`); its [`Interval`] is `None` when the
//! data cannot support one, and [`Method`] with `note` say which case it is, so that a
//! report can print "too short for an interval" instead of a made-up range.

use serde::{Deserialize, Serialize};

use crate::tdist::{t_critical, CONFIDENCE};

/// A figure with its confidence interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Estimate {
    /// The point value the interval is around: the mean of the values used (per-second
    /// values or repeats), or the figure it was rescaled to ([`Estimate::rescaled_to`]).
    /// 0 when there were no values.
    pub mean: f64,
    /// The 95% interval; `None` when the data cannot support one (see `method`).
    pub interval: Option<Interval>,
    pub method: Method,
    /// How many finite values the estimate was given.
    pub values: usize,
    /// Coefficient of variation of those values, in percent (`None` for fewer than 2
    /// values or a zero mean).
    pub cv_pct: Option<f64>,
    /// One plain sentence on how the interval was made (or why there is none): which
    /// batch size, why, and any caveat.
    pub note: String,
}

/// A symmetric confidence interval of a mean.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
    /// `upper − mean` (= `mean − lower`, unless the lower bound was raised to 0 for a
    /// mean of values none of which is negative: see `Estimate::at_least_zero_for`).
    pub half_width: f64,
    /// Standard error of the mean; [`crate::relative_difference`] combines two of them.
    pub std_error: f64,
    /// Degrees of freedom of the t quantile (batches − 1, repeats − 1).
    pub df: f64,
    /// The confidence level, 0.95.
    pub confidence: f64,
}

/// How an estimate's interval was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Method {
    /// Batch means over one step's per-second values ([`crate::batch_means_interval`]).
    BatchMeans {
        /// Consecutive values averaged into one batch.
        batch_size: usize,
        /// Number of batches (the interval has `batches − 1` degrees of freedom).
        batches: usize,
        /// Values at the start of the series left out so that every batch is full.
        left_out: usize,
        /// Lag-1 autocorrelation of the batch means, corrected for its small-sample
        /// bias; when not `decorrelated`, the correlation assumed to remain (half the one
        /// measured at the previous batch size).
        lag1: f64,
        /// True when `lag1` was measured below the limit with at least 10 batches; false
        /// when the series ran out of batches first (the interval is then widened by
        /// `inflation`, and the note says so).
        decorrelated: bool,
        /// Factor applied to the batch means' variance for correlation that remains
        /// (1 when `decorrelated`).
        inflation: f64,
    },
    /// The spread of the means of repeated steps ([`crate::repeats_interval`]).
    Repeats { repeats: usize },
    /// Too few values for an interval; `needed` is the fewest that would do.
    TooShort { needed: usize },
}

impl Interval {
    /// The confidence interval `centre ± t × std_error`; `None` when the degrees of
    /// freedom or the standard error are unusable.
    pub(crate) fn around(centre: f64, std_error: f64, df: f64) -> Option<Interval> {
        if !centre.is_finite() || !std_error.is_finite() || std_error < 0.0 {
            return None;
        }
        let t = t_critical(CONFIDENCE, df)?;
        let half_width = t * std_error;
        Some(Interval {
            lower: centre - half_width,
            upper: centre + half_width,
            half_width,
            std_error,
            df,
            confidence: CONFIDENCE,
        })
    }
}

impl Estimate {
    /// An estimate with no interval: too few values for one.
    pub(crate) fn too_short(values: &[f64], needed: usize, note: String) -> Estimate {
        Estimate {
            mean: crate::describe::mean(values),
            interval: None,
            method: Method::TooShort { needed },
            values: values.len(),
            cv_pct: crate::describe::coefficient_of_variation_pct(values),
            note,
        }
    }

    /// The half-width as a percentage of the mean ("±2.1%"); `None` without an interval
    /// or with a zero mean.
    pub fn half_width_pct(&self) -> Option<f64> {
        let interval = self.interval?;
        if self.mean == 0.0 {
            return None;
        }
        Some(interval.half_width / self.mean.abs() * 100.0)
    }

    /// The interval of a mean of values none of which is negative (a rate, a latency):
    /// such a mean cannot be negative, so a lower bound below 0 is raised to 0 and the
    /// note says so. A symmetric t interval of a wide, small figure can reach below 0
    /// (seen: a p95 of 0.17 ms as "−0.01 … 0.35"; two repeats' TPS, where t is 12.7).
    /// The upper bound, the half-width and the standard error stay, so Δ intervals built
    /// from the standard error are unchanged. Values with a negative one are left as
    /// they are.
    pub(crate) fn at_least_zero_for(mut self, values: &[f64]) -> Estimate {
        if values.iter().any(|v| *v < 0.0) {
            return self;
        }
        if let Some(i) = self.interval.as_mut() {
            if i.lower < 0.0 {
                i.lower = 0.0;
                self.note
                    .push_str("; the lower bound is raised to 0 (the figure cannot be negative)");
            }
        }
        self
    }

    /// The same relative interval around another figure: `mean` becomes `centre` and the
    /// interval and standard error are scaled by `centre / mean`, so "±4%" stays "±4%".
    /// For percentiles: the interval is made from the per-second percentiles, and moved
    /// onto the step's own percentile (see [`crate::percentile_interval`]). When the mean
    /// is 0 or `centre` is not finite, the estimate is returned unchanged.
    pub fn rescaled_to(&self, centre: f64) -> Estimate {
        if self.mean == 0.0 || !centre.is_finite() {
            return self.clone();
        }
        let factor = centre / self.mean;
        let interval = self.interval.map(|i| Interval {
            lower: (i.lower * factor).min(i.upper * factor),
            upper: (i.lower * factor).max(i.upper * factor),
            half_width: i.half_width * factor.abs(),
            std_error: i.std_error * factor.abs(),
            ..i
        });
        let note = match interval {
            Some(_) => format!(
                "{}; centred on {centre:.4} with the same relative width (the values \
                 averaged {:.4})",
                self.note, self.mean
            ),
            None => format!("{}; the figure is {centre:.4}", self.note),
        };
        Estimate {
            mean: centre,
            interval,
            note,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_around_uses_t() {
        let i = Interval::around(100.0, 2.0, 4.0).unwrap();
        assert!((i.half_width - 2.0 * 2.7764).abs() < 1e-3);
        assert!((i.lower + i.half_width - 100.0).abs() < 1e-12);
        assert!((i.upper - i.half_width - 100.0).abs() < 1e-12);
        assert_eq!(i.confidence, 0.95);
        assert!(Interval::around(100.0, 2.0, 0.0).is_none());
        assert!(Interval::around(f64::NAN, 2.0, 4.0).is_none());
        assert!(Interval::around(100.0, -1.0, 4.0).is_none());
    }

    #[test]
    fn rescaling_keeps_the_relative_width() {
        let e = Estimate {
            mean: 10.0,
            interval: Interval::around(10.0, 0.2, 9.0),
            method: Method::Repeats { repeats: 10 },
            values: 10,
            cv_pct: Some(6.0),
            note: "n".into(),
        };
        let r = e.rescaled_to(12.0);
        assert_eq!(r.mean, 12.0);
        assert!((r.half_width_pct().unwrap() - e.half_width_pct().unwrap()).abs() < 1e-9);
        let i = r.interval.unwrap();
        assert!((i.lower + i.upper - 24.0).abs() < 1e-9);
        assert_eq!(e.rescaled_to(f64::NAN), e);
        let zero = Estimate {
            mean: 0.0,
            ..e.clone()
        };
        assert_eq!(zero.rescaled_to(5.0), zero);
        assert_eq!(zero.half_width_pct(), None);
    }
}
