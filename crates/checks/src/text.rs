//! The checks as `dbdyno check` prints them (a heading, each check with what was seen
//! and, for a warning or failure, why and the fix, then the counts), and the short form
//! `run` and `ladder` print before they start.
//!
//! Non-goals: no printing; the app shows the same [`Check`]s on its Checks screen.

use dbdyno_engine::wording::count;
use dbdyno_engine::Plan;

use crate::{Check, CheckStatus, SuiteReport};

/// The whole report for `plan`, reaching the server's OS as `host` says.
pub fn report_text(r: &SuiteReport, plan: &Plan, host: &str) -> String {
    let mut threads: Vec<u32> = plan.steps().map(|s| s.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let threads: Vec<String> = threads.iter().map(|t| t.to_string()).collect();
    let mut scenarios: Vec<String> = plan.steps().map(|s| s.scenario.to_string()).collect();
    scenarios.dedup();
    let mut out = format!(
        "DB Dyno checks for {} (schema {}): {} at {} threads, {} × {} rows; server OS: {host}\n\n",
        plan.connect.endpoint(),
        plan.connect.database,
        scenarios.join(", "),
        threads.join(","),
        count(plan.workload.tables, "table"),
        plan.workload.table_size,
    );
    for c in &r.checks {
        out.push_str(&format!(
            "{:<5} {}  [{}]\n",
            c.status.to_string(),
            c.title,
            c.id
        ));
        out.push_str(&format!("      {}\n", c.seen));
        if matches!(c.status, CheckStatus::Warn | CheckStatus::Fail) {
            out.push_str(&format!("      why:  {}\n", c.why));
            if let Some(f) = &c.fix {
                out.push_str(&format!("      fix:  {}\n", f.text));
                if let Some(cmd) = &f.sql_or_command {
                    out.push_str(&format!("            {cmd}\n"));
                }
            }
            if let Some(a) = &c.action {
                out.push_str(&format!(
                    "      app:  `dbdyno check --fix` runs `{}`\n",
                    a.sql()
                ));
            }
        }
    }
    let count = |s: CheckStatus| r.checks.iter().filter(|c| c.status == s).count();
    out.push_str(&format!(
        "\n{} passed, {}, {} failed, {} skipped\n",
        count(CheckStatus::Pass),
        dbdyno_engine::wording::count(count(CheckStatus::Warn) as f64, "warning"),
        count(CheckStatus::Fail),
        count(CheckStatus::Skipped)
    ));
    out
}

/// Each check that warns or fails, in a line, and the fix of a failed one.
pub fn problem_lines(problems: &[Check]) -> Vec<String> {
    let mut out = Vec::new();
    for c in problems {
        out.push(format!(
            "{:<5} {}  [{}]: {}",
            c.status.to_string(),
            c.title,
            c.id,
            c.seen
        ));
        if let (CheckStatus::Fail, Some(f)) = (c.status, &c.fix) {
            out.push(match &f.sql_or_command {
                Some(cmd) => format!("      fix:  {}: {cmd}", f.text),
                None => format!("      fix:  {}", f.text),
            });
        }
    }
    out
}

/// Bytes as "1.5 GiB", binary units as the server and the kernel count them.
pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
