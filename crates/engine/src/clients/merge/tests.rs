//! The merge on made-up shares whose every latency is known: the merged histogram is
//! the histogram of all values, rates add up second by second, fairness is that of all
//! threads.

use super::*;
use crate::results::IntervalRecord;
use crate::stats::fairness;
use crate::Scenario;

/// A template step (scenario, percentile, settings) from a parsed sysbench log.
fn template() -> StepResult {
    let text = include_str!("../../sysbench_text/fixtures/read_only_no_intervals.txt");
    let parsed = crate::sysbench_text::parse_sysbench_output(text).unwrap();
    let mut r = parsed[0].to_step_result(Scenario::OltpPointSelect);
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
    let merged = merge(shares).unwrap();
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
    let merged = merge(shares).unwrap();
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
    let merged = merge(vec![a, b]).unwrap();
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
    let merged = merge(vec![share("local", 1, &[values(9, 5)], 1.0), lost]).unwrap();
    assert_eq!(merged.transactions, 105);
    assert_eq!(merged.started_unix_ms, START_MS);
    assert_eq!(merged.ended_unix_ms, START_MS + 2000);
    assert_eq!(merged.clients[1].lost.as_ref().unwrap().after_s, 2.0);
}

#[test]
fn nothing_to_merge_is_an_error() {
    assert!(matches!(merge(Vec::new()), Err(MergeError::NoShares)));
}
