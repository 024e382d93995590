//! The reader and the writer against real sysbench 1.0.20 output (`fixtures/`).

use super::buckets;
use super::*;
use dbdyno_engine::workload::Scenario;

const SEED_003: &str = include_str!("fixtures/seed_003_oltp_read_write.txt");
const POINT_SELECT_HISTOGRAM: &str = include_str!("fixtures/point_select_histogram.txt");
const READ_WRITE_P99: &str = include_str!("fixtures/read_write_p99.txt");
const READ_ONLY_NO_INTERVALS: &str = include_str!("fixtures/read_only_no_intervals.txt");
const RATE_SEED_NO_PERCENTILE: &str =
    include_str!("fixtures/point_select_rate_seed_no_percentile.txt");
const SHELL_LOOP: &str = include_str!("fixtures/shell_loop_prepare_and_two_runs.txt");

fn one(text: &str) -> ParsedRun {
    let mut runs = parse_sysbench_output(text).unwrap();
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

#[test]
fn seed_003_figures_come_out_as_printed() {
    let r = one(SEED_003);
    assert!(r.complete);
    assert_eq!(r.sysbench_version, None);
    assert_eq!(r.threads, 2);
    assert_eq!(r.percentile, 95.0);
    assert_eq!(
        (
            r.queries.read,
            r.queries.write,
            r.queries.other,
            r.queries_total
        ),
        (64610, 18460, 9230, 92300)
    );
    assert_eq!((r.transactions, r.transactions_per_sec), (4615, 76.84));
    assert_eq!(r.queries_per_sec, 1536.81);
    assert_eq!((r.ignored_errors, r.reconnects), (0, 0));
    assert_eq!((r.total_time_s, r.events), (60.058, 4615));
    assert_eq!(
        r.latency,
        PrintedLatency {
            min_ms: 5.61,
            avg_ms: 26.01,
            max_ms: 838.69,
            percentile_ms: Some(57.87),
            sum_ms: 120018.85
        }
    );
    assert_eq!(r.fairness.events_avg, 2307.5);
    assert_eq!(r.fairness.events_stddev, 6.5);
    assert_eq!(r.fairness.exec_time_avg_s, 60.0094);
    assert_eq!(r.fairness.exec_time_stddev_s, 0.01);

    assert_eq!(r.intervals.len(), 6);
    let tps: Vec<f64> = r.intervals.iter().map(|i| i.tps).collect();
    assert_eq!(tps, [23.30, 77.70, 89.00, 92.50, 88.40, 90.40]);
    let lat: Vec<f64> = r.intervals.iter().map(|i| i.latency_ms).collect();
    assert_eq!(lat, [272.27, 56.84, 46.63, 41.10, 46.63, 32.53]);
    let i0 = &r.intervals[0];
    assert_eq!((i0.elapsed_s, i0.duration_s, i0.qps), (10.0, 10.0, 469.31));
    assert_eq!(
        (i0.reads_ps, i0.writes_ps, i0.other_ps),
        (328.94, 93.58, 46.79)
    );

    let s = r.to_step_result(Scenario::OltpReadWrite);
    assert_eq!(
        (s.total_time_s, s.transactions, s.queries.total()),
        (60.058, 4615, 92300)
    );
    // sysbench divided by a timer read 1.5 ms after "total time" (92300 / 60.058 s is
    // 1536.85): the printed rates are kept, so the figures come out exactly as printed.
    assert_eq!((s.tps(), s.qps()), (76.84, 1536.81));
    assert_eq!(
        (s.latency_pct_ms, s.latency.p95_ms, s.latency.p99_ms),
        (57.87, Some(57.87), None)
    );
    assert_eq!(s.latency.count, 4615);
    assert_eq!(s.threads, 2);
    let w = s.steady.expect("steady window");
    assert_eq!(w.first_interval, 2);
    assert!((w.whole_vs_steady_pct + 14.69).abs() < 0.05);
}

#[test]
fn point_select_with_histogram() {
    let r = one(POINT_SELECT_HISTOGRAM);
    assert_eq!(r.sysbench_version.as_deref(), Some("1.0.20"));
    assert_eq!((r.threads, r.report_interval_s), (2, Some(1)));
    assert_eq!(r.intervals.len(), 3);
    assert_eq!(r.intervals[2].tps, 76607.60);
    assert_eq!(
        (r.transactions, r.transactions_per_sec, r.queries.read),
        (214291, 71385.48, 214291)
    );
    assert_eq!(r.latency.percentile_ms, Some(0.03));
    assert_eq!(r.latency.max_ms, 10.61);
    // Every row of the block, first and last as printed, counts adding up to the events.
    assert_eq!(
        r.histogram.first(),
        Some(&HistogramBucket {
            value_ms: 0.024,
            count: 57
        })
    );
    assert_eq!(
        r.histogram.last(),
        Some(&HistogramBucket {
            value_ms: 10.651,
            count: 1
        })
    );
    let rows = POINT_SELECT_HISTOGRAM
        .lines()
        .filter(|l| l.contains(" |"))
        .count();
    assert_eq!(r.histogram.len(), rows);
    assert_eq!(r.histogram.iter().map(|b| b.count).sum::<u64>(), r.events);

    let s = r.to_step_result(Scenario::OltpPointSelect);
    // p95 stays the printed figure; the others follow sysbench's rule over the buckets.
    assert_eq!(s.latency.p95_ms, Some(0.03));
    let (p50, p99, p999) = (
        s.latency.p50_ms.unwrap(),
        s.latency.p99_ms.unwrap(),
        s.latency.p999_ms.unwrap(),
    );
    assert!(p50 > 0.0 && p50 <= p99 && p99 <= p999);
    assert!(p999 <= 10.651);
    let h = dbdyno_engine::stats::LatencyHistogram::from_base64(&s.histogram).unwrap();
    assert_eq!(h.count(), 214291);
}

#[test]
fn read_write_at_99th_percentile() {
    let r = one(READ_WRITE_P99);
    assert_eq!(r.percentile, 99.0);
    assert!(r.intervals.iter().all(|i| i.percentile == 99.0));
    assert_eq!(r.intervals[0].errors_ps, 1.0);
    assert_eq!((r.ignored_errors, r.ignored_errors_per_sec), (5, 1.66));
    assert_eq!(r.latency.percentile_ms, Some(11.65));
    let s = r.to_step_result(Scenario::OltpReadWrite);
    assert_eq!(
        (s.latency.p99_ms, s.latency.p95_ms, s.latency_pct_ms),
        (Some(11.65), None, 11.65)
    );
    assert_eq!(s.threads, 4);
}

#[test]
fn run_without_interval_lines() {
    let r = one(READ_ONLY_NO_INTERVALS);
    assert!(r.intervals.is_empty());
    assert_eq!((r.threads, r.report_interval_s), (2, None));
    assert_eq!((r.transactions, r.queries_total), (2311, 36976));
    assert_eq!(r.latency.sum_ms, 3996.86);
    assert_eq!(r.to_step_result(Scenario::OltpReadOnly).steady, None);
}

#[test]
fn rate_seed_and_disabled_percentile() {
    let r = one(RATE_SEED_NO_PERCENTILE);
    assert_eq!((r.rate, r.seed), (Some(200.0), Some(42)));
    assert_eq!(r.percentile, 0.0);
    assert_eq!(r.latency.percentile_ms, None);
    // The "[ 1s ] queue length: 0, concurrency: 0" lines are not intervals.
    assert_eq!(r.intervals.len(), 2);
    assert_eq!(
        r.to_step_result(Scenario::OltpPointSelect).latency_pct_ms,
        0.0
    );
}

#[test]
fn shell_loop_log_holds_two_runs_and_skips_prepare() {
    let runs = parse_sysbench_output(SHELL_LOOP).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].threads, runs[1].threads), (1, 4));
    assert_eq!((runs[0].transactions, runs[1].transactions), (2147, 6488));
    assert_eq!(runs[1].ignored_errors, 6);
    assert!(runs.iter().all(|r| r.complete && r.intervals.len() == 2));
    let line = |n: usize| SHELL_LOOP.lines().nth(n - 1).unwrap();
    assert!(line(runs[0].first_line).starts_with("sysbench 1.0.20"));
    assert!(runs[1].first_line > runs[0].first_line + 30);
}

