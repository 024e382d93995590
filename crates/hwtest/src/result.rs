//! What a hardware test reports: every figure sysbench 1.0.20 prints for `fileio`,
//! `cpu` and `memory`, as serializable types.
//!
//! The same types come from a native run (`--json`) and from an imported sysbench log
//! (`parse_sysbench_hwtest`), so a figure means the same whichever road it took. A log
//! may lack its header (seed logs often start at "File operations:"), hence the
//! `Option`s on everything sysbench prints only in the header.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One hardware test's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HwTestResult {
    /// The test and its own figures.
    pub test: TestFigures,
    /// "Number of threads"; from a log without a header, total events divided by the
    /// fairness block's average events per thread.
    pub threads: u32,
    /// "total time" in seconds.
    pub total_time_s: f64,
    /// "total number of events".
    pub total_events: u64,
    /// The "Latency (ms):" block.
    pub latency: LatencySummary,
    /// The "Threads fairness:" block.
    pub fairness: Fairness,
    /// The `--report-interval` lines, in order (empty without it).
    #[serde(default)]
    pub intervals: Vec<IntervalFigures>,
    /// The options as given on the command line, long name without dashes → value
    /// (`file-total-size` → `8G`). From a log: what its header states.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

/// Which test ran, with the figures only that test has.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TestFigures {
    FileIo(FileIoResult),
    Cpu(CpuResult),
    Memory(MemoryResult),
}

/// sysbench's "Latency (ms):" block, in milliseconds as printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub min_ms: f64,
    pub avg_ms: f64,
    pub max_ms: f64,
    /// `None` when `--percentile=0` ("percentile stats: disabled").
    pub percentile: Option<Percentile>,
    pub sum_ms: f64,
}

/// "95th percentile: 4.10": the rank asked for and its latency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    pub rank: u32,
    pub ms: f64,
}

/// sysbench's "Threads fairness:" block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fairness {
    pub events_avg: f64,
    pub events_stddev: f64,
    pub execution_time_avg_s: f64,
    pub execution_time_stddev_s: f64,
}

/// One `--report-interval` line. Which figures are set depends on the test: fileio
/// prints MiB/s and fsyncs/s, memory MiB/s, cpu threads and events/s.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IntervalFigures {
    /// Seconds since the start ("[ 10s ]").
    pub elapsed_s: u64,
    pub threads: Option<u32>,
    pub events_per_s: Option<f64>,
    pub read_mib_per_s: Option<f64>,
    pub written_mib_per_s: Option<f64>,
    pub fsyncs_per_s: Option<f64>,
    /// Memory's one figure: MiB transferred per second.
    pub mib_per_s: Option<f64>,
    /// The interval's latency percentile (rank in `LatencySummary::percentile`).
    pub latency_pct_ms: Option<f64>,
}

/// `fileio`'s figures: "File operations:" and "Throughput:".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileIoResult {
    pub reads_per_s: f64,
    pub writes_per_s: f64,
    pub fsyncs_per_s: f64,
    pub read_mib_per_s: f64,
    pub written_mib_per_s: f64,
    /// The header's description of the file set and mode; `None` for a log without it.
    pub setup: Option<FileIoSetup>,
}

/// What sysbench's fileio header states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileIoSetup {
    pub test_mode: FileTestMode,
    pub io_mode: FileIoMode,
    /// "Extra file open flags": empty for "(none)".
    pub extra_flags: Vec<FileExtraFlag>,
    pub file_num: u64,
    pub file_size_bytes: u64,
    pub total_size_bytes: u64,
    pub block_size_bytes: u64,
    /// "Merging requests up to …": the merged request size, `None` when not merging.
    pub merged_request_bytes: Option<u64>,
    /// "Read/Write ratio for combined random IO test" (random modes only).
    pub rw_ratio: Option<f64>,
    /// "Number of IO requests" (random modes only; 0 = no limit).
    pub io_requests: Option<u64>,
    /// "calling fsync() each N requests"; 0 when periodic fsync is off.
    pub fsync_freq: u64,
    pub fsync_end: bool,
    pub fsync_all: bool,
}

/// `--file-test-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileTestMode {
    Seqwr,
    Seqrewr,
    Seqrd,
    Rndrd,
    Rndwr,
    Rndrw,
}

/// `--file-io-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileIoMode {
    Sync,
    Async,
    Mmap,
}

/// `--file-extra-flags`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileExtraFlag {
    Sync,
    Dsync,
    Direct,
}

/// `cpu`'s figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuResult {
    /// "CPU speed: events per second".
    pub events_per_s: f64,
    /// "Prime numbers limit"; `None` for a log without the header.
    pub max_prime: Option<u64>,
}

/// `memory`'s figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryResult {
    /// "Total operations: N (X per second)": X.
    pub operations_per_s: f64,
    /// "X MiB transferred (Y MiB/sec)"; `None` with `--memory-oper=none`, which
    /// sysbench prints no such line for.
    pub mib_transferred: Option<f64>,
    pub mib_per_s: Option<f64>,
    /// The header ("Running memory speed test with the following options:").
    pub setup: Option<MemorySetup>,
}

/// What sysbench's memory header states, plus the access mode it does not print
/// (known from the options of a native run, `None` from a log).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemorySetup {
    pub block_size_bytes: u64,
    pub total_size_bytes: u64,
    pub oper: MemoryOper,
    pub scope: MemoryScope,
    pub access_mode: Option<MemoryAccessMode>,
}

/// `--memory-oper`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryOper {
    Read,
    Write,
    None,
}

/// `--memory-scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryScope {
    Global,
    Local,
}

/// `--memory-access-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryAccessMode {
    Seq,
    Rnd,
}

impl HwTestResult {
    /// The test's sysbench name: `fileio`, `cpu` or `memory`.
    pub fn test_name(&self) -> &'static str {
        match self.test {
            TestFigures::FileIo(_) => "fileio",
            TestFigures::Cpu(_) => "cpu",
            TestFigures::Memory(_) => "memory",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> HwTestResult {
        HwTestResult {
            test: TestFigures::Cpu(CpuResult {
                events_per_s: 342.47,
                max_prime: Some(20000),
            }),
            threads: 2,
            total_time_s: 10.0052,
            total_events: 3427,
            latency: LatencySummary {
                min_ms: 2.67,
                avg_ms: 5.83,
                max_ms: 26.0,
                percentile: Some(Percentile {
                    rank: 95,
                    ms: 13.95,
                }),
                sum_ms: 19979.5,
            },
            fairness: Fairness {
                events_avg: 1713.5,
                events_stddev: 3.5,
                execution_time_avg_s: 9.9897,
                execution_time_stddev_s: 0.01,
            },
            intervals: vec![],
            options: BTreeMap::from([("cpu-max-prime".into(), "20000".into())]),
        }
    }

    #[test]
    fn json_round_trip_keeps_every_figure() {
        let r = sample();
        let json = serde_json::to_string(&r).unwrap();
        assert!(json.contains(r#""kind":"cpu""#), "{json}");
        let back: HwTestResult = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.test_name(), "cpu");
    }
}
