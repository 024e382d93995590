//! The per-client appendix of a run whose steps were driven from several load clients
//! (`--clients`): each client's share of each such step, so that a reader sees who drove
//! what, which client was the limit and which was lost. The step's own figures in the
//! matrices are already the exact merge; these rows never enter a comparison.

use serde::{Deserialize, Serialize};

use crate::format;
use crate::input::ReportRun;

/// One load client's share of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientShare {
    pub scenario: String,
    /// The step's threads, all clients together.
    pub step_threads: u32,
    /// "repeat 2/3" for a repeated step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<String>,
    /// `local` or the client's `ssh://` URL.
    pub client: String,
    /// This client's share of the threads.
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    /// The step's percentile (95 for p95) and this client's latency at it, in ms.
    pub percentile: f64,
    pub latency_pct_ms: f64,
    /// The load generator's CPU as a share of that client machine, in percent.
    pub client_cpu_pct: f64,
    pub client_bound: bool,
    /// Seconds into the measured window when the client was lost, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_after_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost_reason: Option<String>,
}

impl ClientShare {
    /// `oltp_read_only@32` (with its repeat): the step, as the warnings name steps.
    pub fn step(&self) -> String {
        match &self.repeat {
            Some(r) => format!("{}@{} ({r})", self.scenario, self.step_threads),
            None => format!("{}@{}", self.scenario, self.step_threads),
        }
    }

    /// "client-bound, lost at 12.5 s", or "" for a client that kept up.
    pub fn flags(&self) -> String {
        let mut f = Vec::new();
        if self.client_bound {
            f.push("client-bound".to_string());
        }
        if let Some(s) = self.lost_after_s {
            f.push(format!("lost at {s:.1} s"));
        }
        f.join(", ")
    }

    /// The latency column's header for these rows: `p95 (ms)`.
    pub fn latency_header(&self) -> String {
        format!("p{} (ms)", self.percentile)
    }
}

/// Every client share of every multi-client step of `run`, in step order; empty for a
/// run from one machine.
pub fn shares(run: &ReportRun) -> Vec<ClientShare> {
    run.steps
        .iter()
        .flat_map(|s| {
            let r = &s.result;
            r.clients.iter().map(move |c| ClientShare {
                scenario: r.scenario.name().to_string(),
                step_threads: r.threads,
                repeat: r.repeat.label(),
                client: c.client.clone(),
                threads: c.threads,
                tps: c.tps,
                qps: c.qps,
                percentile: r.percentile,
                latency_pct_ms: c.latency_pct_ms,
                client_cpu_pct: c.client_cpu.percent_of_machine,
                client_bound: c.client_bound,
                lost_after_s: c.lost.as_ref().map(|l| l.after_s),
                lost_reason: c.lost.as_ref().map(|l| l.reason.clone()),
            })
        })
        .collect()
}

/// The column headers every renderer uses for the per-client table.
pub fn header(percentile_header: &str) -> [String; 7] {
    [
        "Step".into(),
        "Client".into(),
        "Threads".into(),
        "TPS".into(),
        "QPS".into(),
        percentile_header.to_string(),
        "Client CPU".into(),
    ]
}

/// One share as the renderers' text cells, in [`header`]'s order, then the flags.
pub fn cells(s: &ClientShare) -> [String; 8] {
    [
        s.step(),
        s.client.clone(),
        s.threads.to_string(),
        format!("{:.2}", s.tps),
        format!("{:.2}", s.qps),
        format!("{:.2}", s.latency_pct_ms),
        format::pct(s.client_cpu_pct),
        s.flags(),
    ]
}
