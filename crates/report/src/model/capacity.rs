//! Capacity under a latency target (`--sla`): per scenario and environment, the highest
//! TPS of a step whose percentile, to the upper end of its 95% interval, meets the
//! target, with its thread count; and for a comparison, each environment's capacity
//! against the baseline's as a Δ with its own interval (Fieller's, from the two capacity
//! steps' TPS intervals). Reports lead with it when a target is set.
//!
//! The steps are judged by the engine's functions (`dbdyno_engine::sla`), so a step
//! reads "within" in the ladder's output and in the report alike. Steps the capacity
//! search added (`--sla-search`) count like the ladder's, and are marked.
//!
//! The target is `--sla` of `dbdyno report`, else the one the baseline run (the first
//! run) was made with, else none and the report has no capacity section.

use dbdyno_engine::sla::{capacity, judge_step, SlaTarget, StepSla};
use dbdyno_engine::stats::Spread;
use dbdyno_engine::{Scenario, StepResult};
use dbdyno_stats::{relative_difference, Delta, DeltaRange};
use serde::{Deserialize, Serialize};

use super::EnvSummary;
use crate::format;
use crate::input::ReportRun;

/// Every scenario's capacity at the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityReport {
    pub target: SlaTarget,
    /// "p95 ≤ 20 ms", as every sentence writes it.
    pub target_text: String,
    pub scenarios: Vec<ScenarioCapacity>,
}

/// One scenario's capacity on every environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioCapacity {
    pub scenario: Scenario,
    /// One per environment, in `Report::envs` order.
    pub envs: Vec<EnvCapacity>,
    /// "At p95 ≤ 20 ms, idc sustains 4,210 TPS (48 threads); cloud 3,380 TPS (32
    /// threads): −19.7% (±2.1%)".
    pub sentence: String,
}

/// One environment's steps of the scenario judged against the target, and its capacity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvCapacity {
    pub env: usize,
    /// `None` when no step met the target (or the environment did not run the scenario).
    pub capacity: Option<CapacityStep>,
    /// Every step of the scenario, in the order they ran.
    pub steps: Vec<JudgedStep>,
    /// The capacity's TPS against the baseline's: `None` for the baseline, a single run,
    /// or when either side has no capacity.
    pub delta: Option<Delta>,
}

/// The step that sets the capacity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityStep {
    pub threads: u32,
    pub tps: f64,
    /// The 95% interval of its TPS, when it has one.
    pub tps_interval: Option<(f64, f64)>,
    pub sla: StepSla,
    /// Found by the capacity search (`--sla-search`) between two of the ladder's steps.
    pub searched: bool,
}

/// One step judged against the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgedStep {
    pub threads: u32,
    pub tps: Option<f64>,
    pub sla: StepSla,
    pub searched: bool,
    pub cancelled: bool,
}

/// The target in effect: `--sla`, else the baseline run's (the first of `runs`).
pub fn target(runs: &[&ReportRun], chosen: Option<SlaTarget>) -> Option<SlaTarget> {
    chosen.or_else(|| runs.first().and_then(|r| target_of_plan(&r.plan)))
}

/// The target a stored plan was made with: its `sla` phase.
fn target_of_plan(plan: &serde_json::Value) -> Option<SlaTarget> {
    plan.get("phases")?
        .as_array()?
        .iter()
        .find(|p| p.get("phase").and_then(|v| v.as_str()) == Some("sla"))?
        .get("target")?
        .as_str()?
        .parse()
        .ok()
}

/// The capacity section: `None` without a target.
pub fn build(
    runs: &[&ReportRun],
    envs: &[EnvSummary],
    scenarios: &[Scenario],
    baseline: Option<usize>,
    target: Option<SlaTarget>,
) -> Option<CapacityReport> {
    let target = target?;
    let target_text = target.describe();
    let scenarios = scenarios
        .iter()
        .map(|&scenario| {
            let (mut per_env, figures): (Vec<EnvCapacity>, Vec<Option<TpsFigure>>) = runs
                .iter()
                .enumerate()
                .map(|(env, run)| env_capacity(env, run, scenario, &target))
                .unzip();
            if let Some(b) = baseline.and_then(|b| figures.get(b)?.as_ref()) {
                for (e, n) in per_env.iter_mut().zip(&figures) {
                    if Some(e.env) != baseline {
                        e.delta = n.as_ref().map(|n| delta(b, n));
                    }
                }
            }
            let sentence = sentence(&target_text, scenario, scenarios.len() > 1, envs, &per_env);
            ScenarioCapacity {
                scenario,
                envs: per_env,
                sentence,
            }
        })
        .collect();
    Some(CapacityReport {
        target,
        target_text,
        scenarios,
    })
}