#[test]
fn concatenated_fixtures_crlf_and_indentation() {
    let text = [
        SEED_003,
        POINT_SELECT_HISTOGRAM,
        READ_WRITE_P99,
        READ_ONLY_NO_INTERVALS,
    ]
    .join("");
    // Windows line ends and a blog's extra indentation.
    let text: String = text.lines().map(|l| format!("\t {l}  \r\n")).collect();
    let runs = parse_sysbench_output(&text).unwrap();
    assert_eq!(runs.len(), 4);
    let tx: Vec<u64> = runs.iter().map(|r| r.transactions).collect();
    assert_eq!(tx, [4615, 214291, 2401, 2311]);
    assert_eq!(runs[0], one(SEED_003).with_first_line(runs[0].first_line));
    assert_eq!(
        runs[1].histogram.len(),
        one(POINT_SELECT_HISTOGRAM).histogram.len()
    );
}

#[test]
fn our_output_reads_back_with_the_same_figures() {
    let mut seed = one(SEED_003).to_step_result(Scenario::OltpReadWrite);
    seed.latency.p50_ms = Some(21.89);
    seed.latency.p90_ms = Some(44.98);
    seed.latency.p99_ms = Some(253.35);
    seed.latency.p999_ms = Some(612.21);
    seed.ignored_errors = 3;
    seed.reconnects = 1;
    // The confidence was made at import, before p99 was known: made again.
    let seed = seed.with_confidence();
    let mut hist = dbdyno_engine::stats::LatencyHistogram::new();
    for us in [5_610, 20_000, 26_010, 30_000, 838_690] {
        hist.record_us(us);
    }
    let mut text = format_header("0.1.0", seed.threads, 10, 0.0, 7);
    for i in &seed.intervals {
        text.push_str(&format_interval(i));
        text.push('\n');
    }
    text.push_str(&format_summary(&seed, Some(&hist)));

    let parsed = one(&text);
    assert_eq!(
        parsed
            .version_line
            .as_deref()
            .map(|v| v.starts_with("dbdyno 0.1.0")),
        Some(true)
    );
    assert_eq!(parsed.sysbench_version, None);
    assert_eq!((parsed.report_interval_s, parsed.seed), (Some(10), Some(7)));
    assert_eq!(parsed.histogram.iter().map(|b| b.count).sum::<u64>(), 5);
    let back = parsed.to_step_result(Scenario::OltpReadWrite);
    assert_eq!(back.threads, seed.threads);
    assert_eq!(back.total_time_s, seed.total_time_s);
    assert_eq!(back.transactions, seed.transactions);
    assert_eq!(back.queries, seed.queries);
    assert_eq!((back.ignored_errors, back.reconnects), (3, 1));
    assert_eq!(
        (back.percentile, back.latency_pct_ms),
        (seed.percentile, seed.latency_pct_ms)
    );
    // The percentiles come from our block, not from the 5-event histogram.
    assert_eq!(back.latency, seed.latency);
    assert_eq!(back.fairness, seed.fairness);
    assert_eq!(back.intervals, seed.intervals);
    assert_eq!(back.steady, seed.steady);
    assert_eq!(back.confidence, seed.confidence);
    // Formatting the read-back result prints the same text again.
    assert_eq!(format_summary(&back, None), format_summary(&seed, None));
}

