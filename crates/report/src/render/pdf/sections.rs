//! The PDF's sections, in reading order: cover (executive summary, verdict, key figures),
//! environments, analysis, one section per scenario, timeline and latency, warnings,
//! appendix.

use printpdf::PdfDocument;

use super::chart;
use super::font::Style;
use super::layout::{Align, Layout, ACCENT, INK, LINE, MUTED};
use super::table::{self, CellText, Column, Row};
use crate::charts::{Chart, ReportCharts};
use crate::error::ReportError;
use crate::format;
use crate::model::{appendix, BottleneckClass, Report, ScenarioReport, Severity};
use crate::render::side;

const GOOD: &str = "#1b7f3b";
const BAD: &str = "#b3261e";
const DIFFERS: &str = "#fff3c4";
const KNEE: &str = "#eaf3fb";
const BODY: f32 = 9.5;
const SMALL: f32 = 7.6;

/// Every chart the PDF places: per scenario (QPS, TPS, p95, efficiency), timelines, latency.
fn placement_order(c: &ReportCharts) -> Vec<&Chart> {
    let mut v = Vec::new();
    for s in &c.scenarios {
        v.extend(
            [
                Some(&s.qps),
                Some(&s.tps),
                Some(&s.p95),
                s.efficiency.as_ref(),
            ]
            .into_iter()
            .flatten(),
        );
    }
    v.extend(c.timelines.iter());
    v.extend(c.latency.iter());
    v
}

pub fn render_all(
    l: &mut Layout,
    doc: &mut PdfDocument,
    r: &Report,
    charts: &ReportCharts,
) -> Result<Vec<String>, ReportError> {
    let forms = chart::convert_all(&placement_order(charts))?;
    cover(l, r);
    l.new_page();
    environments(l, r);
    analysis(l, r);
    for (s, c) in r.scenarios.iter().zip(&charts.scenarios) {
        l.new_page();
        scenario(l, doc, r, s, c, &forms)?;
    }
    if !charts.timelines.is_empty() || charts.latency.is_some() {
        l.new_page();
        timeline(l, doc, r, charts, &forms)?;
    }
    warnings(l, r);
    l.new_page();
    appendix_pdf(l, r);
    Ok(forms.warnings)
}

