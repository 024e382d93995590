//! Command-line options, spelled as sysbench spells them.
//!
//! Parse, then overlay: clap turns argv into these raw structs, and [`crate::overlay`]
//! sets the options given onto a profile, whose `to_plan` makes the engine's validated
//! [`dbdyno_engine::Plan`]. The defaults shown here are the engine's constants.

use clap::{Args, Parser, Subcommand, ValueEnum};
// Defaults shown by --help are the engine's own: what a profile leaves out means the same.
use dbdyno_engine::plan::DEFAULT_LADDER_THREADS;
use dbdyno_engine::{LadderSpec, RunSettings, Scenario, WorkloadOptions};

pub use crate::args_shared::{
    parse_bool, parse_prepare_mode, parse_sla, ConnArgs, MonitorToggle, SshArgs,
};

pub const ABOUT: &str =
    "DB Dyno: benchmark MySQL and MariaDB across a thread ladder (sysbench-compatible)";

/// `dbdyno <workload> [options] <command>`: sysbench's own syntax.
#[derive(Debug, Parser)]
#[command(
    name = "dbdyno",
    version,
    about = ABOUT,
    // sysbench takes an option given twice and keeps the last value: a script that
    // appends `--threads=1` to a shared option list must not be refused.
    args_override_self = true,
    override_usage = "dbdyno [options] <workload> <prepare|prewarm|run|cleanup>\n       dbdyno [options] tpcc <prepare|prewarm|run|check|cleanup>\n       dbdyno ladder [options]\n       dbdyno [options] <fileio|cpu|memory> <prepare|run|cleanup>\n       dbdyno hwtest [options]\n       dbdyno <check|runs|report|import|profile|monitor> ...\n       dbdyno help",
    after_help = "Workloads: oltp_point_select oltp_read_only oltp_read_write oltp_write_only oltp_insert oltp_delete oltp_update_index oltp_update_non_index select_random_points select_random_ranges bulk_insert\n\nOptions may come before or after the workload name, and the last of an option given twice wins; --table_size and --table-size are the same option; as in sysbench, a value follows '=' (--threads=8).\nThe password comes from --mysql-password, MYSQL_PWD, or a prompt (--mysql-password with no value)."
)]
pub struct WorkloadCli {
    /// Workload name (oltp_read_write, ...) or a sysbench script path.
    pub workload: String,
    /// prepare, prewarm, run or cleanup (and check, tpcc's consistency checks).
    pub command: WorkloadCommand,
    #[command(flatten)]
    pub conn: ConnArgs,
    #[command(flatten)]
    pub workload_opts: WorkloadArgs,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub history: crate::args_history::HistoryOpts,
    #[command(flatten)]
    pub ssh: SshArgs,
    #[command(flatten)]
    pub monitoring: MonitorToggle,
    /// Threads for run, and for prepare/prewarm/cleanup.
    #[arg(long, default_value_t = 1)]
    pub threads: u32,
    /// With prepare/cleanup: allow a schema that also holds non-benchmark tables.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub force: bool,
    /// With prepare: continue a prepare that was cut short. The tables that are
    /// complete and verified are kept, the others loaded again (prepare = "resume").
    #[arg(long)]
    pub resume: bool,
    /// sysbench's verbosity: 0 only critical messages ... 5 debug. Below 3 the header,
    /// interval lines and notes are left out (docs/cli.md).
    #[arg(long, default_value_t = VERBOSITY_NOTICE, value_parser = clap::value_parser!(u8).range(0..=5))]
    pub verbosity: u8,
}

/// sysbench's default verbosity (its LOG_NOTICE): the level at which its header and
/// interval lines are printed.
pub const VERBOSITY_NOTICE: u8 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WorkloadCommand {
    Prepare,
    Prewarm,
    Run,
    Cleanup,
    /// tpcc only: sysbench-tpcc's consistency checks (tpcc_check.lua); exit 1 when one fails.
    Check,
}

