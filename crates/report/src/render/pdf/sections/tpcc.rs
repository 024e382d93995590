//! tpcc's tables on its scenario page: tpmC by threads (with Δ tpmC against the
//! baseline) and the per-transaction table. The tpmC curve is among the page's charts.

use super::SMALL;
use crate::model::tpcc::{self, TpccSection};
use crate::model::Report;
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};

pub(super) fn tables(l: &mut Layout, r: &Report) {
    let Some(t) = &r.tpcc else { return };
    curve(l, r, t);
    transactions(l, r, t);
}

fn curve(l: &mut Layout, r: &Report, t: &TpccSection) {
    let name = |env: usize| r.env_name(env).to_string();
    let rows = rows_of(tpcc::curve_rows(t, &name));
    let cols = columns(&tpcc::CURVE_HEADER, &[2.0, 0.8, 1.2, 1.2, 1.0]);
    table::draw_headed(l, "TPC-C: tpmC by threads", 2, &cols, &rows, 7.6);
}

fn transactions(l: &mut Layout, r: &Report, t: &TpccSection) {
    let rows = rows_of(
        t.transactions
            .iter()
            .map(|x| tpcc::txn_cells(x, r.env_name(x.env)))
            .collect(),
    );
    let weights = [1.6, 0.7, 1.2, 0.9, 1.0, 0.8, 0.8, 0.9, 0.9];
    let cols = columns(&tpcc::TXN_HEADER, &weights);
    table::draw_headed(l, "TPC-C: per transaction", 2, &cols, &rows, 7.6);
    l.paragraph(
        tpcc::TXN_NOTE,
        SMALL,
        Style::Regular,
        MUTED,
        l.geom.margin_x,
        l.geom.content_width(),
        4.0,
    );
}

/// Names left-aligned, figures right-aligned.
fn columns<const N: usize>(header: &[&str; N], weights: &[f32; N]) -> Vec<Column> {
    header
        .iter()
        .zip(weights)
        .map(|(h, w)| {
            let align = if tpcc::is_text_column(h) {
                Align::Left
            } else {
                Align::Right
            };
            Column::new(*h, *w, align)
        })
        .collect()
}

fn rows_of<const N: usize>(cells: Vec<[String; N]>) -> Vec<Row> {
    cells
        .into_iter()
        .map(|c| Row::new(c.into_iter().map(CellText::plain).collect()))
        .collect()
}