fn cover(l: &mut Layout, r: &Report) {
    let g = l.geom;
    let x = g.margin_x;
    let w = g.content_width();
    let band_h = 176.0;
    l.rect(0.0, 0.0, g.width, band_h, ACCENT);
    l.text(
        x,
        52.0,
        9.0,
        Style::Bold,
        "#cfe3f5",
        Align::Left,
        "DB DYNO  ·  BENCHMARK REPORT",
    );
    l.y = 64.0;
    // At most three lines fit the band; a longer title ends its third line with "…"
    // (the whole title is in the document's metadata and the page footers).
    let mut title_lines = l.wrap(&r.title, 22.0, Style::Bold, w);
    if title_lines.len() > 3 {
        let rest = title_lines[2..].join(" ");
        title_lines.truncate(2);
        let mut last = l.fit(&rest, 22.0, Style::Bold, w);
        if !last.ends_with('…') {
            last.push('…');
        }
        title_lines.push(last);
    }
    // Fewer lines sit lower, so the title stays clear of the kicker and the meta line.
    l.y = 64.0 + (3 - title_lines.len()) as f32 * 10.0;
    for line in &title_lines {
        let base = l.y + 22.0;
        l.text(x, base, 22.0, Style::Bold, "#ffffff", Align::Left, line);
        l.y += 28.0;
    }
    let meta = format!(
        "Generated {}  ·  {} environment(s)  ·  {} scenario(s)  ·  regression threshold {}%",
        format::datetime(r.generated_at_ms),
        r.envs.len(),
        r.scenarios.len(),
        r.threshold_pct
    );
    let meta = l.fit(&meta, 9.0, Style::Regular, w);
    l.text(
        x,
        band_h - 18.0,
        9.0,
        Style::Regular,
        "#dbe8f5",
        Align::Left,
        &meta,
    );
    l.y = band_h + 22.0;

    if let (Some(word), Some(sentence)) = (r.verdict_word(), r.verdict_sentence()) {
        let (bg, fg) = match word {
            "FAIL" => ("#fbe4e2", BAD),
            "PASS" => ("#e3f4e8", GOOD),
            _ => ("#eceef2", MUTED),
        };
        let lines = l.wrap(&sentence, 10.5, Style::Regular, w - 90.0);
        let h = 18.0 + lines.len() as f32 * 14.0;
        let y = l.y;
        l.round_rect(x, y, w, h, 6.0, bg);
        l.text(
            x + 14.0,
            y + h / 2.0 + 7.0,
            20.0,
            Style::Bold,
            fg,
            Align::Left,
            word,
        );
        for (i, line) in lines.iter().enumerate() {
            l.text(
                x + 80.0,
                y + 22.0 + i as f32 * 14.0,
                10.5,
                Style::Regular,
                INK,
                Align::Left,
                line,
            );
        }
        l.y += h + 14.0;
    }

    l.heading("Executive summary", 2, 40.0);
    for s in &r.executive_summary {
        l.bullet(s, 10.0, INK, ACCENT);
    }
    l.y += 6.0;
    let regressed = side::regressions(r);
    if !regressed.is_empty() {
        let cols = [
            Column::new("Regressed", 1.1, Align::Left),
            Column::new("Scenario", 1.2, Align::Left),
            Column::new("Threads", 0.55, Align::Right),
            Column::new("Why", 3.2, Align::Left),
        ];
        let rows: Vec<Row> = regressed
            .iter()
            .take(side::COVER_REGRESSIONS)
            .map(|g| {
                Row::new(vec![
                    CellText::plain(g.env.clone()),
                    CellText::plain(g.scenario.clone()),
                    CellText::plain(g.threads.to_string()),
                    CellText::coloured(g.why.clone(), BAD, Style::Regular),
                ])
            })
            .collect();
        table::draw(l, &cols, &rows, 7.6);
        if let Some(more) = side::more_regressions(regressed.len()) {
            l.paragraph(
                &format!("{more}."),
                SMALL,
                Style::Regular,
                MUTED,
                l.geom.margin_x,
                l.geom.content_width(),
                4.0,
            );
        }
    }

    let mut cols = vec![Column::new("Scenario", 1.25, Align::Left)];
    for e in &r.envs {
        cols.push(Column::new(e.name.clone(), 1.0, Align::Left));
    }
    let rows: Vec<Row> = r
        .scenarios
        .iter()
        .map(|s| {
            let mut cells = vec![CellText::plain(s.scenario.name())];
            for e in &s.envs {
                cells.push(match e.peak {
                    Some(p) => {
                        CellText::coloured(format!("{} TPS", format::rate(p.tps)), INK, Style::Bold)
                            .with_note(format!(
                                "at {} · best {} · {}",
                                format::threads(p.threads),
                                e.knee
                                    .best_threads
                                    .map(|t| t.to_string())
                                    .unwrap_or_else(|| "—".into()),
                                e.bottleneck.class.label()
                            ))
                    }
                    None => CellText::plain("—"),
                });
            }
            Row::new(cells)
        })
        .collect();
    table::draw_headed(
        l,
        "Key figures: peak TPS per scenario",
        2,
        &cols,
        &rows,
        8.5,
    );
}

fn environments(l: &mut Layout, r: &Report) {
    l.heading("Environments", 1, 80.0);
    if r.envs.len() > 1 {
        l.paragraph(
            "Facts of each compared run side by side; shaded rows differ between environments.",
            BODY,
            Style::Regular,
            MUTED,
            l.geom.margin_x,
            l.geom.content_width(),
            6.0,
        );
    }
    let mut cols = vec![Column::new("Fact", 1.3, Align::Left)];
    for e in &r.envs {
        let name = if e.is_baseline && r.envs.len() > 1 {
            format!("{} (baseline)", e.name)
        } else {
            e.name.clone()
        };
        cols.push(Column::new(name, 1.0, Align::Left));
    }
    let rows: Vec<Row> = r
        .environment_table
        .iter()
        .map(|row| {
            let mut cells = vec![CellText::coloured(row.label.clone(), INK, Style::Bold)];
            cells.extend(
                row.values
                    .iter()
                    .map(|v| CellText::plain(v.clone().unwrap_or_else(|| "—".into()))),
            );
            Row::new(cells).filled(row.differs.then_some(DIFFERS))
        })
        .collect();
    table::draw(l, &cols, &rows, 8.0);
}

fn class_colour(c: BottleneckClass) -> &'static str {
    match c {
        BottleneckClass::CpuBound => "#8a3400",
        BottleneckClass::IoBound => "#00603f",
        BottleneckClass::LockContention => "#7a2f63",
        BottleneckClass::ClientBound => "#6b5200",
        BottleneckClass::Scaling => "#004f7c",
        BottleneckClass::Unclear => MUTED,
    }
}

