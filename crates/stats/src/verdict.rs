//! Verdicts that know the noise: Regressed or Improved only when the whole interval of Δ
//! lies beyond the threshold, otherwise within noise; and the noise floor of a scenario.
//!
//! A point Δ held against a threshold calls a cell REGRESSED whenever noise happens to
//! push it past the line: two identical runs then "regress" about as often as they
//! "improve". Requiring the whole 95% interval beyond the threshold means a verdict is
//! only given when the data could not plausibly show a difference that small. The cost is
//! honest: when the noise is wider than the effect, the answer is "within noise", with
//! the noise's width, so that a report can say "differences under 6% cannot be told
//! apart on these runs" and suggest repeats.
//!
//! Non-goal: multiple-comparison corrections across cells; a report with 40 cells at 95%
//! can show a false verdict now and then, which the noise floor and repeats keep rare.

use serde::{Deserialize, Serialize};

use crate::delta::{Delta, DeltaRange};
use crate::describe::median;
use crate::wording::count;

/// Which way is better for a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Throughput: TPS, QPS.
    HigherIsBetter,
    /// Latency: p95, p99.
    LowerIsBetter,
}

/// The outcome of one figure's comparison (TPS or p95 of a cell). The cell's own verdict is
/// the report's `model::Verdict`, which adds `Missing` (a side did not run the step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FigureVerdict {
    /// The whole interval of Δ is beyond the threshold on the worse side.
    Regressed,
    /// The whole interval of Δ is beyond the threshold on the better side.
    Improved,
    /// The interval reaches inside the threshold (or is unbounded): the runs cannot tell.
    WithinNoise,
    /// A figure had no interval (too short a step), so no verdict is given.
    NotJudged,
}

/// A verdict with everything a report needs to explain it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Judgement {
    pub verdict: FigureVerdict,
    pub delta: Delta,
    /// The threshold in percent (its size: the sign comes from `direction`).
    pub threshold_pct: f64,
    pub direction: Direction,
    /// Half the width of Δ's interval in percentage points: differences smaller than this
    /// cannot be told apart from none. `None` when Δ has no finite interval.
    pub noise_pct: Option<f64>,
    /// True when Δ's interval excludes 0: the figures differ, though perhaps by less than
    /// the threshold can confirm.
    pub differs: bool,
    /// One sentence for a report.
    pub explanation: String,
}

/// Judges `delta` against `threshold_pct` (its absolute value; a non-finite threshold
/// counts as 0) for a figure where `direction` is better.
pub fn judge(delta: Delta, threshold_pct: f64, direction: Direction) -> Judgement {
    let threshold = if threshold_pct.is_finite() {
        threshold_pct.abs()
    } else {
        0.0
    };
    let (verdict, differs, explanation) = match &delta.range {
        DeltaRange::Interval {
            lower_pct,
            upper_pct,
            ..
        } => {
            let (lo, hi) = (*lower_pct, *upper_pct);
            let (worse, better) = match direction {
                Direction::HigherIsBetter => (hi < -threshold, lo > threshold),
                Direction::LowerIsBetter => (lo > threshold, hi < -threshold),
            };
            let verdict = if worse {
                FigureVerdict::Regressed
            } else if better {
                FigureVerdict::Improved
            } else {
                FigureVerdict::WithinNoise
            };
            let differs = lo > 0.0 || hi < 0.0;
            let text = explain(&delta, lo, hi, threshold, verdict, differs);
            (verdict, differs, text)
        }
        DeltaRange::Unbounded { reason } => (
            FigureVerdict::WithinNoise,
            false,
            format!(
                "{}: no finite interval ({reason}), so within noise",
                point(&delta)
            ),
        ),
        DeltaRange::Unknown { reason } => (
            FigureVerdict::NotJudged,
            false,
            format!("{}: not judged, {reason}", point(&delta)),
        ),
    };
    Judgement {
        verdict,
        noise_pct: delta.half_width_pct(),
        delta,
        threshold_pct: threshold,
        direction,
        differs,
        explanation,
    }
}

fn point(delta: &Delta) -> String {
    match delta.pct {
        Some(p) => format!("Δ {p:+.1}%"),
        None => "Δ undefined (zero baseline)".into(),
    }
}

fn explain(
    delta: &Delta,
    lo: f64,
    hi: f64,
    threshold: f64,
    v: FigureVerdict,
    differs: bool,
) -> String {
    let head = format!("{} (95% interval {lo:+.1}% to {hi:+.1}%)", point(delta));
    let noise = (hi - lo) / 2.0;
    match v {
        FigureVerdict::Regressed => {
            format!("{head}: all of it beyond the {threshold}% threshold on the worse side")
        }
        FigureVerdict::Improved => {
            format!("{head}: all of it beyond the {threshold}% threshold on the better side")
        }
        _ if differs => format!(
            "{head}: a real difference, but the interval reaches inside ±{threshold}%, so \
             within noise for this threshold"
        ),
        _ => format!(
            "{head}: within noise; differences under {noise:.1}% cannot be told apart on \
             these figures"
        ),
    }
}

/// The smallest difference a scenario's comparisons could tell apart: the median
/// half-width of Δ over its cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NoiseFloor {
    /// Median half-width of Δ in percentage points over the cells with a finite interval;
    /// `None` when no cell had one.
    pub pct: Option<f64>,
    /// Cells given, and how many had a finite, no finite (unbounded) or no interval.
    pub cells: usize,
    pub bounded: usize,
    pub unbounded: usize,
    pub unknown: usize,
    /// One sentence for a report.
    pub note: String,
}

/// The noise floor of a set of comparison cells (typically one scenario's thread
/// counts). The median, not the mean, so that one noisy step does not set it; cells
/// without a finite interval are counted, not averaged in.
pub fn noise_floor<'a>(deltas: impl IntoIterator<Item = &'a Delta>) -> NoiseFloor {
    let (mut widths, mut cells, mut unbounded, mut unknown) = (Vec::new(), 0, 0, 0);
    for d in deltas {
        cells += 1;
        match d.range {
            DeltaRange::Interval { .. } => widths.extend(d.half_width_pct()),
            DeltaRange::Unbounded { .. } => unbounded += 1,
            DeltaRange::Unknown { .. } => unknown += 1,
        }
    }
    let pct = (!widths.is_empty()).then(|| median(&widths));
    let mut note = match pct {
        Some(p) => format!(
            "differences under {p:.1}% cannot be told apart on these runs (median over {})",
            count(widths.len() as u32, "cell")
        ),
        None => "no cell has an interval, so the noise is unknown".to_string(),
    };
    if unbounded + unknown > 0 {
        note.push_str(&format!(
            "; {} without a finite interval, {unknown} without any",
            count(unbounded as u32, "cell")
        ));
    }
    NoiseFloor {
        pct,
        cells,
        bounded: widths.len(),
        unbounded,
        unknown,
        note,
    }
}

#[cfg(test)]
mod tests;
