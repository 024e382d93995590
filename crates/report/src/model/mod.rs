//! The report model: every figure, comparison, verdict and sentence of a report, computed
//! once from the runs. Renderers only lay it out, so HTML, PDF, Markdown, CSV and JSON
//! never disagree.
//!
//! Built by [`build`] from `&[ReportRun]` and [`ReportOptions`]:
//!
//! - [`cells`]: one [`Cell`] per environment × scenario × thread count;
//! - [`knee`]: the best thread count per environment and scenario;
//! - [`capacity`]: with a latency target (`--sla`), the highest TPS within it per
//!   environment and scenario, and its Δ against the baseline;
//! - [`bottleneck`]: CPU-bound, IO-bound, lock contention, client-bound (seed 000's patterns);
//! - [`noise`]: each step's 95% intervals, each compared figure's Δ interval and verdict,
//!   and the noise floor per scenario (`dbdyno-stats` does the statistics);
//! - [`repeats`]: the repeats of a step (`--repeat`) as one cell, with intervals from
//!   the spread between them;
//! - [`compare`]: Δ% against the baseline and a verdict per cell that knows the noise
//!   (REGRESSED, IMPROVED, within noise, not judged);
//! - [`coldstart`]: steps pulled down by a cold buffer pool (seed 003);
//! - [`environment`]: the side-by-side environment table;
//! - [`claims`]: what each comparison says (who, figure, standing, size), from the
//!   verdict column, before it is a sentence;
//! - [`summary`]: headline deltas and the executive summary, in sentences rendered from
//!   the claims (its TPC-C sentences in `tpcc_summary`);
//! - [`warnings`]: what to check before trusting the numbers;
//! - [`timeline`]: the per-second series and latency distribution of one chosen step;
//! - [`tpcc`]: tpmC and NOPM by threads, per transaction type, and Δ tpmC per environment;
//! - [`appendix`]: what it takes to reproduce each run.
//!
//! Non-goals: statistics across separate runs of one environment (repeats are steps of
//! one run), cost models.

use std::collections::BTreeMap;

use dbdyno_engine::Scenario;
use serde::{Deserialize, Serialize};

use crate::error::ReportError;
use crate::input::ReportRun;

pub mod appendix;
pub mod bottleneck;
pub mod capacity;
pub mod cells;
pub mod claims;
pub mod coldstart;
pub mod compare;
pub mod environment;
pub mod hardware;
pub mod knee;
pub mod load_clients;
pub mod noise;
pub mod repeats;
pub mod summary;
pub mod timeline;
pub mod tpcc;
mod tpcc_summary;
pub mod trend;
pub mod verdict;
pub mod warnings;

pub use bottleneck::{Bottleneck, BottleneckClass, Resource};
pub use compare::ComparisonTotals;
pub use knee::{Knee, KneeKind};
pub use verdict::{Comparison, DeltaRow, Verdict};

/// Version of the report model's JSON layout (`--json` of `dbdyno report`). 2: verdicts
/// that know the noise (cells carry their intervals, rows their Δ intervals, scenarios
/// their noise floor; totals count regressed, improved, within noise and not judged).
pub const REPORT_SCHEMA_VERSION: u32 = 2;

/// Default regression threshold in percent.
pub const DEFAULT_THRESHOLD_PCT: f64 = 5.0;

/// Latency changes smaller than this many milliseconds never fail a cell: below it, a
/// percentage of a sub-millisecond p95 is timer noise (0.06 → 0.07 ms is +17%).
pub const DEFAULT_LATENCY_FLOOR_MS: f64 = 0.05;

/// What the person asking for the report chose.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    pub title: Option<String>,
    /// Run id (or environment name) of the baseline. Without one, the first run is the
    /// reference for Δ% and verdicts, and [`Report::baseline_explicit`] is false.
    pub baseline: Option<String>,
    /// A cell regresses when the whole 95% interval of Δ TPS lies below −this many
    /// percent, or that of Δ p95 above +this many.
    pub threshold_pct: f64,
    pub latency_floor_ms: f64,
    /// The step whose per-second timeline and latency distribution are shown.
    pub timeline: Option<(Scenario, u32)>,
    /// Cells that cannot be compared (no counterpart in the baseline, or cancelled)
    /// count as regressions for [`Report::regressed`] (`--fail-on-missing`).
    pub fail_on_missing: bool,
    /// When the report was made (unix ms); `None` means now. Tests pin it.
    pub generated_at_ms: Option<i64>,
    pub tool_version: String,
    /// The latency target the report leads with (`--sla`); `None`: the baseline run's,
    /// if it was made with one.
    pub sla: Option<dbdyno_engine::SlaTarget>,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            title: None,
            baseline: None,
            threshold_pct: DEFAULT_THRESHOLD_PCT,
            latency_floor_ms: DEFAULT_LATENCY_FLOOR_MS,
            timeline: None,
            fail_on_missing: false,
            generated_at_ms: None,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            sla: None,
        }
    }
}

