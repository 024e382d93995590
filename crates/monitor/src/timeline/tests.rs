//! The timeline's rules on synthetic samples: alignment whatever the clocks' phase,
//! the clock offset, gaps and the sample-count rule, and the per-step aggregates.

use super::*;
use crate::mysql_status::RowCounters;
use crate::{CpuRates, DiskRates};

const T0: i64 = 1_700_000_000_000;

fn os_sample(server_end_ms: i64, util: f64) -> ServerSample {
    ServerSample {
        server_unix_ms: server_end_ms,
        local_unix_ms: server_end_ms,
        interval_s: 1.0,
        cpu: Some(CpuRates {
            util,
            user: util,
            idle: 100.0 - util,
            ..Default::default()
        }),
        disks: vec![DiskRates {
            name: "vda".into(),
            r_per_s: 0.0,
            w_per_s: util,
            rkb_per_s: 0.0,
            wkb_per_s: 0.0,
            r_await_ms: 0.0,
            w_await_ms: 1.0,
            await_ms: 1.0,
            aqu_sz: 0.1,
            util_pct: util / 2.0,
        }],
        mem: None,
        swap: None,
        net: vec![],
        load: None,
        sampler: None,
    }
}

fn my_sample(end_ms: i64, reads: u64, requests: u64) -> MysqlSample {
    MysqlSample {
        local_unix_ms: end_ms,
        server_unix_ms: end_ms,
        interval_s: 1.0,
        questions_per_s: 100.0,
        transactions_per_s: 5.0,
        com_per_s: Default::default(),
        row_counters: RowCounters::Handler,
        rows_read_per_s: 10.0,
        rows_inserted_per_s: 1.0,
        rows_updated_per_s: 1.0,
        rows_deleted_per_s: 1.0,
        bp_read_requests: requests,
        bp_reads: reads,
        hit_rate_pct: crate::mysql_status::sample::hit_rate(reads, requests),
        row_lock_waits: 1,
        row_lock_time_ms: 2,
        data_fsyncs_per_s: 3.0,
        threads_running: 4,
        threads_connected: 8,
        aborted_clients: 0,
        aborted_connects: 0,
    }
}

fn window(start: i64, seconds: i64) -> StepWindow {
    StepWindow {
        step: 0,
        label: "oltp_read_write @ 4 threads".into(),
        started_unix_ms: start,
        ended_unix_ms: start + seconds * 1000,
    }
}

#[test]
fn n_seconds_give_n_samples_whatever_the_phase() {
    // Sampler seconds tick at T0 + 400 ms + k s; the step runs 10.000 s from T0 + 0.3 s.
    for phase_ms in [0, 1, 400, 999] {
        let mut t = Timeline::new(Duration::from_secs(1));
        for k in 0..14 {
            t.push_os(os_sample(T0 + phase_ms + k * 1000, 10.0), Some(0.0));
            t.push_mysql(my_sample(T0 + phase_ms + k * 1000, 1, 100));
        }
        let f = t.figures(&window(T0 + 300, 10));
        assert_eq!(f.expected_samples, 10);
        assert_eq!(f.os.as_ref().unwrap().samples, 10, "phase {phase_ms}");
        assert_eq!(f.mysql.as_ref().unwrap().samples, 10, "phase {phase_ms}");
        assert!(
            (f.os.as_ref().unwrap().covered_s - 10.0).abs() < 1e-9,
            "phase {phase_ms}"
        );
        assert!(f.sample_count_ok(), "{:?}", f.flags);
    }
}

#[test]
fn samples_outside_the_window_do_not_leak_in() {
    // Idle before and after, busy inside: the averages must be exactly the busy value.
    let mut t = Timeline::new(Duration::from_secs(1));
    let (start, secs) = (T0 + 5_000, 4);
    for k in 0..12 {
        let end = T0 + k * 1000 + 500; // ends at .5 s: midpoints at whole seconds
        let mid = end - 500;
        let busy = mid >= start && mid < start + secs * 1000;
        t.push_os(os_sample(end, if busy { 80.0 } else { 0.0 }), Some(0.0));
    }
    let f = t.figures(&window(start, secs));
    let os = f.os.unwrap();
    assert_eq!(os.samples, 4);
    assert_eq!(os.cpu_util_avg, Some(80.0));
    assert_eq!(os.cpu_util_max, Some(80.0));
    assert_eq!(os.disks[0].util_pct_avg, 40.0);
    assert_eq!(os.disks[0].w_per_s_avg, 80.0);
}

#[test]
fn clock_offset_moves_server_stamps_onto_our_clock() {
    // The server's clock is 7.5 s ahead: its stamps say T0 + 7.5 s for our T0.
    let offset = 7_500.0;
    let mut t = Timeline::new(Duration::from_secs(1));
    let mut uncorrected = Timeline::new(Duration::from_secs(1));
    for k in 1..=10 {
        let local_end = T0 + k * 1000;
        let busy = if k <= 5 { 90.0 } else { 0.0 };
        t.push_os(os_sample(local_end + 7_500, busy), Some(offset));
        uncorrected.push_os(os_sample(local_end + 7_500, busy), Some(0.0));
    }
    let w = window(T0, 5);
    let f = t.figures(&w);
    assert_eq!(f.os.as_ref().unwrap().samples, 5);
    assert_eq!(f.os.as_ref().unwrap().cpu_util_avg, Some(90.0));
    assert_eq!(f.os.unwrap().clock_offset_ms, Some(offset));
    // Without the correction the window would see the wrong seconds.
    assert_eq!(uncorrected.figures(&w).os.unwrap().samples, 0);
}

