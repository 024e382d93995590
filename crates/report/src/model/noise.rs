//! How sure a report is of its figures: each step's TPS, QPS, p95 and p99 get a 95%
//! interval from the step's per-second records, and each compared figure a Δ% with its
//! own interval and a verdict that knows the noise (`dbdyno-stats`: batch means,
//! Fieller's interval, [`judge`]).
//!
//! The path of one figure:
//!
//! 1. **Which seconds.** A last interval shorter than half the others is left out (as the
//!    engine's steady window does), then the steady part of the per-second TPS
//!    ([`steady_state`]) chooses the seconds every figure of the step uses, when it holds
//!    at least the [`MIN_VALUES`] an interval needs. A shorter steady part means the band
//!    rule found no long stretch in a step that swings from second to second: that swing
//!    is the step's noise, so every second is used instead of no interval at all.
//! 2. **One step.** Batch means over those seconds ([`batch_means_interval`] for TPS and
//!    QPS, [`percentile_interval`] for p95 and p99), carried onto the step's whole-step
//!    figure with the same relative width, so that the Δ a report prints is the centre of
//!    its interval.
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

use dbdyno_engine::IntervalRecord;
use dbdyno_stats::{
    batch_means_interval, judge, noise_floor, percentile_interval, relative_difference,
    steady_state, Delta, DeltaRange, Direction, Estimate, Judgement, NoiseFloor, Steadiness,
    Verdict as FigureVerdict, MIN_VALUES,
};
use serde::{Deserialize, Serialize};

use super::compare::{Comparison, Verdict};
use super::Cell;
use crate::format;

/// A last interval shorter than this share of the others is left out (the engine's rule).
const PARTIAL_SHARE: f64 = 0.5;

/// A figure's 95% interval, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Spread {
    /// From the step's per-second values; without an interval when they were too few
    /// (the estimate's method and note say so).
    Estimated(Estimate),
    /// The step has no per-second series of this figure.
    NoSeries { reason: String },
}

impl Spread {
    fn none(reason: impl Into<String>) -> Spread {
        Spread::NoSeries {
            reason: reason.into(),
        }
    }

    /// Half the interval's width in percent of the figure ("±2.1%").
    pub fn half_width_pct(&self) -> Option<f64> {
        match self {
            Spread::Estimated(e) => e.half_width_pct(),
            Spread::NoSeries { .. } => None,
        }
    }
}

/// The intervals of one step's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepIntervals {
    /// The steady part of the per-second TPS, and whether the step settled.
    pub steadiness: Steadiness,
    /// True when every second was used: the steady part was shorter than an interval
    /// needs (or not found).
    pub all_seconds: bool,
    pub tps: Spread,
    pub qps: Spread,
    pub p95: Spread,
    pub p99: Spread,
}

