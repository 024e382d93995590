//! The document's top level: which tool and version wrote it, what ran, the plan and
//! its outcome, and what monitoring recorded.

use dbdyno_engine::{Plan, RunOutcome};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::Monitoring;

/// The layout's version (`schema_version`). A change that removes or renames a field
/// increases it; new fields may appear within a version (readers ignore fields they do
/// not know). Version 2: every measured step carries its `confidence`; version 1 lacks
/// what version 2 added (docs/json-schema.md), and both load.
pub const RESULTS_SCHEMA_VERSION: u32 = 2;

/// One run's results: `dbdyno run --json` / `dbdyno ladder --json`, and the body of the
/// spill file a run writes when the history cannot take it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ResultsDocument {
    pub schema_version: u32,
    /// Always "dbdyno".
    #[serde(default = "tool_name")]
    pub tool: String,
    /// The DB Dyno version that ran it.
    #[serde(default)]
    pub tool_version: Option<String>,
    /// What ran: "ladder", "oltp_read_write run".
    #[serde(default)]
    pub command: Option<String>,
    /// The command line as typed, secret values redacted (older documents lack it).
    #[serde(default)]
    pub command_line: Option<String>,
    pub plan: Plan,
    pub outcome: RunOutcome,
    /// Environment snapshot, per-step server figures and samples; null when the run
    /// was not monitored.
    #[serde(default)]
    pub monitoring: Option<Monitoring>,
}

fn tool_name() -> String {
    "dbdyno".to_string()
}

impl ResultsDocument {
    /// A finished (or, for a spill file, ongoing) run's document as this version writes it.
    pub fn new(
        command: &str,
        command_line: &str,
        plan: Plan,
        outcome: RunOutcome,
        monitoring: Option<Monitoring>,
    ) -> ResultsDocument {
        ResultsDocument {
            schema_version: RESULTS_SCHEMA_VERSION,
            tool: tool_name(),
            tool_version: Some(env!("CARGO_PKG_VERSION").to_string()),
            command: Some(command.to_string()),
            command_line: Some(command_line.to_string()),
            plan,
            outcome,
            monitoring,
        }
    }

    /// The command as typed when the document says, else "dbdyno" and the subcommand
    /// (older documents only name the subcommand).
    pub fn command_line_or_name(&self) -> Option<String> {
        self.command_line
            .clone()
            .or_else(|| self.command.as_ref().map(|c| format!("dbdyno {c}")))
    }
}
