//! One road from the command line to a plan: the profile (`--profile`, else an empty
//! one) with every option given on the command line set onto it through the profile's
//! own field table, then the profile's `to_plan`, the same conversion the app's Plan
//! screen makes after laying its form over a profile. Nothing is parsed twice and no
//! default is restated here: what neither the profile nor the command line gives is
//! the engine's default.
//!
//! What came from the command line is told by clap's `value_source`, never by comparing
//! with defaults: `--time=30` on the command line wins over `time = 60` in the profile
//! even though 30 is the default.

use anyhow::{anyhow, bail, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Command};
use dbdyno_engine::plan::TlsMode;
use dbdyno_engine::{Plan, Scenario};
use dbdyno_profile::fields::{self, FIELDS};
use dbdyno_profile::{resolve_profile, Problem, Profile, SingleCommand};

use crate::args::{ConnArgs, WorkloadCommand};
use crate::args_history::HistoryOpts;

/// The profile in effect (with the command line's options) and the notices of loading it.
pub struct Applied {
    pub profile: Profile,
    /// True when a profile file was loaded (`--profile`); else `profile` holds only
    /// the command line's options.
    pub from_file: bool,
    /// The keyring entries' name: the loaded profile's own name, before `--env`
    /// renames the run (its entries `<name>/mysql`, `<name>/ssh-…` are stored under
    /// it); without a profile, `--env`.
    pub keyring_name: Option<String>,
    pub notices: Vec<String>,
}

impl Applied {
    /// The ladder's plan (password not set).
    pub fn ladder_plan(&self) -> Result<Plan> {
        self.profile.to_plan().map_err(option_problems)
    }

    /// The sysbench form's plan: one command of one workload (password not set).
    pub fn single_plan(
        &self,
        workload: &str,
        command: WorkloadCommand,
        threads: u32,
    ) -> Result<Plan> {
        let scenario: Scenario = workload.parse()?;
        let command = match command {
            WorkloadCommand::Prepare => SingleCommand::Prepare,
            WorkloadCommand::Prewarm => SingleCommand::Prewarm,
            WorkloadCommand::Run => SingleCommand::Run,
            WorkloadCommand::Cleanup => SingleCommand::Cleanup,
            // The check reads the data: the plan it needs is cleanup's (a connection,
            // no step), never run.
            WorkloadCommand::Check if scenario.is_tpcc() => SingleCommand::Cleanup,
            WorkloadCommand::Check => {
                bail!("check: only tpcc has consistency checks (dbdyno tpcc ... check)")
            }
        };
        self.profile
            .to_single_plan(scenario, command, threads)
            .map_err(option_problems)
    }
}

