//! `dbdyno report`'s options (the command itself: `cmd::report`).

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Results files: the `--json` output of `dbdyno run` / `dbdyno ladder`, or report-run
    /// JSON. Repeat the option or separate with commas; one environment per file.
    #[arg(
        long = "input",
        value_delimiter = ',',
        required_unless_present = "runs",
        conflicts_with = "runs"
    )]
    pub input: Vec<PathBuf>,
    /// Runs of the history, by id (`dbdyno runs list`): one environment per run.
    #[arg(long, value_delimiter = ',')]
    pub runs: Vec<i64>,
    /// The history's directory for --runs (default: the platform's data directory, or
    /// DBDYNO_DATA_DIR).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Environment names, in the order of --input or --runs (default: each file's name,
    /// each run's environment).
    #[arg(long, value_delimiter = ',')]
    pub env_names: Vec<String>,
    /// Run id or environment name to compare the others against; enables exit code 4.
    #[arg(long)]
    pub baseline: Option<String>,
    /// Regression threshold in percent: a cell regresses when the whole 95% interval of its
    /// Δ TPS lies below −PCT, or that of its Δ p95 above +PCT.
    #[arg(long, default_value_t = 5.0)]
    pub threshold: f64,
    /// Cells that cannot be compared (the baseline has no counterpart at that scenario
    /// and thread count, or a step was cancelled) count as regressions for exit code 4.
    #[arg(long)]
    pub fail_on_missing: bool,
    /// The step shown second by second: SCENARIO@THREADS (default: the baseline's first
    /// scenario at its knee).
    #[arg(long)]
    pub timeline: Option<String>,
    /// Latency target to lead the report with: each run's capacity at it (the highest
    /// TPS of a step whose percentile, to the upper end of its 95% interval, meets it) and
    /// its Δ. Default: the target the baseline run was made with (`ladder --sla`).
    #[arg(long, value_parser = crate::args_shared::parse_sla, value_name = "TARGET")]
    pub sla: Option<dbdyno_engine::SlaTarget>,
    /// Report title (default: "Benchmark comparison: a vs b")
    #[arg(long)]
    pub title: Option<String>,
    /// One self-contained HTML file (inline CSS and SVG, opens offline).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// PDF for print (cover page, vector charts, CJK font embedded).
    #[arg(long)]
    pub pdf: Option<PathBuf>,
    /// Markdown (the seed toolkit's performance_report.md / mysql_sysbench.md shape).
    #[arg(long)]
    pub md: Option<PathBuf>,
    /// The performance matrix as CSV, with Δ% and verdicts.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// The report model as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write every format into this directory (report.html, report.pdf, ...).
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// PDF paper: a4 or letter.
    #[arg(long, default_value = "a4")]
    pub page_size: String,
}
