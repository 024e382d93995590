//! The tests that walk the table: against dbdyno's own parser, and against the
//! installed sysbench's help output and warnings (scripts/deps.sh installs it).

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use clap::{CommandFactory, Parser};

use super::*;
use crate::args::{ToolCli, WorkloadCli};

/// Printed by `sysbench --help` only when sysbench is built with its bundled LuaJIT
/// (the distributions' packages use the system's and leave it out).
const BUNDLED_LUAJIT_ONLY: [&str; 1] = ["luajit-cmd"];

/// Every long option of `cmd` and its subcommands, at any depth.
fn long_options(mut cmd: clap::Command) -> BTreeSet<String> {
    cmd.build();
    let mut out: BTreeSet<String> = cmd
        .get_arguments()
        .flat_map(|a| {
            a.get_long()
                .into_iter()
                .chain(a.get_all_aliases().into_iter().flatten())
        })
        .map(str::to_string)
        .collect();
    for sub in cmd.get_subcommands() {
        out.extend(long_options(sub.clone()));
    }
    out
}

#[test]
fn each_option_has_one_row() {
    let mut seen = BTreeSet::new();
    for o in OPTIONS {
        assert!(seen.insert(o.name), "--{} twice", o.name);
        assert!(
            !o.name.contains('_') && !o.name.starts_with('-'),
            "--{}: dashed and without --",
            o.name
        );
    }
}

/// Implemented means the sysbench form takes it; a rename points at an option it
/// takes; and no command of dbdyno has an option of the name a rename or a refusal
/// takes away ([`translate`] runs before every command).
#[test]
fn the_verdicts_agree_with_the_parser() {
    let sysbench_form = long_options(WorkloadCli::command());
    let every_command = long_options(ToolCli::command())
        .union(&sysbench_form)
        .cloned()
        .collect::<BTreeSet<_>>();
    for o in OPTIONS {
        match o.verdict {
            Handling::Implemented => assert!(
                sysbench_form.contains(o.name),
                "--{} is called implemented but `dbdyno <workload>` has no such option",
                o.name
            ),
            Handling::Renamed { to } => {
                if let NewName::Option(to) = to {
                    assert!(sysbench_form.contains(to), "--{} → --{to}", o.name);
                }
                assert!(!every_command.contains(o.name), "--{} is taken", o.name);
            }
            Handling::Refused { .. } | Handling::RefusedWithItsTest => {
                assert!(!every_command.contains(o.name), "--{} is taken", o.name)
            }
            Handling::HardwareTest => {
                let ListedBy::TestHelp(test) = o.listed_by else {
                    panic!(
                        "--{}: a hardware test's option is listed by its test",
                        o.name
                    )
                };
                let kind = dbdyno_hwtest::TestKind::from_name(test).expect("a hardware test");
                let taken = dbdyno_hwtest::HwTestOptions::from_pairs(
                    kind,
                    &[(o.name.to_string(), String::new())],
                );
                assert!(
                    !matches!(taken, Err(dbdyno_hwtest::OptionError::Unknown { .. })),
                    "--{} is called a {test} option but `dbdyno {test}` does not know it",
                    o.name
                );
            }
        }
        let of_a_test = matches!(o.listed_by, ListedBy::TestHelp(_));
        let hardware = matches!(o.listed_by, ListedBy::TestHelp(t) if HARDWARE_TESTS.contains(&t));
        assert_eq!(
            o.verdict == Handling::RefusedWithItsTest,
            of_a_test && !hardware,
            "--{}: a non-database test's options, and only they, are refused with their test",
            o.name
        );
        assert_eq!(
            o.verdict == Handling::HardwareTest,
            hardware,
            "--{}",
            o.name
        );
    }
}

/// Each row through the parser: an implemented option parses, a renamed one parses as
/// its new name with its warning, a refused one is refused with its reason.
#[test]
fn each_row_through_the_parser() {
    for o in OPTIONS {
        let argv = ["dbdyno", "oltp_read_write"]
            .into_iter()
            .map(String::from)
            .chain([format!("--{}=1", o.name), "run".to_string()])
            .collect::<Vec<_>>();
        let t = translate(argv);
        match o.verdict {
            Handling::Implemented | Handling::HardwareTest => {
                let t = t.unwrap();
                assert_eq!(t.args[2], format!("--{}=1", o.name));
                assert!(t.notes.is_empty());
            }
            Handling::Renamed { to } => {
                let t = t.unwrap();
                match to {
                    NewName::Option(to) => assert_eq!(t.args[2], format!("--{to}=1")),
                    NewName::Workload => assert_eq!(t.args[2], "1"),
                }
                assert_eq!(t.notes, [o.deprecation_note().unwrap()]);
            }
            Handling::Refused { .. } | Handling::RefusedWithItsTest => assert_eq!(
                t.unwrap_err(),
                Refusal::Option {
                    option: o.name.to_string(),
                    reason: o.refusal().unwrap()
                }
            ),
        }
    }
    // The renamed ones parse: sysbench's usual old line is a valid dbdyno line.
    let t = translate(crate::args::normalize_args(
        [
            "dbdyno",
            "--test=oltp_point_select",
            "--num-threads=2",
            "--max-time=2",
            "--max-requests=0",
            "--tx-rate=0",
            "--oltp-tables-count=2",
            "--oltp-table-size=1000",
            "--mysql-table-engine=innodb",
            "--oltp-dist-type=uniform",
            "run",
        ]
        .map(String::from),
    ))
    .unwrap();
    let cli = WorkloadCli::try_parse_from(t.args).unwrap();
    assert_eq!(cli.workload, "oltp_point_select");
    assert_eq!((cli.threads, cli.run.time), (2, Some(2)));
    assert_eq!(cli.workload_opts.tables, 2);
    assert_eq!(cli.workload_opts.table_size, 1000);
    assert_eq!(cli.workload_opts.rand_type, "uniform");
}