impl ParsedRun {
    fn with_first_line(mut self, first_line: usize) -> Self {
        self.first_line = first_line;
        self
    }
}

#[test]
fn histogram_block_reprints_real_buckets() {
    // Real buckets -> our HDR histogram -> sysbench's block again: above 0.1 ms, where
    // sysbench's buckets are wider than our 1 µs resolution, every row comes back as is.
    let real = one(POINT_SELECT_HISTOGRAM).histogram;
    let h = buckets::to_latency_histogram(&real);
    let block = buckets::format_histogram_block(&h);
    let reprinted: Vec<&str> = block.lines().filter(|l| l.contains(" |")).collect();
    let original: Vec<&str> = POINT_SELECT_HISTOGRAM
        .lines()
        .filter(|l| l.contains(" |"))
        .collect();
    let above = |rows: &[&str]| -> Vec<(String, String)> {
        rows.iter()
            .filter(|l| l.split('|').next().unwrap().trim().parse::<f64>().unwrap() >= 0.1)
            .map(|l| {
                let (v, rest) = l.split_once('|').unwrap();
                (v.to_string(), rest.rsplit(' ').next().unwrap().to_string())
            })
            .collect()
    };
    let (ours, theirs) = (above(&reprinted), above(&original));
    assert!(theirs.len() > 50);
    assert_eq!(ours, theirs);
    // Counts are never lost below 0.1 ms either, only merged into fewer rows.
    let total = |rows: &[&str]| -> u64 {
        rows.iter()
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum()
    };
    assert_eq!(total(&reprinted), total(&original));
}

