//! A run's record in the history, as the run sees it: opened before the engine starts,
//! fed every event, checkpointed after each step, finished with the monitoring record
//! and the final state.
//!
//! Nothing measured is lost to the history's disk (docs/history.md, "What is never
//! lost"): once a write fails or outlasts its deadline (a full disk, a read-only file
//! system, a lock held too long), every step from the first on goes to the spill file
//! (`spill.rs`) as it ends, and the run goes on measuring (or stops, as asked). A
//! history that cannot be written at the start refuses the run before any load, unless
//! the spill directory (`--spill-dir`) takes the results instead.
//!
//! Non-goals: the writing itself ([`HistoryWriter`]), what a checkpoint and the end
//! store ([`crate::record`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use dbdyno_checks::{Check, CheckStatus, EnvironmentSnapshot};
use dbdyno_engine::{EngineError, EngineEvent, FailedStep, Plan, RunOutcome};
use dbdyno_history::import_results::{ResultsFile, SpillRecord};
use dbdyno_history::{BlockingHistory, HistoryWriter, NewRun, RunState, WriterReport};

use super::spill::Spill;
use crate::record;
use crate::results::{Samples, SoFar};
use crate::run_monitor::MonitoringReport;

/// The check row of the history's directory (also `dbdyno_checks::checks::history_dir`).
pub const CHECK_ID: &str = dbdyno_checks::checks::history_dir::CHECK_ID;

/// How long the end of a run waits for the history to store what is queued before it
/// takes the run as not fully recorded.
const END_SYNC: Duration = dbdyno_history::WRITE_DEADLINE;

/// Where and how a run is recorded.
#[derive(Debug, Clone)]
pub struct HistoryTarget {
    /// The history's directory; None: the user's (`DBDYNO_DATA_DIR`, else the user data
    /// directory).
    pub data_dir: Option<PathBuf>,
    /// The environment the run is filed under.
    pub environment: String,
    /// How the run was made: the command line as typed, secrets redacted.
    pub command_line: String,
    pub labels: Vec<String>,
    /// The profile the run came from, stored with it.
    pub profile: Option<dbdyno_profile::Profile>,
    /// Delete the record at the end when the run never reached the server (its first
    /// connection failed, nothing ran): in the CLI a failed run with no step would only
    /// clutter the history, once per attempt.
    pub forget_unreached: bool,
}

impl HistoryTarget {
    /// The record of a run of `profile` (with the shell's choices laid over it): filed
    /// under the profile's name, else the server's host:port; with the profile's labels;
    /// the profile itself stored with the run when it came from a file.
    pub fn of_profile(
        profile: &dbdyno_profile::Profile,
        from_file: bool,
        plan: &dbdyno_engine::Plan,
        command_line: String,
        data_dir: Option<PathBuf>,
    ) -> HistoryTarget {
        HistoryTarget {
            data_dir,
            environment: environment_name(profile, plan),
            command_line,
            labels: profile.labels.clone(),
            profile: from_file.then(|| profile.clone()),
            forget_unreached: false,
        }
    }
}

/// The name a run goes by (in the history, the metrics' labels): the profile's, else
/// the server's endpoint.
pub fn environment_name(profile: &dbdyno_profile::Profile, plan: &dbdyno_engine::Plan) -> String {
    if profile.name.is_empty() {
        plan.connect.endpoint()
    } else {
        profile.name.clone()
    }
}

/// What a run does when its history stops taking writes mid-run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnHistoryError {
    /// Go on measuring; every step goes to the spill file (the default: an hour of
    /// benchmark is worth more than the history's tidiness).
    #[default]
    Continue,
    /// Stop the run as a cancel does (finished steps are kept in the spill file).
    Stop,
}

/// How a run keeps its results when the history cannot take them.
#[derive(Debug, Clone, Default)]
pub struct HistoryFaults {
    /// `--spill-dir`: the first place for the spill file (then beside the history, then
    /// the temporary directory). When the history cannot be written at the start, a run
    /// starts only when this directory takes the results.
    pub spill_dir: Option<PathBuf>,
    pub on_error: OnHistoryError,
}

/// What happened to the history record while the run went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryNote {
    /// Said before the engine starts: the run is recorded under this id.
    Recording { run_id: i64 },
    /// Said before the engine starts: the history could not be written; the results go
    /// to the spill file named in the text.
    NotRecorded(String),
    /// Something could not be stored (the run goes on): a finished step's monitoring,
    /// or the history stopped taking writes and the steps go to the spill file.
    NotStored(String),
}

/// The record at the end of the run.
#[derive(Debug)]
pub enum Recorded {
    /// Stored in `state`; `report.errors` says what could not be written.
    Stored {
        report: WriterReport,
        state: RunState,
    },
    /// The run never reached the server and its record was deleted, as asked.
    Forgotten { run_id: i64 },
    /// As `Forgotten`, but the deletion failed: the record stays, failed.
    NotForgotten { run_id: i64, why: String },
}

