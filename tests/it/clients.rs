//! Several load clients for one step (`--clients`), against the sandbox MariaDB and an
//! sshd of the test's own ([`PrivateSshd`]): `local` plus two SSH logins (127.0.0.1 and
//! 127.0.0.2) stand for three client machines. What is held: the per-client rows add up to the merged figures
//! second by second; a fixed `--events` count is exactly the merged histogram's; a
//! client lost mid-step makes that step partial and the run goes on; cancel leaves no
//! agent running on any client; a second install reuses the copy.
//!
//! The tests run one at a time (`SERIAL`): the no-process check lists every agent they
//! start. Their SSH agents run from a binary cache of their own (the private sshd's
//! `XDG_CACHE_HOME`), which no other test's install or prune touches, and no other test's
//! agent runs from: they run beside the other SSH tests.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dbdyno_clients::transport::local::LocalLauncher;
use dbdyno_clients::{ClientSpec, Coordinator, Launcher, SshLauncher};
use dbdyno_engine::stats::LatencyHistogram;
use dbdyno_engine::{run_plan_with, CancelToken, EventSink, StepResult};
use dbdyno_remote::RemoteHost;
use dbdyno_ssh::{KnownHostsConfig, SshAuth, SshTarget};
use dbdyno_tests::{dbdyno_path, free_port, lines_of, shared_server, stderr, stdout, TestSchema};

use crate::sshd::{PrivateSshd, Sshd};

static SERIAL: Mutex<()> = Mutex::new(());

/// One clients test at a time: they count the agents they started, here and on their
/// sshd, and share their agents' binary cache. The test says first that it will share,
/// so that no test alone runs between two of these while they wait for each other
/// (seen: the A/A verdict in such a gap).
fn serial() -> (dbdyno_tests::Announced, std::sync::MutexGuard<'static, ()>) {
    let announced = dbdyno_tests::will_share();
    let one = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    (announced, one)
}

/// The agents' binary cache on the clients' sshd: one for every clients test, kept in
/// cargo's scratch directory across runs (a copy of a debug build takes seconds; the
/// install keeps the newest three versions).
fn agent_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("clients-agent-cache")
}

fn second_host() -> String {
    std::env::var("DBDYNO_TEST_SSH_HOST2").unwrap_or_else(|_| "127.0.0.2".into())
}

/// The test's own sshd at both its addresses, trusted through a known_hosts file in
/// `dir`.
struct Clients {
    sshd: Sshd,
    known_hosts: PathBuf,
    _private: PrivateSshd,
}

impl Clients {
    fn new(dir: &Path) -> Clients {
        let private = PrivateSshd::start(&agent_cache());
        let sshd = private.sshd.clone();
        let known_hosts = dir.join("known_hosts");
        let line = |h: &str| format!("[{h}]:{} {}\n", sshd.port, sshd.host_pubkey);
        std::fs::write(&known_hosts, line(&sshd.host) + &line(&second_host())).unwrap();
        Clients {
            sshd,
            known_hosts,
            _private: private,
        }
    }

    fn url(&self, host: &str) -> String {
        format!("ssh://{}@{host}:{}", self.sshd.user, self.sshd.port)
    }

    /// `local` and the sandbox at both its addresses.
    fn three(&self) -> String {
        format!(
            "--clients=local,{},{}",
            self.url(&self.sshd.host),
            self.url(&second_host())
        )
    }

    /// The SSH options every client logs in with.
    fn ssh_args(&self) -> Vec<String> {
        vec![
            format!("--ssh-key={}", self.sshd.key.display()),
            format!("--known-hosts={}", self.known_hosts.display()),
        ]
    }

    fn target(&self, host: &str) -> SshTarget {
        SshTarget::new(
            host,
            self.sshd.port,
            &self.sshd.user,
            SshAuth::Key {
                path: self.sshd.key.clone(),
                passphrase: None,
            },
            KnownHostsConfig::new(self.known_hosts.clone()),
        )
    }

    /// PIDs of DB Dyno agents running from the per-user cache of `host`, listed over SSH.
    fn agents_on(&self, host: &str) -> Vec<u32> {
        let remote = RemoteHost::connect(&self.target(host)).expect("log in to list processes");
        // The binary is already there (same checksum): this finds its path, copying nothing.
        let installed = remote
            .install(&dbdyno_path())
            .expect("find the installed binary");
        assert!(!installed.copied, "the run copied it first");
        remote.processes_of(&installed).expect("list processes")
    }
}

