//! The desktop app's view of a run: folds the run's events (the engine's, the
//! samplers', the history's) into the Run screen's state and cuts it into
//! [`RunSnapshot`]s. Pure: no Tauri, no threads, so it is unit-tested on synthetic
//! events.
//!
//! Non-goals: sending the snapshots or deciding how often (the app throttles them),
//! any figure of its own (they come with the events).

mod snapshot;
mod step_noise;
mod stored;

use std::time::Instant;

use dbdyno_engine::open_loop::mode_name;
use dbdyno_engine::wording::{count, plural};
use dbdyno_engine::{
    EngineError, EngineEvent, IntervalRecord, Phase, Plan, RunOutcome, SlaTarget, StepPlan,
    StepResult,
};
use dbdyno_monitor::timeline::Source;
use dbdyno_monitor::ServerSample;

use crate::describe::Line;
use crate::run::{HistoryNote, Recorded, Run, RunEnd, RunEvent};
use crate::run_monitor::Update;
pub use snapshot::*;
pub use step_noise::{Bounds, SlaMark, StepNoise};
pub use stored::stored_series;

struct PhaseInfo {
    label: String,
    /// Planned seconds (0 for phases the server decides).
    planned_s: f64,
}

pub struct LiveRun {
    env: String,
    run_id: Option<i64>,
    /// The data disk's devices, whose %util the server chart shows.
    devices: Vec<String>,
    started: Instant,
    start_unix_ms: i64,
    phases: Vec<PhaseInfo>,
    phase: Option<usize>,
    phase_started: Instant,
    /// Planned seconds of the phases already finished.
    done_planned_s: f64,
    steps: Vec<StepRow>,
    /// The plan's latency target, each finished step is marked against.
    sla: Option<SlaTarget>,
    step: Option<usize>,
    step_started: Option<Instant>,
    step_planned_s: f64,
    cooldown: Option<(Instant, f64)>,
    prepare: Option<PrepareProgress>,
    /// When the load in `prepare` began.
    prepare_started: Option<Instant>,
    connecting: Option<ConnectingProgress>,
    /// The silence going on, and when this view learnt of it.
    silence: Option<(dbdyno_engine::ServerSilence, Instant)>,
    points: Vec<LivePoint>,
    server: Vec<ServerPoint>,
    client: Vec<ClientPoint>,
    mysql: Vec<MysqlPoint>,
    log: Vec<LogLine>,
    errors_total: f64,
    reconnects_total: f64,
    status: RunStatus,
    failure: Option<String>,
    history_note: Option<String>,
    /// Set by [`LiveRun::ended`] for a run with a spill outcome.
    not_in_history: Option<String>,
    spill_file: Option<String>,
}

impl LiveRun {
    pub fn new(plan: &Plan, env: &str, run_id: Option<i64>, start_unix_ms: i64) -> LiveRun {
        let phases = plan
            .phases
            .iter()
            .map(|p| PhaseInfo {
                label: dbdyno_engine::runner::phase_label(p),
                planned_s: match p {
                    Phase::Step(s) => (s.settings.time_s + s.settings.warmup_s) as f64,
                    Phase::Cooldown { seconds } => *seconds as f64,
                    _ => 0.0,
                },
            })
            .collect();
        let steps = plan
            .steps()
            .enumerate()
            .map(|(i, s)| StepRow::planned(i as u32, s))
            .collect();
        let now = Instant::now();
        LiveRun {
            env: env.to_string(),
            run_id,
            devices: Vec::new(),
            started: now,
            start_unix_ms,
            phases,
            phase: None,
            phase_started: now,
            done_planned_s: 0.0,
            steps,
            sla: plan.sla().map(|s| s.target),
            step: None,
            step_started: None,
            step_planned_s: 0.0,
            cooldown: None,
            prepare: None,
            prepare_started: None,
            connecting: None,
            silence: None,
            points: Vec::new(),
            server: Vec::new(),
            client: Vec::new(),
            mysql: Vec::new(),
            log: Vec::new(),
            errors_total: 0.0,
            reconnects_total: 0.0,
            status: RunStatus::Running,
            failure: None,
            history_note: None,
            not_in_history: None,
            spill_file: None,
        }
    }

