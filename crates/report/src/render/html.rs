//! The report as one self-contained HTML file: inline CSS, inline SVG charts, no scripts,
//! no fonts, images or styles fetched from anywhere, so it opens offline and prints well
//! (A4 or Letter, charts and table rows kept whole across pages).
//!
//! Every string that reaches the page goes through [`esc`], model sentences included
//! (they quote environment names).

use std::fmt::Write as _;

use super::{capacity, side};
use crate::charts::report_charts::{self, Sizes};
use crate::charts::Chart;
use crate::format;
use crate::model::{appendix, load_clients, tpcc, BottleneckClass, Report, Severity};

/// Escapes text for HTML element content and quoted attribute values.
pub fn esc(s: &str) -> String {
    crate::charts::svg::escape(s)
}

const CSS: &str = include_str!("html.css");

pub fn render(r: &Report) -> String {
    let charts = report_charts::build(r, Sizes::default());
    let mut o = String::with_capacity(256 * 1024);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"DB Dyno {}\">\n<title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n",
        esc(&r.tool_version),
        esc(&r.title)
    );
    cover(&mut o, r);
    toc(&mut o, r);
    capacity_html(&mut o, r);
    environments(&mut o, r);
    hardware(&mut o, r);
    analysis(&mut o, r, &charts.trends);
    for (s, c) in r.scenarios.iter().zip(&charts.scenarios) {
        scenario(&mut o, r, s, c);
    }
    timeline(&mut o, r, &charts.timelines, charts.latency.as_ref());
    warnings(&mut o, r);
    appendix_html(&mut o, r);
    let _ = write!(
        o,
        "<footer>Generated {} by DB Dyno {}.</footer>\n</body>\n</html>\n",
        format::datetime(r.generated_at_ms),
        esc(&r.tool_version)
    );
    o
}

fn cover(o: &mut String, r: &Report) {
    let _ = write!(
        o,
        "<header class=\"cover\">\n<p class=\"kicker\">DB Dyno benchmark report</p>\n<h1>{}</h1>\n",
        esc(&r.title)
    );
    let _ = writeln!(
        o,
        "<p class=\"meta\">Generated {} · threshold {}% · {} · {}</p>",
        format::datetime(r.generated_at_ms),
        r.threshold_pct,
        dbdyno_engine::wording::count(r.envs.len() as u32, "environment"),
        dbdyno_engine::wording::count(r.scenarios.len() as u32, "scenario")
    );
    if let (Some(word), Some(sentence)) = (r.verdict_word(), r.verdict_sentence()) {
        let class = match word {
            "FAIL" => "fail",
            "PASS" => "pass",
            _ => "missing",
        };
        let _ = writeln!(
            o,
            "<p class=\"verdict {class}\"><span>{word}</span> {}</p>",
            esc(&sentence)
        );
    }
    let _ = write!(
        o,
        "<h2 class=\"summary-title\">Executive summary</h2>\n<ul class=\"summary\">\n"
    );
    for s in &r.executive_summary {
        let _ = writeln!(o, "<li>{}</li>", esc(s));
    }
    o.push_str("</ul>\n");
    regressions(o, r);
    key_figures(o, r);
    o.push_str("</header>\n");
}

/// With a latency target: the capacity table, before the details.
fn capacity_html(o: &mut String, r: &Report) {
    let Some(c) = &r.capacity else { return };
    let _ = write!(
        o,
        "<section id=\"capacity\">\n<h2>{}</h2>\n<p class=\"note\">{}</p>\n<table>\n<tr>",
        esc(&capacity::title(c)),
        esc(&capacity::explanation(c))
    );
    for h in capacity::HEADER {
        let _ = write!(o, "<th>{}</th>", esc(h));
    }
    o.push_str("</tr>\n");
    for row in capacity::rows(r) {
        o.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if i >= 2 { " class=\"n\"" } else { "" };
            let _ = write!(o, "<td{class}>{}</td>", esc(cell));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n</section>\n");
}

/// The regressed cells as a small table (the first few; the rest are in the scenarios).
fn regressions(o: &mut String, r: &Report) {
    let all = side::regressions(r);
    if all.is_empty() {
        return;
    }
    o.push_str("<table class=\"matrix regressions\">\n<thead><tr><th>Regressed</th><th>Scenario</th><th>Threads</th><th>Why</th></tr></thead>\n<tbody>\n");
    for g in all.iter().take(side::COVER_REGRESSIONS) {
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
            esc(&g.env),
            esc(&g.scenario),
            g.threads,
            esc(&g.why)
        );
    }
    o.push_str("</tbody>\n</table>\n");
    if let Some(more) = side::more_regressions(all.len()) {
        let _ = writeln!(o, "<p class=\"note\">{}.</p>", esc(&more));
    }
}

