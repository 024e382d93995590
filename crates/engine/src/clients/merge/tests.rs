//! The merge on made-up shares whose every latency is known: the merged histogram is
//! the histogram of all values, rates add up second by second, fairness is that of all
//! threads.

use super::*;
use crate::exec::ShareHistograms;
use crate::open_loop::{IntervalQueue, OpenLoopResult};
use crate::results::{ClassLatency, ClientLost, IntervalRecord};
use crate::stats::fairness;
use crate::tpcc::TxnKind;
use crate::workload::StatementClass;

/// A template step (scenario, percentile, settings) from a parsed sysbench log.
fn template() -> StepResult {
    let mut r = crate::results::test_steps::step("point_select_no_intervals");
    r.printed = None;
    r.percentile = 95.0;
    r.per_class = Vec::new();
    r
}

/// When every made-up share started measuring (Unix ms).
const START_MS: i64 = 1_800_000_000_000;

/// A share of `threads` threads whose second `i` recorded `seconds[i]` (latencies in
/// µs); each thread did an equal part of the events.
fn share(client: &str, threads: u32, seconds: &[Vec<u64>], cpu_pct: f64) -> Share {
    let mut whole = LatencyHistogram::new();
    let mut records = Vec::new();
    let mut histograms = Vec::new();
    for (i, values) in seconds.iter().enumerate() {
        let mut h = LatencyHistogram::new();
        for &v in values {
            h.record_us(v);
        }
        whole.add(&h);
        let n = values.len() as f64;
        records.push(IntervalRecord {
            elapsed_s: (i + 1) as f64,
            duration_s: 1.0,
            end_unix_ms: START_MS + 1000 * (i as i64 + 1),
            threads,
            tps: n,
            qps: 2.0 * n,
            reads_ps: 2.0 * n,
            latency_ms: h.value_at_percentile_ms(95.0),
            percentile: 95.0,
            errors_ps: 1.0,
            ..IntervalRecord::default()
        });
        histograms.push(h.to_base64());
    }
    let transactions = whole.count();
    let per_thread = transactions as f64 / threads as f64;
    let result = StepResult {
        started_unix_ms: START_MS,
        ended_unix_ms: START_MS + 1000 * seconds.len() as i64,
        threads,
        total_time_s: seconds.len() as f64,
        transactions,
        queries: QueryCounts {
            read: 2 * transactions,
            write: 0,
            other: 0,
        },
        ignored_errors: seconds.len() as u64,
        reconnects: 0,
        latency_pct_ms: whole.value_at_percentile_ms(95.0),
        latency: whole.summary(),
        fairness: fairness(&vec![per_thread as u64; threads as usize], &[]),
        intervals: records,
        client_cpu: ClientCpu {
            cpu_seconds: 1.0,
            percent_of_machine: cpu_pct,
            cores: 2,
            ..ClientCpu::default()
        },
        histogram: whole.to_base64(),
        ..template()
    };
    Share {
        client: client.to_string(),
        result,
        interval_histograms: histograms,
        histograms: ShareHistograms::default(),
        clock_offset_ms: 0.0,
        lost: None,
    }
}

/// Latencies spread over three decades, different per client and per second.
fn values(seed: u64, n: usize) -> Vec<u64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            100 + (x >> 33) % 200_000
        })
        .collect()
}

fn recorded(h: &LatencyHistogram) -> Vec<(u64, u64)> {
    h.recorded_us().collect()
}

