//! DB Dyno's view of the database server before a benchmark: what to verify before a
//! plan runs, and what the environment was.
//!
//! Data flows one way through these modules:
//!
//! - [`probe`] gathers facts once: over SQL ([`sql`]) and from the server's operating
//!   system ([`os_facts`], run through the monitor crate's [`dbdyno_monitor::host`]:
//!   over SSH, locally, or not at all);
//! - [`checks`] turns the facts and a [`dbdyno_engine::Plan`] into [`check::Check`]s
//!   (pure functions, unit-tested on synthetic facts); [`suite`] runs them and applies
//!   the fixes the app can apply;
//! - [`environment`] turns the same facts into the [`EnvironmentSnapshot`] stored with
//!   every run.
//!
//! Non-goals: no printing (the shells print), no storage (the history stores the
//! serializable records), no sampling during a run, no /proc parsing or SSH plumbing
//! (the monitor crate samples MySQL and the OS and aligns the samples to the steps).

pub mod check;
pub mod checks;
pub mod environment;
pub mod error;
pub mod os_facts;
pub mod probe;
pub mod sql;
pub mod suite;
pub mod text;

pub use check::{Check, CheckAction, CheckStatus, Fix};
pub use environment::{EnvironmentSnapshot, Missing};
pub use error::ChecksError;
pub use suite::{apply_action, run_suite, ActionOutcome, SuiteOptions, SuiteReport};
