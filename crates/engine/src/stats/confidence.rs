//! A step's confidence: the 95% intervals of its TPS, QPS, p95 and p99, made once from
//! its per-second records and stored with the step ([`StepResult::confidence`]), so that
//! the text output, `--json`, the history and the reports all show the same figures.
//!
//! The path of one figure (`dbdyno-stats` does the statistics):
//!
//! 1. **Which seconds.** A last interval shorter than half the others is left out (as the
//!    steady window does), then the steady part of the per-second TPS ([`steady_state`])
//!    chooses the seconds every figure of the step uses, when it holds at least the
//!    [`MIN_VALUES`] an interval needs. A shorter steady part means the band rule found no
//!    long stretch in a step that swings from second to second: that swing is the step's
//!    noise, so every second is used instead of no interval at all.
//! 2. **The intervals.** Batch means over those seconds ([`batch_means_interval`] for TPS
//!    and QPS, [`percentile_interval`] for p95 and p99), carried onto the step's
//!    whole-step figure with the same relative width, so that the figure a report prints
//!    is the centre of its interval.
//!
//! A figure without a per-second series (an imported log with no interval lines, a
//! percentile the per-second records do not carry: a measured record holds p95 and p99,
//! but an imported log's line and a record stored before they existed hold the step's
//! `--percentile` only) gets [`Spread::NoSeries`] with the reason; no interval is ever
//! made up.
//!
//! Non-goals: repeated steps (their spread is the repeats' business), comparing two
//! steps (the report crate judges Δ from two of these).

use dbdyno_stats::{
    batch_means_interval, percentile_interval, steady_state, Estimate, Method, Steadiness, Window,
    MIN_VALUES,
};
use serde::{Deserialize, Serialize};

use crate::results::{IntervalRecord, StepResult};

/// A last interval shorter than this share of the others is left out (the steady
/// window's rule).
const PARTIAL_SHARE: f64 = 0.5;

/// A figure's 95% interval, or why it has none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
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

    /// The interval's bounds, when there is one.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        match self {
            Spread::Estimated(e) => e.interval.map(|i| (i.lower, i.upper)),
            Spread::NoSeries { .. } => None,
        }
    }
}

/// The figures a step's intervals are centred on: its whole-step figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    pub tps: f64,
    pub qps: f64,
    pub p95_ms: Option<f64>,
    pub p99_ms: Option<f64>,
}

impl Figures {
    /// A step's whole-step figures as a report reads them: the printed rates of an
    /// imported step, and its printed percentile when the log gives no other.
    pub fn of_step(r: &StepResult) -> Figures {
        let headline = |p: f64| {
            ((r.percentile - p).abs() < 1e-9)
                .then(|| r.known_latency_pct_ms())
                .flatten()
        };
        Figures {
            tps: r.tps(),
            qps: r.qps(),
            p95_ms: r.latency.p95_ms.or_else(|| headline(95.0)),
            p99_ms: r.latency.p99_ms.or_else(|| headline(99.0)),
        }
    }
}

/// The 95% intervals of a step's figures and the steadiness of the seconds they rest
/// on: what a report compares. A step's own are [`StepConfidence::spreads`]; a report
/// makes the same from a step's repeats (their spread).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepIntervals {
    /// What the steady-state detector found, in full (its note says it in words).
    pub steadiness: Steadiness,
    /// True when every whole interval was used: the steady part was shorter than an
    /// interval needs (or not found).
    pub all_seconds: bool,
    pub tps: Spread,
    pub qps: Spread,
    /// From the per-second p95 and p99 ([`IntervalRecord::latency_at`]): an imported
    /// log's records (and records stored before they carried both) hold the step's
    /// `--percentile` only, so there the other has no series.
    pub p95: Spread,
    pub p99: Spread,
}