#[test]
fn the_merged_histogram_is_the_histogram_of_every_recorded_value() {
    let seconds = |seed: u64, n: usize| {
        vec![
            values(seed, n),
            values(seed + 1, n / 2),
            values(seed + 2, n),
        ]
    };
    let shares = vec![
        share("local", 3, &seconds(1, 900), 10.0),
        share("ssh://a", 3, &seconds(10, 400), 20.0),
        share("ssh://b", 2, &seconds(20, 2500), 30.0),
    ];
    let mut all = LatencyHistogram::new();
    let mut all_per_second = vec![LatencyHistogram::new(); 3];
    for seed in [1u64, 10, 20] {
        let n = match seed {
            1 => 900,
            10 => 400,
            _ => 2500,
        };
        for (i, (s, k)) in [(seed, n), (seed + 1, n / 2), (seed + 2, n)]
            .into_iter()
            .enumerate()
        {
            for v in values(s, k) {
                all.record_us(v);
                all_per_second[i].record_us(v);
            }
        }
    }
    let merged = merge(shares).unwrap().result;
    let back = LatencyHistogram::from_base64(&merged.histogram).unwrap();
    assert_eq!(recorded(&back), recorded(&all));
    assert_eq!(merged.transactions, all.count());
    assert_eq!(merged.latency.count, all.count());
    let exact = all.summary();
    assert_eq!(merged.latency.p99_ms, exact.p99_ms);
    assert_eq!(merged.latency.p50_ms, exact.p50_ms);
    assert_eq!(merged.latency_pct_ms, all.value_at_percentile_ms(95.0));
    assert_eq!(merged.latency.min_ms, exact.min_ms, "min stays exact");
    assert_eq!(merged.latency.max_ms, exact.max_ms, "max stays exact");
    assert!((merged.latency.sum_ms - exact.sum_ms).abs() < 1e-6);
    // Each second's percentiles are those of all the values of that second.
    for (r, h) in merged.intervals.iter().zip(&all_per_second) {
        assert_eq!(r.latency_ms, h.value_at_percentile_ms(95.0));
        assert_eq!(r.p99_ms, Some(h.value_at_percentile_ms(99.0)));
    }
}

#[test]
fn rates_add_up_second_by_second_and_each_client_keeps_its_row() {
    let shares = vec![
        share("local", 2, &[values(1, 100), values(2, 300)], 50.0),
        share(
            "ssh://a",
            1,
            &[values(3, 50), values(4, 70), values(5, 10)],
            90.0,
        ),
    ];
    let merged = merge(shares).unwrap().result;
    assert_eq!(merged.threads, 3);
    assert_eq!(
        merged.intervals.len(),
        3,
        "the longest share sets the seconds"
    );
    let tps: Vec<f64> = merged.intervals.iter().map(|r| r.tps).collect();
    assert_eq!(tps, vec![150.0, 370.0, 10.0]);
    assert_eq!(merged.intervals[0].threads, 3);
    assert_eq!(merged.intervals[2].threads, 1);
    assert_eq!(merged.intervals[1].errors_ps, 2.0);
    for (i, m) in merged.intervals.iter().enumerate() {
        let sum: f64 = merged
            .clients
            .iter()
            .filter_map(|c| c.intervals.get(i))
            .map(|r| r.qps)
            .sum();
        assert_eq!(m.qps, sum);
    }
    assert_eq!(merged.transactions, 530);
    assert_eq!(merged.ignored_errors, 5);
    assert_eq!(merged.clients.len(), 2);
    assert_eq!(merged.clients[0].client, "local");
    assert_eq!(merged.clients[0].transactions, 400);
    assert!(!merged.clients[0].client_bound);
    assert!(merged.clients[1].client_bound, "90% of its machine");
    assert_eq!(merged.client_cpu.percent_of_machine, 90.0);
    assert_eq!(merged.client_cpu.cores, 4);
    assert!(merged.confidence.is_some());
}

#[test]
fn fairness_is_that_of_every_thread() {
    let mut a = share("local", 2, &[values(1, 10)], 1.0);
    a.result.fairness = fairness(&[10, 20], &[]);
    let mut b = share("ssh://a", 3, &[values(2, 10)], 1.0);
    b.result.fairness = fairness(&[5, 5, 60], &[]);
    let merged = merge(vec![a, b]).unwrap().result;
    let all = fairness(&[10, 20, 5, 5, 60], &[]);
    assert!((merged.fairness.events_avg - all.events_avg).abs() < 1e-9);
    assert!((merged.fairness.events_stddev - all.events_stddev).abs() < 1e-9);
}

