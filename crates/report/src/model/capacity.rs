//! Capacity under a latency target (`--sla`): per scenario and environment, the highest
//! TPS of a matrix cell (or a search step) whose percentile, to the upper end of its 95%
//! interval, meets the target, with its thread count; and for a comparison, each
//! environment's capacity against the baseline's as a Δ with its own interval (Fieller's,
//! from the two capacity cells' TPS intervals), judged by the matrix's noise rule and
//! worded from its [`Claim`]. Reports lead with it when a target is set.
//!
//! The candidates are the matrix's cells, so that a thread count's figure is the same in
//! the capacity and in the matrix: with repeats (`--repeat`), the mean of the repeats and
//! the spread between them, never the best repeat. A cell of one run is judged by the
//! engine's own function (`dbdyno_engine::sla::judge_step`), so it reads "within" in the
//! ladder's output and in the report alike. Steps the capacity search added
//! (`--sla-search`) count as one cell each, and are marked.
//!
//! The target is `--sla` of `dbdyno report`, else the one the baseline run (the first
//! run) was made with, else none and the report has no capacity section.

use dbdyno_engine::sla::{judge_step, SlaStanding, SlaTarget, StepSla};
use dbdyno_engine::stats::Spread;
use dbdyno_engine::Scenario;
use dbdyno_stats::{Delta, DeltaRange, Direction};
use serde::{Deserialize, Serialize};

use super::claims::{Claim, ClaimFigure, Standing, Tally};
use super::{cells, noise, Cell, EnvSummary, ScenarioReport};
use crate::format;
use crate::input::{ReportRun, ReportStep};

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
    /// The Δ judged by the matrix's noise rule, as the sentences word it (`None` when
    /// `delta` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<Claim>,
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
fn target_of_plan(plan: &Option<dbdyno_engine::Plan>) -> Option<SlaTarget> {
    plan.as_ref()?.phases.iter().find_map(|p| match p {
        dbdyno_engine::Phase::Sla(sla) => Some(sla.target),
        _ => None,
    })
}

