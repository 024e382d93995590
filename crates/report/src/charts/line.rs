//! Line charts: series over thread counts (evenly spaced categories, the dyno curve),
//! over seconds (a timeline), or over a log scale (latency distribution), with an optional
//! right-hand percent axis for server CPU and disk.

use std::fmt::Write as _;

use super::scale::{log_ticks, nice_ticks, tick_label};
use super::svg::num;
use super::{Anchor, Chart, Label, INK, MUTED};

/// How x values map to positions.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// x = 0, 1, 2, … are evenly spaced and labelled with these names.
    Categories(Vec<String>),
    Linear {
        min: f64,
        max: f64,
    },
    Log {
        min: f64,
        max: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    /// The 0–100% axis on the right.
    Right,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    pub colour: &'static str,
    /// (x, y); a non-finite y breaks the line.
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
    pub markers: bool,
    pub side: Side,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    pub title: String,
    pub x: XAxis,
    pub x_title: String,
    pub y_title: String,
    /// Title of the right-hand 0–100% axis; `None` hides it.
    pub y_right_title: Option<String>,
    /// The left axis reaches at least this far: charts meant to be compared (one step on
    /// several environments) share it, so that equal heights mean equal values.
    pub y_max: Option<f64>,
    pub series: Vec<Series>,
    pub width: f64,
    pub height: f64,
}

const TITLE_SIZE: f64 = 12.5;
const TEXT_SIZE: f64 = 9.0;
const LEGEND_SIZE: f64 = 9.5;
/// The narrowest left margin, and what a tick label keeps from the chart's edge and from
/// the axis.
const MIN_LEFT: f64 = 52.0;
const EDGE: f64 = 8.0;
const TICK_GAP: f64 = 6.0;
const GRID: &str = "#e3e6ee";
const AXIS: &str = "#9aa1b1";

/// Rough advance width of `s` at `size`: CJK and other wide characters count double. Used
/// to lay out legends; generous so that real fonts fit.
pub fn approx_width(s: &str, size: f64) -> f64 {
    s.chars()
        .map(|c| {
            if c as u32 >= 0x2E80 {
                1.0
            } else if "mwMW@%".contains(c) {
                // The widest Latin letters (Liberation Sans' M is 0.83 em, W 0.94).
                0.9
            } else if c.is_ascii_uppercase() {
                0.68
            } else {
                0.56
            }
        })
        .sum::<f64>()
        * size
}

/// What a chart draws into: SVG shapes, and the text laid over them (kept apart, see
/// [`Chart`]).
struct Canvas {
    shapes: String,
    labels: Vec<Label>,
}

impl Canvas {
    fn label(
        &mut self,
        (x, y): (f64, f64),
        size: f64,
        anchor: Anchor,
        bold: bool,
        colour: &'static str,
        text: String,
    ) {
        self.labels.push(Label {
            x,
            y,
            size,
            anchor,
            bold,
            colour,
            text,
        })
    }
}

/// The plotting area, in chart units.
#[derive(Debug, Clone, Copy)]
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Frame {
    fn width(&self) -> f64 {
        self.right - self.left
    }

    fn height(&self) -> f64 {
        self.bottom - self.top
    }
}

/// Where values land vertically: the left axis runs from 0 to `top`, the right one from 0
/// to 100% over the same height.
struct YScale {
    bottom: f64,
    height: f64,
    top: f64,
}

impl YScale {
    fn left(&self, v: f64) -> f64 {
        self.bottom - v / self.top * self.height
    }

    fn right(&self, v: f64) -> f64 {
        self.bottom - v / 100.0 * self.height
    }

    fn of(&self, side: Side, v: f64) -> f64 {
        match side {
            Side::Left => self.left(v),
            Side::Right => self.right(v.clamp(0.0, 100.0)),
        }
    }
}

type XScale = Box<dyn Fn(f64) -> f64>;

impl LineChart {
    pub fn render(&self) -> Chart {
        let mut c = Canvas {
            shapes: String::with_capacity(4096),
            labels: Vec::new(),
        };
        self.card(&mut c);
        let legend_bottom = self.legend(&mut c);
        let yticks = self.y_ticks();
        let frame = self.frame(legend_bottom, &yticks);
        let (y, steps) = self.left_axis(&mut c, frame, &yticks);
        if let Some(t) = &self.y_right_title {
            self.right_axis(&mut c, frame, &y, steps, t);
        }
        let x = self.x_scale(frame);
        self.x_axis(&mut c, frame, &x);
        for s in &self.series {
            series(&mut c, s, &x, &y);
        }
        Chart {
            width: self.width,
            height: self.height,
            title: self.title.clone(),
            shapes: c.shapes,
            labels: c.labels,
        }
    }

