//! Writes the report test fixtures under `tests/fixtures/report/` (run from the workspace
//! root: `cargo run -p dbdyno-report --example report_fixtures`).
//!
//! - `seed_000.json`: seed 000's example matrix (oltp_point_select and oltp_write_only at
//!   1 and 128 threads, with its QPS, p95, CPU% and IO%);
//! - `seed_003_cold_start.json`: seed 003's 60-second oltp_read_write run at 2 threads
//!   without prewarm (76.84 TPS overall, 88–92 once warm);
//! - `three_envs.json`: idc, 华为云 (hw_cloud) and ali_cloud × 4 scenarios × 6 thread
//!   counts, shaped so that each bottleneck class, a regression and the seed's headline
//!   ("35% more write TPS at 52% lower CPU") appear.
//!
//! - `tpcc_two_envs.json`: a tpcc ladder (1, 4, 8, 16 threads) on `before` and `after`
//!   (a larger buffer pool), with tpmC, NOPM and the five transaction types, so that the
//!   tpmC curve, the per-transaction table and Δ tpmC appear.
//!
//! - `three_envs_hardware.json`: hardware records of `three_envs`'s environments (idc,
//!   华为云; none for ali_cloud), for the hardware table and its ratios.
//!
//! The fixtures are committed; the golden tests read them, never this generator, so a
//! change here shows up as a fixture diff in review. Deterministic: no clock, no RNG crate.

use std::collections::BTreeMap;
use std::path::Path;

use dbdyno_engine::results::{
    ClientCpu, ClientLost, ClientStep, Fairness, IntervalRecord, LatencySummary, PrintedRates,
    QueryCounts, StepResult,
};
use dbdyno_engine::stats::{find_steady_window, LatencyHistogram};
use dbdyno_engine::tpcc::{TpccResult, TpccTxnResult, TxnKind};
use dbdyno_engine::{ConnectOptions, LadderSpec, Plan, Scenario, WorkloadOptions};
use dbdyno_report::{
    EnvironmentFacts, MysqlFigures, ReportRun, ReportStep, ServerFigures, ServerSecond,
};

const THREADS: [u32; 6] = [1, 8, 16, 32, 64, 128];
const STEP_S: usize = 30;

/// Deterministic noise in [-1, 1] from a key (SplitMix64).
fn noise(key: u64) -> f64 {
    let mut z = key.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z as f64 / u64::MAX as f64) * 2.0 - 1.0
}

fn key(parts: &[u64]) -> u64 {
    parts.iter().fold(1469598103934665603u64, |h, p| {
        (h ^ p).wrapping_mul(1099511628211)
    })
}

/// Inverse of the standard normal CDF (Acklam's rational approximation).
fn probit(p: f64) -> f64 {
    let a = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    let b = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    let c = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    let d = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let pl = 0.02425;
    if p < pl {
        let q = (-2.0 * p.ln()).sqrt();
        (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
            / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0)
    } else if p <= 1.0 - pl {
        let q = p - 0.5;
        let r = q * q;
        (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)
    } else {
        -probit(1.0 - p)
    }
}

/// A log-normal latency histogram with the given p95 (ms) and `count` transactions.
fn histogram(p95_ms: f64, count: u64) -> LatencyHistogram {
    let sigma: f64 = 0.45;
    let median_us = p95_ms * 1000.0 / (1.645 * sigma).exp();
    let mut h = LatencyHistogram::new();
    let points = 400u64;
    let per = (count / points).max(1);
    for i in 0..points {
        let q = (i as f64 + 0.5) / points as f64;
        let us = (median_us * (sigma * probit(q)).exp()).round().max(1.0) as u64;
        h.record_n_us(us, per);
    }
    h
}

/// Read, write and other statements per transaction, as sysbench's scripts issue them.
fn mix(s: Scenario) -> (f64, f64, f64) {
    match s {
        Scenario::OltpPointSelect => (1.0, 0.0, 0.0),
        Scenario::OltpReadOnly => (14.0, 0.0, 2.0),
        Scenario::OltpReadWrite => (14.0, 4.0, 2.0),
        Scenario::OltpWriteOnly => (0.0, 4.0, 2.0),
        // sysbench-tpcc's statements per transaction over its mix (a real scale-1 log).
        Scenario::Tpcc => (13.4, 14.0, 2.0),
        _ => (1.0, 0.0, 0.0),
    }
}

/// Everything one synthetic step needs.
struct StepSpec {
    scenario: Scenario,
    threads: u32,
    tps: f64,
    p95_ms: f64,
    p99_ms: Option<f64>,
    cpu: f64,
    disk: f64,
    client_pct: f64,
    /// Leading intervals as a share of the steady rate (a cold start).
    cold: Vec<f64>,
    samples: u32,
    errors: u64,
    row_lock_waits: Option<u64>,
    noise_pct: f64,
    start_ms: i64,
    seed: u64,
}

