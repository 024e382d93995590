//! Charts as SVG, written by hand: one module serves the HTML (inline `<svg>`) and the PDF
//! (the same shapes embedded as a vector form through printpdf's SVG import).
//!
//! A [`Chart`] keeps its shapes and its text apart. The HTML gets both in one `<svg>`; the
//! PDF embeds the shapes and writes every [`Label`] as real PDF text in the report's font,
//! because SVG text would become outlines there (not searchable, and CJK environment names
//! would need the SVG importer to find a CJK font of its own).
//!
//! - [`line`]: line charts over thread counts, seconds or a log scale of milliseconds;
//! - [`scale`]: axis ranges, "nice" ticks and tick labels;
//! - [`svg`]: escaping and number formatting for SVG attributes;
//! - [`report_charts`]: the charts of a report model (dyno curves, p95, efficiency,
//!   timeline, latency distribution).
//!
//! Non-goals: interactivity, animation, a general plotting library.

pub mod line;
pub mod report_charts;
pub mod scale;
pub mod svg;

pub use report_charts::{ReportCharts, ScenarioCharts};

/// Colours of the series, in environment order: Okabe–Ito, readable by colour-blind
/// readers and in greyscale print.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
];

/// Colour of environment `i`.
pub fn env_colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Text colours.
pub const INK: &str = "#1a1a2e";
pub const MUTED: &str = "#5b6275";

/// Horizontal placement of a label relative to its x coordinate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn svg(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// A piece of chart text, positioned in the chart's user units (origin top left, `y` is
/// the baseline).
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub anchor: Anchor,
    pub bold: bool,
    pub colour: &'static str,
    pub text: String,
}

/// A finished chart: shapes without text, and the text separately.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub width: f64,
    pub height: f64,
    /// Accessible name of the chart (its title).
    pub title: String,
    /// SVG elements (paths, rects, circles) without any `<text>`.
    pub shapes: String,
    pub labels: Vec<Label>,
}

/// Font stack of the HTML charts: the system's sans-serif, with CJK fallbacks.
pub const HTML_FONTS: &str =
    "system-ui,-apple-system,'Segoe UI','Noto Sans','Noto Sans CJK SC','Droid Sans Fallback','Microsoft YaHei',sans-serif";

impl Chart {
    /// The chart as inline SVG for HTML: shapes and text, no namespace declaration (HTML
    /// parsers put `<svg>` in the SVG namespace themselves; it keeps the report free of URLs).
    pub fn to_inline_svg(&self) -> String {
        let mut s = String::with_capacity(self.shapes.len() + self.labels.len() * 120 + 200);
        s.push_str(&format!(
            "<svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{t}\" font-family=\"{f}\">",
            w = svg::num(self.width),
            h = svg::num(self.height),
            t = svg::escape(&self.title),
            f = HTML_FONTS,
        ));
        s.push_str(&self.shapes);
        for l in &self.labels {
            s.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\" fill=\"{}\"{}>{}</text>",
                svg::num(l.x),
                svg::num(l.y),
                svg::num(l.size),
                l.anchor.svg(),
                l.colour,
                if l.bold { " font-weight=\"600\"" } else { "" },
                svg::escape(&l.text)
            ));
        }
        s.push_str("</svg>");
        s
    }

    /// The shapes alone as a standalone SVG document, for the PDF's vector import.
    pub fn to_shapes_document(&self) -> String {
        format!(
            "<svg xmlns=\"{ns}\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">{}</svg>",
            self.shapes,
            ns = svg::SVG_NS,
            w = svg::num(self.width),
            h = svg::num(self.height),
        )
    }
}
