//! Statistics: HDR latency histograms, steady-state detection, thread fairness.
//!
//! - [`LatencyHistogram`]: per-worker transaction latency in microseconds, merged at the
//!   end of a step and stored with it (HdrHistogram V2 + DEFLATE, base64) so that any
//!   percentile can be recomputed later;
//! - [`fairness`]: sysbench's "Threads fairness" figures;
//! - [`find_steady_window`]: the part of a step after a cold start or warm-up, found
//!   from the interval series;
//! - [`StepConfidence`]: the 95% intervals of a step's TPS, QPS, p95 and p99
//!   ([`StepIntervals`], what a report compares), its coefficient of variation and
//!   whether it settled, stored with the step.
//!
//! Non-goals: collecting the figures (that is `exec`), printing them (that is
//! `dbdyno-sysbench-text` and the report crates).

mod confidence;
mod fairness;
mod histogram;
mod steady;
#[doc(hidden)]
pub mod testing;

pub use confidence::{Figures, Spread, StepConfidence, StepIntervals};

pub use fairness::fairness;
pub use histogram::LatencyHistogram;
pub use steady::find_steady_window;

/// A stored histogram could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    #[error("stored latency histogram is not valid base64 ({0}); the result file may be truncated or edited")]
    Base64(#[from] base64::DecodeError),

    #[error("stored latency histogram is not an HdrHistogram V2 (DEFLATE) payload: {0}; the result file may be truncated or come from another tool")]
    Decode(hdrhistogram::serialization::DeserializeError),
}
