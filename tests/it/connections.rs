//! Opening a step's connections: never a hang, whatever the server does while they open.

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dbdyno_engine::plan::StepPlan;
use dbdyno_engine::{
    exec, CancelToken, ConnectOptions, EngineEvent, EventSink, RunSettings, Scenario,
    WorkloadOptions,
};
use dbdyno_tests::*;
use serde_json::Value;

/// A loopback listener that accepts connections and never says a word: what a client
/// meets when the server's accept queue dropped its connection after the TCP handshake,
/// or when it was pointed at a port that is not MySQL's.
struct SilentServer {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<usize>>,
}

impl SilentServer {
    fn start() -> SilentServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            while !flag.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => held.push(stream),
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
            held.len()
        });
        SilentServer {
            port,
            stop,
            thread: Some(thread),
        }
    }

    /// Stops accepting; returns how many connections it took.
    fn stop(mut self) -> usize {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap()
    }
}

#[test]
fn a_server_that_never_greets_fails_the_step_naming_the_handshake() {
    let _g = shared_server();
    let server = SilentServer::start();
    let connect = ConnectOptions {
        host: "127.0.0.1".into(),
        port: server.port,
        password: Some("x".into()),
        ..Default::default()
    };
    let step = StepPlan {
        scenario: Scenario::OltpPointSelect,
        threads: 2,
        settings: RunSettings {
            time_s: 1,
            ..Default::default()
        },
        repeat: Default::default(),
    };
    let (tx, rx) = crossbeam_channel::unbounded();
    let t0 = Instant::now();
    // The run's first contact: nothing says a server is there, so no retries.
    let server_seen = false;
    let r = exec::run_step(
        &connect,
        &WorkloadOptions::default(),
        &step,
        0,
        server_seen,
        &EventSink::new(tx),
        &CancelToken::new(),
    );
    let took = t0.elapsed();
    let accepted = server.stop();
    let e = r.expect_err("a server that never greets cannot run a step");
    let text = e.to_string();
    assert!(
        text.contains("no MySQL handshake within 10s"),
        "names the handshake: {text}"
    );
    // One handshake timeout (10 s), not a wait forever.
    assert!(took < Duration::from_secs(30), "gave up in {took:?}");
    assert_eq!(accepted, 2, "each worker tried once");
    let done = rx
        .try_iter()
        .any(|e| matches!(e, EngineEvent::Connecting(c) if c.done && c.opened == 0));
    assert!(done, "the opening's end was reported");
}

#[test]
fn a_thousand_connections_open_through_a_tiny_accept_queue() {
    // back_log = 1: sysbench 1.0.20 gives up here ("Worker threads failed to initialize
    // within 30 seconds"); dbdyno paces and retries its connects.
    // Two thousand threads on this machine (client and server) would skew the tests
    // that compare counters or timings: run alone.
    let _g = exclusive_server();
    let server = PrivateSandbox::start(
        "backlog",
        "back_log = 1\nmax_connections = 1100\ninnodb_buffer_pool_size = 32M",
    );
    ok(&server.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "prepare",
    ]));
    let file = tempfile::NamedTempFile::new().unwrap();
    let json = format!("--json={}", file.path().display());
    let t0 = Instant::now();
    let out = server.dbdyno(&[
        "oltp_point_select",
        "--tables=1",
        "--table-size=1000",
        "--threads=1024",
        "--time=2",
        &json,
        "run",
    ]);
    let text = ok(&out);
    assert!(t0.elapsed() < Duration::from_secs(90), "{text}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file.path()).unwrap()).unwrap();
    let step = &doc["outcome"]["steps"][0];
    assert_eq!(step["threads"], 1024);
    assert!(step["transactions"].as_u64().unwrap() > 0, "{text}");
    let opened = &step["connections"];
    assert!(
        opened["seconds"].as_f64().unwrap() > 0.0,
        "the opening time is recorded: {step}"
    );
}
