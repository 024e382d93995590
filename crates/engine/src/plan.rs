//! A validated plan: where to connect, what data, and the ordered phases to run.
//!
//! Every shell (CLI flags, TOML profile, GUI form) builds one of these and calls
//! [`Plan::validate`] before anything touches the server: parse, then validate.

pub mod error;

use serde::{Deserialize, Serialize};

use crate::open_loop::{connections_for_rate, RateDist};
use crate::phases::mode::PrepareMode;
use crate::repeat::{Repeat, MAX_REPEATS};
use crate::sla::{SlaPhase, SlaTarget};
use crate::workload::shape::prepared_statements_per_connection;
use crate::workload::{sql, Scenario, WorkloadOptions};

// Where to connect lives with the connection helpers (dbdyno-mysql), which the monitor
// uses too; the plan holds one.
pub use dbdyno_mysql::{ConnectOptions, TlsMode};

pub use error::PlanError;

/// How long and how hard one measured step runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RunSettings {
    /// Seconds of measurement (sysbench's --time). 0 means no time limit (then `events` must be set).
    pub time_s: u64,
    /// Stop after this many transactions (sysbench's --events). 0 means no limit.
    pub events: u64,
    /// Seconds of load before measurement starts; nothing is recorded during warmup.
    pub warmup_s: u64,
    /// Arrival rate in transactions per second across all threads; 0 = as fast as
    /// possible (a closed loop). Above 0 the step is an open loop: see [`crate::open_loop`].
    pub rate: f64,
    /// How arrivals are spaced at `rate` (`--rate-dist`).
    pub rate_dist: RateDist,
    /// Seconds per interval record and printed line. Records are always kept; 0 keeps
    /// one-second records but prints none (sysbench's default).
    pub report_interval_s: u64,
    /// Percentile for interval lines and the headline latency (sysbench's --percentile).
    pub percentile: f64,
    /// Seconds the server may answer no connection that waits for it (no result, no
    /// error, no reset: a frozen host, a cut network path) before the step fails and
    /// the step-error policy applies (`--stall-timeout`). A statement that rightly runs
    /// longer than this on every connection at once counts as silence too.
    pub stall_timeout_s: u64,
}

/// The stall timeout when none is given: far beyond any OLTP statement, short enough
/// that a run from cron against a frozen host ends.
pub const DEFAULT_STALL_TIMEOUT_S: u64 = 30;

impl Default for RunSettings {
    fn default() -> Self {
        RunSettings {
            time_s: 10,
            events: 0,
            warmup_s: 0,
            rate: 0.0,
            rate_dist: RateDist::Fixed,
            report_interval_s: 0,
            percentile: 95.0,
            stall_timeout_s: DEFAULT_STALL_TIMEOUT_S,
        }
    }
}

impl RunSettings {
    /// Seconds per interval record.
    pub fn record_interval_s(&self) -> u64 {
        self.report_interval_s.max(1)
    }

    /// [`Self::stall_timeout_s`] as a duration.
    pub fn stall_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.stall_timeout_s)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepPlan {
    pub scenario: Scenario,
    pub threads: u32,
    pub settings: RunSettings,
    /// Which repeat of this (scenario, threads) step this is (`--repeat`).
    #[serde(flatten, skip_serializing_if = "Repeat::is_single")]
    pub repeat: Repeat,
}

/// Prewarm options: sysbench's table scans, then optionally wait for the hit rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PrewarmOptions {
    pub threads: u32,
    /// Wait until the buffer pool hit rate (percent) over a one-second window reaches this.
    pub until_hit_rate: Option<f64>,
    /// Give up waiting after this many seconds (a warning, not an error).
    pub max_wait_s: u64,
    /// Whose tables the scans read: the plan's scenarios decide ([`PrewarmDataset::of`]).
    /// Left out of the plan's JSON when it is the OLTP tables, as before it existed.
    #[serde(skip_serializing_if = "PrewarmDataset::is_oltp")]
    pub dataset: PrewarmDataset,
}

