//! MySQL's side of a run: `SHOW GLOBAL STATUS` polled once a second on a connection of
//! its own ([`sampler`]), two polls turned into a [`MysqlSample`] ([`sample`]), over a
//! connection whose clock offset against this machine is measured at each connect
//! ([`conn`]).
//!
//! Non-goals: no facts or verdicts about the server (the checks crate reads variables,
//! privileges and tables), no aggregation per step ([`crate::timeline`]).

pub mod conn;
pub mod sample;
pub mod sampler;

pub use conn::MysqlClock;
pub use sample::{MysqlSample, RowCounters};
pub use sampler::{MysqlEvent, MysqlSampler, MysqlSamplerConfig, MysqlSamplerError};