/// How sure a step is of its figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct StepConfidence {
    /// Flattened, so that a stored confidence keeps the one flat layout it has always
    /// had (history, `--json`).
    #[serde(flatten)]
    pub spreads: StepIntervals,
    /// The per-second records every figure used (indices into the step's intervals):
    /// the steady window, or every whole interval when `spreads.all_seconds`.
    pub window: Window,
    /// Length of one record in seconds (the median; 1 unless `--report-interval` was
    /// larger), so that a batch size reads as a duration.
    pub interval_s: f64,
    /// Coefficient of variation of the per-second TPS over `window`, in percent (`None`
    /// for fewer than 2 values or a zero mean).
    pub cv_pct: Option<f64>,
    /// True when the step's per-second TPS ended steady (the steady-state detector).
    pub settled: bool,
}

impl StepConfidence {
    /// The confidence of a step from its own intervals and whole-step figures.
    pub fn of_step(r: &StepResult) -> StepConfidence {
        StepConfidence::from_records(&r.intervals, Figures::of_step(r))
    }

    /// The 95% intervals of figures `f` from per-second `records`.
    pub fn from_records(records: &[IntervalRecord], f: Figures) -> StepConfidence {
        let records = whole_intervals(records);
        if records.is_empty() {
            let why = "the step has no per-second records";
            return StepConfidence {
                spreads: StepIntervals {
                    steadiness: steady_state(&[]),
                    all_seconds: true,
                    tps: Spread::none(why),
                    qps: Spread::none(why),
                    p95: Spread::none(why),
                    p99: Spread::none(why),
                },
                window: Window { first: 0, len: 0 },
                interval_s: 0.0,
                cv_pct: None,
                settled: false,
            };
        }
        let series =
            |pick: fn(&IntervalRecord) -> f64| -> Vec<f64> { records.iter().map(pick).collect() };
        let tps = series(|r| r.tps);
        let steadiness = steady_state(&tps);
        let all_seconds = steadiness.window.is_none_or(|w| w.len < MIN_VALUES);
        let window = match steadiness.window {
            Some(w) if !all_seconds && w.first + w.len <= records.len() => w,
            _ => Window {
                first: 0,
                len: records.len(),
            },
        };
        let used = |values: &[f64]| -> Vec<f64> {
            values[window.first..window.first + window.len].to_vec()
        };
        let rate = |values: &[f64], figure: f64| -> Estimate {
            batch_means_interval(&used(values)).rescaled_to(figure)
        };
        let tps_estimate = rate(&tps, f.tps);
        // Every record of a step carries the same percentile: the step's --percentile.
        let carried = records[0].percentile;
        let percentile = |wanted: f64, figure: Option<f64>| {
            let Some(v) = figure else {
                return Spread::none(format!("the step has no p{wanted} figure"));
            };
            // A series only when every record has the figure: a gap is not filled in.
            let per_second: Option<Vec<f64>> =
                records.iter().map(|r| r.latency_at(wanted)).collect();
            match per_second {
                Some(latency) => Spread::Estimated(percentile_interval(&used(&latency), v)),
                None => Spread::none(format!(
                    "the step's per-second records carry p{carried} latency, not p{wanted}"
                )),
            }
        };
        StepConfidence {
            cv_pct: dbdyno_stats::coefficient_of_variation_pct(&used(&tps)),
            window,
            interval_s: median_duration(records),
            settled: steadiness.settled(),
            spreads: StepIntervals {
                steadiness,
                all_seconds,
                tps: Spread::Estimated(tps_estimate),
                qps: Spread::Estimated(rate(&series(|r| r.qps), f.qps)),
                p95: percentile(95.0, f.p95_ms),
                p99: percentile(99.0, f.p99_ms),
            },
        }
    }

    /// "1234.50 (95% CI 1210.20 … 1258.80, batch means of 5 s)", or why there is no
    /// interval; `decimals` digits after the point.
    pub fn phrase(&self, spread: &Spread, decimals: usize) -> String {
        let e = match spread {
            Spread::NoSeries { reason } => return format!("no interval ({reason})"),
            Spread::Estimated(e) => e,
        };
        let Some(i) = e.interval else {
            let why = match e.method {
                Method::TooShort { needed } => {
                    format!("{} intervals, at least {needed} needed", e.values)
                }
                _ => e.note.clone(),
            };
            return format!("{:.decimals$} (no interval: {why})", e.mean);
        };
        format!(
            "{:.decimals$} (95% CI {:.decimals$} … {:.decimals$}, {})",
            e.mean,
            i.lower,
            i.upper,
            self.method_phrase(&e.method)
        )
    }

