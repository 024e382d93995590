//! One client's share of a step ([`Share`]), why shares cannot be merged
//! ([`MergeError`]), and the two readings every merged figure makes of them: a share's
//! histogram decoded, and a latency summary exact from the shares' own min, max and sum.
//! A leaf of `merge`: the step's totals (`merge`) and the other figures (`figures`)
//! both build on it, and it imports neither.

use crate::exec::ShareHistograms;
use crate::results::{ClientLost, IntervalRecord, LatencySummary, QueryCounts, StepResult};
use crate::stats::{LatencyHistogram, StatsError};

/// One client's share of a step.
#[derive(Debug, Clone)]
pub struct Share {
    /// The client as the user named it (`local`, `ssh://user@host`).
    pub client: String,
    pub result: StepResult,
    /// Each of `result.intervals`' latency histograms (base64), in the same order.
    pub interval_histograms: Vec<String>,
    /// The histograms of `result.per_class` and of its TPC-C types.
    pub histograms: ShareHistograms,
    /// That client's clock minus this machine's, in ms.
    pub clock_offset_ms: f64,
    /// Set when the client was lost during the step: `result` then holds what its
    /// intervals said until then ([`Share::from_intervals`]).
    pub lost: Option<ClientLost>,
}

/// The shares could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no client returned a share of the step")]
    NoShares,
    #[error("the latency histogram of client {client} cannot be read: {source}")]
    Histogram {
        client: String,
        #[source]
        source: StatsError,
    },
}

impl Share {
    /// The share of a client lost mid-step, from the intervals that arrived before it
    /// went: counts are rate × duration, the histogram the sum of the intervals'.
    /// `template` is the step as planned for that client (scenario, threads, settings).
    pub fn from_intervals(
        client: String,
        template: &StepResult,
        records: Vec<IntervalRecord>,
        histograms: Vec<String>,
        clock_offset_ms: f64,
        lost: ClientLost,
    ) -> Result<Share, MergeError> {
        let mut latency = LatencyHistogram::new();
        for h in &histograms {
            latency.add(&decode(&client, h)?);
        }
        let count = |rate: fn(&IntervalRecord) -> f64| -> u64 {
            records
                .iter()
                .map(|r| (rate(r) * r.duration_s).round() as u64)
                .sum()
        };
        let transactions = count(|r| r.tps);
        let queries = QueryCounts {
            read: count(|r| r.reads_ps),
            write: count(|r| r.writes_ps),
            other: count(|r| r.other_ps),
        };
        let total_time_s = records.last().map_or(0.0, |r| r.elapsed_s);
        // The window its records cover, on the wall clock they carry.
        let (started_unix_ms, ended_unix_ms) = match (records.first(), records.last()) {
            (Some(first), Some(last)) => (
                first.end_unix_ms - (first.elapsed_s * 1000.0).round() as i64,
                last.end_unix_ms,
            ),
            _ => (template.started_unix_ms, template.ended_unix_ms),
        };
        let result = StepResult {
            started_unix_ms,
            ended_unix_ms,
            total_time_s,
            transactions,
            queries,
            ignored_errors: count(|r| r.errors_ps),
            reconnects: count(|r| r.reconnects_ps),
            latency_pct_ms: latency.value_at_percentile_ms(template.percentile),
            latency: latency.summary(),
            per_class: Vec::new(),
            histogram: latency.to_base64(),
            intervals: records,
            steady: None,
            confidence: None,
            ..template.clone()
        };
        Ok(Share {
            client,
            result,
            interval_histograms: histograms,
            histograms: ShareHistograms::default(),
            clock_offset_ms,
            lost: Some(lost),
        })
    }
}

pub(super) fn decode(client: &str, base64: &str) -> Result<LatencyHistogram, MergeError> {
    LatencyHistogram::from_base64(base64).map_err(|source| MergeError::Histogram {
        client: client.to_string(),
        source,
    })
}

/// The merged histogram's percentiles with the exact min, max and sum of the shares
/// (a histogram read back has them at bucket precision only).
pub(super) fn exact_summary(
    latency: &LatencyHistogram,
    shares: &[&LatencySummary],
) -> LatencySummary {
    let mut s = latency.summary();
    let counted: Vec<&LatencySummary> = shares.iter().copied().filter(|l| l.count > 0).collect();
    if counted.is_empty() || s.count == 0 {
        return s;
    }
    s.min_ms = counted
        .iter()
        .map(|l| l.min_ms)
        .fold(f64::INFINITY, f64::min);
    s.max_ms = counted.iter().map(|l| l.max_ms).fold(0.0, f64::max);
    s.sum_ms = counted.iter().map(|l| l.sum_ms).sum();
    s.avg_ms = s.sum_ms / s.count as f64;
    let cap = |p: Option<f64>| p.map(|v| v.min(s.max_ms));
    s.p50_ms = cap(s.p50_ms);
    s.p90_ms = cap(s.p90_ms);
    s.p95_ms = cap(s.p95_ms);
    s.p99_ms = cap(s.p99_ms);
    s.p999_ms = cap(s.p999_ms);
    s
}
