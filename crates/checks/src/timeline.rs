//! Aligning server samples to each step's exact window, and the per-step figures the
//! history and the reports store.
//!
//! Everything is put on this machine's clock first: an OS sample's end is its
//! `server_unix_ms` minus the SSH clock offset measured at connect (the server's own
//! clock stamps it, so network jitter does not move it); a MySQL sample's end is already
//! local. A sample belongs to a step when the middle of its interval falls inside the
//! step's half-open window `[started, ended)`: with one-second samples and an N-second
//! step that is exactly N samples, whichever way the two clocks' seconds are phased.
//!
//! The seed's "Sample Count" rule: a step of N seconds should have N samples; fewer
//! means the averages miss part of the step, so the step is flagged (with the gaps that
//! explain it, when there are any). Unlike tsar's lines, each of our samples is a delta
//! between two readings, so a late reading (a saturated server answers SHOW GLOBAL
//! STATUS late) loses nothing: its sample simply spans more than a second. The rule is
//! therefore applied to what matters, the seconds of the step the samples cover
//! (`covered_s`); the literal count is kept too, and a count more than one short of the
//! seconds is still flagged, because the maxima are then coarse.
//!
//! Non-goals: no I/O, no printing; nothing here knows where the samples came from.

use std::time::Duration;

use dbdyno_engine::StepResult;
use dbdyno_monitor::ServerSample;
use serde::{Deserialize, Serialize};

use crate::status::{self, MysqlSample, RowCounters};

/// One measured step's wall-clock window (this machine's clock).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepWindow {
    /// Index among the plan's steps, from 0.
    pub step: usize,
    /// "oltp_read_write @ 16 threads".
    pub label: String,
    pub started_unix_ms: i64,
    pub ended_unix_ms: i64,
}

impl StepWindow {
    pub fn from_result(step: usize, r: &StepResult) -> StepWindow {
        StepWindow {
            step,
            label: format!("{} @ {} threads", r.scenario, r.threads),
            started_unix_ms: r.started_unix_ms,
            ended_unix_ms: r.ended_unix_ms,
        }
    }

    pub fn duration_ms(&self) -> i64 {
        (self.ended_unix_ms - self.started_unix_ms).max(0)
    }

    fn contains(&self, ms: f64) -> bool {
        ms >= self.started_unix_ms as f64 && ms < self.ended_unix_ms as f64
    }

    /// Seconds of the window inside the interval `[end_ms - interval_s, end_ms]`.
    fn overlap_s(&self, end_ms: f64, interval_s: f64) -> f64 {
        let from = (end_ms - interval_s * 1000.0).max(self.started_unix_ms as f64);
        let to = end_ms.min(self.ended_unix_ms as f64);
        ((to - from) / 1000.0).max(0.0)
    }
}

/// Which sampler a gap belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The server's OS (CPU, disks) over SSH or local /proc.
    Os,
    /// MySQL's `SHOW GLOBAL STATUS`.
    Mysql,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Os => "server OS",
            Source::Mysql => "MySQL status",
        })
    }
}

/// A time without samples, on this machine's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleGap {
    pub source: Source,
    pub from_ms: i64,
    pub to_ms: i64,
    pub reason: String,
}

impl SampleGap {
    pub fn seconds(&self) -> f64 {
        (self.to_ms - self.from_ms).max(0) as f64 / 1000.0
    }
}

/// An OS sample with its end moved onto this machine's clock.
#[derive(Debug, Clone, PartialEq)]
struct OsPoint {
    end_ms: f64,
    sample: ServerSample,
}

impl OsPoint {
    fn mid_ms(&self) -> f64 {
        self.end_ms - self.sample.interval_s * 500.0
    }
}

/// Every sample of a run, ready to be cut into step windows.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    interval: Duration,
    os: Vec<OsPoint>,
    mysql: Vec<MysqlSample>,
    gaps: Vec<SampleGap>,
    os_missing: Option<String>,
    mysql_missing: Option<String>,
    os_offset_ms: Option<f64>,
}

impl Timeline {
    /// `interval` is the samplers' period (one second in practice).
    pub fn new(interval: Duration) -> Timeline {
        Timeline {
            interval,
            os: Vec::new(),
            mysql: Vec::new(),
            gaps: Vec::new(),
            os_missing: None,
            mysql_missing: None,
            os_offset_ms: None,
        }
    }

