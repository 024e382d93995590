//! Charts in the PDF: the chart's shapes go in as a vector form XObject through printpdf's
//! SVG import (svg2pdf), and its labels are written over them as real PDF text in the
//! report's font, so axis values and environment names are searchable and CJK-safe.
//!
//! The SVG import converts the shapes on both cores at once: it is the slowest part of
//! rendering (it loads the system font list for every SVG, even one without text).
//!
//! About printpdf issue #211 (an SVG form whose resources named a colour space that did
//! not match its content: poppler's "Bad color space 'cs0'", Acrobat refusing to draw
//! it): printpdf 0.12 carries svg2pdf's own `/Resources` over into the form, so no
//! patching is needed here; `crates/report/tests/render_pdf.rs` renders every page with
//! pdftoppm and fails on any "Bad color space" or "Syntax Error" so that a regression is
//! caught.

use printpdf::{ExternalXObject, Op, PdfDocument, Pt, Svg, XObjectTransform};

use super::font::Style;
use super::layout::{Align, Layout};
use crate::charts::{Anchor, Chart};
use crate::error::ReportError;

/// Converts every chart's shapes to a PDF form, two at a time.
pub fn convert_all(charts: &[&Chart]) -> Result<Vec<ExternalXObject>, ReportError> {
    let docs: Vec<String> = charts.iter().map(|c| c.to_shapes_document()).collect();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let chunk = docs.len().div_ceil(workers).max(1);
    let results: Vec<Result<ExternalXObject, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = docs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|d| Svg::parse(d, &mut Vec::new()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec![Err("the SVG converter panicked".to_string())])
            })
            .collect()
    });
    results
        .into_iter()
        .map(|r| r.map_err(ReportError::Chart))
        .collect()
}

/// Places a converted chart with its top-left corner at (`x`, `y`) and `width` points
/// wide; returns its height.
pub fn place(
    l: &mut Layout,
    doc: &mut PdfDocument,
    chart: &Chart,
    form: &ExternalXObject,
    x: f32,
    y: f32,
    width: f32,
) -> f32 {
    let scale = width / chart.width as f32;
    let h = chart.height as f32 * scale;
    let id = doc.add_xobject(form);
    let page_h = l.geom.height;
    l.ops().push(Op::UseXobject {
        id,
        transform: XObjectTransform {
            translate_x: Some(Pt(x)),
            translate_y: Some(Pt(page_h - y - h)),
            scale_x: Some(scale),
            scale_y: Some(scale),
            // 1 SVG unit = 1 pt before scaling (printpdf's default of 300 dpi would shrink it).
            dpi: Some(72.0),
            ..Default::default()
        },
    });
    for lab in &chart.labels {
        let align = match lab.anchor {
            Anchor::Start => Align::Left,
            Anchor::Middle => Align::Center,
            Anchor::End => Align::Right,
        };
        let style = if lab.bold {
            Style::Bold
        } else {
            Style::Regular
        };
        let size = lab.size as f32 * scale;
        let lx = x + lab.x as f32 * scale;
        let ly = y + lab.y as f32 * scale;
        // Legend names and titles may be longer than the space the chart left them.
        let max_w = match align {
            Align::Left => x + width - lx - 4.0,
            Align::Right => lx - x - 4.0,
            Align::Center => width,
        };
        let text = l.fit(&lab.text, size, style, max_w.max(10.0));
        l.text(lx, ly, size, style, lab.colour, align, &text);
    }
    h
}