impl Recorded {
    pub fn run_id(&self) -> i64 {
        match self {
            Recorded::Stored { report, .. } => report.run_id,
            Recorded::Forgotten { run_id } | Recorded::NotForgotten { run_id, .. } => *run_id,
        }
    }
}

/// A run whose results are not (all) in the history, and where they are instead.
#[derive(Debug, Clone, PartialEq)]
pub struct Spilled {
    /// Why the history does not hold the whole run.
    pub why: String,
    /// The spill file with every measured step; None when no place took it.
    pub path: Option<PathBuf>,
    /// Why no place took the spill file (when `path` is None).
    pub not_written: Option<String>,
    /// The measured steps the spill file holds.
    pub steps: usize,
    /// The run's partial record in the history, if one was created.
    pub history_run_id: Option<i64>,
}

pub(super) enum Recording {
    Off,
    On(Box<Recorder>),
}

/// A run being recorded: to the history while it takes the writes, and from the first
/// failure on to the spill file too.
pub(super) struct Recorder {
    /// None: the history could not be written at the start (the spill file only).
    writer: Option<HistoryWriter>,
    dir: Option<PathBuf>,
    forget_unreached: bool,
    on_error: OnHistoryError,
    spill: Spill,
    /// Why the history does not hold the run, once known: from then on every finished
    /// step rewrites the spill file.
    spilling: Option<String>,
    /// The spill file's last write failed everywhere (said once).
    spill_error: Option<String>,
    plan: Plan,
    command_line: String,
    record: SpillRecord,
    outcome: RunOutcome,
    monitoring: Option<MonitoringReport>,
    samples: Samples,
}

impl Recording {
    /// Opens the run's record, with the environment snapshot taken before it started
    /// (when the facts were gathered). Err: the history cannot be written and the spill
    /// directory (when given) cannot take the results either: the check row that
    /// refuses the run, before any load.
    pub(super) fn open(
        target: Option<HistoryTarget>,
        faults: &HistoryFaults,
        plan: &Plan,
        environment: Option<&EnvironmentSnapshot>,
    ) -> Result<Recording, Box<Check>> {
        let Some(t) = target else {
            return Ok(Recording::Off);
        };
        let started_at_ms = dbdyno_history::time::now_ms();
        let environment_json = record::environment_json(environment, plan);
        let dir = dbdyno_history::paths::resolve_data_dir(t.data_dir.as_deref());
        let opened = (|| {
            let dir = dir.as_ref().map_err(|e| e.to_string())?;
            let mut new =
                NewRun::new(t.environment.clone(), t.command_line.clone()).with_plan(plan);
            new.labels = t.labels.clone();
            new.profile = t.profile.clone();
            new.environment = Some(environment_json.clone());
            new.started_at_ms = Some(started_at_ms);
            HistoryWriter::start(dir, new).map_err(|e| e.to_string())
        })();
        let history_dir = dir.as_ref().ok().map(PathBuf::as_path);
        let mut r = Recorder {
            writer: None,
            dir: dir.as_ref().ok().cloned(),
            forget_unreached: t.forget_unreached,
            on_error: faults.on_error,
            spill: Spill::new(
                faults.spill_dir.as_deref(),
                history_dir,
                &t.environment,
                started_at_ms,
            ),
            spilling: None,
            spill_error: None,
            plan: plan.clone(),
            record: SpillRecord {
                env: t.environment,
                labels: t.labels,
                profile: t.profile,
                environment: Some(environment_json),
                started_at_ms,
                ended_at_ms: None,
                state: RunState::Running,
                failure: None,
                history_run_id: None,
                why: String::new(),
            },
            command_line: t.command_line,
            outcome: RunOutcome::default(),
            monitoring: None,
            samples: Samples::default(),
        };
        match opened {
            Ok(writer) => {
                r.record.history_run_id = Some(writer.run_id());
                r.writer = Some(writer);
                Ok(Recording::On(Box::new(r)))
            }
            // Only the directory the user named lets a run start without its history:
            // the fallbacks are for a disk that fills later, not a reason to run
            // unrecorded by default.
            Err(why) => match faults.spill_dir.as_deref() {
                Some(given) => {
                    r.spilling = Some(why.clone());
                    r.record.why = why.clone();
                    // Only the given place at the start; the fallbacks stay for later.
                    r.spill = Spill::only(given, &r.record.env, started_at_ms);
                    let taken = r.write_spill(false).is_ok();
                    r.spill = r.spill.then_fallbacks(history_dir);
                    if taken {
                        Ok(Recording::On(Box::new(r)))
                    } else {
                        let e = r.spill_error.clone();
                        Err(Box::new(not_writable(&why, Some(given), e.as_deref())))
                    }
                }
                None => Err(Box::new(not_writable(&why, None, None))),
            },
        }
    }