/// Loads `--profile` (if any) and sets onto it every profile option given on the
/// command line. `cmd` is the (sub)command `m` was parsed with; options in `skip`
/// stay the profile's (a single `run` has one `--threads`, not the profile's ladder).
pub fn apply(
    cmd: &Command,
    m: &ArgMatches,
    history: &HistoryOpts,
    conn: Option<&ConnArgs>,
    skip: &[&str],
) -> Result<Applied> {
    let (mut profile, from_file, keyring_name, notices) = match &history.profile {
        Some(name) => {
            let loaded = resolve_profile(name)?;
            let own = loaded.profile.name.clone();
            (loaded.profile, true, Some(own), loaded.notices)
        }
        None => (Profile::named(""), false, history.env.clone(), Vec::new()),
    };
    for f in FIELDS {
        let Some(arg) = cmd.get_arguments().find(|a| {
            a.get_long_and_visible_aliases()
                .is_some_and(|names| names.contains(&f.option))
        }) else {
            continue;
        };
        let id = arg.get_id().as_str();
        if skip.contains(&f.option) || !given(m, id) {
            continue;
        }
        let raw: Vec<String> = m
            .get_raw(id)
            .map(|vals| vals.map(|v| v.to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        profile
            .set_option(f.option, &raw.join(","))
            .map_err(|p| anyhow!("--{}: {}", f.option, p.message))?;
    }
    if let Some(conn) = conn {
        connection_switches(&mut profile, m, conn)?;
    }
    if from_file {
        let problems = dbdyno_profile::validate::check(&profile);
        if !problems.is_empty() {
            let list: Vec<String> = problems
                .iter()
                .map(|p| format!("{}: {}", p.field, p.message))
                .collect();
            bail!(
                "profile {} with the command line's options is not valid:\n  {}",
                history.profile.as_deref().unwrap_or_default(),
                list.join("\n  ")
            );
        }
    }
    Ok(Applied {
        profile,
        from_file,
        keyring_name,
        notices,
    })
}

fn given(m: &ArgMatches, id: &str) -> bool {
    matches!(
        m.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    )
}

/// sysbench's connection switches that are no profile key: `--db-driver` (MySQL only)
/// and `--mysql-ssl=on|off` (an `ssl_mode` of required or disabled, unless
/// `--mysql-ssl-mode` says more).
fn connection_switches(p: &mut Profile, m: &ArgMatches, c: &ConnArgs) -> Result<()> {
    if c.db_driver != "mysql" {
        bail!(
            "--db-driver={} is not supported: DB Dyno speaks to MySQL and MariaDB only",
            c.db_driver
        );
    }
    if let (Some(on), false) = (c.mysql_ssl, given(m, "mysql_ssl_mode")) {
        p.mysql.ssl_mode = Some(if on {
            TlsMode::Required
        } else {
            TlsMode::Disabled
        });
    }
    Ok(())
}

/// The profile's problems in the command line's words: `--table-size: ...` for
/// `workload.table_size`, unless the message names its option already.
fn option_problems(problems: Vec<Problem>) -> anyhow::Error {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| {
            let key = p.field.split('[').next().unwrap_or(&p.field);
            match fields::by_key(key).map(|f| f.option) {
                Some(o) if !p.message.contains(&format!("--{o}")) => {
                    format!("--{o}: {}", p.message)
                }
                _ => p.message.clone(),
            }
        })
        .collect();
    anyhow!("{}", lines.join("\n"))
}

/// The `dbdyno` subcommand `name` as clap knows it (for its options' ids).
pub fn tool_subcommand(name: &str) -> Command {
    use clap::CommandFactory;
    let mut cmd = crate::args::ToolCli::command();
    cmd.build();
    cmd.find_subcommand(name)
        .cloned()
        .unwrap_or_else(|| panic!("the subcommand {name} exists"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, FromArgMatches};

    use crate::args::{ToolCli, ToolCommand};

    /// `dbdyno ladder <a...>` applied as the command runs it.
    fn ladder_with(a: &[&str]) -> Result<(Applied, Plan)> {
        let argv = crate::args::normalize_args(
            ["dbdyno", "ladder"].iter().chain(a).map(|s| s.to_string()),
        );
        let matches = ToolCli::command().try_get_matches_from(&argv)?;
        let ToolCommand::Ladder(l) = ToolCli::from_arg_matches(&matches)?.command else {
            unreachable!()
        };
        let m = matches.subcommand_matches("ladder").unwrap();
        let applied = apply(
            &tool_subcommand("ladder"),
            m,
            &l.history,
            Some(&l.conn),
            &[],
        )?;
        let plan = applied.ladder_plan()?;
        Ok((applied, plan))
    }

    /// Every profile key has its option on `ladder` (an option missing there would be
    /// skipped by [`apply`] without a word), and each takes the profile's value.
    #[test]
    fn every_profile_key_is_an_option_of_ladder() {
        let ladder = tool_subcommand("ladder");
        let missing: Vec<&str> = FIELDS
            .iter()
            .map(|f| f.option)
            .filter(|o| {
                !ladder.get_arguments().any(|a| {
                    a.get_long_and_visible_aliases()
                        .is_some_and(|names| names.contains(o))
                })
            })
            .collect();
        assert!(missing.is_empty(), "no --option on ladder for: {missing:?}");
        let (applied, plan) = ladder_with(&[
            "--ssh-host=db1",
            "--ssh-config=none",
            "--mysql-get-server-public-key",
            "--mysql-server-public-key-path=/k.pem",
        ])
        .unwrap();
        assert_eq!(applied.profile.ssh.unwrap().config.as_deref(), Some("none"));
        assert!(plan.connect.get_server_public_key);
        assert_eq!(
            plan.connect.server_public_key_path.as_deref(),
            Some("/k.pem")
        );
    }

    /// sysbench-tpcc's options go onto the profile like every workload option: the ones
    /// the command line names win, the profile's other tpcc keys hold.
    #[test]
    fn tpcc_options_named_win_and_the_profiles_others_hold() {
        let dir = std::env::temp_dir().join(format!("dbdyno-overlay-tpcc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("tpcc.toml");
        std::fs::write(
            &file,
            "schema_version = 1\nname = \"tpcc\"\n[plan]\nscenarios = [\"tpcc\"]\n\
             [workload]\nscale = 10\ntrx_level = \"SER\"\nuse_fk = false\n",
        )
        .unwrap();
        let profile = format!("--profile={}", file.display());
        let plan = crate::ladder_plan_of(&[
            &profile,
            "--scenarios=tpcc",
            "--trx_level=RC",
            "--tables",
            "2",
        ])
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let o = &plan.workload.tpcc;
        assert_eq!(
            o.trx_level,
            dbdyno_engine::tpcc::IsolationLevel::ReadCommitted
        );
        assert_eq!((o.scale, o.use_fk, o.tables), (10, false, 2));
    }

    #[test]
    fn profile_plan_equals_the_command_line_plan_of_the_same_profile() {
        for example in ["local-sandbox", "remote-ssh", "managed-no-ssh"] {
            let (applied, from_cli) = ladder_with(&["--profile", example]).unwrap();
            let from_profile = dbdyno_profile::resolve_profile(example)
                .unwrap()
                .profile
                .to_plan()
                .unwrap();
            assert_eq!(from_cli, from_profile, "{example}");
            assert_eq!(applied.keyring_name.as_deref(), Some(example));
        }
    }

    #[test]
    fn command_line_wins_even_when_it_gives_the_default() {
        // local-sandbox says time = 10, prepare = true; 30 is the ladder's default time.
        let (applied, plan) = ladder_with(&[
            "--profile=local-sandbox",
            "--time=30",
            "--prepare=off",
            "--threads=2,3",
            "--env=mine",
        ])
        .unwrap();
        let steps: Vec<_> = plan.steps().collect();
        assert!(steps.iter().all(|s| s.settings.time_s == 30));
        assert_eq!(
            steps
                .iter()
                .map(|s| s.threads)
                .collect::<std::collections::BTreeSet<_>>(),
            [2, 3].into()
        );
        assert!(!plan
            .phases
            .iter()
            .any(|p| matches!(p, dbdyno_engine::Phase::Prepare { .. })));
        assert_eq!(
            plan.workload.table_size, 10000,
            "the rest comes from the profile"
        );
        assert_eq!(plan.connect.port, 33306);
        assert_eq!(applied.profile.plan.time, Some(30));
        assert_eq!(applied.profile.plan.threads, Some(vec![2, 3]));
        assert_eq!(applied.profile.name, "mine");
        assert_eq!(
            applied.keyring_name.as_deref(),
            Some("local-sandbox"),
            "secrets stay under the profile's own name"
        );
    }

    #[test]
    fn repeat_goes_through_the_profile_and_is_checked() {
        let (applied, plan) = ladder_with(&[
            "--profile=local-sandbox",
            "--scenarios=oltp_point_select",
            "--threads=1,4",
            "--repeat=3",
        ])
        .unwrap();
        assert_eq!(applied.profile.plan.repeat, Some(3));
        let steps: Vec<(u32, u32, u32)> = plan
            .steps()
            .map(|s| (s.threads, s.repeat.number, s.repeat.of))
            .collect();
        assert_eq!(
            steps,
            [
                (1, 1, 3),
                (4, 1, 3),
                (4, 2, 3),
                (1, 2, 3),
                (1, 3, 3),
                (4, 3, 3)
            ]
        );
        let (_, single) = ladder_with(&["--threads=1,4", "--scenarios=oltp_point_select"]).unwrap();
        assert!(single.steps().all(|s| s.repeat.of == 1), "default: once");
        for bad in ["--repeat=0", "--repeat=21"] {
            let e = ladder_with(&[bad]).err().unwrap().to_string();
            assert!(
                e.contains("--repeat must be between 1 and 20"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn invalid_override_is_refused_before_anything_runs() {
        let e = ladder_with(&["--profile=local-sandbox", "--env=bad name"])
            .err()
            .unwrap();
        assert!(e.to_string().contains("name:"), "{e}");
    }

    #[test]
    fn without_a_profile_the_command_line_alone_makes_the_plan() {
        let (applied, plan) = ladder_with(&["--tables=3", "--mysql-ssl=on", "--env=x"]).unwrap();
        assert!(!applied.from_file);
        assert_eq!(applied.keyring_name.as_deref(), Some("x"));
        assert_eq!(plan.workload.tables, 3);
        assert_eq!(plan.connect.tls, TlsMode::Required);
        let defaults = dbdyno_engine::LadderSpec::default();
        assert_eq!(plan.phases, {
            let mut p = Profile::named("x");
            p.workload.tables = Some(3);
            p.mysql.ssl_mode = Some(TlsMode::Required);
            p.to_plan().unwrap().phases
        });
        assert_eq!(
            plan.steps().count(),
            defaults.scenarios.len() * defaults.threads.len()
        );
        let e = ladder_with(&["--table-size=0"]).err().unwrap();
        assert!(e.to_string().contains("table-size"), "{e}");
    }

    #[test]
    fn sla_and_its_search_reach_the_plan() {
        let (_, plan) = ladder_with(&["--threads=1,8", "--sla=p95<=20ms", "--sla-search"]).unwrap();
        let sla = plan.sla().unwrap();
        assert_eq!(sla.target.to_string(), "p95<=20ms");
        assert_eq!(sla.search_steps, 4, "--sla-search alone means 4");
        let (_, plan) = ladder_with(&["--sla=p99<=5ms", "--sla-search=2"]).unwrap();
        assert_eq!(plan.sla().unwrap().search_steps, 2);
        assert!(plan.steps().all(|s| s.settings.percentile == 99.0));
        let e = ladder_with(&["--sla=p95<20ms"]).err().unwrap();
        assert!(e.to_string().contains("p95<=20ms"), "{e}");
        let e = ladder_with(&["--sla-search=2"]).err().unwrap();
        assert!(
            e.to_string().contains("--sla-search") && e.to_string().contains("--sla"),
            "{e}"
        );
        let (_, plan) = ladder_with(&["--threads=1"]).unwrap();
        assert!(plan.sla().is_none());
    }

    #[test]
    fn on_step_error_reaches_the_plan_and_stops_by_default() {
        use dbdyno_engine::StepErrorPolicy;
        let (_, plan) = ladder_with(&["--threads=1"]).unwrap();
        assert_eq!(plan.on_step_error, StepErrorPolicy::Stop);
        let (applied, plan) = ladder_with(&["--on-step-error=continue"]).unwrap();
        assert_eq!(plan.on_step_error, StepErrorPolicy::Continue);
        assert_eq!(
            applied.profile.plan.on_step_error,
            Some(StepErrorPolicy::Continue),
            "the flag is set on the profile's plan.on_step_error"
        );
        let e = ladder_with(&["--on-step-error=skip"]).err().unwrap();
        assert!(e.to_string().contains("continue"), "{e}");
    }
}
