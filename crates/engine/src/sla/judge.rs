//! Whether a step met the latency target: within when the upper end of its percentile's
//! 95% interval is at or under the limit, so that "within" means the step met it even
//! allowing for noise; beyond otherwise. A step without an interval (too short, or the
//! percentile not recorded each second) is judged on its figure and says so.

use serde::{Deserialize, Serialize};

use super::figure::percentile_figure;
use super::target::{trim_number, SlaTarget};
use crate::StepResult;

/// Where a step stands against the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SlaStanding {
    Within,
    Beyond,
    /// The step has no figure at the target's percentile (no transaction, or an imported
    /// log that printed another percentile).
    Unknown,
}

/// One step judged against the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepSla {
    pub standing: SlaStanding,
    /// The step's latency at the target's percentile, in ms.
    pub percentile_ms: Option<f64>,
    /// The upper end of its 95% interval, in ms: what was held against the limit.
    pub upper_ms: Option<f64>,
    /// Why the step was judged on its figure alone (no interval), when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_interval: Option<String>,
}

impl StepSla {
    pub fn within(&self) -> bool {
        self.standing == SlaStanding::Within
    }

    /// The figure held against the limit: the interval's upper end, else the figure.
    pub fn judged_ms(&self) -> Option<f64> {
        self.upper_ms.or(self.percentile_ms)
    }
}

/// Judges `step` against `target`.
pub fn judge_step(step: &StepResult, target: &SlaTarget) -> StepSla {
    let figure = percentile_figure(step, target.percentile);
    let judged = figure.upper_ms.or(figure.value_ms);
    let standing = match judged {
        None => SlaStanding::Unknown,
        Some(v) if v <= target.limit_ms => SlaStanding::Within,
        Some(_) => SlaStanding::Beyond,
    };
    StepSla {
        standing,
        percentile_ms: figure.value_ms,
        upper_ms: figure.upper_ms,
        no_interval: figure.no_interval,
    }
}

/// The mark after a step's line: "p95 19.2 ms (CI ≤ 20.4) beyond p95≤20ms", with
/// "(no interval)" when the step was judged on its figure alone.
pub fn mark(sla: &StepSla, target: &SlaTarget) -> String {
    let name = target.percentile_name();
    let goal = target.compact();
    let Some(value) = sla.percentile_ms else {
        return format!("{name} unknown against {goal}");
    };
    let bound = match sla.upper_ms {
        Some(u) => format!("(CI ≤ {})", ms_text(u)),
        None => "(no interval)".to_string(),
    };
    let word = match sla.standing {
        SlaStanding::Within => "within",
        SlaStanding::Beyond => "beyond",
        SlaStanding::Unknown => "unknown against",
    };
    format!("{name} {} ms {bound} {word} {goal}", ms_text(value))
}

/// Milliseconds with the digits that matter: 19.2, 0.412, 1,250 → "1250".
fn ms_text(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 1.0 {
        trim_number((v * 10.0).round() / 10.0)
    } else {
        trim_number((v * 1000.0).round() / 1000.0)
    }
}