fn make_step(s: &StepSpec) -> ReportStep {
    let (r, w, o) = mix(s.scenario);
    let qpt = r + w + o;
    let mut intervals = Vec::with_capacity(STEP_S);
    let mut transactions = 0.0;
    for i in 0..STEP_S {
        let cold = s.cold.get(i).copied().unwrap_or(1.0);
        let tps = s.tps * cold * (1.0 + s.noise_pct / 100.0 * noise(key(&[s.seed, i as u64, 1])));
        let lat = s.p95_ms / cold.max(0.2) * (1.0 + 0.03 * noise(key(&[s.seed, i as u64, 2])));
        transactions += tps;
        intervals.push(IntervalRecord {
            elapsed_s: (i + 1) as f64,
            duration_s: 1.0,
            end_unix_ms: s.start_ms + (i as i64 + 1) * 1000,
            threads: s.threads,
            tps,
            qps: tps * qpt,
            reads_ps: tps * r,
            writes_ps: tps * w,
            other_ps: tps * o,
            latency_ms: lat,
            percentile: 95.0,
            p95_ms: None,
            p99_ms: None,
            errors_ps: 0.0,
            reconnects_ps: 0.0,
            open_loop: None,
        });
    }
    let tx = transactions.round() as u64;
    let total_time_s = STEP_S as f64;
    let whole_tps = tx as f64 / total_time_s;
    let hist = histogram(s.p95_ms, tx.max(400));
    let mut latency: LatencySummary = hist.summary();
    if let Some(p99) = s.p99_ms {
        latency.p99_ms = Some(p99);
    }
    let steady = find_steady_window(&intervals, whole_tps);
    let per_second: Vec<ServerSecond> = (0..STEP_S as u32)
        .filter(|i| *i < s.samples)
        .map(|i| {
            let n = |k: u64| 1.0 + 0.02 * noise(key(&[s.seed, i as u64, k]));
            let cold = s.cold.get(i as usize).copied().unwrap_or(1.0);
            ServerSecond {
                t_s: (i + 1) as f64,
                cpu_pct: (s.cpu * cold.max(0.5) * n(3)).min(100.0),
                disk_util_pct: (s.disk * n(4)).min(100.0),
                r_s: s.disk * 40.0 * n(5),
                w_s: s.disk * 25.0 * w.max(0.2) * n(6),
            }
        })
        .collect();
    let avg = |f: fn(&ServerSecond) -> f64| {
        per_second.iter().map(f).sum::<f64>() / per_second.len().max(1) as f64
    };
    let max = |f: fn(&ServerSecond) -> f64| per_second.iter().map(f).fold(0.0, f64::max);
    ReportStep {
        result: StepResult {
            scenario: s.scenario,
            threads: s.threads,
            started_unix_ms: s.start_ms,
            ended_unix_ms: s.start_ms + STEP_S as i64 * 1000,
            warmup_s: 0.0,
            total_time_s,
            transactions: tx,
            queries: QueryCounts {
                read: (tx as f64 * r).round() as u64,
                write: (tx as f64 * w).round() as u64,
                other: (tx as f64 * o).round() as u64,
            },
            ignored_errors: s.errors,
            reconnects: 0,
            percentile: 95.0,
            latency_pct_ms: latency.p95_ms.unwrap_or_default(),
            latency,
            per_class: Vec::new(),
            fairness: Fairness {
                events_avg: tx as f64 / s.threads as f64,
                events_stddev: 0.0,
                exec_time_avg_s: total_time_s,
                exec_time_stddev_s: 0.01,
            },
            intervals,
            steady,
            client_cpu: ClientCpu {
                cpu_seconds: s.client_pct / 100.0 * 8.0 * total_time_s,
                percent_of_core: s.client_pct * 8.0,
                cores: 8,
                percent_of_machine: s.client_pct,
                us_per_query: 0.0,
            },
            histogram: hist.to_base64(),
            cancelled: false,
            printed: None,
            connections: None,
            open_loop: None,
            // Left for the report to make from the intervals, as for a run recorded
            // before steps carried it.
            confidence: None,
            repeat: Default::default(),
            sla_search: false,
            clients: Vec::new(),
            tpcc: None,
        },
        server: Some(ServerFigures {
            cpu_pct_avg: avg(|p| p.cpu_pct),
            cpu_pct_max: max(|p| p.cpu_pct),
            iowait_pct_avg: Some(avg(|p| p.disk_util_pct) / 10.0),
            disk_util_pct_avg: avg(|p| p.disk_util_pct),
            disk_util_pct_max: max(|p| p.disk_util_pct),
            samples: s.samples,
            expected_samples: STEP_S as u32,
            per_second,
        }),
        mysql: s.row_lock_waits.map(|w| MysqlFigures {
            hit_rate_pct: Some(99.2),
            row_lock_waits: Some(w),
            row_lock_time_ms: Some(w as f64 * 3.5),
            threads_running_max: Some(s.threads),
        }),
    }
}

