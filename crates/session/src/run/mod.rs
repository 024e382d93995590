//! One run, the same whichever shell started it: the prerequisite checks, the samplers,
//! the history record, the engine on a thread of its own, and every event handed to the
//! shell's consumer. The CLI prints the events; the app folds them into the Run screen's
//! snapshots ([`crate::live`]).
//!
//! Two calls: [`Run::start`] judges the plan, starts the samplers and opens the history
//! record (the app answers with the run id at once), then [`Run::drive`] runs the engine
//! to its end, calling the consumer on the caller's thread, and returns a [`RunEnd`].
//! A history that fails mid-run never stops a run (unless asked) and never loses a
//! step: it is said as a [`HistoryNote`], the steps go to a spill file, and
//! [`RunEnd::spilled`] says where; a history that cannot be written at the start
//! refuses the run before any load, unless the spill directory takes the results
//! (`history.rs`). An engine thread that panics ends the run as
//! failed ([`EngineError::Internal`]), in both shells.
//!
//! Non-goals: no printing and no wording of the shells' own (events are data; the few
//! lines both shells show come from [`crate::describe`]); no profile, flag or secret
//! resolution (the plan comes resolved); no Ctrl-C (the shell holds the [`CancelToken`]).

mod history;
mod host_lock;
mod not_in_history;
mod spill;
#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use dbdyno_checks::{Check, CheckStatus};
use dbdyno_clients::{ClientsPlan, Coordinator};
use dbdyno_engine::{run_plan, CancelToken, EngineError, EngineEvent, EventSink, Plan, RunOutcome};
use dbdyno_monitor::{HostAccess, StepServerFigures};
use dbdyno_ssh::SshConnection;

use crate::client_cpu::ClientCpu;
use crate::metrics::{MetricsError, MetricsRequest, MetricsServer};
use crate::preflight::Preflight;
use crate::results::Samples;
use crate::run_monitor::{MonitoringReport, RunMonitor, StartError, Update};
use history::Recording;
pub use history::{
    environment_name, history_dir_row, HistoryFaults, HistoryNote, HistoryTarget, OnHistoryError,
    Recorded, Spilled,
};
pub use host_lock::CHECK_ID as HARDWARE_TEST_RUNNING;

/// How long the driving thread waits for an engine event before it polls the samplers,
/// the cancel token and the clock again.
const POLL: Duration = Duration::from_millis(50);

/// Whether the prerequisite checks may stop the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    /// Judge the plan first: a failed check refuses it ([`NotStarted::Refused`]).
    Enforce,
    /// `--skip-checks`: nothing is judged, and the facts are gathered only when the
    /// samplers or the history need them, so the server sees nothing but the
    /// benchmark's own statements.
    Skip,
}

/// What to run and what to run beside it.
pub struct RunRequest {
    pub plan: Plan,
    /// How the server's OS is reached, for the checks, the environment snapshot and the
    /// samplers.
    pub access: HostAccess,
    /// The data disk's devices as the user named them (empty: the resolver's answer).
    pub devices: Vec<String>,
    /// An SSH session to `access`'s target already opened (its host key checked): the
    /// sampler uses it instead of logging in again.
    pub ssh: Option<SshConnection>,
    pub checks: Checks,
    /// Start the samplers (when the plan has a measured step).
    pub monitor: bool,
    /// Where to record the run; None: not recorded (`--no-history`).
    pub history: Option<HistoryTarget>,
    /// Where the results go when the history cannot take them, and whether the run
    /// then goes on.
    pub history_faults: HistoryFaults,
    /// Longest wait after a step for the samples that end inside it, so that
    /// [`RunEvent::StepServer`] carries complete figures. The CLI prints them at once;
    /// the app shows step figures from the history and passes zero, so its snapshots
    /// never stall.
    pub settle: Duration,
    /// Keep every per-second sample for [`RunEnd::samples`] (the `--json` document).
    pub keep_samples: bool,
    /// Several load clients (`--clients`): every measured step and the prewarm run
    /// across them. None: this machine alone.
    pub clients: Option<ClientsPlan>,
    /// Serve the run's figures to Prometheus while it is on (`--metrics-addr`).
    pub metrics: Option<MetricsRequest>,
}

impl RunRequest {
    /// `plan` and nothing beside it: no checks, no samplers, no history (the sysbench
    /// form's prepare, prewarm and cleanup). Set the other fields for more.
    pub fn new(plan: Plan) -> RunRequest {
        RunRequest {
            plan,
            access: HostAccess::None {
                why: "not monitored".into(),
            },
            devices: Vec::new(),
            ssh: None,
            checks: Checks::Skip,
            monitor: false,
            history: None,
            history_faults: HistoryFaults::default(),
            settle: Duration::ZERO,
            keep_samples: false,
            clients: None,
            metrics: None,
        }
    }
}

