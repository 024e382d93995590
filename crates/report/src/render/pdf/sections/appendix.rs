//! The appendix: per run, its settings and labels, the recorded command, the command that
//! runs it again, and the whole plan as compact JSON.
//!
//! Non-goals: deciding what is needed to reproduce a run (the model's
//! [`crate::model::appendix`]).

use crate::model::appendix::{self, AppendixRun};
use crate::model::load_clients;
use crate::model::Report;
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, INK, LINE, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};

pub(super) fn appendix(l: &mut Layout, r: &Report) {
    l.heading("Appendix: reproducing the runs", 1, 80.0);
    for a in &r.appendix {
        run(l, a);
    }
}

fn run(l: &mut Layout, a: &AppendixRun) {
    l.heading(&format!("{} (run {})", a.name, a.run_id), 2, 60.0);
    let cols = [
        Column::new("Setting", 1.0, Align::Left),
        Column::new("Value", 3.0, Align::Left),
    ];
    table::draw(l, &cols, &facts(a), 8.0);
    clients(l, a);
    if let Some(c) = &a.command_line {
        caption(l, "Recorded command:");
        mono_block(l, c, 7.5);
    }
    if let Some(c) = &a.reproduce {
        caption(
            l,
            "To run it again (the password comes from MYSQL_PWD or the prompt):",
        );
        mono_block(l, c, 7.5);
    }
    // The full plan, compact: reproducible without filling pages.
    let compact = serde_json::from_str::<serde_json::Value>(&a.plan_json)
        .map(|v| v.to_string())
        .unwrap_or_else(|_| a.plan_json.clone());
    caption(l, "Plan (JSON):");
    mono_block(l, &compact, 6.2);
    let y = l.y;
    l.hline(
        l.geom.margin_x,
        l.geom.margin_x + l.geom.content_width(),
        y,
        LINE,
        0.5,
    );
    l.y += 6.0;
}

/// The per-client table of a run driven from several load clients.
fn clients(l: &mut Layout, a: &AppendixRun) {
    let Some(first) = a.clients.first() else {
        return;
    };
    caption(
        l,
        "Load clients (each client's share; the matrices show the merge):",
    );
    let weights = [2.1, 2.3, 0.7, 1.0, 1.1, 0.8, 0.9, 2.8];
    let mut titles = load_clients::header(&first.latency_header()).to_vec();
    titles.push("Flags".into());
    let cols: Vec<Column> = titles
        .into_iter()
        .zip(weights)
        .enumerate()
        .map(|(i, (t, w))| {
            let align = if (2..7).contains(&i) {
                Align::Right
            } else {
                Align::Left
            };
            Column::new(t, w, align)
        })
        .collect();
    let rows: Vec<Row> = a
        .clients
        .iter()
        .map(|s| {
            Row::new(
                load_clients::cells(s)
                    .into_iter()
                    .map(CellText::plain)
                    .collect(),
            )
        })
        .collect();
    table::draw(l, &cols, &rows, 7.5);
}

/// When, state, version, settings and labels of one run, as setting / value rows.
fn facts(a: &AppendixRun) -> Vec<Row> {
    let fact = |k: String, v: String| {
        Row::new(vec![
            CellText::coloured(k, MUTED, Style::Regular),
            CellText::plain(v),
        ])
    };
    let mut rows = vec![fact("When".into(), appendix::when(a))];
    if let Some(s) = &a.state {
        rows.push(fact("State".into(), s.clone()));
    }
    if let Some(v) = &a.tool_version {
        rows.push(fact("DB Dyno version".into(), v.clone()));
    }
    for (k, v) in &a.settings {
        rows.push(fact(k.clone(), v.clone()));
    }
    for (k, v) in &a.labels {
        rows.push(fact(format!("Label {k}"), v.clone()));
    }
    rows
}

fn caption(l: &mut Layout, text: &str) {
    l.paragraph(
        text,
        8.5,
        Style::Bold,
        INK,
        l.geom.margin_x,
        l.geom.content_width(),
        0.0,
    );
}

fn mono_block(l: &mut Layout, text: &str, size: f32) {
    let x = l.geom.margin_x;
    let w = l.geom.content_width();
    let lh = size * 1.35;
    let lines = l.wrap(text, size, Style::Mono, w - 12.0);
    l.y += 2.0;
    for line in lines {
        l.need(lh);
        let y = l.y;
        l.rect(x, y, w, lh, "#f3f5f9");
        l.text(
            x + 6.0,
            y + size * 1.02,
            size,
            Style::Mono,
            INK,
            Align::Left,
            &line,
        );
        l.y += lh;
    }
    l.y += 6.0;
}
