//! The side-by-side comparison table of one scenario, laid out once for the HTML, PDF and
//! Markdown renderers (seed 000's "Side-by-side QPS/TPS"): per thread count, the
//! baseline's and every other environment's TPS and p95 with their Δ% and verdict.
//!
//! With two environments the columns read `Threads | base TPS | env TPS | Δ TPS | base p95
//! | env p95 | Δ p95 | Verdict`; with more, each further environment adds its value and Δ
//! to both groups and a verdict column of its own. The renderers only style the fields.

use crate::format;
use crate::model::{Cell, Report, ScenarioReport, Verdict};

/// How a field should look; each renderer maps it to its colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// A change for the better (more TPS, less latency).
    Good,
    /// A change for the worse.
    Bad,
    /// Not available.
    Muted,
    Pass,
    Fail,
    /// A step cut short: shown, never compared.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub text: String,
    pub tone: Tone,
    /// Why a verdict failed.
    pub note: Option<String>,
}

impl Field {
    fn new(text: String, tone: Tone) -> Field {
        Field {
            text,
            tone,
            note: None,
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
    /// Rows where some environment failed (shaded).
    pub failed: Vec<bool>,
}

/// The words a cut-short step is marked with in every matrix.
pub const CANCELLED: &str = "cancelled";

/// A cell's thread count as the matrices print it: "4", or "4 (cancelled)".
pub fn threads_label(c: &Cell) -> String {
    if c.cancelled {
        format!("{} ({CANCELLED})", c.threads)
    } else {
        c.threads.to_string()
    }
}

fn delta(v: Option<f64>, lower_is_better: bool) -> Field {
    let tone = match v {
        Some(d) if d.abs() < 0.05 => Tone::Plain,
        Some(d) if (d > 0.0) != lower_is_better => Tone::Good,
        Some(_) => Tone::Bad,
        None => Tone::Muted,
    };
    Field::new(v.map(format::delta_pct).unwrap_or_else(|| "—".into()), tone)
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
    let mut rows = Vec::with_capacity(s.threads.len());
    let mut failed = Vec::with_capacity(s.threads.len());
    for (i, t) in s.threads.iter().enumerate() {
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
            row.push(delta(c.rows[i].tps_pct, false));
        }
        let p95 = |c: &Cell| c.p95_ms.map(format::ms).unwrap_or_else(|| "—".into());
        row.push(value(b, p95));
        for c in &s.comparisons {
            row.push(value(cell_of(c.env), p95));
            row.push(delta(c.rows[i].p95_pct, true));
        }
        let mut any_failed = false;
        for c in &s.comparisons {
            let d = &c.rows[i];
            let tone = match d.verdict {
                _ if d.cancelled => Tone::Cancelled,
                Verdict::Pass => Tone::Pass,
                Verdict::Fail => Tone::Fail,
                Verdict::Missing => Tone::Muted,
            };
            any_failed |= d.verdict == Verdict::Fail;
            let mut f = Field::new(d.verdict_label().to_string(), tone);
            if !d.reasons.is_empty() {
                f.note = Some(d.reasons.join("; "));
            }
            row.push(f);
        }
        rows.push(row);
        failed.push(any_failed);
    }
    Some(SideTable {
        columns,
        rows,
        failed,
    })
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
            for d in c.rows.iter().filter(|d| d.verdict == Verdict::Fail) {
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
