//! DB Dyno's run history: every run in one embedded SQLite database that the GUI, the
//! CLI and the reports share.
//!
//! - [`History::open`]: the one way in (CLI, app and tests), in a data directory
//!   ([`paths::default_data_dir`]); runs migrations, turns runs left "running" by a
//!   writer that is gone into "interrupted";
//! - [`History`]'s async methods: create a run, record steps (one transaction each),
//!   samples, warnings, the final state; list, load, delete;
//! - [`HistoryWriter`]: a blocking facade on its own thread for the synchronous CLI,
//!   fed with the engine's events;
//! - [`model`]: what is stored and read back ([`StoredRun`] is what reports read);
//! - [`import_sysbench`]: sysbench text output filed as runs (the CLI and the app);
//! - [`import_results`]: a results document (`--json`, or the spill file of a run the
//!   history could not take) filed as a run.
//!
//! SQLite runs in WAL mode with a busy timeout, so the app and a CLI run (or two CLI
//! runs) can write at once, and a kill -9 keeps every committed step.
//!
//! Non-goals: comparing runs (the report crate does), storing secrets (the types
//! stored here skip them; see docs/history.md), remote databases.

pub mod blocking;
pub mod clients;
pub mod command_line;
mod confidence;
mod db;
pub mod environment;
mod error;
pub mod hardware;
pub mod host_lock;
pub mod import_results;
pub mod import_sysbench;
pub mod model;
pub mod paths;
mod process;
mod read;
pub mod show;
pub mod time;
mod write;
mod writer;

#[cfg(test)]
mod tests;

pub use blocking::BlockingHistory;
pub use clients::ClientRow;
pub use db::{History, DB_FILE_NAME};
pub use error::HistoryError;
pub use model::{
    command_name, ImportedFile, NewRun, RunSource, RunState, RunSummary, StoredRun, StoredStep,
    StoredWarning,
};
pub use write::PhaseReport;
pub use writer::{HistoryWriter, WriterReport, FINISH_DEADLINE, WRITE_DEADLINE};
