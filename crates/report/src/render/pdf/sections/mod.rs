//! The PDF's sections, in reading order: cover (executive summary, verdict, key figures),
//! environments, analysis, one section per scenario, timeline and latency, warnings,
//! appendix.
//!
//! - [`cover`]: the title band, the verdict, the executive summary and the key figures;
//! - [`analysis`]: the environments compared, knees and bottlenecks, warnings;
//! - [`scenario`]: one scenario's page (charts, per-environment table, side by side);
//! - [`tpcc`]: tpcc's page adds tpmC by threads and the per-transaction table;
//! - [`timeline`]: the chosen step second by second, and its latency distribution;
//! - [`appendix`]: what it takes to run each run again.
//!
//! This module holds the order and the colours the sections share. Non-goals: page
//! geometry, text and tables ([`super::layout`], [`super::table`]); figures (the model).

use printpdf::PdfDocument;

use super::chart;
use super::layout::Layout;
use crate::charts::{Chart, ReportCharts};
use crate::error::ReportError;
use crate::model::Report;

mod analysis;
mod appendix;
mod cover;
mod hardware;
mod scenario;
mod timeline;
mod tpcc;

const GOOD: &str = "#1b7f3b";
const BAD: &str = "#b3261e";
const BODY: f32 = 9.5;
const SMALL: f32 = 7.6;

/// Every chart the PDF places: per scenario (QPS, TPS, p95, efficiency, tpmC), timelines,
/// latency.
fn placement_order(c: &ReportCharts) -> Vec<&Chart> {
    let mut v = Vec::new();
    for s in &c.scenarios {
        v.extend(
            [
                Some(&s.qps),
                Some(&s.tps),
                Some(&s.p95),
                s.efficiency.as_ref(),
                s.tpmc.as_ref(),
            ]
            .into_iter()
            .flatten(),
        );
    }
    v.extend(c.timelines.iter());
    v.extend(c.latency.iter());
    v.extend(c.trends.iter());
    v
}

/// A chart across the content width at the current position, on a new page if it does
/// not fit.
fn place_wide(
    l: &mut Layout,
    doc: &mut PdfDocument,
    c: &Chart,
    forms: &chart::Forms,
) -> Result<(), ReportError> {
    let w = l.geom.content_width();
    let h = c.height as f32 * w / c.width as f32;
    l.need(h + 10.0);
    let y = l.y;
    let form = forms.get(c)?;
    let x = l.geom.margin_x;
    chart::place(l, doc, c, form, x, y, w);
    l.y = y + h + 10.0;
    Ok(())
}

pub fn render_all(
    l: &mut Layout,
    doc: &mut PdfDocument,
    r: &Report,
    charts: &ReportCharts,
) -> Result<Vec<String>, ReportError> {
    let forms = chart::convert_all(&placement_order(charts))?;
    cover::cover(l, r);
    l.new_page();
    analysis::environments(l, r);
    hardware::hardware(l, r);
    analysis::analysis(l, doc, r, &charts.trends, &forms)?;
    for (s, c) in r.scenarios.iter().zip(&charts.scenarios) {
        l.new_page();
        scenario::scenario(l, doc, r, s, c, &forms)?;
        if s.scenario == dbdyno_engine::Scenario::Tpcc {
            tpcc::tables(l, r);
        }
    }
    if !charts.timelines.is_empty() || charts.latency.is_some() {
        l.new_page();
        timeline::timeline(l, doc, r, charts, &forms)?;
    }
    analysis::warnings(l, r);
    l.new_page();
    appendix::appendix(l, r);
    Ok(forms.warnings)
}