impl Default for PrewarmOptions {
    fn default() -> Self {
        PrewarmOptions {
            threads: 1,
            until_hit_rate: None,
            max_wait_s: 300,
            dataset: PrewarmDataset::Oltp,
        }
    }
}

/// The tables prewarm reads: the OLTP scenarios' `sbtest1..N`, TPC-C's sets of tables,
/// or both for a ladder that runs both kinds (each kind reads its own tables).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PrewarmDataset {
    #[default]
    Oltp,
    Tpcc,
    OltpAndTpcc,
}

impl PrewarmDataset {
    /// What `scenarios` read: TPC-C's tables when tpcc is among them, the OLTP tables
    /// when any other is (and when none is given, as before tpcc existed).
    pub fn of(scenarios: impl IntoIterator<Item = Scenario>) -> PrewarmDataset {
        let (mut tpcc, mut oltp) = (false, false);
        for s in scenarios {
            if s.is_tpcc() {
                tpcc = true;
            } else {
                oltp = true;
            }
        }
        match (oltp, tpcc) {
            (true, true) => PrewarmDataset::OltpAndTpcc,
            (false, true) => PrewarmDataset::Tpcc,
            _ => PrewarmDataset::Oltp,
        }
    }

    pub fn is_oltp(&self) -> bool {
        *self == PrewarmDataset::Oltp
    }

    /// Whether the OLTP tables `sbtest1..N` are read.
    pub fn reads_oltp(self) -> bool {
        self != PrewarmDataset::Tpcc
    }

    /// Whether TPC-C's tables are read.
    pub fn reads_tpcc(self) -> bool {
        self != PrewarmDataset::Oltp
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Create and load the tables `scenario` needs, or reuse DB Dyno's own (`mode`).
    Prepare {
        scenario: Scenario,
        threads: u32,
        /// Plans recorded before the modes loaded or refused: if-missing reads them.
        #[serde(default)]
        mode: PrepareMode,
    },
    Prewarm(PrewarmOptions),
    Step(StepPlan),
    /// Pause between steps so redo/WAL flushing of one step does not land in the next.
    Cooldown {
        seconds: u64,
    },
    Cleanup {
        scenario: Scenario,
        threads: u32,
    },
    /// After the ladder's steps when a latency target is set (`--sla`): the target, and
    /// the capacity search's extra steps (`--sla-search`, [`crate::sla::search`]).
    Sla(SlaPhase),
}

/// What to do, in order, against one server with one dataset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    pub connect: ConnectOptions,
    pub workload: WorkloadOptions,
    pub phases: Vec<Phase>,
    /// Allow prepare/cleanup in a schema that holds tables other than sbtest1..N.
    #[serde(default)]
    pub force: bool,
    /// Whether a failed step ends the run or the ladder goes on (`--on-step-error`).
    #[serde(default)]
    pub on_step_error: StepErrorPolicy,
}

/// What a ladder does when one of its steps fails: its connections cannot all open,
/// a server error stops it, or its reconnect budget is spent.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum StepErrorPolicy {
    /// The failed step ends the run (prepare, prewarm and cleanup stop too).
    #[default]
    Stop,
    /// The failed step is recorded as failed and the ladder goes on to the next step;
    /// cleanup still runs at the end.
    Continue,
}

/// The seed toolkit's loop, as data: scenarios × thread counts, with optional phases around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LadderSpec {
    pub scenarios: Vec<Scenario>,
    pub threads: Vec<u32>,
    /// A rate ladder (`--rates`): one open-loop step per arrival rate, each on
    /// [`connections_for_rate`] connections, in place of the thread ladder.
    pub rates: Vec<f64>,
    pub settings: RunSettings,
    pub cooldown_s: u64,
    /// Load the tables first: always, only when missing (DB Dyno's own in the plan's
    /// shape are reused), or never.
    pub prepare: PrepareMode,
    pub prewarm: bool,
    pub cleanup: bool,
    /// Threads for prepare, prewarm and cleanup.
    pub admin_threads: u32,
    pub prewarm_until_hit_rate: Option<f64>,
    /// Runs of every (scenario, threads) step, 1 to [`MAX_REPEATS`], interleaved
    /// (see [`LadderSpec::phases`]); prepare, prewarm and cleanup run once.
    pub repeat: u32,
    /// The latency target each step is judged against (`--sla=p95<=20ms`).
    pub sla: Option<SlaTarget>,
    /// Most extra steps per scenario that bisect thread counts towards the capacity at
    /// `sla` after the ladder (`--sla-search`); 0: none.
    pub sla_search: u32,
    /// Whether a failed step ends the ladder (`--on-step-error`).
    pub on_step_error: StepErrorPolicy,
}