    /// "batch means of 5 s", "3 repeats".
    fn method_phrase(&self, m: &Method) -> String {
        match m {
            Method::BatchMeans { batch_size, .. } => {
                let seconds = *batch_size as f64 * self.interval_s;
                if seconds > 0.0 {
                    format!("batch means of {} s", trim(seconds))
                } else {
                    format!("batch means of {batch_size} intervals")
                }
            }
            Method::Repeats { repeats } => format!("spread of {repeats} repeats"),
            Method::TooShort { .. } => "too short".into(),
        }
    }

    /// One sentence on the step's steadiness when it never settled; `None` when it did.
    pub fn unsettled_note(&self) -> Option<String> {
        if self.settled || self.window.len == 0 {
            return None;
        }
        Some(format!(
            "the step's throughput never settled: {}",
            self.spreads.steadiness.note
        ))
    }
}

/// To a tenth of a second, 5 rather than 5.0 (a measured second lasts 1.0003 s).
fn trim(v: f64) -> String {
    let tenths = (v * 10.0).round() / 10.0;
    if tenths.fract() == 0.0 {
        format!("{}", tenths as u64)
    } else {
        format!("{tenths:.1}")
    }
}

fn median_duration(records: &[IntervalRecord]) -> f64 {
    let mut d: Vec<f64> = records
        .iter()
        .map(|r| r.duration_s)
        .filter(|d| *d > 0.0)
        .collect();
    if d.is_empty() {
        return 0.0;
    }
    d.sort_by(f64::total_cmp);
    d[d.len() / 2]
}

