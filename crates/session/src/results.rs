//! The results document of one run (`dbdyno … --json`, schema in docs/json-schema.md):
//! versioned, self-describing, no secrets. A report reads it back as it reads a run
//! from the history.
//!
//! The spill file of a run the history cannot take (`run/spill.rs`) is the same
//! document, written as the run goes on, with a `record` object added.
//!
//! Non-goals: writing it anywhere (the CLI picks the file or stdout), reading it back
//! (the report crate and `dbdyno_history::import_results` do).

use dbdyno_engine::results::RESULTS_SCHEMA_VERSION;
use dbdyno_engine::{Plan, RunOutcome};
use dbdyno_history::SampleRow;

use crate::run::RunEnd;
use crate::run_monitor::MonitoringReport;

/// The per-second server (OS) and MySQL samples of a monitored run, in the history's
/// shape (`step_index`, `unix_ms`, `sample`).
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub server: Vec<serde_json::Value>,
    pub mysql: Vec<serde_json::Value>,
}

impl Samples {
    /// The rows `m` hands out (each row is handed out once: at a checkpoint or at the end).
    pub(crate) fn add(&mut self, m: &MonitoringReport) {
        let row = |r: &SampleRow| serde_json::json!({"step_index": r.step_index, "unix_ms": r.unix_ms, "sample": r.sample});
        self.server.extend(m.server_rows.iter().map(row));
        self.mysql.extend(m.mysql_rows.iter().map(row));
    }
}

/// The document of a finished run. `command`: what ran ("ladder", "oltp_read_write
/// run"); `command_line`: as typed, with secret values redacted (a report's appendix
/// shows it).
pub fn document(end: &RunEnd, command: &str, command_line: &str) -> serde_json::Value {
    let so_far = SoFar {
        plan: &end.plan,
        outcome: &end.outcome,
        monitoring: end.monitoring.as_ref(),
        samples: &end.samples,
    };
    so_far.document(command, command_line)
}

/// A run's results, finished or so far: what the document is made of (the spill file
/// writes it after every step while the run goes on).
pub(crate) struct SoFar<'a> {
    pub plan: &'a Plan,
    pub outcome: &'a RunOutcome,
    pub monitoring: Option<&'a MonitoringReport>,
    pub samples: &'a Samples,
}

impl SoFar<'_> {
    pub(crate) fn document(&self, command: &str, command_line: &str) -> serde_json::Value {
        // The monitoring record with its per-second samples, which a report's timeline
        // charts (server CPU and disk under the QPS line).
        let monitoring = self.monitoring.map(|m| {
            let mut v = serde_json::to_value(m).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("server_samples".into(), self.samples.server.clone().into());
                o.insert("mysql_samples".into(), self.samples.mysql.clone().into());
            }
            v
        });
        serde_json::json!({
            "schema_version": RESULTS_SCHEMA_VERSION,
            "tool": "dbdyno",
            "tool_version": env!("CARGO_PKG_VERSION"),
            "command": command,
            "command_line": command_line,
            "plan": self.plan,
            "outcome": self.outcome,
            // Environment snapshot and per-step server figures (null when not monitored).
            "monitoring": monitoring,
        })
    }
}
