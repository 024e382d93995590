//! A run's record in the history, as the run sees it: opened before the engine starts,
//! fed every event, checkpointed after each step, finished with the monitoring record
//! and the final state. Whatever fails here is said, never fatal.
//!
//! Non-goals: the writing itself ([`HistoryWriter`]), what a checkpoint and the end
//! store ([`crate::record`]).

use std::path::PathBuf;

use dbdyno_checks::EnvironmentSnapshot;
use dbdyno_engine::{EngineError, EngineEvent, Plan, RunOutcome};
use dbdyno_history::{BlockingHistory, HistoryWriter, NewRun, RunState, WriterReport};

use crate::record;
use crate::run_monitor::MonitoringReport;

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
    pub profile: Option<serde_json::Value>,
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
            environment: if profile.name.is_empty() {
                plan.connect.endpoint()
            } else {
                profile.name.clone()
            },
            command_line,
            labels: profile.labels.clone(),
            profile: from_file
                .then(|| serde_json::to_value(profile).ok())
                .flatten(),
            forget_unreached: false,
        }
    }
}

/// What happened to the history record while the run went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryNote {
    /// Said before the engine starts: the run is recorded under this id.
    Recording { run_id: i64 },
    /// Said before the engine starts: the history could not be opened; the run goes on.
    NotRecorded(String),
    /// A finished step's monitoring could not be stored (the run goes on).
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

pub(super) enum Recording {
    Off,
    /// The history could not be opened (said once the run is driven).
    Failed(String),
    On {
        writer: HistoryWriter,
        dir: PathBuf,
        forget_unreached: bool,
    },
}

impl Recording {
    /// Opens the run's record, with the environment snapshot taken before it started
    /// (when the facts were gathered).
    pub(super) fn open(
        target: Option<HistoryTarget>,
        plan: &Plan,
        environment: Option<&EnvironmentSnapshot>,
    ) -> Recording {
        let Some(t) = target else {
            return Recording::Off;
        };
        let opened = (|| {
            let dir = dbdyno_history::paths::resolve_data_dir(t.data_dir.as_deref())?;
            let mut new = NewRun::new(t.environment, t.command_line).with_plan(plan)?;
            new.labels = t.labels;
            new.profile = t.profile;
            new.environment = Some(record::environment_json(environment, plan));
            HistoryWriter::start(&dir, new).map(|w| (w, dir))
        })();
        match opened {
            Ok((writer, dir)) => Recording::On {
                writer,
                dir,
                forget_unreached: t.forget_unreached,
            },
            Err(e) => Recording::Failed(e.to_string()),
        }
    }

    pub(super) fn run_id(&self) -> Option<i64> {
        match self {
            Recording::On { writer, .. } => Some(writer.run_id()),
            _ => None,
        }
    }

    /// What to say before the engine starts.
    pub(super) fn opening_note(&self) -> Option<HistoryNote> {
        match self {
            Recording::Off => None,
            Recording::Failed(e) => Some(HistoryNote::NotRecorded(e.clone())),
            Recording::On { writer, .. } => Some(HistoryNote::Recording {
                run_id: writer.run_id(),
            }),
        }
    }

    pub(super) fn record(&self, e: &EngineEvent) {
        if let Recording::On { writer, .. } = self {
            writer.record(e);
        }
    }

    pub(super) fn checkpoint(&self, monitoring: &MonitoringReport) -> Option<HistoryNote> {
        match self {
            Recording::On { writer, .. } => {
                record::checkpoint(writer, monitoring).map(HistoryNote::NotStored)
            }
            _ => None,
        }
    }

    /// Stores what monitoring found and the final state; deletes the record of a run
    /// that never reached the server when the target asked for that.
    pub(super) fn finish(
        self,
        outcome: &RunOutcome,
        error: Option<&EngineError>,
        monitoring: Option<&MonitoringReport>,
    ) -> Option<Recorded> {
        let Recording::On {
            writer,
            dir,
            forget_unreached,
        } = self
        else {
            return None;
        };
        let (state, _) = record::final_state(outcome, error);
        let report = record::finish_recording(writer, outcome, error, monitoring);
        if !(forget_unreached && record::nothing_ran(outcome, error)) {
            return Some(Recorded::Stored { report, state });
        }
        let run_id = report.run_id;
        Some(
            match BlockingHistory::open(&dir).and_then(|h| h.delete_run(run_id)) {
                Ok(()) => Recorded::Forgotten { run_id },
                Err(e) => Recorded::NotForgotten {
                    run_id,
                    why: e.to_string(),
                },
            },
        )
    }
}
