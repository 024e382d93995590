//! The cover page: the title band, the verdict, the executive summary with the regressed
//! cells, and the key figures (peak TPS per scenario per environment).
//!
//! Non-goals: the sentences themselves (the model writes them); the full regression list
//! (the scenario pages' side-by-side tables).

use super::{BAD, GOOD, SMALL};
use crate::format;
use crate::model::{EnvScenario, Report};
use crate::render::pdf::font::Style;
use crate::render::pdf::layout::{Align, Layout, ACCENT, INK, MUTED};
use crate::render::pdf::table::{self, CellText, Column, Row};
use crate::render::side;

/// Height of the title band at the top of the cover.
const BAND_H: f32 = 176.0;

pub(super) fn cover(l: &mut Layout, r: &Report) {
    band(l, r);
    l.y = BAND_H + 22.0;
    verdict(l, r);
    executive_summary(l, r);
    key_figures(l, r);
}

/// The band: the kicker, the title, and a line of what the report covers.
fn band(l: &mut Layout, r: &Report) {
    let g = l.geom;
    let x = g.margin_x;
    let w = g.content_width();
    l.rect(0.0, 0.0, g.width, BAND_H, ACCENT);
    l.text(
        x,
        52.0,
        9.0,
        Style::Bold,
        "#cfe3f5",
        Align::Left,
        "DB DYNO  ·  BENCHMARK REPORT",
    );
    let title_lines = title_lines(l, &r.title, w);
    // Fewer lines sit lower, so the title stays clear of the kicker and the meta line.
    l.y = 64.0 + (3 - title_lines.len()) as f32 * 10.0;
    for line in &title_lines {
        let base = l.y + 22.0;
        l.text(x, base, 22.0, Style::Bold, "#ffffff", Align::Left, line);
        l.y += 28.0;
    }
    let meta = format!(
        "Generated {}  ·  {}  ·  {}  ·  regression threshold {}%",
        format::datetime(r.generated_at_ms),
        dbdyno_engine::wording::count(r.envs.len() as u32, "environment"),
        dbdyno_engine::wording::count(r.scenarios.len() as u32, "scenario"),
        r.threshold_pct
    );
    let meta = l.fit(&meta, 9.0, Style::Regular, w);
    l.text(
        x,
        BAND_H - 18.0,
        9.0,
        Style::Regular,
        "#dbe8f5",
        Align::Left,
        &meta,
    );
}

/// At most three lines fit the band; a longer title ends its third line with "…" (the
/// whole title is in the document's metadata and the page footers).
fn title_lines(l: &Layout, title: &str, w: f32) -> Vec<String> {
    let mut lines = l.wrap(title, 22.0, Style::Bold, w);
    if lines.len() > 3 {
        let rest = lines[2..].join(" ");
        lines.truncate(2);
        let mut last = l.fit(&rest, 22.0, Style::Bold, w);
        if !last.ends_with('…') {
            last.push('…');
        }
        lines.push(last);
    }
    lines
}

/// PASS, FAIL (or a neutral word) in a tinted box, with the sentence that explains it.
fn verdict(l: &mut Layout, r: &Report) {
    let (Some(word), Some(sentence)) = (r.verdict_word(), r.verdict_sentence()) else {
        return;
    };
    let x = l.geom.margin_x;
    let w = l.geom.content_width();
    let (bg, fg) = match word {
        "FAIL" => ("#fbe4e2", BAD),
        "PASS" => ("#e3f4e8", GOOD),
        _ => ("#eceef2", MUTED),
    };
    let lines = l.wrap(&sentence, 10.5, Style::Regular, w - 90.0);
    let h = 18.0 + lines.len() as f32 * 14.0;
    let y = l.y;
    l.round_rect(x, y, w, h, 6.0, bg);
    l.text(
        x + 14.0,
        y + h / 2.0 + 7.0,
        20.0,
        Style::Bold,
        fg,
        Align::Left,
        word,
    );
    for (i, line) in lines.iter().enumerate() {
        l.text(
            x + 80.0,
            y + 22.0 + i as f32 * 14.0,
            10.5,
            Style::Regular,
            INK,
            Align::Left,
            line,
        );
    }
    l.y += h + 14.0;
}

fn executive_summary(l: &mut Layout, r: &Report) {
    l.heading("Executive summary", 2, 40.0);
    for s in &r.executive_summary {
        l.bullet(s, 10.0, INK, ACCENT);
    }
    l.y += 6.0;
    regressions(l, r);
}

/// The first regressed cells, each with why it failed; a line says how many more there are.
fn regressions(l: &mut Layout, r: &Report) {
    let regressed = side::regressions(r);
    if regressed.is_empty() {
        return;
    }
    let cols = [
        Column::new("Regressed", 1.1, Align::Left),
        Column::new("Scenario", 1.2, Align::Left),
        Column::new("Threads", 0.55, Align::Right),
        Column::new("Why", 3.2, Align::Left),
    ];
    let rows: Vec<Row> = regressed
        .iter()
        .take(side::COVER_REGRESSIONS)
        .map(|g| {
            Row::new(vec![
                CellText::plain(g.env.clone()),
                CellText::plain(g.scenario.clone()),
                CellText::plain(g.threads.to_string()),
                CellText::coloured(g.why.clone(), BAD, Style::Regular),
            ])
        })
        .collect();
    table::draw(l, &cols, &rows, 7.6);
    if let Some(more) = side::more_regressions(regressed.len()) {
        l.paragraph(
            &format!("{more}."),
            SMALL,
            Style::Regular,
            MUTED,
            l.geom.margin_x,
            l.geom.content_width(),
            4.0,
        );
    }
}

/// Peak TPS per scenario (rows) and environment (columns).
fn key_figures(l: &mut Layout, r: &Report) {
    let mut cols = vec![Column::new("Scenario", 1.25, Align::Left)];
    for e in &r.envs {
        cols.push(Column::new(e.name.clone(), 1.0, Align::Left));
    }
    let rows: Vec<Row> = r
        .scenarios
        .iter()
        .map(|s| {
            let mut cells = vec![CellText::plain(s.scenario.name())];
            cells.extend(s.envs.iter().map(peak));
            Row::new(cells)
        })
        .collect();
    table::draw_headed(
        l,
        "Key figures: peak TPS per scenario",
        2,
        &cols,
        &rows,
        8.5,
    );
}

/// One environment's peak, with its thread count, best thread count and bottleneck class.
fn peak(e: &EnvScenario) -> CellText {
    match e.peak {
        Some(p) => CellText::coloured(format!("{} TPS", format::rate(p.tps)), INK, Style::Bold)
            .with_note(format!(
                "at {} · best {} · {}",
                format::threads(p.threads),
                e.knee
                    .best_threads
                    .map(|t| t.to_string())
                    .unwrap_or_else(|| "—".into()),
                e.bottleneck.class.label()
            )),
        None => CellText::plain("—"),
    }
}