fn plan(host: &str, scenarios: &[Scenario], threads: &[u32], prewarm: bool) -> Option<Plan> {
    let spec = LadderSpec {
        scenarios: scenarios.to_vec(),
        threads: threads.to_vec(),
        cooldown_s: 5,
        prewarm,
        ..Default::default()
    };
    let p = Plan {
        connect: ConnectOptions {
            host: host.into(),
            ..Default::default()
        },
        workload: WorkloadOptions {
            tables: 16,
            table_size: 10_000_000,
            ..Default::default()
        },
        phases: spec.phases(),
        force: false,
        on_step_error: dbdyno_engine::StepErrorPolicy::Stop,
    };
    Some(p)
}

/// A saturating ladder: `base` TPS per thread at first, `cap` at most, an optional
/// decline past `decline_from` threads.
fn ladder_tps(base: f64, cap: f64, t: u32, decline_from: Option<u32>) -> f64 {
    let x = base * t as f64 / cap;
    let mut v = cap * (1.0 - (-x).exp());
    if let Some(d) = decline_from.filter(|d| t > *d) {
        v *= 1.0 - 0.06 * (t as f64 / d as f64).log2();
    }
    v
}

struct Model {
    base: f64,
    cap: f64,
    cpu_at_cap: f64,
    disk_at_cap: f64,
    client_at_cap: f64,
    /// p95 multiplier per doubling past this thread count (lock contention).
    explode_from: Option<u32>,
    decline_from: Option<u32>,
    base_p95: f64,
}

fn cell(m: &Model, t: u32) -> (f64, f64, f64, f64, f64) {
    let tps = ladder_tps(m.base, m.cap, t, m.decline_from);
    let load = tps / m.cap;
    let mut p95 = m.base_p95.max(1000.0 * t as f64 / tps * 1.9);
    if let Some(e) = m.explode_from.filter(|e| t > *e) {
        p95 *= 2.2f64.powf((t as f64 / e as f64).log2());
    }
    (
        tps,
        p95,
        (m.cpu_at_cap * load + 1.0).min(99.0),
        (m.disk_at_cap * load + 0.3).min(99.5),
        m.client_at_cap * load,
    )
}

struct EnvSpec {
    id: &'static str,
    name: &'static str,
    host: &'static str,
    start_ms: i64,
    env: EnvironmentFacts,
    labels: &'static [(&'static str, &'static str)],
}

fn facts(
    cpu: &str,
    cores: u32,
    disk: &str,
    bp: f64,
    prewarm: bool,
    flavour: &str,
    version: &str,
) -> EnvironmentFacts {
    EnvironmentFacts {
        cpu_model: Some(cpu.into()),
        cores: Some(cores),
        memory_gb: Some(64.0),
        kernel: Some("5.15.0-105-generic".into()),
        data_disk: Some(disk.into()),
        disk_size_gb: Some(1000.0),
        mysql_version: Some(version.into()),
        flavour: Some(flavour.into()),
        buffer_pool_gb: Some(bp),
        flush_log_at_trx_commit: Some(1),
        sync_binlog: Some(1),
        log_bin: Some(true),
        max_connections: Some(2000),
        dataset_gb_estimate: Some(40.0),
        prewarm_done: Some(prewarm),
        client_cores: Some(8),
        extra: BTreeMap::new(),
    }
}

