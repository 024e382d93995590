//! `dbdyno import sysbench` and `dbdyno import config`: outside results and configs join
//! the history and the profiles, figures exactly as printed, passwords never in a file.

use std::path::{Path, PathBuf};

use dbdyno_tests::*;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/sysbench")
        .join(name)
}

fn run_json(data: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    let d = format!("--data-dir={}", data.display());
    all.push(&d);
    let out = ok(&dbdyno_cmd().args(&all).output().unwrap());
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn f64s(v: &Value, key: &str) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].as_f64().unwrap())
        .collect()
}

/// The figures of a sysbench summary, read here without the engine's parser.
struct Printed {
    transactions: u64,
    tps: f64,
    queries: u64,
    qps: f64,
    total_time: f64,
    percentile_ms: f64,
    intervals: usize,
}

fn printed(text: &str) -> Printed {
    let after = |label: &str| -> &str {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("{label}"));
        line.trim_start()[label.len()..].trim()
    };
    let count_rate = |label: &str| -> (u64, f64) {
        let v = after(label);
        let (n, rate) = v.split_once('(').unwrap();
        (
            n.trim().parse().unwrap(),
            rate.trim_end_matches("per sec.)").trim().parse().unwrap(),
        )
    };
    let (transactions, tps) = count_rate("transactions:");
    let (queries, qps) = count_rate("queries:");
    let pct_line = text.lines().find(|l| l.contains("th percentile:")).unwrap();
    Printed {
        transactions,
        tps,
        queries,
        qps,
        total_time: after("total time:").trim_end_matches('s').parse().unwrap(),
        percentile_ms: pct_line.split(':').nth(1).unwrap().trim().parse().unwrap(),
        intervals: text.lines().filter(|l| l.starts_with("[ ")).count(),
    }
}

#[test]
fn seed_003_figures_come_out_exactly_as_printed() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    let file = fixture("seed_003_article.txt");
    let imported = run_json(
        data.path(),
        &[
            "import",
            "sysbench",
            file.to_str().unwrap(),
            "--env=seed-003",
            "--json",
        ],
    );
    let id = imported[0]["id"].as_i64().unwrap();
    assert_eq!(imported[0]["env"], "seed-003");
    assert_eq!(imported[0]["state"], "complete");
    assert_eq!(imported[0]["steps"], 1);

    let run = run_json(data.path(), &["runs", "show", &id.to_string(), "--json"]);
    assert_eq!(run["source"], "import");
    let s = &run["steps"][0]["result"];
    assert_eq!(
        s["scenario"], "oltp_read_write",
        "from the read/write/other mix"
    );
    assert_eq!(s["threads"], 2);
    assert_eq!(s["transactions"], 4615);
    assert_eq!(s["printed"]["tps"].as_f64(), Some(76.84));
    assert_eq!(s["printed"]["qps"].as_f64(), Some(1536.81));
    assert_eq!(s["latency"]["p95_ms"].as_f64(), Some(57.87));
    assert_eq!(s["latency_pct_ms"].as_f64(), Some(57.87));
    assert_eq!(s["total_time_s"].as_f64(), Some(60.058));
    assert_eq!(
        f64s(&s["intervals"], "tps"),
        [23.30, 77.70, 89.00, 92.50, 88.40, 90.40]
    );
    assert_eq!(
        f64s(&s["intervals"], "latency_ms"),
        [272.27, 56.84, 46.63, 41.10, 46.63, 32.53]
    );
    assert_eq!(
        f64s(&s["intervals"], "qps"),
        [469.31, 1554.44, 1780.01, 1849.98, 1767.59, 1807.20]
    );

    // The text view prints sysbench's summary lines with the printed rates.
    let d = format!("--data-dir={}", data.path().display());
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &id.to_string(), &d])
        .output()
        .unwrap());
    assert!(
        text.contains("    transactions:                        4615   (76.84 per sec.)\n"),
        "{text}"
    );
    assert!(
        text.contains("    queries:                             92300  (1536.81 per sec.)\n"),
        "{text}"
    );
    assert!(
        text.contains("         95th percentile:                       57.87\n"),
        "{text}"
    );
    assert!(
        text.contains("[ 10s ] thds: 2 tps: 23.30 qps: 469.31"),
        "{text}"
    );
}

