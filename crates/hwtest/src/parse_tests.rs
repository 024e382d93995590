//! The parser against real sysbench output: the seeds' logs (one pasted into a single
//! line, one with a reader's comments) and sysbench 1.0.20 runs of each test.

use super::*;

fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn fileio(r: &HwTestResult) -> &FileIoResult {
    match &r.test {
        TestFigures::FileIo(f) => f,
        other => panic!("not fileio: {other:?}"),
    }
}

#[test]
fn seed_002_one_line_fileio_gives_the_printed_figures() {
    let r = parse_sysbench_hwtest(&fixture("seed_002_fileio_rndrw_one_line.txt")).unwrap();
    let f = fileio(&r);
    assert_eq!(
        (f.reads_per_s, f.writes_per_s, f.fsyncs_per_s),
        (16121.01, 10747.29, 34390.58)
    );
    assert_eq!((f.read_mib_per_s, f.written_mib_per_s), (251.89, 167.93));
    assert_eq!(f.setup, None);
    assert_eq!((r.total_time_s, r.total_events), (300.0049, 18378137));
    assert_eq!(
        r.latency,
        LatencySummary {
            min_ms: 0.0,
            avg_ms: 1.04,
            max_ms: 22.06,
            percentile: Some(Percentile { rank: 95, ms: 4.10 }),
            sum_ms: 19163038.42,
        }
    );
    assert_eq!(
        r.fairness,
        Fairness {
            events_avg: 287158.3906,
            events_stddev: 763.93,
            execution_time_avg_s: 299.4225,
            execution_time_stddev_s: 0.01,
        }
    );
    // No header: 18378137 events at 287158.39 per thread.
    assert_eq!(r.threads, 64);
}

#[test]
fn seed_004_fileio_gives_the_printed_figures_and_its_header() {
    let r = parse_sysbench_hwtest(&fixture("seed_004_fileio_rndrw.txt")).unwrap();
    let f = fileio(&r);
    assert_eq!(
        (
            f.reads_per_s,
            f.writes_per_s,
            f.fsyncs_per_s,
            f.read_mib_per_s,
            f.written_mib_per_s
        ),
        (3372.32, 2248.21, 7195.38, 52.69, 35.13)
    );
    assert_eq!(
        f.setup,
        Some(FileIoSetup {
            test_mode: FileTestMode::Rndrw,
            io_mode: FileIoMode::Sync,
            extra_flags: vec![],
            file_num: 128,
            file_size_bytes: 8 << 20,
            total_size_bytes: 1 << 30,
            block_size_bytes: 16384,
            merged_request_bytes: None,
            rw_ratio: Some(1.5),
            io_requests: Some(0),
            fsync_freq: 100,
            fsync_end: true,
            fsync_all: false,
        })
    );
    assert_eq!(
        (r.threads, r.total_time_s, r.total_events),
        (1, 30.0309, 384769)
    );
    assert_eq!(r.latency.sum_ms, 29737.74);
    assert_eq!(
        r.latency.percentile,
        Some(Percentile { rank: 95, ms: 0.31 })
    );
    assert_eq!(r.fairness.execution_time_avg_s, 29.7377);
    assert_eq!(r.options["file-test-mode"], "rndrw");
}

#[test]
fn seed_004_cpu_with_comments_gives_the_printed_figures() {
    let r = parse_sysbench_hwtest(&fixture("seed_004_cpu_commented.txt")).unwrap();
    assert_eq!(
        r.test,
        TestFigures::Cpu(CpuResult {
            events_per_s: 342.47,
            max_prime: Some(20000)
        })
    );
    assert_eq!(
        (r.threads, r.total_time_s, r.total_events),
        (2, 10.0052, 3427)
    );
    assert_eq!(
        (
            r.latency.min_ms,
            r.latency.avg_ms,
            r.latency.max_ms,
            r.latency.sum_ms
        ),
        (2.67, 5.83, 26.0, 19979.50)
    );
    assert_eq!(r.latency.percentile.as_ref().unwrap().ms, 13.95);
    assert_eq!(
        (r.fairness.events_avg, r.fairness.events_stddev),
        (1713.5, 3.5)
    );
    assert_eq!(r.options["cpu-max-prime"], "20000");
}

#[test]
fn sysbench_fileio_intervals_and_merged_requests() {
    let r = parse_sysbench_hwtest(&fixture("sysbench_1.0.20_fileio_seqwr_intervals.txt")).unwrap();
    let f = fileio(&r);
    let setup = f.setup.as_ref().unwrap();
    assert_eq!(setup.test_mode, FileTestMode::Seqwr);
    assert_eq!(setup.extra_flags, [FileExtraFlag::Dsync]);
    assert_eq!(setup.merged_request_bytes, Some(65536));
    assert_eq!(setup.rw_ratio, None);
    assert_eq!(r.intervals.len(), 2);
    assert_eq!(
        r.intervals[1],
        IntervalFigures {
            elapsed_s: 2,
            read_mib_per_s: Some(0.0),
            written_mib_per_s: Some(5051.89),
            fsyncs_per_s: Some(3236.16),
            latency_pct_ms: Some(0.014),
            ..Default::default()
        }
    );
    assert_eq!(f.written_mib_per_s, 5014.96);
    assert_eq!(r.fairness.events_stddev, 278.0);
}

#[test]
fn sysbench_cpu_intervals_and_seed() {
    let r = parse_sysbench_hwtest(&fixture("sysbench_1.0.20_cpu_intervals.txt")).unwrap();
    assert_eq!(r.threads, 2);
    assert_eq!(r.options["rand-seed"], "7");
    assert_eq!(r.intervals.len(), 3);
    assert_eq!(r.intervals[0].threads, Some(2));
    assert!(r.intervals[0].events_per_s.unwrap() > 0.0);
}

#[test]
fn sysbench_memory_with_histogram_and_without_percentile() {
    let r = parse_sysbench_hwtest(&fixture("sysbench_1.0.20_memory_histogram.txt")).unwrap();
    let TestFigures::Memory(m) = &r.test else {
        panic!()
    };
    assert!(m.mib_transferred.unwrap() > 0.0 && m.mib_per_s.unwrap() > 0.0);
    assert_eq!(m.setup.as_ref().unwrap().oper, MemoryOper::Write);
    assert_eq!(r.intervals.len(), 2);
    assert!(r.intervals[0].mib_per_s.unwrap() > 0.0);

    let r =
        parse_sysbench_hwtest(&fixture("sysbench_1.0.20_memory_none_no_percentile.txt")).unwrap();
    let TestFigures::Memory(m) = &r.test else {
        panic!()
    };
    assert_eq!((m.mib_transferred, m.mib_per_s), (None, None));
    assert!(m.operations_per_s > 0.0);
    assert_eq!(m.setup.as_ref().unwrap().scope, MemoryScope::Local);
    assert_eq!(r.latency.percentile, None);
    assert_eq!(r.threads, 2);
}

#[test]
fn text_that_is_no_hardware_test_is_refused() {
    assert_eq!(
        parse_sysbench_hwtest("SQL statistics:\n    transactions: 5 (1 per sec.)\n"),
        Err(ParseError::NotAHardwareTest)
    );
    assert_eq!(
        parse_sysbench_hwtest("CPU speed:\n    events per second: 5.00\n"),
        Err(ParseError::Missing("total number of events:"))
    );
}
