//! The capacity search: after the ladder, bisect thread counts between the last step
//! within the target and the first beyond it, one extra step at a time, until the two
//! are one thread apart or the search ran its most steps (per scenario).
//!
//! Bisection because throughput and latency grow with threads smoothly enough that the
//! crossing lies between the two steps, and halving the gap is the fewest steps that
//! find it whatever its place. The extra steps run with the scenario's own settings, so
//! they are measured exactly like the ladder's.

use serde::{Deserialize, Serialize};

use super::judge::{judge_step, SlaStanding};
use super::target::SlaTarget;
use crate::plan::{Plan, StepPlan};
use crate::repeat::Repeat;
use crate::{Scenario, StepResult};

/// The plan's phase after the ladder's steps when a latency target is set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SlaPhase {
    pub target: SlaTarget,
    /// Most extra steps per scenario; 0 judges the ladder only.
    #[serde(default)]
    pub search_steps: u32,
    /// Pause before each extra step (the ladder's cool-down).
    #[serde(default)]
    pub cooldown_s: u64,
}

/// The thread counts that bracket the crossing: the last within the target below the
/// first beyond it. None when no step is beyond, or none is within below it.
pub fn bracket(judged: &[(u32, SlaStanding)]) -> Option<(u32, u32)> {
    let beyond = judged
        .iter()
        .filter(|(_, s)| *s == SlaStanding::Beyond)
        .map(|(t, _)| *t)
        .min()?;
    let within = judged
        .iter()
        .filter(|(t, s)| *s == SlaStanding::Within && *t < beyond)
        .map(|(t, _)| *t)
        .max()?;
    Some((within, beyond))
}

/// The thread count to measure next: the middle of the bracket, or None when the
/// bracket is one thread wide (or its middle was measured already and judged unknown).
pub fn next_threads(judged: &[(u32, SlaStanding)]) -> Option<u32> {
    let (within, beyond) = bracket(judged)?;
    if beyond - within <= 1 {
        return None;
    }
    let middle = within + (beyond - within) / 2;
    (!judged.iter().any(|(t, _)| *t == middle)).then_some(middle)
}

/// The next extra step of `scenario`, given every step that ran so far, and the
/// bracket it splits (for the run's message); or why the search of this scenario is
/// over, in words for the run's log.
pub fn next_step(
    plan: &Plan,
    target: &SlaTarget,
    scenario: Scenario,
    done: &[StepResult],
) -> Result<(StepPlan, (u32, u32)), String> {
    let goal = target.compact();
    let judged: Vec<(u32, SlaStanding)> = done
        .iter()
        .filter(|r| r.scenario == scenario && !r.cancelled)
        .map(|r| (r.threads, judge_step(r, target).standing))
        .collect();
    let Some(last) = plan.steps().filter(|s| s.scenario == scenario).last() else {
        return Err(format!("{scenario} has no step in the plan"));
    };
    // An open-loop step's connections follow its arrival rate: more threads would not
    // load the server more, so there is nothing to bisect.
    if last.settings.rate > 0.0 {
        return Err(format!(
            "{scenario} runs at an arrival rate (open loop): no thread counts to search"
        ));
    }
    let has = |s: SlaStanding| judged.iter().any(|(_, j)| *j == s);
    let Some((within, beyond)) = bracket(&judged) else {
        return Err(if !has(SlaStanding::Beyond) {
            format!("every {scenario} step is within {goal}: its capacity lies above the ladder (add higher thread counts)")
        } else {
            format!("no {scenario} step below the first beyond {goal} is within it: its capacity lies below the ladder (add lower thread counts)")
        });
    };
    let Some(threads) = next_threads(&judged) else {
        return Err(format!(
            "{scenario}: {within} threads within {goal}, {beyond} beyond: the search is done"
        ));
    };
    Ok((
        StepPlan {
            threads,
            // An extra step, not one of the ladder's repeats.
            repeat: Repeat::SINGLE,
            ..last.clone()
        },
        (within, beyond),
    ))
}

/// The scenarios of the plan's steps, each once, in the order they run.
pub fn scenarios_in_order(plan: &Plan) -> Vec<Scenario> {
    let mut out: Vec<Scenario> = Vec::new();
    for s in plan.steps() {
        if !out.contains(&s.scenario) {
            out.push(s.scenario);
        }
    }
    out
}

impl Plan {
    /// The plan's latency target and search, when it has one.
    pub fn sla(&self) -> Option<&SlaPhase> {
        self.phases.iter().find_map(|p| match p {
            crate::plan::Phase::Sla(s) => Some(s),
            _ => None,
        })
    }
}