#[test]
fn fresh_sysbench_outputs_import_with_every_figure_as_printed() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    // (file, scenario it must be filed under, threads of each step)
    let cases: [(&str, &str, &[u64]); 6] = [
        ("oltp_read_write_intervals.txt", "oltp_read_write", &[2]),
        ("oltp_point_select_histogram.txt", "oltp_point_select", &[4]),
        ("read_only_p99.txt", "oltp_read_only", &[2]),
        ("oltp_write_only_no_intervals.txt", "oltp_write_only", &[2]),
        ("oltp_insert.txt", "oltp_insert", &[2]),
        ("shell_loop_read_only_1_4.log", "oltp_read_only", &[1, 4]),
    ];
    let paths: Vec<String> = cases
        .iter()
        .map(|c| fixture(c.0).display().to_string())
        .collect();
    let mut args = vec!["import", "sysbench", "--env=fresh", "--json"];
    args.extend(paths.iter().map(String::as_str));
    let imported = run_json(data.path(), &args);
    assert_eq!(imported.as_array().unwrap().len(), cases.len());

    for (i, (file, scenario, threads)) in cases.iter().enumerate() {
        let id = imported[i]["id"].as_i64().unwrap();
        let run = run_json(data.path(), &["runs", "show", &id.to_string(), "--json"]);
        let steps = run["steps"].as_array().unwrap();
        let got_threads: Vec<u64> = steps
            .iter()
            .map(|s| s["result"]["threads"].as_u64().unwrap())
            .collect();
        assert_eq!(&got_threads, threads, "{file}");
        let text = std::fs::read_to_string(fixture(file)).unwrap();
        // Each step against its own part of the file.
        let parts: Vec<&str> = text
            .split("sysbench 1.0.20 (using")
            .filter(|p| p.contains("SQL statistics"))
            .collect();
        assert_eq!(parts.len(), steps.len(), "{file}");
        for (step, part) in steps.iter().zip(parts) {
            let s = &step["result"];
            let p = printed(part);
            assert_eq!(s["scenario"], *scenario, "{file}");
            assert_eq!(s["transactions"].as_u64(), Some(p.transactions), "{file}");
            assert_eq!(s["printed"]["tps"].as_f64(), Some(p.tps), "{file}");
            assert_eq!(s["printed"]["qps"].as_f64(), Some(p.qps), "{file}");
            let q = &s["queries"];
            let total = q["read"].as_u64().unwrap()
                + q["write"].as_u64().unwrap()
                + q["other"].as_u64().unwrap();
            assert_eq!(total, p.queries, "{file}");
            assert_eq!(s["total_time_s"].as_f64(), Some(p.total_time), "{file}");
            assert_eq!(
                s["latency_pct_ms"].as_f64(),
                Some(p.percentile_ms),
                "{file}"
            );
            assert_eq!(
                s["intervals"].as_array().unwrap().len(),
                p.intervals,
                "{file}"
            );
            // Confidence from the interval lines, and none without them.
            assert_eq!(s["confidence"].is_object(), p.intervals > 0, "{file}");
        }
    }
    let bare = imported[3]["id"].to_string();
    let d = format!("--data-dir={}", data.path().display());
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &bare, &d])
        .output()
        .unwrap());
    assert!(
        text.contains("Confidence (95%): none: the source has no per-second (interval) lines"),
        "{text}"
    );
    assert!(!text.contains("95% CI"), "{text}");
    let hist = run_json(
        data.path(),
        &["runs", "show", &imported[1]["id"].to_string(), "--json"],
    );
    assert!(
        !hist["steps"][0]["result"]["histogram"]
            .as_str()
            .unwrap()
            .is_empty(),
        "the --histogram block is stored"
    );
    let p99 = run_json(
        data.path(),
        &["runs", "show", &imported[2]["id"].to_string(), "--json"],
    );
    assert_eq!(p99["steps"][0]["result"]["percentile"].as_f64(), Some(99.0));
    assert_eq!(
        p99["steps"][0]["result"]["latency"]["p99_ms"].as_f64(),
        Some(11.04)
    );
}