fn ladder_args<'a>(clients: &'a Clients, extra: &[&'a str]) -> Vec<String> {
    let mut args: Vec<String> = ["ladder", "--scenarios=oltp_point_select", "--tables=1"]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    args.push(clients.three());
    args.extend(clients.ssh_args());
    args
}

/// What each ladder test over clients starts from: a one-table point-select schema, the
/// clients trusted through a scratch directory, and where the run's `--json` goes.
struct Setup {
    schema: TestSchema,
    clients: Clients,
    json: PathBuf,
    _dir: tempfile::TempDir,
}

fn set_up(tag: &str) -> Setup {
    let schema = TestSchema::new(tag);
    schema.prepare_one_table("oltp_point_select", 1000);
    let dir = tempfile::tempdir().unwrap();
    Setup {
        schema,
        clients: Clients::new(dir.path()),
        json: dir.path().join("run.json"),
        _dir: dir,
    }
}

impl Setup {
    /// Runs the ladder over the three clients with `extra`, writing `--json`; asserts it
    /// succeeded and returns its stdout.
    fn ladder_to_json(&self, extra: &[&str]) -> String {
        let json_arg = format!("--json={}", self.json.display());
        let mut extra = extra.to_vec();
        extra.push(&json_arg);
        let args = ladder_args(&self.clients, &extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = self.schema.dbdyno(&args);
        let text = stdout(&out);
        assert!(out.status.success(), "{text}\n{}", stderr(&out));
        text
    }
}

fn steps(json: &Path) -> Vec<StepResult> {
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    serde_json::from_value(doc["outcome"]["steps"].clone()).unwrap()
}

/// Every second of the step is the sum of the clients' seconds; every total the sum of
/// the clients' totals.
fn assert_rows_add_up(s: &StepResult) {
    assert_eq!(
        s.clients.iter().map(|c| c.threads).sum::<u32>(),
        s.threads,
        "{s:?}"
    );
    assert_eq!(
        s.clients.iter().map(|c| c.transactions).sum::<u64>(),
        s.transactions
    );
    assert_eq!(
        s.clients.iter().map(|c| c.queries.total()).sum::<u64>(),
        s.queries.total()
    );
    for (i, merged) in s.intervals.iter().enumerate() {
        let of = |f: fn(&dbdyno_engine::IntervalRecord) -> f64| -> f64 {
            s.clients
                .iter()
                .filter_map(|c| c.intervals.get(i))
                .map(f)
                .sum()
        };
        assert!((merged.tps - of(|r| r.tps)).abs() < 1e-6, "second {i}");
        assert!((merged.qps - of(|r| r.qps)).abs() < 1e-6, "second {i}");
        assert!((merged.errors_ps - of(|r| r.errors_ps)).abs() < 1e-9);
        assert_eq!(merged.threads as f64, of(|r| r.threads as f64));
    }
}

#[test]
fn three_clients_record_rows_that_add_up_to_the_merged_seconds() {
    let _one = serial();
    let _g = shared_server();
    let t = set_up("clients_rows");
    let clients = &t.clients;
    let text = t.ladder_to_json(&["--threads=3,5", "--time=3", "--report-interval=1"]);
    // The split is said: 5 threads over 3 clients, the remainder on the first ones.
    assert!(
        text.contains(&format!(
            "local 2, {} 2, {} 1",
            clients.url(&clients.sshd.host),
            clients.url(&second_host())
        )),
        "{text}"
    );
    let steps = steps(&t.json);
    assert_eq!(steps.len(), 2);
    for s in &steps {
        assert_eq!(s.clients.len(), 3, "{s:?}");
        assert!(s.intervals.len() >= 2, "{s:?}");
        assert!(s.clients.iter().all(|c| c.lost.is_none()));
        assert_rows_add_up(s);
    }
}

#[test]
fn a_fixed_event_count_is_exactly_the_merged_histogram() {
    let _one = serial();
    let _g = shared_server();
    let t = set_up("clients_events");
    t.ladder_to_json(&["--threads=6", "--time=0", "--events=3000"]);
    let step = &steps(&t.json)[0];
    // Every transaction once: the events were split 1000 a client (2 threads each).
    assert_eq!(step.transactions, 3000);
    for c in &step.clients {
        assert_eq!(c.transactions, 1000, "{}", c.client);
    }
    let merged = LatencyHistogram::from_base64(&step.histogram).unwrap();
    assert_eq!(merged.count(), 3000, "one latency per transaction");
    assert_eq!(step.latency.count, 3000);
    // Its percentiles are read from it, never averaged from the clients'.
    let p = merged.value_at_percentile_ms(step.percentile);
    assert!((step.latency_pct_ms - p.min(step.latency.max_ms)).abs() < 1e-9);
    let lowest = step
        .clients
        .iter()
        .map(|c| c.latency_pct_ms)
        .fold(f64::MAX, f64::min);
    let highest = step
        .clients
        .iter()
        .map(|c| c.latency_pct_ms)
        .fold(0.0, f64::max);
    assert!(step.latency_pct_ms >= lowest && step.latency_pct_ms <= highest);
    assert_rows_add_up(step);
}

/// PIDs of the sshd processes serving connections to `host` on the sandbox's port.
fn sshd_sessions_of(host: &str, port: u16) -> Vec<u32> {
    let out = Command::new("ss")
        .args(["-tnpH", "state", "established"])
        .output()
        .expect("ss (iproute2)");
    let local = format!("{host}:{port}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.split_whitespace().nth(2) == Some(local.as_str()))
        .flat_map(|l| {
            l.split("pid=")
                .skip(1)
                .filter_map(|p| p.split(',').next()?.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

fn wait_for_line(rx: &std::sync::mpsc::Receiver<String>, needle: &str, seen: &mut String) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        if let Ok(l) = rx.recv_timeout(Duration::from_millis(100)) {
            seen.push_str(&l);
            seen.push('\n');
            if l.contains(needle) {
                return;
            }
        }
    }
    panic!("no line with {needle:?} within 120 s:\n{seen}");
}

#[test]
fn a_client_lost_mid_step_leaves_a_partial_step_and_the_run_goes_on() {
    let _one = serial();
    let _g = shared_server();
    let Setup {
        schema,
        clients,
        json,
        _dir,
    } = set_up("clients_lost");
    let lost_url = clients.url(&second_host());
    let mut args = vec![
        "ladder".to_string(),
        "--scenarios=oltp_point_select".into(),
        "--tables=1".into(),
        "--threads=2,3".into(),
        "--time=5".into(),
        "--report-interval=1".into(),
        format!("--clients=local,{lost_url}"),
    ];
    args.extend(clients.ssh_args());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = schema.spawn_dbdyno(&args, &json);
    let rx = lines_of(&mut child);
    let mut seen = String::new();
    wait_for_line(&rx, "[ 2s ]", &mut seen);
    // The client's SSH connections die, as when its machine drops off the network.
    let sessions = sshd_sessions_of(&second_host(), clients.sshd.port);
    assert!(!sessions.is_empty(), "no sshd session to {}", second_host());
    for pid in sessions {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    let status = child.wait().unwrap();
    seen.extend(rx.try_iter().map(|l| l + "\n"));
    assert!(status.success(), "{seen}\n{err}");
    let steps = steps(&json);
    assert_eq!(steps.len(), 2, "the run went on: {seen}");
    let partial = &steps[0];
    let lost = partial.clients[1]
        .lost
        .as_ref()
        .expect("the client is lost");
    assert!(lost.after_s >= 1.0 && lost.after_s < 5.0, "{lost:?}");
    assert!(partial.clients[0].lost.is_none());
    assert_rows_add_up(partial);
    // The next step ran from the clients left: all its threads on this machine.
    assert_eq!(steps[1].clients.len(), 1, "{:?}", steps[1].clients);
    assert_eq!(steps[1].clients[0].client, "local");
    assert_eq!(steps[1].clients[0].threads, 3);
    assert!(
        err.contains(&format!("load client {lost_url} lost")),
        "{err}"
    );
    // The partial step's window is on the common clock, not from the epoch.
    let window_s = (partial.ended_unix_ms - partial.started_unix_ms) as f64 / 1000.0;
    assert!(window_s > 3.0 && window_s < 30.0, "{window_s}");
}

/// PIDs of `dbdyno agent` processes started from `binary` on this machine.
fn local_agents(binary: &Path) -> Vec<String> {
    let out = Command::new("ps")
        .args(["-eo", "pid=,args="])
        .output()
        .unwrap();
    let wanted = format!("{} agent", binary.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.trim_end().ends_with(&wanted))
        .map(String::from)
        .collect()
}

#[test]
fn cancel_stops_every_client_and_leaves_no_agent_behind() {
    let _one = serial();
    let _g = shared_server();
    let Setup {
        schema,
        clients,
        json,
        _dir,
    } = set_up("clients_cancel");
    let args = ladder_args(
        &clients,
        &["--threads=3", "--time=120", "--report-interval=1"],
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = schema.spawn_dbdyno(&args, &json);
    let rx = lines_of(&mut child);
    let mut seen = String::new();
    wait_for_line(&rx, "[ 1s ]", &mut seen);
    assert!(
        !clients.agents_on(&clients.sshd.host).is_empty(),
        "agents run"
    );
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let started = Instant::now();
    let status = child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(30), "{seen}");
    assert_eq!(status.code(), Some(130), "{seen}");
    assert_eq!(steps(&json)[0].clients.len(), 3);
    // Nothing left: no agent on either SSH client, listed over SSH, nor on this machine.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<u32> = [clients.sshd.host.clone(), second_host()]
            .iter()
            .flat_map(|h| clients.agents_on(h))
            .collect();
        let local = local_agents(&dbdyno_path());
        if left.is_empty() && local.is_empty() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "agents left: {left:?} over SSH, {local:?} here"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_second_install_reuses_the_copy() {
    let _one = serial();
    let _g = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let clients = Clients::new(dir.path());
    let spec = ClientSpec::parse(&clients.url(&clients.sshd.host)).unwrap();
    let launcher = SshLauncher {
        logins: vec![(spec.clone(), clients.target(&clients.sshd.host))],
        binary: dbdyno_path(),
        local: LocalLauncher {
            binary: dbdyno_path(),
            all_local: false,
        },
        // A cache of this test's own: the first install copies.
        cache_dir: Some(dir.path().join("cache").display().to_string()),
    };
    let mut first = launcher.launch(&spec).expect("first launch");
    let note = first.note().unwrap();
    assert!(note.contains("copied"), "{note}");
    first.stop();
    let mut second = launcher.launch(&spec).expect("second launch");
    let note = second.note().unwrap();
    assert!(note.contains("copy skipped"), "{note}");
    second.stop();
}

#[test]
fn three_local_agents_run_a_plan_with_prewarm_and_merge_it() {
    let _one = serial();
    let _g = shared_server();
    let schema = TestSchema::new("clients_local");
    let mut plan = schema.point_select_ladder(vec![3], 2);
    // Prewarm from every client.
    plan.phases.insert(
        1,
        dbdyno_engine::Phase::Prewarm(dbdyno_engine::plan::PrewarmOptions {
            threads: 3,
            ..Default::default()
        }),
    );
    // Three agents on this machine stand for three client machines.
    let launcher = LocalLauncher {
        binary: dbdyno_path(),
        all_local: true,
    };
    let specs = ClientSpec::parse_list("local,ssh://a,ssh://b").unwrap();
    let (tx, rx) = crossbeam_channel::unbounded();
    let events = EventSink::new(tx);
    let coordinator = Coordinator::connect(&specs, &launcher, &plan).expect("connect");
    assert_eq!(coordinator.checks().len(), 3);
    let (outcome, error) = run_plan_with(&plan, &events, &CancelToken::new(), &coordinator);
    drop(coordinator);
    assert!(error.is_none(), "{error:?}");
    assert!(outcome.prewarm.is_some());
    let step = &outcome.steps[0];
    assert_eq!(
        step.clients.iter().map(|c| c.threads).collect::<Vec<_>>(),
        vec![1, 1, 1]
    );
    assert_rows_add_up(step);
    // What was shown live is what was kept: one merged line per second.
    drop(events);
    let live: Vec<dbdyno_engine::IntervalRecord> = rx
        .try_iter()
        .filter_map(|e| match e {
            dbdyno_engine::EngineEvent::Interval { record, .. } => Some(record),
            _ => None,
        })
        .collect();
    assert_eq!(live.len(), step.intervals.len());
    for (a, b) in live.iter().zip(&step.intervals) {
        assert!((a.tps - b.tps).abs() < 1e-9);
        assert_eq!(a.latency_ms, b.latency_ms);
    }
}

/// Runs `plan` across two agents on this machine standing for two client machines;
/// returns its only measured step and the run's warnings.
fn across_two_local_agents(plan: &dbdyno_engine::Plan) -> (StepResult, Vec<String>) {
    let launcher = LocalLauncher {
        binary: dbdyno_path(),
        all_local: true,
    };
    let specs = ClientSpec::parse_list("local,ssh://a").unwrap();
    let coordinator = Coordinator::connect(&specs, &launcher, plan).expect("connect");
    let (tx, rx) = crossbeam_channel::unbounded();
    let events = EventSink::new(tx);
    let (outcome, error) = run_plan_with(plan, &events, &CancelToken::new(), &coordinator);
    drop(coordinator);
    assert!(error.is_none(), "{error:?}");
    drop(events);
    let warnings = rx
        .try_iter()
        .filter_map(|e| match e {
            dbdyno_engine::EngineEvent::Warning { text } => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(outcome.steps.len(), 1);
    (outcome.steps.into_iter().next().unwrap(), warnings)
}

#[test]
fn a_split_tpcc_step_counts_every_clients_new_orders_in_tpmc() {
    use dbdyno_engine::tpcc::{TpccOptions, TpccResult, TxnKind};
    let _one = serial();
    let _g = shared_server();
    let schema = TestSchema::new("clients_tpcc");
    dbdyno_tests::ok(&schema.dbdyno(&["tpcc", "--scale=1", "--tables=1", "prepare"]));
    let mut plan = schema.point_select_ladder(vec![2], 3);
    plan.phases
        .retain(|p| matches!(p, dbdyno_engine::Phase::Step(_)));
    for p in &mut plan.phases {
        if let dbdyno_engine::Phase::Step(s) = p {
            s.scenario = dbdyno_engine::Scenario::Tpcc;
        }
    }
    plan.workload.tpcc = TpccOptions {
        scale: 1,
        tables: 1,
        ..TpccOptions::default()
    };
    let (step, warnings) = across_two_local_agents(&plan);
    assert!(
        !warnings.iter().any(|w| w.contains("left out")),
        "{warnings:?}"
    );
    let merged = step
        .tpcc
        .as_ref()
        .expect("the split step keeps its TPC-C figures");
    let shares: Vec<&TpccResult> = step
        .clients
        .iter()
        .map(|c| c.tpcc.as_ref().expect("each client's own figures"))
        .collect();
    assert_eq!(shares.len(), 2);
    let count = |t: &TpccResult, kind: TxnKind| {
        t.transactions
            .iter()
            .find(|x| x.kind == kind)
            .map_or(0, |x| x.count)
    };
    let new_orders: u64 = shares.iter().map(|t| count(t, TxnKind::NewOrder)).sum();
    assert!(new_orders > 0, "{merged:?}");
    // tpmC: every client's New-Orders per minute of the step's common window.
    let tpmc = new_orders as f64 * 60.0 / step.total_time_s;
    assert!(
        (merged.tpmc - tpmc).abs() < 1e-6,
        "{} vs {tpmc}",
        merged.tpmc
    );
    for kind in TxnKind::ALL {
        let sum: u64 = shares.iter().map(|t| count(t, kind)).sum();
        assert_eq!(count(merged, kind), sum, "{kind:?}");
    }
    let rollbacks: u64 = shares.iter().map(|t| t.rollbacks).sum();
    assert_eq!(merged.rollbacks, rollbacks);
    let deadlocks: u64 = shares.iter().map(|t| t.deadlocks).sum();
    assert_eq!(merged.deadlocks, deadlocks);
    // The New-Order latency is that of every New-Order, from the merged histogram.
    let latency = merged.transactions[0].latency.as_ref().unwrap();
    assert_eq!(merged.transactions[0].kind, TxnKind::NewOrder);
    assert_eq!(latency.count, new_orders);
    assert!(latency.p95_ms.is_some());
}

#[test]
fn a_split_rate_step_keeps_the_schedule_and_its_queue() {
    const RATE: f64 = 100.0;
    const SECONDS: u64 = 3;
    let _one = serial();
    let _g = shared_server();
    let schema = TestSchema::new("clients_rate");
    let mut plan = schema.point_select_ladder(vec![4], SECONDS);
    for p in &mut plan.phases {
        if let dbdyno_engine::Phase::Step(s) = p {
            s.settings.rate = RATE;
        }
    }
    let (step, warnings) = across_two_local_agents(&plan);
    assert!(
        !warnings.iter().any(|w| w.contains("left out")),
        "{warnings:?}"
    );
    let o = step
        .open_loop
        .as_ref()
        .expect("the split step keeps its schedule");
    let shares: Vec<&dbdyno_engine::open_loop::OpenLoopResult> = step
        .clients
        .iter()
        .map(|c| c.open_loop.as_ref().expect("each client's own"))
        .collect();
    assert_eq!(shares.len(), 2);
    assert_eq!(shares.iter().map(|s| s.target_rate).sum::<f64>(), RATE);
    assert_eq!((o.target_rate, o.connections), (RATE, 4));
    assert_eq!(
        o.achieved_rate,
        step.tps(),
        "achieved over the common window"
    );
    assert_eq!(
        o.late_starts,
        shares.iter().map(|s| s.late_starts).sum::<u64>()
    );
    assert_eq!(
        o.queue_at_end,
        shares.iter().map(|s| s.queue_at_end).sum::<u64>()
    );
    // The shares split the rate, not repeat it: no more arrivals than one schedule of
    // RATE has in the window (10% for the stop's own delay on a busy machine).
    assert!(step.transactions > 0);
    assert!(
        (step.transactions as f64) <= RATE * SECONDS as f64 * 1.1,
        "{} transactions",
        step.transactions
    );
    // Every second's queue is the clients' queues of that second added up.
    for (i, second) in step.intervals.iter().enumerate() {
        let q = second.open_loop.expect("a queue every second");
        let parts: Vec<_> = step
            .clients
            .iter()
            .filter_map(|c| c.intervals.get(i)?.open_loop)
            .collect();
        assert_eq!(
            q.queue,
            parts.iter().map(|p| p.queue).sum::<u64>(),
            "second {i}"
        );
        assert_eq!(
            q.late_starts,
            parts.iter().map(|p| p.late_starts).sum::<u64>()
        );
    }
}

#[test]
fn an_unreachable_client_fails_its_check_row_before_any_step() {
    let _one = serial();
    let _g = shared_server();
    let schema = TestSchema::new("clients_unreachable");
    let dir = tempfile::tempdir().unwrap();
    let clients = Clients::new(dir.path());
    let port = free_port();
    let url = format!("ssh://{}@127.0.0.1:{port}", clients.sshd.user);
    let mut args = vec![
        "ladder".to_string(),
        "--scenarios=oltp_point_select".into(),
        "--tables=1".into(),
        "--table-size=100".into(),
        "--threads=2".into(),
        "--time=1".into(),
        // The server's checks are skipped; a client's are not.
        "--skip-checks".into(),
        format!("--clients=local,{url}"),
    ];
    args.extend(clients.ssh_args());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = schema.dbdyno(&args);
    let (text, err) = (stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}\n{err}");
    // The failed row: its status, the client it names, and the fix.
    let row = err
        .lines()
        .find(|l| l.contains(&format!("[clients.reachable:{url}]")))
        .unwrap_or_else(|| panic!("no row for {url}:\n{err}"));
    assert!(row.starts_with("FAIL"), "{row}");
    assert!(
        err.contains("fix:") && err.contains(&format!("ssh -p {port} ")),
        "{err}"
    );
    assert!(err.contains("leave it out of --clients"), "{err}");
    // Nothing ran: no step, not even the prepare.
    assert!(!text.contains("[ 1s ]"), "{text}");
    assert!(schema.tables().is_empty(), "{:?}", schema.tables());
}