/// Top-level subcommands other than the sysbench form.
#[derive(Debug, Parser)]
// Last value wins for an option given twice, as in the sysbench form (propagated to
// every subcommand).
#[command(name = "dbdyno", version, about = ABOUT, args_override_self = true)]
pub struct ToolCli {
    #[command(subcommand)]
    pub command: ToolCommand,
    #[command(flatten)]
    pub global: GlobalOpts,
}

/// Options the commands share, accepted before the command too (`dbdyno --data-dir=X
/// runs list`). clap hands a value given here to the subcommand's option of the same
/// id, so the commands read it from their own arguments, as if given after them.
#[derive(Debug, Args)]
pub struct GlobalOpts {
    /// Hidden: the commands that use the history list their own --data-dir; the
    /// others (profile, import config) accept it and have no use for it.
    #[arg(long, global = true, hide = true)]
    pub data_dir: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum ToolCommand {
    /// Scenarios × thread counts, one result per step (the seed toolkit's loop).
    // Boxed: the ladder takes every option there is (clippy::large_enum_variant).
    Ladder(Box<LadderArgs>),
    /// The run history: list, show, delete, export runs.
    Runs(crate::args_history::RunsArgs),
    /// Import a seed-toolkit config as a profile, or sysbench output as runs.
    Import(crate::args_history::ImportArgs),
    /// Environment profiles: list, check, show; their secrets in the OS keyring.
    Profile(crate::args_history::ProfileArgs),
    /// Prerequisite checks before a plan: pass / warn / fail, what was seen, the fix.
    // Boxed: the check takes the connection, dataset and SSH options (clippy::large_enum_variant).
    Check(Box<CheckArgs>),
    /// The database server's CPU and data disk once a second, tsar-style (or --json lines).
    Monitor(MonitorArgs),
    /// Reports of one run or several environments: HTML, PDF, Markdown, CSV, JSON.
    Report(crate::args_report::ReportArgs),
    /// Each cell's TPS and p95 over the history, and where they changed level (change points).
    Trend(crate::args_trend::TrendArgs),
    /// Is the newest run of an environment a regression against its history? Exit code 4
    /// if so; --junit for CI.
    Gate(crate::args_trend::GateArgs),
    /// The database host's disk, CPU and memory measured over SSH (fileio, cpu, memory),
    /// in a directory on the data disk that you confirm; every file removed afterwards.
    // Boxed: the connection and SSH options (clippy::large_enum_variant).
    Hwtest(Box<crate::args_hwtest::HwtestArgs>),
}

#[derive(Debug, Args)]
pub struct LadderArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    #[command(flatten)]
    pub workload_opts: WorkloadArgs,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    pub history: crate::args_history::HistoryOpts,
    #[command(flatten)]
    pub ssh: SshArgs,
    #[command(flatten)]
    pub monitoring: MonitorToggle,
    #[command(flatten)]
    pub shape: LadderShape,
    /// Seconds of pause between steps (lets redo/WAL flushing settle).
    #[arg(long, default_value_t = 0)]
    pub cooldown: u64,
    /// Run every step this many times (1 to 20), the whole ladder forward then backward
    /// in turn, so that a drifting server does not read as a difference between thread
    /// counts; reports then take each figure's interval from the spread between repeats.
    #[arg(long, default_value_t = LadderSpec::default().repeat)]
    pub repeat: u32,
    /// Load the tables before the first step: if-missing (what --prepare alone means:
    /// reuse the tables DB Dyno made in the plan's shape, load them when absent), always
    /// (drop DB Dyno's own tables and load again; never anyone else's), resume (keep
    /// the tables a cut-short prepare completed, load the rest) or never.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "if-missing", value_name = "MODE", value_parser = parse_prepare_mode)]
    pub prepare: Option<dbdyno_engine::PrepareMode>,
    /// Read the tables into the buffer pool before the first step.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub prewarm: bool,
    /// Drop the benchmark tables after the last step.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub cleanup: bool,
    /// Threads for prepare, prewarm and cleanup.
    #[arg(long, default_value_t = LadderSpec::default().admin_threads)]
    pub admin_threads: u32,
    /// With --prepare/--cleanup: allow a schema that also holds non-benchmark tables.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub force: bool,
    /// Latency target each step is judged against: p95<=20ms, p99<=5ms, p99.9<=100ms,
    /// p95<=1.5s. Each step is marked within or beyond it (on the upper end of its
    /// percentile's 95% interval) and each scenario's capacity at it is printed; without
    /// --percentile, the steps record the target's percentile.
    #[arg(long, value_parser = parse_sla, value_name = "TARGET")]
    pub sla: Option<dbdyno_engine::SlaTarget>,
    /// After the ladder, bisect thread counts between the last step within --sla and the
    /// first beyond it: at most K extra steps per scenario (K = 4 when not given), with
    /// the ladder's settings, to refine the capacity at the target.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "4", default_value_t = 0, value_name = "K")]
    pub sla_search: u32,
    /// When a step fails (its connections cannot all open, a server error stops it, its
    /// reconnect budget is spent): stop the run (the default), or record the step as
    /// failed and go on with the next one; the run then exits with code 5.
    #[arg(long, value_parser = ["stop", "continue"], value_name = "POLICY")]
    pub on_step_error: Option<String>,
    /// At the end, write the report (HTML, PDF, Markdown, CSV, JSON) into this directory:
    /// of the run as recorded in the history (with --no-history, of its results.json).
    #[arg(long)]
    pub report: Option<std::path::PathBuf>,
}

