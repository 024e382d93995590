//! The latency target in a ladder's text output: the mark under each step's line and
//! the capacity of each scenario after the closing table.

use super::capacity::capacity_at;
use super::judge::{judge_step, mark};
use super::target::SlaTarget;
use crate::{Scenario, StepResult};

/// `  p95 19.2 ms (CI ≤ 20.4) beyond p95≤20ms`, with `(capacity search)` for a step the
/// search added.
pub fn step_mark(r: &StepResult, target: &SlaTarget) -> String {
    let searched = if r.sla_search {
        " (capacity search)"
    } else {
        ""
    };
    format!("  {}{searched}", mark(&judge_step(r, target), target))
}

/// One line per scenario: its capacity at the target, or that no step met it.
///
/// `capacity at p95 ≤ 20 ms: oltp_point_select 3500.12 tps at 16 threads`
pub fn capacity_lines(rows: &[StepResult], target: &SlaTarget) -> Vec<String> {
    let mut scenarios: Vec<Scenario> = Vec::new();
    for r in rows {
        if !scenarios.contains(&r.scenario) {
            scenarios.push(r.scenario);
        }
    }
    scenarios
        .into_iter()
        .map(|s| {
            let steps: Vec<&StepResult> = rows.iter().filter(|r| r.scenario == s).collect();
            let head = format!("capacity at {}: {s}", target.describe());
            match capacity_at(&steps, target) {
                Some(c) => format!(
                    "{head} {:.2} tps at {} thread{}{}",
                    c.tps,
                    c.threads,
                    if c.threads == 1 { "" } else { "s" },
                    if c.searched {
                        " (found by the capacity search)"
                    } else {
                        ""
                    }
                ),
                None => format!("{head} none: no step met the target"),
            }
        })
        .collect()
}