#[test]
fn a_lost_client_counts_what_its_intervals_said() {
    // The plan a lost client's share is built on has measured nothing: no window.
    let mut planned = share("ssh://a", 2, &[values(1, 10)], 1.0);
    (planned.result.started_unix_ms, planned.result.ended_unix_ms) = (0, 0);
    let kept = share("ssh://a", 2, &[values(7, 40), values(8, 60)], 1.0);
    let lost = Share::from_intervals(
        "ssh://a".into(),
        &planned.result,
        kept.result.intervals.clone(),
        kept.interval_histograms.clone(),
        0.0,
        ClientLost {
            after_s: 2.0,
            reason: "connection closed".into(),
        },
    )
    .unwrap();
    assert_eq!(lost.result.transactions, 100);
    assert_eq!(lost.result.histogram, kept.result.histogram);
    // Its window comes from its records' clock, not from the empty plan.
    assert_eq!(lost.result.started_unix_ms, START_MS);
    let merged = merge(vec![share("local", 1, &[values(9, 5)], 1.0), lost])
        .unwrap()
        .result;
    assert_eq!(merged.transactions, 105);
    assert_eq!(merged.started_unix_ms, START_MS);
    assert_eq!(merged.ended_unix_ms, START_MS + 2000);
    assert_eq!(merged.clients[1].lost.as_ref().unwrap().after_s, 2.0);
}

#[test]
fn nothing_to_merge_is_an_error() {
    assert!(matches!(merge(Vec::new()), Err(MergeError::NoShares)));
}

/// `share` with per-class latencies: each value is one point select and one commit.
fn with_classes(mut s: Share, seed: u64) -> Share {
    let mut select = LatencyHistogram::coarse();
    let mut commit = LatencyHistogram::coarse();
    for v in values(seed, 500) {
        select.record_us(v);
        commit.record_us(v / 3);
    }
    s.result.per_class = vec![
        ClassLatency {
            class: StatementClass::PointSelect,
            latency: select.summary(),
        },
        ClassLatency {
            class: StatementClass::Commit,
            latency: commit.summary(),
        },
    ];
    s.histograms.per_class = vec![
        (StatementClass::PointSelect, select.to_base64()),
        (StatementClass::Commit, commit.to_base64()),
    ];
    s
}

#[test]
fn each_statement_class_is_read_from_its_merged_histogram() {
    let a = with_classes(share("local", 2, &[values(1, 10)], 1.0), 100);
    let b = with_classes(share("ssh://a", 2, &[values(2, 10)], 1.0), 200);
    let mut all = LatencyHistogram::coarse();
    for v in values(100, 500).into_iter().chain(values(200, 500)) {
        all.record_us(v);
    }
    let merged = merge(vec![a, b]).unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    // In the one-machine step's order of classes.
    let classes: Vec<StatementClass> = merged.result.per_class.iter().map(|c| c.class).collect();
    assert_eq!(
        classes,
        [StatementClass::Commit, StatementClass::PointSelect]
    );
    let select = &merged.result.per_class[1];
    let exact = all.summary();
    assert_eq!(select.latency.count, 1000);
    assert_eq!(
        select.latency.p99_ms, exact.p99_ms,
        "never None, never averaged"
    );
    assert_eq!(select.latency.p50_ms, exact.p50_ms);
    assert_eq!(select.latency.max_ms, exact.max_ms);
}

fn tpcc_share(client: &str, seconds: f64, new_orders: u64, rolled_back: u64, seed: u64) -> Share {
    use crate::tpcc::run::TpccTotals;
    use crate::tpcc::txn::Outcome;
    let mut totals = TpccTotals::default();
    let latencies = values(seed, (new_orders + 40) as usize);
    for (i, &us) in latencies.iter().enumerate() {
        let (kind, outcome) = match i as u64 {
            i if i < rolled_back => (TxnKind::NewOrder, Outcome::RolledBack),
            i if i < new_orders => (TxnKind::NewOrder, Outcome::Committed),
            _ => (TxnKind::Payment, Outcome::Committed),
        };
        totals.record(kind, outcome, us);
    }
    let mut s = share(client, 2, &[values(seed, 10)], 1.0);
    s.result.total_time_s = seconds;
    s.result.tpcc = Some(totals.result(seconds));
    s.histograms.tpcc = totals
        .kinds
        .iter()
        .zip(TxnKind::ALL)
        .filter_map(|(k, kind)| Some((kind, k.latency.as_ref()?.to_base64())))
        .collect();
    s
}