/// Seed 001 prints the summary with a `// explanation` after each figure and without
/// sysbench's indentation: the figures are read, the notes ignored.
#[test]
fn seed_001_annotated_summary() {
    let r = one(include_str!(
        "../../../tests/fixtures/sysbench/seed_001_annotated.txt"
    ));
    assert!(r.complete);
    assert_eq!(
        (
            r.queries.read,
            r.queries.write,
            r.queries.other,
            r.queries_total
        ),
        (49_552_244, 0, 7_078_892, 56_631_136)
    );
    assert_eq!(
        (r.transactions, r.transactions_per_sec),
        (3_539_446, 29492.41)
    );
    assert_eq!(r.queries_per_sec, 471878.50);
    assert_eq!((r.total_time_s, r.events), (120.011, 3_539_446));
    assert_eq!(r.latency.percentile_ms, Some(6.79));
    assert_eq!((r.latency.min_ms, r.latency.max_ms), (1.48, 210.23));
    assert_eq!(r.fairness.events_avg, 27651.9219);
    // No "Number of threads:": events / events per thread.
    assert_eq!(r.threads, 128);
}

/// Seed 004's oltp_insert run, with the article's `#` comment lines inside the summary.
#[test]
fn seed_004_oltp_insert_with_comment_lines() {
    let r = one(include_str!(
        "../../../tests/fixtures/sysbench/seed_004_oltp_insert.txt"
    ));
    assert!(r.complete);
    assert_eq!(r.threads, 1);
    assert_eq!(
        (r.queries.read, r.queries.write, r.queries.other),
        (0, 175_062, 0)
    );
    assert_eq!((r.transactions, r.transactions_per_sec), (175_062, 972.55));
    assert_eq!(r.total_time_s, 180.0014);
    assert_eq!(r.latency.percentile_ms, Some(1.58));
    let s = r.to_step_result(Scenario::OltpInsert);
    assert_eq!(
        (s.tps(), s.latency.p95_ms, s.latency.p99_ms),
        (972.55, Some(1.58), None)
    );
}

#[test]
fn only_an_annotation_after_a_figure_is_cut() {
    use super::parse::without_annotation;
    assert_eq!(without_annotation("read: 5 // reads"), "read: 5");
    assert_eq!(without_annotation("see http://x // y"), "see http://x // y");
    assert_eq!(without_annotation("    read:   5"), "    read:   5");
}

/// The engine's tests take their steps from these logs as JSON (it cannot read sysbench's
/// text: this crate depends on it); the JSON must still be what the logs parse to.
#[test]
fn the_engines_test_steps_are_these_logs_parsed() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../engine/src/test_steps");
    for (log, scenario, name) in [
        (
            include_str!("fixtures/read_only_no_intervals.txt"),
            Scenario::OltpReadOnly,
            "read_only_no_intervals",
        ),
        (
            include_str!("fixtures/read_only_no_intervals.txt"),
            Scenario::OltpPointSelect,
            "point_select_no_intervals",
        ),
        (
            include_str!("fixtures/seed_003_oltp_read_write.txt"),
            Scenario::OltpReadWrite,
            "seed_003_oltp_read_write",
        ),
    ] {
        let parsed = parse_sysbench_output(log).unwrap()[0].to_step_result(scenario);
        let kept = std::fs::read_to_string(format!("{dir}/{name}.json")).unwrap();
        // Compared as text: serde_json reads some decimals back a last bit off.
        assert!(
            serde_json::to_string_pretty(&parsed).unwrap() + "\n" == kept,
            "{name}.json is not its log parsed: write it again from the log"
        );
    }
}
