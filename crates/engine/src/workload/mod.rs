//! The sysbench OLTP workloads, described as data.
//!
//! A workload is a [`Scenario`] plus [`WorkloadOptions`]; [`shape::TxnShape`] turns them
//! into the list of statement blocks one transaction executes, exactly as sysbench
//! 1.0.20's Lua scripts do (`/usr/share/sysbench/oltp_*.lua`). Workers never branch on
//! the scenario in their hot loop: they walk the shape.

mod options;
pub mod rand;
mod scenario;
pub mod shape;
pub mod sql;
pub mod values;

pub use options::{IgnoreErrors, PsMode, RandOptions, RandType, WorkloadOptions};
pub use scenario::{Scenario, StatementClass};