/// The records without a last interval shorter than half the others (a step's clock
/// stops mid-second): its rate rests on a fraction of a second.
fn whole_intervals(records: &[IntervalRecord]) -> &[IntervalRecord] {
    let Some((last, rest)) = records.split_last() else {
        return records;
    };
    let median = median_duration(rest);
    if median <= 0.0 || last.duration_s <= 0.0 {
        return records;
    }
    if last.duration_s < PARTIAL_SHARE * median {
        rest
    } else {
        records
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::testing::{figures, record, records};

    #[test]
    fn intervals_are_centred_on_the_whole_step_figures() {
        let c = StepConfidence::from_records(&records(30, 1000.0, 0.05, 95.0), figures(990.0));
        let Spread::Estimated(tps) = &c.spreads.tps else {
            panic!("{:?}", c.spreads.tps)
        };
        assert_eq!(tps.mean, 990.0);
        let i = tps.interval.unwrap();
        assert!(i.lower < 990.0 && 990.0 < i.upper, "{i:?}");
        assert!(matches!(c.spreads.p95, Spread::Estimated(_)));
        // The records carry p95 only: p99 has no series, and says which it has.
        let Spread::NoSeries { reason } = &c.spreads.p99 else {
            panic!("{:?}", c.spreads.p99)
        };
        assert!(reason.contains("p95 latency, not p99"), "{reason}");
        assert!(c.settled);
        assert_eq!(c.interval_s, 1.0);
        let cv = c.cv_pct.unwrap();
        assert!(cv > 0.5 && cv < 10.0, "{cv}");
    }

    #[test]
    fn a_stored_confidence_keeps_its_flat_layout() {
        let c = StepConfidence::from_records(&records(30, 1000.0, 0.05, 95.0), figures(1000.0));
        let json = serde_json::to_value(&c).unwrap();
        for key in [
            "tps",
            "qps",
            "p95",
            "p99",
            "all_seconds",
            "steadiness",
            "window",
        ] {
            assert!(json.get(key).is_some(), "no {key} in {json}");
        }
        assert!(json.get("spreads").is_none(), "{json}");
        let back: StepConfidence = serde_json::from_value(json).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn records_that_carry_p95_and_p99_give_both_an_interval() {
        // A measured step at --percentile 90: its records still carry p95 and p99.
        let mut r = records(30, 1000.0, 0.05, 90.0);
        for x in &mut r {
            x.p95_ms = Some(x.latency_ms * 1.2);
            x.p99_ms = Some(x.latency_ms * 1.5);
        }
        let c = StepConfidence::from_records(&r, figures(1000.0));
        let (lo, hi) = c.spreads.p99.bounds().expect("a p99 interval");
        assert!(lo < 3.0 && 3.0 < hi, "{lo} … {hi}");
        let (lo, hi) = c.spreads.p95.bounds().expect("a p95 interval");
        assert!(lo < 2.0 && 2.0 < hi, "{lo} … {hi}");
        // One record without p99 (a gap) leaves p99 without a series, not filled in.
        r[3].p99_ms = None;
        let c = StepConfidence::from_records(&r, figures(1000.0));
        assert!(
            matches!(c.spreads.p99, Spread::NoSeries { .. }),
            "{:?}",
            c.spreads.p99
        );
        assert!(c.spreads.p95.bounds().is_some());
    }

    #[test]
    fn a_step_that_swings_uses_every_second_and_says_it_never_settled() {
        // Two seconds at 600, two at 1,400, and so on: the band rule finds no 10 steady
        // seconds.
        let r: Vec<IntervalRecord> = (0..12)
            .map(|i| record(i, if i % 4 < 2 { 600.0 } else { 1400.0 }, 2.0, 95.0))
            .collect();
        let c = StepConfidence::from_records(&r, figures(1000.0));
        assert!(c.spreads.all_seconds, "{:?}", c.spreads.steadiness);
        assert_eq!(c.window, Window { first: 0, len: 12 });
        let Spread::Estimated(tps) = &c.spreads.tps else {
            panic!("{:?}", c.spreads.tps)
        };
        assert_eq!(tps.values, 12);
        assert!(tps.interval.is_some(), "{}", tps.note);
        assert!(!c.settled);
        assert!(c.cv_pct.unwrap() > 30.0);
        let note = c.unsettled_note().unwrap();
        assert!(
            note.starts_with("the step's throughput never settled"),
            "{note}"
        );
        // A quiet step keeps its steady window.
        let quiet = StepConfidence::from_records(&records(30, 1000.0, 0.02, 95.0), figures(1000.0));
        assert!(!quiet.spreads.all_seconds);
        assert!(quiet.unsettled_note().is_none());
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

    #[test]
    fn without_records_no_figure_gets_an_interval() {
        let c = StepConfidence::from_records(&[], figures(1000.0));
        for s in [
            &c.spreads.tps,
            &c.spreads.qps,
            &c.spreads.p95,
            &c.spreads.p99,
        ] {
            assert_eq!(s.bounds(), None);
            assert!(c.phrase(s, 2).contains("no per-second records"), "{s:?}");
        }
        assert_eq!(c.cv_pct, None);
        assert!(!c.settled);
        assert_eq!(
            c.unsettled_note(),
            None,
            "nothing to judge is not 'never settled'"
        );
    }

    #[test]
    fn the_phrase_gives_the_interval_and_its_batch_duration() {
        let mut r = records(60, 1000.0, 0.05, 95.0);
        for x in &mut r {
            x.duration_s = 2.0004;
        }
        let c = StepConfidence::from_records(&r, figures(1000.0));
        let p = c.phrase(&c.spreads.tps, 1);
        assert!(p.starts_with("1000.0 (95% CI "), "{p}");
        let Spread::Estimated(Estimate {
            method: Method::BatchMeans { batch_size, .. },
            ..
        }) = &c.spreads.tps
        else {
            panic!("{:?}", c.spreads.tps)
        };
        assert!(
            p.ends_with(&format!(", batch means of {} s)", batch_size * 2)),
            "{p}"
        );
        let short = StepConfidence::from_records(&records(4, 1000.0, 0.05, 95.0), figures(1.0));
        let p = short.phrase(&short.spreads.tps, 2);
        assert!(
            p.starts_with("1.00 (no interval: 4 intervals, at least"),
            "{p}"
        );
        assert_eq!(trim(2.5004), "2.5");
    }

    #[test]
    fn a_step_reads_its_figures_as_a_report_does() {
        let r = crate::results::test_steps::step("read_only_no_intervals");
        let f = Figures::of_step(&r);
        assert_eq!(f.tps, r.tps());
        assert_eq!(f.p95_ms, Some(r.latency_pct_ms));
    }
}
