//! `dbdyno`: the command line over DB Dyno's engine. CLI definition and glue only:
//! every figure comes from the engine crates. One module per command under `cmd/`.
//! A library so that tests can hold its road from flags to a plan against the app's
//! ([`ladder_plan_of`]); the binary is `main.rs`.

mod access;
pub mod args;
mod args_history;
mod args_hwtest;
mod args_report;
mod args_shared;
mod args_trend;
mod clients;
mod cmd;
mod exit;
mod monitoring;
pub mod overlay;
mod print;
mod record;
mod spaced_values;
pub mod sysbench_options;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};

use args::{ToolCli, ToolCommand, WorkloadCli};

/// First words that name a DB Dyno command rather than a sysbench workload.
const TOOL_WORDS: [&str; 10] = [
    "ladder", "runs", "import", "profile", "check", "monitor", "report", "hwtest", "trend", "gate",
];

/// Runs the command line `argv` (as the process got it).
pub fn run(argv: impl IntoIterator<Item = String>) -> ExitCode {
    let argv: Vec<String> = argv.into_iter().collect();
    // The hidden agent of a load client (`--clients`): started by the coordinator,
    // never typed by a user, so it stays out of the help and of sysbench's grammar.
    if argv.len() == 2 && argv[1] == "agent" {
        return cmd::agent::run();
    }
    // The hardware tests' agent on the database host (`dbdyno hwtest`): hidden the same way.
    if argv.len() == 2 && argv[1] == dbdyno_hwremote::protocol::AGENT_COMMAND {
        return ExitCode::from(dbdyno_hwremote::agent::serve() as u8);
    }
    // sysbench-tpcc's own options (--scale, --trx_level ...) leave first: the rest is
    // the sysbench form every workload shares.
    let argv = match cmd::tpcc::take_options(argv.into_iter().collect()) {
        Ok(x) => x,
        Err(e) => return exit::usage_error(e.into()),
    };
    let argv = match sysbench_options::translate(args::normalize_args(argv)) {
        Ok(t) => {
            print_deprecation_notes(&t);
            t.args
        }
        Err(refusal) => return exit::usage_error(refusal.into()),
    };
    // sysbench's grammar takes a value only after '=' (DB Dyno's own commands take both).
    if !spaced_values::first_word(&argv).is_some_and(|w| TOOL_WORDS.contains(&w)) {
        if let Err(spaced) = spaced_values::refuse(&argv) {
            return exit::usage_error(spaced.into());
        }
    }
    match spaced_values::first_word(&argv) {
        // fileio, cpu, memory: the native hardware tests, in sysbench's grammar.
        Some(w) if cmd::hwtest::is_hardware_test(w) => cmd::hwtest::run(&argv),
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
                ToolCommand::Trend(a) => cmd::trend::run_trend(&a),
                ToolCommand::Gate(a) => cmd::trend::run_gate(&a),
                ToolCommand::Hwtest(a) => cmd::hwtest_remote::run(&a, &m),
            }
        }
        Some("help") | None => {
            answer_version(&argv);
            let _ = WorkloadCli::try_parse_from(["dbdyno", "--help"]).map_err(|e| e.print());
            ExitCode::SUCCESS
        }
        Some(_) => {
            let matches = spaced_values::workload_command()
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
    let argv = cmd::tpcc::take_options(
        ["dbdyno", "ladder"]
            .iter()
            .chain(argv)
            .map(|s| s.to_string())
            .collect(),
    )?;
    let argv = args::normalize_args(argv);
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
    let sysbench_form =
        !spaced_values::first_word(&t.args).is_some_and(|w| TOOL_WORDS.contains(&w));
    for note in &t.notes {
        if sysbench_form && note != sysbench_options::TEST_OPTION_NOTE {
            println!("{note}");
        } else {
            eprintln!("{note}");
        }
    }
}
