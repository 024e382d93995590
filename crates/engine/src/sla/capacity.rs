//! The capacity at a latency target: of the steps of one scenario that met the target,
//! the one with the highest throughput, and its thread count. None when no step met it.

use serde::{Deserialize, Serialize};

use super::judge::StepSla;
use crate::StepResult;

/// The step that sets a scenario's capacity at the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Capacity {
    pub threads: u32,
    pub tps: f64,
    /// Index of the step in the slice it was chosen from.
    pub step: usize,
    /// The step was run by the search between the ladder's steps.
    pub searched: bool,
}

/// The capacity among `steps` (one scenario's, each with its judgement): the highest TPS
/// of a step within the target. Cancelled steps and steps without totals never count;
/// of two with the same TPS, the one with fewer threads.
pub fn capacity<'a>(
    steps: impl IntoIterator<Item = (&'a StepResult, &'a StepSla)>,
) -> Option<Capacity> {
    steps
        .into_iter()
        .enumerate()
        .filter(|(_, (r, sla))| sla.within() && !r.cancelled)
        .filter_map(|(i, (r, _))| Some((i, r, r.known_tps()?)))
        .max_by(|a, b| a.2.total_cmp(&b.2).then(b.1.threads.cmp(&a.1.threads)))
        .map(|(i, r, tps)| Capacity {
            threads: r.threads,
            tps,
            step: i,
            searched: r.sla_search,
        })
}

/// The capacity among one scenario's `steps`, each judged against `target` here.
pub fn capacity_at(steps: &[&StepResult], target: &super::SlaTarget) -> Option<Capacity> {
    let judged: Vec<StepSla> = steps.iter().map(|r| super::judge_step(r, target)).collect();
    capacity(steps.iter().copied().zip(judged.iter()))
}