    pub(super) fn run_id(&self) -> Option<i64> {
        match self {
            Recording::On(r) => r.writer.as_ref().map(HistoryWriter::run_id),
            Recording::Off => None,
        }
    }

    /// What to say before the engine starts.
    pub(super) fn opening_note(&self) -> Option<HistoryNote> {
        match self {
            Recording::Off => None,
            Recording::On(r) => Some(match (&r.writer, r.spill.path()) {
                (Some(w), _) => HistoryNote::Recording { run_id: w.run_id() },
                (None, path) => HistoryNote::NotRecorded(format!(
                    "{}; its results go to {} as each step ends",
                    r.spilling
                        .as_deref()
                        .unwrap_or("the history cannot be written"),
                    path.map_or_else(|| "the spill file".to_string(), |p| p.display().to_string())
                )),
            }),
        }
    }

    /// Hands `e` to the history and keeps it for the spill file; a finished step goes
    /// to the spill file at once when the history no longer takes the run.
    pub(super) fn record(&mut self, e: &EngineEvent) -> Option<HistoryNote> {
        let Recording::On(r) = self else {
            return None;
        };
        if let Some(w) = &r.writer {
            w.record(e);
        }
        match e {
            EngineEvent::PrepareFinished(p) => r.outcome.prepare = Some(p.clone()),
            EngineEvent::PrewarmFinished(p) => r.outcome.prewarm = Some(p.clone()),
            EngineEvent::StepFinished { result, .. } => r.outcome.steps.push((**result).clone()),
            EngineEvent::StepFailed { label, error, .. } => {
                r.outcome.failed_steps.push(FailedStep {
                    label: label.clone(),
                    error: error.clone(),
                })
            }
            _ => return None,
        }
        if r.spilling.is_some() {
            return r.write_spill(true).err().map(HistoryNote::NotStored);
        }
        None
    }

    /// Whether the history stopped taking the run since the last call: said once, with
    /// where the results go from now on. `true` in the pair: the policy says stop.
    pub(super) fn poll(&mut self) -> Option<(HistoryNote, bool)> {
        let Recording::On(r) = self else {
            return None;
        };
        if r.spilling.is_some() {
            return None;
        }
        let why = r.writer.as_ref()?.failure()?;
        r.spilling = Some(why.clone());
        r.record.why = why.clone();
        let text = match r.write_spill(false) {
            Ok(path) => format!(
                "the history stopped taking this run's writes ({why}); every measured step goes to {} as it ends",
                path.display()
            ),
            Err(e) => format!("the history stopped taking this run's writes ({why}); {e}"),
        };
        Some((
            HistoryNote::NotStored(text),
            r.on_error == OnHistoryError::Stop,
        ))
    }

    pub(super) fn checkpoint(&mut self, monitoring: &MonitoringReport) -> Option<HistoryNote> {
        let Recording::On(r) = self else {
            return None;
        };
        r.samples.add(monitoring);
        r.monitoring = Some(monitoring.clone());
        let note = r
            .writer
            .as_ref()
            .and_then(|w| record::checkpoint(w, monitoring));
        if r.spilling.is_some() {
            // The step's server figures arrive after its results: the file gets them.
            if let Err(e) = r.write_spill(true) {
                return Some(HistoryNote::NotStored(e));
            }
        }
        note.map(HistoryNote::NotStored)
    }

