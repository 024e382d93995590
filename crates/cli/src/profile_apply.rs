//! `--profile`: the profile's settings become command-line options for everything the
//! command line does not give itself, so a profile run goes through the same parsing and
//! plan building as any other (nothing about plans is duplicated here).
//!
//! What came from the command line is told by clap's `value_source`, never by comparing
//! with defaults: `--time=30` on the command line wins over `time = 60` in the profile
//! even though 30 is the default.

use anyhow::{anyhow, Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, Command, CommandFactory, Parser};
use dbdyno_profile::fields::FIELDS;
use dbdyno_profile::{resolve_profile, Profile};

use crate::args::{self, CheckArgs, LadderArgs, MonitorArgs, ToolCli, ToolCommand, WorkloadCli};

/// Options a command does not take from a profile: a single `run` has one thread count
/// (`--threads`), not the profile's ladder.
const NOT_FOR_RUN: [&str; 1] = ["threads"];

/// The profile in effect (with command-line overrides) and the notices of loading it.
pub struct Applied {
    pub profile: Profile,
    /// The loaded profile's own name, before `--env` renames the run: its keyring
    /// entries (`<name>/mysql`, `<name>/ssh-…`) are stored under it.
    pub keyring_name: String,
    pub notices: Vec<String>,
}

/// `dbdyno SUB --profile=X ...`: the arguments re-parsed with the profile filled in,
/// `pick` taking SUB's arguments out of the parsed command.
fn tool_subcommand<T>(
    sub: &'static str,
    name: &str,
    pick: fn(ToolCommand) -> Option<T>,
) -> Result<(T, Applied)> {
    let argv = args::normalize_args(std::env::args());
    let (argv, applied) = with_profile(&argv, ToolCli::command(), Some(sub), name, &[])?;
    let cli = ToolCli::try_parse_from(&argv).map_err(|e| anyhow!("{e}"))?;
    let picked = pick(cli.command)
        .ok_or_else(|| anyhow!("internal: the {sub} command changed while applying the profile"))?;
    Ok((picked, applied))
}

/// `dbdyno ladder --profile=X ...`.
pub fn ladder(name: &str) -> Result<(LadderArgs, Applied)> {
    tool_subcommand("ladder", name, |c| match c {
        ToolCommand::Ladder(a) => Some(*a),
        _ => None,
    })
}

/// `dbdyno check --profile=X ...`: the profile's MySQL, SSH and plan settings.
pub fn check(name: &str) -> Result<(CheckArgs, Applied)> {
    tool_subcommand("check", name, |c| match c {
        ToolCommand::Check(a) => Some(*a),
        _ => None,
    })
}

/// `dbdyno monitor --profile=X ...`: the profile's SSH settings and data disk.
pub fn monitor(name: &str) -> Result<(MonitorArgs, Applied)> {
    tool_subcommand("monitor", name, |c| match c {
        ToolCommand::Monitor(a) => Some(a),
        _ => None,
    })
}

/// `dbdyno <workload> --profile=X ... run`.
pub fn workload(name: &str) -> Result<(WorkloadCli, Applied)> {
    let argv = args::normalize_args(std::env::args());
    let (argv, applied) = with_profile(&argv, WorkloadCli::command(), None, name, &NOT_FOR_RUN)?;
    let cli = WorkloadCli::try_parse_from(&argv).map_err(|e| anyhow!("{e}"))?;
    Ok((cli, applied))
}

fn given_on_command_line(m: &ArgMatches, id: &str) -> bool {
    matches!(
        m.value_source(id),
        Some(ValueSource::CommandLine | ValueSource::EnvVariable)
    )
}

