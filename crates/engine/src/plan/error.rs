//! Why a plan must not run ([`PlanError`]), on its own so that the engine's errors can
//! carry it without importing the plan: a leaf, it imports only the scenario names and
//! the repeat limit its messages quote.

use crate::repeat::MAX_REPEATS;
use crate::workload::Scenario;

/// A plan that must not run, and why, in words a person can act on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    #[error("threads must be at least 1 (got {0})")]
    ZeroThreads(u32),
    #[error("--tables must be at least 1")]
    ZeroTables,
    #[error("--table-size must be at least 1 for {0} (it reads rows that prepare loads)")]
    ZeroTableSize(Scenario),
    #[error("{0} works on a single table (sysbench asserts --tables=1); got --tables={1}")]
    SingleTableOnly(Scenario, u32),
    #[error("a step needs --time or --events; both are 0")]
    NoStopCondition,
    #[error("--percentile must be between 1 and 100 (got {0})")]
    BadPercentile(f64),
    #[error("--rate must be a finite number of transactions per second ≥ 0 (got {0})")]
    BadRate(f64),
    #[error("--mysql-storage-engine '{0}' is not an engine name")]
    BadEngine(String),
    #[error("--range-size must be at least 1")]
    ZeroRangeSize,
    #[error("the plan has no steps: give at least one scenario and one thread count")]
    Empty,
    #[error("{field} must be between {min} and {max} (got {got})")]
    OutOfRange {
        field: &'static str,
        min: f64,
        max: f64,
        got: f64,
    },
    #[error("the database name must not be empty (--mysql-db)")]
    NoDatabase,
    #[error("bulk_insert uses its own (id, k) tables named like the OLTP ones: run it in a plan (and schema) of its own")]
    BulkMixed,
    #[error("--repeat must be between 1 and {MAX_REPEATS} runs of each step (got {0})")]
    BadRepeat(u32),
}
