//! sysbench 1.0.20 reads an option's value only after '=' (`--threads=8`). Spaced apart,
//! `sysbench --threads 8 oltp_read_write run` takes `8` for the test's name and stops at
//! "Unrecognized command line argument: run"; dbdyno took `8` for its first word and went
//! on with a confusing error, or a bare switch swallowed the workload's name
//! (`--histogram oltp_read_write run`). In sysbench's grammar dbdyno now does what
//! sysbench does: a bare switch means on and never takes the next word, and a value
//! spaced apart is refused with one line that names the fix. DB Dyno's own commands
//! (`ladder`, `runs`, ...) are not sysbench's and take either form.

use std::sync::LazyLock;

use clap::{Arg, Command, CommandFactory};

use crate::args::WorkloadCli;

/// An option of sysbench's grammar given its value after a space.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{given}: write {fix} (as in sysbench, an option's value follows '=')")]
pub struct SpacedValue {
    /// As typed: `--threads 8`.
    pub given: String,
    /// `--threads=8`.
    pub fix: String,
}

/// The sysbench form's command as dbdyno parses it: an option whose value may be left
/// out (a switch, `--mysql-password` to be asked) takes one only after '='.
pub fn workload_command() -> Command {
    WorkloadCli::command().mut_args(|a| {
        if value_is_optional(&a) {
            a.require_equals(true)
        } else {
            a
        }
    })
}

/// `--threads` and every other option of the sysbench form that must have a value:
/// the word after it spelled bare is that value, not the workload.
pub fn needs_a_value(option: &str) -> bool {
    static NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
        WorkloadCli::command()
            .get_arguments()
            .filter(|a| value_is_required(a))
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect()
    });
    NAMES.iter().any(|n| n == option)
}

/// Refuses a value given apart from its option in a sysbench-form command line (argv
/// after [`crate::args::normalize_args`]). A switch's value (`--skip-trx on`) counts as
/// spaced only when the line then has more words than a workload and its command, as
/// sysbench would have met one word too many.
pub fn refuse(argv: &[String]) -> Result<(), SpacedValue> {
    let cmd = workload_command();
    let args: Vec<&str> = argv
        .iter()
        .skip(1)
        .map(String::as_str)
        .take_while(|a| *a != "--")
        .collect();
    let words = args.iter().filter(|a| !a.starts_with('-')).count();
    for pair in args.windows(2) {
        let (option, next) = (pair[0], pair[1]);
        let Some(name) = option.strip_prefix("--") else {
            continue;
        };
        if name.contains('=') || next.starts_with('-') {
            continue;
        }
        let Some(arg) = cmd.get_arguments().find(|a| a.get_long() == Some(name)) else {
            continue;
        };
        let spaced = value_is_required(arg)
            || (value_is_optional(arg) && words > 2 && accepts(&cmd, arg, next));
        if spaced {
            let value = if name.contains("password") {
                "<password>"
            } else {
                next
            };
            return Err(SpacedValue {
                given: format!("{option} {value}"),
                fix: format!("{option}={value}"),
            });
        }
    }
    Ok(())
}

fn value_is_required(a: &Arg) -> bool {
    // Before the command is built, an option declared without num_args has None: one value.
    a.get_long().is_some()
        && a.get_action().takes_values()
        && a.get_num_args().is_none_or(|n| n.min_values() >= 1)
}

fn value_is_optional(a: &Arg) -> bool {
    a.get_num_args()
        .is_some_and(|n| n.min_values() == 0 && n.takes_values())
}

/// Whether `--option=value` parses in `cmd`: `on` is a switch's value, `run` is not.
fn accepts(cmd: &Command, arg: &Arg, value: &str) -> bool {
    let long = arg.get_long().unwrap_or_default();
    // The whole command, so the option's conflicts and value parser are its own; the
    // workload and its command are there only because clap requires them.
    cmd.clone()
        .try_get_matches_from(["dbdyno", &format!("--{long}={value}"), "w", "run"])
        .is_ok()
}

