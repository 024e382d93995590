//! What the Run screen says of a finished step beyond its figures: how sure they are
//! (the TPS and p95 intervals the engine stored with the step), whether it settled,
//! where it stands against the latency target, and whether an open-loop step kept its
//! rate. Every figure and word comes from the engine; this only picks them out.

use dbdyno_engine::sla::{judge_step, mark, SlaStanding};
use dbdyno_engine::{SlaTarget, StepResult};
use serde::Serialize;

/// A 95% interval's ends.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Bounds {
    pub lower: f64,
    pub upper: f64,
}

/// A step against the latency target.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct SlaMark {
    /// True within the target (the upper end of the percentile's interval meets it),
    /// false beyond; None when the step has no figure at the target's percentile.
    pub within: Option<bool>,
    /// "p95 19.2 ms (CI ≤ 20.4) within p95≤20ms", as the command line prints it.
    pub text: String,
}

/// How sure a finished step is of its figures, and what it met.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct StepNoise {
    /// Half the TPS interval's width in percent of the TPS ("± 2.1%"); None without an
    /// interval (too few seconds).
    pub tps_half_width_pct: Option<f64>,
    pub p95_interval_ms: Option<Bounds>,
    /// Coefficient of variation of the per-second TPS, percent.
    pub cv_pct: Option<f64>,
    /// False when the per-second throughput never settled (the steady-state detector).
    pub settled: bool,
    pub sla: Option<SlaMark>,
    /// Why an open-loop step did not keep its arrival rate; None when it did or for a
    /// closed loop.
    pub rate_not_sustained: Option<String>,
}

impl StepNoise {
    /// The noise of step `r`, judged against `target` when the plan sets one.
    pub fn of(r: &StepResult, target: Option<&SlaTarget>) -> StepNoise {
        let confidence = r.confidence_or_computed();
        let c = confidence.as_deref();
        StepNoise {
            tps_half_width_pct: c.and_then(|c| c.spreads.tps.half_width_pct()),
            p95_interval_ms: c
                .and_then(|c| c.spreads.p95.bounds())
                .map(|(lower, upper)| Bounds { lower, upper }),
            cv_pct: c.and_then(|c| c.cv_pct),
            settled: c.is_some_and(|c| c.settled),
            sla: target.map(|t| {
                let judged = judge_step(r, t);
                SlaMark {
                    within: match judged.standing {
                        SlaStanding::Within => Some(true),
                        SlaStanding::Beyond => Some(false),
                        SlaStanding::Unknown => None,
                    },
                    text: mark(&judged, t),
                }
            }),
            rate_not_sustained: r.open_loop.as_ref().filter(|o| !o.sustained).map(|o| {
                o.reason
                    .clone()
                    .unwrap_or_else(|| "rate not sustained".into())
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::open_loop::{OpenLoopResult, RateDist};
    use dbdyno_engine::{IntervalRecord, Scenario};

    use super::*;

    /// A measured step of 8 threads at 1,000 TPS whose per-second TPS swings by
    /// ±`wobble` and whose p95 is 19.2 ms ± 0.05, for `seconds` seconds.
    fn step(wobble: f64, seconds: usize) -> StepResult {
        let text = include_str!("../../../sysbench-text/src/fixtures/read_only_no_intervals.txt");
        let parsed = dbdyno_sysbench_text::parse_sysbench_output(text).unwrap();
        let mut r = parsed[0].to_step_result(Scenario::OltpPointSelect);
        (r.threads, r.printed, r.total_time_s) = (8, None, 30.0);
        r.transactions = 30_000;
        (r.percentile, r.latency_pct_ms, r.latency.p95_ms) = (95.0, 19.2, Some(19.2));
        r.confidence = None;
        r.intervals = (0..seconds)
            .map(|i| {
                let sign = if i % 2 == 0 { 1.0 } else { -1.0 };
                IntervalRecord {
                    elapsed_s: (i + 1) as f64,
                    duration_s: 1.0,
                    end_unix_ms: 0,
                    threads: 8,
                    tps: 1000.0 + sign * wobble,
                    qps: 1000.0,
                    reads_ps: 1000.0,
                    writes_ps: 0.0,
                    other_ps: 0.0,
                    latency_ms: 19.2 + sign * 0.05,
                    percentile: 95.0,
                    p95_ms: None,
                    p99_ms: None,
                    errors_ps: 0.0,
                    reconnects_ps: 0.0,
                    open_loop: None,
                }
            })
            .collect();
        r.with_confidence()
    }

    #[test]
    fn a_measured_step_carries_its_intervals_and_its_mark() {
        let r = step(20.0, 30);
        let target: SlaTarget = "p95<=20ms".parse().unwrap();
        let n = StepNoise::of(&r, Some(&target));
        let half = n.tps_half_width_pct.expect("a TPS interval");
        assert!(half > 0.0 && half < 5.0, "{half}");
        let p95 = n.p95_interval_ms.expect("a p95 interval");
        assert!(
            p95.lower < 19.2 && 19.2 < p95.upper && p95.upper < 20.0,
            "{p95:?}"
        );
        assert!(n.settled);
        let sla = n.sla.expect("a target was set");
        assert_eq!(sla.within, Some(true));
        assert!(sla.text.ends_with("within p95≤20ms"), "{}", sla.text);
        let tight: SlaTarget = "p95<=10ms".parse().unwrap();
        assert_eq!(
            StepNoise::of(&r, Some(&tight)).sla.unwrap().within,
            Some(false)
        );
        assert_eq!(StepNoise::of(&r, None).sla, None, "no target, no mark");
        assert_eq!(n.rate_not_sustained, None);
    }

    #[test]
    fn a_step_without_seconds_has_no_interval_and_never_settled() {
        let n = StepNoise::of(&step(0.0, 0), None);
        assert_eq!((n.tps_half_width_pct, n.p95_interval_ms), (None, None));
        assert!(!n.settled);
    }

    #[test]
    fn an_open_loop_step_that_fell_behind_says_why() {
        let mut r = step(20.0, 30);
        r.open_loop = Some(OpenLoopResult {
            target_rate: 2000.0,
            dist: RateDist::Fixed,
            connections: 8,
            achieved_rate: 1000.0,
            late_starts: 5000,
            max_lag_ms: 900.0,
            max_queue: 400,
            queue_at_end: 400,
            sustained: false,
            reason: Some("achieved 1000.0/s, below 95% of the target 2000/s".into()),
        });
        let n = StepNoise::of(&r, None);
        assert!(n
            .rate_not_sustained
            .unwrap()
            .starts_with("achieved 1000.0/s"));
    }
}