#[test]
fn import_refuses_what_it_cannot_read_and_imports_nothing() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("notes.txt");
    std::fs::write(&garbage, "General statistics:\n    total time:   sixty\n").unwrap();
    let writes = dir.path().join("writes.txt");
    std::fs::copy(fixture("oltp_insert.txt"), &writes).unwrap();
    let d = format!("--data-dir={}", data.path().display());
    let good = fixture("read_only_p99.txt");

    let o = dbdyno_cmd()
        .args([
            "import",
            "sysbench",
            good.to_str().unwrap(),
            garbage.to_str().unwrap(),
            "--env=x",
            &d,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("notes.txt: line 2:"), "{}", stderr(&o));

    let o = dbdyno_cmd()
        .args([
            "import",
            "sysbench",
            writes.to_str().unwrap(),
            "--env=x",
            &d,
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give --scenario"), "{}", stderr(&o));
    assert_eq!(
        run_json(data.path(), &["runs", "list", "--json"]),
        Value::Array(vec![]),
        "nothing imported"
    );

    ok(&dbdyno_cmd()
        .args([
            "import",
            "sysbench",
            writes.to_str().unwrap(),
            "--env=x",
            "--scenario=oltp_insert",
            &d,
        ])
        .output()
        .unwrap());
    assert_eq!(
        run_json(data.path(), &["runs", "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn import_config_writes_a_profile_and_moves_the_password_to_the_keyring() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let pid = std::process::id();
    let password = format!("Seed-Pass-{pid}-x9");
    let conf = dir.path().join("benchmark_config.conf");
    std::fs::write(
        &conf,
        format!(
            "# Connection settings\nMYSQL_HOST=192.168.1.50      # Use internal IP, not public\nMYSQL_PORT=3306\n\
             MYSQL_USER=sbtest\nMYSQL_PASSWORD={password}\nMYSQL_DB=sbtest\n\nTABLES=16                    # Number of test tables\n\
             TABLE_SIZE=10000000\nTEST_TIME=30\nNEED_PREPARE=true\n\
             SCENARIOS=\"oltp_point_select oltp_read_only oltp_read_write oltp_write_only\"\nTHREADS=\"1 8 16 32 64 128\"\n"
        ),
    )
    .unwrap();
    let name = format!("it-import-{pid}");
    let out_file = dir.path().join(format!("{name}.toml"));
    let o = dbdyno_cmd()
        .args([
            "import",
            "config",
            conf.to_str().unwrap(),
            "-o",
            out_file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = ok(&o);
    let written = std::fs::read_to_string(&out_file).unwrap();
    assert!(!written.contains(&password), "{written}");
    assert!(!stdout.contains(&password) && !stderr(&o).contains(&password));
    assert!(
        written.contains("tables = 16  # Number of test tables"),
        "{written}"
    );
    assert!(stdout.contains("OS keyring"), "{stdout}");

    let loaded = dbdyno_profile::load_file(&out_file).unwrap();
    assert_eq!(loaded.profile.name, name);
    assert_eq!(
        loaded.profile.plan.threads,
        Some(vec![1, 8, 16, 32, 64, 128])
    );
    let store = dbdyno_profile::SecretStore::new();
    let kind = dbdyno_profile::SecretKind::MysqlPassword;
    let stored = store
        .get(&name, kind)
        .unwrap()
        .expect("the password is in the keyring");
    assert_eq!(stored.expose(), password);
    assert!(store.delete(&name, kind).unwrap());

    // Refuses to overwrite; --no-keyring drops the password with a notice.
    let o = dbdyno_cmd()
        .args([
            "import",
            "config",
            conf.to_str().unwrap(),
            "-o",
            out_file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let o = dbdyno_cmd()
        .args([
            "import",
            "config",
            conf.to_str().unwrap(),
            "-o",
            out_file.to_str().unwrap(),
            "--force",
            "--no-keyring",
        ])
        .output()
        .unwrap();
    ok(&o);
    assert!(
        stderr(&o).contains("MYSQL_PASSWORD was dropped"),
        "{}",
        stderr(&o)
    );
    assert_eq!(store.get(&name, kind).unwrap(), None);
}

fn import_out(data: &Path, args: &[&str]) -> std::process::Output {
    let d = format!("--data-dir={}", data.display());
    let mut all = vec!["import", "sysbench"];
    all.extend_from_slice(args);
    all.push(&d);
    dbdyno_cmd().args(&all).output().unwrap()
}

/// What a log does not print is unknown, not 0: a --percentile=99 capture has no p95,
/// a killed run's log (interval lines only) has no totals. JSON says null, text "—"
/// or leaves the figure out, and the history stores NULL.
#[test]
fn figures_a_log_does_not_print_stay_unknown_everywhere() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    let out = ok(&import_out(
        data.path(),
        &[
            fixture("read_only_p99.txt").to_str().unwrap(),
            fixture("oltp_read_only_killed.txt").to_str().unwrap(),
            "--env=unknowns",
            "--json",
        ],
    ));
    let imported: Value = serde_json::from_str(&out).unwrap();
    let (p99_id, killed_id) = (
        imported[0]["id"].as_i64().unwrap(),
        imported[1]["id"].as_i64().unwrap(),
    );

    let p99 = run_json(
        data.path(),
        &["runs", "show", &p99_id.to_string(), "--json"],
    );
    let lat = &p99["steps"][0]["result"]["latency"];
    assert_eq!(lat["p99_ms"].as_f64(), Some(11.04));
    for unknown in ["p50_ms", "p90_ms", "p95_ms", "p999_ms"] {
        assert!(lat[unknown].is_null(), "{unknown}: {lat}");
    }
    // Its interval lines print p99: each record carries that one and no p95.
    let intervals = p99["steps"][0]["result"]["intervals"].as_array().unwrap();
    assert!(!intervals.is_empty());
    for r in intervals {
        assert_eq!(r["p99_ms"], r["latency_ms"], "{r}");
        assert!(r.get("p95_ms").is_none(), "no made-up p95: {r}");
    }
    let d = format!("--data-dir={}", data.path().display());
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &p99_id.to_string(), &d])
        .output()
        .unwrap());
    assert!(!text.contains("p95:"), "no made-up p95 line: {text}");
    assert!(text.contains("p99:"), "{text}");

    // The report's headline names the percentile it has and says "—" for the other.
    let rep = tempfile::tempdir().unwrap();
    let md = rep.path().join("r.md");
    ok(&dbdyno_cmd()
        .args([
            "report",
            &format!("--runs={p99_id}"),
            &format!("--md={}", md.display()),
            &d,
        ])
        .output()
        .unwrap());
    let md = std::fs::read_to_string(md).unwrap();
    assert!(!md.contains("p95 0.00"), "{md}");
    assert!(md.contains("(p95 — ms)"), "{md}");

    // Killed run: interval lines only.
    let list = run_json(data.path(), &["runs", "list", "--json"]);
    let killed = list
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"].as_i64() == Some(killed_id))
        .unwrap();
    assert!(killed["max_tps"].is_null(), "{killed}");
    assert_eq!(killed["state"], "interrupted");
    let text = ok(&dbdyno_cmd().args(["runs", "list", &d]).output().unwrap());
    let line = text
        .lines()
        .find(|l| l.contains("oltp_read_only_killed.txt"))
        .unwrap();
    assert!(!line.contains("0.00"), "{line}");
    let text = ok(&dbdyno_cmd()
        .args(["runs", "show", &killed_id.to_string(), &d])
        .output()
        .unwrap());
    assert!(text.contains("[ 3s ] thds: 2 tps: 812.23"), "{text}");
    assert!(
        !text.contains("transactions:"),
        "no summary of zeros: {text}"
    );
    assert!(text.contains("no summary in the source"), "{text}");
    // A report leaves the step out (no "0.00 TPS") and says why.
    let md = rep.path().join("killed.md");
    ok(&dbdyno_cmd()
        .args([
            "report",
            &format!("--runs={killed_id}"),
            &format!("--md={}", md.display()),
            &d,
        ])
        .output()
        .unwrap());
    let md = std::fs::read_to_string(md).unwrap();
    assert!(!md.contains("0.00 TPS"), "{md}");
    assert!(
        md.contains("the imported log has no summary (it was cut off), so the step is left out"),
        "{md}"
    );
    // With its only step left out, the summary says there is nothing to analyse rather
    // than "0 scenarios" and "throughput was still rising".
    assert!(md.contains("This report has no step to show"), "{md}");
    assert!(!md.contains("0 scenarios"), "{md}");
    assert!(!md.contains("still rising"), "{md}");
}

/// A reads-only mix could be any of several scripts: no silent guess.
#[test]
fn an_ambiguous_statement_mix_needs_scenario_and_a_guess_is_announced_and_stored() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    let capture = fixture("reads_only_histogram_capture.txt");
    let o = import_out(data.path(), &[capture.to_str().unwrap(), "--env=mix"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("reads only") && e.contains("select_random_points") && e.contains("--scenario"),
        "{e}"
    );
    assert_eq!(
        run_json(data.path(), &["runs", "list", "--json"]),
        Value::Array(vec![])
    );

    let out = ok(&import_out(
        data.path(),
        &[
            capture.to_str().unwrap(),
            "--env=mix",
            "--scenario=select_random_points",
            "--json",
        ],
    ));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["scenarios"][0], "select_random_points");

    // read + other is oltp_read_only's mix: imported, but the guess is said and kept.
    let o = import_out(
        data.path(),
        &[
            fixture("read_only_p99.txt").to_str().unwrap(),
            "--env=mix",
            "--json",
        ],
    );
    let e = stderr(&o);
    assert!(
        e.contains(
            "scenario guessed as oltp_read_only from the query mix; pass --scenario to name it"
        ),
        "{e}"
    );
    let v: Value = serde_json::from_str(&ok(&o)).unwrap();
    let run = run_json(
        data.path(),
        &["runs", "show", &v[0]["id"].to_string(), "--json"],
    );
    assert_eq!(
        run["environment"]["import"]["scenario_from"],
        serde_json::json!(["guessed from the read/write/other mix"])
    );
}

/// The same content twice is refused (whatever the file is called), unless --force;
/// the date comes from --started-at or, said so, from the file time; steps and
/// intervals get consistent wall-clock times.
#[test]
fn duplicate_imports_are_refused_and_times_are_consistent() {
    let _g = shared_server();
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copied.log");
    std::fs::copy(fixture("shell_loop_read_only_1_4.log"), &copy).unwrap();
    let orig = fixture("shell_loop_read_only_1_4.log");

    let o = import_out(
        data.path(),
        &[
            orig.to_str().unwrap(),
            "--env=dup",
            "--started-at=2025-03-04 05:06:07",
            "--json",
        ],
    );
    let v: Value = serde_json::from_str(&ok(&o)).unwrap();
    let id = v[0]["id"].as_i64().unwrap();
    assert_eq!(v[0]["started_at"], "2025-03-04T05:06:07Z");
    let o = import_out(data.path(), &[copy.to_str().unwrap(), "--env=dup"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(&format!("already imported as run {id}")) && e.contains("--force"),
        "{e}"
    );
    // --force imports it again; without --started-at the date is the file's, and said so.
    let o = import_out(
        data.path(),
        &[copy.to_str().unwrap(), "--env=dup", "--force", "--json"],
    );
    assert!(
        stderr(&o).contains("start time taken from the file's modification time"),
        "{}",
        stderr(&o)
    );
    let v: Value = serde_json::from_str(&ok(&o)).unwrap();
    let second = run_json(
        data.path(),
        &["runs", "show", &v[0]["id"].to_string(), "--json"],
    );
    assert_eq!(
        second["environment"]["import"]["started_at_from"],
        "the file's modification time minus the run time"
    );
    assert_eq!(
        run_json(data.path(), &["runs", "list", "--json"])
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let run = run_json(data.path(), &["runs", "show", &id.to_string(), "--json"]);
    assert_eq!(
        run["environment"]["import"]["started_at_from"],
        "--started-at"
    );
    let start = 1_741_064_767_000i64; // 2025-03-04T05:06:07Z
    let steps = run["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    let mut at = start;
    for s in steps {
        let r = &s["result"];
        let (a, b) = (
            r["started_unix_ms"].as_i64().unwrap(),
            r["ended_unix_ms"].as_i64().unwrap(),
        );
        assert_eq!(a, at, "each step starts where the previous one ended");
        assert_eq!(
            b - a,
            (r["total_time_s"].as_f64().unwrap() * 1000.0).round() as i64
        );
        for i in r["intervals"].as_array().unwrap() {
            let end = i["end_unix_ms"].as_i64().unwrap();
            assert_eq!(
                end,
                a + (i["elapsed_s"].as_f64().unwrap() * 1000.0).round() as i64
            );
        }
        at = b;
    }
    assert_eq!(run["ended_at_ms"].as_i64(), Some(at));

    let o = import_out(
        data.path(),
        &[
            orig.to_str().unwrap(),
            "--env=dup",
            "--force",
            "--started-at=last tuesday",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--started-at: 'last tuesday' is not a date and time"),
        "{}",
        stderr(&o)
    );
}

/// `import config` refuses a file that is not a seed config (nothing written, no "line
/// 0"), and a single-quoted password with `$` in it is a password, not shell expansion.
#[test]
fn import_config_refuses_a_non_config_and_keeps_single_quoted_dollars() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.toml");
    let o = dbdyno_cmd()
        .args([
            "import",
            "config",
            fixture("read_only_p99.txt").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("no setting DB Dyno knows") && !e.contains("line 0"),
        "{e}"
    );
    assert!(!out.exists(), "no profile written");

    let conf = dir.path().join("benchmark_config.conf");
    std::fs::write(
        &conf,
        "MYSQL_HOST=127.0.0.1\nMYSQL_PASSWORD='pa$$w0rd'\nTABLES=2\n",
    )
    .unwrap();
    let o = dbdyno_cmd()
        .args([
            "import",
            "config",
            conf.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--no-keyring",
        ])
        .output()
        .unwrap();
    let text = ok(&o);
    let e = stderr(&o);
    assert!(!e.contains("shell expansion"), "{e}");
    assert!(
        e.contains("MYSQL_PASSWORD was dropped (--no-keyring)"),
        "{e}"
    );
    assert!(text.contains("Wrote profile"), "{text}");
    assert!(!std::fs::read_to_string(&out).unwrap().contains("pa$$w0rd"));
}
