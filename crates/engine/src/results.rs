//! What a run produces: plain, serializable records that every consumer shares.
//!
//! The CLI prints them, the history stores them, the reports read them back. They carry
//! no behaviour beyond small derived figures, so that a result loaded from an old run
//! means exactly what it meant when it was written.

use serde::{Deserialize, Serialize};

pub use crate::open_loop::{IntervalQueue, OpenLoopResult};
use crate::repeat::Repeat;
use crate::stats::StepConfidence;
use crate::workload::{Scenario, StatementClass};

/// How sysbench counts statements: SELECT is a read, INSERT/UPDATE/DELETE a write,
/// BEGIN/COMMIT and everything else "other".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueryKind {
    Read,
    Write,
    Other,
}

/// Statement counts of a step or an interval, split the way sysbench splits them.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct QueryCounts {
    pub read: u64,
    pub write: u64,
    pub other: u64,
}

impl QueryCounts {
    pub fn total(&self) -> u64 {
        self.read + self.write + self.other
    }

    pub fn add(&mut self, kind: QueryKind, n: u64) {
        match kind {
            QueryKind::Read => self.read += n,
            QueryKind::Write => self.write += n,
            QueryKind::Other => self.other += n,
        }
    }

    pub fn merge(&mut self, other: &QueryCounts) {
        self.read += other.read;
        self.write += other.write;
        self.other += other.other;
    }
}

/// One `--report-interval` line: the figures of sysbench's interval report, plus the
/// wall-clock window so that server samples can be aligned to it.
///
/// `Default` (all zero, no optional figure) lets tests and fixtures name only the fields
/// they are about.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IntervalRecord {
    /// Seconds since the measured part of the step began, at the end of this interval.
    pub elapsed_s: f64,
    /// Length of the interval in seconds (the last one of a step may be shorter).
    pub duration_s: f64,
    /// Unix time in milliseconds at the end of the interval.
    pub end_unix_ms: i64,
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    pub reads_ps: f64,
    pub writes_ps: f64,
    pub other_ps: f64,
    /// Latency at `percentile` over this interval, in milliseconds (0 when no event completed).
    pub latency_ms: f64,
    pub percentile: f64,
    /// p95 and p99 over this interval in milliseconds (0 when no event completed), so
    /// that both have a per-second series whatever `--percentile` is. None when the
    /// source did not give them: records stored before they existed, or an imported
    /// log's line, which prints its `--percentile` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p95_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p99_ms: Option<f64>,
    pub errors_ps: f64,
    pub reconnects_ps: f64,
    /// The arrival queue of an open-loop step's interval; None in a closed loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<IntervalQueue>,
}

impl IntervalRecord {
    /// Latency at `wanted` (95 or 99) over this interval: its own field, else
    /// `latency_ms` when that is the percentile the record carries; None otherwise
    /// (never estimated from another percentile).
    pub fn latency_at(&self, wanted: f64) -> Option<f64> {
        let own = match wanted {
            w if same_percentile(w, 95.0) => self.p95_ms,
            w if same_percentile(w, 99.0) => self.p99_ms,
            _ => None,
        };
        own.or_else(|| same_percentile(self.percentile, wanted).then_some(self.latency_ms))
    }

    /// Fills the field of the percentile `latency_ms` carries (95 or 99) and leaves the
    /// other as it is: what a sysbench interval line, which prints one percentile, gives.
    pub fn with_carried_percentile(mut self) -> IntervalRecord {
        if same_percentile(self.percentile, 95.0) {
            self.p95_ms.get_or_insert(self.latency_ms);
        } else if same_percentile(self.percentile, 99.0) {
            self.p99_ms.get_or_insert(self.latency_ms);
        }
        self
    }
}

fn same_percentile(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// A latency distribution reduced to the figures people compare. Milliseconds throughout,
/// recorded at microsecond resolution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ms: f64,
    pub avg_ms: f64,
    pub max_ms: f64,
    /// Percentiles; None when the source did not give them (an imported sysbench log
    /// prints only its `--percentile` figure, or none with "percentile stats: disabled").
    /// The engine always fills them.
    pub p50_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    /// Sum of all latencies, as sysbench prints it.
    pub sum_ms: f64,
}