    /// The view of `run` as it starts (driven from `start_unix_ms`, this machine's
    /// clock), its environment in the log.
    pub fn for_run(run: &Run, env: &str, start_unix_ms: i64) -> LiveRun {
        let mut live = LiveRun::new(run.plan(), env, run.run_id(), start_unix_ms);
        if let Some(m) = run.monitor() {
            live.devices = m.devices().to_vec();
            for line in m.environment_lines("the Checks screen's data disk") {
                match line {
                    Line::Fact(text) => live.line(LogLevel::Info, text),
                    Line::Warning(text) | Line::Missing(text) => live.line(LogLevel::Warning, text),
                }
            }
        }
        live
    }

    /// One event of the run.
    pub fn on(&mut self, e: &RunEvent) {
        match e {
            RunEvent::Engine(e) => self.apply(e),
            RunEvent::Sampler(u) => self.update(u),
            RunEvent::History(HistoryNote::NotRecorded(e)) => {
                self.note_history(format!("not recorded in the history: {e}"))
            }
            RunEvent::History(HistoryNote::NotStored(why)) => {
                self.note_history(format!("history: {why}"))
            }
            RunEvent::Cancelling => self.cancel_requested(),
            RunEvent::ClientCpu { unix_ms, percent } => self.client_cpu(*unix_ms, *percent),
            RunEvent::History(HistoryNote::Recording { .. })
            | RunEvent::StepServer { .. }
            | RunEvent::EngineStopped
            | RunEvent::Tick => {}
        }
    }

    /// What the samplers said, into the live charts and the log.
    fn update(&mut self, u: &Update) {
        match u {
            Update::Os {
                end_unix_ms,
                sample,
            } => {
                let disk = data_disk_util(sample, &self.devices);
                self.server_sample(*end_unix_ms, sample.cpu.as_ref().map(|c| c.util), disk)
            }
            Update::Mysql(s) => {
                self.mysql_sample(s.local_unix_ms, s.questions_per_s, s.transactions_per_s)
            }
            Update::Gap(g) => match g.source {
                Source::Os => self.server_gap(g.from_ms, g.to_ms),
                Source::Mysql => self.mysql_gap(g.from_ms, g.to_ms),
            },
            Update::Note { warning, text } => {
                let level = if *warning {
                    LogLevel::Warning
                } else {
                    LogLevel::Info
                };
                self.line(level, text.clone())
            }
        }
    }

    /// The run ended: final states, and what the history could not keep.
    pub fn ended(&mut self, end: &RunEnd) {
        self.finish(&end.outcome, end.error.as_ref());
        if let Some(Recorded::Stored { report, .. }) = &end.history {
            if !report.errors.is_empty() {
                self.note_history(format!("history: {}", report.errors.join("; ")));
            }
        }
        if let Some(s) = &end.spilled {
            self.not_in_history = Some(s.not_in_history_line(end.history.as_ref()));
            self.spill_file = s.path.as_ref().map(|p| p.display().to_string());
        }
    }

    fn t_of_unix_ms(&self, unix_ms: i64) -> f64 {
        (unix_ms - self.start_unix_ms) as f64 / 1000.0
    }

    fn line(&mut self, level: LogLevel, text: impl Into<String>) {
        let t_s = self.started.elapsed().as_secs_f64();
        self.log.push(LogLine {
            t_s,
            level,
            text: text.into(),
        });
    }

    fn note_history(&mut self, note: impl Into<String>) {
        self.history_note = Some(note.into());
    }

    fn cancel_requested(&mut self) {
        if !self.status.is_final() {
            self.status = RunStatus::Cancelling;
            self.line(
                LogLevel::Info,
                "Cancelling: finishing in-flight transactions; finished steps are kept",
            );
        }
    }