#[derive(Debug, Args, Clone)]
pub struct WorkloadArgs {
    #[arg(long, default_value_t = WorkloadOptions::default().tables)]
    pub tables: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().table_size)]
    pub table_size: u64,
    #[arg(long, default_value_t = WorkloadOptions::default().range_size)]
    pub range_size: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().point_selects)]
    pub point_selects: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().simple_ranges)]
    pub simple_ranges: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().sum_ranges)]
    pub sum_ranges: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().order_ranges)]
    pub order_ranges: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().distinct_ranges)]
    pub distinct_ranges: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().index_updates)]
    pub index_updates: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().non_index_updates)]
    pub non_index_updates: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().delete_inserts)]
    pub delete_inserts: u32,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", default_value = "on", value_parser = parse_bool)]
    pub range_selects: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub skip_trx: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", default_value = "on", value_parser = parse_bool)]
    pub auto_inc: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub secondary: bool,
    #[arg(long, num_args = 0..=1, default_missing_value = "on", default_value = "on", value_parser = parse_bool)]
    pub create_secondary: bool,
    #[arg(long, default_value_t = WorkloadOptions::default().mysql_storage_engine)]
    pub mysql_storage_engine: String,
    #[arg(long, default_value_t = WorkloadOptions::default().random_points)]
    pub random_points: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().number_of_ranges)]
    pub number_of_ranges: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().delta)]
    pub delta: u32,
    /// uniform, gaussian, special, pareto or zipfian.
    #[arg(long, default_value = "special")]
    pub rand_type: String,
    #[arg(long, default_value_t = WorkloadOptions::default().rand.spec_iter)]
    pub rand_spec_iter: u32,
    #[arg(long, default_value_t = WorkloadOptions::default().rand.spec_pct)]
    pub rand_spec_pct: f64,
    #[arg(long, default_value_t = WorkloadOptions::default().rand.spec_res)]
    pub rand_spec_res: f64,
    /// 0 seeds from the clock.
    #[arg(long, default_value_t = WorkloadOptions::default().rand.seed)]
    pub rand_seed: u64,
    #[arg(long, default_value_t = WorkloadOptions::default().rand.pareto_h)]
    pub rand_pareto_h: f64,
    #[arg(long, default_value_t = WorkloadOptions::default().rand.zipfian_exp)]
    pub rand_zipfian_exp: f64,
    // sysbench-tpcc's own options, in the profile's spelling that `cmd::tpcc` gives
    // them after checking them in sysbench-tpcc's: hidden, since users type the latter.
    #[arg(long, hide = true)]
    pub scale: Option<u32>,
    #[arg(long, hide = true)]
    pub use_fk: Option<String>,
    #[arg(long, hide = true)]
    pub force_pk: Option<String>,
    #[arg(long, hide = true)]
    pub trx_level: Option<String>,
    #[arg(long, hide = true)]
    pub enable_purge: Option<String>,
    #[arg(long, hide = true)]
    pub mysql_table_options: Option<String>,
}