/// The installed sysbench's output, or None when it is not installed (CI installs it).
fn sysbench(args: &[&str]) -> Option<String> {
    let o = Command::new("sysbench").args(args).output().ok()?;
    Some(String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr))
}

/// `--name` of each line of a help text that starts with an option, dashed.
fn options_in(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter_map(|l| l.trim_start().strip_prefix("--"))
        .map(|l| {
            l.split(|c: char| c == '=' || c == '[' || c.is_whitespace())
                .next()
                .unwrap_or_default()
                .replace('_', "-")
        })
        .collect()
}

/// The names under "Compiled-in tests:" in `sysbench --help`.
fn compiled_in_tests(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Compiled-in tests:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Every option the installed sysbench 1.0.20 prints has its row, and each row says
/// where sysbench prints it; its older names are the ones it warns about or no longer
/// knows, and its warnings are the words dbdyno prints.
#[test]
fn every_option_sysbench_prints_has_its_row() {
    let Some(help) = sysbench(&["--help"]) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "sysbench is not installed (scripts/deps.sh installs it)"
        );
        eprintln!("sysbench is not installed: the walk over its help is skipped");
        return;
    };
    assert!(help.contains("General options:"), "{help}");
    let mut printed: BTreeMap<String, ListedBy> = BTreeMap::new();
    for name in options_in(&help) {
        printed.insert(name, ListedBy::Help);
    }
    for script in dbdyno_engine::Scenario::ALL.map(|s| s.name()) {
        // bulk_insert.lua has no `help`; the others print oltp_common.lua's options
        // and their own.
        for name in options_in(&sysbench(&[script, "help"]).unwrap()) {
            printed.entry(name).or_insert(ListedBy::ScriptHelp);
        }
    }
    let tests = compiled_in_tests(&help);
    let compiled_in: Vec<&str> = HARDWARE_TESTS
        .into_iter()
        .chain(NON_DATABASE_TESTS.map(|(t, _)| t))
        .collect();
    assert_eq!(tests, compiled_in, "{help}");
    for test in compiled_in {
        let test_help = sysbench(&[test, "help"]).unwrap();
        for name in options_in(&test_help) {
            printed.insert(name, ListedBy::TestHelp(test));
        }
    }
    assert!(printed.len() > 80, "{printed:?}");
    let missing: Vec<_> = printed
        .keys()
        .filter(|n| lookup(n).is_none())
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "sysbench prints, the table lacks: {missing:?}"
    );
    for o in OPTIONS {
        match o.listed_by {
            ListedBy::Older(_) => {
                assert!(!printed.contains_key(o.name), "--{} is printed", o.name);
                older_name_is_unknown_or_warned(o);
            }
            _ if BUNDLED_LUAJIT_ONLY.contains(&o.name) => {}
            listed => assert_eq!(printed.get(o.name), Some(&listed), "--{}", o.name),
        }
        if o.listed_by == ListedBy::Help {
            if let Handling::Renamed { .. } = o.verdict {
                let line = help.lines().find(|l| l.contains(&format!("--{}=", o.name)));
                assert!(
                    line.is_some_and(|l| l.contains("deprecated alias")),
                    "{line:?}"
                );
                same_warning_as_sysbench(o);
            }
        }
    }
}

/// sysbench 1.0.20 warns about `--test` in the words dbdyno uses, and refuses the
/// other older names as invalid options.
fn older_name_is_unknown_or_warned(o: &SysbenchOption) {
    if o.verdict
        == (Handling::Renamed {
            to: NewName::Workload,
        })
    {
        same_warning_as_sysbench(o);
        return;
    }
    let out = sysbench(&[&format!("--{}=2", o.name), "cpu", "help"]).unwrap();
    assert!(
        out.contains(&format!("invalid option: --{}=2", o.name)),
        "sysbench 1.0.20 still knows --{}: {out}",
        o.name
    );
}

fn same_warning_as_sysbench(o: &SysbenchOption) {
    // 2, not 1: sysbench keeps quiet about an old name given its default value.
    let arg = match o.verdict {
        Handling::Renamed {
            to: NewName::Workload,
        } => format!("--{}=cpu", o.name),
        _ => format!("--{}=2", o.name),
    };
    let out = sysbench(&[&arg, "cpu", "help"]).unwrap();
    let note = o.deprecation_note().unwrap();
    assert!(
        out.lines().any(|l| l == note),
        "sysbench {arg} says\n{out}\nnot {note}"
    );
}

#[test]
fn help_lines_are_read_as_sysbench_writes_them() {
    let help = "General options:\n  --threads=N   number [1]\n  --debug[=on|off] x\n  --auto_inc[=on|off] y\n\nCompiled-in tests:\n  fileio - File I/O test\n  cpu - CPU\n\nSee";
    assert_eq!(
        options_in(help),
        ["auto-inc", "debug", "threads"].map(String::from).into()
    );
    assert_eq!(compiled_in_tests(help), ["fileio", "cpu"]);
}