pub const DEFAULT_LADDER_THREADS: [u32; 6] = [1, 8, 16, 32, 64, 128];

impl Default for LadderSpec {
    fn default() -> Self {
        LadderSpec {
            scenarios: Scenario::DEFAULT_LADDER.to_vec(),
            threads: DEFAULT_LADDER_THREADS.to_vec(),
            rates: Vec::new(),
            settings: RunSettings {
                time_s: 30,
                report_interval_s: 1,
                ..RunSettings::default()
            },
            cooldown_s: 0,
            // A plan that says nothing of prepare reads the tables as they are: DB Dyno
            // creates tables only when asked to.
            prepare: PrepareMode::Never,
            prewarm: false,
            cleanup: false,
            admin_threads: 4,
            prewarm_until_hit_rate: None,
            repeat: 1,
            sla: None,
            sla_search: 0,
            on_step_error: StepErrorPolicy::Stop,
        }
    }
}

impl LadderSpec {
    /// Normalise the ladder into the flat list of phases the engine runs (like goose's steps).
    pub fn phases(&self) -> Vec<Phase> {
        let mut phases = Vec::new();
        let datasets = self.data_scenarios();
        if self.prepare.prepares() {
            phases.extend(datasets.iter().map(|&scenario| Phase::Prepare {
                scenario,
                threads: self.admin_threads,
                mode: self.prepare,
            }));
        }
        if self.prewarm {
            phases.push(Phase::Prewarm(PrewarmOptions {
                threads: self.admin_threads,
                until_hit_rate: self.prewarm_until_hit_rate,
                dataset: PrewarmDataset::of(self.scenarios.iter().copied()),
                ..PrewarmOptions::default()
            }));
        }
        let ladder = self.ladder_steps();
        // Each round runs the whole ladder, forward then backward (stats::interleaved_order),
        // so a server drifting over the run does not read as a difference between steps.
        // An out-of-range `repeat` still expands (at least once, at most MAX_REPEATS
        // rounds) and is refused by validation with its own message.
        let rounds = self.repeat.clamp(1, MAX_REPEATS) as usize;
        for (i, slot) in dbdyno_stats::interleaved_order(ladder.len(), rounds)
            .into_iter()
            .enumerate()
        {
            if i > 0 && self.cooldown_s > 0 {
                phases.push(Phase::Cooldown {
                    seconds: self.cooldown_s,
                });
            }
            let (scenario, threads, rate) = ladder[slot.step];
            phases.push(Phase::Step(StepPlan {
                scenario,
                threads,
                settings: RunSettings {
                    rate,
                    ..self.settings.clone()
                },
                repeat: Repeat {
                    number: slot.repeat as u32 + 1,
                    of: self.repeat,
                },
            }));
        }
        if let Some(target) = self.sla {
            phases.push(Phase::Sla(SlaPhase {
                target,
                search_steps: self.sla_search,
                cooldown_s: self.cooldown_s,
            }));
        }
        if self.cleanup {
            phases.extend(datasets.iter().map(|&scenario| Phase::Cleanup {
                scenario,
                threads: self.admin_threads,
            }));
        }
        phases
    }

    /// One scenario per dataset the ladder reads, in the order the scenarios name them:
    /// one OLTP dataset (sbtest1..N) serves every OLTP scenario, so it is prepared for
    /// the first; TPC-C has tables of its own. A ladder of bulk inserts alone gets the
    /// OLTP dataset, as sysbench's would.
    fn data_scenarios(&self) -> Vec<Scenario> {
        let mut out: Vec<Scenario> = Vec::new();
        for &s in &self.scenarios {
            let kind_seen = out.iter().any(|o| o.is_tpcc() == s.is_tpcc());
            if !s.uses_bulk_tables() && !kind_seen {
                out.push(s);
            }
        }
        if out.is_empty() {
            out.push(Scenario::OltpReadWrite);
        }
        out
    }
}

