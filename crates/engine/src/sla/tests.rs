//! The SLA's pure parts on made-up steps: judging with the interval's upper end, the
//! capacity's choice, and the bisection's next thread counts.

use super::*;
use crate::plan::{LadderSpec, Phase, Plan};
use crate::results::IntervalRecord;
use crate::{Scenario, StepResult};

fn target(s: &str) -> SlaTarget {
    s.parse().unwrap()
}

/// A step of `threads` at `tps` whose per-second p95 swings by ±`wobble` ms around
/// `p95_ms` for `seconds` seconds (no records when `seconds` is 0).
fn step(threads: u32, tps: f64, p95_ms: f64, wobble: f64, seconds: usize) -> StepResult {
    let mut r = crate::results::test_steps::step("point_select_no_intervals");
    r.threads = threads;
    r.printed = None;
    r.total_time_s = 30.0;
    r.transactions = (tps * 30.0) as u64;
    r.percentile = 95.0;
    r.latency_pct_ms = p95_ms;
    r.latency.p95_ms = Some(p95_ms);
    r.confidence = None;
    r.intervals = (0..seconds)
        .map(|i| IntervalRecord {
            elapsed_s: (i + 1) as f64,
            duration_s: 1.0,
            end_unix_ms: 0,
            threads,
            tps,
            qps: tps,
            reads_ps: tps,
            writes_ps: 0.0,
            other_ps: 0.0,
            latency_ms: p95_ms + if i % 2 == 0 { wobble } else { -wobble },
            percentile: 95.0,
            p95_ms: None,
            p99_ms: None,
            errors_ps: 0.0,
            reconnects_ps: 0.0,
            open_loop: None,
        })
        .collect();
    r
}

#[test]
fn a_step_is_within_only_when_its_interval_stays_under_the_limit() {
    let t = target("p95<=20ms");
    // A quiet step at 19.2 ms: the interval is narrow, within.
    let quiet = judge_step(&step(8, 1000.0, 19.2, 0.05, 30), &t);
    assert_eq!(quiet.standing, SlaStanding::Within, "{quiet:?}");
    assert!(quiet.upper_ms.unwrap() > 19.2 && quiet.upper_ms.unwrap() <= 20.0);
    // The same figure from a noisy step: its interval reaches past 20 ms, beyond.
    let noisy = judge_step(&step(8, 1000.0, 19.2, 3.0, 30), &t);
    assert_eq!(noisy.standing, SlaStanding::Beyond, "{noisy:?}");
    assert!(noisy.upper_ms.unwrap() > 20.0);
    assert_eq!(noisy.percentile_ms, Some(19.2));
    let line = mark(&noisy, &t);
    assert!(
        line.starts_with("p95 19.2 ms (CI ≤ ") && line.ends_with(" beyond p95≤20ms"),
        "{line}"
    );
    // Over the limit outright.
    assert_eq!(
        judge_step(&step(8, 1000.0, 25.0, 0.05, 30), &t).standing,
        SlaStanding::Beyond
    );
}

#[test]
fn a_step_without_an_interval_is_judged_on_its_figure_and_says_so() {
    let t = target("p95<=20ms");
    let short = judge_step(&step(8, 1000.0, 19.0, 0.5, 0), &t);
    assert_eq!(short.standing, SlaStanding::Within);
    assert_eq!(short.upper_ms, None);
    assert!(short.no_interval.is_some());
    assert!(mark(&short, &t).contains("(no interval) within"));
    // p99 is not in the per-second records (they carry p95): figure alone, and why.
    let mut s = step(8, 1000.0, 19.0, 0.5, 30);
    s.latency.p99_ms = Some(30.0);
    let p99 = judge_step(&s, &target("p99<=25ms"));
    assert_eq!(p99.standing, SlaStanding::Beyond);
    assert!(
        p99.no_interval
            .as_deref()
            .unwrap()
            .contains("--percentile=99"),
        "{p99:?}"
    );
    // No figure at all: unknown.
    s.latency.p99_ms = None;
    s.histogram.clear();
    assert_eq!(
        judge_step(&s, &target("p99<=25ms")).standing,
        SlaStanding::Unknown
    );
}

#[test]
fn capacity_is_the_highest_throughput_within_the_target() {
    let t = target("p95<=20ms");
    let steps = [
        step(1, 500.0, 2.0, 0.05, 30),
        step(8, 3000.0, 10.0, 0.05, 30),
        step(16, 3500.0, 18.0, 0.05, 30),
        step(32, 3800.0, 40.0, 0.05, 30),
    ];
    let judged: Vec<StepSla> = steps.iter().map(|s| judge_step(s, &t)).collect();
    let c = capacity(steps.iter().zip(judged.iter())).unwrap();
    assert_eq!(
        (c.threads, c.tps, c.step, c.searched),
        (16, 3500.0, 2, false)
    );
    // A cancelled step never sets it.
    let mut cut = steps.clone();
    cut[2].cancelled = true;
    let c = capacity(cut.iter().zip(judged.iter())).unwrap();
    assert_eq!(c.threads, 8);
    // No step within: none.
    let tight = target("p95<=1ms");
    let judged: Vec<StepSla> = steps.iter().map(|s| judge_step(s, &tight)).collect();
    assert_eq!(capacity(steps.iter().zip(judged.iter())), None);
}

