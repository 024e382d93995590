//! Recording a run into the history while it runs: the glue between the CLI's event
//! loop and `dbdyno_history::HistoryWriter`. A history that cannot be written never
//! stops a benchmark: the user is told, and the run goes on.

use dbdyno_engine::{EngineError, EngineEvent, Plan, RunOutcome};
use dbdyno_history::{HistoryWriter, NewRun, RunState};
use dbdyno_profile::Profile;

use crate::args_history::HistoryOpts;

pub struct Recorder {
    writer: HistoryWriter,
    endpoint: String,
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

impl Recorder {
    /// Starts recording unless `--no-history`. Prints the run id.
    pub fn start(
        opts: &HistoryOpts,
        profile: Option<&Profile>,
        plan: &Plan,
        command: &str,
        to_stderr: bool,
    ) -> Option<Recorder> {
        if opts.no_history {
            return None;
        }
        let started = (|| {
            let dir = dbdyno_history::paths::resolve_data_dir(opts.data_dir.as_deref())?;
            let mut new = NewRun::new(env_name(opts, profile, plan), command).with_plan(plan)?;
            if let Some(p) = profile {
                new.labels = p.labels.clone();
                new.profile = serde_json::to_value(p).ok();
            } else {
                new.labels = opts.labels.clone();
            }
            new.environment = Some(dbdyno_history::environment::client_snapshot(
                &plan.connect.endpoint(),
            ));
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
                Some(Recorder {
                    writer,
                    endpoint: plan.connect.endpoint(),
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

    /// Stores what monitoring found (environment snapshot, per-step server figures) with
    /// the client snapshot, then the final state, and says how the recording went.
    pub fn finish(
        self,
        outcome: &RunOutcome,
        error: Option<&EngineError>,
        monitoring: Option<serde_json::Value>,
    ) {
        if let Some(m) = monitoring {
            let mut env = dbdyno_history::environment::client_snapshot(&self.endpoint);
            env["monitoring"] = m;
            self.writer.set_environment(env);
        }
        let (state, failure) = match (error, outcome.cancelled) {
            (Some(e), _) => (RunState::Failed, Some(e.to_string())),
            (None, true) => (RunState::Cancelled, None),
            (None, false) => (RunState::Complete, None),
        };
        let id = self.writer.run_id();
        let report = self.writer.finish(state, failure);
        let line = format!(
            "Run id: {id}: {} step(s) recorded, state {state}",
            report.steps_written
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
