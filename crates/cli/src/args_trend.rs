//! `dbdyno trend` and `dbdyno gate`: the history's series and change points, and the
//! newest run judged against them (the commands themselves: `cmd::trend`).

use std::path::PathBuf;

use clap::Args;

/// Which series, and how sure a change point must be.
#[derive(Debug, Args, Clone)]
pub struct SeriesArgs {
    /// The history's directory (default: DBDYNO_DATA_DIR, else the user data directory).
    #[arg(long, env = "DBDYNO_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Only these scenarios (comma-separated; default: every one that ran).
    #[arg(long, value_delimiter = ',')]
    pub scenario: Vec<String>,
    /// Only these thread counts (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub threads: Vec<u32>,
    /// Cells with fewer runs than this are left out.
    #[arg(long, default_value_t = dbdyno_report::model::trend::MIN_RUNS)]
    pub min_runs: usize,
    /// A change point needs Welch's t-test between its two levels below this p-value.
    #[arg(long, default_value_t = dbdyno_report::model::trend::ChangePointOptions::default().max_p_value)]
    pub max_p: f64,
}

#[derive(Debug, Args)]
pub struct TrendArgs {
    #[command(flatten)]
    pub series: SeriesArgs,
    /// Only these environments (comma-separated; default: every one in the history).
    #[arg(long, value_delimiter = ',')]
    pub env: Vec<String>,
    /// The series and change points as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct GateArgs {
    #[command(flatten)]
    pub series: SeriesArgs,
    /// The environment whose newest run is judged.
    #[arg(long)]
    pub env: String,
    /// Regression threshold in percent: the newest run's TPS below its level's 95%
    /// interval, or its p95 above it, by more than this (of the level).
    #[arg(long, default_value_t = 5.0)]
    pub threshold: f64,
    /// The verdicts as JUnit XML (one test case per cell and figure), for CI systems.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The verdicts as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}
