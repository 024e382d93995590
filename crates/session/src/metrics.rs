//! Live metrics for Prometheus and Grafana: while a run is on, `--metrics-addr` (the
//! app's "Serve live metrics" setting) serves the run's latest figures as OpenMetrics
//! text at `/metrics`: per-second throughput and latency quantiles, errors and
//! reconnects, the step and its threads, the server's CPU and disk, MySQL's own counts,
//! this machine's CPU; and counters of transactions, queries, errors and reconnects for
//! `rate()`. The figures are the run's events as they come ([`Metrics::observe`]): the
//! same numbers the shells print and chart.
//!
//! prometheus-client (the Prometheus project's own crate) encodes. The endpoint answers
//! one GET with a few lines of std on a thread of its own: tiny_http was tried first and
//! closes its listener on a thread of its own after the server is dropped, so a run's
//! port was still open when the run had ended (a unit test caught it once in two
//! runs), and the next run on that port could have been refused; an async stack would
//! bring a runtime into a run that has none. Loopback only unless the user says
//! otherwise ([`MetricsAddr::parse`]): the figures name the environment and its load.
//!
//! Non-goals: history (Prometheus keeps it), push gateways, authentication.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use dbdyno_engine::EngineEvent;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::fold::Update;
use crate::run::RunEvent;

/// Where to serve, checked: loopback unless `allow_remote`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsAddr(pub SocketAddr);

/// A run's endpoint: where, and the environment its figures are labelled with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetricsRequest {
    pub addr: MetricsAddr,
    pub env: String,
}

impl MetricsRequest {
    /// The endpoint a shell was given (`--metrics-addr`, the Plan screen's field) for a
    /// run of `plan` from `profile`, labelled with the environment's name as the history
    /// records it.
    pub fn for_run(
        addr: &str,
        allow_remote: bool,
        profile: &dbdyno_profile::Profile,
        plan: &dbdyno_engine::Plan,
    ) -> Result<MetricsRequest, MetricsError> {
        Ok(MetricsRequest {
            addr: MetricsAddr::parse(addr, allow_remote)?,
            env: crate::run::environment_name(profile, plan),
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("--metrics-addr: '{0}' is not HOST:PORT with an IP address (e.g. 127.0.0.1:9187)")]
    NotAnAddress(String),
    #[error(
        "--metrics-addr: {0} is not a loopback address: the metrics name the environment \
         and its load; add --metrics-allow-remote to serve them to the network"
    )]
    NotLoopback(SocketAddr),
    #[error("--metrics-addr: cannot listen on {addr}: {reason}")]
    Listen { addr: SocketAddr, reason: String },
}

impl MetricsAddr {
    /// `HOST:PORT` as typed; an address outside 127.0.0.0/8 and ::1 only when
    /// `allow_remote`.
    pub fn parse(s: &str, allow_remote: bool) -> Result<MetricsAddr, MetricsError> {
        let addr: SocketAddr = s
            .trim()
            .parse()
            .map_err(|_| MetricsError::NotAnAddress(s.to_string()))?;
        if !addr.ip().is_loopback() && !allow_remote {
            return Err(MetricsError::NotLoopback(addr));
        }
        Ok(MetricsAddr(addr))
    }
}

type FloatGauge = Gauge<f64, AtomicU64>;
type FloatCounter = Counter<f64, AtomicU64>;

/// A gauge that is absent until first set: a run without monitoring serves no server
/// CPU, rather than a CPU of 0%; before the first interval there is no TPS, rather than 0.
#[derive(Clone, Default)]
struct Lazy(Family<Vec<(String, String)>, FloatGauge>);

