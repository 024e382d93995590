//! A step's latency at the target's percentile and the upper end of its 95% interval:
//! what a step is judged on.
//!
//! The interval is the step's own ([`StepConfidence`]: the text output, `--json`, the
//! history and the reports show the same one). p95 and p99 are read from it; another
//! percentile (p99.9) gets the same treatment over the same seconds (the confidence's
//! window) with [`percentile_interval`].
//!
//! A measured step's per-second records hold p95, p99 and the step's `--percentile`
//! (an imported log's, its `--percentile` only): a target at another percentile has its
//! whole-step figure (from the step's histogram) but no interval, and is judged on the
//! figure alone ([`PercentileFigure::no_interval`] says why).

use dbdyno_stats::percentile_interval;

use super::target::trim_number;
use crate::stats::{LatencyHistogram, Spread, StepConfidence};
use crate::StepResult;

/// A step's latency at one percentile, with the upper end of its 95% interval.
#[derive(Debug, Clone, PartialEq)]
pub struct PercentileFigure {
    /// The whole-step figure in ms; `None` when the step has none (no transaction, or an
    /// imported log that printed another percentile).
    pub value_ms: Option<f64>,
    /// The upper end of its 95% interval in ms.
    pub upper_ms: Option<f64>,
    /// Why there is no interval, when there is none.
    pub no_interval: Option<String>,
}

/// The step's figure at `percentile` and its interval's upper end.
pub fn percentile_figure(step: &StepResult, percentile: f64) -> PercentileFigure {
    let name = format!("p{}", trim_number(percentile));
    let Some(value) = whole_step_ms(step, percentile) else {
        return PercentileFigure {
            value_ms: None,
            upper_ms: None,
            no_interval: Some(format!("the step has no {name} figure")),
        };
    };
    let (upper_ms, no_interval) = match upper_bound(step, percentile, value) {
        Ok(u) => (Some(u), None),
        Err(why) => (None, Some(why)),
    };
    PercentileFigure {
        value_ms: Some(value),
        upper_ms,
        no_interval,
    }
}

/// The upper end of the interval of the step's `percentile` (whose whole-step figure is
/// `value`), or why there is none.
fn upper_bound(step: &StepResult, percentile: f64, value: f64) -> Result<f64, String> {
    let confidence = step
        .confidence_or_computed()
        .ok_or("the step has no per-second records")?;
    let spread = match percentile {
        p if (p - 95.0).abs() < 1e-9 => confidence.spreads.p95.clone(),
        p if (p - 99.0).abs() < 1e-9 => confidence.spreads.p99.clone(),
        p => other_percentile(step, &confidence, p, value),
    };
    match spread {
        Spread::Estimated(e) => match e.interval {
            Some(i) => Ok(i.upper),
            None => Err(e.note),
        },
        Spread::NoSeries { reason } => Err(format!(
            "{reason}; run with --percentile={}",
            trim_number(percentile)
        )),
    }
}

/// The interval of a percentile the confidence does not hold (p99.9, p90), over the
/// same seconds, when the per-second records carry it.
fn other_percentile(
    step: &StepResult,
    confidence: &StepConfidence,
    percentile: f64,
    value: f64,
) -> Spread {
    let w = confidence.window;
    let records = step.intervals.get(w.first..w.first + w.len).unwrap_or(&[]);
    let Some(carried) = records.first().map(|r| r.percentile) else {
        return Spread::NoSeries {
            reason: "the step has no per-second records".into(),
        };
    };
    if (carried - percentile).abs() > 1e-9 {
        return Spread::NoSeries {
            reason: format!(
                "the step's per-second records carry p{} latency, not p{}",
                trim_number(carried),
                trim_number(percentile)
            ),
        };
    }
    let latency: Vec<f64> = records.iter().map(|r| r.latency_ms).collect();
    Spread::Estimated(percentile_interval(&latency, value))
}

/// The step's whole-step latency at `percentile`: the headline figure when it is that
/// percentile, else the summary's, else the step's histogram.
fn whole_step_ms(step: &StepResult, percentile: f64) -> Option<f64> {
    if (step.percentile - percentile).abs() < 1e-9 {
        if let Some(v) = step.known_latency_pct_ms() {
            return Some(v);
        }
    }
    let l = &step.latency;
    let listed = [
        (50.0, l.p50_ms),
        (90.0, l.p90_ms),
        (95.0, l.p95_ms),
        (99.0, l.p99_ms),
        (99.9, l.p999_ms),
    ];
    if let Some((_, v)) = listed.iter().find(|(p, _)| (p - percentile).abs() < 1e-9) {
        return *v;
    }
    let histogram = LatencyHistogram::from_base64(&step.histogram).ok()?;
    (histogram.count() > 0).then(|| histogram.value_at_percentile_ms(percentile))
}
