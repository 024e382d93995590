//! The report as Markdown, in the seed toolkit's shapes: `performance_report.md` for one
//! run and `mysql_sysbench.md` for a comparison (environment config table, performance
//! summary, delta analysis, latency comparison, executive summary, efficiency,
//! recommendations), plus DB Dyno's analysis, warnings and appendix.
//!
//! Every user-supplied string goes through [`esc`]: table pipes, Markdown emphasis and raw
//! HTML are neutralised, so an environment name cannot break a table or inject markup
//! into a Markdown viewer.

use std::fmt::Write as _;

use super::{capacity, side};
use crate::format;
use crate::model::{appendix, load_clients, tpcc, Report, Severity, Verdict};

/// Escapes text for Markdown tables and paragraphs.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' | '`' | '*' | '[' | ']' | '|' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".into())
}

pub fn render(r: &Report) -> String {
    let mut o = String::with_capacity(32 * 1024);
    let _ = writeln!(o, "# {}\n", esc(&r.title));
    let _ = writeln!(
        o,
        "_Generated {} by DB Dyno {}. Regression threshold: {}% (TPS drop or p95 rise, the whole 95% interval of Δ beyond it)._\n",
        format::datetime(r.generated_at_ms),
        esc(&r.tool_version),
        r.threshold_pct
    );

    let _ = writeln!(o, "## Executive summary\n");
    for s in &r.executive_summary {
        let _ = writeln!(o, "- {}", esc(s));
    }
    o.push('\n');
    let regressed = side::regressions(r);
    if !regressed.is_empty() {
        let _ = writeln!(
            o,
            "| Regressed | Scenario | Threads | Why |\n|---|---|---:|---|"
        );
        for g in regressed.iter().take(side::COVER_REGRESSIONS) {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} |",
                esc(&g.env),
                esc(&g.scenario),
                g.threads,
                esc(&g.why)
            );
        }
        if let Some(more) = side::more_regressions(regressed.len()) {
            let _ = writeln!(o, "\n_{}._", esc(&more));
        }
        o.push('\n');
    }

    capacity_md(&mut o, r);
    environments(&mut o, r);
    hardware_md(&mut o, r);
    matrix(&mut o, r);
    if r.baseline.is_some() {
        deltas(&mut o, r);
        latency(&mut o, r);
    }
    tpcc_md(&mut o, r);
    analysis(&mut o, r);
    if !r.warnings.is_empty() {
        let _ = writeln!(o, "## Warnings\n");
        for w in &r.warnings {
            let tag = match w.severity {
                Severity::Warning => "**Warning**",
                Severity::Note => "Note",
            };
            let _ = writeln!(o, "- {tag}: {}", esc(&w.text));
        }
        o.push('\n');
    }
    appendix_md(&mut o, r);
    o
}

