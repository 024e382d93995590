//! HTML with hostile environment names, CJK names end to end, and the Markdown, CSV and
//! JSON outputs read back and compared with the model.

mod support;

use dbdyno_report::model::Verdict;
use dbdyno_report::render::{csv, html, json, markdown};
use dbdyno_report::{build, format};
use support::{opts, report, runs};

const HOSTILE: [&str; 3] = [
    "<script>alert(1)</script>",
    "\"quoted\" & 'single' </td></tr>",
    "华为云 <img src=x onerror=alert(2)> & co",
];

fn hostile_report() -> dbdyno_report::Report {
    let mut rs = runs("three_envs.json");
    for (r, name) in rs.iter_mut().zip(HOSTILE) {
        r.env_name = name.to_string();
        r.labels
            .insert("note\"><script>".into(), "<b>bold</b>".into());
        r.command_line = Some(format!("dbdyno ladder --title='{name}'"));
        r.warnings.push(format!("sampler said <{name}>"));
    }
    build(&rs, &opts(Some("idc"))).unwrap()
}

#[test]
fn html_escapes_every_user_string_and_fetches_nothing() {
    let page = html::render(&hostile_report());
    assert!(page.starts_with("<!DOCTYPE html>"));
    // No markup from the names survives.
    assert!(!page.contains("<script"), "a <script> tag got through");
    assert!(!page.contains("<img"), "an <img> tag got through");
    assert!(!page.contains("<b>bold"), "a <b> tag got through");
    assert!(!page.contains("</td></tr>\""));
    // They are there, escaped.
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&quot;quoted&quot; &amp; &#39;single&#39;"));
    assert!(page.contains("华为云 &lt;img src=x onerror=alert(2)&gt; &amp; co"));
    // Self-contained: nothing is fetched, no scripts at all.
    for needle in [
        "http", "src=\"", "url(", "@import", "<link", "<iframe", "<object",
    ] {
        assert!(!page.contains(needle), "found {needle:?}");
    }
    // Inline SVG charts: 4 per scenario, 3 timelines, 1 latency distribution.
    let charts = 4 * 4 + 3 + 1;
    assert_eq!(page.matches("<svg ").count(), charts);
}

