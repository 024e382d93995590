//! A small flow layout over printpdf's operations: pages, a cursor that moves down the
//! page, wrapped paragraphs, headings kept with what follows, rules and boxes, and the
//! page footers ("Page 3 of 12") written once the page count is known.
//!
//! Coordinates: callers think top-down (`y` = distance from the top edge, in points);
//! this module converts to PDF's bottom-up space.

use printpdf::{
    Color, Line, LinePoint, Op, PaintMode, Point, Polygon, PolygonRing, Pt, Rect, Rgb, TextItem,
    TextRenderingMode, WindingOrder,
};

use super::font::{Fonts, Style};

/// Page size in points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageGeom {
    pub width: f32,
    pub height: f32,
    pub margin_x: f32,
    pub margin_top: f32,
    pub margin_bottom: f32,
}

impl PageGeom {
    pub fn content_width(&self) -> f32 {
        self.width - 2.0 * self.margin_x
    }
    pub fn bottom_limit(&self) -> f32 {
        self.height - self.margin_bottom
    }
}

/// `#rrggbb` → PDF colour.
pub fn rgb(hex: &str) -> Color {
    let h = hex.trim_start_matches('#');
    let p = |i: usize| {
        h.get(i..i + 2)
            .and_then(|s| u8::from_str_radix(s, 16).ok())
            .unwrap_or(0) as f32
            / 255.0
    };
    Color::Rgb(Rgb {
        r: p(0),
        g: p(2),
        b: p(4),
        icc_profile: None,
    })
}

pub const INK: &str = "#1a1a2e";
pub const MUTED: &str = "#5b6275";
pub const ACCENT: &str = "#0b4f8a";
pub const LINE: &str = "#dfe3ea";

/// The document being laid out.
pub struct Layout<'f> {
    pub fonts: &'f Fonts,
    pub geom: PageGeom,
    pub pages: Vec<Vec<Op>>,
    /// Distance of the cursor from the top edge of the current page.
    pub y: f32,
}

/// Horizontal alignment of a text run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

impl<'f> Layout<'f> {
    pub fn new(fonts: &'f Fonts, geom: PageGeom) -> Self {
        Layout {
            fonts,
            geom,
            pages: vec![Vec::new()],
            y: geom.margin_top,
        }
    }

    pub fn ops(&mut self) -> &mut Vec<Op> {
        self.pages.last_mut().expect("at least one page")
    }