    fn apply(&mut self, e: &EngineEvent) {
        match e {
            EngineEvent::PhaseStarted { index, label, .. } => self.phase_started(*index, label),
            EngineEvent::Message { text } => self.line(LogLevel::Info, text.clone()),
            EngineEvent::Warning { text } => self.line(LogLevel::Warning, text.clone()),
            EngineEvent::PrepareProgress {
                rows_done,
                rows_total,
            } => {
                // The rate is over this load (a ladder of OLTP and TPC-C loads twice).
                let since = *self.prepare_started.get_or_insert_with(Instant::now);
                self.prepare = Some(PrepareProgress::at(
                    *rows_done,
                    *rows_total,
                    since.elapsed().as_secs_f64(),
                ));
            }
            EngineEvent::PrepareFinished(r) => {
                self.prepare = None;
                self.prepare_started = None;
                match &r.reused {
                    Some(reused) => self.line(
                        LogLevel::Info,
                        format!("Prepare finished, nothing loaded: {}", reused.summary()),
                    ),
                    None => self.line(LogLevel::Info, "Prepare finished"),
                }
            }
            EngineEvent::PrewarmFinished(_) => self.line(LogLevel::Info, "Prewarm finished"),
            EngineEvent::Connecting(c) => {
                self.connecting = (!c.done).then_some(ConnectingProgress {
                    opened: c.opened,
                    threads: c.threads,
                    retries: c.retries as f64,
                    elapsed_s: c.elapsed_s,
                });
                // A ramp worth noticing stays in the log once it is over.
                if let Some(line) = c.notable_summary() {
                    self.line(LogLevel::Info, line);
                }
            }
            EngineEvent::StepStarted {
                step,
                scenario,
                threads,
                planned_s,
                warmup_s,
                ..
            } => {
                self.step = Some(*step);
                self.step_started = Some(Instant::now());
                self.step_planned_s = *planned_s as f64;
                let _ = warmup_s;
                // A step the plan did not list (the capacity search's, after the
                // ladder) gets its row when it starts.
                if *step == self.steps.len() {
                    let mut row = StepRow::pending(*step as u32, *scenario, *threads);
                    row.sla_search = true;
                    self.steps.push(row);
                }
                if let Some(row) = self.steps.get_mut(*step) {
                    row.status = StepStatus::Running;
                }
            }
            EngineEvent::Interval { step, record } => self.interval(*step, record),
            EngineEvent::StepFinished { step, result } => {
                if let Some(row) = self.steps.get_mut(*step) {
                    fill_row(row, result);
                    row.noise = Some(StepNoise::of(result, self.sla.as_ref()));
                }
                self.step_started = None;
            }
            EngineEvent::Cooldown { seconds } => {
                self.status = RunStatus::CoolingDown;
                self.cooldown = Some((Instant::now(), *seconds as f64));
            }
            // Its end is a warning (in the log already); the banner goes.
            EngineEvent::ServerSilent(s) => {
                if s.state == dbdyno_engine::SilenceState::Silent {
                    self.line(LogLevel::Warning, s.describe());
                    self.silence = Some((s.clone(), Instant::now()));
                } else {
                    self.silence = None;
                }
            }
            // Its warning is in the log already; the row says it failed, and why.
            EngineEvent::StepFailed { step, error, .. } => {
                if let Some(row) = self.steps.get_mut(*step) {
                    row.status = StepStatus::Failed;
                    row.failure = Some(error.clone());
                }
                self.connecting = None;
                self.step_started = None;
            }
        }
    }

    fn phase_started(&mut self, index: usize, label: &str) {
        if let Some(prev) = self.phase {
            self.done_planned_s += self.phases.get(prev).map_or(0.0, |p| p.planned_s);
        }
        self.phase = Some(index);
        self.phase_started = Instant::now();
        self.cooldown = None;
        if self.status == RunStatus::CoolingDown {
            self.status = RunStatus::Running;
        }
        self.line(LogLevel::Info, format!("Phase {}: {label}", index + 1));
    }

    /// One interval of the engine: a chart point, the running totals.
    fn interval(&mut self, step: usize, record: &IntervalRecord) {
        self.errors_total += record.errors_ps * record.duration_s;
        self.reconnects_total += record.reconnects_ps * record.duration_s;
        if record.reconnects_ps > 0.0 {
            let reconnects = (record.reconnects_ps * record.duration_s).round();
            self.line(
                LogLevel::Warning,
                format!(
                    "{reconnects:.0} {} in the last interval",
                    plural(reconnects, "reconnect")
                ),
            );
        }
        let t_s = self.t_of_unix_ms(record.end_unix_ms);
        self.points.push(LivePoint::of(record, step as u32, t_s));
    }

    /// A server OS sample whose interval ended at `end_unix_ms` (this machine's clock).
    /// Its own series: joining it with readings taken on another beat (this client's
    /// CPU) left every other point of the chart without a server value.
    fn server_sample(
        &mut self,
        end_unix_ms: i64,
        cpu_pct: Option<f64>,
        disk_util_pct: Option<f64>,
    ) {
        let t_s = self.t_of_unix_ms(end_unix_ms);
        self.server.push(ServerPoint {
            t_s,
            cpu_pct,
            disk_util_pct,
        });
    }

