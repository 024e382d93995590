//! The dataset's life cycle around the measured steps: prepare, prewarm, cleanup.
//!
//! Each phase is safe by construction: it touches only the benchmark tables
//! `sbtest1..N` of the plan, refuses to mix with tables of another shape, and never
//! drops a database.

mod cleanup;
mod prepare;
mod prewarm;
pub mod schema;

pub use cleanup::cleanup;
pub use prepare::prepare;
pub use prewarm::prewarm;

use serde::{Deserialize, Serialize};

/// What prepare did, for the CLI summary, the history and the benchmark docs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrepareReport {
    pub tables: u32,
    pub rows: u64,
    pub seconds: f64,
    pub rows_per_sec: f64,
    /// Seconds spent loading rows, and building secondary indexes after the load.
    pub load_seconds: f64,
    pub index_seconds: f64,
    pub threads: u32,
}

/// What prewarm did and the buffer pool hit rate it left behind.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrewarmReport {
    pub tables: u32,
    pub seconds: f64,
    /// Lifetime hit rate: 1 - Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests, in percent.
    pub hit_rate_pct: Option<f64>,
    /// Hit rate over the last one-second window when waiting for a threshold.
    pub window_hit_rate_pct: Option<f64>,
    pub reached_threshold: Option<bool>,
}
