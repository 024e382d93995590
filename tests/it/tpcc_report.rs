//! A tpcc ladder recorded to the history reports its TPC-C figures in every format: the
//! tpmC of each step (the same as recorded), the tpmC curve and the per-transaction table.

use dbdyno_tests::*;

#[test]
fn a_recorded_tpcc_ladder_reports_tpmc_and_each_transaction_in_every_format() {
    let _g = shared_server();
    let s = TestSchema::new("tpcc_report");
    ok(&s.dbdyno(&["tpcc", "--scale=1", "--tables=1", "prepare"]));
    let data = tempfile::tempdir().unwrap();
    let dd = data_dir_arg(data.path());
    let out = ok(&s.dbdyno(&[
        "ladder",
        "--scenarios=tpcc",
        "--ladder=1,2",
        "--time=2",
        "--scale=1",
        "--tables=1",
        "--env=it-tpcc-report",
        &dd,
    ]));
    let id = run_id(&out);
    let shown = runs_show(data.path(), id);
    let recorded: Vec<f64> = shown["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["result"]["tpcc"]["tpmc"].as_f64().unwrap())
        .collect();
    assert_eq!(recorded.len(), 2, "{shown}");

    let dir = report_every_format(id, data.path());
    let f = |name: &str| dir.path().join(name);
    let read = |name: &str| std::fs::read_to_string(f(name)).unwrap();

    let model: serde_json::Value = serde_json::from_str(&read("r.json")).unwrap();
    let points = model["tpcc"]["curves"][0]["points"].as_array().unwrap();
    let reported: Vec<f64> = points.iter().map(|p| p["tpmc"].as_f64().unwrap()).collect();
    assert_eq!(reported, recorded, "the report's tpmC is the recorded one");
    let kinds: Vec<&str> = model["tpcc"]["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transaction"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"New-Order") && kinds.contains(&"Payment"),
        "{kinds:?}"
    );

    let md = read("r.md");
    assert!(
        md.contains("### tpmC by threads") && md.contains("| New-Order |"),
        "{md}"
    );
    let html = read("r.html");
    assert!(html.contains("tpcc: tpmC by threads") && html.contains("<td>New-Order</td>"));
    let csv = read("r.csv");
    let header = csv.lines().next().unwrap();
    assert!(header.contains(",tpmc,nopm,") && header.contains("tpcc_transaction"));
    assert!(csv.lines().any(|l| l.contains(",New-Order,")), "{csv}");
    let pdf = std::process::Command::new("pdftotext")
        .args(["-layout", f("r.pdf").to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils, bash scripts/deps.sh)");
    let text = String::from_utf8_lossy(&pdf.stdout);
    assert!(
        text.contains("TPC-C: tpmC by threads") && text.contains("New-Order"),
        "{text}"
    );
}