/// One environment's steps of `scenario`, judged, and its capacity (with the capacity
/// step's TPS as a figure for the Δ).
fn env_capacity(
    env: usize,
    run: &ReportRun,
    scenario: Scenario,
    target: &SlaTarget,
) -> (EnvCapacity, Option<TpsFigure>) {
    let steps: Vec<&StepResult> = run
        .steps
        .iter()
        .map(|s| &s.result)
        .filter(|r| r.scenario == scenario)
        .collect();
    let judged: Vec<StepSla> = steps.iter().map(|r| judge_step(r, target)).collect();
    let chosen = capacity(steps.iter().copied().zip(judged.iter()));
    let figure = chosen.as_ref().map(|c| tps_figure(steps[c.step], c.tps));
    let best = chosen.map(|c| CapacityStep {
        threads: c.threads,
        tps: c.tps,
        tps_interval: tps_spread(steps[c.step]).and_then(|s| s.bounds()),
        sla: judged[c.step].clone(),
        searched: c.searched,
    });
    let capacity = EnvCapacity {
        env,
        capacity: best,
        steps: steps
            .iter()
            .zip(judged)
            .map(|(r, sla)| JudgedStep {
                threads: r.threads,
                tps: r.known_tps(),
                sla,
                searched: r.sla_search,
                cancelled: r.cancelled,
            })
            .collect(),
        delta: None,
    };
    (capacity, figure)
}

fn tps_spread(r: &StepResult) -> Option<Spread> {
    r.confidence_or_computed().map(|c| c.spreads.tps.clone())
}

/// A capacity step's TPS (`tps`) as a figure with its interval, or bare with why it
/// has none.
fn tps_figure(r: &StepResult, tps: f64) -> TpsFigure {
    match tps_spread(r) {
        Some(Spread::Estimated(e)) => TpsFigure::Estimated(e),
        Some(Spread::NoSeries { reason }) => TpsFigure::Bare(tps, reason),
        None => TpsFigure::Bare(tps, "the step has no per-second records".into()),
    }
}

enum TpsFigure {
    Estimated(dbdyno_stats::Estimate),
    Bare(f64, String),
}

impl TpsFigure {
    fn value(&self) -> f64 {
        match self {
            TpsFigure::Estimated(e) => e.mean,
            TpsFigure::Bare(v, _) => *v,
        }
    }
}

/// Δ of the candidate's capacity TPS against the baseline's, with its interval when
/// both have one.
fn delta(b: &TpsFigure, n: &TpsFigure) -> Delta {
    match (b, n) {
        (TpsFigure::Estimated(eb), TpsFigure::Estimated(en)) => relative_difference(eb, en),
        _ => {
            let why = match (b, n) {
                (TpsFigure::Bare(_, w), _) => format!("the baseline has no interval ({w})"),
                (_, TpsFigure::Bare(_, w)) => format!("the candidate has no interval ({w})"),
                _ => unreachable!("both estimated is handled above"),
            };
            let (bv, nv) = (b.value(), n.value());
            Delta {
                baseline: bv,
                candidate: nv,
                pct: Some((nv / bv - 1.0) * 100.0).filter(|p| bv != 0.0 && p.is_finite()),
                range: DeltaRange::Unknown { reason: why },
            }
        }
    }
}

/// "At p95 ≤ 20 ms, idc sustains 4,210 TPS (48 threads); cloud 3,380 TPS (32 threads):
/// −19.7% (±2.1%)"; the scenario is named when the report has several.
fn sentence(
    target: &str,
    scenario: Scenario,
    name_scenario: bool,
    envs: &[EnvSummary],
    per_env: &[EnvCapacity],
) -> String {
    let name = |i: usize| envs.get(i).map(|e| e.name.as_str()).unwrap_or("?");
    let on = if name_scenario {
        format!(" in {scenario}")
    } else {
        String::new()
    };
    let parts: Vec<String> = per_env
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let verb = if i == 0 { " sustains" } else { "" };
            let mut s = match &e.capacity {
                Some(c) => format!(
                    "{}{verb} {} TPS ({}{})",
                    name(e.env),
                    format::rate(c.tps),
                    format::threads(c.threads),
                    if c.searched {
                        ", found by the search"
                    } else {
                        ""
                    }
                ),
                None if e.steps.is_empty() => format!("{} did not run it", name(e.env)),
                None => format!("{}: no step met the target", name(e.env)),
            };
            if let Some(d) = &e.delta {
                s.push_str(&format!(": {}", delta_text(d)));
            }
            s
        })
        .collect();
    format!("At {target}{on}, {}", parts.join("; "))
}

/// "−19.7% (±2.1%)", "−19.7% (no interval: …)".
fn delta_text(d: &Delta) -> String {
    let pct = d.pct.map(format::delta_pct).unwrap_or_else(|| "—".into());
    match (d.half_width_pct(), &d.range) {
        (Some(h), _) => format!("{pct} (±{h:.1}%)"),
        (None, DeltaRange::Unknown { reason } | DeltaRange::Unbounded { reason }) => {
            format!("{pct} (no interval: {reason})")
        }
        (None, DeltaRange::Interval { .. }) => pct,
    }
}
