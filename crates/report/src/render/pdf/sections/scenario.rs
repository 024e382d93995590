//! One scenario's page: a line per environment (best thread count, bottleneck), the
//! charts in a 2 × 2 grid, every step per environment, and the side-by-side comparison
//! against the baseline.
//!
//! Non-goals: the side-by-side table's content (shared with HTML and Markdown in
//! [`crate::render::side`]); the chosen step's timeline (the timeline page).

use printpdf::PdfDocument;

use super::{BAD, GOOD, SMALL};
use crate::charts::{Chart, ScenarioCharts};
use crate::error::ReportError;
use crate::format;
use crate::model::{Cell, EnvScenario, Report, ScenarioReport};
use crate::render::pdf::chart;
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, INK, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};
use crate::render::side;

/// Fill of the best thread count's row.
const KNEE: &str = "#eaf3fb";
/// Text colour of a step cut short.
const CANCELLED: &str = "#8a6d00";
/// Text colour of a cell within noise: neither good nor bad, and not missing either.
const NOISE: &str = "#5b4a9e";

pub(super) fn scenario(
    l: &mut Layout,
    doc: &mut PdfDocument,
    r: &Report,
    s: &ScenarioReport,
    c: &ScenarioCharts,
    forms: &chart::Forms,
) -> Result<(), ReportError> {
    l.heading(s.scenario.name(), 1, 200.0);
    env_lines(l, r, s);
    l.y += 4.0;
    chart_grid(l, doc, c, forms)?;
    per_environment(l, r, s);
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

/// One bullet per environment that ran the scenario: best thread count and bottleneck.
fn env_lines(l: &mut Layout, r: &Report, s: &ScenarioReport) {
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
}

/// The scenario's charts in a 2 × 2 grid.
fn chart_grid(
    l: &mut Layout,
    doc: &mut PdfDocument,
    c: &ScenarioCharts,
    forms: &chart::Forms,
) -> Result<(), ReportError> {
    let list: Vec<&Chart> = [
        Some(&c.qps),
        Some(&c.tps),
        Some(&c.p95),
        c.efficiency.as_ref(),
        c.tpmc.as_ref(),
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
    Ok(())
}

/// Every step of every environment; the best thread count's row is shaded and starred.
fn per_environment(l: &mut Layout, r: &Report, s: &ScenarioReport) {
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
    let rows: Vec<Row> = s
        .envs
        .iter()
        .flat_map(|e| e.present().map(move |cell| step_row(r, e, cell)))
        .collect();
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
}

fn step_row(r: &Report, e: &EnvScenario, cell: &Cell) -> Row {
    let knee = Some(cell.threads) == e.knee.best_threads && !cell.cancelled;
    let samples = match (cell.samples, cell.expected_samples) {
        (Some(a), Some(b)) if a < b => CellText::coloured(format!("{a}/{b}"), BAD, Style::Bold),
        (Some(a), Some(b)) => CellText::plain(format!("{a}/{b}")),
        (Some(a), None) => CellText::plain(a.to_string()),
        _ => CellText::plain("—"),
    };
    let style = if knee { Style::Bold } else { Style::Regular };
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
    .filled(knee.then_some(KNEE))
}

fn opt(v: Option<f64>, f: fn(f64) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".into())
}

/// The side-by-side table: Δ columns get the room their intervals need, verdict columns
/// the room of their reasons.
fn side_table(l: &mut Layout, heading: &str, t: &side::SideTable) {
    let cols: Vec<Column> = t
        .columns
        .iter()
        .map(|c| {
            if c.numeric && c.title.starts_with('Δ') {
                // The Δ's interval, "−13.0…−10.6", on a line of its own under it.
                Column::new(c.title.clone(), 1.3, Align::Right)
            } else if c.title == "Threads" {
                Column::new(c.title.clone(), 1.1, Align::Right)
            } else if c.numeric {
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
            Row::new(row.iter().map(side_cell).collect()).filled(failed.then_some("#fdf0ee"))
        })
        .collect();
    // Many environments make many columns: a smaller size keeps figures on one line.
    let size = if cols.len() > 8 { 6.4 } else { 7.6 };
    table::draw_headed(l, heading, 2, &cols, &rows, size);
}

fn side_cell(f: &side::Field) -> CellText {
    let (colour, style) = match f.tone {
        side::Tone::Plain => (INK, Style::Regular),
        side::Tone::Good => (GOOD, Style::Regular),
        side::Tone::Bad => (BAD, Style::Regular),
        side::Tone::Muted => (MUTED, Style::Regular),
        side::Tone::Cancelled => (CANCELLED, Style::Regular),
        side::Tone::Regressed => (BAD, Style::Bold),
        side::Tone::Improved => (GOOD, Style::Bold),
        side::Tone::Noise => (NOISE, Style::Regular),
    };
    let cell = CellText::coloured(f.text.clone(), colour, style);
    match (&f.range, &f.note) {
        (Some(r), _) => cell.with_note(r.clone()),
        (None, Some(n)) => cell.with_note(n.clone()),
        (None, None) => cell,
    }
}