    /// Background, so the chart reads as a card on the page and in the PDF, and the title.
    fn card(&self, c: &mut Canvas) {
        let _ = write!(
            c.shapes,
            "<rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"#ffffff\" stroke=\"#dfe3ea\"/>",
            num(self.width - 1.0),
            num(self.height - 1.0)
        );
        c.label(
            (12.0, 20.0),
            TITLE_SIZE,
            Anchor::Start,
            true,
            INK,
            self.title.clone(),
        );
    }

    /// Legend rows under the title; returns the baseline of the last row.
    fn legend(&self, c: &mut Canvas) -> f64 {
        let mut lx = 12.0;
        let mut ly = 36.0;
        for s in &self.series {
            let item = 22.0 + approx_width(&s.name, LEGEND_SIZE) + 14.0;
            if lx > 12.0 && lx + item > self.width - 8.0 {
                lx = 12.0;
                ly += 15.0;
            }
            let _ = write!(
                c.shapes,
                "<path d=\"M{} {}h16\" stroke=\"{}\" stroke-width=\"2.5\"{}/>",
                num(lx),
                num(ly - 3.5),
                s.colour,
                if s.dashed {
                    " stroke-dasharray=\"4 3\""
                } else {
                    ""
                }
            );
            c.label(
                (lx + 21.0, ly),
                LEGEND_SIZE,
                Anchor::Start,
                false,
                INK,
                s.name.clone(),
            );
            lx += item;
        }
        ly
    }

    /// The plotting area: the left margin as wide as the widest tick label needs (a fixed
    /// one cut long labels at the chart's edge), never narrower than [`MIN_LEFT`].
    fn frame(&self, legend_bottom: f64, yticks: &[f64]) -> Frame {
        let right_axis = self.y_right_title.is_some();
        let widest = yticks
            .iter()
            .map(|t| approx_width(&tick_label(*t), TEXT_SIZE))
            .fold(0.0, f64::max);
        Frame {
            left: MIN_LEFT.max(EDGE + widest + TICK_GAP),
            right: self.width - if right_axis { 40.0 } else { 16.0 },
            top: legend_bottom + 22.0,
            bottom: self.height - 34.0,
        }
    }

    /// The left axis's ticks: 0 to a nice maximum over the left-hand series.
    fn y_ticks(&self) -> Vec<f64> {
        let ymax = self
            .series
            .iter()
            .filter(|s| s.side == Side::Left)
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .filter(|v| v.is_finite())
            .fold(self.y_max.unwrap_or(0.0), f64::max);
        nice_ticks(0.0, ymax, 5)
    }

    /// Left y axis, 0 to a nice maximum: grid lines, tick labels and title. Returns the
    /// scale and the number of grid steps.
    fn left_axis(&self, c: &mut Canvas, f: Frame, yticks: &[f64]) -> (YScale, usize) {
        let y = YScale {
            bottom: f.bottom,
            height: f.height(),
            top: *yticks.last().unwrap_or(&1.0),
        };
        for t in yticks {
            let py = y.left(*t);
            let _ = write!(
                c.shapes,
                "<path d=\"M{} {}H{}\" stroke=\"{GRID}\" stroke-width=\"1\"/>",
                num(f.left),
                num(py),
                num(f.right)
            );
            c.label(
                (f.left - TICK_GAP, py + 3.0),
                TEXT_SIZE,
                Anchor::End,
                false,
                MUTED,
                tick_label(*t),
            );
        }
        c.label(
            (8.0, f.top - 8.0),
            TEXT_SIZE,
            Anchor::Start,
            true,
            MUTED,
            self.y_title.clone(),
        );
        (y, yticks.len().saturating_sub(1).max(1))
    }

    /// The right-hand 0–100% axis: one percent label on each grid line of the left axis,
    /// so that both axes read off the same lines (0–100% spans the same height as the left
    /// axis).
    fn right_axis(&self, c: &mut Canvas, f: Frame, y: &YScale, steps: usize, title: &str) {
        for k in 0..=steps {
            let v = k as f64 * 100.0 / steps as f64;
            c.label(
                (f.right + 6.0, y.right(v) + 3.0),
                TEXT_SIZE,
                Anchor::Start,
                false,
                MUTED,
                format!("{v:.0}%"),
            );
        }
        c.label(
            (self.width - 8.0, f.top - 8.0),
            TEXT_SIZE,
            Anchor::End,
            true,
            MUTED,
            title.to_string(),
        );
    }

