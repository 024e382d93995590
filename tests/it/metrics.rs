//! Live metrics scraped by a real Prometheus (Debian's `prometheus`): a ladder with
//! `--metrics-addr` on a loopback port, Prometheus scraping it every second into a
//! store of the test's own, and its HTTP API asked for the series afterwards.
//!
//! Needs /usr/bin/prometheus (scripts/deps.sh installs it): skipped without it, and a
//! failure under CI=true.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dbdyno_tests::*;
use serde_json::Value;

/// `GET path` on 127.0.0.1:port: the status line's code and the body.
fn get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(s, "GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    let code = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    Ok((code, body))
}

/// Prometheus on its own port and store, scraping `target` every second; killed on drop.
struct Prometheus {
    child: Child,
    port: u16,
}

impl Prometheus {
    fn start(dir: &Path, target: u16) -> Option<Prometheus> {
        let bin =
            std::env::var("DBDYNO_PROMETHEUS_BIN").unwrap_or_else(|_| "/usr/bin/prometheus".into());
        if !Path::new(&bin).exists() {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must run the Prometheus scrape test: {bin} is missing (scripts/deps.sh installs it)"
            );
            eprintln!("SKIPPED: {bin} is missing (bash scripts/deps.sh installs prometheus)");
            return None;
        }
        let config = dir.join("prometheus.yml");
        std::fs::write(
            &config,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: dbdyno\n    static_configs:\n      - targets: ['127.0.0.1:{target}']\n"
            ),
        )
        .unwrap();
        let port = free_port();
        let child = Command::new(bin)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.join("prometheus.log")).unwrap())
            .spawn()
            .expect("prometheus starts");
        let p = Prometheus { child, port };
        let since = Instant::now();
        while !matches!(get(port, "/-/ready"), Ok((200, _))) {
            assert!(
                since.elapsed() < Duration::from_secs(30),
                "prometheus not ready in 30 s: {}",
                std::fs::read_to_string(dir.join("prometheus.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        Some(p)
    }

    /// The result vector of an instant query.
    fn query(&self, promql: &str) -> Vec<Value> {
        let q: String = promql
            .bytes()
            .map(|b| match b {
                b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.' => (b as char).to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect();
        let (code, body) = get(self.port, &format!("/api/v1/query?query={q}")).unwrap();
        assert_eq!(code, 200, "{promql}: {body}");
        let doc: Value = serde_json::from_str(&body).unwrap();
        doc["data"]["result"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn value(series: &Value) -> f64 {
    series["value"][1].as_str().unwrap().parse().unwrap()
}

#[test]
fn prometheus_scrapes_the_runs_figures_while_it_runs() {
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let Some(prometheus) = Prometheus::start(dir.path(), port) else {
        return;
    };
    // Prometheus hands new targets to its scrapers a few seconds after it starts: wait
    // for its first scrape (of a port nothing listens on yet, `up` 0), so that it sees
    // the run from its first step.
    let since = Instant::now();
    while prometheus.query("up{job=\"dbdyno\"}").is_empty() {
        assert!(
            since.elapsed() < Duration::from_secs(30),
            "no scrape in 30 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let s = TestSchema::new("metrics");
    let mut ladder = dbdyno_cmd();
    ladder
        .args([
            "ladder",
            "--scenarios=oltp_point_select",
            "--ladder=1,2",
            "--time=4",
            "--tables=1",
            "--table-size=1000",
            "--prepare",
            "--cleanup",
            "--env=it-metrics",
            &format!("--metrics-addr=127.0.0.1:{port}"),
            &data_dir_arg(dir.path()),
        ])
        .args(s.mysql_args())
        .env("MYSQL_PWD", &s.sandbox.password);
    let out = ok(&ladder.output().unwrap());

    // Every figure of the run's last minute, as Prometheus stored it.
    let tps = prometheus.query("max_over_time(dbdyno_tps[1m])");
    assert_eq!(tps.len(), 1, "one series: {tps:?}\n{out}");
    assert_eq!(tps[0]["metric"]["env"], "it-metrics");
    assert_eq!(tps[0]["metric"]["job"], "dbdyno");
    assert!(value(&tps[0]) > 0.0, "{tps:?}");
    let total = prometheus.query("max_over_time(dbdyno_transactions_total[1m])");
    assert!(value(&total[0]) > 0.0, "{total:?}");
    let p95 = prometheus.query("max_over_time(dbdyno_latency_seconds{quantile=\"0.95\"}[1m])");
    assert!(value(&p95[0]) > 0.0, "{p95:?}");
    // Both steps were seen running, each with its threads.
    let steps = prometheus.query("max_over_time(dbdyno_step[1m])");
    let mut threads: Vec<&str> = steps
        .iter()
        .map(|s| s["metric"]["threads"].as_str().unwrap())
        .collect();
    threads.sort_unstable();
    assert_eq!(threads, ["1", "2"], "{steps:?}");
    assert!(steps
        .iter()
        .all(|s| s["metric"]["scenario"] == "oltp_point_select"));
    // Scraped while the run was on; the endpoint went with the run.
    let up = prometheus.query("max_over_time(up{job=\"dbdyno\"}[1m])");
    assert_eq!(value(&up[0]), 1.0, "{up:?}");
    assert!(
        get(port, "/metrics").is_err(),
        "the endpoint stops with the run"
    );
}

#[test]
fn a_taken_port_or_a_remote_address_refuses_the_run_before_it_starts() {
    let _g = shared_server();
    let s = TestSchema::new("metrics_refused");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let run = |addr: &str| {
        s.dbdyno(&[
            "oltp_point_select",
            "--tables=1",
            "--table-size=100",
            "--time=1",
            "--no-history",
            &format!("--metrics-addr={addr}"),
            "run",
        ])
    };
    let o = run(&format!("127.0.0.1:{port}"));
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains(&format!("cannot listen on 127.0.0.1:{port}"))
            && stderr(&o).contains("nothing was run"),
        "{}",
        stderr(&o)
    );
    let o = run("0.0.0.0:9187");
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--metrics-allow-remote"),
        "{}",
        stderr(&o)
    );
}
