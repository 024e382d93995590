//! `dbdyno hwtest --profile=NAME`'s options (the command itself: `cmd::hwtest_remote`).

use clap::Args;
use dbdyno_hwremote::Settings;

use crate::args_shared::{ConnArgs, SshArgs};

#[derive(Debug, Args)]
pub struct HwtestArgs {
    #[command(flatten)]
    pub conn: ConnArgs,
    /// `--profile` and the SSH options, as `ladder` takes them.
    #[command(flatten)]
    pub history: crate::args_history::HistoryOpts,
    #[command(flatten)]
    pub ssh: SshArgs,
    /// The directory on the host for the test files (default: the one proposed, beside
    /// MySQL's data directory on its filesystem). A new directory is made inside it and
    /// removed at the end.
    #[arg(long)]
    pub dir: Option<String>,
    /// Use the proposed directory without asking (needed when no terminal can answer).
    #[arg(long)]
    pub yes: bool,
    /// MySQL's data directory on the host (default: the server's @@datadir).
    #[arg(long)]
    pub datadir: Option<String>,
    /// fileio's file set. Bigger than the host's RAM keeps the page cache out of the
    /// figures, at the price of time and disk space.
    #[arg(long, default_value_t = Settings::default().file_total_size)]
    pub file_total_size: String,
    /// fileio's extra open flags: direct (as InnoDB's O_DIRECT), or none.
    #[arg(long, default_value_t = Settings::default().file_extra_flags)]
    pub file_extra_flags: String,
    /// Threads of every test.
    #[arg(long, default_value_t = Settings::default().threads)]
    pub threads: u32,
    /// Seconds of each fileio run (random read/write, sequential read).
    #[arg(long, default_value_t = Settings::default().fileio_time_s)]
    pub fileio_time: u64,
    /// Seconds of the cpu run.
    #[arg(long, default_value_t = Settings::default().cpu_time_s)]
    pub cpu_time: u64,
    /// Seconds of the memory run.
    #[arg(long, default_value_t = Settings::default().memory_time_s)]
    pub memory_time: u64,
    /// Print the results as one JSON document.
    #[arg(long)]
    pub json: bool,
}