#[test]
fn a_gap_is_flagged_with_its_reason() {
    let mut t = Timeline::new(Duration::from_secs(1));
    for k in 1..=10 {
        if (4..=6).contains(&k) {
            continue;
        }
        t.push_os(os_sample(T0 + k * 1000, 20.0), Some(0.0));
        t.push_mysql(my_sample(T0 + k * 1000, 0, 10));
    }
    t.push_gap(SampleGap {
        source: Source::Os,
        from_ms: T0 + 3_000,
        to_ms: T0 + 7_000,
        reason: "the connection broke".into(),
    });
    let f = t.figures(&window(T0, 10));
    assert_eq!(f.os.as_ref().unwrap().samples, 7);
    assert_eq!(f.mysql.as_ref().unwrap().samples, 7);
    assert!(!f.sample_count_ok());
    assert_eq!(f.flags.len(), 2, "{:?}", f.flags);
    assert!(
        f.flags[0].contains("server OS: samples cover 7.0 of the step's 10.0 s (7 samples")
            && f.flags[0].contains("4.0 s without samples: the connection broke"),
        "{}",
        f.flags[0]
    );
    assert!(
        f.flags[1].starts_with("MySQL status: samples cover 7.0"),
        "{}",
        f.flags[1]
    );
    assert_eq!(f.gaps.len(), 1);
    // A gap that ends before the window is not reported for it.
    let later = t.figures(&window(T0 + 8_000, 2));
    assert!(later.gaps.is_empty());
}

#[test]
fn late_readings_lose_nothing_but_a_stalled_sampler_is_flagged() {
    let sample = |end_s: f64, interval_s: f64| {
        let mut s = my_sample(T0 + (end_s * 1000.0) as i64, 0, 10);
        s.interval_s = interval_s;
        s
    };
    let figures = |ends: &[(f64, f64)]| {
        let mut t = Timeline::new(Duration::from_secs(1));
        t.set_os_missing("not sampled");
        for &(end, iv) in ends {
            t.push_mysql(sample(end, iv));
        }
        t.figures(&window(T0, 5))
    };
    // One reading 0.9 s late, the next on time: six samples, five seconds covered.
    let late = figures(&[
        (1.0, 1.0),
        (2.9, 1.9),
        (3.0, 0.1),
        (4.0, 1.0),
        (5.0, 1.0),
        (6.0, 1.0),
    ]);
    let m = late.mysql.as_ref().unwrap();
    assert_eq!((m.samples, m.covered_s), (5, 5.0));
    assert!(late.sample_count_ok(), "{:?}", late.flags);
    // A skipped tick: one sample short, nothing missing.
    let skipped = figures(&[(1.0, 1.0), (3.0, 2.0), (4.0, 1.0), (5.0, 1.0), (6.0, 1.0)]);
    assert_eq!(skipped.mysql.as_ref().unwrap().samples, 4);
    assert!(skipped.sample_count_ok(), "{:?}", skipped.flags);
    // A sampler that fell 3 s behind: covered, but too coarse.
    let stalled = figures(&[(1.0, 1.0), (4.0, 3.0), (5.0, 1.0), (6.0, 1.0)]);
    assert_eq!(stalled.flags.len(), 1);
    assert!(
        stalled.flags[0].contains("fell behind"),
        "{:?}",
        stalled.flags
    );
}

#[test]
fn hit_rate_is_over_the_whole_step_and_missing_sources_say_why() {
    let mut t = Timeline::new(Duration::from_secs(1));
    t.set_os_missing("no --ssh-host: a managed database");
    t.push_mysql(my_sample(T0 + 1000, 0, 1_000_000));
    t.push_mysql(my_sample(T0 + 2000, 100, 100));
    let f = t.figures(&window(T0, 2));
    let m = f.mysql.unwrap();
    // Per-sample rates would average to 50 %; the step read 1,000,100 pages and missed 100.
    assert!(
        (m.hit_rate_pct.unwrap() - 99.99).abs() < 0.001,
        "{:?}",
        m.hit_rate_pct
    );
    assert_eq!((m.row_lock_waits, m.row_lock_time_ms), (2, 4));
    assert_eq!(m.rows_written_per_s_avg, 3.0);
    assert!(f.os.is_none());
    assert_eq!(
        f.os_missing.as_deref(),
        Some("no --ssh-host: a managed database")
    );
    assert!(
        f.flags.is_empty(),
        "a missing source is reported as missing, not as a short count"
    );
    assert!(t.covers(&window(T0, 1)));
    assert!(
        !t.covers(&window(T0, 2)),
        "the sample ending the window is not in yet"
    );
}
