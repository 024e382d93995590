//! sysbench 1.0.20's text layout: interval lines and the final summary, written and read back.
//!
//! Writing: [`format_header`], [`format_interval`] and [`format_summary`] print what
//! sysbench prints, column for column, so that the `grep "transactions:"` and awk
//! scripts people already have keep working on our output. Our own figures (more
//! percentiles, the steady window, per-statement latency, client CPU) come after the
//! sysbench part, under headings and labels that those scripts do not match.
//!
//! Reading: [`parse_sysbench_output`] imports old sysbench logs (1.0.x, and the 0.5
//! interval layout) into [`ParsedRun`]s that become [`StepResult`](dbdyno_engine::results::StepResult)s.
//!
//! The format strings come from sysbench 1.0.20's `src/sysbench.c`, `src/db_driver.c`
//! and `src/sb_histogram.c`; the fixtures under `fixtures/` are real outputs of Debian's
//! sysbench 1.0.20 against MariaDB 10.11.
//!
//! Non-goals: sysbench's non-OLTP tests (cpu, fileio, memory) beyond what their shared
//! lines give; JSON/CSV output (those are report formats of their own).

mod buckets;
mod error;
mod header;
mod interval;
mod numbers;
mod parse;
mod run;
mod summary;

#[cfg(test)]
mod fixture_tests;

pub use buckets::HistogramBucket;
pub use error::ParseError;
pub use header::format_header;
pub use interval::{format_interval, format_interval_queue};
pub use parse::parse_sysbench_output;
pub use run::{ParsedRun, PrintedLatency};
pub use summary::format_summary;
