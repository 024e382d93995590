//! What a report reads: one [`ReportRun`] per environment (or per before/after run).
//!
//! These are plain serde records owned by this crate: [`from_history::report_run`] reads
//! a run of the history, [`results_doc`] reads the `--json` file of `dbdyno run` /
//! `dbdyno ladder`; both go through [`results_doc::assemble`], which fills
//! [`EnvironmentFacts`] and [`ServerFigures`] from the checks crate's `monitoring` record.
//!
//! Every fact is optional: a report says "—" (and warns where it matters) rather than
//! refusing to render because a figure was not collected.
//!
//! Non-goal: validating that the runs are comparable. That is analysis, done by the model,
//! which warns about it.

use std::collections::BTreeMap;

use dbdyno_engine::{Plan, StepResult};
use serde::{Deserialize, Serialize};

pub mod from_history;
pub mod results_doc;

/// One benchmark run on one environment: what the report compares.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportRun {
    /// Stable identifier (history id, or the results file's name); `--baseline` names it.
    pub id: String,
    /// What people call the environment ("idc", "华为云", "after innodb_io_capacity=4000").
    pub env_name: String,
    /// Free-form labels (instance type, ticket, change under test).
    #[serde(default)]
    pub labels: BTreeMap<String, String>,
    /// Unix milliseconds when the run started and finished (UTC).
    #[serde(default)]
    pub started_at: Option<i64>,
    #[serde(default)]
    pub finished_at: Option<i64>,
    /// "finished", "cancelled" or "failed" (free text from the history).
    #[serde(default)]
    pub state: Option<String>,
    /// The command that produced the run, as typed, when known.
    #[serde(default)]
    pub command_line: Option<String>,
    /// DB Dyno version that ran it.
    #[serde(default)]
    pub tool_version: Option<String>,
    /// The engine's plan as stored with the run; None for a run imported from
    /// sysbench's output, or one whose plan this version cannot read.
    #[serde(default)]
    pub plan: Option<Plan>,
    #[serde(default)]
    pub environment: EnvironmentFacts,
    #[serde(default)]
    pub steps: Vec<ReportStep>,
    /// Warnings recorded while the run happened (sampler gaps, server restarts, ...).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The facts of the server (and client) a run measured. All optional. Sizes (`*_gb`)
/// are binary: GiB, 2^30 bytes, as the server counts its buffer pool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnvironmentFacts {
    pub cpu_model: Option<String>,
    pub cores: Option<u32>,
    pub memory_gb: Option<f64>,
    pub kernel: Option<String>,
    /// Block device holding the data directory, with its kind ("nvme0n1 (NVMe SSD)").
    pub data_disk: Option<String>,
    pub disk_size_gb: Option<f64>,
    pub mysql_version: Option<String>,
    /// "MySQL", "MariaDB", "Percona Server", ...
    pub flavour: Option<String>,
    pub buffer_pool_gb: Option<f64>,
    pub flush_log_at_trx_commit: Option<u32>,
    pub sync_binlog: Option<u32>,
    pub log_bin: Option<bool>,
    pub max_connections: Option<u32>,
    /// Estimated size of the benchmark tables (data + indexes).
    pub dataset_gb_estimate: Option<f64>,
    /// Whether the buffer pool was prewarmed before the first measured step.
    pub prewarm_done: Option<bool>,
    /// Cores of the load-generating client.
    pub client_cores: Option<u32>,
    /// Any further facts worth a row in the environment table (name → value).
    pub extra: BTreeMap<String, String>,
}

/// One measured step and what the server did meanwhile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportStep {
    pub result: StepResult,
    #[serde(default)]
    pub server: Option<ServerFigures>,
    #[serde(default)]
    pub mysql: Option<MysqlFigures>,
}

/// Server CPU and disk figures aligned to a step's measured window (seed 000's tsar slice).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerFigures {
    /// Busy CPU in percent of all server cores (100 = every core busy).
    pub cpu_pct_avg: f64,
    pub cpu_pct_max: f64,
    pub iowait_pct_avg: Option<f64>,
    /// Utilisation of the data disk in percent (iostat's %util).
    pub disk_util_pct_avg: f64,
    pub disk_util_pct_max: f64,
    /// Seconds sampled inside the window, and seconds the window lasted.
    pub samples: u32,
    pub expected_samples: u32,
    pub per_second: Vec<ServerSecond>,
}

/// One server sample, `t_s` seconds after the step's measurement started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerSecond {
    pub t_s: f64,
    pub cpu_pct: f64,
    pub disk_util_pct: f64,
    /// Data disk reads and writes per second.
    pub r_s: f64,
    pub w_s: f64,
}

/// MySQL status figures over a step's window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MysqlFigures {
    /// Buffer pool hit rate over the window, in percent.
    pub hit_rate_pct: Option<f64>,
    /// Innodb_row_lock_waits during the window.
    pub row_lock_waits: Option<u64>,
    /// Innodb_row_lock_time during the window, in milliseconds.
    pub row_lock_time_ms: Option<f64>,
    /// Highest Threads_running sampled.
    pub threads_running_max: Option<u32>,
}

impl ReportRun {
    /// The run's own label for messages: its environment name, or its id.
    pub fn label(&self) -> &str {
        if self.env_name.trim().is_empty() {
            &self.id
        } else {
            &self.env_name
        }
    }
}

/// Names runs that share an environment apart: "lab #7" and "lab #9" (the run's id
/// appended), so that curves, matrix rows and legends of a comparison of two runs of one
/// environment can be told apart. Names used once are left as they are.
pub fn name_apart(runs: &mut [ReportRun]) {
    let names: Vec<String> = runs.iter().map(|r| r.label().to_string()).collect();
    for (i, r) in runs.iter_mut().enumerate() {
        if names.iter().filter(|n| **n == names[i]).count() > 1 {
            r.env_name = format!("{} #{}", names[i], r.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, env: &str) -> ReportRun {
        ReportRun {
            id: id.into(),
            env_name: env.into(),
            labels: BTreeMap::new(),
            started_at: None,
            finished_at: None,
            state: None,
            command_line: None,
            tool_version: None,
            plan: None,
            environment: EnvironmentFacts::default(),
            steps: Vec::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn runs_of_one_environment_get_their_ids_and_others_keep_their_names() {
        let mut runs = vec![
            run("7", "lab"),
            run("8", "idc"),
            run("9", "lab"),
            run("10", ""),
        ];
        name_apart(&mut runs);
        let names: Vec<&str> = runs.iter().map(|r| r.env_name.as_str()).collect();
        assert_eq!(names, ["lab #7", "idc", "lab #9", ""]);
        // Two runs of one environment and nothing else: both carry their ids.
        let mut same = vec![run("1", "e2e"), run("2", "e2e")];
        name_apart(&mut same);
        assert_eq!((same[0].label(), same[1].label()), ("e2e #1", "e2e #2"));
    }
}
