//! How sure a report is of its figures: each step's TPS, QPS, p95 and p99 get a 95%
//! interval from the step's per-second records, and each compared figure a Δ% with its
//! own interval and a verdict that knows the noise (`dbdyno-stats`: batch means,
//! Fieller's interval, [`judge`]).
//!
//! The path of one figure:
//!
//! 1. **Which seconds** and 2. **one step**: the step's own [`StepConfidence`], made by
//!    the engine when it measured the step and stored with it (batch means over the
//!    steady part of the per-second records, carried onto the whole-step figure); a step
//!    recorded before steps carried it gets the same from its stored per-second records.
//! 3. **A compared figure.** Fieller's interval of the ratio ([`relative_difference`]),
//!    judged against the threshold: Regressed or Improved only when the whole interval
//!    lies beyond it; a latency change under the latency floor in milliseconds is within
//!    noise whatever its percentage.
//! 4. **A compared cell.** TPS and p95 decide, as they always have: Regressed when either
//!    regressed; otherwise not judged when either could not be judged; otherwise Improved
//!    when either improved; otherwise within noise.
//!
//! A figure without a per-second series (an imported log with no interval lines, a
//! percentile the per-second records do not carry: they hold the step's `--percentile`
//! only, usually p95) gets no interval and its cell is not judged, with the reason; no
//! interval is ever made up.
//!
//! Non-goals: the statistics themselves (`dbdyno-stats`), repeated runs, corrections for
//! the many cells of a report (the noise floor keeps false verdicts rare).

use dbdyno_engine::stats::StepConfidence;
pub use dbdyno_engine::stats::{Figures, Spread, StepIntervals};
use dbdyno_engine::{IntervalRecord, StepResult};
use dbdyno_stats::{
    judge, noise_floor, relative_difference, Delta, DeltaRange, Direction, FigureVerdict,
    Judgement, NoiseFloor,
};
use serde::{Deserialize, Serialize};

use super::verdict::{Comparison, Verdict};
use super::Cell;
use crate::format;

pub use super::verdict::CellJudgement;

/// A step's intervals: the confidence stored with it, or (a step recorded before steps
/// carried one) the same made from its per-second records.
pub fn of_step(r: &StepResult) -> StepIntervals {
    match &r.confidence {
        Some(c) => c.spreads.clone(),
        None => StepConfidence::of_step(r).spreads,
    }
}

/// The 95% intervals of a step's figures from its per-second records.
pub fn step_intervals(records: &[IntervalRecord], f: Figures) -> StepIntervals {
    StepConfidence::from_records(records, f).spreads
}

/// What the report needs of the options.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub threshold_pct: f64,
    pub latency_floor_ms: f64,
}

/// Judges every figure of a candidate cell against the baseline's.
pub fn judge_cell(b: &Cell, n: &Cell, limits: Limits) -> CellJudgement {
    let t = limits.threshold_pct;
    let (bi, ni) = (&b.intervals, &n.intervals);
    let latency = |bs: &Spread, ns: &Spread, bv: Option<f64>, nv: Option<f64>| {
        let (bv, nv) = (bv?, nv?);
        let j = judge_figure(bs, ns, bv, nv, t, Direction::LowerIsBetter);
        Some(with_latency_floor(j, limits.latency_floor_ms))
    };
    CellJudgement {
        tps: judge_figure(&bi.tps, &ni.tps, b.tps, n.tps, t, Direction::HigherIsBetter),
        qps: judge_figure(&bi.qps, &ni.qps, b.qps, n.qps, t, Direction::HigherIsBetter),
        p95: latency(&bi.p95, &ni.p95, b.p95_ms, n.p95_ms),
        p99: latency(&bi.p99, &ni.p99, b.p99_ms, n.p99_ms),
    }
}

/// Δ of one figure with its interval, judged; a side without an interval makes it not
/// judged, with the reason.
pub(super) fn judge_figure(
    b: &Spread,
    n: &Spread,
    bv: f64,
    nv: f64,
    threshold_pct: f64,
    direction: Direction,
) -> Judgement {
    let unknown = |side: &str, reason: &str| Delta {
        baseline: bv,
        candidate: nv,
        pct: Some((nv / bv - 1.0) * 100.0).filter(|p| bv != 0.0 && p.is_finite()),
        range: DeltaRange::Unknown {
            reason: format!("the {side} has no interval ({reason})"),
        },
    };
    let delta = match (b, n) {
        (Spread::Estimated(eb), Spread::Estimated(en)) => relative_difference(eb, en),
        (Spread::NoSeries { reason }, _) => unknown("baseline", reason),
        (_, Spread::NoSeries { reason }) => unknown("candidate", reason),
    };
    judge(delta, threshold_pct, direction)
}