/// Which grammar argv uses: the first word that is not an option decides. The value of
/// an option spelled apart (`--data-dir X runs list`, `--threads 8 oltp_read_write run`,
/// which sysbench's grammar then refuses) is not that word.
pub fn first_word(args: &[String]) -> Option<&str> {
    let mut words = args.iter().skip(1).map(String::as_str);
    while let Some(a) = words.next() {
        if !a.starts_with('-') {
            return Some(a);
        }
        if SPACED_VALUE_OPTIONS.contains(&a) || needs_a_value(a) {
            words.next();
        }
    }
    None
}

/// The [`GlobalOpts`] that take a value: `--data-dir X` before the command.
pub(crate) const SPACED_VALUE_OPTIONS: [&str; 1] = ["--data-dir"];

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        crate::args::normalize_args(
            std::iter::once("dbdyno")
                .chain(a.iter().copied())
                .map(String::from),
        )
    }

    fn refused(a: &[&str]) -> Option<String> {
        refuse(&argv(a)).err().map(|e| e.to_string())
    }

    #[test]
    fn a_value_spaced_apart_is_refused_with_its_fix() {
        for (line, given) in [
            (
                &["--threads", "8", "oltp_read_write", "run"][..],
                "--threads 8",
            ),
            (&["--time", "5", "oltp_point_select", "run"], "--time 5"),
            (&["oltp_read_write", "--threads", "8", "run"], "--threads 8"),
            (
                &["oltp_read_write", "run", "--table_size", "10"],
                "--table-size 10",
            ),
            // One word short of a whole line: sysbench says --threads is 0.
            (&["--threads", "8", "oltp_read_write"], "--threads 8"),
            (
                &["--db-driver", "mysql", "oltp_read_write", "run"],
                "--db-driver mysql",
            ),
            (
                &["--skip_trx", "on", "oltp_read_write", "run"],
                "--skip-trx on",
            ),
            (
                &["oltp_read_write", "--histogram", "off", "run"],
                "--histogram off",
            ),
        ] {
            let fix = given.replacen(' ', "=", 1);
            assert_eq!(
                refused(line).as_deref(),
                Some(
                    format!("{given}: write {fix} (as in sysbench, an option's value follows '=')")
                        .as_str()
                ),
                "{line:?}"
            );
        }
    }

    #[test]
    fn a_password_spaced_apart_is_not_echoed() {
        let e = refused(&["--mysql-password", "s3cret", "oltp_read_write", "run"]).unwrap();
        assert!(!e.contains("s3cret"), "{e}");
        assert!(e.contains("write --mysql-password=<password>"), "{e}");
    }

    #[test]
    fn lines_sysbench_takes_are_left_alone() {
        for line in [
            &["--threads=8", "oltp_read_write", "run"][..],
            &["oltp_read_write", "--threads=8", "run"],
            // A bare switch is on, and the next word is the workload or the command.
            &["--histogram", "oltp_read_write", "run"],
            &["oltp_read_write", "--skip-trx", "run"],
            &["--mysql-password", "oltp_read_write", "run"],
            // After `--` nothing is an option.
            &["oltp_read_write", "run", "--", "--threads", "8"],
        ] {
            assert_eq!(refused(line), None, "{line:?}");
        }
    }

    #[test]
    fn a_bare_switch_leaves_the_next_word_to_the_workload() {
        for line in [
            &["--histogram", "oltp_read_write", "run"][..],
            &["oltp_read_write", "--skip-trx", "run"],
        ] {
            let m = workload_command()
                .try_get_matches_from(argv(line))
                .unwrap_or_else(|e| panic!("{line:?}: {e}"));
            assert_eq!(m.get_one::<String>("workload").unwrap(), "oltp_read_write");
        }
    }

    #[test]
    fn options_that_need_a_value_are_known_by_their_spelling() {
        assert!(needs_a_value("--threads"));
        assert!(needs_a_value("--table-size"));
        assert!(needs_a_value("--data-dir"));
        assert!(!needs_a_value("--histogram"));
        assert!(!needs_a_value("--mysql-password"));
        assert!(!needs_a_value("--no-history"));
        assert!(!needs_a_value("oltp_read_write"));
    }
}
