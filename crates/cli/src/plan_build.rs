//! Raw options → the engine's validated plan.

use anyhow::{anyhow, bail, Context, Result};
use dbdyno_engine::plan::{PrewarmOptions, TlsMode};
use dbdyno_engine::workload::{IgnoreErrors, PsMode, RandOptions};
use dbdyno_engine::{
    ConnectOptions, LadderSpec, Phase, Plan, RunSettings, Scenario, StepPlan, WorkloadOptions,
};

use crate::args::{ConnArgs, LadderArgs, RunArgs, WorkloadArgs, WorkloadCli, WorkloadCommand};

/// Marks `--mysql-password` given without a value: ask on the terminal.
const PROMPT: &str = "\u{0}prompt";

pub fn connect_options(a: &ConnArgs) -> Result<ConnectOptions> {
    if a.db_driver != "mysql" {
        bail!(
            "--db-driver={} is not supported: DB Dyno speaks to MySQL and MariaDB only",
            a.db_driver
        );
    }
    let tls = match (&a.mysql_ssl_mode, a.mysql_ssl) {
        (Some(mode), _) => mode
            .parse::<TlsMode>()
            .map_err(|e| anyhow!("--mysql-ssl-mode: {e}"))?,
        (None, Some(true)) => TlsMode::Required,
        _ => TlsMode::Disabled,
    };
    Ok(ConnectOptions {
        host: a.mysql_host.clone(),
        port: a.mysql_port,
        socket: a.mysql_socket.clone(),
        user: a.mysql_user.clone(),
        password: password(a)?,
        database: a.mysql_db.clone(),
        tls,
        tls_ca: a.mysql_ssl_ca.clone(),
    })
}

/// --mysql-password, else MYSQL_PWD, else a prompt when asked for one.
fn password(a: &ConnArgs) -> Result<Option<String>> {
    match a.mysql_password.as_deref() {
        Some(PROMPT) => {
            let p = rpassword::prompt_password(format!(
                "Password for {}@{}: ",
                a.mysql_user, a.mysql_host
            ))
            .context("reading the password from the terminal")?;
            Ok(Some(p))
        }
        Some(p) => Ok(Some(p.to_string())),
        None => Ok(std::env::var("MYSQL_PWD").ok()),
    }
}

pub fn workload_options(a: &WorkloadArgs, c: &ConnArgs) -> Result<WorkloadOptions> {
    Ok(WorkloadOptions {
        tables: a.tables,
        table_size: a.table_size,
        range_size: a.range_size,
        point_selects: a.point_selects,
        simple_ranges: a.simple_ranges,
        sum_ranges: a.sum_ranges,
        order_ranges: a.order_ranges,
        distinct_ranges: a.distinct_ranges,
        index_updates: a.index_updates,
        non_index_updates: a.non_index_updates,
        delete_inserts: a.delete_inserts,
        range_selects: a.range_selects,
        skip_trx: a.skip_trx,
        auto_inc: a.auto_inc,
        secondary: a.secondary,
        create_secondary: a.create_secondary,
        mysql_storage_engine: a.mysql_storage_engine.clone(),
        random_points: a.random_points,
        number_of_ranges: a.number_of_ranges,
        delta: a.delta,
        rand: RandOptions {
            rand_type: a
                .rand_type
                .parse()
                .map_err(|e: String| anyhow!("--rand-type: {e}"))?,
            spec_iter: a.rand_spec_iter,
            spec_pct: a.rand_spec_pct,
            spec_res: a.rand_spec_res,
            seed: a.rand_seed,
            pareto_h: a.rand_pareto_h,
            zipfian_exp: a.rand_zipfian_exp,
        },
        ps_mode: match c.db_ps_mode.as_str() {
            "auto" => PsMode::Auto,
            "disable" => PsMode::Disable,
            other => bail!("--db-ps-mode={other}: use auto or disable"),
        },
        ignore_errors: IgnoreErrors::parse(&c.mysql_ignore_errors)
            .map_err(|e| anyhow!("--mysql-ignore-errors: {e}"))?,
    })
}

fn run_settings(r: &RunArgs, default_time: u64, default_interval: u64) -> RunSettings {
    RunSettings {
        time_s: r
            .time
            .unwrap_or(if r.events > 0 { 0 } else { default_time }),
        events: r.events,
        warmup_s: r.warmup,
        rate: r.rate,
        report_interval_s: r.report_interval.unwrap_or(default_interval),
        percentile: r.percentile,
    }
}

pub fn workload_plan(cli: &WorkloadCli) -> Result<Plan> {
    let scenario: Scenario = cli.workload.parse()?;
    let connect = connect_options(&cli.conn)?;
    let workload = workload_options(&cli.workload_opts, &cli.conn)?;
    let threads = cli.threads;
    let phase = match cli.command {
        WorkloadCommand::Prepare => Phase::Prepare { scenario, threads },
        WorkloadCommand::Prewarm => Phase::Prewarm(PrewarmOptions {
            threads,
            until_hit_rate: cli.run.prewarm_until_hit_rate,
            ..PrewarmOptions::default()
        }),
        WorkloadCommand::Cleanup => Phase::Cleanup { scenario, threads },
        WorkloadCommand::Run => Phase::Step(StepPlan {
            scenario,
            threads,
            // sysbench: --time=10 and no interval lines unless asked.
            settings: run_settings(&cli.run, 10, 0),
        }),
    };
    let plan = Plan {
        connect,
        workload,
        phases: vec![phase],
        force: cli.force,
    };
    plan.validate()?;
    Ok(plan)
}

pub fn ladder_plan(a: &LadderArgs) -> Result<Plan> {
    let (scenarios, threads) = a.shape.parse()?;
    let spec = LadderSpec {
        scenarios,
        threads,
        settings: run_settings(&a.run, 30, 1),
        cooldown_s: a.cooldown,
        prepare: a.prepare,
        prewarm: a.prewarm,
        cleanup: a.cleanup,
        admin_threads: a.admin_threads,
        prewarm_until_hit_rate: a.run.prewarm_until_hit_rate,
    };
    let plan = Plan {
        connect: connect_options(&a.conn)?,
        workload: workload_options(&a.workload_opts, &a.conn)?,
        phases: spec.phases(),
        force: a.force,
    };
    plan.validate()?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn plan_of(a: &[&str]) -> Result<Plan> {
        let argv = crate::args::normalize_args(a.iter().map(|s| s.to_string()));
        workload_plan(&WorkloadCli::try_parse_from(argv).unwrap())
    }

    #[test]
    fn select_random_runs_with_more_tables_but_prepares_and_cleans_one() {
        for w in ["select_random_points", "select_random_ranges"] {
            // sysbench's run of these scripts uses sbtest1 whatever --tables says.
            let plan = plan_of(&["dbdyno", w, "--tables=4", "--time=1", "run"]).unwrap();
            assert_eq!(plan.steps().count(), 1, "{w}");
            for command in ["prepare", "cleanup"] {
                let e = plan_of(&["dbdyno", w, "--tables=4", command]).unwrap_err();
                assert!(
                    e.to_string().contains(&format!(
                        "{w} works on a single table (sysbench asserts --tables=1); got --tables=4"
                    )),
                    "{w} {command}: {e}"
                );
            }
            assert!(plan_of(&["dbdyno", w, "--tables=1", "prepare"]).is_ok());
        }
    }
}
