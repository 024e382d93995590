//! DB Dyno's engine: sysbench-compatible OLTP load against MySQL and MariaDB.
//!
//! Data flows one way through these modules:
//!
//! - [`plan`]: connection, dataset and the ordered phases, validated before anything runs;
//! - [`workload`]: the scenarios as data (statement text, transaction shapes, sysbench's
//!   random distributions);
//! - [`phases`]: prepare, prewarm and cleanup (the dataset's life cycle);
//! - [`exec`]: the measured steps: one OS thread per connection, per-worker statistics;
//! - [`stats`]: HDR histograms, interval records, steady-state detection, fairness;
//! - [`results`]: the plain records every consumer shares (sysbench's text layout of
//!   them, written and read back, is the `dbdyno-sysbench-text` crate).
//!
//! The engine talks out through an [`events::EventSink`] and listens to a
//! [`cancel::CancelToken`]; it never knows whether a terminal, a window or a test is
//! watching. It has no Tauri and no async runtime in it: see `exec` for why the hot
//! path is synchronous.
//!
//! Non-goals: scheduling several servers at once, PostgreSQL.

pub mod cancel;
pub mod clients;
pub mod driver;
pub mod error;
pub mod events;
pub mod exec;
pub mod ladder_text;
pub mod open_loop;
pub mod phases;
pub mod plan;
pub mod repeat;
pub mod results;
pub mod runner;
pub mod sla;
pub mod stats;
pub mod tpcc;
pub mod utc;
pub mod workload;

/// Counts in DB Dyno's own words; the module lives in `dbdyno-stats`, the lowest crate
/// that words a count, and is kept here so `dbdyno_engine::wording` still reaches it.
pub use dbdyno_stats::wording;

pub use cancel::CancelToken;
pub use error::{EngineError, MysqlError};
pub use events::{ConnectionsOpening, EngineEvent, EventSink, ServerSilence, SilenceState};
pub use phases::PrepareMode;
pub use plan::{
    ConnectOptions, LadderSpec, Phase, Plan, PlanError, RunSettings, StepErrorPolicy, StepPlan,
};
pub use repeat::{Repeat, MAX_REPEATS};
pub use results::{
    ClientLost, ClientStep, ConnectionsOpened, IntervalRecord, PrintedRates, StepResult,
};
pub use runner::{
    run_plan, run_plan_with, threads_label, FailedStep, RunOutcome, StepRunner, ThisMachine,
};
pub use sla::{SlaPhase, SlaTarget};
pub use workload::{Scenario, StatementClass, WorkloadOptions};
