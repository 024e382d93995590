//! Tables as real PDF text: column weights, wrapped cells, right-aligned numbers, shaded
//! rows, and the header repeated at the top of each page a table continues on.

use super::font::Style;
use super::layout::{Align, Layout, INK, LINE, MUTED};

const PAD_X: f32 = 4.0;
const PAD_Y: f32 = 3.2;
const HEADER_FILL: &str = "#eef1f6";

#[derive(Debug, Clone)]
pub struct Column {
    pub title: String,
    /// Share of the table width (weights are normalised).
    pub weight: f32,
    pub align: Align,
}

impl Column {
    pub fn new(title: impl Into<String>, weight: f32, align: Align) -> Self {
        Column {
            title: title.into(),
            weight,
            align,
        }
    }
}

#[derive(Debug, Clone)]
pub struct CellText {
    pub text: String,
    pub colour: &'static str,
    pub style: Style,
    /// A second, smaller, muted paragraph under the text.
    pub note: Option<String>,
}

impl CellText {
    pub fn plain(text: impl Into<String>) -> Self {
        CellText {
            text: text.into(),
            colour: INK,
            style: Style::Regular,
            note: None,
        }
    }
    pub fn coloured(text: impl Into<String>, colour: &'static str, style: Style) -> Self {
        CellText {
            text: text.into(),
            colour,
            style,
            note: None,
        }
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

impl From<String> for CellText {
    fn from(s: String) -> Self {
        CellText::plain(s)
    }
}

impl From<&str> for CellText {
    fn from(s: &str) -> Self {
        CellText::plain(s)
    }
}

#[derive(Debug, Clone)]
pub struct Row {
    pub cells: Vec<CellText>,
    pub fill: Option<&'static str>,
}

impl Row {
    pub fn new(cells: Vec<CellText>) -> Self {
        Row { cells, fill: None }
    }
    pub fn filled(mut self, fill: Option<&'static str>) -> Self {
        self.fill = fill;
        self
    }
}

type Lines = Vec<(Vec<String>, Vec<String>)>;

/// A table wrapped to the content width: column widths, header lines and height, and
/// each row's lines and height.
struct Measured {
    widths: Vec<f32>,
    header_lines: Vec<Vec<String>>,
    header_h: f32,
    laid: Vec<(Lines, f32)>,
}

impl Measured {
    /// What must fit below the cursor before the table starts: a short table (under 40%
    /// of a page) whole, a long one its header with its first two rows.
    fn keep(&self, l: &Layout) -> f32 {
        let total: f32 = self.header_h + self.laid.iter().map(|(_, h)| h).sum::<f32>();
        let page_room = l.geom.bottom_limit() - l.geom.margin_top;
        if total <= page_room * 0.4 {
            total
        } else {
            self.header_h + self.laid.iter().take(2).map(|(_, h)| h).sum::<f32>()
        }
    }
}

fn measure(l: &Layout, cols: &[Column], rows: &[Row], size: f32) -> Measured {
    let total_w = l.geom.content_width();
    let sum: f32 = cols.iter().map(|c| c.weight).sum::<f32>().max(0.001);
    let widths: Vec<f32> = cols.iter().map(|c| c.weight / sum * total_w).collect();
    let lh = size * 1.3;
    let note_size = size * 0.86;
    let note_lh = note_size * 1.3;
    let header_lines: Vec<Vec<String>> = cols
        .iter()
        .zip(&widths)
        .map(|(c, w)| l.wrap(&c.title, size, Style::Bold, w - 2.0 * PAD_X))
        .collect();
    let header_h = header_lines.iter().map(Vec::len).max().unwrap_or(1) as f32 * lh + 2.0 * PAD_Y;
    let laid: Vec<(Lines, f32)> = rows
        .iter()
        .map(|row| {
            let cell_lines: Lines = row
                .cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| {
                    let inner = w - 2.0 * PAD_X;
                    let main = l.wrap(&c.text, size, c.style, inner);
                    let note = c
                        .note
                        .as_deref()
                        .map(|n| l.wrap(n, note_size, Style::Regular, inner))
                        .unwrap_or_default();
                    (main, note)
                })
                .collect();
            let h = cell_lines
                .iter()
                .map(|(m, n)| m.len() as f32 * lh + n.len() as f32 * note_lh)
                .fold(lh, f32::max)
                + 2.0 * PAD_Y;
            (cell_lines, h)
        })
        .collect();
    Measured {
        widths,
        header_lines,
        header_h,
        laid,
    }
}

/// A heading and its table, kept together: the heading moves to the next page with the
/// table (whole when short, else with its header and first rows) instead of being left
/// alone at the bottom of a page.
pub fn draw_headed(
    l: &mut Layout,
    heading: &str,
    level: u8,
    cols: &[Column],
    rows: &[Row],
    size: f32,
) {
    let m = measure(l, cols, rows, size);
    l.heading(heading, level, m.keep(l));
    draw_measured(l, cols, rows, size, m);
}

/// Draws the table at the cursor, full content width, font `size`.
pub fn draw(l: &mut Layout, cols: &[Column], rows: &[Row], size: f32) {
    let m = measure(l, cols, rows, size);
    draw_measured(l, cols, rows, size, m);
}

fn draw_measured(l: &mut Layout, cols: &[Column], rows: &[Row], size: f32, m: Measured) {
    let x0 = l.geom.margin_x;
    let total_w = l.geom.content_width();
    let lh = size * 1.3;
    let note_size = size * 0.86;
    let note_lh = note_size * 1.3;
    l.need(m.keep(l));
    let Measured {
        widths,
        header_lines,
        header_h,
        laid,
    } = m;

    let draw_header = |l: &mut Layout| {
        let y = l.y;
        l.rect(x0, y, total_w, header_h, HEADER_FILL);
        let mut x = x0;
        for ((c, w), lines) in cols.iter().zip(&widths).zip(&header_lines) {
            for (i, line) in lines.iter().enumerate() {
                let base = y + PAD_Y + size + i as f32 * lh - size * 0.12;
                let tx = match c.align {
                    Align::Left => x + PAD_X,
                    Align::Center => x + w / 2.0,
                    Align::Right => x + w - PAD_X,
                };
                l.text(tx, base, size, Style::Bold, INK, c.align, line);
            }
            x += w;
        }
        l.y += header_h;
    };

    draw_header(l);
    for (row, (cell_lines, h)) in rows.iter().zip(&laid) {
        let h = *h;
        if l.y + h > l.geom.bottom_limit() {
            l.new_page();
            draw_header(l);
        }
        let y = l.y;
        if let Some(fill) = row.fill {
            l.rect(x0, y, total_w, h, fill);
        }
        let mut x = x0;
        for (((c, w), (main, note)), col) in row.cells.iter().zip(&widths).zip(cell_lines).zip(cols)
        {
            let tx = match col.align {
                Align::Left => x + PAD_X,
                Align::Center => x + w / 2.0,
                Align::Right => x + w - PAD_X,
            };
            let mut base = y + PAD_Y + size - size * 0.12;
            for line in main {
                l.text(tx, base, size, c.style, c.colour, col.align, line);
                base += lh;
            }
            let mut note_base = base - lh + note_lh;
            for line in note {
                l.text(
                    tx,
                    note_base,
                    note_size,
                    Style::Regular,
                    MUTED,
                    col.align,
                    line,
                );
                note_base += note_lh;
            }
            x += w;
        }
        l.y += h;
        l.hline(x0, x0 + total_w, l.y, LINE, 0.5);
    }
    l.y += 8.0;
}