/// A latency that moved by less than the floor in milliseconds is within noise, however
/// large the percentage (0.06 → 0.07 ms is +17%, and timer noise).
fn with_latency_floor(mut j: Judgement, floor_ms: f64) -> Judgement {
    let moved = (j.delta.candidate - j.delta.baseline).abs();
    let decided = matches!(
        j.verdict,
        FigureVerdict::Regressed | FigureVerdict::Improved
    );
    if decided && moved < floor_ms {
        j.verdict = FigureVerdict::WithinNoise;
        j.explanation.push_str(&format!(
            "; but it moved by {moved:.3} ms, under the {floor_ms} ms latency floor, so within noise"
        ));
    }
    j
}

/// The cell's verdict from TPS and p95, why, and the widest noise of the two (half the
/// width of Δ's interval, in percentage points).
pub fn cell_verdict(j: &CellJudgement) -> (Verdict, Vec<String>, Option<f64>) {
    let deciding: Vec<(&str, &Judgement)> = [("TPS", Some(&j.tps)), ("p95", j.p95.as_ref())]
        .into_iter()
        .filter_map(|(name, j)| Some((name, j?)))
        .collect();
    let with = |v: FigureVerdict| -> Vec<String> {
        deciding
            .iter()
            .filter(|(_, j)| j.verdict == v)
            .map(|(name, j)| reason(name, j))
            .collect()
    };
    let noise = deciding
        .iter()
        .filter_map(|(_, j)| j.noise_pct)
        .reduce(f64::max);
    for (figure, cell) in [
        (FigureVerdict::Regressed, Verdict::Regressed),
        (FigureVerdict::NotJudged, Verdict::NotJudged),
        (FigureVerdict::Improved, Verdict::Improved),
    ] {
        let reasons = with(figure);
        if !reasons.is_empty() {
            return (cell, reasons, noise);
        }
    }
    (Verdict::WithinNoise, Vec::new(), noise)
}

/// "TPS −11.8% (95% interval −12.6% to −11.0%; 15,531 → 13,700)", or why a figure was
/// not judged.
fn reason(name: &str, j: &Judgement) -> String {
    let d = &j.delta;
    let values = if name == "TPS" {
        format!(
            "{} → {}",
            format::rate(d.baseline),
            format::rate(d.candidate)
        )
    } else {
        format!(
            "{} → {} ms",
            format::ms(d.baseline),
            format::ms(d.candidate)
        )
    };
    let pct = d.pct.map(format::delta_pct).unwrap_or_else(|| "—".into());
    match (&d.range, d.bounds_pct()) {
        (_, Some((lo, hi))) => format!(
            "{name} {pct} (95% interval {} to {}; {values})",
            format::delta_pct(lo),
            format::delta_pct(hi)
        ),
        (DeltaRange::Unknown { reason } | DeltaRange::Unbounded { reason }, None) => {
            format!("{name} {pct} not judged: {reason}")
        }
        (DeltaRange::Interval { .. }, None) => format!("{name} {pct} ({values})"),
    }
}

/// The smallest differences a scenario's comparisons can tell apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioNoise {
    /// Over the Δ TPS of every compared cell.
    pub tps: NoiseFloor,
    /// Over the Δ p95 of every compared cell that has one.
    pub p95: NoiseFloor,
}

