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

/// Every chart's PDF form, looked up by the chart it was converted from, so that the
/// order in which sections place charts cannot hand one chart another's shapes.
pub struct Forms<'a> {
    forms: Vec<(&'a Chart, ExternalXObject)>,
    /// What printpdf's SVG import reported while converting (non-fatal), per chart.
    pub warnings: Vec<String>,
}

impl Forms<'_> {
    pub fn get(&self, chart: &Chart) -> Result<&ExternalXObject, ReportError> {
        self.forms
            .iter()
            .find(|(c, _)| std::ptr::eq(*c, chart))
            .map(|(_, f)| f)
            .ok_or_else(|| {
                ReportError::Chart(format!("chart {:?} was not converted", chart_title(chart)))
            })
    }
}

fn chart_title(c: &Chart) -> &str {
    c.labels.first().map(|l| l.text.as_str()).unwrap_or("?")
}

/// Converts every chart's shapes to a PDF form, on up to four threads.
pub fn convert_all<'a>(charts: &[&'a Chart]) -> Result<Forms<'a>, ReportError> {
    let docs: Vec<String> = charts.iter().map(|c| c.to_shapes_document()).collect();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 4);
    let chunk = docs.len().div_ceil(workers).max(1);
    type Converted = (Result<ExternalXObject, String>, Vec<String>);
    let results: Vec<Converted> = std::thread::scope(|s| {
        let handles: Vec<_> = docs
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|d| {
                            let mut w = Vec::new();
                            let form = Svg::parse(d, &mut w);
                            (
                                form,
                                w.into_iter()
                                    .map(|w| format!("{:?}: {}", w.severity, w.msg))
                                    .collect(),
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![(Err("the SVG converter panicked".to_string()), Vec::new())]
                })
            })
            .collect()
    });
    let mut forms = Vec::with_capacity(charts.len());
    let mut warnings = Vec::new();
    for (chart, (form, w)) in charts.iter().zip(results) {
        let form = form.map_err(|e| ReportError::Chart(format!("{}: {e}", chart_title(chart))))?;
        warnings.extend(
            w.into_iter()
                .map(|w| format!("chart {:?}: {w}", chart_title(chart))),
        );
        forms.push((*chart, form));
    }
    Ok(Forms { forms, warnings })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::line::{LineChart, Series, Side, XAxis};

    fn chart(title: &str) -> Chart {
        LineChart {
            title: title.into(),
            x: XAxis::Categories(vec!["1".into(), "8".into()]),
            x_title: "threads".into(),
            y_title: "QPS".into(),
            y_right_title: None,
            y_max: None,
            series: vec![Series {
                name: "lab".into(),
                colour: "#0072B2",
                points: vec![(0.0, 1.0), (1.0, 2.0)],
                dashed: false,
                markers: true,
                side: Side::Left,
            }],
            width: 480.0,
            height: 260.0,
        }
        .render()
    }

    #[test]
    fn forms_are_found_by_their_chart_not_by_order() {
        let (a, b, c) = (chart("a"), chart("b"), chart("c"));
        let forms = convert_all(&[&a, &b]).unwrap();
        assert!(forms.warnings.is_empty(), "{:?}", forms.warnings);
        // Asked in the other order, each chart still gets its own form.
        assert!(forms.get(&b).is_ok() && forms.get(&a).is_ok());
        assert!(!std::ptr::eq(
            forms.get(&a).unwrap(),
            forms.get(&b).unwrap()
        ));
        let e = forms.get(&c).unwrap_err().to_string();
        assert!(e.contains("\"c\""), "{e}");
    }

    /// In the PDF a label is real text in the report's font, and `place` shortens one
    /// that does not fit the room it has: every tick label of the left axis must fit that
    /// room in the built-in font at the size the PDF places a small chart, so none is cut.
    #[test]
    fn tick_labels_fit_their_room_in_the_pdf_font() {
        use crate::charts::line::tests::{charts_over_magnitudes, extent, left_ticks};
        let font = super::super::font::Embedded::load().unwrap();
        // A small chart (300 units) in half of an A4 page's content width.
        let placed = 250.0_f32;
        for c in charts_over_magnitudes() {
            let scale = placed / c.width as f32;
            for l in left_ticks(&c) {
                let size = l.size as f32 * scale;
                let width = font.regular.width(&l.text, size);
                // As `place` reckons it for a right-aligned label.
                let room = l.x as f32 * scale - 4.0;
                assert!(
                    width <= room,
                    "{:?} is {width} pt wide with {room} pt of room",
                    l.text
                );
                let (start, _) = extent(l, (width / scale) as f64);
                assert!(start >= 0.0, "{:?}", l.text);
            }
        }
    }
}