fn three_envs() -> Vec<ReportRun> {
    let scen = Scenario::DEFAULT_LADDER;
    let envs = [
        EnvSpec {
            id: "idc",
            name: "idc",
            host: "idc-db01",
            start_ms: 1_748_826_000_000,
            env: facts(
                "Intel Xeon Gold 6248R",
                48,
                "sda (SATA SSD)",
                20.0,
                false,
                "MySQL",
                "8.0.36",
            ),
            labels: &[("site", "Shanghai DC2")],
        },
        EnvSpec {
            id: "hw_cloud",
            name: "华为云",
            host: "hw-db01",
            start_ms: 1_748_912_400_000,
            env: facts(
                "Huawei Kunpeng 920",
                48,
                "nvme0n1 (NVMe SSD)",
                20.0,
                true,
                "MySQL",
                "8.0.36",
            ),
            labels: &[("instance", "kc1.12xlarge.2")],
        },
        EnvSpec {
            id: "ali_cloud",
            name: "ali_cloud",
            host: "ali-db01",
            start_ms: 1_748_998_800_000,
            env: facts(
                "Intel Xeon Platinum 8269CY",
                48,
                "vdb (ESSD PL2)",
                48.0,
                true,
                "MySQL",
                "8.0.36",
            ),
            labels: &[("instance", "ecs.g7.12xlarge")],
        },
    ];
    // idc, per scenario (point select CPU-bound, read-only CPU-bound, read-write lock
    // contention, write-only IO-bound).
    let idc = [
        Model {
            base: 17_109.0,
            cap: 330_000.0,
            cpu_at_cap: 96.0,
            disk_at_cap: 0.2,
            client_at_cap: 38.0,
            explode_from: None,
            decline_from: Some(64),
            base_p95: 0.06,
        },
        Model {
            base: 1_100.0,
            cap: 18_000.0,
            cpu_at_cap: 93.0,
            disk_at_cap: 3.0,
            client_at_cap: 20.0,
            explode_from: None,
            decline_from: None,
            base_p95: 1.1,
        },
        Model {
            base: 600.0,
            cap: 9_000.0,
            cpu_at_cap: 55.0,
            disk_at_cap: 45.0,
            client_at_cap: 15.0,
            explode_from: Some(32),
            decline_from: Some(32),
            base_p95: 2.2,
        },
        Model {
            base: 2_100.0,
            cap: 23_000.0,
            cpu_at_cap: 38.0,
            disk_at_cap: 97.0,
            client_at_cap: 12.0,
            explode_from: None,
            decline_from: None,
            base_p95: 0.6,
        },
    ];
    let hw = [
        Model {
            base: 15_000.0,
            cap: 300_000.0,
            cpu_at_cap: 94.0,
            disk_at_cap: 0.2,
            client_at_cap: 35.0,
            explode_from: None,
            decline_from: Some(64),
            base_p95: 0.07,
        },
        Model {
            base: 1_150.0,
            cap: 19_500.0,
            cpu_at_cap: 90.0,
            disk_at_cap: 2.0,
            client_at_cap: 21.0,
            explode_from: None,
            decline_from: None,
            base_p95: 1.0,
        },
        Model {
            base: 700.0,
            cap: 60_000.0,
            cpu_at_cap: 70.0,
            disk_at_cap: 30.0,
            client_at_cap: 16.0,
            explode_from: None,
            decline_from: None,
            base_p95: 2.0,
        },
        Model {
            base: 0.0,
            cap: 1.0,
            cpu_at_cap: 0.0,
            disk_at_cap: 0.0,
            client_at_cap: 0.0,
            explode_from: None,
            decline_from: None,
            base_p95: 0.0,
        },
    ];
    let ali = [
        Model {
            base: 18_000.0,
            cap: 350_000.0,
            cpu_at_cap: 70.0,
            disk_at_cap: 0.2,
            client_at_cap: 96.0,
            explode_from: None,
            decline_from: Some(64),
            base_p95: 0.06,
        },
        Model {
            base: 1_200.0,
            cap: 21_000.0,
            cpu_at_cap: 88.0,
            disk_at_cap: 1.0,
            client_at_cap: 22.0,
            explode_from: None,
            decline_from: None,
            base_p95: 1.0,
        },
        Model {
            base: 560.0,
            cap: 8_000.0,
            cpu_at_cap: 62.0,
            disk_at_cap: 50.0,
            client_at_cap: 14.0,
            explode_from: None,
            decline_from: None,
            base_p95: 2.4,
        },
        Model {
            base: 2_000.0,
            cap: 26_000.0,
            cpu_at_cap: 45.0,
            disk_at_cap: 80.0,
            client_at_cap: 13.0,
            explode_from: None,
            decline_from: None,
            base_p95: 0.6,
        },
    ];
    let models = [idc, hw, ali];
    let mut runs = Vec::new();
    for (ei, e) in envs.iter().enumerate() {
        let mut steps = Vec::new();
        let mut t_ms = e.start_ms;
        for (si, &sc) in scen.iter().enumerate() {
            for (ti, &t) in THREADS.iter().enumerate() {
                let (tps, p95, cpu, disk, client) = if ei == 1 && sc == Scenario::OltpWriteOnly {
                    // 华为云's write-only: exactly 35% more TPS than idc at 52% less CPU.
                    let (tps, p95, cpu, disk, client) = cell(&models[0][3], t);
                    (
                        tps * 1.35,
                        p95 / 1.35,
                        cpu * 0.48,
                        disk * 0.92,
                        client * 1.35,
                    )
                } else {
                    cell(&models[ei][si], t)
                };
                let cold = if ei == 0 && si == 0 && ti == 0 {
                    vec![0.15, 0.35, 0.60, 0.85]
                } else {
                    Vec::new()
                };
                // idc's and 华为云's write-only steps carry no noise, so the headline comes out exact.
                let exact = ei < 2 && sc == Scenario::OltpWriteOnly;
                let spec = StepSpec {
                    scenario: sc,
                    threads: t,
                    tps,
                    p95_ms: p95,
                    p99_ms: None,
                    cpu,
                    disk,
                    client_pct: client,
                    cold,
                    samples: if ei == 2 && sc == Scenario::OltpReadOnly && t == 64 {
                        28
                    } else {
                        30
                    },
                    errors: if ei == 0 && sc == Scenario::OltpReadWrite && t == 128 {
                        37
                    } else {
                        0
                    },
                    row_lock_waits: (ei == 0 && sc == Scenario::OltpReadWrite)
                        .then(|| (t as u64).pow(2) * 40),
                    noise_pct: if exact { 0.0 } else { 1.5 },
                    start_ms: t_ms,
                    seed: key(&[ei as u64, si as u64, ti as u64]),
                };
                let mut step = make_step(&spec);
                if exact {
                    // Pin the server CPU to the model exactly (no per-second noise).
                    if let Some(s) = step.server.as_mut() {
                        s.cpu_pct_avg = cpu;
                    }
                }
                steps.push(step);
                t_ms += (STEP_S as i64 + 5) * 1000;
            }
        }
        runs.push(ReportRun {
            id: e.id.into(),
            env_name: e.name.into(),
            labels: e.labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            started_at: Some(e.start_ms),
            finished_at: Some(t_ms),
            state: Some("finished".into()),
            command_line: Some(format!(
                "dbdyno ladder --mysql-host={} --mysql-user=sbtest --mysql-db=sbtest --tables=16 --table-size=10000000 --time=30 --report-interval=1 --cooldown=5{}",
                e.host,
                if e.env.prewarm_done == Some(true) { " --prewarm" } else { "" }
            )),
            tool_version: Some("0.1.0".into()),
            plan: plan(e.host, &scen, &THREADS, e.env.prewarm_done == Some(true)),
            environment: e.env.clone(),
            steps,
            warnings: Vec::new(),
        });
    }
    runs
}

