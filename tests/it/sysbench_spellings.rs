//! sysbench's older spellings on the real binary: the line an old script types runs
//! with the values it meant, and prints sysbench's own warnings; sysbench's tests that
//! are not database workloads are refused before anything connects.

use std::process::Command;

use dbdyno_tests::*;
use serde_json::Value;

/// The `WARNING:` lines the installed sysbench prints for this command line, or None
/// when sysbench is not installed (scripts/deps.sh installs it; CI must have it).
fn sysbench_warnings(args: &[&str]) -> Option<Vec<String>> {
    let Ok(o) = Command::new("sysbench").args(args).output() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "sysbench is not installed (scripts/deps.sh installs it)"
        );
        eprintln!("sysbench is not installed: its warnings are not compared");
        return None;
    };
    let text =
        String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    Some(
        text.lines()
            .filter(|l| l.starts_with("WARNING:"))
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn an_old_sysbench_line_runs_with_its_values_and_sysbenchs_warnings() {
    let _g = shared_server();
    let s = TestSchema::new("spellings");
    let out = ok(&s.dbdyno(&[
        "--test=oltp_point_select",
        "--oltp-tables-count=2",
        "--oltp_table_size=1000",
        "--mysql-table-engine=innodb",
        "prepare",
    ]));
    assert_eq!(s.tables(), ["sbtest1", "sbtest2"], "{out}");
    assert_eq!(s.count("sbtest2"), 1000);
    assert!(
        out.contains(
            "WARNING: --mysql-table-engine is deprecated, use --mysql-storage-engine instead\n"
        ),
        "{out}"
    );

    let file = tempfile::NamedTempFile::new().unwrap();
    let json = format!("--json={}", file.path().display());
    let known_to_sysbench = ["--num-threads=2", "--max-time=2", "--max-requests=0"];
    let mut args = vec!["--test=oltp_point_select"];
    args.extend(known_to_sysbench);
    args.extend([
        "--oltp-table-size=1000",
        "--oltp-tables-count=2",
        &json,
        "run",
    ]);
    let o = s.dbdyno(&args);
    let out = ok(&o);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let step = &doc["plan"]["phases"][0];
    assert_eq!(step["scenario"], "oltp_point_select", "{step}");
    assert_eq!(step["threads"], 2, "{step}");
    assert_eq!(step["settings"]["time_s"], 2, "{step}");
    assert_eq!(doc["plan"]["workload"]["table_size"], 1000);
    assert_eq!(doc["plan"]["workload"]["tables"], 2);
    assert_eq!(doc["outcome"]["steps"][0]["threads"], 2);

    // As sysbench does: the warnings first, then its header; the one about --test on
    // stderr, the others on stdout.
    let test_warning = "WARNING: the --test option is deprecated. You can pass a script name or path on the command line without any options.";
    assert_eq!(
        stderr(&o).lines().next(),
        Some(test_warning),
        "{}",
        stderr(&o)
    );
    let mut warnings: Vec<&str> = out
        .lines()
        .take_while(|l| l.starts_with("WARNING:"))
        .collect();
    assert_eq!(
        warnings,
        [
            "WARNING: --num-threads is deprecated, use --threads instead",
            "WARNING: --max-time is deprecated, use --time instead",
            "WARNING: --max-requests is deprecated, use --events instead",
            "WARNING: --oltp-table-size is deprecated, use --table-size instead",
            "WARNING: --oltp-tables-count is deprecated, use --tables instead",
        ],
        "{out}"
    );
    assert!(
        out.contains("Running the test with following options"),
        "{out}"
    );
    // Word for word what sysbench 1.0.20 says for the names it still knows
    // (--max-requests=0 is its default, about which it keeps quiet).
    warnings.push(test_warning);
    if let Some(theirs) =
        sysbench_warnings(&["--test=cpu", "--num-threads=2", "--max-time=2", "help"])
    {
        assert_eq!(theirs.len(), 3, "{theirs:?}");
        for line in &theirs {
            assert!(
                warnings.contains(&line.as_str()),
                "sysbench: {line}\ndbdyno:\n{out}"
            );
        }
    }
}

#[test]
fn non_database_tests_and_their_options_are_refused_with_a_reason() {
    let _g = shared_server();
    for (args, says) in [
        (
            &["threads", "--thread-yields=10", "run"][..],
            "FATAL: --thread-yields: an option of sysbench's threads test, and threads is not a database workload: use sysbench threads",
        ),
        (
            &["--test=mutex", "--mutex-num=8", "run"],
            "FATAL: --mutex-num: an option of sysbench's mutex test, and mutex is not a database workload",
        ),
        (&["--test=threads", "run"], "FATAL: threads is not a database workload: use sysbench threads"),
        (&["mutex", "run"], "FATAL: mutex is not a database workload: use sysbench mutex"),
        (
            &["oltp_read_write", "--mysql-dry-run", "run"],
            "FATAL: --mysql-dry-run: a dry run sends nothing to the server",
        ),
    ] {
        // Port 1: had anything tried to connect, the error would be another.
        let o = dbdyno_cmd()
            .args(args)
            .args(["--mysql-host=127.0.0.1", "--mysql-port=1"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with(says), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
}

/// A DB Dyno command's stdout may be JSON: there the warnings go to stderr.
#[test]
fn a_ladder_prints_the_warnings_on_stderr() {
    let _g = shared_server();
    // Port 1: the checks refuse the plan at once; the warning comes before them.
    let o = dbdyno_cmd()
        .args(["ladder", "--max-time=1", "--num-threads=1", "--no-history"])
        .args(["--mysql-host=127.0.0.1", "--mysql-port=1"])
        .output()
        .unwrap();
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    let err = stderr(&o);
    let warnings: Vec<&str> = err.lines().take(2).collect();
    assert_eq!(
        warnings,
        [
            "WARNING: --max-time is deprecated, use --time instead",
            "WARNING: --num-threads is deprecated, use --threads instead",
        ],
        "{err}"
    );
}

/// sysbench takes an option's value only after '=': `sysbench --threads 8
/// oltp_read_write run` stops at "Unrecognized command line argument: run". dbdyno
/// refuses it too, before connecting, with one line that names the fix (it took `8` for
/// the workload's place before).
#[test]
fn a_value_spaced_apart_from_its_option_is_refused_as_sysbench_does_naming_the_fix() {
    let _g = shared_server();
    for (args, given) in [
        (
            &["--threads", "8", "oltp_read_write", "run"][..],
            "--threads 8",
        ),
        (&["--time", "5", "oltp_point_select", "run"], "--time 5"),
        (
            &["oltp_read_write", "--table_size", "100", "run"],
            "--table-size 100",
        ),
        (
            &["--skip-trx", "on", "oltp_read_write", "run"],
            "--skip-trx on",
        ),
    ] {
        if let Ok(o) = Command::new("sysbench").args(args).output() {
            assert_ne!(o.status.code(), Some(0), "sysbench took {args:?}");
        }
        let o = dbdyno_cmd()
            .args(args)
            .args(["--mysql-host=127.0.0.1", "--mysql-port=1"])
            .output()
            .unwrap();
        let fix = given.replacen(' ', "=", 1);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            format!(
                "FATAL: {given}: write {fix} (as in sysbench, an option's value follows '=')\n"
            ),
            "{args:?}"
        );
    }
}

/// A bare switch means on, as in sysbench, and leaves the next word to the workload.
#[test]
fn a_bare_switch_before_the_workload_leaves_it_the_workload() {
    let _g = shared_server();
    let s = TestSchema::new("bare_switch");
    let out = ok(&s.dbdyno(&[
        "--skip-trx",
        "oltp_point_select",
        "--tables=1",
        "--table-size=100",
        "prepare",
    ]));
    assert_eq!(s.tables(), ["sbtest1"], "{out}");
    assert_eq!(s.count("sbtest1"), 100);
}