/// The capacity section: `None` without a target.
pub fn build(
    runs: &[&ReportRun],
    envs: &[EnvSummary],
    scenarios: &[ScenarioReport],
    baseline: Option<usize>,
    target: Option<SlaTarget>,
    threshold_pct: f64,
) -> Option<CapacityReport> {
    let target = target?;
    let target_text = target.describe();
    let scenarios = scenarios
        .iter()
        .map(|s| {
            let (mut per_env, chosen): (Vec<EnvCapacity>, Vec<Option<Cell>>) = runs
                .iter()
                .enumerate()
                .map(|(env, run)| env_capacity(env, run, s, &target))
                .unzip();
            if let Some((b, base)) = baseline.and_then(|b| Some((b, chosen.get(b)?.as_ref()?))) {
                for (e, n) in per_env.iter_mut().zip(&chosen) {
                    if e.env == b {
                        continue;
                    }
                    if let Some(n) = n {
                        let claim = claim(s.scenario, e.env, b, base, n, threshold_pct);
                        e.delta = Some(claim.1);
                        e.claim = Some(claim.0);
                    }
                }
            }
            let sentence = sentence(
                &target_text,
                s.scenario,
                scenarios.len() > 1,
                envs,
                &per_env,
            );
            ScenarioCapacity {
                scenario: s.scenario,
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

/// Holds each capacity claim against the throughput claims of its pair
/// ([`super::claims::reconcile_capacity`]) and words the sentences again.
pub fn reconcile(c: &mut CapacityReport, claims: &[Claim], envs: &[EnvSummary]) {
    let several = c.scenarios.len() > 1;
    for s in &mut c.scenarios {
        for e in &mut s.envs {
            if let Some(claim) = e.claim.as_mut() {
                super::claims::reconcile_capacity(claim, claims);
            }
        }
        s.sentence = sentence(&c.target_text, s.scenario, several, envs, &s.envs);
    }
}

/// The capacity claims of the section, scenario by scenario.
pub fn claims(c: &CapacityReport) -> Vec<Claim> {
    c.scenarios
        .iter()
        .flat_map(|s| s.envs.iter().filter_map(|e| e.claim.clone()))
        .collect()
}

/// One environment's steps of the scenario, judged, and its capacity, with the cell that
/// sets it (for the Δ). The candidates are the matrix's own cells (the mean of a step's
/// repeats, with the spread between them as its interval), so that the capacity and the
/// matrix read the same figure at a thread count, and the search's extra steps, one cell
/// each.
fn env_capacity(
    env: usize,
    run: &ReportRun,
    s: &ScenarioReport,
    target: &SlaTarget,
) -> (EnvCapacity, Option<Cell>) {
    let steps: Vec<&ReportStep> = run
        .steps
        .iter()
        .filter(|st| st.result.scenario == s.scenario)
        .collect();
    let ladder = s
        .envs
        .iter()
        .find(|e| e.env == env)
        .into_iter()
        .flat_map(|e| e.cells.iter().flatten())
        .filter(|c| !c.cancelled)
        .map(|c| (c.clone(), cell_sla(c, &steps, target), false));
    let searched = steps
        .iter()
        .filter(|st| st.result.sla_search && !st.result.cancelled)
        .map(|st| (cells::cell(st), judge_step(&st.result, target), true));
    let chosen = ladder
        .chain(searched)
        .filter(|(_, sla, _)| sla.within())
        .max_by(|a, b| {
            a.0.tps
                .total_cmp(&b.0.tps)
                .then(b.0.threads.cmp(&a.0.threads))
        });
    let best = chosen.as_ref().map(|(c, sla, searched)| CapacityStep {
        threads: c.threads,
        tps: c.tps,
        tps_interval: c.intervals.tps.bounds(),
        sla: sla.clone(),
        searched: *searched,
    });
    let capacity = EnvCapacity {
        env,
        capacity: best,
        steps: steps
            .iter()
            .map(|st| JudgedStep {
                threads: st.result.threads,
                tps: st.result.known_tps(),
                sla: judge_step(&st.result, target),
                searched: st.result.sla_search,
                cancelled: st.result.cancelled,
            })
            .collect(),
        delta: None,
        claim: None,
    };
    (capacity, chosen.map(|(c, _, _)| c))
}

/// A matrix cell judged against the target. One run of the step: the engine's own
/// judgement of it ([`judge_step`], as the ladder's output reads it). Repeats: the cell's
/// percentile (their mean) to the upper end of its interval (their spread) for p95 and
/// p99, which the cell carries; for another percentile, within only when every repeat is.
fn cell_sla(c: &Cell, steps: &[&ReportStep], target: &SlaTarget) -> StepSla {
    let mut runs: Vec<&ReportStep> = steps
        .iter()
        .copied()
        .filter(|st| {
            st.result.threads == c.threads && !st.result.sla_search && !st.result.cancelled
        })
        .collect();
    // The cell is made of the last of them (a re-run replaces, repeats are the last N).
    let from = runs.len().saturating_sub(c.repeats.max(1));
    let runs = runs.split_off(from);
    if c.repeats <= 1 {
        return match runs.last() {
            Some(st) => judge_step(&st.result, target),
            None => unknown_sla("the step is not in the run"),
        };
    }
    let figure = match target.percentile {
        p if (p - 95.0).abs() < 1e-9 => Some((c.p95_ms, &c.intervals.p95)),
        p if (p - 99.0).abs() < 1e-9 => Some((c.p99_ms, &c.intervals.p99)),
        _ => None,
    };
    match figure {
        Some((Some(value), spread)) => {
            let upper = spread.bounds().map(|(_, hi)| hi);
            let judged = upper.unwrap_or(value);
            StepSla {
                standing: if judged <= target.limit_ms {
                    SlaStanding::Within
                } else {
                    SlaStanding::Beyond
                },
                percentile_ms: Some(value),
                upper_ms: upper,
                no_interval: match spread {
                    Spread::NoSeries { reason } => Some(reason.clone()),
                    Spread::Estimated(_) if upper.is_none() => {
                        Some("the repeats give no interval".into())
                    }
                    Spread::Estimated(_) => None,
                },
            }
        }
        Some((None, _)) => unknown_sla("the cell has no figure at the target's percentile"),
        None => {
            let judged: Vec<StepSla> = runs
                .iter()
                .map(|st| judge_step(&st.result, target))
                .collect();
            let standing = if judged.iter().any(|j| j.standing == SlaStanding::Unknown) {
                SlaStanding::Unknown
            } else if judged.iter().all(StepSla::within) {
                SlaStanding::Within
            } else {
                SlaStanding::Beyond
            };
            let values: Vec<f64> = judged.iter().filter_map(|j| j.percentile_ms).collect();
            StepSla {
                standing,
                percentile_ms: (!values.is_empty())
                    .then(|| values.iter().sum::<f64>() / values.len() as f64),
                upper_ms: judged
                    .iter()
                    .filter_map(StepSla::judged_ms)
                    .reduce(f64::max),
                no_interval: Some(format!("{} repeats, each judged on its own", judged.len())),
            }
        }
    }
}

fn unknown_sla(why: &str) -> StepSla {
    StepSla {
        standing: SlaStanding::Unknown,
        percentile_ms: None,
        upper_ms: None,
        no_interval: Some(why.into()),
    }
}

/// The candidate's capacity against the baseline's: Δ of the two cells' TPS with its
/// interval, judged by the matrix's noise rule at the report's threshold.
fn claim(
    scenario: Scenario,
    env: usize,
    baseline: usize,
    b: &Cell,
    n: &Cell,
    threshold_pct: f64,
) -> (Claim, Delta) {
    let j = noise::judge_figure(
        &b.intervals.tps,
        &n.intervals.tps,
        b.tps,
        n.tps,
        threshold_pct,
        Direction::HigherIsBetter,
    );
    let standing = Standing::of_judgement(&j);
    let reason = match &j.delta.range {
        DeltaRange::Unknown { reason } | DeltaRange::Unbounded { reason } => Some(reason.clone()),
        DeltaRange::Interval { .. } => None,
    };
    let claim = Claim {
        figure: ClaimFigure::Capacity,
        scenario,
        subject: env,
        reference: baseline,
        standing,
        delta_pct: j.delta.pct,
        noise_pct: j.delta.half_width_pct(),
        values: Some((n.tps, b.tps)),
        tally: Tally::default(),
        cells: Vec::new(),
        reason,
    };
    (claim, j.delta)
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
            if let Some(d) = delta_text(e) {
                s.push_str(&format!(": {d}"));
            }
            s
        })
        .collect();
    format!("At {target}{on}, {}", parts.join("; "))
}

/// The candidate's Δ as its claim words it.
fn delta_text(e: &EnvCapacity) -> Option<String> {
    e.claim.as_ref().map(Claim::capacity_delta)
}
