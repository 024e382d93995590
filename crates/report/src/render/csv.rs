//! The performance matrix as CSV (RFC 4180): one row per environment × scenario × thread
//! count, with each figure's 95% interval, the Δ% against the baseline with its 95%
//! interval, the noise width and the verdict. Numbers are plain (a dot for the decimal
//! point, no thousands separators) so that spreadsheets read them as numbers; a figure
//! without an interval leaves its bounds empty. With TPC-C figures, a tpcc step's row is
//! followed by one row per transaction type ([`TPCC_HEADER`]).

use dbdyno_stats::Judgement;

use crate::model::load_clients::ClientShare;
use crate::model::noise::Spread;
use crate::model::tpcc::TpccSection;
use crate::model::{Cell, DeltaRow, Report};

pub const HEADER: [&str; 40] = [
    "run_id",
    "environment",
    "baseline",
    "scenario",
    "threads",
    // "closed loop" or "open loop at 500/s": how the step drove its load (`threads` is
    // then the connections it opened).
    "mode",
    "tps",
    "qps",
    "p95_ms",
    "p99_ms",
    "cpu_pct",
    "disk_util_pct",
    "samples",
    "expected_samples",
    "errors",
    "reconnects",
    "qps_per_cpu",
    "delta_tps_pct",
    "delta_qps_pct",
    "delta_p95_pct",
    "delta_p99_pct",
    "delta_cpu_pct",
    "tps_ci_lower",
    "tps_ci_upper",
    "qps_ci_lower",
    "qps_ci_upper",
    "p95_ci_lower_ms",
    "p95_ci_upper_ms",
    "p99_ci_lower_ms",
    "p99_ci_upper_ms",
    "delta_tps_lower_pct",
    "delta_tps_upper_pct",
    "delta_qps_lower_pct",
    "delta_qps_upper_pct",
    "delta_p95_lower_pct",
    "delta_p95_upper_pct",
    "delta_p99_lower_pct",
    "delta_p99_upper_pct",
    "noise_pct",
    "verdict",
];

pub fn render(r: &Report) -> String {
    let mut out = String::new();
    out.push_str(&HEADER.join(","));
    if r.capacity.is_some() {
        out.push(',');
        out.push_str(&SLA_HEADER.join(","));
    }
    if let Some(h) = &r.hardware {
        out.push(',');
        out.push_str(&h.csv_header().join(","));
    }
    let with_clients = r.appendix.iter().any(|a| !a.clients.is_empty());
    if with_clients {
        out.push(',');
        out.push_str(&CLIENT_HEADER.join(","));
    }
    if r.tpcc.is_some() {
        out.push(',');
        out.push_str(&TPCC_HEADER.join(","));
    }
    out.push_str("\r\n");
    let baseline_name = r
        .baseline
        .map(|b| r.env_name(b).to_string())
        .unwrap_or_default();
    for s in &r.scenarios {
        for e in &s.envs {
            let env = &r.envs[e.env];
            let cmp = s.comparisons.iter().find(|c| c.env == e.env);
            for (i, cell) in e.cells.iter().enumerate() {
                let Some(c) = cell else { continue };
                let d = cmp.map(|c| &c.rows[i]);
                let mut row = row(
                    &env.run_id,
                    &env.name,
                    &baseline_name,
                    s.scenario.name(),
                    c,
                    d,
                );
                if let Some(capacity) = &r.capacity {
                    row.extend(sla_fields(capacity, s.scenario, e.env, c.threads));
                }
                if let Some(h) = &r.hardware {
                    row.extend(h.csv_fields(e.env));
                }
                let shares: Vec<&ClientShare> = r
                    .appendix
                    .iter()
                    .filter(|a| a.run_id == env.run_id)
                    .flat_map(|a| &a.clients)
                    .filter(|x| x.scenario == s.scenario.name() && x.step_threads == c.threads)
                    .collect();
                if with_clients {
                    row.extend(merged_client_fields(&shares));
                }
                let lead = row.len() - if with_clients { CLIENT_HEADER.len() } else { 0 };
                let tpcc_rows = r.tpcc.as_ref().map(|t| {
                    let (step, txns) = tpcc_fields(t, s.scenario, e.env, c.threads);
                    row.extend(step);
                    txns
                });
                push_row(&mut out, &row);
                for share in shares {
                    // The client's own figures where the matrix has a column for them;
                    // everything else (intervals, deltas, verdicts) is the merged step's.
                    let mut own = vec![String::new(); lead];
                    own[..6].clone_from_slice(&row[..6]);
                    own[6] = format!("{:.4}", share.tps);
                    own[7] = format!("{:.4}", share.qps);
                    own.extend(client_fields(share));
                    own.resize(row.len(), String::new());
                    push_row(&mut out, &own);
                }
                // One row per transaction type after its step's row: the step's names,
                // then only the transaction's own columns.
                for txn in tpcc_rows.into_iter().flatten() {
                    let mut own = vec![String::new(); row.len() - txn.len()];
                    own[..6].clone_from_slice(&row[..6]);
                    own.extend(txn);
                    push_row(&mut out, &own);
                }
            }
        }
    }
    out
}