    /// A time without server samples: an empty point in its middle breaks the line.
    fn server_gap(&mut self, from_ms: i64, to_ms: i64) {
        let t_s = self.t_of_unix_ms((from_ms + to_ms) / 2);
        self.server.push(ServerPoint {
            t_s,
            cpu_pct: None,
            disk_util_pct: None,
        });
    }

    /// A MySQL status sample whose interval ended at `end_unix_ms`.
    fn mysql_sample(&mut self, end_unix_ms: i64, qps: f64, tps: f64) {
        let t_s = self.t_of_unix_ms(end_unix_ms);
        self.mysql.push(MysqlPoint {
            t_s,
            qps: Some(qps),
            tps: Some(tps),
        });
    }

    fn mysql_gap(&mut self, from_ms: i64, to_ms: i64) {
        let t_s = self.t_of_unix_ms((from_ms + to_ms) / 2);
        self.mysql.push(MysqlPoint {
            t_s,
            qps: None,
            tps: None,
        });
    }

    fn client_cpu(&mut self, unix_ms: i64, pct: f64) {
        let t_s = self.t_of_unix_ms(unix_ms);
        self.client.push(ClientPoint { t_s, cpu_pct: pct });
    }

    /// The run ended: final states of the steps and of the run.
    fn finish(&mut self, outcome: &RunOutcome, error: Option<&EngineError>) {
        self.status = match (error, outcome.cancelled) {
            (Some(_), _) => RunStatus::Failed,
            (None, true) => RunStatus::Cancelled,
            (None, false) if !outcome.failed_steps.is_empty() => RunStatus::Partial,
            (None, false) => RunStatus::Complete,
        };
        for row in &mut self.steps {
            if matches!(row.status, StepStatus::Pending | StepStatus::Running) {
                row.status = StepStatus::Skipped;
            }
        }
        self.cooldown = None;
        self.connecting = None;
        self.silence = None;
        self.step_started = None;
        match error {
            Some(e) => {
                self.failure = Some(e.to_string());
                self.line(LogLevel::Error, e.to_string());
            }
            None if outcome.cancelled => {
                let kept = self
                    .steps
                    .iter()
                    .filter(|s| matches!(s.status, StepStatus::Done | StepStatus::Cancelled))
                    .count();
                self.line(
                    LogLevel::Info,
                    format!("Cancelled: {} kept", count(kept as u32, "step")),
                );
            }
            None => match self.failed_steps_note() {
                Some(note) => self.line(LogLevel::Warning, format!("Run partial: {note}")),
                None => self.line(LogLevel::Info, "Run complete"),
            },
        }
    }

    /// Once a step has failed: how many did, for the Run screen's banner.
    fn failed_steps_note(&self) -> Option<String> {
        let failed = self
            .steps
            .iter()
            .filter(|s| s.status == StepStatus::Failed)
            .count();
        match failed {
            0 => None,
            1 => Some("1 step failed and was not measured; the others ran".to_string()),
            n => Some(format!(
                "{n} steps failed and were not measured; the others ran"
            )),
        }
    }

    /// The state now, with the points and log lines gathered since the last call.
    pub fn snapshot(&mut self) -> RunSnapshot {
        let now = Instant::now();
        let total: f64 = self.phases.iter().map(|p| p.planned_s).sum();
        let in_phase = self
            .phase
            .and_then(|i| self.phases.get(i))
            .map_or(0.0, |p| {
                now.duration_since(self.phase_started)
                    .as_secs_f64()
                    .min(p.planned_s)
            });
        let done = if matches!(self.status, RunStatus::Complete | RunStatus::Partial) {
            total
        } else {
            self.done_planned_s + in_phase
        };
        let progress_pct = if total > 0.0 {
            (done / total * 100.0).clamp(0.0, 100.0)
        } else {
            0.0
        };
        let label = self
            .phase
            .and_then(|i| self.phases.get(i))
            .map_or_else(|| "starting".to_string(), |p| p.label.clone());
        RunSnapshot {
            run_id: self.run_id.map(|i| i as u32),
            env: self.env.clone(),
            status: self.status,
            phase_label: label,
            phase_number: self.phase.map_or(0, |i| i as u32 + 1),
            phase_count: self.phases.len() as u32,
            elapsed_s: now.duration_since(self.started).as_secs_f64(),
            progress_pct,
            eta_s: (!self.status.is_final()).then_some((total - done).max(0.0)),
            current_step: self.step.map(|s| s as u32),
            step_elapsed_s: self
                .step_started
                .map(|s| now.duration_since(s).as_secs_f64()),
            step_planned_s: self.step_started.map(|_| self.step_planned_s),
            cooldown_left_s: self
                .cooldown
                .map(|(at, secs)| (secs - now.duration_since(at).as_secs_f64()).max(0.0)),
            prepare: self.prepare.clone(),
            connecting: self.connecting.clone(),
            silence: self.silence.as_ref().map(|(s, learnt)| {
                let now_silent = dbdyno_engine::ServerSilence {
                    seconds: s.seconds + learnt.elapsed().as_secs_f64(),
                    ..s.clone()
                };
                SilenceBanner {
                    since_unix_ms: s.since_unix_ms as f64,
                    silent_s: now_silent.seconds,
                    stall_timeout_s: s.stall_timeout_s as f64,
                    text: now_silent.describe(),
                }
            }),
            points: std::mem::take(&mut self.points),
            server: std::mem::take(&mut self.server),
            client: std::mem::take(&mut self.client),
            mysql: std::mem::take(&mut self.mysql),
            steps: self.steps.clone(),
            log: std::mem::take(&mut self.log),
            errors_total: self.errors_total,
            reconnects_total: self.reconnects_total,
            failure: self.failure.clone(),
            failed_steps_note: self.failed_steps_note(),
            history_note: self.history_note.clone(),
            not_in_history: self.not_in_history.clone(),
            spill_file: self.spill_file.clone(),
        }
    }
}

