//! What the app's Run screen receives through its channel, at most four times a
//! second: a snapshot of the run, with only the chart points that are new since the
//! last one. With the `specta` feature the types describe themselves to the app's
//! TypeScript bindings.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    CoolingDown,
    Cancelling,
    Complete,
    /// Ran to its end past steps that failed (`--on-step-error=continue`).
    Partial,
    Cancelled,
    Failed,
}

impl RunStatus {
    pub fn is_final(self) -> bool {
        matches!(
            self,
            RunStatus::Complete | RunStatus::Partial | RunStatus::Cancelled | RunStatus::Failed
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pending,
    Running,
    Done,
    /// Cut short by Cancel: kept, and flagged.
    Cancelled,
    /// Never started (the run was cancelled or failed before it).
    Skipped,
    /// Failed and not measured while the ladder went on (`--on-step-error=continue`):
    /// [`StepRow::failure`] says why.
    Failed,
}

/// One interval of the engine (one second by default), on the run's clock.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LivePoint {
    /// Seconds since the run started, at the end of the interval.
    pub t_s: f64,
    pub step: u32,
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    /// Latency at the plan's percentile (p95 by default), ms.
    pub latency_ms: f64,
    pub errors_ps: f64,
    pub reconnects_ps: f64,
}

/// One sample of the server's OS, at the end of its interval on this machine's clock
/// (the same instant the step figures use). A point with no values marks a time without
/// samples (a lost SSH connection), so the chart breaks there instead of bridging it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ServerPoint {
    pub t_s: f64,
    /// Busy CPU of the server, percent of all its cores.
    pub cpu_pct: Option<f64>,
    /// Utilisation of the data disk (iostat's %util).
    pub disk_util_pct: Option<f64>,
}

/// One second of this app's CPU (the load generator), a series of its own: its
/// readings are taken on another beat than the server's samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ClientPoint {
    pub t_s: f64,
    /// Percent of all client cores.
    pub cpu_pct: f64,
}

/// One MySQL status sample (`SHOW GLOBAL STATUS` deltas, the sampler's own excluded).
/// No values: a time without samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct MysqlPoint {
    pub t_s: f64,
    /// Statements per second as the server counted them (`Questions`).
    pub qps: Option<f64>,
    /// Commits and rollbacks per second (`Com_commit + Com_rollback`).
    pub tps: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StepRow {
    pub index: u32,
    pub scenario: String,
    pub threads: u32,
    pub status: StepStatus,
    pub tps: Option<f64>,
    pub qps: Option<f64>,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub avg_ms: Option<f64>,
    pub errors: Option<f64>,
    pub reconnects: Option<f64>,
    /// Throughput of the steady part of the step, when one was found.
    pub steady_tps: Option<f64>,
    /// A finished tpcc step's tpmC (New-Orders per minute, the ones rolled back by
    /// design included) and NOPM (committed New-Orders per minute), as the engine
    /// counted them; None for other scenarios.
    pub tpmc: Option<f64>,
    pub nopm: Option<f64>,
    pub client_cpu_pct: Option<f64>,
    /// "repeat 2/3" for a repeated step (`--repeat`); None for a single run.
    pub repeat: Option<String>,
    /// "open loop at 500/s" for a step of a rate ladder; None for a closed loop (threads
    /// running flat out, the usual case).
    pub mode: Option<String>,
    /// True for a step the capacity search added after the ladder.
    pub sla_search: bool,
    /// A finished step's intervals, steadiness, latency-target mark and kept rate.
    pub noise: Option<super::StepNoise>,
    /// Why a failed step failed: "8 of 16 connections opened: ...".
    pub failure: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(rename_all = "snake_case")]