    /// The OS metrics will not come, and why (managed database, --no-monitor…).
    pub fn set_os_missing(&mut self, why: impl Into<String>) {
        self.os_missing = Some(why.into());
    }

    pub fn set_mysql_missing(&mut self, why: impl Into<String>) {
        self.mysql_missing = Some(why.into());
    }

    /// Adds an OS sample. `clock_offset_ms` is server − local as measured at (re)connect;
    /// `None` when unknown: the receive time is then used instead of the server's stamp.
    pub fn push_os(&mut self, sample: ServerSample, clock_offset_ms: Option<f64>) {
        let end_ms = match clock_offset_ms {
            Some(o) => sample.server_unix_ms as f64 - o,
            None => sample.local_unix_ms as f64,
        };
        if clock_offset_ms.is_some() {
            self.os_offset_ms = clock_offset_ms;
        }
        self.os.push(OsPoint { end_ms, sample });
    }

    pub fn push_mysql(&mut self, sample: MysqlSample) {
        self.mysql.push(sample);
    }

    pub fn push_gap(&mut self, gap: SampleGap) {
        self.gaps.push(gap);
    }

    pub fn os_samples(&self) -> usize {
        self.os.len()
    }

    pub fn mysql_samples(&self) -> usize {
        self.mysql.len()
    }

    pub fn gaps(&self) -> &[SampleGap] {
        &self.gaps
    }

    /// True once every active sampler has delivered the sample that ends the window
    /// (so its figures are final), judged on this machine's clock.
    pub fn covers(&self, w: &StepWindow) -> bool {
        let needed = w.ended_unix_ms as f64 + self.interval.as_millis() as f64 / 2.0;
        let os_done =
            self.os_missing.is_some() || self.os.last().is_some_and(|p| p.end_ms >= needed);
        let my_done = self.mysql_missing.is_some()
            || self
                .mysql
                .last()
                .is_some_and(|s| s.local_unix_ms as f64 >= needed);
        os_done && my_done
    }

    /// The step's aggregates.
    pub fn figures(&self, w: &StepWindow) -> StepServerFigures {
        let interval_ms = self.interval.as_millis().max(1) as f64;
        let expected = (w.duration_ms() as f64 / interval_ms).round() as u32;
        let gaps: Vec<SampleGap> = self
            .gaps
            .iter()
            .filter(|g| g.from_ms < w.ended_unix_ms && g.to_ms > w.started_unix_ms)
            .map(|g| SampleGap {
                from_ms: g.from_ms.max(w.started_unix_ms),
                to_ms: g.to_ms.min(w.ended_unix_ms),
                ..g.clone()
            })
            .collect();
        let os_points: Vec<&OsPoint> = self.os.iter().filter(|p| w.contains(p.mid_ms())).collect();
        let my_points: Vec<&MysqlSample> = self
            .mysql
            .iter()
            .filter(|s| w.contains(s.local_unix_ms as f64 - s.interval_s * 500.0))
            .collect();
        let duration_s = w.duration_ms() as f64 / 1000.0;
        let cap = |c: f64| c.min(duration_s);
        let os = (self.os_missing.is_none()).then(|| {
            let covered = self
                .os
                .iter()
                .map(|p| w.overlap_s(p.end_ms, p.sample.interval_s))
                .sum();
            os_figures(&os_points, self.os_offset_ms, cap(covered))
        });
        let mysql = (self.mysql_missing.is_none()).then(|| {
            let covered = self
                .mysql
                .iter()
                .map(|s| w.overlap_s(s.local_unix_ms as f64, s.interval_s))
                .sum();
            mysql_figures(&my_points, cap(covered))
        });
        let mut flags = Vec::new();
        for (source, got) in [
            (Source::Os, os.as_ref().map(|o| (o.samples, o.covered_s))),
            (
                Source::Mysql,
                mysql.as_ref().map(|m| (m.samples, m.covered_s)),
            ),
        ] {
            let Some((got, covered)) = got else { continue };
            if covered + 0.5 < duration_s {
                let lost: Vec<String> = gaps
                    .iter()
                    .filter(|g| g.source == source)
                    .map(|g| format!("{:.1} s without samples: {}", g.seconds(), g.reason))
                    .collect();
                flags.push(format!(
                    "{source}: samples cover {covered:.1} of the step's {duration_s:.1} s ({got} samples; sample count \
                     rule: the averages miss {:.1} s){}",
                    duration_s - covered,
                    if lost.is_empty() { String::new() } else { format!("; {}", lost.join("; ")) }
                ));
            } else if got + 1 < expected {
                flags.push(format!(
                    "{source}: {got} samples for {expected} s of step: the sampler fell behind (a busy server or \
                     client); the averages hold, the maxima are coarse"
                ));
            }
        }
        StepServerFigures {
            step: w.step,
            label: w.label.clone(),
            started_unix_ms: w.started_unix_ms,
            ended_unix_ms: w.ended_unix_ms,
            expected_samples: expected,
            os,
            os_missing: self.os_missing.clone(),
            mysql,
            mysql_missing: self.mysql_missing.clone(),
            gaps,
            flags,
        }
    }
}