/// Seed 000's example matrix, one environment.
fn seed_000() -> Vec<ReportRun> {
    // (scenario, threads, QPS, p95 ms, CPU %, IO %) exactly as the article prints them.
    let rows = [
        (Scenario::OltpPointSelect, 1, 17_109.0, 0.06, 1.2, 0.1),
        (Scenario::OltpPointSelect, 128, 321_410.0, 0.41, 12.9, 0.1),
        (Scenario::OltpWriteOnly, 1, 12_740.0, 0.08, 0.8, 2.1),
        (Scenario::OltpWriteOnly, 128, 139_564.0, 1.83, 6.4, 52.3),
    ];
    let start = 1_717_000_000_000;
    let steps = rows
        .iter()
        .enumerate()
        .map(|(i, &(sc, t, qps, p95, cpu, io))| {
            let (r, w, o) = mix(sc);
            let tps = qps / (r + w + o);
            let mut step = make_step(&StepSpec {
                scenario: sc,
                threads: t,
                tps,
                p95_ms: p95,
                // The article gives no p99; 1.4 × p95 stands in so the column has figures.
                p99_ms: Some((p95 * 1.4 * 100.0f64).round() / 100.0),
                cpu,
                disk: io,
                client_pct: 10.0,
                cold: Vec::new(),
                samples: 30,
                errors: 0,
                row_lock_waits: None,
                noise_pct: 0.0,
                start_ms: start + i as i64 * 35_000,
                seed: i as u64,
            });
            // The seed's figures are whole-step figures: pin them exactly.
            step.result.latency.p95_ms = Some(p95);
            step.result.latency_pct_ms = p95;
            if let Some(s) = step.server.as_mut() {
                s.cpu_pct_avg = cpu;
                s.disk_util_pct_avg = io;
            }
            let tx = (tps * STEP_S as f64).round() as u64;
            step.result.transactions = tx;
            step.result.queries = QueryCounts {
                read: (tx as f64 * r).round() as u64,
                write: (tx as f64 * w).round() as u64,
                other: (tx as f64 * o).round() as u64,
            };
            step
        })
        .collect();
    vec![ReportRun {
        id: "seed_000".into(),
        env_name: "seed 000 example".into(),
        labels: BTreeMap::new(),
        started_at: Some(start),
        finished_at: Some(start + 4 * 35_000),
        state: Some("finished".into()),
        command_line: Some("./mysql_benchmark.sh benchmark_config.conf".into()),
        tool_version: None,
        plan: plan(
            "192.168.1.50",
            &[Scenario::OltpPointSelect, Scenario::OltpWriteOnly],
            &[1, 128],
            false,
        ),
        environment: EnvironmentFacts {
            memory_gb: Some(30.0),
            buffer_pool_gb: Some(20.0),
            dataset_gb_estimate: Some(40.0),
            ..Default::default()
        },
        steps,
        warnings: Vec::new(),
    }]
}

