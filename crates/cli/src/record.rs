//! Recording a run into the history while it runs: the glue between the CLI's event
//! loop and `dbdyno_history::HistoryWriter`. A history that cannot be written never
//! stops a benchmark: the user is told, and the run goes on.

use dbdyno_engine::{EngineError, EngineEvent, Plan, RunOutcome};
use dbdyno_history::{HistoryWriter, NewRun};
use dbdyno_profile::Profile;

use crate::args_history::HistoryOpts;
use crate::monitoring::MonitoringReport;

pub struct Recorder {
    writer: HistoryWriter,
    /// The history's directory: a run that never got going is deleted from it.
    dir: std::path::PathBuf,
    /// Print the run id on stderr (the sysbench form keeps stdout sysbench's).
    to_stderr: bool,
}

/// The environment name: `--env`, else the profile's name, else the server's host:port.
pub fn env_name(opts: &HistoryOpts, profile: Option<&Profile>, plan: &Plan) -> String {
    opts.env
        .clone()
        .or_else(|| profile.map(|p| p.name.clone()))
        .unwrap_or_else(|| plan.connect.endpoint())
}

/// The environment stored with the run: the server snapshot taken before it started
/// (version, variables, OS, data disk; monitored or not), completed with the client
/// machine's description.
fn environment_json(
    environment: Option<&dbdyno_checks::EnvironmentSnapshot>,
    plan: &Plan,
) -> serde_json::Value {
    let client = dbdyno_history::environment::client_snapshot(&plan.connect.endpoint());
    let Some(mut doc) = environment.and_then(|e| serde_json::to_value(e).ok()) else {
        return client;
    };
    for (key, extra) in client.as_object().into_iter().flatten() {
        match doc.get_mut(key.as_str()) {
            Some(serde_json::Value::Object(have)) => {
                for (k, v) in extra.as_object().into_iter().flatten() {
                    have.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            _ => doc[key.as_str()] = extra.clone(),
        }
    }
    doc
}

/// True when the run ended at its first connection: no phase ran, nothing changed.
fn nothing_ran(outcome: &RunOutcome, error: Option<&EngineError>) -> bool {
    matches!(error, Some(EngineError::Connect { .. }))
        && outcome.steps.is_empty()
        && outcome.prepare.is_none()
        && outcome.prewarm.is_none()
        && outcome.dropped_tables.is_empty()
}

impl Recorder {
    /// Starts recording unless `--no-history`. Prints the run id.
    pub fn start(
        opts: &HistoryOpts,
        profile: Option<&Profile>,
        plan: &Plan,
        command: &str,
        to_stderr: bool,
        environment: Option<&dbdyno_checks::EnvironmentSnapshot>,
    ) -> Option<Recorder> {
        if opts.no_history {
            return None;
        }
        let started = (|| {
            let dir = dbdyno_history::paths::resolve_data_dir(opts.data_dir.as_deref())?;
            let at = dir.clone();
            // The command line as typed (secrets redacted), so that a report can show how
            // the run was made; `command` ("ladder") when the process has no arguments.
            let line = crate::cmdline::current();
            let command = if line == "dbdyno" { command } else { &line };
            let mut new = NewRun::new(env_name(opts, profile, plan), command).with_plan(plan)?;
            if let Some(p) = profile {
                new.labels = p.labels.clone();
                new.profile = serde_json::to_value(p).ok();
            } else {
                new.labels = opts.labels.clone();
            }
            new.environment = Some(environment_json(environment, plan));
            HistoryWriter::start(&dir, new).map(|w| (w, at))
        })();
        match started {
            Ok((writer, dir)) => {
                let line = format!(
                    "Run id: {} (history: dbdyno runs show {})",
                    writer.run_id(),
                    writer.run_id()
                );
                if to_stderr {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
                Some(Recorder {
                    writer,
                    dir,
                    to_stderr,
                })
            }
            Err(e) => {
                eprintln!("WARNING: this run is not recorded in the history: {e} (--no-history silences this)");
                None
            }
        }
    }

    pub fn record(&self, e: &EngineEvent) {
        self.writer.record(e);
    }

    /// After a finished step: the monitoring record and samples so far, so that a run
    /// killed later keeps them.
    pub fn checkpoint(&self, monitoring: &MonitoringReport) {
        if let Some(why) = dbdyno_session::checkpoint(&self.writer, monitoring) {
            eprintln!("WARNING: {why}");
        }
    }

    pub fn run_id(&self) -> i64 {
        self.writer.run_id()
    }

    /// Stores what monitoring found (the `monitoring` record: the server's environment
    /// snapshot, per-step server figures, gaps, missing metrics; and every per-second
    /// sample), then the final state, and says how the recording went.
    pub fn finish(
        self,
        outcome: &RunOutcome,
        error: Option<&EngineError>,
        monitoring: Option<&MonitoringReport>,
    ) {
        let (state, _) = dbdyno_session::final_state(outcome, error);
        let report = dbdyno_session::finish_recording(self.writer, outcome, error, monitoring);
        if nothing_ran(outcome, error) {
            // The server was never reached: a failed run with no step would only clutter
            // the history, once per attempt. The error is on the terminal.
            let kept = dbdyno_history::BlockingHistory::open(&self.dir)
                .and_then(|h| h.delete_run(report.run_id));
            let line = match kept {
                Ok(()) => format!(
                    "Run id: {}: not kept in the history (the connection failed, nothing ran)",
                    report.run_id
                ),
                Err(e) => format!(
                    "Run id: {}: recorded as failed (could not remove it: {e})",
                    report.run_id
                ),
            };
            if self.to_stderr {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
            return;
        }
        let line = format!(
            "Run id: {}: {} step(s) recorded, state {state}",
            report.run_id, report.steps_written
        );
        if self.to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
        for e in &report.errors {
            eprintln!("WARNING: history: {e}");
        }
    }
}
