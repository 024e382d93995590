//! `dbdyno`: the command line over DB Dyno's engine. CLI definition and glue only:
//! every figure comes from the engine crates. One module per command under `cmd/`.
//! A library so that tests can hold its road from flags to a plan against the app's
//! ([`ladder_plan_of`]); the binary is `main.rs`.

mod access;
pub mod args;
mod args_history;
mod cmd;
mod exit;
mod monitoring;
pub mod overlay;
mod print;
mod record;
pub mod sysbench_options;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};

use args::{ToolCli, ToolCommand, WorkloadCli};

/// First words that name a DB Dyno command rather than a sysbench workload.
const TOOL_WORDS: [&str; 7] = [
    "ladder", "runs", "import", "profile", "check", "monitor", "report",
];

/// Runs the command line `argv` (as the process got it).
pub fn run(argv: impl IntoIterator<Item = String>) -> ExitCode {
    let argv = match sysbench_options::translate(args::normalize_args(argv)) {
        Ok(t) => {
            print_deprecation_notes(&t);
            t.args
        }
        Err(refusal) => return exit::usage_error(refusal.into()),
    };
    match args::first_word(&argv) {
        Some(w) if TOOL_WORDS.contains(&w) => {
            let matches = ToolCli::command()
                .try_get_matches_from(&argv)
                .unwrap_or_else(|e| e.exit());
            let cli = ToolCli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
            // The subcommand's own matches: they say which options were typed.
            let m = matches
                .subcommand()
                .map(|(_, m)| m.clone())
                .unwrap_or_default();
            match cli.command {
                ToolCommand::Ladder(a) => cmd::ladder::run(&a, &m),
                ToolCommand::Runs(a) => cmd::runs::run(&a),
                ToolCommand::Import(a) => cmd::import::run(&a),
                ToolCommand::Profile(a) => cmd::profile::run(&a),
                ToolCommand::Check(a) => cmd::check::run(&a, &m),
                ToolCommand::Monitor(a) => cmd::monitor::run(&a, &m),
                ToolCommand::Report(a) => cmd::report::run(&a),
            }
        }
        Some("help") | None => {
            answer_version(&argv);
            let _ = WorkloadCli::try_parse_from(["dbdyno", "--help"]).map_err(|e| e.print());
            ExitCode::SUCCESS
        }
        Some(_) => {
            let matches = WorkloadCli::command()
                .try_get_matches_from(&argv)
                .unwrap_or_else(|e| e.exit());
            let cli = WorkloadCli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
            cmd::workload::run(&cli, &matches)
        }
    }
}

/// The plan `dbdyno ladder <argv...>` runs, without its password: the command line's
/// road to a plan, which tests hold against the app's.
pub fn ladder_plan_of(argv: &[&str]) -> anyhow::Result<dbdyno_engine::Plan> {
    let argv = args::normalize_args(
        ["dbdyno", "ladder"]
            .iter()
            .chain(argv)
            .map(|s| s.to_string()),
    );
    let matches = ToolCli::command().try_get_matches_from(&argv)?;
    let ToolCommand::Ladder(a) = ToolCli::from_arg_matches(&matches)?.command else {
        anyhow::bail!("not a ladder");
    };
    let m = matches
        .subcommand_matches("ladder")
        .ok_or_else(|| anyhow::anyhow!("not a ladder"))?;
    let cmd = overlay::tool_subcommand("ladder");
    overlay::apply(&cmd, m, &a.history, Some(&a.conn), &[])?.ladder_plan()
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

/// sysbench's warnings for older option names go where sysbench 1.0.20 prints them,
/// before anything else: on stdout, but the one about `--test` on stderr. A DB Dyno
/// command's stdout may be JSON, so there they all go to stderr.
fn print_deprecation_notes(t: &sysbench_options::Translated) {
    let sysbench_form = !args::first_word(&t.args).is_some_and(|w| TOOL_WORDS.contains(&w));
    for note in &t.notes {
        if sysbench_form && note != sysbench_options::TEST_OPTION_NOTE {
            println!("{note}");
        } else {
            eprintln!("{note}");
        }
    }
}