#[test]
fn tpmc_is_every_clients_new_orders_per_minute_of_the_common_window() {
    let merged = merge(vec![
        tpcc_share("local", 30.0, 120, 2, 1),
        tpcc_share("ssh://a", 29.5, 80, 1, 2),
    ])
    .unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    let t = merged.result.tpcc.expect("merged, not dropped");
    // 200 New-Orders over the common 30 s window.
    assert!((t.tpmc - 400.0).abs() < 1e-9, "{}", t.tpmc);
    assert!((t.nopm - 197.0 * 2.0).abs() < 1e-9, "{}", t.nopm);
    assert_eq!(t.rollbacks, 3);
    let counts: Vec<(TxnKind, u64)> = t.transactions.iter().map(|t| (t.kind, t.count)).collect();
    assert_eq!(counts, [(TxnKind::NewOrder, 200), (TxnKind::Payment, 80)]);
    let mut all = LatencyHistogram::new();
    for v in values(1, 160)
        .into_iter()
        .take(120)
        .chain(values(2, 120).into_iter().take(80))
    {
        all.record_us(v);
    }
    let new_order = t.transactions[0].latency.as_ref().unwrap();
    assert_eq!(new_order.count, 200);
    assert_eq!(new_order.p95_ms, all.summary().p95_ms);
    let rows: Vec<f64> = merged
        .result
        .clients
        .iter()
        .map(|c| c.tpcc.as_ref().unwrap().tpmc)
        .collect();
    assert_eq!(
        rows,
        [240.0, 80.0 * 60.0 / 29.5],
        "each client keeps its own"
    );
}

#[test]
fn a_lost_clients_missing_figures_leave_them_out_with_a_warning() {
    let kept = tpcc_share("local", 30.0, 120, 2, 1);
    let planned = share("ssh://a", 2, &[values(1, 10)], 1.0);
    let lost = Share::from_intervals(
        "ssh://a".into(),
        &planned.result,
        planned.result.intervals.clone(),
        planned.interval_histograms.clone(),
        0.0,
        ClientLost::default(),
    )
    .unwrap();
    let merged = merge(vec![kept, lost]).unwrap();
    assert_eq!(merged.result.tpcc, None, "absent rather than one client's");
    assert_eq!(merged.warnings.len(), 1, "{:?}", merged.warnings);
    assert!(
        merged.warnings[0].contains("TPC-C") && merged.warnings[0].contains("ssh://a"),
        "{}",
        merged.warnings[0]
    );
}

fn rate_share(client: &str, target: f64, queues: &[u64], late: u64) -> Share {
    let mut s = share(client, 2, &vec![values(3, 100); queues.len()], 1.0);
    for (r, &q) in s.result.intervals.iter_mut().zip(queues) {
        r.open_loop = Some(IntervalQueue {
            queue: q,
            concurrency: 1,
            late_starts: late,
            max_lag_ms: q as f64,
        });
    }
    s.result.open_loop = Some(OpenLoopResult {
        target_rate: target,
        dist: crate::open_loop::RateDist::Fixed,
        connections: 4,
        achieved_rate: 100.0,
        late_starts: late * queues.len() as u64,
        max_lag_ms: *queues.iter().max().unwrap() as f64,
        max_queue: *queues.iter().max().unwrap(),
        queue_at_end: *queues.last().unwrap(),
        sustained: true,
        reason: None,
    });
    s
}

#[test]
fn open_loop_figures_add_up_and_the_verdict_is_taken_on_the_sums() {
    let merged = merge(vec![
        rate_share("local", 100.0, &[0, 30, 5], 2),
        rate_share("ssh://a", 100.0, &[10, 40, 200], 1),
    ])
    .unwrap();
    assert!(merged.warnings.is_empty(), "{:?}", merged.warnings);
    let r = &merged.result;
    let o = r.open_loop.as_ref().expect("merged, not dropped");
    assert_eq!((o.target_rate, o.connections), (200.0, 8));
    assert_eq!(
        o.achieved_rate,
        r.tps(),
        "the shares' transactions over the window"
    );
    assert_eq!(o.late_starts, 9);
    assert_eq!(
        o.max_queue, 205,
        "the largest summed second, not a sum of maxima"
    );
    assert_eq!(o.queue_at_end, 205);
    assert_eq!(o.max_lag_ms, 200.0);
    assert!(
        !o.sustained,
        "205 arrivals still waiting is over a second of 200/s"
    );
    let second: Vec<u64> = r
        .intervals
        .iter()
        .map(|i| i.open_loop.unwrap().queue)
        .collect();
    assert_eq!(second, [10, 70, 205]);
    assert_eq!(r.intervals[0].open_loop.unwrap().concurrency, 2);
}
