//! One measured step's window on this machine's clock, and which part of a sample's
//! interval falls inside it.
//!
//! Non-goals: no clock correction (the timeline puts samples on this machine's clock
//! before they meet a window).

use serde::{Deserialize, Serialize};

/// One measured step's wall-clock window (this machine's clock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepWindow {
    /// Index among the plan's steps, from 0.
    pub step: usize,
    /// "oltp_read_write @ 16 threads".
    pub label: String,
    pub started_unix_ms: i64,
    pub ended_unix_ms: i64,
}

impl StepWindow {
    pub fn duration_ms(&self) -> i64 {
        (self.ended_unix_ms - self.started_unix_ms).max(0)
    }

    pub(super) fn contains(&self, ms: f64) -> bool {
        ms >= self.started_unix_ms as f64 && ms < self.ended_unix_ms as f64
    }

    /// Seconds of the window inside the interval `[end_ms - interval_s, end_ms]`.
    pub(super) fn overlap_s(&self, end_ms: f64, interval_s: f64) -> f64 {
        let from = (end_ms - interval_s * 1000.0).max(self.started_unix_ms as f64);
        let to = end_ms.min(self.ended_unix_ms as f64);
        ((to - from) / 1000.0).max(0.0)
    }
}
