//! The timeline page: the chosen step second by second on each environment (throughput
//! with the server's CPU and disk), its latency distribution, and the percentiles behind
//! it.
//!
//! Non-goals: choosing the step (the model does, or `--timeline`).

use printpdf::PdfDocument;

use super::BODY;
use crate::charts::ReportCharts;
use crate::error::ReportError;
use crate::format;
use crate::model::Report;
use crate::render::pdf::chart;
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};

pub(super) fn timeline(
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
    for c in charts.timelines.iter().chain(charts.latency.iter()) {
        super::place_wide(l, doc, c, forms)?;
    }
    percentiles(l, r);
    Ok(())
}

/// Transactions and percentiles of the distribution, one row per environment.
fn percentiles(l: &mut Layout, r: &Report) {
    let Some(d) = &r.latency_distribution else {
        return;
    };
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
