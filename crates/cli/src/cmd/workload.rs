//! `dbdyno <workload> … <prepare|prewarm|run|cleanup>`: one sysbench command.

use std::process::ExitCode;

use crate::args::{WorkloadCli, WorkloadCommand};
use crate::cmd::execute::execute;
use crate::exit::{failed, usage_error};
use crate::monitoring::{self, Out};
use crate::plan_build;
use crate::print::Style;
use crate::profile_apply;
use crate::record::Recorder;
use crate::secrets;
use crate::ssh_target::SshSpec;

pub fn run(cli: &WorkloadCli) -> ExitCode {
    // With --profile the options are parsed again with the profile's filled in.
    let (reparsed, applied) = match &cli.history.profile {
        Some(name) => match profile_apply::workload(name) {
            Ok((args, applied)) => (Some(args), Some(applied)),
            Err(e) => return usage_error(e),
        },
        None => (None, None),
    };
    let cli = reparsed.as_ref().unwrap_or(cli);
    let profile = applied.as_ref().map(|x| &x.profile);
    let notices = prints_notices(cli.verbosity);
    for n in applied.iter().flat_map(|x| &x.notices).filter(|_| notices) {
        eprintln!("NOTE: {n}");
    }
    let mut plan = match plan_build::workload_plan(cli) {
        Ok(p) => p,
        Err(e) => return usage_error(e),
    };
    let keyring_name = applied.as_ref().map(|x| x.keyring_name.as_str());
    if let Err(e) =
        secrets::fill_mysql_password(&mut plan, &cli.conn, &cli.history, profile, keyring_name)
    {
        return usage_error(e);
    }
    // Monitoring is opt-in here (--ssh-host or --monitor): a plain `run` keeps
    // sysbench's footprint on the server, so its counters compare with sysbench's.
    let mut spec = SshSpec::from_history(&cli.history);
    secrets::fill_ssh_secrets(&mut spec, profile, keyring_name);
    // A measured run is checked first (prepare, prewarm and cleanup have their own
    // guards); the facts also give the environment snapshot the history keeps.
    let preflight = if cli.command == WorkloadCommand::Run {
        let access = match monitoring::access(&plan, &spec, &cli.ssh, &cli.monitoring, false) {
            Ok(x) => x,
            Err(e) => return failed(e),
        };
        let preflight = match monitoring::preflight(
            &plan,
            &access,
            cli.run.skip_checks,
            !cli.history.no_history,
        ) {
            Ok(p) => p,
            Err(e) => return failed(e),
        };
        Some((access, preflight))
    } else {
        None
    };
    let (monitoring, environment) = match preflight {
        Some((access, pre)) => match monitoring::start(&plan, access, pre.as_ref(), Out::Stderr) {
            Ok(m) => (m, pre.map(|p| p.report.environment)),
            Err(e) => return failed(e),
        },
        None => (None, None),
    };
    let style = Style::Sysbench {
        histogram: cli.run.histogram,
    };
    if cli.command == WorkloadCommand::Run && notices {
        let s = plan.steps().next().expect("run has a step");
        print!(
            "{}",
            dbdyno_engine::sysbench_text::format_header(
                env!("CARGO_PKG_VERSION"),
                s.threads,
                s.settings.report_interval_s,
                s.settings.rate,
                plan.workload.rand.seed,
            )
        );
    }
    let print_intervals = notices
        && plan
            .steps()
            .next()
            .is_some_and(|s| s.settings.report_interval_s > 0);
    let command = format!("{} {:?}", cli.workload, cli.command).to_lowercase();
    // Only measured runs go to the history; stdout stays exactly sysbench's.
    let recorder = match cli.command {
        WorkloadCommand::Run => Recorder::start(
            &cli.history,
            profile,
            &plan,
            &command,
            true,
            environment.as_ref(),
        ),
        _ => None,
    };
    execute(
        &plan,
        style,
        print_intervals,
        cli.run.json.as_deref(),
        &command,
        recorder,
        monitoring,
    )
}

/// sysbench prints its header, interval lines and notes at its notice level (3, the
/// default) and leaves them out below it. The summary, warnings and errors are the
/// printer's and stay at every level.
fn prints_notices(verbosity: u8) -> bool {
    verbosity >= crate::args::VERBOSITY_NOTICE
}
