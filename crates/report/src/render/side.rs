//! The side-by-side comparison table of one scenario, laid out once for the HTML, PDF and
//! Markdown renderers (seed 000's "Side-by-side QPS/TPS"): per thread count, the
//! baseline's and every other environment's TPS and p95 with their Δ% and its 95%
//! interval ("−11.8% (−13.0…−10.6)"), and the verdict (REGRESSED, IMPROVED, within noise
//! with its width, not judged).
//!
//! With two environments the columns read `Threads | base TPS | env TPS | Δ TPS | base p95
//! | env p95 | Δ p95 | Verdict`; with more, each further environment adds its value and Δ
//! to both groups and a verdict column of its own. The renderers only style the fields.

use crate::format;
use dbdyno_stats::{FigureVerdict, Judgement};

use crate::model::{Cell, DeltaRow, EnvScenario, Report, ScenarioReport, Verdict};

/// How a field should look; each renderer maps it to its colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// A change for the better (more TPS, less latency).
    Good,
    /// A change for the worse.
    Bad,
    /// Not available, or not judged.
    Muted,
    /// A step cut short: shown, never compared.
    Cancelled,
    /// Verdicts: the whole interval of Δ beyond the threshold on the worse or better
    /// side, or the runs cannot tell (within noise).
    Regressed,
    Improved,
    Noise,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub text: String,
    pub tone: Tone,
    /// A Δ's 95% interval, "−13.0…−10.6" (percent): beside the Δ in HTML and Markdown,
    /// under it in the PDF.
    pub range: Option<String>,
    /// Why a cell regressed, improved or was not judged.
    pub note: Option<String>,
}

impl Field {
    fn new(text: String, tone: Tone) -> Field {
        Field {
            text,
            tone,
            range: None,
            note: None,
        }
    }