/// Latency of one statement class (point select, commit, ...) within a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClassLatency {
    pub class: StatementClass,
    pub latency: LatencySummary,
}

/// sysbench's "Threads fairness" block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fairness {
    pub events_avg: f64,
    pub events_stddev: f64,
    pub exec_time_avg_s: f64,
    pub exec_time_stddev_s: f64,
}

/// The part of a step after throughput settled, found from the interval series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SteadyWindow {
    /// Index of the first interval counted as steady.
    pub first_interval: usize,
    /// Number of intervals in the window.
    pub intervals: usize,
    pub start_s: f64,
    pub end_s: f64,
    pub tps: f64,
    pub qps: f64,
    /// Lowest and highest interval TPS inside the window.
    pub tps_min: f64,
    pub tps_max: f64,
    /// Mean and highest of the intervals' latency percentile inside the window.
    pub latency_ms_avg: f64,
    pub latency_ms_max: f64,
    /// Whole-step TPS divided by steady TPS, minus one (negative: a cold start pulled it down).
    pub whole_vs_steady_pct: f64,
    /// Plain-language note on how the window was chosen.
    pub method: String,
}

/// CPU the load generator itself used during the measured part of a step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientCpu {
    /// CPU seconds (user + system) this process used.
    pub cpu_seconds: f64,
    /// Average use in percent of one core (200 = two cores busy).
    pub percent_of_core: f64,
    /// Cores of the client machine.
    pub cores: u32,
    /// Average use as a share of all client cores, in percent.
    pub percent_of_machine: f64,
    /// CPU microseconds per query: the figure docs/benchmarks.md compares with sysbench.
    pub us_per_query: f64,
}

/// Everything one step (one scenario at one thread count) produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepResult {
    pub scenario: Scenario,
    pub threads: u32,
    /// Unix ms when measurement started (after warmup) and ended.
    pub started_unix_ms: i64,
    pub ended_unix_ms: i64,
    pub warmup_s: f64,
    /// Measured time in seconds (sysbench's "total time").
    pub total_time_s: f64,
    pub transactions: u64,
    pub queries: QueryCounts,
    pub ignored_errors: u64,
    pub reconnects: u64,
    /// The percentile used for interval lines and the headline figure (sysbench's --percentile).
    pub percentile: f64,
    /// Latency at `percentile`, in ms.
    pub latency_pct_ms: f64,
    pub latency: LatencySummary,
    pub per_class: Vec<ClassLatency>,
    pub fairness: Fairness,
    pub intervals: Vec<IntervalRecord>,
    pub steady: Option<SteadyWindow>,
    pub client_cpu: ClientCpu,
    /// Transaction latency histogram (microseconds), HdrHistogram V2 + DEFLATE, base64.
    pub histogram: String,
    /// True when the step was cut short by a cancel request.
    pub cancelled: bool,
    /// Rates exactly as another tool printed them (imported sysbench output); None for
    /// steps this engine measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<PrintedRates>,
    /// How the step's connections opened; None for imported steps and runs recorded
    /// before it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<ConnectionsOpened>,
    /// How an open-loop step (`--rate`, `--rates`) kept to its schedule; None for a
    /// closed loop (threads running flat out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopResult>,
    /// The 95% intervals of the step's figures, its coefficient of variation and whether
    /// it settled, made from `intervals` when the step was measured (or imported). None
    /// for a step without per-second records and for runs recorded before it existed:
    /// [`StepResult::confidence_or_computed`] then makes it from `intervals`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<StepConfidence>,
    /// Which repeat of its (scenario, threads) step this was (`--repeat`); results
    /// written before repeats existed read as repeat 1 of 1.
    #[serde(flatten, skip_serializing_if = "Repeat::is_single")]
    pub repeat: Repeat,
    /// True for a step the capacity search added after the ladder (`--sla-search`),
    /// between a step within the latency target and one beyond it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sla_search: bool,
    /// A step run from several load clients (`--clients`): each client's own share.
    /// The step's other fields are the exact merge of these (sums per second on the
    /// common clock, percentiles from the merged histogram). Empty for a step run from
    /// this machine alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clients: Vec<ClientStep>,
    /// The tpcc scenario's figures (tpmC, NOPM, per transaction type); absent for the
    /// OLTP scenarios and in runs recorded before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<crate::tpcc::TpccResult>,
}