#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// Seconds per measured step (0 = no limit; then --events is required).
    #[arg(long)]
    pub time: Option<u64>,
    /// Stop a step after this many transactions (0 = no limit).
    #[arg(long, default_value_t = 0)]
    pub events: u64,
    /// Seconds of load before each step's measurement starts (not recorded).
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Fixed arrival rate in transactions/s; latency counts from each intended start.
    #[arg(long, default_value_t = 0.0)]
    pub rate: f64,
    /// How arrivals are spaced under --rate or --rates: fixed (every 1/rate s) or
    /// poisson (exponential gaps, as sysbench's --rate; from --rand-seed when given).
    #[arg(long, default_value = "fixed", value_name = "fixed|poisson")]
    pub rate_dist: String,
    /// Print an interval line every N seconds (0 = none for run; 1 for ladder).
    #[arg(long)]
    pub report_interval: Option<u64>,
    /// Percentile for interval lines and the summary (sysbench's --percentile).
    #[arg(long, default_value_t = RunSettings::default().percentile)]
    pub percentile: f64,
    /// Seconds the server may answer no connection (no result, no error, no reset: a
    /// frozen host, a cut network path) before the step fails and --on-step-error
    /// applies; the per-second lines go on meanwhile (default 30).
    #[arg(long, value_name = "SECONDS")]
    pub stall_timeout: Option<u64>,
    /// Print the latency histogram with the summary.
    #[arg(long, num_args = 0..=1, default_missing_value = "on", default_value = "off", value_parser = parse_bool)]
    pub histogram: bool,
    /// Write machine-readable results (schema: docs/json-schema.md) to this file ("-" = stdout).
    #[arg(long)]
    pub json: Option<String>,
    /// Prewarm: repeat the scans until one pass hits the buffer pool at least this often (percent).
    #[arg(long)]
    pub prewarm_until_hit_rate: Option<f64>,
    /// Start even when a prerequisite check fails (the checks still run and print).
    #[arg(long)]
    pub skip_checks: bool,
    /// Load clients that share every step, comma-separated: `local` (this machine) and
    /// `ssh://[user@]host[:port]` (logged in to with the SSH options, DB Dyno copied
    /// there). All start each step at one instant; the figures are merged exactly.
    /// Default: this machine alone.
    #[arg(long, value_name = "LIST")]
    pub clients: Option<String>,
}