/// Seed 003's cold-started run: 2 threads, 60 s, 10-second intervals, no prewarm.
fn seed_003() -> Vec<ReportRun> {
    let start = 1_767_225_600_000;
    let lines = [
        (23.30, 469.31, 328.94, 93.58, 46.79, 272.27),
        (77.70, 1554.44, 1087.83, 311.21, 155.40, 56.84),
        (89.00, 1780.01, 1246.01, 356.00, 178.00, 46.63),
        (92.50, 1849.98, 1294.98, 370.00, 185.00, 41.10),
        (88.40, 1767.59, 1237.60, 353.20, 176.80, 46.63),
        (90.40, 1807.20, 1264.80, 361.60, 180.80, 32.53),
    ];
    let intervals: Vec<IntervalRecord> = lines
        .iter()
        .enumerate()
        .map(|(i, &(tps, qps, r, w, o, lat))| IntervalRecord {
            elapsed_s: (i as f64 + 1.0) * 10.0,
            duration_s: 10.0,
            end_unix_ms: start + (i as i64 + 1) * 10_000,
            threads: 2,
            tps,
            qps,
            reads_ps: r,
            writes_ps: w,
            other_ps: o,
            latency_ms: lat,
            percentile: 95.0,
            p95_ms: None,
            p99_ms: None,
            errors_ps: 0.0,
            reconnects_ps: 0.0,
            open_loop: None,
        })
        .collect();
    let whole_tps = 76.84;
    let steady = find_steady_window(&intervals, whole_tps);
    let hist = histogram(57.87, 4615);
    let result = StepResult {
        scenario: Scenario::OltpReadWrite,
        threads: 2,
        started_unix_ms: start,
        ended_unix_ms: start + 60_058,
        warmup_s: 0.0,
        total_time_s: 60.0580,
        transactions: 4615,
        queries: QueryCounts {
            read: 64_610,
            write: 18_460,
            other: 9_230,
        },
        ignored_errors: 0,
        reconnects: 0,
        percentile: 95.0,
        latency_pct_ms: 57.87,
        latency: LatencySummary {
            count: 4615,
            min_ms: 5.61,
            avg_ms: 26.01,
            max_ms: 838.69,
            p50_ms: Some(21.0),
            p90_ms: Some(45.0),
            p95_ms: Some(57.87),
            p99_ms: Some(120.0),
            p999_ms: Some(400.0),
            sum_ms: 120_018.85,
        },
        per_class: Vec::new(),
        fairness: Fairness {
            events_avg: 2307.5,
            events_stddev: 6.5,
            exec_time_avg_s: 60.0094,
            exec_time_stddev_s: 0.01,
        },
        intervals,
        steady,
        client_cpu: ClientCpu::default(),
        histogram: hist.to_base64(),
        cancelled: false,
        // sysbench's own summary line: "transactions: 4615 (76.84 per sec.)".
        printed: Some(PrintedRates {
            tps: 76.84,
            qps: 1536.81,
            ignored_errors_ps: 0.0,
            reconnects_ps: 0.0,
        }),
        connections: None,
        open_loop: None,
        confidence: None,
        repeat: Default::default(),
        sla_search: false,
        clients: Vec::new(),
        tpcc: None,
    };
    vec![ReportRun {
        id: "seed_003".into(),
        env_name: "seed 003 (base07)".into(),
        labels: BTreeMap::new(),
        started_at: Some(start),
        finished_at: Some(start + 60_058),
        state: Some("finished".into()),
        command_line: Some("sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=3307 --mysql-user=root --mysql-db=base07 --table-size=100000 --tables=10 --threads=2 --time=60 --report-interval=10 run".into()),
        tool_version: None,
        plan: None,
        environment: EnvironmentFacts {
            prewarm_done: Some(false),
            ..Default::default()
        },
        steps: vec![ReportStep {
            result,
            server: None,
            mysql: None,
        }],
        warnings: Vec::new(),
    }]
}

