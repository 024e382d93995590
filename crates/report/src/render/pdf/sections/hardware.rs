//! The environments' hardware records (model::hardware) after the environment table:
//! headline figures with their ratio to the baseline's, and where they came from.

use super::BODY;
use crate::model::Report;
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, INK, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};

pub(super) fn hardware(l: &mut Layout, r: &Report) {
    let Some(h) = &r.hardware else {
        return;
    };
    l.heading("Server hardware", 1, 80.0);
    l.paragraph(
        h.note(r.envs.len() > 1),
        BODY,
        Style::Regular,
        MUTED,
        l.geom.margin_x,
        l.geom.content_width(),
        6.0,
    );
    let names: Vec<String> = r.envs.iter().map(|e| e.name.clone()).collect();
    let text = h.text_rows(&names);
    let mut cols = vec![Column::new(text[0][0].clone(), 1.3, Align::Left)];
    for name in &text[0][1..] {
        cols.push(Column::new(name.clone(), 1.0, Align::Right));
    }
    let rows: Vec<Row> = text[1..]
        .iter()
        .map(|row| {
            let mut cells = vec![CellText::coloured(row[0].clone(), INK, Style::Bold)];
            cells.extend(row[1..].iter().map(|v| CellText::plain(v.clone())));
            Row::new(cells)
        })
        .collect();
    table::draw(l, &cols, &rows, 8.0);
}