/// A step's whole-step figures, which the intervals are centred on.
#[derive(Debug, Clone, Copy)]
pub struct Figures {
    pub tps: f64,
    pub qps: f64,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

/// The 95% intervals of a step's figures from its per-second records.
pub fn step_intervals(records: &[IntervalRecord], f: Figures) -> StepIntervals {
    let records = whole_intervals(records);
    if records.is_empty() {
        let why = "the step has no per-second records";
        return StepIntervals {
            steadiness: steady_state(&[]),
            all_seconds: true,
            tps: Spread::none(why),
            qps: Spread::none(why),
            p95: Spread::none(why),
            p99: Spread::none(why),
        };
    }
    let series =
        |pick: fn(&IntervalRecord) -> f64| -> Vec<f64> { records.iter().map(pick).collect() };
    let tps = series(|r| r.tps);
    let steadiness = steady_state(&tps);
    let all_seconds = steadiness.window.is_none_or(|w| w.len < MIN_VALUES);
    let window = |values: &[f64]| -> Vec<f64> {
        if all_seconds {
            values.to_vec()
        } else {
            steadiness.window_of(values).to_vec()
        }
    };
    let rate = |values: &[f64], figure: f64| {
        Spread::Estimated(batch_means_interval(&window(values)).rescaled_to(figure))
    };
    let latency = series(|r| r.latency_ms);
    // Every record of a step carries the same percentile: the step's --percentile.
    let carried = records[0].percentile;
    let percentile = |wanted: f64, figure: Option<f64>| match figure {
        None => Spread::none(format!("the step has no p{wanted} figure")),
        Some(v) if (carried - wanted).abs() < 1e-9 => {
            Spread::Estimated(percentile_interval(&window(&latency), v))
        }
        Some(_) => Spread::none(format!(
            "the step's per-second records carry p{carried} latency, not p{wanted}"
        )),
    };
    StepIntervals {
        tps: rate(&tps, f.tps),
        qps: rate(&series(|r| r.qps), f.qps),
        p95: percentile(95.0, f.p95_ms),
        p99: percentile(99.0, f.p99_ms),
        steadiness,
        all_seconds,
    }
}

/// The records without a last interval shorter than half the others (a step's clock
/// stops mid-second): its rate rests on a fraction of a second.
fn whole_intervals(records: &[IntervalRecord]) -> &[IntervalRecord] {
    let Some((last, rest)) = records.split_last() else {
        return records;
    };
    let mut durations: Vec<f64> = rest
        .iter()
        .map(|r| r.duration_s)
        .filter(|d| *d > 0.0)
        .collect();
    if durations.is_empty() || last.duration_s <= 0.0 {
        return records;
    }
    durations.sort_by(f64::total_cmp);
    let median = durations[durations.len() / 2];
    if last.duration_s < PARTIAL_SHARE * median {
        rest
    } else {
        records
    }
}

/// Each figure's Δ with its 95% interval and verdict, for one compared cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellJudgement {
    pub tps: Judgement,
    pub qps: Judgement,
    /// `None` when either side has no such figure.
    pub p95: Option<Judgement>,
    pub p99: Option<Judgement>,
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
fn judge_figure(
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
    use super::*;

    fn record(i: usize, tps: f64, latency_ms: f64, percentile: f64) -> IntervalRecord {
        IntervalRecord {
            elapsed_s: (i + 1) as f64,
            duration_s: 1.0,
            end_unix_ms: 0,
            threads: 1,
            tps,
            qps: tps * 20.0,
            reads_ps: 0.0,
            writes_ps: 0.0,
            other_ps: 0.0,
            latency_ms,
            percentile,
            errors_ps: 0.0,
            reconnects_ps: 0.0,
        }
    }

    /// `n` seconds around `tps` with a ±`wobble` share of alternating noise.
    fn records(n: usize, tps: f64, wobble: f64, percentile: f64) -> Vec<IntervalRecord> {
        (0..n)
            .map(|i| {
                let s = if i % 2 == 0 { 1.0 } else { -1.0 } * ((i % 5) as f64 / 4.0);
                record(
                    i,
                    tps * (1.0 + wobble * s),
                    2.0 * (1.0 - wobble * s),
                    percentile,
                )
            })
            .collect()
    }

    fn figures(tps: f64) -> Figures {
        Figures {
            tps,
            qps: tps * 20.0,
            p95_ms: Some(2.0),
            p99_ms: Some(3.0),
        }
    }

    #[test]
    fn intervals_are_centred_on_the_whole_step_figures() {
        let s = step_intervals(&records(30, 1000.0, 0.05, 95.0), figures(990.0));
        let Spread::Estimated(tps) = &s.tps else {
            panic!("{:?}", s.tps)
        };
        assert_eq!(tps.mean, 990.0);
        let i = tps.interval.unwrap();
        assert!(i.lower < 990.0 && 990.0 < i.upper, "{i:?}");
        assert!(matches!(s.p95, Spread::Estimated(_)));
        // The records carry p95 only: p99 has no series, and says which it has.
        let Spread::NoSeries { reason } = &s.p99 else {
            panic!("{:?}", s.p99)
        };
        assert!(reason.contains("p95 latency, not p99"), "{reason}");
    }

    #[test]
    fn a_step_that_swings_uses_every_second_rather_than_none() {
        // Two seconds at 600, two at 1,400, and so on: the band rule finds no 10 steady
        // seconds.
        let r: Vec<IntervalRecord> = (0..12)
            .map(|i| record(i, if i % 4 < 2 { 600.0 } else { 1400.0 }, 2.0, 95.0))
            .collect();
        let s = step_intervals(&r, figures(1000.0));
        assert!(s.all_seconds, "{:?}", s.steadiness);
        let Spread::Estimated(tps) = &s.tps else {
            panic!("{:?}", s.tps)
        };
        assert_eq!(tps.values, 12);
        assert!(tps.interval.is_some(), "{}", tps.note);
        // A quiet step keeps its steady window.
        let quiet = step_intervals(&records(30, 1000.0, 0.02, 95.0), figures(1000.0));
        assert!(!quiet.all_seconds);
    }

    #[test]
    fn a_partial_last_second_is_left_out() {
        let mut r = records(12, 1000.0, 0.05, 95.0);
        r.last_mut().unwrap().duration_s = 0.2;
        assert_eq!(whole_intervals(&r).len(), 11);
        r.last_mut().unwrap().duration_s = 0.9;
        assert_eq!(whole_intervals(&r).len(), 12);
        assert!(whole_intervals(&[]).is_empty());
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
