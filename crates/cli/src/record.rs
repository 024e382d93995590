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
            HistoryWriter::start(&dir, new)
        })();
        match started {
            Ok(writer) => {
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
                Some(Recorder { writer, to_stderr })
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