/// Seed 000's matrix driven from two load clients (`local` and a second machine over
/// SSH): each step's threads split with the remainder to the first, its figures split
/// 52/48; at 128 threads the second client is client-bound, and in the last step it is
/// lost 21.5 s in, which makes that step partial.
fn two_clients() -> Vec<ReportRun> {
    let mut run = seed_000().remove(0);
    run.id = "two_clients".into();
    run.env_name = "two load clients".into();
    run.command_line =
        Some("dbdyno ladder --profile=idc --clients=local,ssh://bench@client2:22".into());
    let last = run.steps.len() - 1;
    for (i, step) in run.steps.iter_mut().enumerate() {
        let r = &mut step.result;
        let share = |client: &str, threads: u32, part: f64, cpu: f64| ClientStep {
            client: client.into(),
            threads,
            transactions: (r.transactions as f64 * part).round() as u64,
            tps: r.known_tps().unwrap_or_default() * part,
            qps: r.known_qps().unwrap_or_default() * part,
            latency_pct_ms: r.latency_pct_ms,
            client_cpu: ClientCpu {
                percent_of_machine: cpu,
                cores: 8,
                ..Default::default()
            },
            ..Default::default()
        };
        let busy = if r.threads >= 128 { 91.0 } else { 22.0 };
        let mut second = share("ssh://bench@client2:22", r.threads / 2, 0.48, busy);
        second.client_bound = busy >= 85.0;
        if i == last {
            second.lost = Some(ClientLost {
                after_s: 21.5,
                reason: "the SSH connection closed".into(),
            });
        }
        let first = share("local", r.threads - r.threads / 2, 0.52, 30.0);
        r.clients = vec![first, second];
    }
    vec![run]
}

/// tpcc.lua's mix: each type's share of the transactions and its latency against the
/// step's p95 (Delivery and Stock-Level are the long ones).
const TPCC_MIX: [(TxnKind, f64, f64); 5] = [
    (TxnKind::NewOrder, 0.45, 1.2),
    (TxnKind::Payment, 0.43, 0.6),
    (TxnKind::OrderStatus, 0.04, 0.4),
    (TxnKind::Delivery, 0.04, 3.0),
    (TxnKind::StockLevel, 0.04, 2.0),
];

/// A step's TPC-C figures from its transactions: 1% of New-Orders rolled back by design,
/// a few deadlocks past 8 threads.
fn tpcc_result(r: &StepResult) -> TpccResult {
    let minutes = r.total_time_s / 60.0;
    let p95 = r.latency.p95_ms.unwrap_or(r.latency_pct_ms);
    let transactions: Vec<TpccTxnResult> = TPCC_MIX
        .iter()
        .map(|&(kind, share, lat)| {
            let count = (r.transactions as f64 * share).round() as u64;
            let deadlocks = if r.threads > 8 && kind != TxnKind::OrderStatus {
                count / 400
            } else {
                0
            };
            TpccTxnResult {
                kind,
                count,
                rolled_back: if kind == TxnKind::NewOrder {
                    count / 100
                } else {
                    0
                },
                deadlocks,
                lock_wait_timeouts: 0,
                other_errors: 0,
                per_s: count as f64 / r.total_time_s,
                latency: Some(LatencySummary {
                    count,
                    min_ms: p95 * lat * 0.1,
                    avg_ms: p95 * lat * 0.5,
                    max_ms: p95 * lat * 4.0,
                    p50_ms: Some(p95 * lat * 0.45),
                    p90_ms: Some(p95 * lat * 0.85),
                    p95_ms: Some(p95 * lat),
                    p99_ms: Some(p95 * lat * 1.6),
                    p999_ms: Some(p95 * lat * 3.0),
                    sum_ms: count as f64 * p95 * lat * 0.5,
                }),
            }
        })
        .collect();
    let new_order = &transactions[0];
    TpccResult {
        tpmc: new_order.count as f64 / minutes,
        nopm: (new_order.count - new_order.rolled_back) as f64 / minutes,
        rollbacks: new_order.rolled_back,
        deadlocks: transactions.iter().map(|t| t.deadlocks).sum(),
        lock_wait_timeouts: 0,
        transactions,
    }
}