impl LadderSpec {
    /// The ladder's (scenario, connections, rate) steps in order: scenarios × thread
    /// counts at the settings' rate, or scenarios × `rates` when a rate ladder is asked
    /// for. A user who names arrival rates wants the open-loop curve; the closed-loop
    /// one is another ladder.
    fn ladder_steps(&self) -> Vec<(Scenario, u32, f64)> {
        self.scenarios
            .iter()
            .flat_map(|&s| -> Vec<(Scenario, u32, f64)> {
                if self.rates.is_empty() {
                    let rate = self.settings.rate;
                    self.threads.iter().map(|&t| (s, t, rate)).collect()
                } else {
                    self.rates
                        .iter()
                        .map(|&r| (s, connections_for_rate(r), r))
                        .collect()
                }
            })
            .collect()
    }
}

impl Plan {
    /// The first problem of [`Self::problems`]: a plan runs only when there is none.
    pub fn validate(&self) -> Result<(), PlanError> {
        match self.problems().into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every problem of the plan, each once, in the order [`Self::validate`] meets them
    /// (profile validation reports them all at once).
    pub fn problems(&self) -> Vec<PlanError> {
        let mut out = Problems::default();
        if self.phases.is_empty() {
            out.push(PlanError::Empty);
        }
        if self.connect.database.trim().is_empty() {
            out.push(PlanError::NoDatabase);
        }
        workload_problems(&self.workload, &mut out);
        let bulk = self
            .steps()
            .filter(|s| s.scenario.uses_bulk_tables())
            .count();
        if bulk > 0 && bulk < self.steps().count() {
            out.push(PlanError::BulkMixed);
        }
        for phase in &self.phases {
            phase_problems(phase, &self.workload, &mut out);
        }
        out.0
    }

    /// The shortest stall timeout of the plan's steps (the samplers, which run for
    /// the whole plan, give up after it), or None without steps.
    pub fn stall_timeout(&self) -> Option<std::time::Duration> {
        self.steps().map(|s| s.settings.stall_timeout()).min()
    }

    /// The prepare mode of the plan's prepare of a scenario `which` accepts (the OLTP
    /// tables and TPC-C's are prepared apart); None when it prepares no such dataset.
    pub fn prepare_mode_of(&self, which: impl Fn(Scenario) -> bool) -> Option<PrepareMode> {
        self.phases.iter().find_map(|p| match p {
            Phase::Prepare { scenario, mode, .. } if which(*scenario) => Some(*mode),
            _ => None,
        })
    }

    pub fn steps(&self) -> impl Iterator<Item = &StepPlan> {
        self.phases.iter().filter_map(|p| match p {
            Phase::Step(s) => Some(s),
            _ => None,
        })
    }

    /// Largest number of server-side prepared statements the plan holds at once
    /// (what `max_prepared_stmt_count` must allow).
    pub fn peak_prepared_statements(&self) -> u64 {
        self.steps()
            .map(|s| {
                prepared_statements_per_connection(s.scenario, &self.workload) * s.threads as u64
            })
            .max()
            .unwrap_or(0)
    }

    /// Largest number of client connections the plan opens at once.
    pub fn peak_connections(&self) -> u32 {
        self.phases
            .iter()
            .map(|p| match p {
                Phase::Step(s) => s.threads,
                // One extra connection watches global status during prewarm.
                Phase::Prewarm(p) => p.threads + 1,
                Phase::Prepare { threads, .. } | Phase::Cleanup { threads, .. } => *threads,
                Phase::Cooldown { .. } | Phase::Sla(_) => 0,
            })
            .max()
            .unwrap_or(0)
            // The engine's own control connection (status snapshots, safety checks).
            + 1
    }

    /// Seconds the plan takes, not counting prepare/prewarm (they depend on the server)
    /// nor the capacity search's extra steps (how many run depends on the results).
    pub fn estimated_seconds(&self) -> u64 {
        self.phases
            .iter()
            .map(|p| match p {
                Phase::Step(s) => s.settings.time_s + s.settings.warmup_s,
                Phase::Cooldown { seconds } => *seconds,
                _ => 0,
            })
            .sum()
    }
}

/// Problems found so far, each kept once.
#[derive(Default)]
struct Problems(Vec<PlanError>);

impl Problems {
    fn push(&mut self, e: PlanError) {
        if !self.0.contains(&e) {
            self.0.push(e);
        }
    }