/// Parses `--timeline=SCENARIO@THREADS`.
pub fn parse_timeline(s: &str) -> Result<(Scenario, u32), ReportError> {
    let bad = || ReportError::BadTimeline(s.to_string());
    let (sc, th) = s.split_once('@').ok_or_else(bad)?;
    let scenario: Scenario = sc.parse().map_err(|_| bad())?;
    let threads: u32 = th.trim().parse().map_err(|_| bad())?;
    Ok((scenario, threads))
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub title: String,
    pub generated_at_ms: i64,
    pub tool_version: String,
    pub threshold_pct: f64,
    pub latency_floor_ms: f64,
    /// Index into `envs` of the reference for Δ% and verdicts (`None` for one run).
    pub baseline: Option<usize>,
    /// Whether the baseline was chosen (`--baseline`), so that verdicts may fail a build.
    pub baseline_explicit: bool,
    /// Cells that cannot be compared fail the report (`--fail-on-missing`).
    #[serde(default)]
    pub fail_on_missing: bool,
    /// The compared runs, baseline first, then in the order given.
    pub envs: Vec<EnvSummary>,
    /// With a latency target: each scenario's capacity at it, which the report leads with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<capacity::CapacityReport>,
    pub environment_table: Vec<EnvRow>,
    pub scenarios: Vec<ScenarioReport>,
    /// Totals of all verdicts (`None` for one run).
    pub verdict: Option<ComparisonTotals>,
    pub executive_summary: Vec<String>,
    pub headlines: Vec<String>,
    /// What the comparison's sentences say, typed: throughput, tpmC and efficiency per
    /// scenario and environment, and the capacity at the target ([`claims`]).
    #[serde(default)]
    pub claims: Vec<claims::Claim>,
    pub cold_starts: Vec<coldstart::ColdStart>,
    /// Cells that ran at least [`trend::MIN_RUNS`] times among the runs: their series
    /// over time and change points (a report of a nightly job's runs).
    #[serde(default)]
    pub trends: Vec<trend::Trend>,
    pub warnings: Vec<Warning>,
    /// The chosen step, once per environment that ran it.
    pub timeline: Vec<timeline::Timeline>,
    pub latency_distribution: Option<timeline::LatencyDistribution>,
    pub appendix: Vec<appendix::AppendixRun>,
    /// The environments' latest hardware records, when the history has any
    /// ([`hardware::attach`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hardware: Option<hardware::HardwareSection>,
    /// tpmC, NOPM and the per-transaction table, when a run has tpcc steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<tpcc::TpccSection>,
}

impl Report {
    /// True when a baseline was chosen and at least one cell regressed past the threshold
    /// beyond its noise (or, with `--fail-on-missing`, could not be compared): what
    /// `dbdyno report` turns into its exit code.
    pub fn regressed(&self) -> bool {
        self.baseline_explicit && self.failing()
    }

    /// Whether the comparison reads FAIL: a cell REGRESSED (the whole interval of its Δ
    /// beyond the threshold), or (with `--fail-on-missing`) a cell could not be compared.
    pub fn failing(&self) -> bool {
        self.verdict
            .as_ref()
            .is_some_and(|v| v.failed > 0 || (self.fail_on_missing && v.missing > 0))
    }

    /// Cells of the comparison that could not be compared (no counterpart in the
    /// baseline, or cancelled).
    pub fn not_comparable(&self) -> usize {
        self.verdict.as_ref().map_or(0, |v| v.missing)
    }