fn analysis(l: &mut Layout, r: &Report) {
    l.heading("Analysis", 1, 80.0);
    if !r.headlines.is_empty() {
        l.heading("Headlines", 2, 30.0);
        for h in &r.headlines {
            l.bullet(h, BODY, INK, ACCENT);
        }
    }
    let cols = [
        Column::new("Scenario", 1.25, Align::Left),
        Column::new("Environment", 1.0, Align::Left),
        Column::new("Best threads", 0.6, Align::Right),
        Column::new("Bottleneck", 0.95, Align::Left),
        Column::new("Evidence", 3.6, Align::Left),
    ];
    let mut rows = Vec::new();
    for s in &r.scenarios {
        for e in &s.envs {
            if e.cells.iter().all(Option::is_none) {
                continue;
            }
            rows.push(Row::new(vec![
                CellText::plain(s.scenario.name()),
                CellText::plain(r.env_name(e.env)),
                CellText::plain(
                    e.knee
                        .best_threads
                        .map(|t| t.to_string())
                        .unwrap_or_else(|| "—".into()),
                ),
                CellText::coloured(
                    e.bottleneck.class.label(),
                    class_colour(e.bottleneck.class),
                    Style::Bold,
                ),
                CellText::plain(format!("{}; {}.", e.knee.evidence, e.bottleneck.evidence))
                    .with_note(format!("Next: {}.", e.bottleneck.class.advice())),
            ]));
        }
    }
    table::draw_headed(l, "Knee and bottleneck per scenario", 2, &cols, &rows, 7.6);
    if !r.cold_starts.is_empty() {
        l.heading("Cold start", 2, 30.0);
        for c in &r.cold_starts {
            l.bullet(&c.sentence, BODY, INK, "#E69F00");
        }
    }
}

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".into())
}

/// The side-by-side table: verdict columns get the room their reasons need.
fn side_table(l: &mut Layout, heading: &str, t: &side::SideTable) {
    let cols: Vec<Column> = t
        .columns
        .iter()
        .map(|c| {
            if c.numeric {
                Column::new(c.title.clone(), 1.0, Align::Right)
            } else {
                Column::new(c.title.clone(), 1.6, Align::Left)
            }
        })
        .collect();
    let rows: Vec<Row> = t
        .rows
        .iter()
        .zip(&t.failed)
        .map(|(row, failed)| {
            Row::new(
                row.iter()
                    .map(|f| {
                        let (colour, style) = match f.tone {
                            side::Tone::Plain => (INK, Style::Regular),
                            side::Tone::Good => (GOOD, Style::Regular),
                            side::Tone::Bad => (BAD, Style::Regular),
                            side::Tone::Muted => (MUTED, Style::Regular),
                            side::Tone::Cancelled => (CANCELLED, Style::Regular),
                            side::Tone::Pass => (GOOD, Style::Bold),
                            side::Tone::Fail => (BAD, Style::Bold),
                        };
                        let cell = CellText::coloured(f.text.clone(), colour, style);
                        match &f.note {
                            Some(n) => cell.with_note(n.clone()),
                            None => cell,
                        }
                    })
                    .collect(),
            )
            .filled(failed.then_some("#fdf0ee"))
        })
        .collect();
    // Many environments make many columns: a smaller size keeps figures on one line.
    let size = if cols.len() > 8 { 6.4 } else { 7.6 };
    table::draw_headed(l, heading, 2, &cols, &rows, size);
}

/// Text colour of a step cut short.
const CANCELLED: &str = "#8a6d00";