impl Lazy {
    fn set(&self, v: f64) {
        self.0.get_or_create(&Vec::new()).set(v);
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct QuantileLabel {
    quantile: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DeviceLabel {
    device: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StepLabels {
    step: u64,
    scenario: String,
    threads: u64,
}

/// The run's figures as Prometheus sees them: each a handle onto the registry's value.
#[derive(Default)]
pub struct Metrics {
    tps: Lazy,
    qps: Lazy,
    reads_ps: Lazy,
    writes_ps: Lazy,
    latency_seconds: Family<QuantileLabel, FloatGauge>,
    errors_ps: Lazy,
    reconnects_ps: Lazy,
    transactions: FloatCounter,
    queries: FloatCounter,
    errors: FloatCounter,
    reconnects: FloatCounter,
    threads: FloatGauge,
    step: Family<StepLabels, FloatGauge>,
    server_cpu_busy: Lazy,
    server_iowait: Lazy,
    server_disk_util: Family<DeviceLabel, FloatGauge>,
    mysql_questions_ps: Lazy,
    mysql_transactions_ps: Lazy,
    mysql_threads_running: Lazy,
    mysql_threads_connected: Lazy,
    mysql_hit_rate: Lazy,
    mysql_row_lock_waits_ps: Lazy,
    client_cpu: Lazy,
}

impl Metrics {
    /// The metrics registered under `dbdyno_`, every one labelled with the environment,
    /// and their names as Prometheus sees them.
    fn registered(env: &str) -> (Metrics, Registry, Vec<String>) {
        let m = Metrics::default();
        let mut r = Registry::with_prefix_and_labels(
            "dbdyno",
            [("env".into(), env.to_string().into())].into_iter(),
        );
        let mut names = Vec::new();
        let gauges: [(&str, &str, &Lazy); 15] = [
            (
                "tps",
                "Transactions per second over the last interval",
                &m.tps,
            ),
            ("qps", "Queries per second over the last interval", &m.qps),
            (
                "reads_per_second",
                "Reads per second over the last interval",
                &m.reads_ps,
            ),
            (
                "writes_per_second",
                "Writes per second over the last interval",
                &m.writes_ps,
            ),
            (
                "errors_per_second",
                "Ignored errors per second over the last interval",
                &m.errors_ps,
            ),
            (
                "reconnects_per_second",
                "Reconnects per second over the last interval",
                &m.reconnects_ps,
            ),
            (
                "server_cpu_busy_percent",
                "Database host CPU busy (100 - idle - iowait)",
                &m.server_cpu_busy,
            ),
            (
                "server_iowait_percent",
                "Database host CPU in iowait",
                &m.server_iowait,
            ),
            (
                "mysql_questions_per_second",
                "MySQL Questions per second (the sampler's own excluded)",
                &m.mysql_questions_ps,
            ),
            (
                "mysql_transactions_per_second",
                "MySQL Com_commit + Com_rollback per second",
                &m.mysql_transactions_ps,
            ),
            (
                "mysql_threads_running",
                "MySQL Threads_running",
                &m.mysql_threads_running,
            ),
            (
                "mysql_threads_connected",
                "MySQL Threads_connected",
                &m.mysql_threads_connected,
            ),
            (
                "mysql_buffer_pool_hit_percent",
                "InnoDB buffer pool hit rate over the last interval",
                &m.mysql_hit_rate,
            ),
            (
                "mysql_row_lock_waits_per_second",
                "InnoDB row lock waits per second",
                &m.mysql_row_lock_waits_ps,
            ),
            (
                "client_cpu_percent",
                "This load generator's CPU, percent of all its cores",
                &m.client_cpu,
            ),
        ];
        for (n, help, g) in gauges {
            r.register(n, help, g.0.clone());
            names.push(n.to_string());
        }
        r.register(
            "threads",
            "Threads of the step running (0 between steps)",
            m.threads.clone(),
        );
        names.push("threads".into());
        let counters: [(&str, &str, &FloatCounter); 4] = [
            (
                "transactions",
                "Transactions of the run's measured steps",
                &m.transactions,
            ),
            ("queries", "Queries of the run's measured steps", &m.queries),
            (
                "errors",
                "Ignored errors of the run's measured steps",
                &m.errors,
            ),
            (
                "reconnects",
                "Reconnects of the run's measured steps",
                &m.reconnects,
            ),
        ];
        for (n, help, c) in counters {
            r.register(n, help, c.clone());
            // OpenMetrics: a counter's samples end in _total.
            names.push(format!("{n}_total"));
        }
        r.register(
            "latency_seconds",
            "Transaction latency at a quantile over the last interval",
            m.latency_seconds.clone(),
        );
        r.register(
            "step",
            "The measured step running: 1, labelled with its number, scenario and threads",
            m.step.clone(),
        );
        r.register(
            "server_disk_util_percent",
            "Database host data disk utilisation per device",
            m.server_disk_util.clone(),
        );
        names.extend(["latency_seconds", "step", "server_disk_util_percent"].map(String::from));
        let names = names.into_iter().map(|n| format!("dbdyno_{n}")).collect();
        (m, r, names)
    }

    /// Takes in one of the run's events.
    pub fn observe(&self, event: &RunEvent<'_>) {
        match event {
            RunEvent::Engine(e) => self.engine(e),
            RunEvent::Sampler(u) => self.sampler(u),
            RunEvent::ClientCpu { percent, .. } => {
                self.client_cpu.set(*percent);
            }
            _ => {}
        }
    }

    fn engine(&self, e: &EngineEvent) {
        match e {
            EngineEvent::StepStarted {
                step,
                scenario,
                threads,
                ..
            } => {
                self.step.clear();
                self.step
                    .get_or_create(&StepLabels {
                        step: *step as u64,
                        scenario: scenario.name().to_string(),
                        threads: u64::from(*threads),
                    })
                    .set(1.0);
                self.threads.set(f64::from(*threads));
            }
            EngineEvent::Interval { record: r, .. } => {
                self.tps.set(r.tps);
                self.qps.set(r.qps);
                self.reads_ps.set(r.reads_ps);
                self.writes_ps.set(r.writes_ps);
                self.errors_ps.set(r.errors_ps);
                self.reconnects_ps.set(r.reconnects_ps);
                self.transactions.inc_by(r.tps * r.duration_s);
                self.queries.inc_by(r.qps * r.duration_s);
                self.errors.inc_by(r.errors_ps * r.duration_s);
                self.reconnects.inc_by(r.reconnects_ps * r.duration_s);
                for (q, ms) in [(0.95, r.p95_ms), (0.99, r.p99_ms)] {
                    if let Some(ms) = ms.or_else(|| r.latency_at(q * 100.0)) {
                        self.set_latency(q, ms);
                    }
                }
                if ![95.0, 99.0].contains(&r.percentile) {
                    self.set_latency(r.percentile / 100.0, r.latency_ms);
                }
            }
            EngineEvent::StepFinished { .. } | EngineEvent::StepFailed { .. } => {
                self.step.clear();
                self.threads.set(0.0);
            }
            _ => {}
        }
    }

    fn set_latency(&self, quantile: f64, ms: f64) {
        self.latency_seconds
            .get_or_create(&QuantileLabel {
                quantile: format!("{quantile}"),
            })
            .set(ms / 1000.0);
    }

    fn sampler(&self, u: &Update) {
        match u {
            Update::Os { sample, .. } => {
                if let Some(c) = &sample.cpu {
                    self.server_cpu_busy.set(c.util);
                    self.server_iowait.set(c.iowait);
                }
                for d in &sample.disks {
                    self.server_disk_util
                        .get_or_create(&DeviceLabel {
                            device: d.name.clone(),
                        })
                        .set(d.util_pct);
                }
            }
            Update::Mysql(s) => {
                self.mysql_questions_ps.set(s.questions_per_s);
                self.mysql_transactions_ps.set(s.transactions_per_s);
                self.mysql_threads_running.set(s.threads_running as f64);
                self.mysql_threads_connected.set(s.threads_connected as f64);
                if let Some(h) = s.hit_rate_pct {
                    self.mysql_hit_rate.set(h);
                }
                if s.interval_s > 0.0 {
                    self.mysql_row_lock_waits_ps
                        .set(s.row_lock_waits as f64 / s.interval_s);
                }
            }
            Update::Gap(_) | Update::Note { .. } => {}
        }
    }
}

/// The `/metrics` endpoint of one run, served until dropped: its port is closed when
/// the drop returns.
pub struct MetricsServer {
    metrics: Metrics,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    addr: SocketAddr,
}

/// What Prometheus asks for and gets: OpenMetrics 1.0 text.
const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
/// How often the serving thread looks for a scrape (and for the run's end).
const POLL: Duration = Duration::from_millis(20);
/// A scraper that sends nothing, or reads nothing, is dropped after this.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(2);

impl MetricsServer {
    /// Listens on the request's address (port 0: one the system picks,
    /// [`MetricsServer::addr`] says which) and serves the figures of its environment.
    pub fn start(req: &MetricsRequest) -> Result<MetricsServer, MetricsError> {
        let addr = req.addr.0;
        let listen_error = |e: std::io::Error| MetricsError::Listen {
            addr,
            reason: e.to_string(),
        };
        let listener = TcpListener::bind(addr).map_err(listen_error)?;
        let bound = listener.local_addr().map_err(listen_error)?;
        listener.set_nonblocking(true).map_err(listen_error)?;
        let (metrics, registry, _) = Metrics::registered(&req.env);
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("metrics".into())
            .spawn(move || serve(&listener, &registry, &stopped))
            .map_err(listen_error)?;
        Ok(MetricsServer {
            metrics,
            stop,
            thread: Some(thread),
            addr: bound,
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn observe(&self, event: &RunEvent<'_>) {
        self.metrics.observe(event);
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // The thread owns the listener: once it has returned, the port is closed.
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers each scrape until `stop`: one connection at a time (a scraper asks once a
/// second), the listener polled so that the thread sees the run's end.
fn serve(listener: &TcpListener, registry: &Registry, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        match listener.accept() {
            // A scraper that hung up or stalled: nothing to tell it.
            Ok((stream, _)) => {
                let _ = answer(stream, registry);
            }
            Err(_) => std::thread::sleep(POLL),
        }
    }
}

/// Reads one request's head and answers it: `GET /metrics` with the registry's figures,
/// anything else with 404, and closes.
fn answer(mut stream: TcpStream, registry: &Registry) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(CLIENT_TIMEOUT))?;
    stream.set_write_timeout(Some(CLIENT_TIMEOUT))?;
    let mut head = Vec::new();
    let mut chunk = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&chunk[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, content_type, body) = if method == "GET" && path == "/metrics" {
        let mut body = String::new();
        if prometheus_client::encoding::text::encode(&mut body, registry).is_err() {
            body.clear();
        }
        ("200 OK", CONTENT_TYPE, body)
    } else {
        (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "DB Dyno serves GET /metrics only\n".to_string(),
        )
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::{IntervalRecord, Scenario};

    use super::*;

    fn get(addr: SocketAddr, path: &str) -> String {
        let mut s = std::net::TcpStream::connect(addr).unwrap();
        write!(s, "GET {path} HTTP/1.0\r\nHost: x\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    /// The Grafana dashboard that ships (docs/grafana/dbdyno-live.json) asks only for
    /// metrics the endpoint serves: a renamed metric fails here, not on a user's screen.
    #[test]
    fn the_shipped_dashboard_queries_only_served_metrics() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/grafana/dbdyno-live.json"
        );
        let dashboard: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let (_, _, served) = Metrics::registered("x");
        let mut asked = 0;
        for panel in dashboard["panels"].as_array().unwrap() {
            for target in panel["targets"].as_array().unwrap() {
                let expr = target["expr"].as_str().unwrap();
                for name in expr
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .filter(|w| w.starts_with("dbdyno_"))
                {
                    asked += 1;
                    assert!(
                        served.iter().any(|s| s == name),
                        "{name} (panel {}) is not served: {served:?}",
                        panel["title"]
                    );
                }
            }
        }
        assert!(asked >= 15, "{asked} metrics asked for");
    }

    #[test]
    fn only_loopback_unless_allowed_and_a_clear_word_for_a_typo() {
        assert!(MetricsAddr::parse("127.0.0.1:9187", false).is_ok());
        assert!(MetricsAddr::parse("[::1]:9187", false).is_ok());
        let e = MetricsAddr::parse("0.0.0.0:9187", false).unwrap_err();
        assert!(e.to_string().contains("--metrics-allow-remote"), "{e}");
        assert!(MetricsAddr::parse("0.0.0.0:9187", true).is_ok());
        let e = MetricsAddr::parse("localhost:9187", false).unwrap_err();
        assert!(
            e.to_string()
                .contains("is not HOST:PORT with an IP address"),
            "{e}"
        );
    }

    #[test]
    fn the_endpoint_serves_the_latest_interval_and_the_running_step() {
        let at = |addr| MetricsRequest {
            addr: MetricsAddr(addr),
            env: "idc".into(),
        };
        let m = MetricsServer::start(&at("127.0.0.1:0".parse().unwrap())).unwrap();
        let busy = MetricsServer::start(&at(m.addr())).err().unwrap();
        assert!(busy.to_string().contains("cannot listen on"), "{busy}");
        m.observe(&RunEvent::Engine(&EngineEvent::StepStarted {
            step: 2,
            scenario: Scenario::OltpReadOnly,
            threads: 8,
            warmup_s: 0,
            planned_s: 10,
        }));
        let record = IntervalRecord {
            duration_s: 1.0,
            threads: 8,
            tps: 1234.5,
            qps: 19752.0,
            percentile: 95.0,
            latency_ms: 7.5,
            p95_ms: Some(7.5),
            p99_ms: Some(9.0),
            ..IntervalRecord::default()
        };
        for _ in 0..2 {
            m.observe(&RunEvent::Engine(&EngineEvent::Interval {
                step: 2,
                record: record.clone(),
            }));
        }
        let text = get(m.addr(), "/metrics");
        assert!(text.contains(CONTENT_TYPE), "{text}");
        for line in [
            "dbdyno_tps{env=\"idc\"} 1234.5",
            "dbdyno_transactions_total{env=\"idc\"} 2469",
            "dbdyno_threads{env=\"idc\"} 8",
            "dbdyno_latency_seconds{env=\"idc\",quantile=\"0.95\"} 0.0075",
            "dbdyno_latency_seconds{env=\"idc\",quantile=\"0.99\"} 0.009",
            "dbdyno_step{env=\"idc\",step=\"2\",scenario=\"oltp_read_only\",threads=\"8\"} 1",
            "# EOF",
        ] {
            assert!(text.contains(line), "{line} in\n{text}");
        }
        // Not monitored: no server CPU at all, rather than a CPU of 0%.
        assert!(!text.contains("dbdyno_server_cpu_busy_percent{"), "{text}");
        assert!(get(m.addr(), "/").contains("404"));
        let addr = m.addr();
        drop(m);
        assert!(
            std::net::TcpStream::connect(addr).is_err(),
            "stopped with the run"
        );
    }
}
