//! `dbdyno <workload> … <prepare|prewarm|run|cleanup>`: one sysbench command.

use std::process::ExitCode;

use dbdyno_session::RunRequest;

use crate::access;
use crate::args::{WorkloadCli, WorkloadCommand};
use crate::cmd::execute;
use crate::exit::{failed, usage_error};
use crate::monitoring::Out;
use crate::overlay;
use crate::print::Style;
use crate::record;

/// Options a single command does not take from a profile: `run` has one thread
/// count (`--threads`), not the profile's ladder.
const NOT_FOR_RUN: [&str; 1] = ["threads"];

pub fn run(cli: &WorkloadCli, m: &clap::ArgMatches) -> ExitCode {
    use clap::CommandFactory;
    let applied = match overlay::apply(
        &WorkloadCli::command(),
        m,
        &cli.history,
        Some(&cli.conn),
        &NOT_FOR_RUN,
    ) {
        Ok(x) => x,
        Err(e) => return usage_error(e),
    };
    let notices = prints_notices(cli.verbosity);
    for n in applied.notices.iter().filter(|_| notices) {
        eprintln!("NOTE: {n}");
    }
    let mut plan = match applied.single_plan(&cli.workload, cli.command, cli.threads) {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    if cli.resume {
        if cli.command != WorkloadCommand::Prepare {
            return usage_error(anyhow::anyhow!(
                "--resume continues a prepare: dbdyno {} … --resume prepare",
                cli.workload
            ));
        }
        for phase in &mut plan.phases {
            if let dbdyno_engine::Phase::Prepare { mode, .. } = phase {
                *mode = dbdyno_engine::PrepareMode::Resume;
            }
        }
    }
    if cli.command == WorkloadCommand::Check {
        return crate::cmd::tpcc_check::run(plan, cli, &applied);
    }
    if let Err(e) = access::fill_mysql_password(&mut plan, &cli.conn, &applied) {
        return usage_error(e);
    }
    // Monitoring is opt-in here (--ssh-host or --monitor): a plain `run` keeps
    // sysbench's footprint on the server, so its counters compare with sysbench's.
    // A measured run is checked first (prepare, prewarm and cleanup have their own
    // guards); the facts also give the environment snapshot the history keeps.
    let command = format!("{} {:?}", cli.workload, cli.command).to_lowercase();
    let json = cli.run.json.as_deref();
    // Only measured runs go to the history; stdout stays exactly sysbench's.
    let request = if cli.command == WorkloadCommand::Run {
        let history = record::target(&cli.history, &applied, &plan, &command);
        let reach = access::access(
            plan,
            &applied,
            &cli.ssh,
            &cli.monitoring,
            false,
            cli.history.data_dir.as_deref(),
        );
        let clients = crate::clients::plan(
            cli.run.clients.as_deref(),
            &applied,
            &cli.ssh,
            cli.history.data_dir.as_deref(),
        );
        match (reach, clients) {
            (Ok(r), Ok(clients)) => RunRequest {
                clients,
                history_faults: record::faults(&cli.history),
                ..execute::request(r, cli.run.skip_checks, history, json)
            },
            (Err(e), _) | (_, Err(e)) => return failed(e),
        }
    } else {
        RunRequest::new(plan)
    };
    let run = match execute::start(request, Out::Stderr) {
        Ok(run) => run,
        Err(code) => return code,
    };
    let plan = run.plan();
    if cli.command == WorkloadCommand::Run && notices {
        print_header(plan);
    }
    let print_intervals = notices
        && plan
            .steps()
            .next()
            .is_some_and(|s| s.settings.report_interval_s > 0);
    let output = execute::Output {
        style: Style::Sysbench {
            histogram: cli.run.histogram,
        },
        print_intervals,
        json,
        command: &command,
        out: Out::Stderr,
    };
    execute::execute(run, &output)
}

/// sysbench's header of a `run`: version, threads, report interval, rate, seed.
fn print_header(plan: &dbdyno_engine::Plan) {
    let s = plan.steps().next().expect("run has a step");
    print!(
        "{}",
        dbdyno_sysbench_text::format_header(
            env!("CARGO_PKG_VERSION"),
            s.threads,
            s.settings.report_interval_s,
            s.settings.rate,
            plan.workload.rand.seed,
        )
    );
}

/// sysbench prints its header, interval lines and notes at its notice level (3, the
/// default) and leaves them out below it. The summary, warnings and errors are the
/// printer's and stay at every level.
fn prints_notices(verbosity: u8) -> bool {
    verbosity >= crate::args::VERBOSITY_NOTICE
}
