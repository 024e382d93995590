//! The ladder's error policy (`--on-step-error`): a step whose connections cannot all
//! open stops the run, or is recorded as failed while the ladder goes on.

use dbdyno_tests::*;
use serde_json::Value;

/// Exit code of a run that went on past failed steps (docs/cli.md "Exit codes").
const EXIT_STEPS_FAILED: i32 = 5;

/// Threads of each step, in the order the ladder ran them.
fn measured_threads(doc: &Value) -> Vec<u64> {
    doc["outcome"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["threads"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_step_that_cannot_open_its_connections_stops_the_ladder_or_is_skipped_as_the_policy_says() {
    let _g = shared_server();
    // max_user_connections = 8: the middle step's 16 connections cannot all open, and
    // the server's refusal (1203) is final, not a crowd that may thin out (1040).
    let server = PrivateSandbox::start("steperr", "max_user_connections = 8");
    let dir = tempfile::tempdir().unwrap();
    let run = |policy: Option<&str>, name: &str| {
        let json = dir.path().join(name);
        let mut args = vec![
            "ladder".to_string(),
            "--scenarios=oltp_point_select".into(),
            "--threads=1,16,2".into(),
            "--tables=1".into(),
            "--table-size=1000".into(),
            "--time=1".into(),
            "--prepare".into(),
            "--cleanup".into(),
            "--skip-checks".into(),
            "--no-monitor".into(),
            "--no-history".into(),
            format!("--json={}", json.display()),
        ];
        args.extend(policy.map(|p| format!("--on-step-error={p}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = server.dbdyno(&args);
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default())
            .unwrap_or(Value::Null);
        (out, doc)
    };

    let (out, doc) = run(Some("continue"), "continue.json");
    let text = format!("{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(EXIT_STEPS_FAILED), "{text}");
    assert_eq!(
        measured_threads(&doc),
        [1, 2],
        "the steps around it ran: {text}"
    );
    let failed = &doc["outcome"]["failed_steps"];
    assert_eq!(failed.as_array().map(Vec::len), Some(1), "{doc}");
    assert!(
        failed[0]["label"]
            .as_str()
            .unwrap()
            .contains("@ 16 threads"),
        "{failed}"
    );
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("of 16 connections"),
        "how many opened is said: {failed}"
    );
    assert!(
        stderr(&out).contains("FAILED STEPS: 1 step failed and was not measured")
            && stderr(&out).contains("@ 16 threads"),
        "{text}"
    );
    assert!(
        doc["outcome"]["dropped_tables"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "cleanup still ran: {doc}"
    );

    // Before the run that stops, which leaves its tables behind.
    a_run_past_a_failed_step_is_recorded_partial(&server);

    let (out, doc) = run(None, "stop.json");
    let text = format!("{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "the default stops: {text}");
    assert_eq!(measured_threads(&doc), [1], "nothing ran after it: {text}");
    assert!(doc["outcome"]["failed_steps"].is_null(), "{doc}");
}

/// The history keeps such a run as `partial`, not `complete`: `runs list` and `runs
/// show` name the state, `runs show` and the report name the failed step and why.
fn a_run_past_a_failed_step_is_recorded_partial(server: &PrivateSandbox) {
    let data = tempfile::tempdir().unwrap();
    let dd = format!("--data-dir={}", data.path().display());
    let out = server.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select",
        "--threads=1,16,2",
        "--tables=1",
        "--table-size=1000",
        "--time=1",
        "--prepare",
        "--cleanup",
        "--skip-checks",
        "--no-monitor",
        "--on-step-error=continue",
        "--env=partial-it",
        &dd,
    ]);
    let text = format!("{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(EXIT_STEPS_FAILED), "{text}");
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("Run id: "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("no run id: {text}"))
        .to_string();
    let dbdyno = |args: &[&str]| {
        let mut all: Vec<&str> = args.to_vec();
        all.push(&dd);
        ok(&dbdyno_cmd().args(&all).output().unwrap())
    };

    let list = dbdyno(&["runs", "list"]);
    let row = list
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("run {id} not listed: {list}"));
    assert!(row.contains(" partial "), "{row}");

    let shown = dbdyno(&["runs", "show", &id]);
    assert!(
        shown.starts_with(&format!("Run {id} — env partial-it — partial\n")),
        "{shown}"
    );
    let failed = shown
        .split_once("failed steps (not measured; the others ran):\n")
        .map(|(_, rest)| rest.lines().next().unwrap_or_default().to_string())
        .unwrap_or_else(|| panic!("no failed steps: {shown}"));
    assert!(
        failed.contains("@ 16 threads") && failed.contains("of 16 connections"),
        "the failed step and how many of its connections opened: {failed}"
    );
    let json: Value = serde_json::from_str(&dbdyno(&["runs", "show", &id, "--json"])).unwrap();
    assert_eq!(json["state"], "partial", "{json}");
    assert_eq!(
        json["steps"].as_array().map(Vec::len),
        Some(2),
        "the steps around it are kept"
    );

    let md = data.path().join("r.md");
    dbdyno(&[
        "report",
        &format!("--runs={id}"),
        &format!("--md={}", md.display()),
    ]);
    let md = std::fs::read_to_string(md).unwrap();
    assert!(md.contains("the run is partial"), "{md}");
    assert!(
        md.lines()
            .any(|l| l.contains("@ 16 threads") && l.contains("of 16 connections")),
        "the report says which step failed and why: {md}"
    );
}
