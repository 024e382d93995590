//! OS sampling of a server over SSH: one sample per second, and a ladder that outlives a
//! dead sshd, records the gap and resumes sampling. Trusting the host and logging in are
//! `host_keys.rs` and `ssh_login.rs`.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use dbdyno_tests::*;
use serde_json::Value;

use super::json_file;
use crate::sshd::{self, Restart, Sshd};

#[test]
fn monitor_json_gives_one_sample_per_second() {
    let _ssh = sshd::shared();
    let _g = shared_server();
    let sb = Sshd::from_env();
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    const N: usize = 5;
    let t = Instant::now();
    let o = dbdyno_cmd()
        .arg("monitor")
        .args(sb.args(&kh))
        .args([format!("--duration={N}"), "--json".into()])
        .output()
        .unwrap();
    let took = t.elapsed();
    assert!(o.status.success(), "{}", stderr(&o));
    let samples: Vec<Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .filter(|v| v["type"] == "sample")
        .collect();
    println!(
        "{} samples in {N} s of monitoring ({took:?} with connecting)",
        samples.len()
    );
    assert!(
        (N - 1..=N + 1).contains(&samples.len()),
        "{N} s gave {} samples:\n{}",
        samples.len(),
        stdout(&o)
    );
    // One a second on the server's clock. The sampler keeps to a 1 s grid, so a sample
    // late by a few hundred ms (the server's two cores busy with the tests beside: seen
    // 1,430 ms after the one before) is followed by an early one: the median spacing is
    // the cadence (a late last sample moved the mean out of bounds under load), each gap
    // only has to show no second went without a sample.
    let at: Vec<i64> = samples
        .iter()
        .map(|s| s["server_unix_ms"].as_i64().unwrap())
        .collect();
    let gaps: Vec<i64> = at.windows(2).map(|p| p[1] - p[0]).collect();
    let mut sorted = gaps.clone();
    sorted.sort_unstable();
    let median = sorted[sorted.len() / 2];
    assert!(
        (950..=1050).contains(&median),
        "one sample a second: {median} ms apart at the median ({gaps:?})"
    );
    assert!(
        gaps.iter().all(|g| (1..2000).contains(g)),
        "a second without a sample: {gaps:?}"
    );
    // Each sample's rates are over the time since the one before, as the server measured it.
    for (pair, gap) in samples.windows(2).zip(&gaps) {
        let interval_ms = pair[1]["interval_s"].as_f64().unwrap() * 1000.0;
        assert!(
            (interval_ms - *gap as f64).abs() <= 50.0,
            "interval_s {interval_ms} ms, but the samples are {gap} ms apart"
        );
    }
    for s in &samples {
        assert!(s["cpu"]["util"].is_number());
    }
    let cost: Vec<String> = samples
        .iter()
        .map(|s| {
            format!(
                "{}/{}",
                s["sampler"]["loop_cpu_pct"], s["sampler"]["transport_cpu_pct"]
            )
        })
        .collect();
    println!(
        "sampler cost on the server, loop/sshd % of a core per sample: {}",
        cost.join(" ")
    );
    assert!(
        stderr(&o).contains("disk: "),
        "the disk choice is shown: {}",
        stderr(&o)
    );
}

#[test]
fn ladder_outlives_a_dead_sshd_records_the_gap_and_resumes() {
    let _ssh = sshd::exclusive();
    let _g = shared_server_long();
    let sb = Sshd::from_env();
    let _restart = Restart(&sb);
    let s = TestSchema::new("mon_gap");
    ok(&s.dbdyno(&[
        "oltp_read_only",
        "--tables=1",
        "--table-size=2000",
        "prepare",
    ]));
    let dir = tempfile::tempdir().unwrap();
    let kh = sb.trusted_known_hosts(dir.path());
    let file = dir.path().join("ladder.json");
    let mut args: Vec<String> = [
        "ladder",
        "--scenarios=oltp_read_only",
        "--ladder=1,2,1,2",
        "--time=5",
        "--tables=1",
        "--table-size=2000",
        "--no-history",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sb.args(&kh));
    args.extend(s.mysql_args());
    args.push(format!("--json={}", file.display()));
    let mut child = dbdyno_cmd()
        .args(&args)
        .env("MYSQL_PWD", &s.sandbox.password)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let out = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Two seconds into the first step, sshd goes away with every session it served.
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let Ok(l) = rx.recv_timeout(Duration::from_secs(1)) else {
            continue;
        };
        let go = l.starts_with("[ 2s ]");
        lines.push(l);
        if go {
            break;
        }
    }
    let down_at = Instant::now();
    sb.control(&["stop"]);
    std::thread::sleep(Duration::from_secs(5));
    sb.control(&["start"]);
    let down_for = down_at.elapsed();
    let status = child.wait().unwrap();
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    let text = lines.join("\n");
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(
        status.success(),
        "the benchmark went on without SSH:\n{text}\n{err}"
    );

    let doc = json_file(&file);
    let steps = doc["outcome"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 4, "every step ran:\n{text}");
    assert!(steps
        .iter()
        .all(|s| s["transactions"].as_u64().unwrap() > 0));
    let m = &doc["monitoring"];
    let gaps: Vec<&Value> = m["gaps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["source"] == "os")
        .collect();
    assert_eq!(gaps.len(), 1, "one OS gap: {:?}", m["gaps"]);
    let gap_s =
        (gaps[0]["to_ms"].as_i64().unwrap() - gaps[0]["from_ms"].as_i64().unwrap()) as f64 / 1000.0;
    println!(
        "sshd down for {down_for:?}; gap recorded: {gap_s:.1} s ({})",
        gaps[0]["reason"]
    );
    assert!(gap_s >= 4.0, "the gap covers sshd's downtime: {gap_s}");
    let figures = m["steps"].as_array().unwrap();
    assert!(
        figures[0]["flags"][0]
            .as_str()
            .unwrap()
            .contains("without samples"),
        "{:?}",
        figures[0]["flags"]
    );
    // Sampling resumed: the last step is covered again, and MySQL-side sampling never stopped.
    let last = &figures[3];
    assert!(last["os"]["covered_s"].as_f64().unwrap() >= 4.5, "{last}");
    assert!(last["flags"].as_array().unwrap().is_empty(), "{last}");
    for f in figures {
        assert!(f["mysql"]["covered_s"].as_f64().unwrap() >= 4.5, "{f}");
    }
    assert!(text.contains("WARNING: server monitor lost ssh"), "{text}");
    assert!(text.contains("sampling resumes"), "{text}");
    assert!(text.contains("SAMPLE COUNT: server OS:"), "{text}");
    assert!(
        text.contains("Sample count: ") && text.contains(" flagged (fewer samples than seconds"),
        "{text}"
    );
}