    /// The comparison's one word: FAIL, PASS, or N/A when no cell could be compared.
    pub fn verdict_word(&self) -> Option<&'static str> {
        let v = self.verdict.as_ref()?;
        Some(if self.failing() {
            "FAIL"
        } else if v.compared == 0 {
            "N/A"
        } else {
            "PASS"
        })
    }

    /// The comparison in one sentence, for the cover: "Against the baseline idc at 5%: 1
    /// regressed, 0 improved, 5 within noise of 6 compared cells; 8 cells not comparable
    /// (…)".
    pub fn verdict_sentence(&self) -> Option<String> {
        let v = self.verdict.as_ref()?;
        let mut s = format!(
            "Against the baseline {} at {}%: {} regressed, {} improved, {} within noise of {} compared cells",
            self.env_name(self.baseline.unwrap_or(0)),
            self.threshold_pct,
            v.failed,
            v.improved,
            v.within_noise,
            v.compared,
        );
        if v.not_judged > 0 {
            s.push_str(&format!(
                " ({} not judged: a step without an interval)",
                v.not_judged
            ));
        }
        if v.missing > 0 {
            s.push_str(&format!(
                "; {} {} not comparable (no counterpart in the baseline, or cancelled){}",
                v.missing,
                if v.missing == 1 { "cell" } else { "cells" },
                if self.fail_on_missing {
                    ", which fails the comparison (--fail-on-missing)"
                } else {
                    ""
                }
            ));
        }
        Some(s)
    }

    pub fn env_name(&self, env: usize) -> &str {
        self.envs.get(env).map(|e| e.name.as_str()).unwrap_or("?")
    }

    /// Every distinct thread count across scenarios, ascending.
    pub fn all_threads(&self) -> Vec<u32> {
        let mut t: Vec<u32> = self
            .scenarios
            .iter()
            .flat_map(|s| s.threads.iter().copied())
            .collect();
        t.sort_unstable();
        t.dedup();
        t
    }
}

/// One compared run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvSummary {
    pub run_id: String,
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub state: Option<String>,
    pub steps: usize,
    pub is_baseline: bool,
}

/// A row of the environment table: one fact, one value per environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvRow {
    pub label: String,
    pub values: Vec<Option<String>>,
    /// The environments disagree on this fact (highlighted).
    pub differs: bool,
}

/// One scenario across every environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    pub scenario: Scenario,
    /// Thread counts any environment ran for this scenario, ascending.
    pub threads: Vec<u32>,
    /// One per environment, in `Report::envs` order.
    pub envs: Vec<EnvScenario>,
    /// One per environment other than the baseline.
    pub comparisons: Vec<Comparison>,
    /// The smallest differences the comparisons of this scenario can tell apart (`None`
    /// when no cell was compared).
    pub noise: Option<noise::ScenarioNoise>,
}

/// One scenario on one environment: its ladder and what it says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnvScenario {
    pub env: usize,
    /// Aligned with `ScenarioReport::threads`; `None` where this environment did not run it.
    pub cells: Vec<Option<Cell>>,
    pub knee: Knee,
    pub bottleneck: Bottleneck,
    /// The step with the highest TPS.
    pub peak: Option<Peak>,
}

impl EnvScenario {
    pub fn present(&self) -> impl Iterator<Item = &Cell> {
        self.cells.iter().flatten()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    pub p95_ms: Option<f64>,
}

/// One step's figures: a cell of the performance matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    /// None when unknown (an imported log that printed another percentile).
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    /// Server CPU busy %, data-disk utilisation %, I/O wait %, over the step's window.
    pub cpu_pct: Option<f64>,
    pub disk_util_pct: Option<f64>,
    pub iowait_pct: Option<f64>,
    /// Server samples inside the window, and how many there should have been.
    pub samples: Option<u32>,
    pub expected_samples: Option<u32>,
    pub errors: u64,
    pub reconnects: u64,
    /// Load generator CPU as a share of the client machine, in percent.
    pub client_cpu_pct: f64,
    /// QPS per percent of server CPU (seed 000's efficiency ratio).
    pub qps_per_cpu: Option<f64>,
    /// TPS of the steady window, when one was found.
    pub steady_tps: Option<f64>,
    pub row_lock_waits: Option<u64>,
    pub seconds: f64,
    pub cancelled: bool,
    /// The 95% intervals of TPS, QPS, p95 and p99: from the step's per-second records,
    /// or across its repeats ([`repeats`]).
    pub intervals: noise::StepIntervals,
    /// Finished repeats the figures are the mean of (`--repeat`); 1 for a single run.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub repeats: usize,
    /// How an open-loop step (`--rate`, `--rates`) kept to its arrival rate; None for a
    /// closed loop. `threads` is then the connections it opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<dbdyno_engine::open_loop::OpenLoopResult>,
}

