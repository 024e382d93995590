//! The pages after the cover: the environments side by side, the analysis (headlines,
//! knee and bottleneck per scenario, cold starts), and the warnings.
//!
//! Non-goals: judging anything (the model classifies and words it); per-scenario detail
//! (the scenario pages).

use printpdf::PdfDocument;

use super::{BAD, BODY};
use crate::charts::Chart;
use crate::error::ReportError;
use crate::model::{BottleneckClass, Report, Severity};
use crate::render::pdf::chart;
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, ACCENT, INK, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};

/// Fill of an environment fact that differs between the compared runs.
const DIFFERS: &str = "#fff3c4";

pub(super) fn environments(l: &mut Layout, r: &Report) {
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

pub(super) fn analysis(
    l: &mut Layout,
    doc: &mut PdfDocument,
    r: &Report,
    trend_charts: &[Chart],
    forms: &chart::Forms,
) -> Result<(), ReportError> {
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
    if !r.trends.is_empty() {
        l.heading("Trends over time", 2, 30.0);
        for (t, c) in r.trends.iter().zip(trend_charts) {
            l.bullet(&t.summary, BODY, INK, "#0072B2");
            for c in &t.changes {
                l.bullet(&format!("    {c}"), BODY, INK, "#FFFFFF");
            }
            super::place_wide(l, doc, c, forms)?;
        }
    }
    Ok(())
}

pub(super) fn warnings(l: &mut Layout, r: &Report) {
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
