//! One module per command; each turns parsed options into engine calls.

pub mod check;
pub mod execute;
pub mod import;
pub mod ladder;
pub mod monitor;
pub mod profile;
pub mod report;
pub mod runs;
pub mod workload;