/// Markdown outside fenced code blocks (inside them nothing is rendered as markup).
fn outside_fences(md: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in md.lines() {
        let ticks: String = line.chars().take_while(|c| *c == '`').collect();
        match &fence {
            Some(f) if ticks.len() >= f.len() && line.trim() == ticks => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn markdown_neutralises_hostile_names() {
    let full = markdown::render(&hostile_report());
    let md = outside_fences(&full);
    assert!(md.len() < full.len(), "the appendix has fenced blocks");
    assert!(!md.contains("<script"), "{md}");
    assert!(!md.contains("<img"));
    assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // Table rows keep their column count: a name cannot add a cell.
    for line in md
        .lines()
        .filter(|l| l.starts_with("| oltp_") && l.contains("华为云"))
    {
        let cells = line.replace("\\|", "").matches('|').count();
        assert!(
            cells == 10 || cells == 6 || cells == 5 || cells == 4,
            "{cells}: {line}"
        );
    }
}

#[test]
fn cjk_names_survive_every_text_format() {
    let r = report("three_envs.json", Some("idc"));
    assert!(html::render(&r).contains("华为云"));
    assert!(markdown::render(&r).contains("| 华为云 |"));
    assert!(csv::render(&r).contains(",华为云,"));
    assert!(json::render(&r).contains("\"华为云\""));
}

#[test]
fn json_round_trips_to_the_same_model() {
    let r = report("three_envs.json", Some("idc"));
    let text = json::render(&r);
    let back = json::parse(&text).unwrap();
    // serde_json's default float parser may be one ulp off, so compare with a tolerance.
    let a: serde_json::Value = serde_json::from_str(&text).unwrap();
    let b: serde_json::Value = serde_json::from_str(&json::render(&back)).unwrap();
    assert_close(&a, &b, "$");
    assert_eq!(back.envs, r.envs);
    assert_eq!(back.headlines, r.headlines);
    assert_eq!(back.verdict, r.verdict);
}

/// Splits one CSV record (RFC 4180 quoting).
fn split_csv(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    out.push(field);
    out
}

#[test]
fn csv_holds_every_cell_with_its_delta_and_verdict() {
    let r = report("three_envs.json", Some("idc"));
    let text = csv::render(&r);
    let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(split_csv(lines[0]), csv::HEADER);
    assert_eq!(lines.len(), 1 + 3 * 4 * 6);
    let col = |name: &str| csv::HEADER.iter().position(|h| *h == name).unwrap();
    for s in &r.scenarios {
        for e in &s.envs {
            let cmp = s.comparisons.iter().find(|c| c.env == e.env);
            for (i, cell) in e.cells.iter().enumerate() {
                let c = cell.as_ref().unwrap();
                let row = lines
                    .iter()
                    .map(|l| split_csv(l))
                    .find(|f| {
                        f[col("run_id")] == r.envs[e.env].run_id
                            && f[col("scenario")] == s.scenario.name()
                            && f[col("threads")] == c.threads.to_string()
                    })
                    .expect("a row per cell");
                let num = |name: &str| row[col(name)].parse::<f64>().unwrap();
                assert!((num("tps") - c.tps).abs() < 1e-3);
                assert!((num("qps") - c.qps).abs() < 1e-3);
                assert!((num("p95_ms") - c.p95_ms.unwrap()).abs() < 1e-3);
                assert!((num("cpu_pct") - c.cpu_pct.unwrap()).abs() < 1e-3);
                assert_eq!(row[col("environment")], r.envs[e.env].name);
                match cmp {
                    Some(cmp) => {
                        let d = &cmp.rows[i];
                        assert!((num("delta_tps_pct") - d.tps_pct.unwrap()).abs() < 1e-3);
                        assert_eq!(row[col("verdict")], d.verdict.label());
                    }
                    None => assert_eq!(row[col("verdict")], ""),
                }
            }
        }
    }
    let fails = lines.iter().filter(|l| l.ends_with(",REGRESSED")).count();
    assert_eq!(fails, r.verdict.as_ref().unwrap().failed);
}

#[test]
fn markdown_tables_carry_the_model_figures() {
    let r = report("three_envs.json", Some("idc"));
    let md = markdown::render(&r);
    for needle in [
        "## Environment config",
        "## Performance summary",
        "## Delta analysis",
        "## Latency comparison (p95 ms)",
        "## Executive summary",
        "### Recommendations",
        "## Appendix: reproducing the runs",
    ] {
        assert!(md.contains(needle), "missing {needle}");
    }
    for s in &r.scenarios {
        for e in &s.envs {
            for c in e.present() {
                let row = format!(
                    "| {} | {} | {} | {} | {} |",
                    r.env_name(e.env),
                    c.threads,
                    format::rate(c.tps),
                    format::rate(c.qps),
                    format::ms_opt(c.p95_ms)
                );
                assert!(md.contains(&row), "missing row {row}");
            }
        }
        for cmp in &s.comparisons {
            for d in cmp.rows.iter().filter(|d| d.verdict == Verdict::Regressed) {
                let range = d.judged.as_ref().unwrap().tps.delta.bounds_pct();
                assert!(range.is_some(), "a regressed cell has an interval");
                let row = format!(
                    "| {} | {} | {} | {} |",
                    s.scenario,
                    r.env_name(cmp.env),
                    d.threads,
                    format::delta_with_range(d.tps_pct.unwrap(), range)
                );
                assert!(md.contains(&row), "missing delta row {row}");
            }
        }
    }
}

fn assert_close(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                "{at}: {x} vs {y}"
            );
        }
        (Array(x), Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                assert_close(x, y, &format!("{at}[{i}]"));
            }
        }
        (Object(x), Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (k, v) in x {
                assert_close(v, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// The side-by-side table, from the one model in HTML and Markdown (the PDF test reads
/// it back from the PDF): the baseline's and each environment's TPS and p95 with the Δ
/// and the verdict on one row per thread count.
#[test]
fn comparisons_are_side_by_side_in_html_and_markdown() {
    let r = report("three_envs.json", Some("idc"));
    let md = markdown::render(&r);
    let html = html::render(&r);
    assert!(md.contains("## Performance summary (side by side)"), "{md}");
    assert!(html.contains("Side by side against the baseline idc"));
    let header = "| Threads | idc TPS | 华为云 TPS | Δ TPS 华为云 | ali_cloud TPS | Δ TPS ali_cloud | idc p95 ms | 华为云 p95 ms | Δ p95 华为云 | ali_cloud p95 ms | Δ p95 ali_cloud | Verdict 华为云 | Verdict ali_cloud |";
    assert!(md.contains(header), "{md}");
    let s = &r.scenarios[0];
    let cell = |env: usize, i: usize| {
        s.envs.iter().find(|e| e.env == env).unwrap().cells[i]
            .as_ref()
            .unwrap()
    };
    for (i, t) in s.threads.iter().enumerate() {
        let (b, h, a) = (cell(0, i), cell(1, i), cell(2, i));
        let (ch, ca) = (&s.comparisons[0].rows[i], &s.comparisons[1].rows[i]);
        // Each Δ with its 95% interval: "−5.5% (−5.9…−5.0)".
        let tps = |d: &dbdyno_report::model::DeltaRow| {
            let range = d.judged.as_ref().unwrap().tps.delta.bounds_pct();
            format::delta_with_range(d.tps_pct.unwrap(), range)
        };
        let p95 = |d: &dbdyno_report::model::DeltaRow| {
            let j = d.judged.as_ref().unwrap().p95.as_ref().unwrap();
            format::delta_with_range(d.p95_pct.unwrap(), j.delta.bounds_pct())
        };
        let row = format!(
            "| {t} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            format::rate(b.tps),
            format::rate(h.tps),
            tps(ch),
            format::rate(a.tps),
            tps(ca),
            format::ms_opt(b.p95_ms),
            format::ms_opt(h.p95_ms),
            p95(ch),
            format::ms_opt(a.p95_ms),
            p95(ca),
        );
        assert!(md.contains(&row), "missing side-by-side row {row}\n{md}");
        for v in [
            format::rate(b.tps),
            format::rate(h.tps),
            format::rate(a.tps),
        ] {
            assert!(html.contains(&format!(">{v}<")), "{v} in the HTML table");
        }
    }
    // Two environments: the short header of the seed's shape.
    let two: Vec<_> = runs("three_envs.json").into_iter().take(2).collect();
    let r2 = build(&two, &opts(Some("idc"))).unwrap();
    assert!(markdown::render(&r2).contains(
        "| Threads | idc TPS | 华为云 TPS | Δ TPS | idc p95 ms | 华为云 p95 ms | Δ p95 | Verdict |"
    ));
}

/// The timeline of one step on several environments shares its axes: the same QPS
/// ticks and seconds on every chart, so that heights compare across environments.
#[test]
fn timeline_charts_of_one_step_share_their_scale() {
    use dbdyno_report::charts::report_charts::{build as charts, Sizes};
    use dbdyno_report::charts::Anchor;
    let mut o = opts(Some("idc"));
    // A step whose QPS differs by a third between environments.
    o.timeline = Some((dbdyno_engine::Scenario::OltpWriteOnly, 128));
    let r = build(&runs("three_envs.json"), &o).unwrap();
    let c = charts(&r, Sizes::default());
    assert!(c.timelines.len() >= 2, "one chart per environment");
    let ticks = |i: usize| -> Vec<String> {
        c.timelines[i]
            .labels
            .iter()
            .filter(|l| l.anchor == Anchor::End && !l.bold && l.x < 60.0)
            .map(|l| l.text.clone())
            .collect()
    };
    let qps: Vec<f64> = r
        .timeline
        .iter()
        .map(|t| t.points.iter().map(|p| p.qps).fold(0.0, f64::max))
        .collect();
    assert!(
        qps.iter().any(|q| *q < qps[0] * 0.8 || *q > qps[0] * 1.25),
        "the fixture's environments differ in QPS: {qps:?}"
    );
    for i in 1..c.timelines.len() {
        assert_eq!(ticks(i), ticks(0));
    }
}

/// The cover lists the regressed cells as a small table (the first eight, then a count),
/// and the executive summary stays short.
#[test]
fn regressed_cells_are_a_table_not_a_sentence() {
    let r = report("three_envs.json", Some("idc"));
    let md = markdown::render(&r);
    assert!(
        md.contains("| Regressed | Scenario | Threads | Why |"),
        "{md}"
    );
    assert!(
        md.contains("| 华为云 | oltp_point_select | 1 | TPS −5.5% (95% interval −5.9% to −5.0%; 15,531 → 14,680) |"),
        "{md}"
    );
    assert!(md.contains("and 2 more in the side-by-side tables"), "{md}");
    let html = html::render(&r);
    assert!(html.contains("<th>Regressed</th>"));
    for s in &r.executive_summary {
        assert!(s.chars().count() < 400, "a wall of text: {s}");
    }
}
