//! `dbdyno tpcc [options] check`: tpcc_check.lua's consistency checks on a prepared (or
//! run) dataset. Prints the reference's PASSED / FAILED!!! lines and exits 1 when any
//! check fails, naming the check, the tables and what broke its rule.

use std::process::ExitCode;

use dbdyno_engine::tpcc::check;
use dbdyno_engine::{CancelToken, Plan};

use crate::access;
use crate::args::WorkloadCli;
use crate::exit::{failed, usage_error, EXIT_FAILED};
use crate::overlay::Applied;

/// `plan` is the command line's plan: its connection and its TPC-C options (the
/// profile's, with the command line's over them).
pub fn run(mut plan: Plan, cli: &WorkloadCli, applied: &Applied) -> ExitCode {
    if let Err(e) = access::fill_mysql_password(&mut plan, &cli.conn, applied) {
        return usage_error(e);
    }
    let options = plan.workload.tpcc.clone();
    let report = match check::check(&plan.connect, &options, cli.threads, &CancelToken::new()) {
        Ok(r) => r,
        Err(e) => return failed(e.into()),
    };
    for line in report.lines() {
        println!("{line}");
    }
    if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_FAILED)
    }
}
