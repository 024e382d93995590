//! `dbdyno`: the command line over DB Dyno's engine. CLI definition and glue only:
//! every figure comes from the engine crates. One module per command under `cmd/`.

mod args;
mod args_history;
mod cmd;
mod cmdline;
mod exit;
mod monitoring;
mod plan_build;
mod print;
mod profile_apply;
mod record;
mod secrets;
mod ssh_target;

use std::process::ExitCode;

use clap::Parser;

use args::{ToolCli, ToolCommand, WorkloadCli};

/// First words that name a DB Dyno command rather than a sysbench workload.
const TOOL_WORDS: [&str; 7] = [
    "ladder", "runs", "import", "profile", "check", "monitor", "report",
];

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`dbdyno check | head -1`)
    // would panic with exit 101; the default action ends the process quietly instead.
    #[cfg(unix)]
    // SAFETY: called first thing, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let argv = args::normalize_args(std::env::args());
    match args::first_word(&argv) {
        Some(w) if TOOL_WORDS.contains(&w) => {
            let cli = ToolCli::try_parse_from(&argv).unwrap_or_else(|e| e.exit());
            match cli.command {
                ToolCommand::Ladder(a) => cmd::ladder::run(&a),
                ToolCommand::Runs(a) => cmd::runs::run(&a),
                ToolCommand::Import(a) => cmd::import::run(&a),
                ToolCommand::Profile(a) => cmd::profile::run(&a),
                ToolCommand::Check(a) => cmd::check::run(&a),
                ToolCommand::Monitor(a) => cmd::monitor::run(&a),
                ToolCommand::Report(a) => cmd::report::run(&a),
            }
        }
        Some("help") | None => {
            answer_version(&argv);
            let _ = WorkloadCli::try_parse_from(["dbdyno", "--help"]).map_err(|e| e.print());
            ExitCode::SUCCESS
        }
        Some(_) => {
            let cli = WorkloadCli::try_parse_from(&argv).unwrap_or_else(|e| e.exit());
            cmd::workload::run(&cli)
        }
    }
}

/// `dbdyno --version` (or `-V`) names no workload, which would send it to the help:
/// clap answers it (and exits) before it looks for the missing workload. Any other
/// options without a workload fall through to the help, as before.
fn answer_version(argv: &[String]) {
    if let Err(e) = WorkloadCli::try_parse_from(argv) {
        if e.kind() == clap::error::ErrorKind::DisplayVersion {
            e.exit();
        }
    }
}