impl Cell {
    /// "closed loop", or "open loop at 500/s" (see [`dbdyno_engine::open_loop::mode_name`]).
    pub fn mode(&self) -> String {
        self.open_loop
            .as_ref()
            .map_or_else(|| "closed loop".to_string(), |o| o.mode())
    }
}

fn one() -> usize {
    1
}

fn is_one(n: &usize) -> bool {
    *n == 1
}

/// How loudly a warning should be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Numbers may be wrong or incomparable.
    Warning,
    /// Worth knowing when reading the numbers.
    Note,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    pub severity: Severity,
    /// The environment it concerns (`None`: the whole comparison).
    pub env: Option<usize>,
    pub text: String,
}

/// Builds the report model. Fails only on unusable input (no runs, duplicate ids, an
/// unknown baseline, a non-positive threshold).
pub fn build(runs: &[ReportRun], opts: &ReportOptions) -> Result<Report, ReportError> {
    check_input(runs, opts)?;
    let ordered = order_runs(runs, opts.baseline.as_deref())?;
    let runs: Vec<&ReportRun> = ordered.iter().map(|&i| &runs[i]).collect();
    let comparing = runs.len() > 1;
    let baseline = comparing.then_some(0);

    let envs = env_summaries(&runs, baseline);
    let scenarios: Vec<ScenarioReport> = cells::grid(&runs)
        .into_iter()
        .map(|g| scenario_report(g, baseline, opts))
        .collect();
    if let Some((sc, th)) = opts.timeline {
        check_timeline_ran(&scenarios, sc, th)?;
    }
    let verdict = baseline.map(|_| compare::totals(&scenarios, &envs));
    let mut capacity = capacity::build(
        &runs,
        &envs,
        &scenarios,
        baseline,
        capacity::target(&runs, opts.sla),
        opts.threshold_pct,
    );
    let tpcc = tpcc::build(&runs, baseline);
    let mut claims = claims::of_scenarios(&scenarios);
    claims.extend(tpcc_summary::claims(&scenarios, tpcc.as_ref()));
    if let Some(c) = capacity.as_mut() {
        capacity::reconcile(c, &claims, &envs);
        claims.extend(capacity::claims(c));
    }
    let cold_starts = coldstart::find(&runs);
    let trends = trend::trends(
        &runs,
        trend::MIN_RUNS,
        &trend::ChangePointOptions::default(),
    );
    let mut warnings = warnings::collect(&runs, &scenarios, &cold_starts);
    let headlines = summary::headlines(&envs, &scenarios, &claims);
    let (timeline, latency_distribution, timeline_warnings) =
        timeline::build(&runs, &scenarios, opts.timeline);
    warnings.extend(timeline_warnings);
    warnings.sort_by_key(|w| w.severity);
    let generated_at_ms = opts.generated_at_ms.unwrap_or_else(now_ms);
    let title = opts.title.clone().unwrap_or_else(|| default_title(&envs));
    let mut report = Report {
        schema_version: REPORT_SCHEMA_VERSION,
        title,
        generated_at_ms,
        tool_version: opts.tool_version.clone(),
        threshold_pct: opts.threshold_pct,
        latency_floor_ms: opts.latency_floor_ms,
        baseline,
        baseline_explicit: opts.baseline.is_some() && comparing,
        fail_on_missing: opts.fail_on_missing,
        environment_table: environment::table(&runs),
        envs,
        capacity,
        scenarios,
        verdict,
        executive_summary: Vec::new(),
        headlines,
        claims,
        cold_starts,
        trends,
        warnings,
        timeline,
        latency_distribution,
        appendix: runs.iter().map(|r| appendix::for_run(r)).collect(),
        hardware: None,
        tpcc,
    };
    report.executive_summary = summary::executive(&report);
    singular_threads(&mut report);
    Ok(report)
}

/// Refuses no runs, a threshold that is not a positive number, and a run id given twice.
fn check_input(runs: &[ReportRun], opts: &ReportOptions) -> Result<(), ReportError> {
    if runs.is_empty() {
        return Err(ReportError::NoRuns);
    }
    if !(opts.threshold_pct.is_finite() && opts.threshold_pct > 0.0) {
        return Err(ReportError::BadThreshold(opts.threshold_pct));
    }
    for (i, r) in runs.iter().enumerate() {
        if runs[..i].iter().any(|o| o.id == r.id) {
            return Err(ReportError::DuplicateRun(r.id.clone()));
        }
    }
    Ok(())
}