    pub fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = self.geom.margin_top;
    }

    /// Starts a new page unless `h` points still fit below the cursor.
    pub fn need(&mut self, h: f32) {
        if self.y + h > self.geom.bottom_limit() {
            self.new_page();
        }
    }

    /// True when the cursor is at the top of a page (nothing drawn below the margin yet).
    pub fn at_top(&self) -> bool {
        (self.y - self.geom.margin_top).abs() < 0.01
    }

    pub fn width(&self, s: &str, size: f32, style: Style) -> f32 {
        self.fonts.width(s, size, style)
    }

    /// One line of text with its baseline at `baseline` (from the top), aligned on `x`.
    #[allow(clippy::too_many_arguments)]
    pub fn text(
        &mut self,
        x: f32,
        baseline: f32,
        size: f32,
        style: Style,
        colour: &str,
        align: Align,
        s: &str,
    ) {
        if s.is_empty() {
            return;
        }
        let w = self.width(s, size, style);
        let x = match align {
            Align::Left => x,
            Align::Center => x - w / 2.0,
            Align::Right => x - w,
        };
        let y = self.geom.height - baseline;
        let col = rgb(colour);
        let fonts = self.fonts;
        let mut x = x;
        for run in fonts.runs(s, style) {
            let run_w = run.width(size);
            if run.drawn {
                for i in 0..run.text.chars().count() {
                    let w = run_w / run.text.chars().count() as f32;
                    self.star(x + w * (i as f32 + 0.5), y, size, col.clone());
                }
                x += run_w;
                continue;
            }
            let ops = self.pages.last_mut().expect("at least one page");
            ops.push(Op::StartTextSection);
            ops.push(Op::SetFont {
                font: run.handle.clone(),
                size: Pt(size),
            });
            ops.push(Op::SetFillColor { col: col.clone() });
            if run.fake_bold {
                ops.push(Op::SetOutlineColor { col: col.clone() });
                ops.push(Op::SetOutlineThickness {
                    pt: Pt(size * 0.03),
                });
                ops.push(Op::SetTextRenderingMode {
                    mode: TextRenderingMode::FillStroke,
                });
            }
            ops.push(Op::SetTextCursor {
                pos: Point { x: Pt(x), y: Pt(y) },
            });
            ops.push(Op::ShowText {
                items: vec![TextItem::Text(run.text)],
            });
            if run.fake_bold {
                ops.push(Op::SetTextRenderingMode {
                    mode: TextRenderingMode::Fill,
                });
            }
            ops.push(Op::EndTextSection);
            x += run_w;
        }
    }

    /// A five-pointed star for text at `size` points, centred on `cx` and on the middle of
    /// the capitals above the baseline `y` (PDF space): the ★ of the built-in font's text,
    /// which lacks that glyph ([`super::font::DRAWN_STAR`]).
    fn star(&mut self, cx: f32, y: f32, size: f32, col: Color) {
        let cy = y + 0.36 * size;
        let outer = 0.42 * size;
        // Inner radius of a regular star: outer × sin 18° / sin 54°.
        let inner = outer * 0.381_966;
        let points = (0..10)
            .map(|k| {
                let a = std::f32::consts::FRAC_PI_2 + k as f32 * std::f32::consts::PI / 5.0;
                let r = if k % 2 == 0 { outer } else { inner };
                LinePoint {
                    p: Point {
                        x: Pt(cx + r * a.cos()),
                        y: Pt(cy + r * a.sin()),
                    },
                    bezier: false,
                }
            })
            .collect();
        self.fill_polygon(points, col);
    }

    /// Fills one closed outline (the star, a rounded box) in `col`.
    fn fill_polygon(&mut self, points: Vec<LinePoint>, col: Color) {
        let ops = self.ops();
        ops.push(Op::SaveGraphicsState);
        ops.push(Op::SetFillColor { col });
        ops.push(Op::DrawPolygon {
            polygon: Polygon {
                rings: vec![PolygonRing { points }],
                mode: PaintMode::Fill,
                winding_order: WindingOrder::NonZero,
            },
        });
        ops.push(Op::RestoreGraphicsState);
    }

    /// Text truncated with "…" to fit `max_w`.
    pub fn fit(&self, s: &str, size: f32, style: Style, max_w: f32) -> String {
        if self.width(s, size, style) <= max_w {
            return s.to_string();
        }
        let ell = self.width("…", size, style);
        let mut out = String::new();
        let mut w = 0.0;
        for c in s.chars() {
            let cw = self.width(c.encode_utf8(&mut [0; 4]), size, style);
            if w + cw + ell > max_w {
                break;
            }
            w += cw;
            out.push(c);
        }
        out.push('…');
        out
    }

    /// Splits `s` into lines no wider than `max_w`: at spaces, between CJK characters,
    /// and inside a word only when the word alone is too wide.
    pub fn wrap(&self, s: &str, size: f32, style: Style, max_w: f32) -> Vec<String> {
        let mut lines = Vec::new();
        for para in s.split('\n') {
            let mut line = String::new();
            let mut line_w = 0.0;
            // Last position in `line` where it may break, and the width up to there.
            let mut brk: Option<(usize, f32)> = None;
            for c in para.chars() {
                let cw = self.width(c.encode_utf8(&mut [0; 4]), size, style);
                if line_w + cw > max_w && !line.is_empty() {
                    match brk {
                        Some((at, _)) if at > 0 => {
                            let rest = line.split_off(at);
                            lines.push(line.trim_end().to_string());
                            line = rest.trim_start().to_string();
                        }
                        _ => lines.push(std::mem::take(&mut line)),
                    }
                    line_w = self.width(&line, size, style);
                    brk = None;
                }
                if c == ' ' && line.is_empty() {
                    continue;
                }
                line.push(c);
                line_w += cw;
                if c == ' ' || c == '/' || c == ',' || is_wide(c) {
                    brk = Some((line.len(), line_w));
                }
            }
            lines.push(line.trim_end().to_string());
        }
        lines
    }

    /// A wrapped paragraph at the cursor, flowing across pages.
    #[allow(clippy::too_many_arguments)]
    pub fn paragraph(
        &mut self,
        s: &str,
        size: f32,
        style: Style,
        colour: &str,
        x: f32,
        max_w: f32,
        after: f32,
    ) {
        let lh = size * 1.38;
        for line in self.wrap(s, size, style, max_w) {
            self.need(lh);
            let base = self.y + size;
            self.text(x, base, size, style, colour, Align::Left, &line);
            self.y += lh;
        }
        self.y += after;
    }

    /// A bulleted paragraph.
    pub fn bullet(&mut self, s: &str, size: f32, colour: &str, bullet_colour: &str) {
        let x = self.geom.margin_x;
        let indent = 12.0;
        self.need(size * 1.4);
        let top = self.y;
        self.circle(x + 3.5, top + size * 0.62, 1.8, bullet_colour);
        let w = self.geom.content_width() - indent;
        self.paragraph(s, size, Style::Regular, colour, x + indent, w, size * 0.45);
    }

    /// A section heading, kept on the same page as at least `keep` points of what follows.
    pub fn heading(&mut self, s: &str, level: u8, keep: f32) {
        let (size, before, rule) = match level {
            1 => (17.0, 8.0, true),
            2 => (12.5, 10.0, false),
            _ => (10.5, 6.0, false),
        };
        if !self.at_top() {
            self.y += before;
        }
        self.need(size * 1.6 + keep);
        let x = self.geom.margin_x;
        let w = self.geom.content_width();
        self.paragraph(
            s,
            size,
            Style::Bold,
            if level == 1 { ACCENT } else { INK },
            x,
            w,
            0.0,
        );
        if rule {
            let y = self.y + 1.0;
            self.hline(x, x + w, y, ACCENT, 1.4);
            self.y += 8.0;
        } else {
            self.y += 3.0;
        }
    }

    /// A filled rectangle, top-left at (`x`, `y`).
    pub fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, fill: &str) {
        let r = Rect {
            x: Pt(x),
            y: Pt(self.geom.height - y - h),
            width: Pt(w),
            height: Pt(h),
            mode: Some(PaintMode::Fill),
            winding_order: Some(WindingOrder::NonZero),
        };
        let col = rgb(fill);
        let ops = self.ops();
        ops.push(Op::SaveGraphicsState);
        ops.push(Op::SetFillColor { col });
        ops.push(Op::DrawRectangle { rectangle: r });
        ops.push(Op::RestoreGraphicsState);
    }

    /// A rectangle with rounded corners (radius `r`), filled.
    pub fn round_rect(&mut self, x: f32, y: f32, w: f32, h: f32, r: f32, fill: &str) {
        // Bezier circle approximation constant.
        const K: f32 = 0.552_284_8;
        let height = self.geom.height;
        let p = |px: f32, py: f32, bezier: bool| LinePoint {
            p: Point {
                x: Pt(px),
                y: Pt(height - py),
            },
            bezier,
        };
        let (x2, y2) = (x + w, y + h);
        let c = r * K;
        let points = vec![
            p(x + r, y, false),
            p(x2 - r, y, false),
            p(x2 - r + c, y, true),
            p(x2, y + r - c, true),
            p(x2, y + r, false),
            p(x2, y2 - r, false),
            p(x2, y2 - r + c, true),
            p(x2 - r + c, y2, true),
            p(x2 - r, y2, false),
            p(x + r, y2, false),
            p(x + r - c, y2, true),
            p(x, y2 - r + c, true),
            p(x, y2 - r, false),
            p(x, y + r, false),
            p(x, y + r - c, true),
            p(x + r - c, y, true),
            p(x + r, y, false),
        ];
        let col = rgb(fill);
        self.fill_polygon(points, col);
    }

    pub fn circle(&mut self, cx: f32, cy: f32, r: f32, fill: &str) {
        self.round_rect(cx - r, cy - r, 2.0 * r, 2.0 * r, r, fill);
    }

    /// A horizontal rule at `y` (from the top).
    pub fn hline(&mut self, x1: f32, x2: f32, y: f32, colour: &str, width: f32) {
        let py = self.geom.height - y;
        let col = rgb(colour);
        let ops = self.ops();
        ops.push(Op::SaveGraphicsState);
        ops.push(Op::SetOutlineColor { col });
        ops.push(Op::SetOutlineThickness { pt: Pt(width) });
        ops.push(Op::DrawLine {
            line: Line {
                points: vec![
                    LinePoint {
                        p: Point {
                            x: Pt(x1),
                            y: Pt(py),
                        },
                        bezier: false,
                    },
                    LinePoint {
                        p: Point {
                            x: Pt(x2),
                            y: Pt(py),
                        },
                        bezier: false,
                    },
                ],
                is_closed: false,
            },
        });
        ops.push(Op::RestoreGraphicsState);
    }

    /// Writes the footer of every page: the title on the left, "Page N of M" on the
    /// right. The cover page (page 1) carries the page number only.
    pub fn footers(&mut self, title: &str) {
        let n = self.pages.len();
        let g = self.geom;
        let base = g.height - g.margin_bottom + 22.0;
        let title = self.fit(title, 8.0, Style::Regular, g.content_width() * 0.7);
        for i in 0..n {
            let saved = std::mem::take(&mut self.pages[i]);
            let mut tmp = Layout {
                fonts: self.fonts,
                geom: g,
                pages: vec![saved],
                y: 0.0,
            };
            tmp.hline(g.margin_x, g.width - g.margin_x, base - 10.0, LINE, 0.6);
            if i > 0 {
                tmp.text(
                    g.margin_x,
                    base,
                    8.0,
                    Style::Regular,
                    MUTED,
                    Align::Left,
                    &title,
                );
            }
            tmp.text(
                g.width - g.margin_x,
                base,
                8.0,
                Style::Regular,
                MUTED,
                Align::Right,
                &format!("Page {} of {}", i + 1, n),
            );
            self.pages[i] = tmp.pages.pop().unwrap_or_default();
        }
    }
}

/// Characters after which a line may break without a space (CJK ideographs and kana).
fn is_wide(c: char) -> bool {
    let u = c as u32;
    (0x2E80..=0x9FFF).contains(&u)
        || (0xAC00..=0xD7AF).contains(&u)
        || (0xF900..=0xFAFF).contains(&u)
        || (0xFF00..=0xFFEF).contains(&u)
}