    /// The text with its interval in parentheses, as a line of text shows it.
    pub fn text_with_range(&self) -> String {
        match &self.range {
            Some(r) => format!("{} ({r})", self.text),
            None => self.text.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub title: String,
    /// Right-aligned figure (all but the verdicts).
    pub numeric: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SideTable {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<Field>>,
    /// Rows where some environment regressed (shaded).
    pub failed: Vec<bool>,
}

/// The words a cut-short step is marked with in every matrix.
pub const CANCELLED: &str = "cancelled";

/// A cell's thread count as the matrices print it: "4", "4 (cancelled)", or for an
/// open-loop step its connections and mode, "25 (open loop at 500/s)" (a step without
/// a mode is a closed loop).
pub fn threads_label(c: &Cell) -> String {
    let mut notes: Vec<String> = c.open_loop.iter().map(|o| o.mode()).collect();
    if c.open_loop.as_ref().is_some_and(|o| !o.sustained) {
        notes.push("rate not sustained".into());
    }
    if c.cancelled {
        notes.push(CANCELLED.into());
    }
    if notes.is_empty() {
        c.threads.to_string()
    } else {
        format!("{} ({})", c.threads, notes.join(", "))
    }
}

/// A Δ with its 95% interval, coloured only when its whole interval lies beyond the
/// threshold (a difference inside the noise is not shown as better or worse).
fn delta(v: Option<f64>, judged: Option<&Judgement>) -> Field {
    let Some(d) = v else {
        return Field::new("—".into(), Tone::Muted);
    };
    let tone = match judged.map(|j| j.verdict) {
        Some(FigureVerdict::Regressed) => Tone::Bad,
        Some(FigureVerdict::Improved) => Tone::Good,
        _ => Tone::Plain,
    };
    let mut f = Field::new(format::delta_pct(d), tone);
    f.range = judged
        .and_then(|j| j.delta.bounds_pct())
        .map(|(lo, hi)| format::delta_range(lo, hi));
    f
}

fn value(c: Option<&Cell>, f: impl Fn(&Cell) -> String) -> Field {
    match c {
        Some(c) if c.cancelled => Field::new(format!("{} ({CANCELLED})", f(c)), Tone::Cancelled),
        Some(c) => Field::new(f(c), Tone::Plain),
        None => Field::new("—".into(), Tone::Muted),
    }
}

/// The side-by-side table of one scenario, or `None` without a baseline.
pub fn side_by_side(r: &Report, s: &ScenarioReport) -> Option<SideTable> {
    let base = r.baseline?;
    let base_env = s.envs.iter().find(|e| e.env == base)?;
    if s.comparisons.is_empty() {
        return None;
    }
    let mut rows = Vec::with_capacity(s.threads.len());
    let mut failed = Vec::with_capacity(s.threads.len());
    for (i, t) in s.threads.iter().enumerate() {
        let (row, any_failed) = row(s, base_env, i, *t);
        rows.push(row);
        failed.push(any_failed);
    }
    Some(SideTable {
        columns: columns(r, s, base),
        rows,
        failed,
    })
}

/// Threads; the TPS group (baseline, then each environment with its Δ); the p95 group
/// likewise; a verdict per environment. With one environment against the baseline the
/// Δ and verdict titles leave its name out.
fn columns(r: &Report, s: &ScenarioReport, base: usize) -> Vec<Column> {
    let two = s.comparisons.len() == 1;
    let name = |env: usize| r.env_name(env).to_string();
    let mut columns = vec![Column {
        title: "Threads".into(),
        numeric: true,
    }];
    let col = |title: String, numeric: bool| Column { title, numeric };
    for (metric, unit) in [("TPS", ""), ("p95", " ms")] {
        columns.push(col(format!("{} {metric}{unit}", name(base)), true));
        for c in &s.comparisons {
            columns.push(col(format!("{} {metric}{unit}", name(c.env)), true));
            columns.push(col(
                if two {
                    format!("Δ {metric}")
                } else {
                    format!("Δ {metric} {}", name(c.env))
                },
                true,
            ));
        }
    }
    for c in &s.comparisons {
        columns.push(col(
            if two {
                "Verdict".into()
            } else {
                format!("Verdict {}", name(c.env))
            },
            false,
        ));
    }
    columns
}

/// The row of the `i`-th thread count, and whether any environment failed in it.
fn row(s: &ScenarioReport, base_env: &EnvScenario, i: usize, t: u32) -> (Vec<Field>, bool) {
    let mut row = vec![Field::new(t.to_string(), Tone::Plain)];
    let cell_of = |env: usize| {
        s.envs
            .iter()
            .find(|e| e.env == env)
            .and_then(|e| e.cells[i].as_ref())
    };
    let b = base_env.cells[i].as_ref();
    row.push(value(b, |c| format::rate(c.tps)));
    for c in &s.comparisons {
        row.push(value(cell_of(c.env), |c| format::rate(c.tps)));
        let d = &c.rows[i];
        row.push(delta(d.tps_pct, d.judged.as_ref().map(|j| &j.tps)));
    }
    let p95 = |c: &Cell| c.p95_ms.map(format::ms).unwrap_or_else(|| "—".into());
    row.push(value(b, p95));
    for c in &s.comparisons {
        row.push(value(cell_of(c.env), p95));
        let d = &c.rows[i];
        row.push(delta(
            d.p95_pct,
            d.judged.as_ref().and_then(|j| j.p95.as_ref()),
        ));
    }
    let mut any_failed = false;
    for c in &s.comparisons {
        let d = &c.rows[i];
        any_failed |= d.verdict == Verdict::Regressed;
        row.push(verdict(d));
    }
    (row, any_failed)
}

/// The verdict ("within noise" with the noise's width), with why as its note.
fn verdict(d: &DeltaRow) -> Field {
    let tone = match d.verdict {
        _ if d.cancelled => Tone::Cancelled,
        Verdict::Regressed => Tone::Regressed,
        Verdict::Improved => Tone::Improved,
        Verdict::WithinNoise => Tone::Noise,
        Verdict::NotJudged | Verdict::Missing => Tone::Muted,
    };
    let text = match (d.verdict, d.noise_pct) {
        (Verdict::WithinNoise, Some(n)) if !d.cancelled => {
            format!("{} (±{})", d.verdict_label(), format::pct_words(n))
        }
        _ => d.verdict_label().to_string(),
    };
    let mut f = Field::new(text, tone);
    let note: Vec<&str> = d
        .reasons
        .iter()
        .map(String::as_str)
        .chain(d.interval_method.as_deref())
        .collect();
    if !note.is_empty() {
        f.note = Some(note.join("; "));
    }
    f
}

/// One regressed cell, for the cover's small table.
#[derive(Debug, Clone, PartialEq)]
pub struct Regression {
    pub env: String,
    pub scenario: String,
    pub threads: u32,
    pub why: String,
}

/// How many regressed cells the cover lists; the rest are in the comparison tables.
pub const COVER_REGRESSIONS: usize = 8;

/// The regressed cells in report order (scenario, environment, thread count).
pub fn regressions(r: &Report) -> Vec<Regression> {
    let mut out = Vec::new();
    for s in &r.scenarios {
        for c in &s.comparisons {
            for d in c.rows.iter().filter(|d| d.verdict == Verdict::Regressed) {
                out.push(Regression {
                    env: r.env_name(c.env).to_string(),
                    scenario: s.scenario.to_string(),
                    threads: d.threads,
                    why: d.reasons.join("; "),
                });
            }
        }
    }
    out
}

/// "and 3 more in the comparison tables" under a cut list.
pub fn more_regressions(total: usize) -> Option<String> {
    (total > COVER_REGRESSIONS).then(|| {
        format!(
            "and {} more in the side-by-side tables of each scenario",
            total - COVER_REGRESSIONS
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_engine::open_loop::{OpenLoopResult, RateDist};

    /// The matrices name an open-loop step's mode; a closed-loop step is its thread count.
    #[test]
    fn an_open_loop_cell_names_its_mode() {
        let mut c = crate::model::knee::tests::c(25, 500.0, 3.0);
        assert_eq!(threads_label(&c), "25");
        assert_eq!(c.mode(), "closed loop");
        c.open_loop = Some(OpenLoopResult {
            target_rate: 500.0,
            dist: RateDist::Fixed,
            connections: 25,
            achieved_rate: 420.0,
            late_starts: 900,
            max_lag_ms: 3000.0,
            max_queue: 1500,
            queue_at_end: 1400,
            sustained: false,
            reason: Some("achieved 420.0/s".into()),
        });
        c.cancelled = true;
        assert_eq!(c.mode(), "open loop at 500/s");
        assert_eq!(
            threads_label(&c),
            "25 (open loop at 500/s, rate not sustained, cancelled)"
        );
    }
}
