//! A prepare cut short (the client killed halfway through its third table of four) is
//! refused by a plain prepare and continued by `--resume`: the complete tables are kept
//! untouched, the cut one and the one never loaded are loaded again, and the shared
//! verifier (the one the checks and every prepare ask) then finds the whole set.

use std::time::{Duration, Instant};

use dbdyno_tests::*;
use mysql::prelude::Queryable;

const TABLES: u32 = 4;
const ROWS: u64 = 100_000;

fn signal(child: &std::process::Child, sig: &str) {
    let status = std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {sig} {}", child.id());
}

/// Rows of `table`, 0 while it does not exist.
fn rows(c: &mut mysql::Conn, table: &str) -> u64 {
    c.query_first(format!("SELECT COUNT(*) FROM {table}"))
        .unwrap_or(None)
        .unwrap_or(0)
}

fn checksum(c: &mut mysql::Conn, table: &str) -> u64 {
    let row: (String, u64) = c
        .query_first(format!("CHECKSUM TABLE {table}"))
        .unwrap()
        .unwrap();
    row.1
}

#[test]
fn a_prepare_cut_short_is_refused_then_resumed_keeping_the_complete_tables() {
    let _g = shared_server();
    let s = TestSchema::new("resume");
    let tables = format!("--tables={TABLES}");
    let size = format!("--table-size={ROWS}");
    let json = tempfile::NamedTempFile::new().unwrap();

    // One thread loads the tables one after the other, each with its index before the
    // next: stop the client as soon as sbtest3 has rows, so that it is partly loaded.
    let mut child = s.spawn_dbdyno(
        &["oltp_read_write", &tables, &size, "--threads=1", "prepare"],
        json.path(),
    );
    let mut c = s.conn();
    let deadline = Instant::now() + Duration::from_secs(120);
    while rows(&mut c, "sbtest3") == 0 {
        assert!(Instant::now() < deadline, "sbtest3 got no rows in 120 s");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the prepare ended before it was cut"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    signal(&child, "-STOP");
    // The statement in flight (1,000 rows at most) lands or not; then nothing moves.
    std::thread::sleep(Duration::from_millis(500));
    let cut = rows(&mut c, "sbtest3");
    assert!(
        cut > 0 && cut < ROWS,
        "sbtest3 is partly loaded when the client stops: {cut} rows"
    );
    child.kill().unwrap(); // SIGKILL: no cleanup of any kind on the client's side
    let _ = child.wait();
    assert_eq!(rows(&mut c, "sbtest4"), 0, "sbtest4 was not loaded yet");
    let kept: Vec<u64> = ["sbtest1", "sbtest2"]
        .iter()
        .map(|t| checksum(&mut c, t))
        .collect();

    // A plain prepare refuses the cut-short set, and says how to go on.
    let refused = s.dbdyno(&["oltp_read_write", &tables, &size, "prepare"]);
    assert!(!refused.status.success(), "{}", stdout(&refused));
    let why = stderr(&refused);
    assert!(
        why.contains("sbtest3 holds") && why.contains("--resume"),
        "{why}"
    );

    let resumed = ok(&s.dbdyno(&[
        "oltp_read_write",
        &tables,
        &size,
        "--threads=2",
        "--resume",
        "prepare",
    ]));
    assert!(
        resumed
            .contains("Resuming: keeping 2 tables of 4 (sbtest1, sbtest2), complete and verified"),
        "{resumed}"
    );
    for t in ["sbtest3", "sbtest4"] {
        assert!(
            resumed.contains(&format!("Resuming: {t} is incomplete ({t} holds")),
            "{t}: {resumed}"
        );
        assert!(
            resumed.contains(&format!("Creating table '{t}'")),
            "{resumed}"
        );
    }
    assert!(!resumed.contains("Creating table 'sbtest1'"), "{resumed}");
    assert!(
        resumed.contains(&format!("Prepared 4 tables, {} rows", 2 * ROWS)),
        "only the two tables loaded again count: {resumed}"
    );
    let after: Vec<u64> = ["sbtest1", "sbtest2"]
        .iter()
        .map(|t| checksum(&mut c, t))
        .collect();
    assert_eq!(after, kept, "the complete tables are kept as they were");

    // The verifier every prepare and the checks ask finds the whole set now.
    let again = ok(&s.dbdyno(&["oltp_read_write", &tables, &size, "prepare"]));
    assert!(
        again.contains(&format!("Reusing sbtest1..4: 4 × {} rows", "100,000")),
        "{again}"
    );
    for t in 1..=TABLES {
        let idx: Vec<String> = c
            .exec(
                "SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS \
                 WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY INDEX_NAME = 'PRIMARY' DESC",
                (format!("sbtest{t}"),),
            )
            .unwrap();
        assert_eq!(idx, ["PRIMARY".to_string(), format!("k_{t}")], "sbtest{t}");
    }
}