/// A tpcc ladder on two environments: `after` has the larger buffer pool and about 30%
/// more tpmC from 8 threads up.
fn tpcc_two_envs() -> Vec<ReportRun> {
    let threads = [1, 4, 8, 16];
    let run = |id: &str, cap: f64, bp: f64, start: i64, seed: u64| {
        let m = Model {
            base: 180.0,
            cap,
            cpu_at_cap: 70.0,
            disk_at_cap: 40.0,
            client_at_cap: 6.0,
            explode_from: Some(8),
            decline_from: None,
            base_p95: 6.0,
        };
        let steps = threads
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let (tps, p95, cpu, disk, client) = cell(&m, t);
                let mut step = make_step(&StepSpec {
                    scenario: Scenario::Tpcc,
                    threads: t,
                    tps,
                    p95_ms: p95,
                    p99_ms: Some(p95 * 1.5),
                    cpu,
                    disk,
                    client_pct: client,
                    cold: Vec::new(),
                    samples: STEP_S as u32,
                    errors: if t > 8 { 3 } else { 0 },
                    row_lock_waits: Some(t as u64 * 40),
                    noise_pct: 2.0,
                    start_ms: start + i as i64 * 35_000,
                    seed: seed + i as u64,
                });
                step.result.tpcc = Some(tpcc_result(&step.result));
                step
            })
            .collect();
        ReportRun {
            id: id.into(),
            env_name: id.into(),
            labels: BTreeMap::new(),
            started_at: Some(start),
            finished_at: Some(start + threads.len() as i64 * 35_000),
            state: Some("finished".into()),
            command_line: Some(format!(
                "dbdyno ladder --profile={id} --scenarios=tpcc --scale=4 --threads=1,4,8,16"
            )),
            tool_version: Some("0.1.0".into()),
            plan: plan("10.0.0.5", &[Scenario::Tpcc], &threads, true),
            environment: facts(
                "Intel Xeon Gold 6248",
                16,
                "nvme0n1 (NVMe SSD)",
                bp,
                true,
                "MariaDB",
                "10.11.6-MariaDB",
            ),
            steps,
            warnings: Vec::new(),
        }
    };
    vec![
        run("before", 1_000.0, 1.0, 1_764_547_200_000, 900),
        run("after", 1_300.0, 4.0, 1_764_550_800_000, 950),
    ]
}

/// Hardware records of `three_envs`: idc measured (seed 002's fileio log, seed 004's
/// cpu log), 华为云 with a third of idc's random write IOPS and more CPU, ali_cloud
/// without one (its column reads "—").
fn three_envs_hardware() -> Vec<dbdyno_history::hardware::HardwareRecord> {
    use dbdyno_history::hardware::{HardwareRecord, HardwareSource, Headline, NewHardwareRecord};
    use dbdyno_hwtest::{parse_sysbench_hwtest, TestFigures};
    let log = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../hwtest/fixtures")
            .join(name);
        parse_sysbench_hwtest(&std::fs::read_to_string(&path).expect("hwtest fixture"))
            .expect("a sysbench log")
    };
    let idc = vec![
        log("seed_002_fileio_rndrw_one_line.txt"),
        log("seed_004_cpu_commented.txt"),
    ];
    let mut hw = idc.clone();
    if let TestFigures::FileIo(f) = &mut hw[0].test {
        f.reads_per_s = 5320.0;
        f.writes_per_s = 3331.66;
        f.fsyncs_per_s = 10662.08;
    }
    if let TestFigures::Cpu(c) = &mut hw[1].test {
        c.events_per_s = 410.96;
    }
    let record =
        |id: i64, env: &str, host: &str, cpu: &str, disk: &str, results: Vec<_>| HardwareRecord {
            id,
            headline: Headline::of(&results),
            record: NewHardwareRecord {
                env: env.into(),
                recorded_at_ms: 1_748_900_000_000 + id * 60_000,
                source: HardwareSource::Measured,
                host: Some(host.into()),
                disk_device: Some(disk.into()),
                disk_model: None,
                cpu_model: Some(cpu.into()),
                results,
            },
            tool_version: "0.1.0".into(),
        };
    vec![
        record(1, "idc", "idc-db01", "Intel Xeon Gold 6248", "sdb", idc),
        record(2, "华为云", "hw-db01", "Huawei Kunpeng 920", "nvme0n1", hw),
    ]
}

fn write(dir: &Path, name: &str, runs: &[ReportRun]) {
    let text = serde_json::to_string(runs).expect("runs serialise") + "\n";
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    println!("wrote {}", path.display());
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/report");
    std::fs::create_dir_all(&dir).expect("fixture directory");
    write(&dir, "seed_000.json", &seed_000());
    write(&dir, "seed_003_cold_start.json", &seed_003());
    write(&dir, "three_envs.json", &three_envs());
    write(&dir, "two_clients.json", &two_clients());
    write(&dir, "tpcc_two_envs.json", &tpcc_two_envs());
    let path = dir.join("three_envs_hardware.json");
    let text = serde_json::to_string_pretty(&three_envs_hardware()).expect("records serialise");
    std::fs::write(&path, text + "\n").expect("writing the hardware fixture");
    println!("wrote {}", path.display());
}
