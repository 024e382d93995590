//! The records a comparison yields: each cell's [`Verdict`], the Δ row that carries it
//! ([`DeltaRow`]) with every figure's judgement ([`CellJudgement`]), and one
//! environment's rows against the baseline ([`Comparison`]). Plain data, a leaf of the
//! model: the comparison (`compare`) makes them and the noise judgement (`noise`) reads
//! and decides them, and it imports neither.

use dbdyno_stats::Judgement;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval of Δ TPS or Δ p95 beyond the threshold on the worse side.
    Regressed,
    /// The whole interval beyond the threshold on the better side, and nothing regressed.
    Improved,
    /// The runs cannot tell whether the difference is larger than the threshold.
    WithinNoise,
    /// TPS or p95 has no interval on one side (too short a step, no per-second series).
    NotJudged,
    /// Only one side ran the step, or a side cancelled it.
    Missing,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Regressed => "REGRESSED",
            Verdict::Improved => "IMPROVED",
            Verdict::WithinNoise => "within noise",
            Verdict::NotJudged => "not judged",
            Verdict::Missing => "n/a",
        }
    }
}

/// One environment against the baseline, for one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub env: usize,
    pub baseline: usize,
    /// Aligned with `ScenarioReport::threads`.
    pub rows: Vec<DeltaRow>,
    /// Geometric mean of TPS ratios over the thread counts both ran (1.35 = 35% more).
    pub tps_ratio: Option<f64>,
    /// Mean of server CPU ratios over the thread counts both ran with CPU figures.
    pub cpu_ratio: Option<f64>,
    /// Thread counts both ran.
    pub matched: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeltaRow {
    pub threads: u32,
    pub tps_pct: Option<f64>,
    pub qps_pct: Option<f64>,
    pub p95_pct: Option<f64>,
    pub p99_pct: Option<f64>,
    pub cpu_pct: Option<f64>,
    pub disk_util_pct: Option<f64>,
    pub verdict: Verdict,
    /// Why: the figures that regressed (REGRESSED), could not be judged (not judged) or
    /// improved (IMPROVED), each with its Δ, interval and values; empty within noise.
    pub reasons: Vec<String>,
    /// Half the width of the widest Δ interval of TPS and p95, in percentage points:
    /// differences smaller than this cannot be told apart in this cell.
    pub noise_pct: Option<f64>,
    /// Every figure's Δ with its 95% interval and verdict (`None` when not compared).
    pub judged: Option<CellJudgement>,
    /// Either side's step was cancelled: shown, not compared.
    #[serde(default)]
    pub cancelled: bool,
    /// How the Δ intervals were made when a side repeated its steps ("intervals from
    /// the spread of 3 repeats"); `None` for single runs (batch means within each run)
    /// and cells not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_method: Option<String>,
}

impl DeltaRow {
    /// The verdict as the matrices print it: "cancelled" for a cut-short step.
    pub fn verdict_label(&self) -> &'static str {
        if self.cancelled {
            "cancelled"
        } else {
            self.verdict.label()
        }
    }
}

/// Each figure's Δ with its 95% interval and verdict, for one compared cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellJudgement {
    pub tps: Judgement,
    pub qps: Judgement,
    /// `None` when either side has no such figure.
    pub p95: Option<Judgement>,
    pub p99: Option<Judgement>,
}