/// One load client's share of a step run from several clients.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientStep {
    /// The client as the user named it: `local`, or `ssh://user@host:port`.
    pub client: String,
    /// This client's share of the step's threads.
    pub threads: u32,
    pub transactions: u64,
    pub queries: QueryCounts,
    pub ignored_errors: u64,
    pub reconnects: u64,
    /// Over this client's measured time.
    pub tps: f64,
    pub qps: f64,
    /// Latency at the step's percentile from this client's own histogram, in ms.
    pub latency_pct_ms: f64,
    /// The load generator's CPU on that client machine.
    pub client_cpu: ClientCpu,
    /// True when this client's CPU, not the server, likely limited its share.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub client_bound: bool,
    /// That client's clock minus this machine's, measured before the step and
    /// corrected for when the common start instant was given to it, in ms.
    pub clock_offset_ms: f64,
    /// Per-second records of this client alone, on the common clock.
    pub intervals: Vec<IntervalRecord>,
    /// Set when the client was lost during the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<ClientLost>,
    /// This client's own open-loop figures (its share of `--rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopResult>,
    /// This client's own TPC-C figures (its New-Orders, its transactions per type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc: Option<crate::tpcc::TpccResult>,
}

/// A load client that stopped answering during a step: the step is partial.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClientLost {
    /// Seconds into the measured window when its last record arrived.
    pub after_s: f64,
    pub reason: String,
}

/// The time a step took to open its connections (connect, login, prepare) before its
/// clock started, and the attempts retried on the way (a server restarting, an
/// overflowing accept queue).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionsOpened {
    pub seconds: f64,
    pub retries: u64,
    /// The error of the last retried attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_retry_reason: Option<String>,
}

/// The per-second rates of sysbench's summary as printed. sysbench divides by a timer
/// read a little after "total time" (seed 003: 92300 / 60.0580 s = 1536.85 QPS, printed
/// 1536.81), so an imported result keeps the printed figures to come out exactly as printed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrintedRates {
    pub tps: f64,
    pub qps: f64,
    pub ignored_errors_ps: f64,
    pub reconnects_ps: f64,
}

impl StepResult {
    /// Transactions per second: as printed for an imported result, else counted / time.
    pub fn tps(&self) -> f64 {
        match &self.printed {
            Some(p) => p.tps,
            None => per_sec(self.transactions, self.total_time_s),
        }
    }

    /// Queries per second: as printed for an imported result, else counted / time.
    pub fn qps(&self) -> f64 {
        match &self.printed {
            Some(p) => p.qps,
            None => per_sec(self.queries.total(), self.total_time_s),
        }
    }

    /// False for a step whose totals are unknown: an imported log cut off before its
    /// summary has interval lines only, and its 0 transactions in 0 s mean "not printed".
    pub fn has_totals(&self) -> bool {
        self.printed.is_some() || self.total_time_s > 0.0
    }

    /// [`Self::tps`], or None when the totals are unknown ([`Self::has_totals`]).
    pub fn known_tps(&self) -> Option<f64> {
        self.has_totals().then(|| self.tps())
    }

    /// [`Self::qps`], or None when the totals are unknown.
    pub fn known_qps(&self) -> Option<f64> {
        self.has_totals().then(|| self.qps())
    }