#[test]
fn bisection_halves_the_bracket_until_it_is_one_thread_wide() {
    use SlaStanding::*;
    assert_eq!(
        search::next_threads(&[(1, Within), (8, Within), (16, Beyond)]),
        Some(12)
    );
    assert_eq!(
        search::bracket(&[(1, Within), (8, Within), (16, Beyond)]),
        Some((8, 16))
    );
    assert_eq!(
        search::next_threads(&[(8, Within), (12, Beyond), (16, Beyond)]),
        Some(10)
    );
    assert_eq!(search::next_threads(&[(10, Within), (11, Beyond)]), None);
    // Nothing beyond, or nothing within below the first beyond: no search.
    assert_eq!(search::next_threads(&[(1, Within), (64, Within)]), None);
    assert_eq!(search::next_threads(&[(1, Beyond), (64, Beyond)]), None);
    // The crossing that counts is the first: a later step within does not move it.
    assert_eq!(
        search::bracket(&[(1, Within), (4, Beyond), (32, Within)]),
        Some((1, 4))
    );
    // A middle measured already (unknown) ends the search rather than repeating it.
    assert_eq!(
        search::next_threads(&[(8, Within), (12, Unknown), (16, Beyond)]),
        None
    );
    // Order of the steps does not matter.
    assert_eq!(
        search::next_threads(&[(16, Beyond), (1, Within), (8, Within)]),
        Some(12)
    );
}

#[test]
fn the_search_step_copies_the_scenario_settings_and_the_plan_carries_the_target() {
    let spec = LadderSpec {
        scenarios: vec![Scenario::OltpPointSelect],
        threads: vec![1, 8, 16],
        sla: Some(target("p95<=20ms")),
        sla_search: 3,
        cooldown_s: 2,
        cleanup: true,
        ..Default::default()
    };
    let phases = spec.phases();
    let Some(Phase::Sla(sla)) = phases.iter().rev().nth(1).cloned() else {
        panic!("the SLA phase comes after the steps, before cleanup: {phases:?}")
    };
    assert_eq!((sla.search_steps, sla.cooldown_s), (3, 2));
    let plan = Plan {
        connect: Default::default(),
        workload: Default::default(),
        phases,
        force: false,
        on_step_error: crate::plan::StepErrorPolicy::Stop,
    };
    assert_eq!(plan.validate(), Ok(()));
    let done = [
        step(1, 500.0, 2.0, 0.05, 30),
        step(8, 3000.0, 10.0, 0.05, 30),
        step(16, 3500.0, 40.0, 0.05, 30),
    ];
    let (next, bracket) =
        search::next_step(&plan, &sla.target, Scenario::OltpPointSelect, &done).unwrap();
    assert_eq!(next.repeat, crate::repeat::Repeat::SINGLE);
    assert_eq!((next.threads, bracket), (12, (8, 16)));
    assert_eq!(next.settings, spec.settings);
    assert!(search::next_step(&plan, &sla.target, Scenario::OltpReadOnly, &done).is_err());
    // An open loop has no threads to bisect.
    let mut open = plan.clone();
    for p in &mut open.phases {
        if let Phase::Step(s) = p {
            s.settings.rate = 500.0;
        }
    }
    let why = search::next_step(&open, &sla.target, Scenario::OltpPointSelect, &done).unwrap_err();
    assert!(why.contains("open loop"), "{why}");
    // Why a search ends, in words: the capacity above or below the ladder, or found.
    let why = |done: &[StepResult]| {
        search::next_step(&plan, &sla.target, Scenario::OltpPointSelect, done).unwrap_err()
    };
    let all_within = [
        step(1, 500.0, 2.0, 0.05, 30),
        step(16, 900.0, 3.0, 0.05, 30),
    ];
    assert!(why(&all_within).contains("above the ladder"));
    let all_beyond = [
        step(1, 500.0, 30.0, 0.05, 30),
        step(16, 900.0, 40.0, 0.05, 30),
    ];
    assert!(why(&all_beyond).contains("below the ladder"));
    let found = [
        step(8, 500.0, 2.0, 0.05, 30),
        step(9, 900.0, 40.0, 0.05, 30),
    ];
    assert!(why(&found).contains("8 threads within p95≤20ms, 9 beyond"));
    // The plan's JSON holds the target as text, and reads back.
    let json = serde_json::to_string(&plan).unwrap();
    assert!(
        json.contains(r#""phase":"sla","target":"p95<=20ms""#),
        "{json}"
    );
    assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
}

#[test]
fn the_ladder_text_marks_steps_and_names_each_capacity() {
    let t = target("p95<=20ms");
    let mut searched = step(12, 3300.0, 15.0, 0.05, 30);
    searched.sla_search = true;
    let rows = [
        step(8, 3000.0, 10.0, 0.05, 30),
        step(16, 3500.0, 40.0, 0.05, 30),
        searched.clone(),
    ];
    assert!(text::step_mark(&rows[1], &t).contains("beyond p95≤20ms"));
    assert!(text::step_mark(&searched, &t).ends_with("within p95≤20ms (capacity search)"));
    assert_eq!(
        text::capacity_lines(&rows, &t),
        ["capacity at p95 ≤ 20 ms: oltp_point_select 3300.00 tps at 12 threads (found by the capacity search)"]
    );
    assert_eq!(
        text::capacity_lines(&rows, &target("p95<=1ms")),
        ["capacity at p95 ≤ 1 ms: oltp_point_select none: no step met the target"]
    );
}