/// `dbdyno check`: the prerequisite suite for a plan.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    #[command(flatten)]
    pub workload_opts: WorkloadArgs,
    /// `--profile`, `--env` and the SSH options, as `ladder` takes them.
    #[command(flatten)]
    pub history: crate::args_history::HistoryOpts,
    #[command(flatten)]
    pub ssh: SshArgs,
    #[command(flatten)]
    pub shape: LadderShape,
    /// The plan will prepare the tables (`ladder --prepare[=MODE]`'s modes): check room
    /// for them, or that DB Dyno's own can be reused, instead of their presence.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "if-missing", value_name = "MODE", value_parser = parse_prepare_mode)]
    pub prepare: Option<dbdyno_engine::PrepareMode>,
    /// The plan will drop the tables afterwards (needs DROP).
    #[arg(long)]
    pub cleanup: bool,
    /// The plan may prepare next to non-benchmark tables.
    #[arg(long)]
    pub force: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Leave the server's OS alone (no SSH, no local /proc), as for a managed database:
    /// the host checks are skipped.
    #[arg(long)]
    pub no_monitor: bool,
    /// Apply the fixes the app can apply (SET GLOBAL, CREATE DATABASE), then check again.
    #[arg(long)]
    pub fix: bool,
    /// The load clients to check, as `ladder --clients` names them; default: the
    /// profile's. Each is started and checked as a run checks it.
    #[arg(long, value_name = "LIST")]
    pub clients: Option<String>,
    /// Account for --fix (SET GLOBAL needs SUPER or SYSTEM_VARIABLES_ADMIN); default: --mysql-user.
    #[arg(long)]
    pub admin_user: Option<String>,
    /// Its password: the value, DBDYNO_ADMIN_PWD, or a prompt when given without a value.
    #[arg(long, num_args = 0..=1, default_missing_value = "\u{0}prompt")]
    pub admin_password: Option<String>,
}

/// `dbdyno monitor`: one line per second, like `tsar --cpu --io -I <disk> -l -i1`.
#[derive(Debug, Args)]
pub struct MonitorArgs {
    /// `--profile`, `--env` and the SSH options, as `ladder` takes them.
    #[command(flatten)]
    pub history: crate::args_history::HistoryOpts,
    #[command(flatten)]
    pub ssh: SshArgs,
    /// Seconds to monitor (0 = until Ctrl-C).
    #[arg(long, default_value_t = 0)]
    pub duration: u64,
    /// Print one JSON object per line instead of columns.
    #[arg(long)]
    pub json: bool,
    /// Directory whose disk to show when --device is not given (MySQL's datadir).
    #[arg(long, default_value = "/var/lib/mysql")]
    pub datadir: String,
}