/// Why a run did not start. Nothing ran and nothing was recorded.
#[derive(Debug, thiserror::Error)]
pub enum NotStarted {
    /// A prerequisite check failed (a too-low max_prepared_stmt_count would otherwise
    /// kill the run partway). `problems`: every check that warns or fails, worst first.
    #[error("the prerequisite checks failed ({}), nothing was run", failed_ids(.problems))]
    Refused { problems: Vec<Check> },
    /// The samplers could not start: an SSH login or host key, a `--device` the server
    /// lacks. `problems`: the checks that warned.
    #[error("{source}")]
    Monitor {
        #[source]
        source: Box<StartError>,
        problems: Vec<Check>,
    },
    /// The metrics endpoint could not listen (the port taken, an address this machine
    /// does not have).
    #[error("{0}")]
    Metrics(#[from] MetricsError),
}

impl NotStarted {
    /// The checks that warn or fail, worst first.
    pub fn problems(&self) -> &[Check] {
        match self {
            NotStarted::Refused { problems } | NotStarted::Monitor { problems, .. } => problems,
            NotStarted::Metrics(_) => &[],
        }
    }
}

fn failed_ids(problems: &[Check]) -> String {
    let ids: Vec<&str> = problems
        .iter()
        .filter(|c| c.status == CheckStatus::Fail)
        .map(|c| c.id.as_str())
        .collect();
    ids.join(", ")
}

/// Something that happened during a run, handed to the shell's consumer in order.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// What the engine said, as it said it (already given to the history).
    Engine(&'a EngineEvent),
    /// What the samplers said: samples, gaps, notes.
    Sampler(&'a Update),
    /// A finished step's server figures, right after its `StepFinished`. `os_down`:
    /// since when (local Unix ms) and why the OS sampler has no connection, if so (a
    /// gap still open is recorded only once sampling resumes).
    StepServer {
        figures: &'a StepServerFigures,
        os_down: Option<(i64, &'a str)>,
    },
    /// What happened to the history record.
    History(HistoryNote),
    /// The cancel token was seen set: in-flight transactions finish, finished steps are
    /// kept.
    Cancelling,
    /// This process's CPU over the last second, percent of all client cores.
    ClientCpu { unix_ms: i64, percent: f64 },
    /// The engine's thread ended. The samplers stop next (their last words follow as
    /// `Sampler` events), then the history record is finished.
    EngineStopped,
    /// The driving loop went round (50 ms apart at most while the engine runs, unless
    /// a step's samples are settling): the app sends its throttled snapshots on it.
    Tick,
}

/// How a run ended.
pub struct RunEnd {
    pub plan: Plan,
    pub outcome: RunOutcome,
    pub error: Option<EngineError>,
    /// What monitoring recorded (None: not monitored). Its sample rows are those no
    /// checkpoint handed out.
    pub monitoring: Option<MonitoringReport>,
    /// Every per-second sample, when the request kept them.
    pub samples: Samples,
    /// The history record (None: not recorded).
    pub history: Option<Recorded>,
    /// The run is not (fully) in the history: where its results are instead.
    pub spilled: Option<Spilled>,
}

impl RunEnd {
    pub fn run_id(&self) -> Option<i64> {
        self.history.as_ref().map(Recorded::run_id)
    }
}

/// The engine's entry point (a field so that one unit test can make it panic).
type Engine = fn(&Plan, &EventSink, &CancelToken) -> (RunOutcome, Option<EngineError>);

/// A run that is ready to go: checked, its samplers sampling, its record open.
pub struct Run {
    plan: Plan,
    problems: Vec<Check>,
    engine: Engine,
    /// The load clients the engine's steps run across, started and checked, if any.
    clients: Option<Coordinator>,
    side: Side,
}

/// What runs beside the engine and is fed its events.
struct Side {
    monitor: Option<RunMonitor>,
    history: Recording,
    settle: Duration,
    samples: Option<Samples>,
    /// Held until the run ends (host_lock.rs).
    _host_lock: Option<dbdyno_history::host_lock::HostLock>,
    /// The `/metrics` endpoint, fed every event; it stops with the run.
    metrics: Option<MetricsServer>,
}

impl Run {
    /// Checks the plan (unless told to skip), starts the samplers on the facts the
    /// checks gathered (one round of SSH and SQL for both) and opens the history record.
    pub fn start(req: RunRequest) -> Result<Run, NotStarted> {
        let RunRequest {
            plan,
            access,
            devices,
            ssh,
            checks,
            monitor,
            history,
            history_faults,
            settle,
            keep_samples,
            clients,
            metrics,
        } = req;
        // First: a port that is taken refuses the run before the checks reach the server.
        let metrics = metrics.as_ref().map(MetricsServer::start).transpose()?;
        let monitor = monitor && plan.steps().next().is_some();
        let enforce = checks == Checks::Enforce;
        let pre = (enforce || monitor || history.is_some())
            .then(|| Preflight::gather(&plan, &access, &devices));
        let problems: Vec<Check> = match pre.as_ref().filter(|_| enforce) {
            Some(p) if p.failed() => {
                let problems = p.problems().into_iter().cloned().collect();
                return Err(NotStarted::Refused { problems });
            }
            Some(p) => p.problems().into_iter().cloned().collect(),
            None => Vec::new(),
        };
        // The load clients are started and checked next, even under --skip-checks: a
        // client that cannot take its share refuses the run, its row saying why.
        let (clients, mut problems) = connect_clients(clients.as_ref(), &plan, problems)?;
        // The history's directory on this machine, even under --skip-checks (as the
        // host lock below): a run it cannot take is refused before any load.
        if let Some(row) = history
            .as_ref()
            .and_then(|t| history::dir_check(t, &history_faults, &plan))
        {
            match row.status {
                CheckStatus::Fail => {
                    problems.insert(0, row);
                    return Err(NotStarted::Refused { problems });
                }
                CheckStatus::Warn => {
                    problems.push(row);
                    problems.sort_by_key(|c| std::cmp::Reverse(c.status));
                }
                CheckStatus::Pass | CheckStatus::Skipped => {}
            }
        }
        // Before anything loads the server (the checks only read it): a hardware test on
        // it refuses the run. Taken after the checks, so that a run they refuse leaves
        // nothing behind, not even the lock's directory.
        let host_lock = host_lock::take(&plan, &access, history.as_ref()).map_err(|check| {
            NotStarted::Refused {
                problems: vec![*check],
            }
        })?;
        let monitor = match pre.as_ref().filter(|_| monitor) {
            Some(p) => {
                let environment = p.environment().clone();
                RunMonitor::start_gathered(&plan, access, environment, &p.facts, ssh).map_err(
                    |source| NotStarted::Monitor {
                        source: Box::new(source),
                        problems: problems.clone(),
                    },
                )?
            }
            None => None,
        };
        // Last, once nothing else can refuse the run: a history that cannot be written
        // (and no spill directory that takes the results) refuses it before any load.
        let history = Recording::open(
            history,
            &history_faults,
            &plan,
            pre.as_ref().map(Preflight::environment),
        )
        .map_err(|check| {
            let mut problems = problems.clone();
            problems.insert(0, *check);
            NotStarted::Refused { problems }
        })?;
        Ok(Run {
            plan,
            problems,
            engine: run_plan,
            clients,
            side: Side {
                monitor,
                history,
                settle,
                samples: keep_samples.then(Samples::default),
                _host_lock: host_lock,
                metrics,
            },
        })
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The checks that warned (none failed, or the run would not have started).
    pub fn problems(&self) -> &[Check] {
        &self.problems
    }

    /// The samplers, when monitored: the environment they sample and how.
    pub fn monitor(&self) -> Option<&RunMonitor> {
        self.side.monitor.as_ref()
    }

    /// The run's id in the history, when recorded.
    pub fn run_id(&self) -> Option<i64> {
        self.side.history.run_id()
    }

    /// Runs the engine on a thread of its own until the plan ends, is cancelled or
    /// fails, handing every event to `on` on this thread; then stops the samplers and
    /// finishes the history record.
    pub fn drive(self, cancel: &CancelToken, mut on: impl FnMut(RunEvent<'_>)) -> RunEnd {
        let Run {
            plan,
            engine,
            clients,
            mut side,
            ..
        } = self;
        let keep_samples = side.samples.is_some();
        // Prometheus sees every event before the shell does.
        let metrics = side.metrics.take();
        let mut on = |e: RunEvent<'_>| {
            if let Some(m) = &metrics {
                m.observe(&e);
            }
            on(e)
        };
        if let Some(note) = side.history.opening_note() {
            on(RunEvent::History(note));
        }
        let (outcome, error) = side.engine_loop(&plan, engine, clients.as_ref(), cancel, &mut on);
        on(RunEvent::EngineStopped);
        let monitoring = side.monitor.take().map(|m| {
            let (report, updates) = m.finish();
            for u in &updates {
                on(RunEvent::Sampler(u));
            }
            report
        });
        let mut samples = side.samples.unwrap_or_default();
        if let Some(m) = monitoring.as_ref().filter(|_| keep_samples) {
            samples.add(m);
        }
        let (history, spilled) = side
            .history
            .finish(&outcome, error.as_ref(), monitoring.as_ref());
        RunEnd {
            plan,
            outcome,
            error,
            monitoring,
            samples,
            history,
            spilled,
        }
    }
}

/// Starts and checks `clients`: their warnings and failures join `problems`, worst
/// first; a failure refuses the run.
fn connect_clients(
    clients: Option<&ClientsPlan>,
    plan: &Plan,
    mut problems: Vec<Check>,
) -> Result<(Option<Coordinator>, Vec<Check>), NotStarted> {
    let Some(clients) = clients else {
        return Ok((None, problems));
    };
    let (coordinator, rows) = match clients.connect(plan) {
        Ok(c) => {
            let rows = c.check_rows();
            (Some(c), rows)
        }
        Err(e) => (None, e.checks),
    };
    problems.extend(
        rows.into_iter()
            .filter(|c| matches!(c.status, CheckStatus::Warn | CheckStatus::Fail)),
    );
    problems.sort_by_key(|c| std::cmp::Reverse(c.status));
    match coordinator {
        Some(c) => Ok((Some(c), problems)),
        None => Err(NotStarted::Refused { problems }),
    }
}

impl Side {
    /// The engine on its thread, this thread folding its events and the samplers'.
    fn engine_loop(
        &mut self,
        plan: &Plan,
        engine: Engine,
        clients: Option<&Coordinator>,
        cancel: &CancelToken,
        on: &mut impl FnMut(RunEvent<'_>),
    ) -> (RunOutcome, Option<EngineError>) {
        let (tx, rx) = crossbeam_channel::unbounded();
        let sink = EventSink::new(tx);
        let mut client = ClientCpu::new();
        let mut last_client = Instant::now();
        let mut cancel_seen = false;
        std::thread::scope(|scope| {
            let thread = scope.spawn(|| match clients {
                Some(c) => c.run(plan, &sink, cancel),
                None => engine(plan, &sink, cancel),
            });
            loop {
                if let Ok(e) = rx.recv_timeout(POLL) {
                    self.engine_event(&e, on);
                }
                if let Some(m) = self.monitor.as_mut() {
                    for u in &m.poll() {
                        on(RunEvent::Sampler(u));
                    }
                }
                // The history stopped taking writes: said once; the policy may stop the
                // run as a cancel does (its steps are in the spill file).
                if let Some((note, stop)) = self.history.poll() {
                    on(RunEvent::History(note));
                    if stop {
                        cancel.cancel();
                    }
                }
                if cancel.is_cancelled() && !cancel_seen {
                    cancel_seen = true;
                    on(RunEvent::Cancelling);
                }
                if last_client.elapsed() >= Duration::from_secs(1) {
                    last_client = Instant::now();
                    if let Some(percent) = client.percent_of_machine() {
                        let unix_ms = dbdyno_history::time::now_ms();
                        on(RunEvent::ClientCpu { unix_ms, percent });
                    }
                }
                if thread.is_finished() && rx.is_empty() {
                    break;
                }
                on(RunEvent::Tick);
            }
            thread.join().unwrap_or_else(|_| {
                let e = EngineError::Internal("the engine thread panicked".into());
                (RunOutcome::default(), Some(e))
            })
        })
    }

    /// One engine event: to the consumer, to the history, to the samplers (which learn
    /// each step's window from it); a finished step's monitoring is checkpointed.
    fn engine_event(&mut self, e: &EngineEvent, on: &mut impl FnMut(RunEvent<'_>)) {
        on(RunEvent::Engine(e));
        if let Some(note) = self.history.record(e) {
            on(RunEvent::History(note));
        }
        let Some(m) = self.monitor.as_mut() else {
            return;
        };
        let polled = m.on_event(e, self.settle);
        for u in &polled.updates {
            on(RunEvent::Sampler(u));
        }
        if let Some(figures) = &polled.step {
            let os_down = m.os_down();
            on(RunEvent::StepServer { figures, os_down });
        }
        if let Some(checkpoint) = &polled.checkpoint {
            if let Some(s) = self.samples.as_mut() {
                s.add(checkpoint);
            }
            if let Some(note) = self.history.checkpoint(checkpoint) {
                on(RunEvent::History(note));
            }
        }
    }
}