/// The noise floors of one scenario's comparisons; `None` when no cell was compared.
pub fn scenario_noise(comparisons: &[Comparison]) -> Option<ScenarioNoise> {
    let judged: Vec<&CellJudgement> = comparisons
        .iter()
        .flat_map(|c| &c.rows)
        .filter_map(|r| r.judged.as_ref())
        .collect();
    if judged.is_empty() {
        return None;
    }
    Some(ScenarioNoise {
        tps: noise_floor(judged.iter().map(|j| &j.tps.delta)),
        p95: noise_floor(
            judged
                .iter()
                .filter_map(|j| j.p95.as_ref().map(|p| &p.delta)),
        ),
    })
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::stats::testing::{figures, records};

    use super::*;

    // How a step's intervals are made is tested beside their one owner,
    // dbdyno_engine::stats::confidence; here, that the report reads them.

    #[test]
    fn a_step_reads_the_confidence_stored_with_it_or_makes_the_same() {
        let text = include_str!("../../../sysbench-text/src/fixtures/seed_003_oltp_read_write.txt");
        let parsed = dbdyno_sysbench_text::parse_sysbench_output(text).unwrap();
        let mut r = parsed[0].to_step_result(dbdyno_engine::Scenario::OltpReadWrite);
        let stored = r
            .confidence
            .clone()
            .expect("a log with interval lines has one");
        assert_eq!(of_step(&r), stored.spreads);
        // A step written before steps carried it: the same, from its records.
        r.confidence = None;
        assert_eq!(of_step(&r), stored.spreads);
        // What is stored is what the report reads (not made again).
        let mut odd = stored.clone();
        odd.spreads.all_seconds = !odd.spreads.all_seconds;
        r.confidence = Some(odd);
        assert_ne!(of_step(&r), stored.spreads);
    }

    fn cell(records: &[IntervalRecord], tps: f64) -> Cell {
        let f = figures(tps);
        Cell {
            threads: 1,
            tps,
            qps: f.qps,
            p95_ms: f.p95_ms,
            p99_ms: f.p99_ms,
            cpu_pct: None,
            disk_util_pct: None,
            iowait_pct: None,
            samples: None,
            expected_samples: None,
            errors: 0,
            reconnects: 0,
            client_cpu_pct: 0.0,
            qps_per_cpu: None,
            steady_tps: None,
            row_lock_waits: None,
            seconds: records.len() as f64,
            cancelled: false,
            repeats: 1,
            open_loop: None,
            intervals: step_intervals(records, f),
        }
    }

    const LIMITS: Limits = Limits {
        threshold_pct: 5.0,
        latency_floor_ms: 0.05,
    };

    #[test]
    fn a_loss_beyond_the_noise_regresses_and_a_small_one_is_within_noise() {
        let base = cell(&records(30, 1000.0, 0.02, 95.0), 1000.0);
        let slow = cell(&records(30, 800.0, 0.02, 95.0), 800.0);
        let (v, reasons, noise) = cell_verdict(&judge_cell(&base, &slow, LIMITS));
        assert_eq!(v, Verdict::Regressed, "{reasons:?}");
        assert!(
            reasons[0].starts_with("TPS −20.0% (95% interval −"),
            "{reasons:?}"
        );
        assert!(noise.unwrap() < 5.0);
        let close = cell(&records(30, 970.0, 0.02, 95.0), 970.0);
        let (v, reasons, _) = cell_verdict(&judge_cell(&base, &close, LIMITS));
        assert_eq!(v, Verdict::WithinNoise, "{reasons:?}");
        assert!(reasons.is_empty());
        let fast = cell(&records(30, 1300.0, 0.02, 95.0), 1300.0);
        assert_eq!(
            cell_verdict(&judge_cell(&base, &fast, LIMITS)).0,
            Verdict::Improved
        );
    }

    #[test]
    fn a_step_without_per_second_records_is_not_judged() {
        let base = cell(&records(30, 1000.0, 0.02, 95.0), 1000.0);
        let bare = cell(&[], 500.0);
        let j = judge_cell(&base, &bare, LIMITS);
        assert_eq!(j.tps.verdict, FigureVerdict::NotJudged);
        assert_eq!(j.tps.delta.pct, Some(-50.0));
        let (v, reasons, _) = cell_verdict(&j);
        assert_eq!(v, Verdict::NotJudged);
        assert!(
            reasons[0]
                .contains("the candidate has no interval (the step has no per-second records)"),
            "{reasons:?}"
        );
    }

    #[test]
    fn latency_under_the_floor_never_decides() {
        let mut base_r = records(30, 1000.0, 0.0, 95.0);
        let mut slow_r = base_r.clone();
        for r in &mut base_r {
            r.latency_ms = 0.06;
        }
        for r in &mut slow_r {
            r.latency_ms = 0.08;
        }
        let mut base = cell(&base_r, 1000.0);
        let mut slow = cell(&slow_r, 1000.0);
        base.p95_ms = Some(0.06);
        slow.p95_ms = Some(0.08);
        base.intervals = step_intervals(
            &base_r,
            Figures {
                p95_ms: Some(0.06),
                ..figures(1000.0)
            },
        );
        slow.intervals = step_intervals(
            &slow_r,
            Figures {
                p95_ms: Some(0.08),
                ..figures(1000.0)
            },
        );
        let j = judge_cell(&base, &slow, LIMITS);
        let p95 = j.p95.as_ref().unwrap();
        assert_eq!(p95.verdict, FigureVerdict::WithinNoise);
        assert!(
            p95.explanation.contains("latency floor"),
            "{}",
            p95.explanation
        );
    }
}