fn scenario(
    l: &mut Layout,
    doc: &mut PdfDocument,
    r: &Report,
    s: &ScenarioReport,
    c: &crate::charts::ScenarioCharts,
    forms: &chart::Forms,
) -> Result<(), ReportError> {
    l.heading(s.scenario.name(), 1, 200.0);
    for e in &s.envs {
        if e.cells.iter().all(Option::is_none) {
            continue;
        }
        let best = e
            .knee
            .best_threads
            .map(|t| format!("best {}", format::threads(t)))
            .unwrap_or_else(|| "no knee".into());
        let line = format!(
            "{}: {} · {}: {}.",
            r.env_name(e.env),
            best,
            e.bottleneck.class.label(),
            e.bottleneck.evidence
        );
        l.bullet(&line, 8.6, INK, crate::charts::env_colour(e.env));
    }
    l.y += 4.0;
    // Charts in a 2 × 2 grid.
    let list: Vec<&Chart> = [
        Some(&c.qps),
        Some(&c.tps),
        Some(&c.p95),
        c.efficiency.as_ref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let gap = 10.0;
    let cw = (l.geom.content_width() - gap) / 2.0;
    for pair in list.chunks(2) {
        let ch = pair[0].height as f32 * cw / pair[0].width as f32;
        l.need(ch + gap);
        let y = l.y;
        let mut x = l.geom.margin_x;
        for chart in pair {
            let form = forms.get(chart)?;
            chart::place(l, doc, chart, form, x, y, cw);
            x += cw + gap;
        }
        l.y = y + ch + gap;
    }

    let cols = [
        Column::new("Environment", 1.5, Align::Left),
        Column::new("Threads", 0.75, Align::Right),
        Column::new("TPS", 1.05, Align::Right),
        Column::new("QPS", 1.15, Align::Right),
        Column::new("p95 ms", 0.85, Align::Right),
        Column::new("p99 ms", 0.85, Align::Right),
        Column::new("CPU %", 0.8, Align::Right),
        Column::new("Disk %", 0.8, Align::Right),
        Column::new("Samples", 0.85, Align::Right),
        Column::new("QPS/CPU%", 0.95, Align::Right),
    ];
    let mut rows = Vec::new();
    for e in &s.envs {
        for cell in e.present() {
            let knee = Some(cell.threads) == e.knee.best_threads && !cell.cancelled;
            let samples = match (cell.samples, cell.expected_samples) {
                (Some(a), Some(b)) if a < b => {
                    CellText::coloured(format!("{a}/{b}"), BAD, Style::Bold)
                }
                (Some(a), Some(b)) => CellText::plain(format!("{a}/{b}")),
                (Some(a), None) => CellText::plain(a.to_string()),
                _ => CellText::plain("—"),
            };
            let style = if knee { Style::Bold } else { Style::Regular };
            rows.push(
                Row::new(vec![
                    CellText::plain(r.env_name(e.env)),
                    CellText::coloured(
                        format!(
                            "{}{}",
                            side::threads_label(cell),
                            if knee { " ★" } else { "" }
                        ),
                        if cell.cancelled { CANCELLED } else { INK },
                        style,
                    ),
                    CellText::coloured(format::rate(cell.tps), INK, style),
                    CellText::coloured(format::rate(cell.qps), INK, style),
                    CellText::plain(opt(cell.p95_ms, format::ms)),
                    CellText::plain(opt(cell.p99_ms, format::ms)),
                    CellText::plain(opt(cell.cpu_pct, format::pct)),
                    CellText::plain(opt(cell.disk_util_pct, format::pct)),
                    samples,
                    CellText::plain(opt(cell.qps_per_cpu, |v| format::grouped(v, 0))),
                ])
                .filled(knee.then_some(KNEE)),
            );
        }
    }
    table::draw_headed(l, "Per environment", 2, &cols, &rows, 7.6);
    l.paragraph(
        "★ best thread count: the knee, or the top of the ladder while throughput still rises.",
        SMALL,
        Style::Regular,
        MUTED,
        l.geom.margin_x,
        l.geom.content_width(),
        4.0,
    );

    if let Some(t) = side::side_by_side(r, s) {
        let heading = format!(
            "Side by side against the baseline {} (threshold {}%)",
            r.env_name(r.baseline.unwrap_or(0)),
            r.threshold_pct
        );
        side_table(l, &heading, &t);
    }
    Ok(())
}

fn timeline(
    l: &mut Layout,
    doc: &mut PdfDocument,
    r: &Report,
    charts: &ReportCharts,
    forms: &chart::Forms,
) -> Result<(), ReportError> {
    l.heading("Timeline and latency", 1, 200.0);
    if let Some(t) = r.timeline.first() {
        l.paragraph(
            &format!(
                "Second by second, {} at {}: throughput with the server's CPU and data-disk utilisation (right axis, percent).",
                t.scenario, format::threads(t.threads)
            ),
            BODY,
            Style::Regular,
            MUTED,
            l.geom.margin_x,
            l.geom.content_width(),
            6.0,
        );
    }
    let w = l.geom.content_width();
    for chart in charts.timelines.iter().chain(charts.latency.iter()) {
        let h = chart.height as f32 * w / chart.width as f32;
        l.need(h + 10.0);
        let y = l.y;
        let form = forms.get(chart)?;
        let x = l.geom.margin_x;
        chart::place(l, doc, chart, form, x, y, w);
        l.y = y + h + 10.0;
    }
    if let Some(d) = &r.latency_distribution {
        let cols = [
            Column::new("Environment", 1.6, Align::Left),
            Column::new("Transactions", 1.1, Align::Right),
            Column::new("p50 ms", 0.9, Align::Right),
            Column::new("p95 ms", 0.9, Align::Right),
            Column::new("p99 ms", 0.9, Align::Right),
            Column::new("max ms", 0.9, Align::Right),
        ];
        let rows: Vec<Row> = d
            .series
            .iter()
            .map(|s| {
                Row::new(vec![
                    CellText::plain(r.env_name(s.env)),
                    CellText::plain(format::grouped(s.count as f64, 0)),
                    CellText::plain(format::ms(s.p50_ms)),
                    CellText::plain(format::ms(s.p95_ms)),
                    CellText::plain(format::ms(s.p99_ms)),
                    CellText::plain(format::ms(s.max_ms)),
                ])
            })
            .collect();
        table::draw(l, &cols, &rows, 8.0);
    }
    Ok(())
}

fn warnings(l: &mut Layout, r: &Report) {
    l.heading("Warnings", 1, 40.0);
    if r.warnings.is_empty() {
        l.paragraph(
            "None.",
            BODY,
            Style::Regular,
            INK,
            l.geom.margin_x,
            l.geom.content_width(),
            4.0,
        );
        return;
    }
    for w in &r.warnings {
        let (word, colour) = match w.severity {
            Severity::Warning => ("Warning", BAD),
            Severity::Note => ("Note", MUTED),
        };
        l.bullet(&format!("{word}: {}", w.text), BODY, INK, colour);
    }
}

fn mono_block(l: &mut Layout, text: &str, size: f32) {
    let x = l.geom.margin_x;
    let w = l.geom.content_width();
    let lh = size * 1.35;
    let lines = l.wrap(text, size, Style::Mono, w - 12.0);
    l.y += 2.0;
    for line in lines {
        l.need(lh);
        let y = l.y;
        l.rect(x, y, w, lh, "#f3f5f9");
        l.text(
            x + 6.0,
            y + size * 1.02,
            size,
            Style::Mono,
            INK,
            Align::Left,
            &line,
        );
        l.y += lh;
    }
    l.y += 6.0;
}

fn appendix_pdf(l: &mut Layout, r: &Report) {
    l.heading("Appendix: reproducing the runs", 1, 80.0);
    for a in &r.appendix {
        l.heading(&format!("{} (run {})", a.name, a.run_id), 2, 60.0);
        let mut rows = vec![Row::new(vec![
            CellText::coloured("When", MUTED, Style::Regular),
            CellText::plain(appendix::when(a)),
        ])];
        if let Some(s) = &a.state {
            rows.push(Row::new(vec![
                CellText::coloured("State", MUTED, Style::Regular),
                CellText::plain(s.clone()),
            ]));
        }
        if let Some(v) = &a.tool_version {
            rows.push(Row::new(vec![
                CellText::coloured("DB Dyno version", MUTED, Style::Regular),
                CellText::plain(v.clone()),
            ]));
        }
        for (k, v) in &a.settings {
            rows.push(Row::new(vec![
                CellText::coloured(k.clone(), MUTED, Style::Regular),
                CellText::plain(v.clone()),
            ]));
        }
        for (k, v) in &a.labels {
            rows.push(Row::new(vec![
                CellText::coloured(format!("Label {k}"), MUTED, Style::Regular),
                CellText::plain(v.clone()),
            ]));
        }
        let cols = [
            Column::new("Setting", 1.0, Align::Left),
            Column::new("Value", 3.0, Align::Left),
        ];
        table::draw(l, &cols, &rows, 8.0);
        if let Some(c) = &a.command_line {
            l.paragraph(
                "Recorded command:",
                8.5,
                Style::Bold,
                INK,
                l.geom.margin_x,
                l.geom.content_width(),
                0.0,
            );
            mono_block(l, c, 7.5);
        }
        if let Some(c) = &a.reproduce {
            l.paragraph(
                "To run it again (the password comes from MYSQL_PWD or the prompt):",
                8.5,
                Style::Bold,
                INK,
                l.geom.margin_x,
                l.geom.content_width(),
                0.0,
            );
            mono_block(l, c, 7.5);
        }
        // The full plan, compact: reproducible without filling pages.
        let compact = serde_json::from_str::<serde_json::Value>(&a.plan_json)
            .map(|v| v.to_string())
            .unwrap_or_else(|_| a.plan_json.clone());
        l.paragraph(
            "Plan (JSON):",
            8.5,
            Style::Bold,
            INK,
            l.geom.margin_x,
            l.geom.content_width(),
            0.0,
        );
        mono_block(l, &compact, 6.2);
        let y = l.y;
        l.hline(
            l.geom.margin_x,
            l.geom.margin_x + l.geom.content_width(),
            y,
            LINE,
            0.5,
        );
        l.y += 6.0;
    }
}