/// What the server did during one step: stored with the run, read by the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepServerFigures {
    pub step: usize,
    pub label: String,
    pub started_unix_ms: i64,
    pub ended_unix_ms: i64,
    /// Whole sampling intervals in the window: what each sampler should have delivered.
    pub expected_samples: u32,
    /// `None` when OS sampling was not possible; `os_missing` says why.
    pub os: Option<OsFigures>,
    pub os_missing: Option<String>,
    pub mysql: Option<MysqlFigures>,
    pub mysql_missing: Option<String>,
    /// Gaps that overlap the window, clipped to it.
    pub gaps: Vec<SampleGap>,
    /// Sample-count violations in words (empty when both samplers delivered every second).
    pub flags: Vec<String>,
}

impl StepServerFigures {
    /// The seed's rule: every active sampler delivered one sample per second of the step.
    pub fn sample_count_ok(&self) -> bool {
        self.flags.is_empty()
    }
}

/// CPU and disks of the server during a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OsFigures {
    /// Samples whose interval's middle falls in the step.
    pub samples: u32,
    /// Seconds of the step covered by sample intervals (a gap shows here).
    pub covered_s: f64,
    /// Busy share of all CPUs (100 − idle − iowait), percent.
    pub cpu_util_avg: Option<f64>,
    pub cpu_util_max: Option<f64>,
    pub cpu_user_avg: Option<f64>,
    pub cpu_system_avg: Option<f64>,
    pub cpu_iowait_avg: Option<f64>,
    pub cpu_steal_avg: Option<f64>,
    /// One entry per sampled device (the data disk(s) when resolved).
    pub disks: Vec<DiskFigures>,
    pub mem_used_mb_max: Option<f64>,
    pub swap_out_pages_per_s_max: Option<f64>,
    /// What the sampling loop and its SSH session cost the server, percent of one core.
    pub sampler_cpu_pct_avg: Option<f64>,
    pub transport_cpu_pct_avg: Option<f64>,
    /// The SSH clock offset used to align the samples (server − local, ms).
    pub clock_offset_ms: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskFigures {
    pub name: String,
    pub samples: u32,
    pub util_pct_avg: f64,
    pub util_pct_max: f64,
    pub r_per_s_avg: f64,
    pub w_per_s_avg: f64,
    pub rkb_per_s_avg: f64,
    pub wkb_per_s_avg: f64,
    pub await_ms_avg: f64,
    pub aqu_sz_avg: f64,
}

/// MySQL's counters during a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MysqlFigures {
    pub samples: u32,
    pub covered_s: f64,
    pub questions_per_s_avg: f64,
    pub transactions_per_s_avg: f64,
    /// Over the whole step: 100 × (1 − Σreads / Σread_requests).
    pub hit_rate_pct: Option<f64>,
    pub bp_reads_per_s_avg: f64,
    pub row_lock_waits: u64,
    pub row_lock_time_ms: u64,
    pub data_fsyncs_per_s_avg: f64,
    pub rows_read_per_s_avg: f64,
    /// Inserted + updated + deleted rows per second.
    pub rows_written_per_s_avg: f64,
    pub row_counters: Option<RowCounters>,
    pub threads_running_avg: f64,
    pub threads_running_max: u64,
    pub threads_connected_max: u64,
    pub aborted_clients: u64,
    pub aborted_connects: u64,
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u32), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

fn max(values: impl Iterator<Item = f64>) -> Option<f64> {
    values.fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
}