/// With a latency target: the capacity table, right after the summary it leads.
fn capacity_md(o: &mut String, r: &Report) {
    let Some(c) = &r.capacity else { return };
    let _ = writeln!(o, "## {}\n", esc(&capacity::title(c)));
    let _ = writeln!(o, "_{}_\n", esc(&capacity::explanation(c)));
    let _ = writeln!(
        o,
        "| {} |\n|---|---|---:|---:|---:|---:|",
        capacity::HEADER.join(" | ")
    );
    for row in capacity::rows(r) {
        let cells: Vec<String> = row.iter().map(|c| esc(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    o.push('\n');
}

fn environments(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## Environment config\n");
    let _ = write!(o, "| Fact |");
    for e in &r.envs {
        let mark = if e.is_baseline && r.envs.len() > 1 {
            " (baseline)"
        } else {
            ""
        };
        let _ = write!(o, " {}{mark} |", esc(&e.name));
    }
    let _ = writeln!(o, "\n|---|{}", "---|".repeat(r.envs.len()));
    for row in &r.environment_table {
        let label = if row.differs {
            format!("**{}** ≠", esc(&row.label))
        } else {
            esc(&row.label)
        };
        let _ = write!(o, "| {label} |");
        for v in &row.values {
            let _ = write!(
                o,
                " {} |",
                v.as_deref().map(esc).unwrap_or_else(|| "—".into())
            );
        }
        o.push('\n');
    }
    if r.envs.len() > 1 {
        let _ = writeln!(o, "\nRows marked ≠ differ between environments.\n");
    } else {
        o.push('\n');
    }
}

/// The environments' hardware records (model::hardware), after their configuration.
fn hardware_md(o: &mut String, r: &Report) {
    let Some(h) = &r.hardware else {
        return;
    };
    let _ = writeln!(
        o,
        "## Server hardware\n\n{}\n",
        esc(h.note(r.envs.len() > 1))
    );
    let names: Vec<String> = r.envs.iter().map(|e| e.name.clone()).collect();
    for (i, row) in h.text_rows(&names).iter().enumerate() {
        let cells: Vec<String> = row.iter().map(|c| esc(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
        if i == 0 {
            let _ = writeln!(o, "|---|{}", "---:|".repeat(row.len() - 1));
        }
    }
    o.push('\n');
}

/// The side-by-side table (values, Δ% and verdicts against the baseline).
pub fn side_table(o: &mut String, t: &side::SideTable) {
    let _ = write!(o, "|");
    for c in &t.columns {
        let _ = write!(o, " {} |", esc(&c.title));
    }
    let _ = write!(o, "\n|");
    for c in &t.columns {
        o.push_str(if c.numeric { "---:|" } else { "---|" });
    }
    o.push('\n');
    for row in &t.rows {
        let _ = write!(o, "|");
        for f in row {
            let text = match f.tone {
                side::Tone::Regressed | side::Tone::Improved => format!("**{}**", esc(&f.text)),
                _ => esc(&f.text_with_range()),
            };
            match &f.note {
                Some(n) => {
                    let _ = write!(o, " {text}: {} |", esc(n));
                }
                None => {
                    let _ = write!(o, " {text} |");
                }
            }
        }
        o.push('\n');
    }
}

fn matrix(o: &mut String, r: &Report) {
    if r.baseline.is_some() {
        let _ = writeln!(
            o,
            "## Performance summary (side by side)\n\nTPS and p95 latency of each environment beside the baseline **{}**, with the change, its 95% interval in parentheses, and the verdict (threshold {}%).\n",
            esc(r.env_name(r.baseline.unwrap_or(0))),
            r.threshold_pct
        );
        for s in &r.scenarios {
            if let Some(t) = side::side_by_side(r, s) {
                let _ = writeln!(o, "### {}\n", s.scenario);
                side_table(o, &t);
                o.push('\n');
            }
        }
    }
    let _ = writeln!(
        o,
        "## {}\n",
        if r.baseline.is_some() {
            "Detail per environment"
        } else {
            "Performance summary"
        }
    );
    for s in &r.scenarios {
        let _ = writeln!(o, "### {}\n", s.scenario);
        let _ = writeln!(
            o,
            "| Environment | Threads | TPS | QPS | p95 ms | p99 ms | CPU % | Disk % | Samples | QPS/CPU% |"
        );
        let _ = writeln!(o, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for e in &s.envs {
            for c in e.present() {
                let samples = match (c.samples, c.expected_samples) {
                    (Some(a), Some(b)) => format!("{a}/{b}"),
                    (Some(a), None) => a.to_string(),
                    _ => "—".into(),
                };
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    esc(r.env_name(e.env)),
                    side::threads_label(c),
                    format::rate(c.tps),
                    format::rate(c.qps),
                    opt(c.p95_ms, format::ms),
                    opt(c.p99_ms, format::ms),
                    opt(c.cpu_pct, format::pct),
                    opt(c.disk_util_pct, format::pct),
                    samples,
                    opt(c.qps_per_cpu, |v| format::grouped(v, 0)),
                );
            }
        }
        o.push('\n');
    }
}

fn deltas(o: &mut String, r: &Report) {
    let base = r.env_name(r.baseline.unwrap_or(0));
    let _ = writeln!(
        o,
        "## Delta analysis\n\nAgainst the baseline **{}**, each Δ with its 95% interval in parentheses. A cell is REGRESSED when the whole interval of Δ TPS lies below −{1}% or that of Δ p95 above +{1}% (p95 changes under {2} ms never count), IMPROVED when it lies beyond {1}% on the better side, and within noise otherwise (± the noise's width); a cell without intervals is not judged.\n",
        esc(base),
        r.threshold_pct,
        r.latency_floor_ms
    );
    let _ = writeln!(
        o,
        "| Scenario | Environment | Threads | Δ TPS | Δ QPS | Δ p95 | Δ p99 | Δ CPU | Verdict |"
    );
    let _ = writeln!(o, "|---|---|---:|---:|---:|---:|---:|---:|---|");
    for s in &r.scenarios {
        for c in &s.comparisons {
            for d in &c.rows {
                let verdict = match (d.verdict, d.noise_pct) {
                    (Verdict::Regressed | Verdict::Improved, _) => {
                        format!("**{}**: {}", d.verdict_label(), esc(&d.reasons.join("; ")))
                    }
                    (Verdict::NotJudged, _) => {
                        format!("{}: {}", d.verdict_label(), esc(&d.reasons.join("; ")))
                    }
                    (Verdict::WithinNoise, Some(n)) => {
                        format!("{} (±{})", d.verdict_label(), format::pct_words(n))
                    }
                    _ => d.verdict_label().to_string(),
                };
                // Which interval each verdict rests on: one run's, or the repeats'.
                let verdict = match &d.interval_method {
                    Some(m) => format!("{verdict}; {}", esc(m)),
                    None => verdict,
                };
                let j = d.judged.as_ref();
                let with_range = |pct: Option<f64>, fig: Option<&dbdyno_stats::Judgement>| {
                    pct.map(|p| format::delta_with_range(p, fig.and_then(|f| f.delta.bounds_pct())))
                        .unwrap_or_else(|| "—".into())
                };
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    s.scenario,
                    esc(r.env_name(c.env)),
                    d.threads,
                    with_range(d.tps_pct, j.map(|j| &j.tps)),
                    with_range(d.qps_pct, j.map(|j| &j.qps)),
                    with_range(d.p95_pct, j.and_then(|j| j.p95.as_ref())),
                    with_range(d.p99_pct, j.and_then(|j| j.p99.as_ref())),
                    opt(d.cpu_pct, format::delta_pct),
                    verdict
                );
            }
        }
    }
    o.push('\n');
}

fn latency(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## Latency comparison (p95 ms)\n");
    let _ = write!(o, "| Scenario | Threads |");
    for e in &r.envs {
        let _ = write!(o, " {} |", esc(&e.name));
    }
    let _ = writeln!(o, "\n|---|---:|{}", "---:|".repeat(r.envs.len()));
    for s in &r.scenarios {
        for (i, t) in s.threads.iter().enumerate() {
            let _ = write!(o, "| {} | {} |", s.scenario, t);
            for e in &s.envs {
                let v = e.cells[i].as_ref().map(|c| {
                    let mark = if c.cancelled { " (cancelled)" } else { "" };
                    format!("{}{mark}", opt(c.p95_ms, format::ms))
                });
                let _ = write!(o, " {} |", v.unwrap_or_else(|| "—".into()));
            }
            o.push('\n');
        }
    }
    o.push('\n');
}

fn analysis(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## Analysis\n");
    if !r.headlines.is_empty() {
        let _ = writeln!(o, "### Headlines\n");
        for h in &r.headlines {
            let _ = writeln!(o, "- {}", esc(h));
        }
        o.push('\n');
    }
    knees_and_bottlenecks(o, r);
    efficiency(o, r);
    if !r.cold_starts.is_empty() {
        let _ = writeln!(o, "### Cold start\n");
        for c in &r.cold_starts {
            let _ = writeln!(o, "- {}", esc(&c.sentence));
        }
        o.push('\n');
    }
    if !r.trends.is_empty() {
        let _ = writeln!(o, "### Trends over time\n");
        for t in &r.trends {
            let _ = writeln!(o, "- {}", esc(&t.summary));
            for c in &t.changes {
                let _ = writeln!(o, "  - {}", esc(c));
            }
        }
        o.push('\n');
    }
    recommendations(o, r);
}

fn knees_and_bottlenecks(o: &mut String, r: &Report) {
    let _ = writeln!(o, "### Scaling, knee and bottleneck\n");
    let _ = writeln!(
        o,
        "| Scenario | Environment | Best threads | Bottleneck | Evidence |"
    );
    let _ = writeln!(o, "|---|---|---:|---|---|");
    for s in &r.scenarios {
        for e in &s.envs {
            if e.cells.iter().all(Option::is_none) {
                continue;
            }
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {}; {} |",
                s.scenario,
                esc(r.env_name(e.env)),
                e.knee
                    .best_threads
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "—".into()),
                e.bottleneck.class.label(),
                esc(&e.knee.evidence),
                esc(&e.bottleneck.evidence)
            );
        }
    }
    o.push('\n');
}

/// QPS per server CPU %, scenario × threads by environment.
fn efficiency(o: &mut String, r: &Report) {
    let _ = writeln!(o, "### Efficiency (QPS per server CPU %)\n");
    let any = r.scenarios.iter().any(|s| {
        s.envs
            .iter()
            .any(|e| e.present().any(|c| c.qps_per_cpu.is_some()))
    });
    if any {
        let _ = write!(o, "| Scenario | Threads |");
        for e in &r.envs {
            let _ = write!(o, " {} |", esc(&e.name));
        }
        let _ = writeln!(o, "\n|---|---:|{}", "---:|".repeat(r.envs.len()));
        for s in &r.scenarios {
            for (i, t) in s.threads.iter().enumerate() {
                let _ = write!(o, "| {} | {} |", s.scenario, t);
                for e in &s.envs {
                    let v = e.cells[i].as_ref().and_then(|c| c.qps_per_cpu);
                    let _ = write!(o, " {} |", opt(v, |v| format::grouped(v, 0)));
                }
                o.push('\n');
            }
        }
    } else {
        let _ = writeln!(o, "No server CPU figures were collected.");
    }
    o.push('\n');
}

/// Per scenario and environment: the thread count to run at and what to try next.
fn recommendations(o: &mut String, r: &Report) {
    let _ = writeln!(o, "### Recommendations\n");
    for s in &r.scenarios {
        for e in &s.envs {
            if e.cells.iter().all(Option::is_none) {
                continue;
            }
            let best = e
                .knee
                .best_threads
                .map(|t| format!("run it at about {}; ", format::threads(t)))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "- {} on {}: {best}{} ({}).",
                s.scenario,
                esc(r.env_name(e.env)),
                e.bottleneck.class.advice(),
                e.bottleneck.class.phrase()
            );
        }
    }
    o.push('\n');
}

fn appendix_md(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## Appendix: reproducing the runs\n");
    for a in &r.appendix {
        let _ = writeln!(o, "### {} (run {})\n", esc(&a.name), esc(&a.run_id));
        let _ = writeln!(o, "- When: {}", appendix::when(a));
        if let Some(s) = &a.state {
            let _ = writeln!(o, "- State: {}", esc(s));
        }
        if let Some(v) = &a.tool_version {
            let _ = writeln!(o, "- DB Dyno version: {}", esc(v));
        }
        for (k, v) in &a.settings {
            let _ = writeln!(o, "- {}: {}", esc(k), esc(v));
        }
        for (k, v) in &a.labels {
            let _ = writeln!(o, "- Label {}: {}", esc(k), esc(v));
        }
        clients_md(o, &a.clients);
        if let Some(c) = &a.command_line {
            let _ = writeln!(o, "\nRecorded command:\n\n{}", fenced("sh", c));
        }
        if let Some(c) = &a.reproduce {
            let _ = writeln!(
                o,
                "\nTo run it again (password from MYSQL_PWD or the prompt):\n\n{}",
                fenced("sh", c)
            );
        }
        let _ = writeln!(o, "\nPlan:\n\n{}", fenced("json", &a.plan_json));
    }
}

/// The per-client table of a run driven from several load clients.
fn clients_md(o: &mut String, shares: &[load_clients::ClientShare]) {
    let Some(first) = shares.first() else { return };
    let mut header = load_clients::header(&first.latency_header()).to_vec();
    header.push("Flags".into());
    let _ = writeln!(
        o,
        "\nLoad clients (each client's share; the matrices show the merge):\n\n| {} |\n|{}",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for s in shares {
        let cells: Vec<String> = load_clients::cells(s).iter().map(|c| esc(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
}

/// tpcc's own figures: tpmC by threads (with Δ against the baseline) and the
/// per-transaction table.
fn tpcc_md(o: &mut String, r: &Report) {
    let Some(t) = &r.tpcc else { return };
    let name = |env: usize| r.env_name(env).to_string();
    let _ = writeln!(o, "## TPC-C\n\n### tpmC by threads\n");
    md_table(o, &tpcc::CURVE_HEADER, tpcc::curve_rows(t, &name).iter());
    let _ = writeln!(o, "\n### Per transaction\n");
    let rows: Vec<[String; 9]> = t
        .transactions
        .iter()
        .map(|x| tpcc::txn_cells(x, r.env_name(x.env)))
        .collect();
    md_table(o, &tpcc::TXN_HEADER, rows.iter());
    let _ = writeln!(o, "\n_{}_\n", esc(tpcc::TXN_NOTE));
}

/// A table of text cells, figures right-aligned.
fn md_table<'a, const N: usize>(
    o: &mut String,
    header: &[&str; N],
    rows: impl Iterator<Item = &'a [String; N]>,
) {
    let rule: String = header
        .iter()
        .map(|h| {
            if tpcc::is_text_column(h) {
                "---|"
            } else {
                "---:|"
            }
        })
        .collect();
    let _ = writeln!(o, "| {} |\n|{rule}", header.join(" | "));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| esc(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
}

/// A fenced code block whose fence is longer than any backtick run inside.
fn fenced(lang: &str, body: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{body}\n{fence}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_keeps_tables_and_markup_safe() {
        assert_eq!(esc("a|b"), "a\\|b");
        assert_eq!(esc("<script>"), "&lt;script&gt;");
        assert_eq!(esc("hw_cloud"), "hw_cloud");
        assert_eq!(esc("line\nbreak"), "line break");
    }

    #[test]
    fn fences_outgrow_backticks_inside() {
        assert!(fenced("sh", "echo ```").starts_with("````sh"));
    }
}