/// Columns added when a run of the report was driven from several load clients: the
/// step's row says `merged` and is followed by one row per client, whose `tps` and
/// `qps` are that client's share.
pub const CLIENT_HEADER: [&str; 5] = [
    "client",
    "client_threads",
    "client_latency_pct_ms",
    "client_cpu_pct",
    "client_flags",
];

/// Columns added when a run of the report has TPC-C figures: tpmC, NOPM and Δ tpmC on
/// a tpcc step's row (empty on other scenarios'), then the per-transaction columns, filled
/// on the rows that follow the step's, one per transaction type.
pub const TPCC_HEADER: [&str; 10] = [
    "tpmc",
    "nopm",
    "delta_tpmc_pct",
    "tpcc_transaction",
    "tpcc_count",
    "tpcc_per_s",
    "tpcc_p95_ms",
    "tpcc_p99_ms",
    "tpcc_rollbacks",
    "tpcc_deadlocks",
];

/// A step's TPC-C columns, and the rows of its transaction types (each only its own
/// columns, the last seven of [`TPCC_HEADER`]).
fn tpcc_fields(
    t: &TpccSection,
    scenario: dbdyno_engine::Scenario,
    env: usize,
    threads: u32,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut step = vec![String::new(); TPCC_HEADER.len()];
    if scenario != dbdyno_engine::Scenario::Tpcc {
        return (step, Vec::new());
    }
    let opt = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_default();
    if let Some(p) = t.point(env, threads) {
        step[0] = format!("{:.4}", p.tpmc);
        step[1] = format!("{:.4}", p.nopm);
    }
    step[2] = opt(t.delta(env, threads).and_then(|d| d.delta_pct));
    let txns = t
        .transactions
        .iter()
        .filter(|x| x.env == env && x.threads == threads)
        .map(|x| {
            vec![
                x.transaction.clone(),
                x.count.to_string(),
                format!("{:.4}", x.per_s),
                opt(x.p95_ms),
                opt(x.p99_ms),
                x.rollbacks.to_string(),
                x.deadlocks.to_string(),
            ]
        })
        .collect();
    (step, txns)
}

fn merged_client_fields(shares: &[&ClientShare]) -> Vec<String> {
    let mut f = vec![String::new(); CLIENT_HEADER.len()];
    if !shares.is_empty() {
        f[0] = "merged".into();
        if shares.iter().any(|s| s.lost_after_s.is_some()) {
            f[4] = "partial".into();
        }
    }
    f
}

fn client_fields(s: &ClientShare) -> Vec<String> {
    vec![
        s.client.clone(),
        s.threads.to_string(),
        format!("{:.4}", s.latency_pct_ms),
        format!("{:.4}", s.client_cpu_pct),
        s.flags(),
    ]
}

fn push_row(out: &mut String, row: &[String]) {
    out.push_str(&row.iter().map(|f| quote(f)).collect::<Vec<_>>().join(","));
    out.push_str("\r\n");
}

/// Columns added when the report has a latency target (`--sla`): the target, where the
/// step stands against it, the upper end of its percentile's interval, and `yes` on
/// the step that sets the capacity.
pub const SLA_HEADER: [&str; 4] = ["sla", "sla_standing", "sla_upper_ms", "sla_capacity"];