fn env_summaries(runs: &[&ReportRun], baseline: Option<usize>) -> Vec<EnvSummary> {
    runs.iter()
        .enumerate()
        .map(|(i, r)| EnvSummary {
            run_id: r.id.clone(),
            name: r.label().to_string(),
            labels: r.labels.clone(),
            started_at: r.started_at,
            finished_at: r.finished_at,
            state: r.state.clone(),
            steps: r.steps.len(),
            is_baseline: baseline == Some(i),
        })
        .collect()
}

/// One scenario: each environment's ladder judged, then compared with the baseline's.
fn scenario_report(
    g: cells::ScenarioGrid,
    baseline: Option<usize>,
    opts: &ReportOptions,
) -> ScenarioReport {
    let envs: Vec<EnvScenario> = g
        .cells
        .into_iter()
        .enumerate()
        .map(|(env, cells)| env_scenario(g.scenario, env, cells))
        .collect();
    let mut s = ScenarioReport {
        scenario: g.scenario,
        threads: g.threads,
        envs,
        comparisons: Vec::new(),
        noise: None,
    };
    if let Some(b) = baseline {
        s.comparisons = compare::compare_scenario(&s, b, opts);
        s.noise = noise::scenario_noise(&s.comparisons);
    }
    s
}

/// One environment's ladder for one scenario: its knee, bottleneck and peak.
fn env_scenario(scenario: Scenario, env: usize, cells: Vec<Option<Cell>>) -> EnvScenario {
    // A step cut short (cancelled) is shown, marked, but judged on nothing: its few
    // seconds would decide a knee or a class.
    let present: Vec<&Cell> = cells.iter().flatten().filter(|c| !c.cancelled).collect();
    let knee = knee::find_knee(&present);
    let bottleneck = bottleneck::classify(scenario, &present, &knee);
    let peak = cells::peak(&present);
    EnvScenario {
        env,
        cells,
        knee,
        bottleneck,
        peak,
    }
}

/// `--timeline` must name a step that ran; the error lists the ones that did.
fn check_timeline_ran(
    scenarios: &[ScenarioReport],
    sc: Scenario,
    th: u32,
) -> Result<(), ReportError> {
    let ran = scenarios
        .iter()
        .any(|s| s.scenario == sc && s.threads.contains(&th));
    if ran {
        return Ok(());
    }
    Err(ReportError::TimelineNotRun {
        wanted: format!("{sc}@{th}"),
        ran: scenarios
            .iter()
            .map(|s| {
                let t: Vec<String> = s.threads.iter().map(u32::to_string).collect();
                format!("{}@{}", s.scenario, t.join("|"))
            })
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// Every sentence of the model says "1 thread", not "1 threads".
fn singular_threads(r: &mut Report) {
    let fix = |s: &mut String| *s = crate::format::singular_threads(s);
    for s in &mut r.scenarios {
        for e in &mut s.envs {
            fix(&mut e.knee.evidence);
            fix(&mut e.bottleneck.evidence);
        }
        for c in &mut s.comparisons {
            for row in &mut c.rows {
                row.reasons.iter_mut().for_each(fix);
            }
        }
    }
    if let Some(v) = &mut r.verdict {
        v.failures.iter_mut().for_each(fix);
    }
    r.executive_summary.iter_mut().for_each(fix);
    r.headlines.iter_mut().for_each(fix);
    r.cold_starts.iter_mut().for_each(|c| fix(&mut c.sentence));
    r.warnings.iter_mut().for_each(|w| fix(&mut w.text));
}

/// Indices of `runs` with the baseline first.
fn order_runs(runs: &[ReportRun], baseline: Option<&str>) -> Result<Vec<usize>, ReportError> {
    let mut order: Vec<usize> = (0..runs.len()).collect();
    if let Some(b) = baseline {
        let pos = runs
            .iter()
            .position(|r| r.id == b)
            .or_else(|| runs.iter().position(|r| r.env_name == b))
            .ok_or_else(|| ReportError::UnknownBaseline {
                wanted: b.to_string(),
                known: runs
                    .iter()
                    .map(|r| format!("{} ({})", r.id, r.label()))
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        order.remove(pos);
        order.insert(0, pos);
    }
    Ok(order)
}

fn default_title(envs: &[EnvSummary]) -> String {
    match envs {
        [one] => format!("Benchmark report: {}", one.name),
        many => format!(
            "Benchmark comparison: {}",
            many.iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>()
                .join(" vs ")
        ),
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}