    /// The latency at [`Self::percentile`], or None when it is unknown (no summary, or
    /// "percentile stats: disabled").
    pub fn known_latency_pct_ms(&self) -> Option<f64> {
        (self.has_totals() && self.percentile > 0.0).then_some(self.latency_pct_ms)
    }

    /// The stored confidence, or one made from the step's per-second records (a result
    /// written before steps carried it); None when there is neither: no interval is made
    /// up for a step without per-second records.
    pub fn confidence_or_computed(&self) -> Option<std::borrow::Cow<'_, StepConfidence>> {
        match &self.confidence {
            Some(c) => Some(std::borrow::Cow::Borrowed(c)),
            None if self.intervals.is_empty() => None,
            None => Some(std::borrow::Cow::Owned(StepConfidence::of_step(self))),
        }
    }

    /// Fills [`Self::confidence`] from the step's per-second records; a step without
    /// any keeps none.
    pub fn with_confidence(mut self) -> StepResult {
        self.confidence = (!self.intervals.is_empty()).then(|| StepConfidence::of_step(&self));
        self
    }
}

/// `n` per second of `seconds` (0 for no time): the rates of a step's summary.
pub fn per_sec(n: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        n as f64 / seconds
    } else {
        0.0
    }
}

#[cfg(test)]
mod interval_record_tests {
    use super::*;

    fn printed(percentile: f64, latency_ms: f64) -> IntervalRecord {
        IntervalRecord {
            elapsed_s: 1.0,
            duration_s: 1.0,
            threads: 1,
            tps: 1.0,
            qps: 1.0,
            latency_ms,
            percentile,
            ..Default::default()
        }
    }

    #[test]
    fn a_line_gives_its_own_percentile_and_never_the_other() {
        let r = printed(95.0, 7.43).with_carried_percentile();
        assert_eq!((r.p95_ms, r.p99_ms), (Some(7.43), None));
        assert_eq!((r.latency_at(95.0), r.latency_at(99.0)), (Some(7.43), None));
        let r = printed(99.0, 12.0).with_carried_percentile();
        assert_eq!((r.p95_ms, r.p99_ms), (None, Some(12.0)));
        let r = printed(90.0, 5.0).with_carried_percentile();
        assert_eq!((r.p95_ms, r.p99_ms), (None, None));
        assert_eq!((r.latency_at(90.0), r.latency_at(95.0)), (Some(5.0), None));
    }

    #[test]
    fn a_record_without_the_fields_reads_as_before() {
        // A record stored before p95_ms/p99_ms existed: its JSON has neither.
        let mut v = serde_json::to_value(printed(95.0, 2.5)).unwrap();
        assert!(v.get("p99_ms").is_none(), "None is not written");
        v.as_object_mut().unwrap().remove("p95_ms");
        let r: IntervalRecord = serde_json::from_value(v).unwrap();
        assert_eq!((r.p95_ms, r.p99_ms), (None, None));
        assert_eq!(r.latency_at(95.0), Some(2.5), "from latency_ms, as before");
        assert_eq!(r.latency_at(99.0), None);
        let mut measured = printed(95.0, 2.5);
        measured.p99_ms = Some(4.0);
        assert_eq!(measured.latency_at(99.0), Some(4.0));
        let back: IntervalRecord =
            serde_json::from_str(&serde_json::to_string(&measured).unwrap()).unwrap();
        assert_eq!(back, measured);
    }
}

/// Steps for tests: real sysbench 1.0.20 logs read by the `dbdyno-sysbench-text` crate
/// (which depends on this one, so this crate cannot parse them itself) and kept as JSON
/// in `src/test_steps/`; that crate's tests check the JSON still equals the parse.
#[cfg(test)]
pub(crate) mod test_steps {
    use super::StepResult;

    /// `name`: `read_only_no_intervals` and `point_select_no_intervals` (one log of
    /// oltp_read_only without interval lines, as that scenario and as
    /// oltp_point_select), `seed_003_oltp_read_write` (six 10 s intervals).
    pub(crate) fn step(name: &str) -> StepResult {
        let path = format!("{}/src/test_steps/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    }
}