fn sla_fields(
    capacity: &crate::model::capacity::CapacityReport,
    scenario: dbdyno_engine::Scenario,
    env: usize,
    threads: u32,
) -> Vec<String> {
    let e = capacity
        .scenarios
        .iter()
        .find(|s| s.scenario == scenario)
        .and_then(|s| s.envs.iter().find(|e| e.env == env));
    let step = e.and_then(|e| {
        e.steps
            .iter()
            .find(|s| s.threads == threads && !s.cancelled)
    });
    let standing = step.map(|s| match s.sla.standing {
        dbdyno_engine::sla::SlaStanding::Within => "within",
        dbdyno_engine::sla::SlaStanding::Beyond => "beyond",
        dbdyno_engine::sla::SlaStanding::Unknown => "unknown",
    });
    let is_capacity = e
        .and_then(|e| e.capacity.as_ref())
        .is_some_and(|c| c.threads == threads);
    vec![
        capacity.target.to_string(),
        standing.unwrap_or_default().to_string(),
        step.and_then(|s| s.sla.upper_ms)
            .map(|v| format!("{v:.4}"))
            .unwrap_or_default(),
        if is_capacity { "yes" } else { "" }.to_string(),
    ]
}

fn row(
    run_id: &str,
    env: &str,
    baseline: &str,
    scenario: &str,
    c: &Cell,
    d: Option<&DeltaRow>,
) -> Vec<String> {
    let f = |v: f64| format!("{v:.4}");
    let of = |v: Option<f64>| v.map(f).unwrap_or_default();
    let ou = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_default();
    let ci = |s: &Spread| match s {
        Spread::Estimated(e) => e.interval.map(|i| (i.lower, i.upper)),
        Spread::NoSeries { .. } => None,
    };
    let j = d.and_then(|d| d.judged.as_ref());
    let delta = |pick: fn(&crate::model::noise::CellJudgement) -> Option<&Judgement>| {
        j.and_then(pick).and_then(|j| j.delta.bounds_pct())
    };
    let mut bounds = Vec::with_capacity(16);
    let i = &c.intervals;
    for b in [ci(&i.tps), ci(&i.qps), ci(&i.p95), ci(&i.p99)]
        .into_iter()
        .chain([
            delta(|j| Some(&j.tps)),
            delta(|j| Some(&j.qps)),
            delta(|j| j.p95.as_ref()),
            delta(|j| j.p99.as_ref()),
        ])
    {
        bounds.push(of(b.map(|b| b.0)));
        bounds.push(of(b.map(|b| b.1)));
    }
    let mut row = vec![
        run_id.to_string(),
        env.to_string(),
        baseline.to_string(),
        scenario.to_string(),
        c.threads.to_string(),
        c.mode(),
        f(c.tps),
        f(c.qps),
        of(c.p95_ms),
        of(c.p99_ms),
        of(c.cpu_pct),
        of(c.disk_util_pct),
        ou(c.samples),
        ou(c.expected_samples),
        c.errors.to_string(),
        c.reconnects.to_string(),
        of(c.qps_per_cpu),
        of(d.and_then(|d| d.tps_pct)),
        of(d.and_then(|d| d.qps_pct)),
        of(d.and_then(|d| d.p95_pct)),
        of(d.and_then(|d| d.p99_pct)),
        of(d.and_then(|d| d.cpu_pct)),
    ];
    row.extend(bounds);
    row.push(of(d.and_then(|d| d.noise_pct)));
    // A cancelled step says so whether or not there is a baseline.
    row.push(match d {
        Some(d) => d.verdict_label().to_string(),
        None if c.cancelled => super::side::CANCELLED.to_string(),
        None => String::new(),
    });
    row
}

/// Quotes a field when it holds a comma, a quote or a line break; doubles inner quotes.
/// A leading `=`, `+`, `-` or `@` in a text field is prefixed with `'` so that a
/// spreadsheet does not run an environment name as a formula.
pub fn quote(field: &str) -> String {
    let numeric = field.parse::<f64>().is_ok();
    let field = if !numeric && field.starts_with(['=', '+', '-', '@']) {
        format!("'{field}")
    } else {
        field.to_string()
    };
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field
    }
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn fields_are_quoted_when_needed() {
        assert_eq!(quote("idc"), "idc");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("=cmd()"), "'=cmd()");
        assert_eq!(quote("-12.5"), "-12.5");
    }
}