/// Loads profile `name` and returns `argv` with the profile's options appended for every
/// option not given on the command line, and the profile with the command line's values.
pub fn with_profile(
    argv: &[String],
    cmd: Command,
    sub: Option<&str>,
    name: &str,
    skip: &[&str],
) -> Result<(Vec<String>, Applied)> {
    let loaded = resolve_profile(name)?;
    let mut cmd = cmd;
    cmd.build();
    let matches = cmd
        .clone()
        .try_get_matches_from(argv)
        .map_err(|e| anyhow!("{e}"))?;
    let (m, c) = match sub {
        Some(s) => (
            matches
                .subcommand_matches(s)
                .context("internal: subcommand missing")?,
            cmd.find_subcommand(s)
                .context("internal: subcommand missing")?
                .clone(),
        ),
        None => (&matches, cmd),
    };
    // clap's id of the argument with this long name (or visible alias).
    let id_of = |option: &str| {
        c.get_arguments()
            .find(|a| {
                a.get_long_and_visible_aliases()
                    .is_some_and(|names| names.contains(&option))
            })
            .map(|a| a.get_id().as_str().to_string())
    };

    let mut profile = loaded.profile.clone();
    for f in FIELDS {
        let Some(id) = id_of(f.option) else { continue };
        if skip.contains(&f.option) || !given_on_command_line(m, &id) {
            continue;
        }
        let raw: Vec<String> = m
            .get_raw(&id)
            .map(|vals| vals.map(|v| v.to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        profile
            .set_option(f.option, &raw.join(","))
            .map_err(|p| anyhow!("--{}: {}", f.option, p.message))?;
    }
    let problems = dbdyno_profile::validate::check(&profile);
    if !problems.is_empty() {
        let list: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.field, p.message))
            .collect();
        return Err(anyhow!(
            "profile {} with the command line's options is not valid:\n  {}",
            loaded
                .path
                .as_ref()
                .map_or(name.to_string(), |p| p.display().to_string()),
            list.join("\n  ")
        ));
    }

    let mut out = argv.to_vec();
    for (option, value) in loaded.profile.to_options() {
        let Some(id) = id_of(option) else { continue };
        if skip.contains(&option) || given_on_command_line(m, &id) {
            continue;
        }
        out.push(format!("--{option}={value}"));
    }
    Ok((
        out,
        Applied {
            keyring_name: loaded.profile.name.clone(),
            profile,
            notices: loaded.notices,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan_build;

    fn argv(a: &[&str]) -> Vec<String> {
        args::normalize_args(a.iter().map(|s| s.to_string()))
    }

    fn ladder_with(profile: &str, a: &[&str]) -> (LadderArgs, Applied) {
        let (v, applied) =
            with_profile(&argv(a), ToolCli::command(), Some("ladder"), profile, &[]).unwrap();
        match ToolCli::try_parse_from(&v).unwrap().command {
            ToolCommand::Ladder(l) => (*l, applied),
            _ => unreachable!(),
        }
    }

    #[test]
    fn profile_plan_equals_the_command_line_plan_of_the_same_profile() {
        for example in ["local-sandbox", "remote-ssh", "managed-no-ssh"] {
            let (a, applied) = ladder_with(example, &["dbdyno", "ladder", "--profile", example]);
            let mut from_cli = plan_build::ladder_plan(&a).unwrap();
            from_cli.connect.password = None;
            let from_profile = applied.profile.to_plan().unwrap();
            assert_eq!(from_cli, from_profile, "{example}");
        }
    }

    #[test]
    fn command_line_wins_even_when_it_gives_the_default() {
        // local-sandbox says time = 10, prepare = true; 30 is the ladder's default time.
        let (a, applied) = ladder_with(
            "local-sandbox",
            &[
                "dbdyno",
                "ladder",
                "--profile=local-sandbox",
                "--time=30",
                "--prepare=off",
                "--threads=2,3",
                "--env=mine",
            ],
        );
        assert_eq!(a.run.time, Some(30));
        assert!(!a.prepare);
        assert_eq!(a.shape.ladder, [2, 3]);
        assert_eq!(
            a.workload_opts.table_size, 10000,
            "the rest comes from the profile"
        );
        assert_eq!(a.conn.mysql_port, 33306);
        assert_eq!(applied.profile.plan.time, Some(30));
        assert_eq!(applied.profile.plan.threads, Some(vec![2, 3]));
        assert_eq!(applied.profile.name, "mine");
    }

    #[test]
    fn invalid_override_is_refused_before_anything_runs() {
        let e = with_profile(
            &argv(&[
                "dbdyno",
                "ladder",
                "--profile=local-sandbox",
                "--env=bad name",
            ]),
            ToolCli::command(),
            Some("ladder"),
            "local-sandbox",
            &[],
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("name:"), "{e}");
    }
}