/// sysbench accepts `--table_size` and `--table-size`; clap knows the dashed form.
/// Only the option name is rewritten, never its value.
pub fn normalize_args(args: impl IntoIterator<Item = String>) -> Vec<String> {
    args.into_iter()
        .map(|a| {
            if let Some(rest) = a.strip_prefix("--") {
                let (name, value) = match rest.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (rest, None),
                };
                let name = name.replace('_', "-");
                match value {
                    Some(v) => format!("--{name}={v}"),
                    None => format!("--{name}"),
                }
            } else {
                a
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spaced_values::{first_word, SPACED_VALUE_OPTIONS};

    #[test]
    fn underscores_become_dashes_in_names_only() {
        let v = normalize_args(
            [
                "dbdyno",
                "--table_size=10",
                "--mysql-db=my_db",
                "oltp_read_write",
            ]
            .map(String::from),
        );
        assert_eq!(
            v,
            [
                "dbdyno",
                "--table-size=10",
                "--mysql-db=my_db",
                "oltp_read_write"
            ]
        );
    }

    #[test]
    fn options_before_and_after_the_workload() {
        let args = normalize_args(
            [
                "dbdyno",
                "--threads=8",
                "oltp_read_write",
                "--tables=4",
                "run",
                "--skip_trx=on",
            ]
            .map(String::from),
        );
        let cli = WorkloadCli::try_parse_from(args).unwrap();
        assert_eq!(cli.threads, 8);
        assert_eq!(cli.workload_opts.tables, 4);
        assert!(cli.workload_opts.skip_trx);
        assert_eq!(cli.command, WorkloadCommand::Run);
    }

    #[test]
    fn unknown_options_are_refused() {
        let args =
            normalize_args(["dbdyno", "oltp_read_write", "--tabels=4", "run"].map(String::from));
        assert!(WorkloadCli::try_parse_from(args).is_err());
    }

    fn argv(a: &[&str]) -> Vec<String> {
        normalize_args(a.iter().map(|s| s.to_string()))
    }

    fn workload(a: &[&str]) -> Result<WorkloadCli, clap::Error> {
        WorkloadCli::try_parse_from(argv(a))
    }

    fn tool(a: &[&str]) -> ToolCli {
        ToolCli::try_parse_from(argv(a)).unwrap()
    }

    #[test]
    fn the_clap_definitions_are_consistent() {
        use clap::CommandFactory;
        WorkloadCli::command().debug_assert();
        ToolCli::command().debug_assert();
    }

    #[test]
    fn an_option_given_twice_keeps_the_last_value() {
        let cli = workload(&[
            "dbdyno",
            "--threads=8",
            "--table_size=10",
            "oltp_read_write",
            "--skip-checks",
            "--table-size=20",
            "--threads=1",
            "--skip-checks",
            "run",
        ])
        .unwrap();
        assert_eq!(cli.threads, 1);
        assert_eq!(cli.workload_opts.table_size, 20);
        assert!(cli.run.skip_checks);
        // The subcommands too (the setting is propagated).
        match tool(&[
            "dbdyno",
            "ladder",
            "--time=5",
            "--time=7",
            "--labels=a",
            "--labels=b,c",
        ])
        .command
        {
            ToolCommand::Ladder(l) => {
                assert_eq!(l.run.time, Some(7));
                // A list option adds up rather than being replaced.
                assert_eq!(l.history.labels, ["a", "b", "c"]);
            }
            other => panic!("{other:?}"),
        }
        match tool(&[
            "dbdyno", "runs", "list", "--json", "--json", "--env=a", "--env=b",
        ])
        .command
        {
            ToolCommand::Runs(r) => match r.command {
                crate::args_history::RunsCommand::List { env, json } => {
                    assert_eq!(env.as_deref(), Some("b"));
                    assert!(json);
                }
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn verbosity_is_sysbench_0_to_5_default_3() {
        let v = |a: &str| workload(&["dbdyno", "oltp_read_write", a, "run"]).map(|c| c.verbosity);
        assert_eq!(
            workload(&["dbdyno", "oltp_read_write", "run"])
                .unwrap()
                .verbosity,
            VERBOSITY_NOTICE
        );
        assert_eq!(v("--verbosity=0").unwrap(), 0);
        assert_eq!(v("--verbosity=5").unwrap(), 5);
        for bad in ["--verbosity=6", "--verbosity=-1", "--verbosity=abc"] {
            let e = v(bad).unwrap_err();
            assert_eq!(e.kind(), clap::error::ErrorKind::ValueValidation, "{bad}");
            assert!(e.to_string().contains("--verbosity"), "{bad}: {e}");
        }
        assert!(v("--verbosity=6")
            .unwrap_err()
            .to_string()
            .contains("0..=5"));
    }

    /// The history directory each command ends up with.
    fn data_dir_of(cli: ToolCli) -> Option<std::path::PathBuf> {
        use crate::args_history::ImportCommand;
        match cli.command {
            ToolCommand::Runs(r) => r.data_dir,
            ToolCommand::Ladder(l) => l.history.data_dir,
            ToolCommand::Check(c) => c.history.data_dir,
            ToolCommand::Monitor(m) => m.history.data_dir,
            ToolCommand::Report(r) => r.data_dir,
            ToolCommand::Trend(t) => t.series.data_dir,
            ToolCommand::Gate(g) => g.series.data_dir,
            ToolCommand::Import(i) => match i.command {
                ImportCommand::Sysbench { data_dir, .. } => data_dir,
                ImportCommand::Results { data_dir, .. } => data_dir,
                ImportCommand::Hardware { data_dir, .. } => data_dir,
                ImportCommand::Config { .. } => None,
            },
            ToolCommand::Hwtest(h) => h.history.data_dir,
            ToolCommand::Profile(_) => None,
        }
    }

    #[test]
    fn data_dir_before_the_command_is_the_commands_data_dir() {
        let x = Some(std::path::PathBuf::from("/x"));
        for cmd in [
            &["runs", "list"][..],
            &["runs", "show", "3"],
            &["ladder"],
            &["check"],
            &["monitor"],
            &["report", "--runs=1"],
            &["trend"],
            &["gate", "--env=e"],
            &["import", "sysbench", "f.txt", "--env=e"],
            &["import", "results", "f.json"],
        ] {
            for before in [&["--data-dir=/x"][..], &["--data_dir", "/x"]] {
                let mut a = vec!["dbdyno"];
                a.extend(before);
                a.extend(cmd);
                assert_eq!(first_word(&argv(&a)), Some(cmd[0]), "{a:?}");
                assert_eq!(data_dir_of(tool(&a)), x, "{a:?}");
            }
            // After the command, as before; the later of two wins.
            let mut a = vec!["dbdyno", "--data-dir=/y"];
            a.extend(cmd);
            a.push("--data-dir=/x");
            assert_eq!(data_dir_of(tool(&a)), x, "{a:?}");
        }
    }

    #[test]
    fn spaced_value_options_are_the_global_options_taking_a_value() {
        use clap::CommandFactory;
        let cmd = ToolCli::command();
        let mut global: Vec<String> = cmd
            .get_arguments()
            .filter(|a| a.is_global_set() && a.get_action().takes_values())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        global.sort();
        assert_eq!(global, SPACED_VALUE_OPTIONS);
    }

    #[test]
    fn the_first_word_skips_options_and_their_spaced_values() {
        let w = |a: &[&str]| first_word(&argv(a)).map(str::to_string);
        assert_eq!(w(&["dbdyno", "--version"]), None);
        assert_eq!(
            w(&["dbdyno", "--threads=2", "oltp_read_write", "run"]).as_deref(),
            Some("oltp_read_write")
        );
        assert_eq!(
            w(&["dbdyno", "--data-dir", "runs", "oltp_read_write", "run"]).as_deref(),
            Some("oltp_read_write")
        );
        assert_eq!(w(&["dbdyno", "--data-dir"]), None);
        // Not `8`: the value of an option of sysbench's grammar spelled apart.
        for line in [
            &["dbdyno", "--threads", "8", "oltp_read_write", "run"][..],
            &["dbdyno", "--mysql-db", "report", "oltp_read_write", "run"],
        ] {
            assert_eq!(w(line).as_deref(), Some("oltp_read_write"), "{line:?}");
        }
        assert_eq!(
            w(&["dbdyno", "--time", "5", "ladder"]).as_deref(),
            Some("ladder")
        );
        // A bare switch takes no value: the next word is the workload.
        assert_eq!(
            w(&["dbdyno", "--histogram", "oltp_read_write", "run"]).as_deref(),
            Some("oltp_read_write")
        );
    }
}

/// What a ladder runs: its scenarios and thread counts (`ladder`, and `check` for the
/// plan it checks).
#[derive(Debug, Args)]
pub struct LadderShape {
    /// Comma-separated scenarios.
    #[arg(
        long,
        value_delimiter = ',',
        default_values_t = Scenario::DEFAULT_LADDER.map(|s| s.name().to_string())
    )]
    pub scenarios: Vec<String>,
    /// Comma-separated thread counts (also spelled --threads, the profile's key).
    #[arg(
        long,
        visible_alias = "threads",
        value_delimiter = ',',
        default_values_t = DEFAULT_LADDER_THREADS
    )]
    pub ladder: Vec<u32>,
    /// Comma-separated arrival rates in transactions/s: a rate ladder, one open-loop
    /// step per rate and scenario in place of the thread ladder, each on rate × 0.05
    /// connections (4 to 256); latency counts from each transaction's intended start.
    #[arg(long, value_delimiter = ',', value_name = "TPS,...")]
    pub rates: Vec<u32>,
}