    /// Stores what monitoring found and the final state; deletes the record of a run
    /// that never reached the server when the target asked for that. A run the history
    /// did not fully take ends with its whole results in the spill file.
    pub(super) fn finish(
        self,
        outcome: &RunOutcome,
        error: Option<&EngineError>,
        monitoring: Option<&MonitoringReport>,
    ) -> (Option<Recorded>, Option<Spilled>) {
        let Recording::On(mut r) = self else {
            return (None, None);
        };
        let (state, failure) = record::final_state(outcome, error);
        let mut not_stored = None;
        if let Some(w) = &r.writer {
            not_stored = record::store_end(w, monitoring);
            // Everything queued is written before the state is set: a write that fails
            // now still sends the run to the spill file.
            let _ = w.sync(END_SYNC);
            if r.spilling.is_none() {
                r.spilling = w.failure();
            }
        }
        let forget = r.forget_unreached && record::nothing_ran(outcome, error);
        let spilled = match r.spilling.clone() {
            Some(why) if !forget => {
                r.outcome = outcome.clone();
                if let Some(m) = monitoring {
                    r.samples.add(m);
                    r.monitoring = Some(m.clone());
                }
                r.record.why = why.clone();
                r.record.state = state;
                r.record.failure = failure.clone();
                r.record.ended_at_ms = Some(dbdyno_history::time::now_ms());
                let written = r.write_spill(false).map(Path::to_path_buf);
                Some(Spilled {
                    why,
                    path: written.as_ref().ok().cloned(),
                    not_written: written.err(),
                    steps: outcome.steps.len(),
                    history_run_id: r.record.history_run_id,
                })
            }
            _ => None,
        };
        let Some(writer) = r.writer.take() else {
            return (None, spilled);
        };
        let report = match &spilled {
            None => {
                let mut report = writer.finish(state, failure);
                report.errors.extend(not_stored);
                report
            }
            // The record says it is short and where the rest is: `runs show` tells
            // whoever finds it.
            Some(s) => writer.finish(
                RunState::Interrupted,
                Some(match &s.path {
                    Some(p) => format!(
                        "not fully recorded: {}; the whole run ({}) is in {} (`dbdyno import results {}` brings it in)",
                        s.why,
                        dbdyno_engine::wording::count(s.steps as u32, "step"),
                        p.display(),
                        p.display()
                    ),
                    None => format!("not fully recorded: {}", s.why),
                }),
            ),
        };
        if !forget {
            return (Some(Recorded::Stored { report, state }), spilled);
        }
        let run_id = report.run_id;
        let Some(dir) = r.dir.as_deref() else {
            return (Some(Recorded::Stored { report, state }), spilled);
        };
        let recorded = match BlockingHistory::open(dir).and_then(|h| h.delete_run(run_id)) {
            Ok(()) => Recorded::Forgotten { run_id },
            Err(e) => Recorded::NotForgotten {
                run_id,
                why: e.to_string(),
            },
        };
        (Some(recorded), spilled)
    }
}

impl Recorder {
    /// The results so far (or final) into the spill file. Err, said once: no place took
    /// it (`quiet`: an error already said is not said again).
    fn write_spill(&mut self, quiet: bool) -> Result<&Path, String> {
        let so_far = SoFar {
            plan: &self.plan,
            outcome: &self.outcome,
            monitoring: self.monitoring.as_ref(),
            samples: &self.samples,
        };
        let doc = ResultsFile {
            document: so_far.document(
                &dbdyno_history::command_name(&self.command_line),
                &self.command_line,
            ),
            record: Some(self.record.clone()),
        };
        match self.spill.write(&doc) {
            Ok(_) => {
                self.spill_error = None;
                Ok(self.spill.path().unwrap_or(Path::new("")))
            }
            Err(e) => {
                let again = self.spill_error.as_deref() == Some(e.as_str());
                self.spill_error = Some(e.clone());
                if quiet && again {
                    Ok(Path::new(""))
                } else {
                    Err(e)
                }
            }
        }
    }
}

/// The history directory's check row for `plan` (None: no directory to look at, which
/// opening the record then says).
pub(super) fn dir_check(t: &HistoryTarget, faults: &HistoryFaults, plan: &Plan) -> Option<Check> {
    history_dir_row(t.data_dir.as_deref(), faults.spill_dir.as_deref(), plan)
}

/// The check row of the history's directory (`data_dir`, else the user's) for `plan`,
/// probed on this machine: writable, and room for what the plan stores. `dbdyno check`
/// shows it; a run judges it before any load.
pub fn history_dir_row(
    data_dir: Option<&Path>,
    spill_dir: Option<&Path>,
    plan: &Plan,
) -> Option<Check> {
    use dbdyno_checks::checks::history_dir::{check, planned_bytes, HistoryDirFacts};
    let dir = dbdyno_history::paths::resolve_data_dir(data_dir).ok()?;
    let (writable, avail_bytes) = dbdyno_history::paths::probe_dir(&dir);
    let facts = HistoryDirFacts {
        dir,
        writable,
        avail_bytes,
    };
    Some(check(&facts, planned_bytes(plan), spill_dir))
}

/// The check row of a history that cannot be written at the start: the run is refused
/// before any load, with the fixes.
fn not_writable(why: &str, spill_dir: Option<&Path>, spill_error: Option<&str>) -> Check {
    let seen = match (spill_dir, spill_error) {
        (Some(d), Some(e)) => format!(
            "the history cannot be written: {why}; and the spill directory {} cannot take the results either: {e}",
            d.display()
        ),
        _ => format!("the history cannot be written: {why}"),
    };
    Check::new(
        CHECK_ID,
        "History directory writable",
        CheckStatus::Fail,
        seen,
        "a run the history cannot take would be measured and then lost; nothing was sent to the server",
    )
    .with_fix(
        "free space on the history's disk or make it writable; or give --data-dir=DIR elsewhere, \
         --spill-dir=DIR to keep the results in a file (`dbdyno import results FILE` later), or --no-history",
        None,
    )
}