/// %util of the data disk (the busiest of its devices), else of the busiest disk: the
/// server chart's disk line, live and in the History screen.
pub fn data_disk_util(s: &ServerSample, devices: &[String]) -> Option<f64> {
    s.disks
        .iter()
        .filter(|d| devices.is_empty() || devices.contains(&d.name))
        .map(|d| d.util_pct)
        .fold(None, |acc: Option<f64>, u| {
            Some(acc.map_or(u, |a| a.max(u)))
        })
}

impl StepRow {
    /// A step of the plan that has not run yet.
    pub fn pending(index: u32, scenario: dbdyno_engine::Scenario, threads: u32) -> StepRow {
        StepRow {
            index,
            scenario: scenario.name().to_string(),
            threads,
            status: StepStatus::Pending,
            tps: None,
            qps: None,
            p95_ms: None,
            p99_ms: None,
            avg_ms: None,
            errors: None,
            reconnects: None,
            steady_tps: None,
            tpmc: None,
            nopm: None,
            client_cpu_pct: None,
            repeat: None,
            mode: None,
            sla_search: false,
            noise: None,
            failure: None,
        }
    }

    /// A step of the plan as planned: its repeat and how it drives load.
    pub fn planned(index: u32, s: &StepPlan) -> StepRow {
        let mut row = StepRow::pending(index, s.scenario, s.threads);
        row.repeat = s.repeat.label();
        row.mode =
            (s.settings.rate > 0.0).then(|| mode_name(s.settings.rate, s.settings.rate_dist));
        row
    }

    /// A finished step, with its figures (throughput unknown for an imported log cut
    /// off before its summary).
    pub fn finished(index: u32, r: &StepResult) -> StepRow {
        let mut row = StepRow::pending(index, r.scenario, r.threads);
        fill_row(&mut row, r);
        row.noise = Some(StepNoise::of(r, None));
        row
    }
}

impl LivePoint {
    /// One interval record of step `step`, at `t_s` seconds on the run's clock.
    pub fn of(record: &dbdyno_engine::IntervalRecord, step: u32, t_s: f64) -> LivePoint {
        LivePoint {
            t_s,
            step,
            threads: record.threads,
            tps: record.tps,
            qps: record.qps,
            latency_ms: record.latency_ms,
            errors_ps: record.errors_ps,
            reconnects_ps: record.reconnects_ps,
        }
    }
}

