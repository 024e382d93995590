//! Reports read from the history: a monitored ladder is recorded with its server figures
//! and samples, `dbdyno report --runs` renders it (HTML, Markdown, PDF), `ladder
//! --report` renders the recorded run, and `--baseline` names a run id with exit codes
//! that agree with the verdicts.

use std::process::Command;

use dbdyno_tests::*;
use mysql::prelude::Queryable;
use serde_json::Value;

/// The Markdown performance rows of one environment: (threads, TPS, CPU %).
fn md_rows(md: &str, env: &str) -> Vec<(u32, f64, String)> {
    md.lines()
        .filter(|l| l.starts_with(&format!("| {env} |")))
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('|').map(str::trim).collect();
            // "", env, threads, TPS, QPS, p95, p99, CPU %, ...
            let threads = cols.get(2)?.parse().ok()?;
            let tps = cols.get(3)?.replace(',', "").parse().ok()?;
            Some((threads, tps, cols.get(7)?.to_string()))
        })
        .collect()
}

#[test]
fn monitored_ladder_in_the_history_makes_reports_and_baselines() {
    let _g = shared_server();
    let s = TestSchema::new("report_hist");
    let data = tempfile::tempdir().unwrap();
    let ladder = |env: &str, extra: &[&str]| {
        let mut args = vec![
            "ladder",
            "--scenarios=oltp_point_select",
            "--ladder=1,2",
            "--time=2",
            "--tables=1",
            "--table-size=1000",
        ];
        let env_arg = format!("--env={env}");
        let d = data_dir_arg(data.path());
        args.extend([env_arg.as_str(), d.as_str()]);
        args.extend_from_slice(extra);
        let out = ok(&s.dbdyno(&args));
        (run_id(&out), out)
    };

    // A ladder against the sandbox on this machine is monitored from /proc by default.
    let (a, out) = ladder("it-report-a", &["--prepare"]);
    assert!(out.contains("  server: cpu "), "monitored: {out}");
    let run = runs_show(data.path(), a);
    let m = &run["monitoring"];
    assert_eq!(m["steps"].as_array().map(Vec::len), Some(2), "{m}");
    for step in m["steps"].as_array().unwrap() {
        assert!(step["os"]["cpu_util_avg"].as_f64().is_some(), "{step}");
        assert!(step["mysql"].is_object(), "{step}");
    }
    assert!(m["environment"]["os"]["cpus"].as_u64().unwrap() >= 1, "{m}");
    let samples = run["server_samples"].as_array().unwrap();
    assert!(samples.len() >= 3, "per-second server samples are stored");
    assert!(
        samples
            .iter()
            .any(|x| x["step_index"] == 1 && x["sample"]["cpu"]["util"].is_number()),
        "samples know their step"
    );
    assert!(!run["mysql_samples"].as_array().unwrap().is_empty());

    // One run from the history into HTML, Markdown and PDF.
    let out_dir = tempfile::tempdir().unwrap();
    let f = |name: &str| out_dir.path().join(name);
    ok(&dbdyno_cmd()
        .args([
            "report".to_string(),
            format!("--runs={a}"),
            format!("--html={}", f("a.html").display()),
            format!("--md={}", f("a.md").display()),
            format!("--pdf={}", f("a.pdf").display()),
            data_dir_arg(data.path()),
        ])
        .output()
        .unwrap());
    assert!(std::fs::metadata(f("a.html")).unwrap().len() > 1000);
    let md = std::fs::read_to_string(f("a.md")).unwrap();
    assert!(md.contains("CPU %"), "{md}");
    let rows = md_rows(&md, "it-report-a");
    assert_eq!(rows.len(), 2, "{md}");
    for (step, (threads, tps, cpu)) in run["steps"].as_array().unwrap().iter().zip(&rows) {
        let r = &step["result"];
        let want = r["transactions"].as_f64().unwrap() / r["total_time_s"].as_f64().unwrap();
        assert_eq!(r["threads"].as_u64(), Some(*threads as u64));
        assert!(
            (tps - want).abs() <= want * 0.001 + 0.01,
            "TPS {tps} in the report, {want} recorded\n{md}"
        );
        assert!(cpu.ends_with('%'), "server CPU figure {cpu:?}\n{md}");
    }
    let text = Command::new("pdftotext")
        .args([f("a.pdf").to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils)");
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("it-report-a"),
        "the PDF names the environment"
    );

    // `ladder --report` with the history on renders the recorded run (named by --env).
    let report_dir = out_dir.path().join("ladder-report");
    let (b, _) = ladder(
        "it-report-b",
        &[&format!("--report={}", report_dir.display())],
    );
    let md = std::fs::read_to_string(report_dir.join("report.md")).unwrap();
    assert_eq!(md_rows(&md, "it-report-b").len(), 2, "{md}");

    // Two runs against a baseline given by run id: exit 4 exactly when a cell failed.
    let o = dbdyno_cmd()
        .args([
            "report".to_string(),
            format!("--runs={a},{b}"),
            format!("--baseline={a}"),
            format!("--json={}", f("ab.json").display()),
            format!("--md={}", f("ab.md").display()),
            data_dir_arg(data.path()),
        ])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(f("ab.json")).unwrap()).unwrap();
    let failed = doc["verdict"]["failed"].as_u64().expect("verdict totals");
    assert!(
        doc["verdict"]["compared"].as_u64().unwrap() >= 2,
        "{}",
        doc["verdict"]
    );
    let want = if failed > 0 { 4 } else { 0 };
    assert_eq!(
        o.status.code(),
        Some(want),
        "{failed} failed cell(s)\nstdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    let md = std::fs::read_to_string(f("ab.md")).unwrap();
    assert!(
        md.contains("it-report-a") && md.contains("it-report-b"),
        "{md}"
    );

    // An id that is not in the history is a usage error.
    let o = dbdyno_cmd()
        .args([
            "report",
            "--runs=999999",
            "--md=/dev/null",
            &data_dir_arg(data.path()),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no run with id 999999"),
        "{}",
        stderr(&o)
    );
}

/// The appendix shows the command line as typed, and a password given on it appears in
/// no output: not in the history, the results file, or any report format.
#[test]
fn the_recorded_command_line_reaches_the_report_without_its_secret() {
    let _g = shared_server();
    let s = TestSchema::new("report_cmdline");
    // A user of its own whose password is unique, so that finding it anywhere is a leak.
    let secret = format!("UNIQUE-SECRET-{}", std::process::id());
    let user = format!("it_cmdline_{}", std::process::id());
    let mut admin = s.sandbox.admin();
    for host in ["127.0.0.1", "localhost"] {
        admin
            .query_drop(format!("DROP USER IF EXISTS '{user}'@'{host}'"))
            .unwrap();
        admin
            .query_drop(format!(
                "CREATE USER '{user}'@'{host}' IDENTIFIED BY '{secret}'"
            ))
            .unwrap();
        admin
            .query_drop(format!("GRANT ALL ON `{}`.* TO '{user}'@'{host}'", s.name))
            .unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    let out_dir = tempfile::tempdir().unwrap();
    let f = |name: &str| out_dir.path().join(name);
    let json = f("run.json");
    let o = dbdyno_cmd()
        .args([
            "ladder".to_string(),
            "--scenarios=oltp_point_select".into(),
            "--ladder=1".into(),
            "--time=1".into(),
            "--tables=1".into(),
            "--table-size=100".into(),
            "--prepare".into(),
            "--env=it-cmdline".into(),
            format!("--mysql-host={}", s.sandbox.host),
            format!("--mysql-port={}", s.sandbox.port),
            format!("--mysql-db={}", s.name),
            format!("--mysql-user={user}"),
            format!("--mysql-password={secret}"),
            format!("--json={}", json.display()),
            data_dir_arg(data.path()),
        ])
        .output()
        .unwrap();
    let out = ok(&o);
    let id = run_id(&out);
    for host in ["127.0.0.1", "localhost"] {
        let _ = admin.query_drop(format!("DROP USER IF EXISTS '{user}'@'{host}'"));
    }

    let run = runs_show(data.path(), id);
    let command = run["command"].as_str().unwrap();
    assert!(
        command.starts_with("dbdyno ladder ")
            && command.contains("--ladder=1")
            && command.contains("--mysql-password=***"),
        "{command}"
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["command_line"].as_str(), Some(command), "{doc}");
    // The results file carries the per-second samples too, so a report made from it
    // charts the server's CPU and disk under the timeline's QPS.
    let samples = doc["monitoring"]["server_samples"]
        .as_array()
        .expect("server_samples");
    assert!(
        samples
            .iter()
            .any(|x| x["step_index"] == 0 && x["sample"]["cpu"]["util"].is_number()),
        "{samples:?}"
    );
    assert!(!doc["monitoring"]["mysql_samples"]
        .as_array()
        .unwrap()
        .is_empty());

    ok(&dbdyno_cmd()
        .args([
            "report".to_string(),
            format!("--runs={id}"),
            format!("--html={}", f("r.html").display()),
            format!("--md={}", f("r.md").display()),
            format!("--json={}", f("r.json").display()),
            format!("--pdf={}", f("r.pdf").display()),
            data_dir_arg(data.path()),
        ])
        .output()
        .unwrap());
    ok(&dbdyno_cmd()
        .args([
            "report".to_string(),
            format!("--input={}", json.display()),
            format!("--md={}", f("from-json.md").display()),
            format!("--json={}", f("from-json.json").display()),
        ])
        .output()
        .unwrap());
    let model: Value =
        serde_json::from_str(&std::fs::read_to_string(f("from-json.json")).unwrap()).unwrap();
    let server = model["timeline"][0]["server"].as_array().expect("timeline");
    assert!(
        !server.is_empty() && server.iter().all(|p| p["cpu_pct"].is_number()),
        "the timeline of a results file has server seconds: {}",
        model["timeline"]
    );
    let pdf_text = Command::new("pdftotext")
        .args([f("r.pdf").to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils)");
    let pdf_text = String::from_utf8_lossy(&pdf_text.stdout).to_string();
    let mut texts = vec![
        ("runs show", serde_json::to_string(&run).unwrap()),
        ("--json", std::fs::read_to_string(&json).unwrap()),
        ("pdf", pdf_text.clone()),
        ("stdout", out),
    ];
    for name in ["r.html", "r.md", "r.json", "from-json.md", "from-json.json"] {
        texts.push((name, std::fs::read_to_string(f(name)).unwrap()));
    }
    for (name, text) in &texts {
        assert!(!text.contains(&secret), "{name} holds the password");
    }
    for name in ["r.html", "r.md", "from-json.md"] {
        let text = std::fs::read_to_string(f(name)).unwrap();
        assert!(
            text.contains("--mysql-password=***") && text.contains("--ladder=1"),
            "{name} shows the recorded command line:\n{text}"
        );
    }
    assert!(pdf_text.contains("--ladder=1"), "{pdf_text}");
}

/// A CJK environment name end to end: imported from sysbench output under `--env=华为云`,
/// reported from the history as PDF, read back by pdftotext; sysbench's output does not
/// say whether the buffer pool was warmed, so the report does not claim it was not.
#[test]
fn a_cjk_environment_name_survives_import_history_and_pdf() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    let file = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sysbench/seed_003_article.txt");
    let out = ok(&dbdyno_cmd()
        .args([
            "import".to_string(),
            "sysbench".into(),
            file.display().to_string(),
            "--env=华为云".into(),
            "--json".into(),
            data_dir_arg(data.path()),
        ])
        .output()
        .unwrap());
    let imported: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let id = imported[0]["id"].as_i64().expect("run id");
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("cjk.pdf");
    let md = dir.path().join("cjk.md");
    ok(&dbdyno_cmd()
        .args([
            "report".to_string(),
            format!("--runs={id}"),
            format!("--pdf={}", pdf.display()),
            format!("--md={}", md.display()),
            data_dir_arg(data.path()),
        ])
        .output()
        .unwrap());
    let text = Command::new("pdftotext")
        .args([pdf.to_str().unwrap(), "-"])
        .output()
        .expect("pdftotext (poppler-utils)");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("华为云"), "the PDF names 华为云:\n{text}");
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("华为云"), "{md}");
    assert!(!md.contains("| Prewarm | no |"), "{md}");
    assert!(!md.contains("prewarm was off"), "{md}");
}