    fn x_scale(&self, f: Frame) -> XScale {
        let (left, pw) = (f.left, f.width());
        match &self.x {
            XAxis::Categories(names) => {
                let n = names.len();
                let pad = 14.0;
                if n <= 1 {
                    Box::new(move |_| left + pw / 2.0)
                } else {
                    let stepw = (pw - 2.0 * pad) / (n - 1) as f64;
                    Box::new(move |x| left + pad + x * stepw)
                }
            }
            XAxis::Linear { min, max } => {
                let (a, b) = (*min, if max > min { *max } else { min + 1.0 });
                Box::new(move |x| left + (x - a) / (b - a) * pw)
            }
            XAxis::Log { min, max } => {
                let ticks = log_ticks(*min, *max);
                let a = ticks.first().copied().unwrap_or(0.1).log10();
                let b = ticks.last().copied().unwrap_or(10.0).log10();
                Box::new(move |x| left + (x.max(1e-9).log10() - a) / (b - a) * pw)
            }
        }
    }

    fn x_ticks(&self) -> Vec<(f64, String)> {
        match &self.x {
            XAxis::Categories(names) => names
                .iter()
                .enumerate()
                .map(|(i, n)| (i as f64, n.clone()))
                .collect(),
            XAxis::Linear { min, max } => nice_ticks(*min, *max, 6)
                .into_iter()
                .filter(|t| *t <= *max + 1e-9)
                .map(|t| (t, tick_label(t)))
                .collect(),
            XAxis::Log { min, max } => log_ticks(*min, *max)
                .into_iter()
                .map(|t| (t, tick_label(t)))
                .collect(),
        }
    }

    /// X axis: ticks and their labels (grid lines too, except between categories), the
    /// axis lines and the x title.
    fn x_axis(&self, c: &mut Canvas, f: Frame, xpos: &XScale) {
        let ticks = self.x_ticks();
        let every = label_stride(&ticks, xpos);
        for (i, (x, name)) in ticks.iter().enumerate() {
            let px = xpos(*x);
            if !matches!(self.x, XAxis::Categories(_)) {
                let _ = write!(
                    c.shapes,
                    "<path d=\"M{} {}V{}\" stroke=\"{GRID}\" stroke-width=\"1\"/>",
                    num(px),
                    num(f.top),
                    num(f.bottom)
                );
            }
            let _ = write!(
                c.shapes,
                "<path d=\"M{} {}v4\" stroke=\"{AXIS}\" stroke-width=\"1\"/>",
                num(px),
                num(f.bottom)
            );
            if i % every == 0 {
                c.label(
                    (px, f.bottom + 14.0),
                    TEXT_SIZE,
                    Anchor::Middle,
                    false,
                    MUTED,
                    name.clone(),
                );
            }
        }
        let _ = write!(
            c.shapes,
            "<path d=\"M{l} {t}V{b}H{r}\" fill=\"none\" stroke=\"{AXIS}\" stroke-width=\"1\"/>",
            l = num(f.left),
            t = num(f.top),
            b = num(f.bottom),
            r = num(f.right)
        );
        c.label(
            (f.left + f.width() / 2.0, self.height - 6.0),
            TEXT_SIZE,
            Anchor::Middle,
            false,
            MUTED,
            self.x_title.clone(),
        );
    }
}

/// Every how many ticks the x axis is labelled: 1 when the labels fit side by side, else
/// the smallest stride at which neighbours no longer overlap (a long ladder on a small
/// chart), so that no label is drawn over another.
fn label_stride(ticks: &[(f64, String)], xpos: &XScale) -> usize {
    let fits = |k: usize| {
        ticks
            .iter()
            .step_by(k)
            .collect::<Vec<_>>()
            .windows(2)
            .all(|w| {
                let gap = xpos(w[1].0) - xpos(w[0].0);
                let room =
                    (approx_width(&w[0].1, TEXT_SIZE) + approx_width(&w[1].1, TEXT_SIZE)) / 2.0;
                gap >= room + 2.0
            })
    };
    (1..ticks.len().max(1))
        .find(|&k| fits(k))
        .unwrap_or(ticks.len().max(1))
}

