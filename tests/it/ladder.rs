//! The ladder: scenarios × thread counts with prepare and cleanup around them.

use dbdyno_tests::*;
use serde_json::Value;

#[test]
fn short_ladder_prepares_runs_every_step_and_cleans_up() {
    let _g = shared_server();
    let s = TestSchema::new("ladder");
    let file = tempfile::NamedTempFile::new().unwrap();
    let json = format!("--json={}", file.path().display());
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=oltp_point_select,oltp_read_write",
        "--ladder=1,2",
        "--time=2",
        "--cooldown=1",
        "--tables=2",
        "--table-size=2000",
        "--prepare",
        "--prewarm",
        "--cleanup",
        &json,
    ]));
    assert!(out.contains("Buffer pool hit rate"), "{out}");
    assert!(out.contains("cool-down 1s"), "{out}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    let got: Vec<(String, u64)> = steps
        .iter()
        .map(|s| {
            (
                s["scenario"].as_str().unwrap().to_string(),
                s["threads"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("oltp_point_select".to_string(), 1),
            ("oltp_point_select".to_string(), 2),
            ("oltp_read_write".to_string(), 1),
            ("oltp_read_write".to_string(), 2)
        ]
    );
    for st in steps {
        assert!(st["transactions"].as_u64().unwrap() > 0);
        assert_eq!(st["intervals"].as_array().unwrap().len(), 2);
    }
    assert_eq!(doc["outcome"]["prepare"]["rows"], 4000);
    assert!(
        doc["plan"]["connect"].get("password").is_none(),
        "no secret in the JSON"
    );
    assert!(
        s.tables().is_empty(),
        "cleanup dropped the tables: {:?}",
        s.tables()
    );
}
