//! The per-step figures the history stores and the reports read, and how the samples
//! inside a step's window reduce to them: averages and maxima of the rates, sums of the
//! counts, and the buffer pool hit rate over the whole step.
//!
//! Non-goals: no choice of which samples belong to the step (the timeline makes it).

use serde::{Deserialize, Serialize};

use super::{OsPoint, SampleGap};
use crate::mysql_status::sample::{hit_rate, MysqlSample, RowCounters};
use crate::rates::DiskRates;

/// What the server did during one step: stored with the run, read by the reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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

pub(super) fn os_figures(points: &[&OsPoint], offset: Option<f64>, covered_s: f64) -> OsFigures {
    let cpu = || points.iter().filter_map(|p| p.sample.cpu);
    OsFigures {
        samples: points.len() as u32,
        covered_s,
        cpu_util_avg: mean(cpu().map(|c| c.util)),
        cpu_util_max: max(cpu().map(|c| c.util)),
        cpu_user_avg: mean(cpu().map(|c| c.user)),
        cpu_system_avg: mean(cpu().map(|c| c.system)),
        cpu_iowait_avg: mean(cpu().map(|c| c.iowait)),
        cpu_steal_avg: mean(cpu().map(|c| c.steal)),
        disks: disk_figures(points),
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

pub(super) fn mysql_figures(points: &[&MysqlSample], covered_s: f64) -> MysqlFigures {
    let avg = |f: fn(&MysqlSample) -> f64| mean(points.iter().map(|s| f(s))).unwrap_or(0.0);
    let sum = |f: fn(&MysqlSample) -> u64| points.iter().map(|s| f(s)).sum::<u64>();
    MysqlFigures {
        samples: points.len() as u32,
        covered_s,
        questions_per_s_avg: avg(|s| s.questions_per_s),
        transactions_per_s_avg: avg(|s| s.transactions_per_s),
        hit_rate_pct: hit_rate(sum(|s| s.bp_reads), sum(|s| s.bp_read_requests)),
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

/// One entry per device seen in the step, in the order they first appear.
fn disk_figures(points: &[&OsPoint]) -> Vec<DiskFigures> {
    let mut names: Vec<String> = Vec::new();
    for p in points {
        for d in &p.sample.disks {
            if !names.contains(&d.name) {
                names.push(d.name.clone());
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let rows: Vec<_> = points
                .iter()
                .filter_map(|p| p.sample.disks.iter().find(|d| d.name == name))
                .collect();
            let avg = |f: fn(&DiskRates) -> f64| mean(rows.iter().map(|d| f(d))).unwrap_or(0.0);
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
        .collect()
}