fn fill_row(row: &mut StepRow, r: &StepResult) {
    row.status = if r.cancelled {
        StepStatus::Cancelled
    } else {
        StepStatus::Done
    };
    row.tps = r.known_tps();
    row.qps = r.known_qps();
    row.p95_ms = r.latency.p95_ms;
    row.p99_ms = r.latency.p99_ms;
    row.avg_ms = Some(r.latency.avg_ms);
    row.errors = Some(r.ignored_errors as f64);
    row.reconnects = Some(r.reconnects as f64);
    row.steady_tps = r.steady.as_ref().map(|s| s.tps);
    row.tpmc = r.tpcc.as_ref().map(|t| t.tpmc);
    row.nopm = r.tpcc.as_ref().map(|t| t.nopm);
    row.client_cpu_pct = Some(r.client_cpu.percent_of_machine);
    row.repeat = r.repeat.label();
    row.mode = r.open_loop.as_ref().map(|o| o.mode());
    row.sla_search = r.sla_search;
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_engine::{
        ConnectOptions, IntervalRecord, LadderSpec, RunSettings, Scenario, WorkloadOptions,
    };

    fn plan() -> Plan {
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            threads: vec![1, 2],
            settings: RunSettings {
                time_s: 2,
                report_interval_s: 1,
                ..Default::default()
            },
            cooldown_s: 1,
            ..Default::default()
        };
        Plan {
            connect: ConnectOptions::default(),
            workload: WorkloadOptions::default(),
            phases: spec.phases(),
            force: false,
            on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
        }
    }

    fn interval(end_unix_ms: i64, tps: f64) -> IntervalRecord {
        IntervalRecord {
            elapsed_s: 1.0,
            duration_s: 1.0,
            end_unix_ms,
            threads: 1,
            tps,
            qps: tps * 10.0,
            reads_ps: 0.0,
            writes_ps: 0.0,
            other_ps: 0.0,
            latency_ms: 1.5,
            percentile: 95.0,
            p95_ms: None,
            p99_ms: None,
            errors_ps: 2.0,
            reconnects_ps: 0.0,
            open_loop: None,
        }
    }

    #[test]
    fn prepare_progress_gives_the_rate_and_the_time_to_the_last_row() {
        let p = PrepareProgress::at(250_000, 1_000_000, 2.0);
        assert_eq!((p.pct, p.rows_per_s), (25.0, 125_000.0));
        assert_eq!(p.eta_s, Some(6.0));
        let start = PrepareProgress::at(0, 1_000_000, 0.0);
        assert_eq!((start.rows_per_s, start.eta_s), (0.0, None));
        assert_eq!(PrepareProgress::at(10, 10, 1.0).eta_s, Some(0.0));
    }

    #[test]
    fn snapshots_carry_new_points_once_and_the_whole_step_table() {
        let p = plan();
        let mut live = LiveRun::new(&p, "sandbox", Some(7), 1_000_000);
        let s0 = live.snapshot();
        assert_eq!(s0.steps.len(), 2);
        assert_eq!(s0.phase_count, 3, "step, cool-down, step");
        assert!(s0.steps.iter().all(|s| s.status == StepStatus::Pending));
        live.apply(&EngineEvent::PhaseStarted {
            index: 0,
            of: 3,
            label: "x".into(),
        });
        live.apply(&EngineEvent::StepStarted {
            step: 0,
            scenario: Scenario::OltpPointSelect,
            threads: 1,
            warmup_s: 0,
            planned_s: 2,
        });
        live.apply(&EngineEvent::Interval {
            step: 0,
            record: interval(1_001_000, 100.0),
        });
        live.apply(&EngineEvent::Interval {
            step: 0,
            record: interval(1_002_000, 120.0),
        });
        let s1 = live.snapshot();
        assert_eq!(s1.points.len(), 2);
        assert_eq!(
            s1.points[1].t_s, 2.0,
            "x axis: seconds since the run started"
        );
        assert_eq!(s1.steps[0].status, StepStatus::Running);
        assert_eq!(s1.errors_total, 4.0);
        assert_eq!(s1.run_id, Some(7));
        assert!(live.snapshot().points.is_empty(), "points are sent once");
        live.apply(&EngineEvent::Cooldown { seconds: 1 });
        let s2 = live.snapshot();
        assert_eq!(s2.status, RunStatus::CoolingDown);
        assert!(s2.cooldown_left_s.unwrap() <= 1.0);
    }

    /// A tpcc step's row carries the tpmC and NOPM the engine counted (the Run and
    /// History screens show them); a step without TPC-C figures has none.
    #[test]
    fn a_tpcc_steps_row_carries_its_tpmc_and_nopm() {
        let text = include_str!("../../../sysbench-text/src/fixtures/read_only_no_intervals.txt");
        let parsed = dbdyno_sysbench_text::parse_sysbench_output(text).unwrap();
        let mut r = parsed[0].to_step_result(Scenario::Tpcc);
        let row = StepRow::finished(0, &r);
        assert_eq!((row.tpmc, row.nopm), (None, None));
        r.tpcc = Some(dbdyno_engine::tpcc::TpccResult {
            tpmc: 1234.5,
            nopm: 1221.0,
            rollbacks: 13,
            deadlocks: 0,
            lock_wait_timeouts: 0,
            transactions: Vec::new(),
        });
        let row = StepRow::finished(0, &r);
        assert_eq!((row.tpmc, row.nopm), (Some(1234.5), Some(1221.0)));
    }

    /// Each planned row says which repeat it is and how it drives load, before it runs.
    #[test]
    fn planned_rows_carry_their_repeat_and_their_mode() {
        let mut p = plan();
        let spec = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            threads: vec![1],
            repeat: 2,
            ..Default::default()
        };
        p.phases = spec.phases();
        let rows = LiveRun::new(&p, "sandbox", None, 0).snapshot().steps;
        let labels: Vec<_> = rows.iter().map(|r| r.repeat.as_deref()).collect();
        assert_eq!(labels, [Some("repeat 1/2"), Some("repeat 2/2")]);
        assert!(rows.iter().all(|r| r.mode.is_none()), "closed loops");
        let rates = LadderSpec {
            scenarios: vec![Scenario::OltpPointSelect],
            rates: vec![100.0, 200.0],
            ..Default::default()
        };
        p.phases = rates.phases();
        let rows = LiveRun::new(&p, "sandbox", None, 0).snapshot().steps;
        let modes: Vec<_> = rows.iter().map(|r| r.mode.as_deref()).collect();
        assert_eq!(
            modes,
            [Some("open loop at 100/s"), Some("open loop at 200/s")]
        );
        assert!(rows.iter().all(|r| r.repeat.is_none() && r.noise.is_none()));
    }

    #[test]
    fn a_step_the_plan_did_not_list_gets_its_row_when_it_starts() {
        // The capacity search (`--sla-search`) adds steps after the planned ones.
        let p = plan();
        let mut live = LiveRun::new(&p, "sandbox", None, 0);
        assert_eq!(live.snapshot().steps.len(), 2);
        live.apply(&EngineEvent::StepStarted {
            step: 2,
            scenario: Scenario::OltpPointSelect,
            threads: 3,
            warmup_s: 0,
            planned_s: 2,
        });
        let s = live.snapshot();
        assert_eq!(s.steps.len(), 3);
        assert_eq!(
            (s.steps[2].threads, s.steps[2].status),
            (3, StepStatus::Running)
        );
        assert_eq!(
            (s.steps[2].threads, s.steps[2].status),
            (3, StepStatus::Running)
        );
        assert!(s.steps[2].sla_search, "the search's step says so");
        assert!(!s.steps[0].sla_search);
    }

    #[test]
    fn cancel_keeps_finished_steps_and_skips_the_rest() {
        let p = plan();
        let mut live = LiveRun::new(&p, "sandbox", None, 0);
        live.apply(&EngineEvent::StepStarted {
            step: 0,
            scenario: Scenario::OltpPointSelect,
            threads: 1,
            warmup_s: 0,
            planned_s: 2,
        });
        live.cancel_requested();
        assert_eq!(live.snapshot().status, RunStatus::Cancelling);
        let outcome = RunOutcome {
            cancelled: true,
            ..Default::default()
        };
        live.finish(&outcome, None);
        let s = live.snapshot();
        assert_eq!(s.status, RunStatus::Cancelled);
        assert_eq!(s.eta_s, None);
        assert!(s.steps.iter().all(|r| r.status == StepStatus::Skipped));
        assert!(s.log.iter().any(|l| l.text.contains("Cancelled")));
    }

    #[test]
    fn a_silent_server_shows_as_a_banner_while_it_lasts_and_in_the_log() {
        use dbdyno_engine::{ServerSilence, SilenceState};
        let p = plan();
        let mut live = LiveRun::new(&p, "sandbox", None, 0);
        let silence = |state, seconds| {
            EngineEvent::ServerSilent(ServerSilence {
                step: 0,
                since_unix_ms: 7_803_412,
                seconds,
                stall_timeout_s: 30,
                state,
            })
        };
        live.apply(&silence(SilenceState::Silent, 2.0));
        let s = live.snapshot();
        let banner = s.silence.expect("a banner while the server is silent");
        assert!(banner.silent_s >= 2.0 && banner.stall_timeout_s == 30.0);
        assert!(
            banner
                .text
                .starts_with("server silent since 02:10:03.412 UTC: no answer for 2 s"),
            "{}",
            banner.text
        );
        assert!(s
            .log
            .iter()
            .any(|l| l.level == LogLevel::Warning && l.text == banner.text));
        live.apply(&silence(SilenceState::Answered, 3.1));
        assert_eq!(live.snapshot().silence, None, "gone once it answered");
    }

    #[test]
    fn a_failed_step_shows_as_failed_with_its_reason_and_the_run_as_partial() {
        let p = plan();
        let mut live = LiveRun::new(&p, "sandbox", None, 0);
        let reason = "512 of 1,024 connections opened: Too many connections";
        live.apply(&EngineEvent::StepFailed {
            step: 0,
            label: "oltp_point_select @ 1 thread".into(),
            error: reason.into(),
        });
        let s = live.snapshot();
        assert_eq!(s.steps[0].status, StepStatus::Failed);
        assert_eq!(s.steps[0].failure.as_deref(), Some(reason));
        assert_eq!(s.steps[1].status, StepStatus::Pending);
        assert_eq!(s.status, RunStatus::Running, "the ladder goes on");
        let outcome = RunOutcome {
            failed_steps: vec![dbdyno_engine::FailedStep {
                label: "oltp_point_select @ 1 thread".into(),
                error: reason.into(),
            }],
            ..Default::default()
        };
        live.finish(&outcome, None);
        let s = live.snapshot();
        assert_eq!(s.status, RunStatus::Partial);
        assert!(s.status.is_final());
        assert_eq!(
            s.failed_steps_note.as_deref(),
            Some("1 step failed and was not measured; the others ran")
        );
        assert_eq!(s.steps[0].status, StepStatus::Failed, "not 'skipped'");
        assert!(s
            .log
            .iter()
            .any(|l| l.text.starts_with("Run partial: 1 step failed")));
        // A run without a failed step says nothing of the kind.
        let mut live = LiveRun::new(&p, "sandbox", None, 0);
        live.finish(&RunOutcome::default(), None);
        let s = live.snapshot();
        assert_eq!((s.status, s.failed_steps_note), (RunStatus::Complete, None));
    }

    #[test]
    fn every_server_chart_point_carries_a_server_reading() {
        // The server's samples end at .25 s; this client's CPU is read on whole seconds;
        // snapshots go out in between, as the driver sends them. (Joined into one series,
        // every other server point had no CPU value, and the chart drew no line.)
        let mut live = LiveRun::new(&plan(), "sandbox", None, 0);
        let (mut server, mut client) = (Vec::new(), Vec::new());
        for sec in 1..=4 {
            live.server_sample(sec * 1000 + 250, Some(50.0 + sec as f64), Some(5.0));
            server.extend(live.snapshot().server);
            live.client_cpu(sec * 1000 + 1000, 10.0);
            let s = live.snapshot();
            server.extend(s.server);
            client.extend(s.client);
        }
        let t: Vec<f64> = server.iter().map(|p| p.t_s).collect();
        assert_eq!(t, [1.25, 2.25, 3.25, 4.25], "one point per server sample");
        let cpu: Vec<Option<f64>> = server.iter().map(|p| p.cpu_pct).collect();
        assert_eq!(cpu, [Some(51.0), Some(52.0), Some(53.0), Some(54.0)]);
        let t: Vec<f64> = client.iter().map(|p| p.t_s).collect();
        assert_eq!(
            t,
            [2.0, 3.0, 4.0, 5.0],
            "the client's CPU: a series of its own"
        );
    }

    #[test]
    fn a_time_without_samples_is_an_empty_point_between_the_samples() {
        let mut live = LiveRun::new(&plan(), "sandbox", None, 0);
        live.server_sample(1_000, Some(40.0), None);
        live.server_gap(1_000, 7_000);
        live.server_sample(7_000, Some(42.0), None);
        live.mysql_sample(1_000, 900.0, 90.0);
        live.mysql_gap(1_000, 4_000);
        let s = live.snapshot();
        let server: Vec<(f64, Option<f64>)> = s.server.iter().map(|p| (p.t_s, p.cpu_pct)).collect();
        assert_eq!(server, [(1.0, Some(40.0)), (4.0, None), (7.0, Some(42.0))]);
        assert_eq!(s.mysql[0].qps, Some(900.0));
        assert_eq!((s.mysql[1].t_s, s.mysql[1].qps), (2.5, None));
    }
}