fn os_figures(points: &[&OsPoint], offset: Option<f64>, covered_s: f64) -> OsFigures {
    let cpu = || points.iter().filter_map(|p| p.sample.cpu);
    let mut names: Vec<String> = Vec::new();
    for p in points {
        for d in &p.sample.disks {
            if !names.contains(&d.name) {
                names.push(d.name.clone());
            }
        }
    }
    let disks = names
        .into_iter()
        .map(|name| {
            let rows: Vec<_> = points
                .iter()
                .filter_map(|p| p.sample.disks.iter().find(|d| d.name == name))
                .collect();
            let avg = |f: fn(&dbdyno_monitor::DiskRates) -> f64| {
                mean(rows.iter().map(|d| f(d))).unwrap_or(0.0)
            };
            DiskFigures {
                samples: rows.len() as u32,
                util_pct_avg: avg(|d| d.util_pct),
                util_pct_max: max(rows.iter().map(|d| d.util_pct)).unwrap_or(0.0),
                r_per_s_avg: avg(|d| d.r_per_s),
                w_per_s_avg: avg(|d| d.w_per_s),
                rkb_per_s_avg: avg(|d| d.rkb_per_s),
                wkb_per_s_avg: avg(|d| d.wkb_per_s),
                await_ms_avg: avg(|d| d.await_ms),
                aqu_sz_avg: avg(|d| d.aqu_sz),
                name,
            }
        })
        .collect();
    OsFigures {
        samples: points.len() as u32,
        covered_s,
        cpu_util_avg: mean(cpu().map(|c| c.util)),
        cpu_util_max: max(cpu().map(|c| c.util)),
        cpu_user_avg: mean(cpu().map(|c| c.user)),
        cpu_system_avg: mean(cpu().map(|c| c.system)),
        cpu_iowait_avg: mean(cpu().map(|c| c.iowait)),
        cpu_steal_avg: mean(cpu().map(|c| c.steal)),
        disks,
        mem_used_mb_max: max(points
            .iter()
            .filter_map(|p| p.sample.mem.map(|m| m.used_mb))),
        swap_out_pages_per_s_max: max(points
            .iter()
            .filter_map(|p| p.sample.swap.map(|s| s.out_pages_per_s))),
        sampler_cpu_pct_avg: mean(
            points
                .iter()
                .filter_map(|p| p.sample.sampler.map(|s| s.loop_cpu_pct)),
        ),
        transport_cpu_pct_avg: mean(
            points
                .iter()
                .filter_map(|p| p.sample.sampler.and_then(|s| s.transport_cpu_pct)),
        ),
        clock_offset_ms: offset,
    }
}

fn mysql_figures(points: &[&MysqlSample], covered_s: f64) -> MysqlFigures {
    let avg = |f: fn(&MysqlSample) -> f64| mean(points.iter().map(|s| f(s))).unwrap_or(0.0);
    let sum = |f: fn(&MysqlSample) -> u64| points.iter().map(|s| f(s)).sum::<u64>();
    MysqlFigures {
        samples: points.len() as u32,
        covered_s,
        questions_per_s_avg: avg(|s| s.questions_per_s),
        transactions_per_s_avg: avg(|s| s.transactions_per_s),
        hit_rate_pct: status::hit_rate(sum(|s| s.bp_reads), sum(|s| s.bp_read_requests)),
        bp_reads_per_s_avg: avg(|s| s.bp_reads as f64 / s.interval_s),
        row_lock_waits: sum(|s| s.row_lock_waits),
        row_lock_time_ms: sum(|s| s.row_lock_time_ms),
        data_fsyncs_per_s_avg: avg(|s| s.data_fsyncs_per_s),
        rows_read_per_s_avg: avg(|s| s.rows_read_per_s),
        rows_written_per_s_avg: avg(|s| {
            s.rows_inserted_per_s + s.rows_updated_per_s + s.rows_deleted_per_s
        }),
        row_counters: points.first().map(|s| s.row_counters),
        threads_running_avg: avg(|s| s.threads_running as f64),
        threads_running_max: points.iter().map(|s| s.threads_running).max().unwrap_or(0),
        threads_connected_max: points
            .iter()
            .map(|s| s.threads_connected)
            .max()
            .unwrap_or(0),
        aborted_clients: sum(|s| s.aborted_clients),
        aborted_connects: sum(|s| s.aborted_connects),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_monitor::{CpuRates, DiskRates};

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
            hit_rate_pct: status::hit_rate(reads, requests),
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
}
