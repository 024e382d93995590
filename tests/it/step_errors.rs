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
        stderr(&out).contains("FAILED STEPS: 1 step(s)") && stderr(&out).contains("@ 16 threads"),
        "{text}"
    );
    assert!(
        doc["outcome"]["dropped_tables"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "cleanup still ran: {doc}"
    );

    let (out, doc) = run(None, "stop.json");
    let text = format!("{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "the default stops: {text}");
    assert_eq!(measured_threads(&doc), [1], "nothing ran after it: {text}");
    assert!(doc["outcome"]["failed_steps"].is_null(), "{doc}");
}
