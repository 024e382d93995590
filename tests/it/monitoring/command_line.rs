//! The `monitor` command as a command-line tool: a closed pipe ends it quietly, and the
//! monitoring switches of a benchmark are not among its options (nor `check`'s).

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use dbdyno_tests::*;

#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    let _g = shared_server();
    // `dbdyno monitor | head -1`: the reader goes away while lines are still coming.
    let mut child = dbdyno_cmd()
        .args(["monitor", "--datadir=/", "--duration=4"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("Time (UTC)"), "{first}");
    let o = child.wait_with_output().unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(o.status.code(), Some(101), "{err}");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        o.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?}",
        o.status
    );
}

#[test]
fn monitor_and_check_take_no_monitoring_switches() {
    let _g = shared_server();
    for (cmd, flag) in [
        ("monitor", "--monitor"),
        ("monitor", "--no-monitor"),
        ("check", "--monitor"),
    ] {
        let o = dbdyno_cmd().args([cmd, flag]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd} {flag}");
        assert!(
            stderr(&o).contains(&format!("unexpected argument '{flag}'")),
            "{}",
            stderr(&o)
        );
    }
}
