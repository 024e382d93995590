//! The dataset's life cycle around the measured steps: prepare, prewarm, cleanup.
//!
//! Each phase is safe by construction: it touches only the benchmark tables
//! `sbtest1..N` of the plan (TPC-C's own tables for `tpcc`, [`crate::tpcc`]), refuses
//! to mix with tables of another shape, and never drops a database.

mod cleanup;
pub(crate) mod load_data;
pub mod mark;
pub mod mode;
mod oltp_load;
pub(crate) mod pool;
mod prepare;
mod prewarm;
pub mod schema;
pub mod verify;

pub use cleanup::cleanup;
pub use mode::PrepareMode;
pub use prepare::prepare;
pub use prewarm::prewarm;
pub use verify::{resume_oltp_tables, verify_oltp_tables, FoundTables, ResumeTables, ReusedTables};

use dbdyno_mysql::ConnectOptions;
use mysql::Conn;
use serde::{Deserialize, Serialize};

use crate::cancel::CancelToken;
use crate::error::EngineError;

/// Runs `work` once for each table 1..=tables, on up to `threads` connections that take
/// tables from a shared queue (prewarm and index builds). Stops taking tables on cancel;
/// returns the first error.
fn for_each_table<F>(
    connect: &ConnectOptions,
    tables: u32,
    threads: u32,
    cancel: &CancelToken,
    work: F,
) -> Result<(), EngineError>
where
    F: Fn(&mut Conn, u32) -> Result<(), EngineError> + Sync,
{
    pool::for_each_queued(connect, (1..=tables).collect(), threads, cancel, work)
}

/// What prepare did, for the CLI summary, the history and the benchmark docs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrepareReport {
    pub tables: u32,
    pub rows: u64,
    pub seconds: f64,
    pub rows_per_sec: f64,
    /// Seconds spent loading rows, and building secondary indexes after the load.
    pub load_seconds: f64,
    pub index_seconds: f64,
    pub threads: u32,
    /// The tables DB Dyno made earlier in the plan's shape, reused instead of loaded
    /// (nothing was loaded then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused: Option<ReusedTables>,
}

impl PrepareReport {
    /// Two prepares of one ladder (its OLTP tables, then TPC-C's) as one: the tables,
    /// rows and seconds of both, the rate over both.
    pub fn and(&self, other: &PrepareReport) -> PrepareReport {
        let seconds = self.seconds + other.seconds;
        let rows = self.rows + other.rows;
        PrepareReport {
            tables: self.tables + other.tables,
            rows,
            seconds,
            rows_per_sec: if seconds > 0.0 {
                rows as f64 / seconds
            } else {
                0.0
            },
            load_seconds: self.load_seconds + other.load_seconds,
            index_seconds: self.index_seconds + other.index_seconds,
            threads: self.threads.max(other.threads),
            reused: self.reused.clone().or_else(|| other.reused.clone()),
        }
    }
}

/// What prewarm did and the buffer pool hit rate it left behind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrewarmReport {
    pub tables: u32,
    pub seconds: f64,
    /// Lifetime hit rate: 1 - Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests, in percent.
    pub hit_rate_pct: Option<f64>,
    /// Hit rate over the last pass of the scans (status deltas around it).
    pub window_hit_rate_pct: Option<f64>,
    /// With a hit-rate gate: whether a pass reached it before the maximum wait.
    pub reached_threshold: Option<bool>,
    /// Passes of the scans made (more than one only with a gate; 0 in runs recorded
    /// before it was counted).
    #[serde(default)]
    pub passes: u32,
}
