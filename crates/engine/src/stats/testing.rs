//! Made-up per-second records for tests, here and in the crates that read a step's
//! intervals (the report), so that all of them test against the same series.
//!
//! Not behind `cfg(test)`, which other crates' tests cannot see, nor behind a feature:
//! a feature turned on by one crate's dev-dependencies would make every test build
//! compile the engine, and everything above it, a second time. Nothing else calls it,
//! so it costs the binaries nothing.

use super::Figures;
use crate::results::IntervalRecord;

/// Second `i` of a one-thread step at `tps`, 20 queries a transaction, `latency_ms` at
/// `percentile`.
pub fn record(i: usize, tps: f64, latency_ms: f64, percentile: f64) -> IntervalRecord {
    IntervalRecord {
        elapsed_s: (i + 1) as f64,
        duration_s: 1.0,
        threads: 1,
        tps,
        qps: tps * 20.0,
        latency_ms,
        percentile,
        ..Default::default()
    }
}

/// `n` seconds around `tps` with a ±`wobble` share of alternating noise (latency around
/// 2 ms moving the other way).
pub fn records(n: usize, tps: f64, wobble: f64, percentile: f64) -> Vec<IntervalRecord> {
    (0..n)
        .map(|i| {
            let s = if i % 2 == 0 { 1.0 } else { -1.0 } * ((i % 5) as f64 / 4.0);
            record(
                i,
                tps * (1.0 + wobble * s),
                2.0 * (1.0 - wobble * s),
                percentile,
            )
        })
        .collect()
}

/// Whole-step figures of such a step: `tps`, 20 queries a transaction, p95 2 ms and p99
/// 3 ms.
pub fn figures(tps: f64) -> Figures {
    Figures {
        tps,
        qps: tps * 20.0,
        p95_ms: Some(2.0),
        p99_ms: Some(3.0),
    }
}
