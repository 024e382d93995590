//! One module per command; each turns parsed options into engine calls.

pub mod agent;
pub mod check;
pub mod execute;
pub mod hardware_records;
pub mod hwtest;
pub mod hwtest_remote;
pub mod import;
pub mod ladder;
pub mod monitor;
pub mod profile;
pub mod report;
pub mod runs;
pub mod tpcc;
pub mod tpcc_check;
pub mod trend;
pub mod workload;
