//! Prewarm's hit-rate gate on a cold buffer pool: the scans repeat until one pass hits
//! the pool often enough, and the figures land in the output, the `--json` document and
//! the history; a gate not reached within the maximum wait says so.
//!
//! A cold pool is made by restarting a server of the test's own (a [`PrivateSandbox`],
//! so the test shares the machine with others and restarts no one else's server), whose
//! config turns off `innodb_buffer_pool_dump_at_shutdown`: MariaDB otherwise saves the
//! pool's page list at shutdown and reads those pages back at startup, and the pool is
//! not cold.

use dbdyno_engine::plan::PrewarmOptions;
use dbdyno_engine::{CancelToken, EngineEvent, EventSink, WorkloadOptions};
use dbdyno_tests::*;
use mysql::prelude::Queryable;
use serde_json::Value;

const TABLES: u32 = 2;
const ROWS: u64 = 20_000;
/// The gate. Measured on the sandbox: a pass over these tables hits the pool 78.9% of
/// the time when cold, 99.7% on the second pass and 99.95% when warm.
const GATE: f64 = 99.0;

fn restart_cold(server: &PrivateSandbox, s: &TestSchema) {
    restart_with_a_cold_pool(server, s, u64::from(TABLES));
}

/// A server of the test's own whose buffer pool is empty after each restart: its page
/// list is neither saved at shutdown nor loaded at startup.
pub(crate) fn cold_pool_server(tag: &str) -> PrivateSandbox {
    PrivateSandbox::start(
        tag,
        "innodb_buffer_pool_dump_at_shutdown = OFF\ninnodb_buffer_pool_load_at_startup = OFF",
    )
}

/// Restarts `server` (a [`cold_pool_server`]) and checks that at most the `tables`' root
/// pages of `s` are in its pool (seen: InnoDB reads the clustered index's root page of
/// freshly loaded tables at startup; a pass of the scans reads hundreds of pages).
pub(crate) fn restart_with_a_cold_pool(server: &PrivateSandbox, s: &TestSchema, tables: u64) {
    server.control("restart");
    let pages = pages_in_pool(s);
    assert!(
        pages <= tables,
        "the pool is cold after the restart: {pages} pages of the tables in it"
    );
}

/// Pages of the schema's tables now in the buffer pool.
pub(crate) fn pages_in_pool(s: &TestSchema) -> u64 {
    s.sandbox
        .admin()
        .query_first(format!(
            "SELECT COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE WHERE TABLE_NAME LIKE '`{}`.%'",
            s.name
        ))
        .unwrap()
        .unwrap()
}

fn workload_args() -> [String; 2] {
    [format!("--tables={TABLES}"), format!("--table-size={ROWS}")]
}

#[test]
fn prewarm_waits_for_the_hit_rate_on_a_cold_pool_and_records_it() {
    let _g = shared_server();
    let server = cold_pool_server("prewarm");
    let s = TestSchema::on(server.sandbox(), "prewarm");
    let [tables, size] = workload_args();
    ok(&s.dbdyno(&["oltp_read_only", &tables, &size, "prepare"]));

    // A gate not reached within the maximum wait: one pass allowed, on a cold pool.
    restart_cold(&server, &s);
    let (tx, rx) = crossbeam_channel::unbounded();
    let report = dbdyno_engine::phases::prewarm(
        &s.connect_options(),
        &WorkloadOptions {
            tables: TABLES,
            table_size: ROWS,
            ..Default::default()
        },
        &PrewarmOptions {
            threads: 2,
            until_hit_rate: Some(GATE),
            max_wait_s: 0,
            ..Default::default()
        },
        &EventSink::new(tx),
        &CancelToken::new(),
    )
    .unwrap();
    let warnings: Vec<String> = rx
        .try_iter()
        .filter_map(|e| match e {
            EngineEvent::Warning { text } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(report.reached_threshold, Some(false), "{report:?}");
    assert_eq!(report.passes, 1, "{report:?}");
    assert!(report.window_hit_rate_pct.unwrap() < GATE, "{report:?}");
    assert!(
        warnings.iter().any(|w| w.contains("gave up waiting")
            && w.contains("the maximum wait is 0s")
            && w.contains(&format!("below the {GATE}% asked for"))),
        "{warnings:?}"
    );

    // The sysbench form: the first pass misses, the gate opens on a later one.
    restart_cold(&server, &s);
    let gate = format!("--prewarm-until-hit-rate={GATE}");
    let out = s.dbdyno(&["oltp_read_only", &tables, &size, &gate, "prewarm"]);
    let text = format!("{}{}", ok(&out), stderr(&out));
    assert!(
        text.contains(&format!("(waiting for {GATE}%)")),
        "the cold first pass was below the gate: {text}"
    );
    let reached = text
        .lines()
        .find(|l| l.contains(&format!("reached the {GATE}% asked for after")))
        .unwrap_or_else(|| panic!("the gate opened: {text}"));
    assert!(!reached.contains("after 1 pass "), "{reached}");
    let warm = pages_in_pool(&s);
    assert!(
        warm > 100 * u64::from(TABLES),
        "prewarm read the tables: {warm} pages"
    );

    // The ladder with the gate: the figures in --json and in the history.
    restart_cold(&server, &s);
    let data = tempfile::tempdir().unwrap();
    let json = data.path().join("out.json");
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_read_only",
        "--ladder=1",
        "--time=1",
        &tables,
        &size,
        "--prewarm",
        &gate,
        "--env=it-prewarm",
        &format!("--json={}", json.display()),
        &format!("--data-dir={}", data.path().display()),
    ]));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let prewarm = &doc["outcome"]["prewarm"];
    assert_eq!(prewarm["reached_threshold"], true, "{prewarm}");
    assert!(
        prewarm["window_hit_rate_pct"].as_f64().unwrap() >= GATE,
        "{prewarm}"
    );
    assert!(prewarm["passes"].as_u64().unwrap() >= 2, "{prewarm}");
    assert!(prewarm["seconds"].as_f64().unwrap() > 0.0, "{prewarm}");
    let plan_gate = doc["plan"]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["phase"] == "prewarm")
        .map(|p| p["until_hit_rate"].clone());
    assert_eq!(
        plan_gate,
        Some(Value::from(GATE)),
        "the plan holds the gate"
    );
    assert!(out.contains("asked for after"), "{out}");

    let id = out
        .lines()
        .find_map(|l| l.strip_prefix("Run id: "))
        .and_then(|l| l.split(|c: char| !c.is_ascii_digit()).next())
        .unwrap_or_else(|| panic!("no run id: {out}"))
        .to_string();
    let shown = ok(&dbdyno_cmd()
        .args([
            "runs",
            "show",
            &id,
            "--json",
            &format!("--data-dir={}", data.path().display()),
        ])
        .output()
        .unwrap());
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        &shown["prewarm"], prewarm,
        "the history holds what --json said"
    );
}
