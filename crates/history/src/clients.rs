//! Steps run from several load clients: each client's share as rows of `step_clients`
//! (for SQL and listings; `result_json` keeps the whole `ClientStep`, per-second
//! records included, and is what a loaded run's `StepResult.clients` comes from), and
//! the lines `runs show` prints under such a step.

use dbdyno_engine::{ClientStep, StepResult};
use serde::Serialize;
use sqlx::Row;

use crate::{History, HistoryError};

/// One load client's share of one step, as `step_clients` stores it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientRow {
    pub step_index: u32,
    pub client: String,
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    pub latency_pct_ms: f64,
    pub transactions: u64,
    pub errors: u64,
    pub reconnects: u64,
    /// The load generator's CPU as a share of that machine's cores, in percent.
    pub client_cpu_pct: f64,
    pub client_bound: bool,
    pub lost_after_s: Option<f64>,
    pub lost_reason: Option<String>,
}

impl History {
    /// The per-client rows of run `run_id`, by step then client; empty for a run from
    /// this machine alone.
    pub async fn client_rows(&self, run_id: i64) -> Result<Vec<ClientRow>, HistoryError> {
        let rows = sqlx::query(
            "SELECT step_index, client, threads, tps, qps, latency_pct_ms, transactions, errors,
                    reconnects, client_cpu_pct, client_bound, lost_after_s, lost_reason
             FROM step_clients WHERE run_id = ? ORDER BY step_index, client",
        )
        .bind(run_id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(ClientRow {
                    step_index: r.try_get::<i64, _>("step_index")? as u32,
                    client: r.try_get("client")?,
                    threads: r.try_get::<i64, _>("threads")? as u32,
                    tps: r.try_get("tps")?,
                    qps: r.try_get("qps")?,
                    latency_pct_ms: r.try_get("latency_pct_ms")?,
                    transactions: r.try_get::<i64, _>("transactions")? as u64,
                    errors: r.try_get::<i64, _>("errors")? as u64,
                    reconnects: r.try_get::<i64, _>("reconnects")? as u64,
                    client_cpu_pct: r.try_get("client_cpu_pct")?,
                    client_bound: r.try_get("client_bound")?,
                    lost_after_s: r.try_get("lost_after_s")?,
                    lost_reason: r.try_get("lost_reason")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(HistoryError::from)
    }
}

/// The clients of a step that were lost during it: such a step is partial.
pub fn lost_clients(r: &StepResult) -> impl Iterator<Item = &ClientStep> {
    r.clients.iter().filter(|c| c.lost.is_some())
}

/// What the step's heading adds when a load client was lost during it.
pub fn partial_mark(r: &StepResult) -> &'static str {
    if lost_clients(r).next().is_some() {
        " (partial: a load client was lost)"
    } else {
        ""
    }
}

/// What `runs show` prints under a step run from several clients: one line per client,
/// then the clients lost during the step. Empty for a step from this machine alone.
pub fn clients_text(r: &StepResult) -> String {
    if r.clients.is_empty() {
        return String::new();
    }
    let pct = r.percentile;
    let mut s = format!(
        "Load clients ({}, merged above):\n    {:<32} {:>7} {:>12} {:>12} {:>10} {:>11}  flags\n",
        r.clients.len(),
        "client",
        "threads",
        "tps",
        "qps",
        format!("p{pct} ms"),
        "client CPU"
    );
    for c in &r.clients {
        let mut flags = Vec::new();
        if c.client_bound {
            flags.push("client-bound".to_string());
        }
        if let Some(l) = &c.lost {
            flags.push(format!("lost at {:.1} s", l.after_s));
        }
        s.push_str(&format!(
            "    {:<32} {:>7} {:>12.2} {:>12.2} {:>10.2} {:>10.1}%  {}\n",
            c.client,
            c.threads,
            c.tps,
            c.qps,
            c.latency_pct_ms,
            c.client_cpu.percent_of_machine,
            flags.join(", ")
        ));
    }
    for c in lost_clients(r) {
        let l = c.lost.as_ref().expect("filtered on lost");
        s.push_str(&format!(
            "Partial step: {} was lost {:.1} s into the measured window ({}); \
             the figures above are what the clients recorded until then\n",
            c.client, l.after_s, l.reason
        ));
    }
    s.push('\n');
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use dbdyno_engine::results::ClientCpu;
    use dbdyno_engine::{ClientLost, ClientStep};

    use super::*;

    /// Two clients' shares of `r`, the second lost 12.5 s in and client-bound.
    pub(crate) fn with_two_clients(mut r: StepResult) -> StepResult {
        let share = |client: &str, threads: u32, tps: f64| ClientStep {
            client: client.into(),
            threads,
            transactions: (tps * 10.0) as u64,
            ignored_errors: 1,
            reconnects: 0,
            tps,
            qps: tps * 10.0,
            latency_pct_ms: 2.5,
            client_cpu: ClientCpu {
                percent_of_machine: 35.0,
                cores: 4,
                ..Default::default()
            },
            ..Default::default()
        };
        let mut lost = share("ssh://bench@c2:22", 3, 400.0);
        lost.client_bound = true;
        lost.client_cpu.percent_of_machine = 92.0;
        lost.lost = Some(ClientLost {
            after_s: 12.5,
            reason: "the SSH connection closed".into(),
        });
        r.clients = vec![share("local", 4, 600.0), lost];
        r
    }

    #[test]
    fn a_step_from_one_machine_prints_no_client_lines() {
        let r = crate::tests::step_for_tests();
        assert_eq!(clients_text(&r), "");
    }

    #[test]
    fn each_client_is_a_line_and_a_lost_one_names_the_partial_step() {
        let r = with_two_clients(crate::tests::step_for_tests());
        let t = clients_text(&r);
        assert!(t.starts_with("Load clients (2, merged above):"), "{t}");
        let local = t.lines().find(|l| l.contains("local")).unwrap();
        assert!(local.contains("600.00") && local.contains("35.0%"), "{t}");
        let lost = t
            .lines()
            .find(|l| l.trim_start().starts_with("ssh://bench@c2:22"))
            .unwrap();
        assert!(
            lost.ends_with("client-bound, lost at 12.5 s"),
            "flags: {lost}"
        );
        assert!(
            t.contains("Partial step: ssh://bench@c2:22 was lost 12.5 s into the measured window (the SSH connection closed)"),
            "{t}"
        );
    }
}