/// Peak TPS per scenario and environment, with the best thread count.
fn key_figures(o: &mut String, r: &Report) {
    let _ = write!(o, "<table class=\"key\">\n<thead><tr><th>Scenario</th>");
    for e in &r.envs {
        let _ = write!(o, "<th>{}</th>", esc(&e.name));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for s in &r.scenarios {
        let _ = write!(o, "<tr><th>{}</th>", s.scenario);
        for e in &s.envs {
            match e.peak {
                Some(p) => {
                    let _ = write!(
                        o,
                        "<td><b>{}</b> TPS<br><small>peak at {} · best {} · {}</small></td>",
                        format::rate(p.tps),
                        format::threads(p.threads),
                        e.knee
                            .best_threads
                            .map(|t| t.to_string())
                            .unwrap_or_else(|| "—".into()),
                        e.bottleneck.class.label()
                    );
                }
                None => o.push_str("<td>—</td>"),
            }
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
}

fn toc(o: &mut String, r: &Report) {
    o.push_str("<nav><ol>\n<li><a href=\"#environments\">Environments</a></li>\n<li><a href=\"#analysis\">Analysis</a></li>\n");
    for s in &r.scenarios {
        let _ = writeln!(o, "<li><a href=\"#{0}\">{0}</a></li>", s.scenario);
    }
    o.push_str("<li><a href=\"#timeline\">Timeline and latency</a></li>\n<li><a href=\"#warnings\">Warnings</a></li>\n<li><a href=\"#appendix\">Appendix</a></li>\n</ol></nav>\n");
}

fn environments(o: &mut String, r: &Report) {
    o.push_str("<section id=\"environments\">\n<h2>Environments</h2>\n<table class=\"env\">\n<thead><tr><th>Fact</th>");
    for e in &r.envs {
        let b = if e.is_baseline && r.envs.len() > 1 {
            " <span class=\"tag\">baseline</span>"
        } else {
            ""
        };
        let _ = write!(o, "<th>{}{b}</th>", esc(&e.name));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for row in &r.environment_table {
        let class = if row.differs {
            " class=\"differs\""
        } else {
            ""
        };
        let _ = write!(o, "<tr{class}><th>{}</th>", esc(&row.label));
        for v in &row.values {
            let _ = write!(
                o,
                "<td>{}</td>",
                v.as_deref().map(esc).unwrap_or_else(|| "—".into())
            );
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
    if r.envs.len() > 1 {
        o.push_str("<p class=\"note\">Highlighted rows differ between environments.</p>\n");
    }
    o.push_str("</section>\n");
}

/// The environments' hardware records (model::hardware), after their configuration.
fn hardware(o: &mut String, r: &Report) {
    let Some(h) = &r.hardware else {
        return;
    };
    let _ = write!(
        o,
        "<section id=\"hardware\">\n<h2>Server hardware</h2>\n<p class=\"note\">{}</p>\n<table class=\"env\">\n",
        esc(h.note(r.envs.len() > 1))
    );
    let names: Vec<String> = r.envs.iter().map(|e| e.name.clone()).collect();
    for (i, row) in h.text_rows(&names).iter().enumerate() {
        let cell = if i == 0 { "th" } else { "td" };
        let _ = write!(o, "<tr><th>{}</th>", esc(&row[0]));
        for c in &row[1..] {
            let _ = write!(o, "<{cell}>{}</{cell}>", esc(c));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n</section>\n");
}

fn class_tag(c: BottleneckClass) -> String {
    let k = match c {
        BottleneckClass::CpuBound => "cpu",
        BottleneckClass::IoBound => "io",
        BottleneckClass::LockContention => "lock",
        BottleneckClass::ClientBound => "client",
        BottleneckClass::Scaling => "scaling",
        BottleneckClass::Unclear => "unclear",
    };
    format!("<span class=\"class {k}\">{}</span>", c.label())
}

fn analysis(o: &mut String, r: &Report, trend_charts: &[Chart]) {
    o.push_str("<section id=\"analysis\">\n<h2>Analysis</h2>\n");
    if !r.headlines.is_empty() {
        o.push_str("<h3>Headlines</h3>\n<ul>\n");
        for h in &r.headlines {
            let _ = writeln!(o, "<li>{}</li>", esc(h));
        }
        o.push_str("</ul>\n");
    }
    o.push_str("<h3>Knee and bottleneck per scenario</h3>\n<table class=\"analysis\">\n<thead><tr><th>Scenario</th><th>Environment</th><th>Best threads</th><th>Bottleneck</th><th>Evidence</th></tr></thead>\n<tbody>\n");
    for s in &r.scenarios {
        for e in &s.envs {
            if e.cells.iter().all(Option::is_none) {
                continue;
            }
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}.<br><small>{}; {}.</small></td></tr>",
                s.scenario,
                esc(r.env_name(e.env)),
                e.knee
                    .best_threads
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "—".into()),
                class_tag(e.bottleneck.class),
                esc(&e.knee.evidence),
                esc(&e.bottleneck.evidence),
                esc(e.bottleneck.class.advice())
            );
        }
    }
    o.push_str("</tbody>\n</table>\n");
    if !r.cold_starts.is_empty() {
        o.push_str("<h3>Cold start</h3>\n<ul>\n");
        for c in &r.cold_starts {
            let _ = writeln!(o, "<li>{}</li>", esc(&c.sentence));
        }
        o.push_str("</ul>\n");
    }
    if !r.trends.is_empty() {
        o.push_str("<h3>Trends over time</h3>\n<ul class=\"trends\">\n");
        for (t, chart) in r.trends.iter().zip(trend_charts) {
            let _ = write!(o, "<li>{}<ul>", esc(&t.summary));
            for c in &t.changes {
                let _ = write!(o, "<li>{}</li>", esc(c));
            }
            let _ = writeln!(
                o,
                "</ul><figure class=\"wide\">{}</figure></li>",
                chart.to_inline_svg()
            );
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</section>\n");
}

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".into())
}

fn scenario(
    o: &mut String,
    r: &Report,
    s: &crate::model::ScenarioReport,
    c: &crate::charts::ScenarioCharts,
) {
    let _ = write!(
        o,
        "<section id=\"{0}\" class=\"scenario\">\n<h2>{0}</h2>\n<div class=\"charts\">\n",
        s.scenario
    );
    for chart in [
        Some(&c.qps),
        Some(&c.tps),
        Some(&c.p95),
        c.efficiency.as_ref(),
        c.tpmc.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        let _ = writeln!(o, "<figure>{}</figure>", chart.to_inline_svg());
    }
    o.push_str("</div>\n<h3>Per environment</h3>\n<table class=\"matrix\">\n<thead><tr><th>Environment</th><th>Threads</th><th>TPS</th><th>QPS</th><th>p95 ms</th><th>p99 ms</th><th>CPU %</th><th>Disk %</th><th>Samples</th><th>QPS/CPU%</th></tr></thead>\n<tbody>\n");
    for e in &s.envs {
        let knee = e.knee.best_threads;
        for cell in e.present() {
            let samples = match (cell.samples, cell.expected_samples) {
                (Some(a), Some(b)) if a < b => format!("<span class=\"short\">{a}/{b}</span>"),
                (Some(a), Some(b)) => format!("{a}/{b}"),
                (Some(a), None) => a.to_string(),
                _ => "—".into(),
            };
            let is_knee = Some(cell.threads) == knee && !cell.cancelled;
            let _ = writeln!(
                o,
                "<tr{}><td>{}</td><td class=\"n\">{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                if is_knee {
                    " class=\"knee\""
                } else if cell.cancelled {
                    " class=\"cancelled\""
                } else {
                    ""
                },
                esc(r.env_name(e.env)),
                side::threads_label(cell),
                if is_knee { " ★" } else { "" },
                format::rate(cell.tps),
                format::rate(cell.qps),
                opt(cell.p95_ms, format::ms),
                opt(cell.p99_ms, format::ms),
                opt(cell.cpu_pct, format::pct),
                opt(cell.disk_util_pct, format::pct),
                samples,
                opt(cell.qps_per_cpu, |v| format::grouped(v, 0)),
            );
        }
    }
    o.push_str("</tbody>\n</table>\n<p class=\"note\">★ best thread count (the knee, or the top of the ladder while still scaling).</p>\n");
    if let Some(t) = side::side_by_side(r, s) {
        let _ = writeln!(
            o,
            "<h3>Side by side against the baseline {} (threshold {}%)</h3>",
            esc(r.env_name(r.baseline.unwrap_or(0))),
            r.threshold_pct
        );
        side_table(o, &t);
    }
    if let Some(t) = r
        .tpcc
        .as_ref()
        .filter(|_| s.scenario == dbdyno_engine::Scenario::Tpcc)
    {
        tpcc_html(o, r, t);
    }
    o.push_str("</section>\n");
}

/// The tpmC table (with Δ tpmC against the baseline) and the per-transaction table.
fn tpcc_html(o: &mut String, r: &Report, t: &tpcc::TpccSection) {
    let name = |env: usize| r.env_name(env).to_string();
    o.push_str("<h3>TPC-C: tpmC by threads</h3>\n");
    html_table(o, &tpcc::CURVE_HEADER, tpcc::curve_rows(t, &name).iter());
    o.push_str("<h3>TPC-C: per transaction</h3>\n");
    let rows: Vec<[String; 9]> = t
        .transactions
        .iter()
        .map(|x| tpcc::txn_cells(x, r.env_name(x.env)))
        .collect();
    html_table(o, &tpcc::TXN_HEADER, rows.iter());
    let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(tpcc::TXN_NOTE));
}

/// A plain table of text cells, figures right-aligned.
fn html_table<'a, const N: usize>(
    o: &mut String,
    header: &[&str; N],
    rows: impl Iterator<Item = &'a [String; N]>,
) {
    o.push_str("<table class=\"matrix\">\n<thead><tr>");
    for h in header {
        let _ = write!(o, "<th>{}</th>", esc(h));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        o.push_str("<tr>");
        for (h, c) in header.iter().zip(row) {
            let class = if tpcc::is_text_column(h) {
                ""
            } else {
                " class=\"n\""
            };
            let _ = write!(o, "<td{class}>{}</td>", esc(c));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
}

/// The side-by-side table: values, Δ% coloured good/bad, verdict badges.
fn side_table(o: &mut String, t: &side::SideTable) {
    o.push_str("<table class=\"matrix side\">\n<thead><tr>");
    for c in &t.columns {
        let _ = write!(o, "<th>{}</th>", esc(&c.title));
    }
    o.push_str("</tr></thead>\n<tbody>\n");
    for (row, failed) in t.rows.iter().zip(&t.failed) {
        o.push_str(if *failed {
            "<tr class=\"failed\">"
        } else {
            "<tr>"
        });
        for (f, c) in row.iter().zip(&t.columns) {
            let n = if c.numeric { "n " } else { "" };
            let (class, badge) = match f.tone {
                side::Tone::Plain => ("", false),
                side::Tone::Good => ("good", false),
                side::Tone::Bad => ("bad", false),
                side::Tone::Muted => ("muted", !c.numeric),
                side::Tone::Cancelled => ("cancelled", !c.numeric),
                side::Tone::Regressed => ("fail", true),
                side::Tone::Improved => ("pass", true),
                side::Tone::Noise => ("noise", true),
            };
            // The interval may break after its "…" (<wbr>): three environments side by
            // side make 14 columns, which fit an A4 page only so.
            let range = f
                .range
                .as_deref()
                .map(|r| format!(" <small>({})</small>", esc(r).replace('…', "…<wbr>")));
            let note = range
                .into_iter()
                .chain(f.note.iter().map(|n| format!(" <small>{}</small>", esc(n))))
                .collect::<String>();
            if badge {
                let _ = write!(
                    o,
                    "<td class=\"{n}\"><span class=\"badge {class}\">{}</span>{note}</td>",
                    esc(&f.text)
                );
            } else {
                let _ = write!(o, "<td class=\"{n}{class}\">{}{note}</td>", esc(&f.text));
            }
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody>\n</table>\n");
}

fn timeline(o: &mut String, r: &Report, timelines: &[Chart], latency: Option<&Chart>) {
    o.push_str("<section id=\"timeline\">\n<h2>Timeline and latency</h2>\n");
    if let Some(t) = r.timeline.first() {
        let _ = writeln!(
            o,
            "<p>Second by second, {} at {}: throughput with the server's CPU and data-disk utilisation (right axis).</p>",
            t.scenario, format::threads(t.threads)
        );
    } else {
        o.push_str("<p>No step to show.</p>\n");
    }
    for c in timelines {
        let _ = writeln!(o, "<figure class=\"wide\">{}</figure>", c.to_inline_svg());
    }
    if let Some(c) = latency {
        let _ = writeln!(o, "<figure class=\"wide\">{}</figure>", c.to_inline_svg());
    }
    if let Some(d) = &r.latency_distribution {
        o.push_str("<table class=\"matrix\">\n<thead><tr><th>Environment</th><th>Transactions</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th><th>max ms</th></tr></thead>\n<tbody>\n");
        for s in &d.series {
            let _ = writeln!(
                o,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(r.env_name(s.env)),
                format::grouped(s.count as f64, 0),
                format::ms(s.p50_ms),
                format::ms(s.p95_ms),
                format::ms(s.p99_ms),
                format::ms(s.max_ms)
            );
        }
        o.push_str("</tbody>\n</table>\n");
    }
    o.push_str("</section>\n");
}

fn warnings(o: &mut String, r: &Report) {
    o.push_str("<section id=\"warnings\">\n<h2>Warnings</h2>\n");
    if r.warnings.is_empty() {
        o.push_str("<p>None.</p>\n");
    } else {
        o.push_str("<ul class=\"warnings\">\n");
        for w in &r.warnings {
            let (class, word) = match w.severity {
                Severity::Warning => ("warn", "Warning"),
                Severity::Note => ("note", "Note"),
            };
            let _ = writeln!(
                o,
                "<li class=\"{class}\"><b>{word}</b> {}</li>",
                esc(&w.text)
            );
        }
        o.push_str("</ul>\n");
    }
    o.push_str("</section>\n");
}

/// The per-client table of a run driven from several load clients.
fn clients_html(o: &mut String, shares: &[load_clients::ClientShare]) {
    let Some(first) = shares.first() else { return };
    o.push_str("<p>Load clients (each client's share; the matrices show the merge):</p>\n<table class=\"clients\">\n<thead><tr>");
    for h in load_clients::header(&first.latency_header()) {
        let _ = write!(o, "<th>{}</th>", esc(&h));
    }
    o.push_str("<th>Flags</th></tr></thead>\n<tbody>\n");
    for s in shares {
        o.push_str("<tr>");
        for c in load_clients::cells(s) {
            let _ = write!(o, "<td>{}</td>", esc(&c));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</tbody></table>\n");
}

fn appendix_html(o: &mut String, r: &Report) {
    o.push_str("<section id=\"appendix\">\n<h2>Appendix: reproducing the runs</h2>\n");
    for a in &r.appendix {
        let _ = write!(
            o,
            "<article class=\"run\">\n<h3>{} <small>run {}</small></h3>\n<dl>\n<dt>When</dt><dd>{}</dd>\n",
            esc(&a.name),
            esc(&a.run_id),
            esc(&appendix::when(a))
        );
        if let Some(s) = &a.state {
            let _ = writeln!(o, "<dt>State</dt><dd>{}</dd>", esc(s));
        }
        if let Some(v) = &a.tool_version {
            let _ = writeln!(o, "<dt>DB Dyno version</dt><dd>{}</dd>", esc(v));
        }
        for (k, v) in &a.settings {
            let _ = writeln!(o, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
        }
        for (k, v) in &a.labels {
            let _ = writeln!(o, "<dt>Label {}</dt><dd>{}</dd>", esc(k), esc(v));
        }
        o.push_str("</dl>\n");
        clients_html(o, &a.clients);
        if let Some(c) = &a.command_line {
            let _ = writeln!(o, "<p>Recorded command:</p>\n<pre>{}</pre>", esc(c));
        }
        if let Some(c) = &a.reproduce {
            let _ = writeln!(
                o,
                "<p>To run it again (password from MYSQL_PWD or the prompt):</p>\n<pre>{}</pre>",
                esc(c)
            );
        }
        let _ = writeln!(
            o,
            // Print CSS cannot open a closed <details>: the plan is also written as a
            // plain block that only print shows.
            "<details class=\"plan\"><summary>Plan (JSON)</summary><pre>{0}</pre></details>\n<pre class=\"plan-print\">{0}</pre>\n</article>",
            esc(&a.plan_json)
        );
    }
    o.push_str("</section>\n");
}
