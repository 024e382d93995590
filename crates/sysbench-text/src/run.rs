//! One run read back from a sysbench log, and how it becomes a [`StepResult`].

use super::buckets::{self, HistogramBucket};
use dbdyno_engine::results::{
    per_sec, Fairness, IntervalRecord, LatencySummary, PrintedRates, QueryCounts, StepResult,
};
use dbdyno_engine::stats::find_steady_window;
use dbdyno_engine::workload::Scenario;

/// sysbench's "Latency (ms):" block as printed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrintedLatency {
    pub min_ms: f64,
    pub avg_ms: f64,
    pub max_ms: f64,
    /// The `--percentile` figure (`95th percentile:`); None when not printed or
    /// "percentile stats: disabled".
    pub percentile_ms: Option<f64>,
    pub sum_ms: f64,
}

/// One run read from a sysbench log. Figures are exactly as printed; what the log does
/// not show is 0, empty or None.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedRun {
    /// Line (from 1) where the run's text begins.
    pub first_line: usize,
    /// "1.0.20" from "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)".
    pub sysbench_version: Option<String>,
    /// The whole version line, whichever tool wrote it ("dbdyno 0.1.0 (...)" for ours).
    pub version_line: Option<String>,
    /// "Number of threads:", else the interval lines' `thds:`, else events / events avg
    /// from the fairness block; 0 when none of these is printed.
    pub threads: u32,
    pub report_interval_s: Option<u64>,
    /// "Target transaction rate: N/sec" (`--rate`).
    pub rate: Option<f64>,
    /// "Initializing random number generator from seed (N)." (`--rand-seed`).
    pub seed: Option<u64>,
    /// The latency percentile of the summary, else of the interval lines; 95 (sysbench's
    /// default) when neither prints one, 0 when the summary says "disabled".
    pub percentile: f64,
    pub intervals: Vec<IntervalRecord>,
    /// "queries performed:" read/write/other.
    pub queries: QueryCounts,
    /// "queries performed:" total (printed; normally read + write + other).
    pub queries_total: u64,
    pub transactions: u64,
    pub transactions_per_sec: f64,
    /// The per-second figure of the "queries:" line (QPS).
    pub queries_per_sec: f64,
    pub ignored_errors: u64,
    pub ignored_errors_per_sec: f64,
    pub reconnects: u64,
    pub reconnects_per_sec: f64,
    /// "total time:" (or "time elapsed:" in some 1.0 builds) in seconds.
    pub total_time_s: f64,
    /// "total number of events:".
    pub events: u64,
    pub latency: PrintedLatency,
    pub fairness: Fairness,
    /// The `--histogram` block's rows, lowest value first.
    pub histogram: Vec<HistogramBucket>,
    /// (percentile, ms) from the "Latency percentiles (ms):" block that dbdyno prints.
    pub extra_percentiles: Vec<(f64, f64)>,
    /// True when the run's summary was found (not just interval lines of a killed run).
    pub complete: bool,
}

impl ParsedRun {
    /// The run as a [`StepResult`] of `scenario` (logs rarely name their script).
    ///
    /// Filled from what was printed: totals, the printed percentile (also as p50/p90/
    /// p95/p99/p99.9 when it is one of those), intervals, fairness. With a `--histogram`
    /// block the other percentiles are computed from its buckets by sysbench's own rule
    /// and the histogram is stored (at sysbench's bucket resolution); the steady window
    /// is computed from the intervals. The summary's per-second rates are kept as printed
    /// ([`StepResult::printed`]). Times, warm-up, per-class latency and client CPU
    /// are unknown and stay 0 / empty.
    pub fn to_step_result(&self, scenario: Scenario) -> StepResult {
        // Non-OLTP tests print events but no "transactions:" line.
        let transactions = if self.transactions > 0 {
            self.transactions
        } else {
            self.events
        };
        let tps = if self.transactions_per_sec > 0.0 {
            self.transactions_per_sec
        } else {
            per_sec(transactions, self.total_time_s)
        };

        let latency = self.latency_summary(transactions);

        let histogram = if self.histogram.is_empty() {
            String::new()
        } else {
            buckets::to_latency_histogram(&self.histogram).to_base64()
        };

        StepResult {
            scenario,
            threads: self.threads,
            started_unix_ms: 0,
            ended_unix_ms: 0,
            warmup_s: 0.0,
            total_time_s: self.total_time_s,
            transactions,
            queries: self.queries,
            ignored_errors: self.ignored_errors,
            reconnects: self.reconnects,
            percentile: self.percentile,
            latency_pct_ms: self.latency.percentile_ms.unwrap_or(0.0),
            latency,
            per_class: Vec::new(),
            fairness: self.fairness,
            intervals: self.intervals.clone(),
            steady: find_steady_window(&self.intervals, tps),
            client_cpu: Default::default(),
            histogram,
            cancelled: false,
            // A killed run printed no summary, so no rates either.
            printed: self.complete.then_some(PrintedRates {
                tps,
                qps: self.queries_per_sec,
                ignored_errors_ps: self.ignored_errors_per_sec,
                reconnects_ps: self.reconnects_per_sec,
            }),
            connections: None,
            open_loop: None,
            confidence: None,
            repeat: Default::default(),
            sla_search: false,
            clients: Vec::new(),
            tpcc: None,
        }
        // Intervals from the log's --report-interval lines; none without them.
        .with_confidence()
    }

    /// The printed latency block, with every percentile the log gives.
    fn latency_summary(&self, transactions: u64) -> LatencySummary {
        let mut latency = LatencySummary {
            count: if self.events > 0 {
                self.events
            } else {
                transactions
            },
            min_ms: self.latency.min_ms,
            avg_ms: self.latency.avg_ms,
            max_ms: self.latency.max_ms,
            sum_ms: self.latency.sum_ms,
            ..Default::default()
        };
        let mut set = |p: f64, ms: f64| {
            if let Some(slot) = percentile_slot(&mut latency, p) {
                *slot = Some(ms);
            }
        };
        // Least to most authoritative: buckets, our own printed block, sysbench's line.
        if !self.histogram.is_empty() {
            for p in [50.0, 90.0, 95.0, 99.0, 99.9] {
                set(p, buckets::percentile_of(&self.histogram, p));
            }
        }
        for &(p, ms) in &self.extra_percentiles {
            set(p, ms);
        }
        if let Some(ms) = self.latency.percentile_ms {
            set(self.percentile, ms);
        }
        latency
    }
}

/// The field of `LatencySummary` that holds percentile `p`, if it has one.
fn percentile_slot(l: &mut LatencySummary, p: f64) -> Option<&mut Option<f64>> {
    if p == 50.0 {
        Some(&mut l.p50_ms)
    } else if p == 90.0 {
        Some(&mut l.p90_ms)
    } else if p == 95.0 {
        Some(&mut l.p95_ms)
    } else if p == 99.0 {
        Some(&mut l.p99_ms)
    } else if p == 99.9 {
        Some(&mut l.p999_ms)
    } else {
        None
    }
}
