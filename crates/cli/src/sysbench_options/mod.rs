//! sysbench's whole command line, option by option: each option sysbench 1.0.20 prints,
//! and the older spellings of 0.4 and 0.5, is implemented, taken under its new name
//! with sysbench's deprecation warning, or refused with a one-line reason
//! (docs/cli.md, "Every sysbench option"). One table ([`table::OPTIONS`]) drives the
//! parser ([`translate`]) and the tests that hold it against the docs and against the
//! installed sysbench.

#[cfg(test)]
mod docs;
mod table;
#[cfg(test)]
mod walk;

pub use table::OPTIONS;

/// One option of sysbench's command line and what dbdyno does with it.
#[derive(Debug, Clone, Copy)]
pub struct SysbenchOption {
    /// Dashed, without `--`, as [`crate::args::normalize_args`] spells it.
    pub name: &'static str,
    pub listed_by: ListedBy,
    pub verdict: Handling,
}

/// Where sysbench shows the option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListedBy {
    /// `sysbench --help`: general, random-number, log, database and driver options.
    Help,
    /// `sysbench <script> help` of the OLTP scripts.
    ScriptHelp,
    /// `sysbench <test> help` of a compiled-in test.
    TestHelp(&'static str),
    /// An older sysbench (these versions): 1.0.20 does not list it.
    Older(&'static str),
}

/// What DB Dyno does with one sysbench option: takes it, takes it under its new name, or
/// refuses it (and why).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handling {
    /// dbdyno takes it under this name.
    Implemented,
    /// An older name: taken as the new one, with sysbench's deprecation warning.
    Renamed { to: NewName },
    /// Refused (exit code 2) with this reason.
    Refused { reason: &'static str },
    /// An option of a non-database test: refused with the test's own reason
    /// ([`NON_DATABASE_TESTS`]), so that reason lives in one place.
    RefusedWithItsTest,
    /// An option of a hardware test ([`HARDWARE_TESTS`]): taken by `dbdyno <test>`.
    HardwareTest,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewName {
    /// `--old=V` is `--new=V`.
    Option(&'static str),
    /// `--test=NAME` is the workload `NAME`.
    Workload,
}

/// sysbench's compiled-in tests that DB Dyno runs itself (`dbdyno fileio|cpu|memory`,
/// crates/hwtest), with sysbench's options and output.
pub const HARDWARE_TESTS: [&str; 3] = ["fileio", "cpu", "memory"];

/// sysbench's compiled-in tests that measure no database, and what to use instead.
/// The one place their refusal is written (a test's options are refused with it too).
pub const NON_DATABASE_TESTS: [(&str, &str); 2] = [
    ("threads", "use sysbench threads"),
    ("mutex", "use sysbench mutex"),
];

/// sysbench 1.0.20's own words for `--test`.
pub const TEST_OPTION_NOTE: &str = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.";

impl SysbenchOption {
    /// The warning sysbench prints for an older name, in its words.
    pub fn deprecation_note(&self) -> Option<String> {
        match self.verdict {
            Handling::Renamed {
                to: NewName::Option(to),
            } => Some(format!(
                "WARNING: --{} is deprecated, use --{to} instead",
                self.name
            )),
            Handling::Renamed {
                to: NewName::Workload,
            } => Some(TEST_OPTION_NOTE.to_string()),
            _ => None,
        }
    }

    /// Why it is refused, or None when it is taken.
    pub fn refusal(&self) -> Option<String> {
        match self.verdict {
            Handling::Refused { reason } => Some(reason.to_string()),
            Handling::RefusedWithItsTest => {
                let ListedBy::TestHelp(test) = self.listed_by else {
                    unreachable!("--{}: only a test's options are refused with it", self.name)
                };
                let why = not_a_database_workload(test).expect("a test of NON_DATABASE_TESTS");
                Some(format!("an option of sysbench's {test} test, and {why}"))
            }
            Handling::Implemented | Handling::Renamed { .. } | Handling::HardwareTest => None,
        }
    }
}

/// The option spelled `name` (dashed, without `--`).
pub fn lookup(name: &str) -> Option<&'static SysbenchOption> {
    OPTIONS.iter().find(|o| o.name == name)
}

/// "fileio is not a database workload: use ...", when `word` names such a test.
pub fn not_a_database_workload(word: &str) -> Option<String> {
    NON_DATABASE_TESTS
        .iter()
        .find(|(test, _)| *test == word)
        .map(|(test, instead)| format!("{test} is not a database workload: {instead}"))
}

/// A command line sysbench would take and dbdyno does not.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Refusal {
    #[error("--{option}: {reason}")]
    Option { option: String, reason: String },
    #[error("{0}")]
    Workload(String),
}

/// The command line in today's spelling, and the warnings sysbench prints for it.
#[derive(Debug, PartialEq, Eq)]
pub struct Translated {
    pub args: Vec<String>,
    /// Each older name's warning, once, in the order first given.
    pub notes: Vec<String>,
}

/// Renames older options (`--num-threads=8` is `--threads=8`, `--test=X` names the
/// workload X) and refuses the ones dbdyno does not take, and a non-database test
/// named as the workload. `args` is argv after [`crate::args::normalize_args`]; only
/// option names are looked at, never values, and nothing after `--`.
pub fn translate(args: Vec<String>) -> Result<Translated, Refusal> {
    let mut out = Vec::with_capacity(args.len());
    let mut notes: Vec<String> = Vec::new();
    let mut words = args.into_iter();
    out.extend(words.next()); // the program's name
    for arg in words.by_ref() {
        if arg == "--" {
            out.push(arg);
            break;
        }
        let Some(rest) = arg.strip_prefix("--") else {
            out.push(arg);
            continue;
        };
        let (name, value) = match rest.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (rest, None),
        };
        let Some(option) = lookup(name) else {
            out.push(arg);
            continue;
        };
        if let Some(reason) = option.refusal() {
            return Err(Refusal::Option {
                option: name.to_string(),
                reason,
            });
        }
        if let Some(note) = option.deprecation_note() {
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        match option.verdict {
            Handling::Renamed {
                to: NewName::Option(to),
            } => out.push(match value {
                Some(v) => format!("--{to}={v}"),
                None => format!("--{to}"),
            }),
            // `--test=X` becomes the word X; `--test X` leaves X as the next word.
            Handling::Renamed {
                to: NewName::Workload,
            } => out.extend(value.map(str::to_string)),
            _ => out.push(arg),
        }
    }
    out.extend(words);
    if let Some(why) = crate::spaced_values::first_word(&out).and_then(not_a_database_workload) {
        return Err(Refusal::Workload(why));
    }
    Ok(Translated { args: out, notes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn translated(a: &[&str]) -> Result<Translated, Refusal> {
        translate(crate::args::normalize_args(a.iter().map(|s| s.to_string())))
    }

    #[test]
    fn older_names_become_new_ones_with_sysbenchs_warning() {
        let t = translated(&[
            "dbdyno",
            "--test=oltp_point_select",
            "--num-threads=2",
            "--max_time=5",
            "--oltp-table-size",
            "1000",
            "--num-threads=4",
            "--mysql-db=oltp-table-size",
            "run",
        ])
        .unwrap();
        assert_eq!(
            t.args,
            [
                "dbdyno",
                "oltp_point_select",
                "--threads=2",
                "--time=5",
                "--table-size",
                "1000",
                "--threads=4",
                "--mysql-db=oltp-table-size",
                "run"
            ]
        );
        assert_eq!(
            t.notes,
            [
                TEST_OPTION_NOTE,
                "WARNING: --num-threads is deprecated, use --threads instead",
                "WARNING: --max-time is deprecated, use --time instead",
                "WARNING: --oltp-table-size is deprecated, use --table-size instead",
            ]
        );
        // `--test X`, as sysbench would not take it but a user might type it.
        let t = translated(&["dbdyno", "--test", "oltp_read_write", "run"]).unwrap();
        assert_eq!(t.args, ["dbdyno", "oltp_read_write", "run"]);
    }

    #[test]
    fn todays_names_pass_untouched() {
        let a = [
            "dbdyno",
            "oltp_read_write",
            "--threads=2",
            "--ladder=1,2",
            "run",
        ];
        let t = translated(&a).unwrap();
        assert_eq!(t.args, a);
        assert!(t.notes.is_empty());
        // After `--` nothing is an option.
        let t = translated(&["dbdyno", "--", "--num-threads=2"]).unwrap();
        assert_eq!(t.args, ["dbdyno", "--", "--num-threads=2"]);
    }

    #[test]
    fn refused_options_give_their_reason() {
        let e = translated(&["dbdyno", "oltp_read_write", "--mysql-dry-run", "run"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--mysql-dry-run: a dry run sends nothing to the server, and the server is what dbdyno measures"
        );
        let e = translated(&["dbdyno", "--thread_yields=1", "oltp_read_write", "run"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--thread-yields: an option of sysbench's threads test, and threads is not a database workload: use sysbench threads"
        );
    }

    #[test]
    fn hardware_tests_and_their_options_pass_to_their_command() {
        for test in HARDWARE_TESTS {
            let t = translated(&[
                "dbdyno",
                &format!("--test={test}"),
                "--num-threads=2",
                "run",
            ])
            .unwrap();
            assert_eq!(t.args, ["dbdyno", test, "--threads=2", "run"]);
        }
        let a = [
            "dbdyno",
            "fileio",
            "--file-total-size=8G",
            "--file-test-mode=rndrw",
            "run",
        ];
        assert_eq!(translated(&a).unwrap().args, a);
    }

    #[test]
    fn non_database_tests_are_refused_as_workloads() {
        for test in ["threads", "mutex"] {
            for argv in [
                vec!["dbdyno", test, "run"],
                vec!["dbdyno", "--time=1", &format!("--test={test}"), "run"],
            ] {
                let e = translated(&argv).unwrap_err();
                assert!(
                    e.to_string()
                        .starts_with(&format!("{test} is not a database workload: use ")),
                    "{argv:?}: {e}"
                );
            }
        }
    }
}
