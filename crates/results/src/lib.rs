//! The results of one run as typed values: what `dbdyno … --json` writes, what the
//! history stores and reads back, and what the report reads. One Rust type per part,
//! so that a field renamed on one side fails to compile on the other, not at run time.
//!
//! - [`ResultsDocument`]: the whole document (plan, outcome, monitoring).
//! - [`Monitoring`]: what the samplers recorded: environment snapshot, per-step server
//!   figures, gaps, missing metrics, and in `--json` the per-second samples
//!   ([`Sampled`]).
//! - [`schema`]: the JSON Schema derived from these types (committed as
//!   `docs/results.schema.json`; a test fails when the two drift apart).
//!
//! The parts are the engine's, the checks' and the monitor's own types (the plan, the
//! step results, the environment snapshot, the samples); this crate puts them together
//! and owns the document's layout and version.
//!
//! Non-goals: building the document from a run (`dbdyno_session::results`), storing it
//! (`dbdyno_history`), turning it into a report (`dbdyno_report::input`).

mod document;
mod monitoring;
pub mod schema;

pub use document::{ResultsDocument, RESULTS_SCHEMA_VERSION};
pub use monitoring::{Monitoring, Sampled};

// The parts' own types, for the crates that read the document without depending on
// the crates that make them.
pub use dbdyno_checks::{EnvironmentSnapshot, Missing};
pub use dbdyno_monitor::{MysqlSample, ServerSample, StepServerFigures};
