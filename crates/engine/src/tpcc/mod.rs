//! A TPC-C-like workload, compatible with Percona's sysbench-tpcc: the same schema, the
//! same five transactions in the same mix and the same random functions, so a dataset
//! prepared by either tool serves the other and the server sees the same statements.
//!
//! Layout: [`options`] (sysbench-tpcc's command-line options and defaults). The data
//! side (schema, parallel load, cleanup, consistency check) and the run side (random
//! functions, the transactions, the mix) live in their own modules. Data side:
//! [`schema`] (the tables as the reference creates them), [`load`] (prepare: the
//! units of `load_units`, or table by table as `load_tables` cuts them, written by
//! `rows`, on many connections), `dataset` (which tables are TPC-C's), [`mark`] and [`verify`] (which sets DB Dyno
//! loaded, and whether prepare reuses them), [`prewarm`] (every
//! index read into the buffer pool), [`cleanup`], [`check`] (tpcc_check.lua's checks).

pub mod args;
pub mod check;
pub mod cleanup;
mod dataset;
pub mod load;
mod load_tables;
mod load_units;
pub mod mark;
pub mod options;
pub mod prewarm;
pub mod random;
mod rows;
pub mod run;
pub mod schema;
pub mod txn;
pub mod verify;

pub use dataset::foreign_tables;
pub use options::{IsolationLevel, TpccOptions};
pub use run::{TpccResult, TpccTxnResult};
pub use txn::TxnKind;
pub use verify::verify_tpcc_tables;