/// One series: its line (broken where a value is missing) and its markers.
fn series(c: &mut Canvas, s: &Series, xpos: &XScale, y: &YScale) {
    let mut d = String::new();
    let mut pen_down = false;
    for &(x, v) in &s.points {
        if !v.is_finite() || !x.is_finite() {
            pen_down = false;
            continue;
        }
        let _ = write!(
            d,
            "{}{} {}",
            if pen_down { "L" } else { "M" },
            num(xpos(x)),
            num(y.of(s.side, v))
        );
        pen_down = true;
    }
    if !d.is_empty() {
        let _ = write!(
            c.shapes,
            "<path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linejoin=\"round\" stroke-linecap=\"round\"{}/>",
            s.colour,
            if s.side == Side::Right { "1.5" } else { "2.2" },
            if s.dashed { " stroke-dasharray=\"5 3\"" } else { "" }
        );
    }
    if s.markers {
        for &(x, v) in s.points.iter().filter(|p| p.1.is_finite()) {
            let _ = write!(
                c.shapes,
                "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"1\"/>",
                num(xpos(x)),
                num(y.of(s.side, v)),
                s.colour
            );
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn chart() -> LineChart {
        LineChart {
            title: "QPS <by> threads".into(),
            x: XAxis::Categories(vec!["1".into(), "128".into()]),
            x_title: "threads".into(),
            y_title: "QPS".into(),
            y_right_title: None,
            y_max: None,
            series: vec![Series {
                name: "华为云 & <b>".into(),
                colour: "#0072B2",
                points: vec![(0.0, 17_109.0), (1.0, 321_410.0)],
                dashed: false,
                markers: true,
                side: Side::Left,
            }],
            width: 480.0,
            height: 260.0,
        }
    }

    #[test]
    fn right_axis_labels_sit_on_the_left_axis_grid_lines() {
        for top in [321_410.0, 1.83, 70.0, 5_500.0] {
            let mut c = chart();
            c.y_right_title = Some("CPU, disk".into());
            c.series[0].points[1].1 = top;
            let r = c.render();
            let ys = |f: &dyn Fn(&crate::charts::Label) -> bool| {
                let mut v: Vec<i64> = r
                    .labels
                    .iter()
                    .filter(|l| f(l))
                    .map(|l| (l.y * 100.0).round() as i64)
                    .collect();
                v.sort();
                v
            };
            let right = ys(&|l| l.text.ends_with('%') && l.anchor == Anchor::Start);
            let left = ys(&|l| l.anchor == Anchor::End && !l.bold && l.x < 60.0);
            assert_eq!(right, left, "top {top}");
        }
    }

    #[test]
    fn a_shared_maximum_sets_the_left_axis() {
        let mut c = chart();
        c.y_max = Some(900_000.0);
        let texts: Vec<String> = c.render().labels.into_iter().map(|l| l.text).collect();
        assert!(texts.contains(&"1M".to_string()), "{texts:?}");
    }

    #[test]
    fn shapes_carry_no_text_and_labels_carry_all_of_it() {
        let c = chart().render();
        assert!(!c.shapes.contains("<text"));
        let texts: Vec<&str> = c.labels.iter().map(|l| l.text.as_str()).collect();
        assert!(texts.contains(&"华为云 & <b>"));
        assert!(texts.contains(&"400k"), "{texts:?}");
        assert_eq!(c.shapes.matches("<circle").count(), 2);
    }

    #[test]
    fn inline_svg_escapes_and_has_no_urls() {
        let s = chart().render().to_inline_svg();
        assert!(s.contains("华为云 &amp; &lt;b&gt;"));
        assert!(!s.contains("<b>"));
        assert!(!s.contains("http"));
    }

    #[test]
    fn a_gap_breaks_the_line() {
        let mut c = chart();
        c.x = XAxis::Categories(vec!["1".into(), "8".into(), "16".into()]);
        c.series[0].points = vec![(0.0, 1.0), (1.0, f64::NAN), (2.0, 3.0)];
        let shapes = c.render().shapes;
        let path = shapes
            .split("<path d=\"")
            .find(|p| p.contains("stroke=\"#0072B2\" stroke-width=\"2.2\""))
            .unwrap();
        assert_eq!(path.matches('M').count(), 2, "{path}");
        assert!(!path.contains('L'));
    }

    /// Charts over every magnitude a report meets, each x axis kind, with and without the
    /// right-hand axis, in both sizes the reports use.
    pub(crate) fn charts_over_magnitudes() -> Vec<Chart> {
        let tops = [
            0.004,
            0.6,
            7.0,
            95.0,
            1_234.0,
            9_999.0,
            12_345.0,
            99_999.0,
            321_410.0,
            1_234_567.0,
            12_345_678.0,
            987_654_321.0,
            12_345_678_901_234.0,
        ];
        let axes = [
            XAxis::Categories(
                [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
                    .iter()
                    .map(u32::to_string)
                    .collect(),
            ),
            XAxis::Linear {
                min: 0.0,
                max: 3_600.0,
            },
            XAxis::Log {
                min: 0.013,
                max: 45_000.0,
            },
        ];
        let mut out = Vec::new();
        for top in tops {
            for x in &axes {
                for right in [false, true] {
                    for (width, height) in [(460.0, 250.0), (300.0, 185.0)] {
                        let mut c = chart();
                        c.x = x.clone();
                        c.series[0].points = vec![(0.0, top * 0.3), (1.0, top)];
                        c.y_right_title = right.then(|| "CPU, disk %".into());
                        c.width = width;
                        c.height = height;
                        out.push(c.render());
                    }
                }
            }
        }
        out
    }

    /// The left axis's tick labels: right-aligned, regular, at the axis text size.
    pub(crate) fn left_ticks(c: &Chart) -> impl Iterator<Item = &crate::charts::Label> {
        c.labels
            .iter()
            .filter(|l| l.anchor == Anchor::End && !l.bold && l.size == TEXT_SIZE)
            .filter(|l| !l.text.ends_with('%') || l.x < c.width / 2.0)
    }

    /// The x axis's tick labels: centred on the row under the plot.
    fn x_ticks_of(c: &Chart) -> Vec<&crate::charts::Label> {
        let row = c
            .labels
            .iter()
            .filter(|l| l.anchor == Anchor::Middle && l.size == TEXT_SIZE)
            .map(|l| (l.y * 100.0).round() as i64)
            .min();
        c.labels
            .iter()
            .filter(|l| l.anchor == Anchor::Middle && Some((l.y * 100.0).round() as i64) == row)
            .collect()
    }

    /// Where a label's text starts and ends, at `width` for its text.
    pub(crate) fn extent(l: &crate::charts::Label, width: f64) -> (f64, f64) {
        match l.anchor {
            Anchor::Start => (l.x, l.x + width),
            Anchor::Middle => (l.x - width / 2.0, l.x + width / 2.0),
            Anchor::End => (l.x - width, l.x),
        }
    }

    #[test]
    fn axis_labels_fit_between_the_chart_edge_and_the_axis() {
        for c in charts_over_magnitudes() {
            let axis_line = c
                .shapes
                .split("<path d=\"M")
                .find(|p| p.contains("fill=\"none\" stroke=\"#9aa1b1\""))
                .and_then(|p| p.split(' ').next()?.parse::<f64>().ok())
                .expect("the axis lines");
            let mut ticks = 0;
            for l in left_ticks(&c) {
                let (start, end) = extent(l, approx_width(&l.text, l.size));
                assert!(
                    start >= EDGE - 1e-9,
                    "{:?} starts at {start} in {}",
                    l.text,
                    c.width
                );
                assert!(
                    end < axis_line,
                    "{:?} ends at {end}, the axis is at {axis_line}",
                    l.text
                );
                ticks += 1;
            }
            assert!(ticks >= 2, "{:?}", c.labels);
            // Every axis label inside the chart, and the x ticks apart from each other.
            for l in c.labels.iter().filter(|l| l.size == TEXT_SIZE) {
                let (start, end) = extent(l, approx_width(&l.text, l.size));
                assert!(
                    start >= 0.0 && end <= c.width,
                    "{:?}: {start}..{end} of {}",
                    l.text,
                    c.width
                );
            }
            let xs = x_ticks_of(&c);
            for w in xs.windows(2) {
                let (_, a) = extent(w[0], approx_width(&w[0].text, w[0].size));
                let (b, _) = extent(w[1], approx_width(&w[1].text, w[1].size));
                assert!(
                    a <= b,
                    "x labels {:?} and {:?} overlap",
                    w[0].text,
                    w[1].text
                );
            }
        }
    }

    #[test]
    fn a_long_tick_label_widens_the_margin_instead_of_leaving_the_chart() {
        let mut c = chart();
        c.series[0].points[1].1 = 12_345_678_901_234.0;
        let r = c.render();
        let widest = left_ticks(&r)
            .map(|l| approx_width(&l.text, l.size))
            .fold(0.0, f64::max);
        assert!(
            widest > MIN_LEFT - EDGE - TICK_GAP,
            "the case needs a wide label: {widest}"
        );
        for l in left_ticks(&r) {
            assert!(
                l.x - approx_width(&l.text, l.size) >= EDGE - 1e-9,
                "{:?}",
                l.text
            );
        }
    }
}