pub enum LogLevel {
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct LogLine {
    pub t_s: f64,
    pub level: LogLevel,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct PrepareProgress {
    pub rows_done: f64,
    pub rows_total: f64,
    /// rows_done of rows_total, in percent.
    pub pct: f64,
    /// Rows a second since the load began.
    pub rows_per_s: f64,
    /// Seconds until the last row at that rate; None before the first row is in.
    /// The indexes built after the last row are not in it.
    pub eta_s: Option<f64>,
}

impl PrepareProgress {
    /// The progress of a load `elapsed_s` seconds in.
    pub fn at(rows_done: u64, rows_total: u64, elapsed_s: f64) -> PrepareProgress {
        let rows_per_s = if elapsed_s > 0.0 {
            rows_done as f64 / elapsed_s
        } else {
            0.0
        };
        PrepareProgress {
            rows_done: rows_done as f64,
            rows_total: rows_total as f64,
            pct: if rows_total > 0 {
                100.0 * rows_done as f64 / rows_total as f64
            } else {
                100.0
            },
            rows_per_s,
            eta_s: (rows_per_s > 0.0)
                .then(|| rows_total.saturating_sub(rows_done) as f64 / rows_per_s),
        }
    }
}

/// A step's connections while they open, so that a slow ramp (a thousand threads, a
/// server coming back from a restart) shows as progress, not as a frozen screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ConnectingProgress {
    pub opened: u32,
    pub threads: u32,
    /// Attempts that failed and were tried again (server restarting, queue full).
    pub retries: f64,
    pub elapsed_s: f64,
}

/// The server answers no connection of the running step (a frozen host, a cut network
/// path): how long so far, and the stall timeout at which the step fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SilenceBanner {
    /// When the silence began (Unix ms, this machine's clock).
    pub since_unix_ms: f64,
    pub silent_s: f64,
    pub stall_timeout_s: f64,
    /// "server silent since 02:10:03.412 UTC: no answer for 5 s (the step fails after
    /// 30 s of silence, --stall-timeout)", as the CLI prints it.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct RunSnapshot {
    /// The run's id in the history (None when the history could not be written).
    pub run_id: Option<u32>,
    pub env: String,
    pub status: RunStatus,
    pub phase_label: String,
    /// Phase number from 1, and how many there are.
    pub phase_number: u32,
    pub phase_count: u32,
    pub elapsed_s: f64,
    /// Share of the planned time done, 0..=100.
    pub progress_pct: f64,
    /// Seconds left by the plan (prepare and prewarm not counted until they end).
    pub eta_s: Option<f64>,
    pub current_step: Option<u32>,
    pub step_elapsed_s: Option<f64>,
    pub step_planned_s: Option<f64>,
    pub cooldown_left_s: Option<f64>,
    pub prepare: Option<PrepareProgress>,
    /// Set while the current step's connections open.
    pub connecting: Option<ConnectingProgress>,
    /// Set while the server answers no connection of the step.
    pub silence: Option<SilenceBanner>,
    /// Chart points new since the previous snapshot, one series each: the engine's
    /// intervals, the server's OS samples, this client's CPU, MySQL's status samples.
    pub points: Vec<LivePoint>,
    pub server: Vec<ServerPoint>,
    pub client: Vec<ClientPoint>,
    pub mysql: Vec<MysqlPoint>,
    /// The whole step table.
    pub steps: Vec<StepRow>,
    /// Log lines new since the previous snapshot.
    pub log: Vec<LogLine>,
    pub errors_total: f64,
    pub reconnects_total: f64,
    pub failure: Option<String>,
    /// "1 step failed and was not measured; the others ran", once a step has failed.
    pub failed_steps_note: Option<String>,
    /// What happened to the history record, when it is worth saying.
    pub history_note: Option<String>,
    /// At the end of a run the history did not fully take: the CLI's last line ("NOT IN
    /// THE HISTORY: … dbdyno import results FILE"), word for word.
    pub not_in_history: Option<String>,
    /// The spill file holding that run's steps, when one was written.
    pub spill_file: Option<String>,
}
