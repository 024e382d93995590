//! The results document of one run (`dbdyno … --json`): the typed
//! [`dbdyno_results::ResultsDocument`] filled from what the run did (schema in
//! docs/json-schema.md and docs/results.schema.json): versioned, self-describing, no
//! secrets. A report reads it back as it reads a run from the history.
//!
//! The spill file of a run the history cannot take (`run/spill.rs`) is the same
//! document, written as the run goes on, with a `record` object added.
//!
//! Non-goals: writing it anywhere (the CLI picks the file or stdout), reading it back
//! (the report crate and `dbdyno_history::import_results` do).

use dbdyno_engine::{Plan, RunOutcome};
use dbdyno_monitor::{MysqlSample, ServerSample};
use dbdyno_results::{Monitoring, ResultsDocument, Sampled};

use crate::run::RunEnd;
use crate::run_monitor::MonitoringReport;

/// The per-second server (OS) and MySQL samples of a monitored run.
#[derive(Debug, Clone, Default)]
pub struct Samples {
    pub server: Vec<Sampled<ServerSample>>,
    pub mysql: Vec<Sampled<MysqlSample>>,
}

impl Samples {
    /// The rows `m` hands out (each row is handed out once: at a checkpoint or at the end).
    pub(crate) fn add(&mut self, m: &MonitoringReport) {
        self.server.extend(m.server_rows.iter().cloned());
        self.mysql.extend(m.mysql_rows.iter().cloned());
    }
}

/// The document of a finished run. `command`: what ran ("ladder", "oltp_read_write
/// run"); `command_line`: as typed, with secret values redacted (a report's appendix
/// shows it).
pub fn document(end: &RunEnd, command: &str, command_line: &str) -> ResultsDocument {
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
    pub(crate) fn document(&self, command: &str, command_line: &str) -> ResultsDocument {
        // The monitoring record with its per-second samples, which a report's timeline
        // charts (server CPU and disk under the QPS line).
        let monitoring = self.monitoring.map(|m| Monitoring {
            server_samples: self.samples.server.clone(),
            mysql_samples: self.samples.mysql.clone(),
            ..m.record.clone()
        });
        ResultsDocument::new(
            command,
            command_line,
            self.plan.clone(),
            self.outcome.clone(),
            monitoring,
        )
    }
}