    fn check(&mut self, r: Result<(), PlanError>) {
        if let Err(e) = r {
            self.push(e);
        }
    }
}

/// Workload options that no scenario can run with.
fn workload_problems(w: &WorkloadOptions, out: &mut Problems) {
    if w.tables == 0 {
        out.push(PlanError::ZeroTables);
    }
    if w.range_size == 0 {
        out.push(PlanError::ZeroRangeSize);
    }
    if !sql::is_valid_engine_name(&w.mysql_storage_engine) {
        out.push(PlanError::BadEngine(w.mysql_storage_engine.clone()));
    }
    let r = &w.rand;
    if !(0.0..100.0).contains(&r.spec_res) {
        out.push(PlanError::OutOfRange {
            field: "--rand-spec-res",
            min: 0.0,
            max: 99.0,
            got: r.spec_res,
        });
    }
    if !(r.pareto_h > 0.0 && r.pareto_h < 1.0) {
        out.push(PlanError::OutOfRange {
            field: "--rand-pareto-h",
            min: 0.0,
            max: 1.0,
            got: r.pareto_h,
        });
    }
    // The generators would quietly clamp these; a value that is not used as given is refused.
    if r.spec_iter == 0 {
        out.push(PlanError::OutOfRange {
            field: "--rand-spec-iter",
            min: 1.0,
            max: u32::MAX as f64,
            got: 0.0,
        });
    }
    if !(0.0..=100.0).contains(&r.spec_pct) {
        out.push(PlanError::OutOfRange {
            field: "--rand-spec-pct",
            min: 0.0,
            max: 100.0,
            got: r.spec_pct,
        });
    }
    // zipfian's sampler divides by 1 - exponent: it is defined strictly between 0 and 1.
    if !(r.zipfian_exp > 0.0 && r.zipfian_exp < 1.0) {
        out.push(PlanError::OutOfRange {
            field: "--rand-zipfian-exp",
            min: 0.0,
            max: 1.0,
            got: r.zipfian_exp,
        });
    }
}

/// What is wrong with one phase of a plan over workload `w`.
fn phase_problems(phase: &Phase, w: &WorkloadOptions, out: &mut Problems) {
    match phase {
        Phase::Prepare {
            scenario, threads, ..
        }
        | Phase::Cleanup { scenario, threads } => {
            out.check(check_threads(*threads));
            out.check(check_single_table(*scenario, w));
            out.check(check_scenario(
                *scenario,
                w,
                matches!(phase, Phase::Prepare { .. }),
            ));
        }
        Phase::Prewarm(p) => {
            out.check(check_threads(p.threads));
            if let Some(h) = p.until_hit_rate {
                // A hit rate is a percentage; above 100 the gate could never open.
                if !(0.0..=100.0).contains(&h) {
                    out.push(PlanError::OutOfRange {
                        field: "--prewarm-until-hit-rate",
                        min: 0.0,
                        max: 100.0,
                        got: h,
                    });
                }
            }
        }
        Phase::Step(s) => {
            out.check(check_threads(s.threads));
            out.check(check_scenario(s.scenario, w, true));
            out.check(check_repeat(s.repeat));
            let st = &s.settings;
            if st.time_s == 0 && st.events == 0 {
                out.push(PlanError::NoStopCondition);
            }
            if !(st.percentile >= 1.0 && st.percentile <= 100.0) {
                out.push(PlanError::BadPercentile(st.percentile));
            }
            if !(st.rate.is_finite() && st.rate >= 0.0) {
                out.push(PlanError::BadRate(st.rate));
            }
            if !(1..=MAX_STALL_TIMEOUT_S).contains(&st.stall_timeout_s) {
                out.push(PlanError::OutOfRange {
                    field: "--stall-timeout",
                    min: 1.0,
                    max: MAX_STALL_TIMEOUT_S as f64,
                    got: st.stall_timeout_s as f64,
                });
            }
        }
        Phase::Cooldown { .. } | Phase::Sla(_) => {}
    }
}

/// A day: a longer wait is a hang by any name.
const MAX_STALL_TIMEOUT_S: u64 = 86_400;

fn check_repeat(r: Repeat) -> Result<(), PlanError> {
    if !(1..=MAX_REPEATS).contains(&r.of) || !(1..=r.of).contains(&r.number) {
        return Err(PlanError::BadRepeat(r.of));
    }
    Ok(())
}

fn check_threads(t: u32) -> Result<(), PlanError> {
    if t == 0 {
        Err(PlanError::ZeroThreads(t))
    } else {
        Ok(())
    }
}

/// sysbench's select_random_points/ranges assert `--tables=1` in prepare and cleanup
/// only: their `run` works on sbtest1 whatever --tables says, and so do our steps, so
/// a `run` copied from a multi-table command line is accepted.
fn check_single_table(s: Scenario, w: &WorkloadOptions) -> Result<(), PlanError> {
    if s.single_table_only() && w.tables != 1 {
        return Err(PlanError::SingleTableOnly(s, w.tables));
    }
    Ok(())
}

fn check_scenario(s: Scenario, w: &WorkloadOptions, needs_rows: bool) -> Result<(), PlanError> {
    // oltp_insert and bulk_insert add rows; everything else reads or changes existing ones.
    let reads_rows = !matches!(s, Scenario::OltpInsert | Scenario::BulkInsert);
    if needs_rows && reads_rows && w.table_size == 0 {
        return Err(PlanError::ZeroTableSize(s));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_with(phases: Vec<Phase>, w: WorkloadOptions) -> Plan {
        Plan {
            connect: ConnectOptions::default(),
            workload: w,
            phases,
            force: false,
            on_step_error: StepErrorPolicy::Stop,
        }
    }

    fn step(threads: u32) -> Phase {
        Phase::Step(StepPlan {
            scenario: Scenario::OltpReadWrite,
            threads,
            settings: RunSettings::default(),
            repeat: Repeat::SINGLE,
        })
    }

    /// `scenario@threads#repeat` for every step, `cool` for a cool-down.
    fn step_names(phases: &[Phase]) -> Vec<String> {
        phases
            .iter()
            .filter_map(|p| match p {
                Phase::Step(s) => Some(format!(
                    "{}@{}#{}/{}",
                    s.scenario, s.threads, s.repeat.number, s.repeat.of
                )),
                Phase::Cooldown { .. } => Some("cool".into()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn repeats_run_in_serpentine_rounds_with_phases_around_them_once() {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect, Scenario::OltpReadOnly],
            threads: vec![1, 8],
            prepare: PrepareMode::IfMissing,
            prewarm: true,
            cleanup: true,
            repeat: 3,
            settings: RunSettings {
                time_s: 10,
                warmup_s: 2,
                ..RunSettings::default()
            },
            ..Default::default()
        };
        let phases = spec.phases();
        assert_eq!(
            step_names(&phases),
            [
                "oltp_point_select@1#1/3",
                "oltp_point_select@8#1/3",
                "oltp_read_only@1#1/3",
                "oltp_read_only@8#1/3",
                "oltp_read_only@8#2/3",
                "oltp_read_only@1#2/3",
                "oltp_point_select@8#2/3",
                "oltp_point_select@1#2/3",
                "oltp_point_select@1#3/3",
                "oltp_point_select@8#3/3",
                "oltp_read_only@1#3/3",
                "oltp_read_only@8#3/3",
            ]
        );
        let once = |f: fn(&Phase) -> bool| phases.iter().filter(|p| f(p)).count();
        assert_eq!(once(|p| matches!(p, Phase::Prepare { .. })), 1);
        assert_eq!(once(|p| matches!(p, Phase::Prewarm(_))), 1);
        assert_eq!(once(|p| matches!(p, Phase::Cleanup { .. })), 1);
        assert!(matches!(phases.first(), Some(Phase::Prepare { .. })));
        assert!(matches!(phases.last(), Some(Phase::Cleanup { .. })));
        let plan = plan_with(phases, WorkloadOptions::default());
        assert_eq!(plan.validate(), Ok(()));
        // The preview's estimate counts every repeat: 12 steps of 10 s + 2 s warmup.
        assert_eq!(plan.estimated_seconds(), 12 * 12);
    }

    #[test]
    fn a_ladder_prepares_and_cleans_up_each_dataset_its_scenarios_read() {
        let datasets = |scenarios: Vec<Scenario>| {
            let spec = LadderSpec {
                scenarios,
                threads: vec![1],
                prepare: PrepareMode::IfMissing,
                cleanup: true,
                ..Default::default()
            };
            let phases = spec.phases();
            let of = |f: fn(&Phase) -> Option<Scenario>| -> Vec<Scenario> {
                phases.iter().filter_map(f).collect()
            };
            let prepared = of(|p| match p {
                Phase::Prepare { scenario, .. } => Some(*scenario),
                _ => None,
            });
            let cleaned = of(|p| match p {
                Phase::Cleanup { scenario, .. } => Some(*scenario),
                _ => None,
            });
            assert_eq!(prepared, cleaned);
            prepared
        };
        use Scenario::*;
        assert_eq!(datasets(vec![Tpcc]), [Tpcc]);
        assert_eq!(
            datasets(vec![OltpReadOnly, Tpcc, OltpPointSelect]),
            [OltpReadOnly, Tpcc]
        );
        assert_eq!(
            datasets(vec![BulkInsert, Tpcc, OltpInsert]),
            [Tpcc, OltpInsert]
        );
        assert_eq!(datasets(vec![BulkInsert]), [OltpReadWrite]);
    }

    #[test]
    fn a_cooldown_separates_every_repeat() {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            threads: vec![1, 2],
            cooldown_s: 3,
            repeat: 2,
            ..Default::default()
        };
        assert_eq!(
            step_names(&spec.phases()),
            [
                "oltp_point_select@1#1/2",
                "cool",
                "oltp_point_select@2#1/2",
                "cool",
                "oltp_point_select@2#2/2",
                "cool",
                "oltp_point_select@1#2/2",
            ]
        );
    }

    #[test]
    fn repeat_out_of_range_is_refused_with_its_own_message() {
        for (repeat, ok) in [(0, false), (1, true), (20, true), (21, false)] {
            let spec = LadderSpec {
                threads: vec![1],
                repeat,
                ..Default::default()
            };
            let phases = spec.phases();
            assert!(!phases.is_empty(), "{repeat}: still expanded");
            let r = plan_with(phases, WorkloadOptions::default()).validate();
            if ok {
                assert_eq!(r, Ok(()), "{repeat}");
            } else {
                let e = r.unwrap_err();
                assert_eq!(e, PlanError::BadRepeat(repeat));
                assert_eq!(
                    e.to_string(),
                    format!("--repeat must be between 1 and 20 runs of each step (got {repeat})")
                );
            }
        }
        // A step numbered beyond its count is no plan either.
        let mut s = step(1);
        if let Phase::Step(st) = &mut s {
            st.repeat = Repeat { number: 3, of: 2 };
        }
        assert_eq!(
            plan_with(vec![s], WorkloadOptions::default()).validate(),
            Err(PlanError::BadRepeat(2))
        );
    }

    #[test]
    fn ladder_expands_in_order_with_cooldowns() {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect, Scenario::OltpReadOnly],
            threads: vec![1, 8],
            cooldown_s: 5,
            prepare: PrepareMode::IfMissing,
            cleanup: true,
            ..Default::default()
        };
        let phases = spec.phases();
        let names: Vec<String> = phases
            .iter()
            .map(|p| match p {
                Phase::Prepare { .. } => "prepare".into(),
                Phase::Cleanup { .. } => "cleanup".into(),
                Phase::Cooldown { .. } => "cool".into(),
                Phase::Step(s) => format!("{}@{}", s.scenario, s.threads),
                Phase::Prewarm(_) => "prewarm".into(),
                Phase::Sla(_) => "sla".into(),
            })
            .collect();
        assert_eq!(
            names,
            [
                "prepare",
                "oltp_point_select@1",
                "cool",
                "oltp_point_select@8",
                "cool",
                "oltp_read_only@1",
                "cool",
                "oltp_read_only@8",
                "cleanup"
            ]
        );
    }

    #[test]
    fn validation_names_the_problem() {
        let w = WorkloadOptions::default();
        assert_eq!(
            plan_with(vec![step(0)], w.clone()).validate(),
            Err(PlanError::ZeroThreads(0))
        );
        let w0 = WorkloadOptions {
            table_size: 0,
            ..w.clone()
        };
        assert!(matches!(
            plan_with(vec![step(1)], w0).validate(),
            Err(PlanError::ZeroTableSize(_))
        ));
        let mut s = step(1);
        if let Phase::Step(st) = &mut s {
            st.settings.time_s = 0;
        }
        assert_eq!(
            plan_with(vec![s], w.clone()).validate(),
            Err(PlanError::NoStopCondition)
        );
        assert_eq!(
            plan_with(vec![], w.clone()).validate(),
            Err(PlanError::Empty)
        );
        assert!(plan_with(vec![step(4)], w).validate().is_ok());
    }

    #[test]
    fn peaks_follow_the_largest_step() {
        let w = WorkloadOptions {
            tables: 4,
            ..Default::default()
        };
        let p = plan_with(vec![step(8), step(64)], w);
        assert_eq!(p.peak_prepared_statements(), 38 * 64);
        assert_eq!(p.peak_connections(), 65);
    }

    #[test]
    fn password_never_serialized_or_debug_printed() {
        let c = ConnectOptions {
            password: Some("hunter2".into()),
            ..Default::default()
        };
        assert!(!serde_json::to_string(&c).unwrap().contains("hunter2"));
        assert!(!format!("{c:?}").contains("hunter2"));
    }

    #[test]
    fn a_ladders_prewarm_reads_the_tables_of_its_scenarios() {
        let prewarm_of = |scenarios: Vec<Scenario>| {
            let spec = LadderSpec {
                scenarios,
                threads: vec![1],
                prewarm: true,
                ..Default::default()
            };
            spec.phases()
                .into_iter()
                .find_map(|p| match p {
                    Phase::Prewarm(o) => Some(o),
                    _ => None,
                })
                .expect("a prewarm phase")
        };
        let tpcc = prewarm_of(vec![Scenario::Tpcc]);
        assert_eq!(tpcc.dataset, PrewarmDataset::Tpcc);
        assert!(tpcc.dataset.reads_tpcc() && !tpcc.dataset.reads_oltp());
        let both = prewarm_of(vec![Scenario::Tpcc, Scenario::OltpReadWrite]);
        assert_eq!(both.dataset, PrewarmDataset::OltpAndTpcc);
        assert!(both.dataset.reads_tpcc() && both.dataset.reads_oltp());
        let oltp = prewarm_of(vec![Scenario::OltpReadOnly]);
        assert_eq!(oltp.dataset, PrewarmDataset::Oltp);
        // The OLTP prewarm's JSON is what it was before tpcc had one; older plans read back.
        let json = serde_json::to_value(&oltp).unwrap();
        assert!(json.get("dataset").is_none(), "{json}");
        let back: PrewarmOptions = serde_json::from_value(json).unwrap();
        assert_eq!(back, oltp);
        let json = serde_json::to_value(&tpcc).unwrap();
        assert_eq!(json["dataset"], "tpcc");
        assert_eq!(
            serde_json::from_value::<PrewarmOptions>(json).unwrap(),
            tpcc
        );
    }
}
