use super::*;
use crate::batch::batch_means_interval;
use crate::delta::relative_difference;
use crate::estimate::{Estimate, Interval, Method};
use crate::testutil::SplitMix;

fn estimate(mean: f64, std_error: f64) -> Estimate {
    Estimate {
        mean,
        interval: Interval::around(mean, std_error, 14.0),
        method: Method::Repeats { repeats: 15 },
        values: 15,
        cv_pct: None,
        note: String::new(),
    }
}

fn interval_delta(lower_pct: f64, upper_pct: f64) -> Delta {
    Delta {
        baseline: 100.0,
        candidate: 100.0 + (lower_pct + upper_pct) / 2.0,
        pct: Some((lower_pct + upper_pct) / 2.0),
        range: DeltaRange::Interval {
            lower_pct,
            upper_pct,
            df: 20.0,
        },
    }
}

/// Verdicts over `pairs` simulated comparisons of two 60-second steps whose per-second
/// TPS follows AR(1) (phi 0.6) around `base` and `base × (1 + shift)`, with a
/// per-second spread of `cv` of the level; also how often the point Δ alone passed the
/// threshold.
fn simulate(pairs: usize, shift: f64, cv: f64, seed: u64) -> (Vec<FigureVerdict>, usize) {
    let mut rng = SplitMix::new(seed);
    let base = 1000.0;
    // Marginal standard deviation cv × level: innovations of sd × √(1 − phi²).
    let sigma = |level: f64| cv * level * (1.0f64 - 0.36).sqrt();
    let mut point_flags = 0;
    let verdicts = (0..pairs)
        .map(|_| {
            let a = batch_means_interval(&rng.ar1(60, base, 0.6, sigma(base)));
            let level = base * (1.0 + shift);
            let b = batch_means_interval(&rng.ar1(60, level, 0.6, sigma(level)));
            let delta = relative_difference(&a, &b);
            if delta.pct.unwrap().abs() > 5.0 {
                point_flags += 1;
            }
            judge(delta, 5.0, Direction::HigherIsBetter).verdict
        })
        .collect();
    (verdicts, point_flags)
}

#[test]
fn a_a_comparisons_are_within_noise() {
    // Two runs of the same process, noisy enough (10% per second) that the point Δ
    // passes ±5% often, as it did for two identical ladders on a quiet machine.
    let (verdicts, point_flags) = simulate(1000, 0.0, 0.10, 21);
    let called = verdicts
        .iter()
        .filter(|v| matches!(v, FigureVerdict::Regressed | FigureVerdict::Improved))
        .count();
    println!("A/A: {called} of 1000 pairs judged different; point Δ past 5%: {point_flags}");
    assert!(
        called <= 10,
        "{called} of 1000 identical pairs got a verdict"
    );
    assert!(verdicts.iter().all(|v| *v != FigureVerdict::NotJudged));
    assert!(
        point_flags > 100,
        "the point rule flagged only {point_flags}"
    );
}

#[test]
fn a_b_shift_of_15_percent_is_regressed() {
    let (verdicts, _) = simulate(200, -0.15, 0.03, 22);
    let regressed = verdicts
        .iter()
        .filter(|v| **v == FigureVerdict::Regressed)
        .count();
    println!("A/B −15%: {regressed} of 200 pairs regressed");
    assert_eq!(regressed, 200);
    let (verdicts, _) = simulate(200, 0.15, 0.03, 23);
    assert!(verdicts.iter().all(|v| *v == FigureVerdict::Improved));
}

#[test]
fn latency_is_better_lower() {
    let base = estimate(10.0, 0.1);
    let slower = relative_difference(&base, &estimate(11.5, 0.1));
    let j = judge(slower.clone(), 5.0, Direction::LowerIsBetter);
    assert_eq!(j.verdict, FigureVerdict::Regressed, "{}", j.explanation);
    assert!(j.explanation.contains("worse side"), "{}", j.explanation);
    // The same Δ on a throughput figure is an improvement.
    assert_eq!(
        judge(slower, 5.0, Direction::HigherIsBetter).verdict,
        FigureVerdict::Improved
    );
    let faster = relative_difference(&base, &estimate(8.5, 0.1));
    assert_eq!(
        judge(faster, 5.0, Direction::LowerIsBetter).verdict,
        FigureVerdict::Improved
    );
}

#[test]
fn the_whole_interval_must_lie_beyond_the_threshold() {
    let hb = Direction::HigherIsBetter;
    assert_eq!(
        judge(interval_delta(-9.0, -5.5), 5.0, hb).verdict,
        FigureVerdict::Regressed
    );
    let straddling = judge(interval_delta(-9.0, -3.0), 5.0, hb);
    assert_eq!(straddling.verdict, FigureVerdict::WithinNoise);
    assert!(straddling.differs, "the interval excludes 0");
    assert!(
        straddling.explanation.contains("a real difference"),
        "{}",
        straddling.explanation
    );
    assert_eq!(straddling.noise_pct, Some(3.0));
    let wide = judge(interval_delta(-12.0, 4.0), 5.0, hb);
    assert_eq!(wide.verdict, FigureVerdict::WithinNoise);
    assert!(!wide.differs);
    assert!(
        wide.explanation.contains("differences under 8.0%"),
        "{}",
        wide.explanation
    );
    assert_eq!(
        judge(interval_delta(5.5, 9.0), 5.0, hb).verdict,
        FigureVerdict::Improved
    );
    // Exactly on the threshold is not beyond it.
    assert_eq!(
        judge(interval_delta(-9.0, -5.0), 5.0, hb).verdict,
        FigureVerdict::WithinNoise
    );
}

#[test]
fn odd_thresholds_and_missing_intervals() {
    let d = interval_delta(-9.0, -6.0);
    let negative = judge(d.clone(), -5.0, Direction::HigherIsBetter);
    assert_eq!(
        (negative.verdict, negative.threshold_pct),
        (FigureVerdict::Regressed, 5.0)
    );
    // A threshold of 0 (or none): any difference the interval is sure of.
    let nan = judge(
        interval_delta(-2.0, 1.0),
        f64::NAN,
        Direction::HigherIsBetter,
    );
    assert_eq!(
        (nan.verdict, nan.threshold_pct),
        (FigureVerdict::WithinNoise, 0.0)
    );
    let zero = judge(interval_delta(-2.0, -1.0), 0.0, Direction::HigherIsBetter);
    assert_eq!(zero.verdict, FigureVerdict::Regressed);

    let unbounded = relative_difference(&estimate(1.0, 2.0), &estimate(100.0, 1.0));
    let j = judge(unbounded, 5.0, Direction::HigherIsBetter);
    assert_eq!((j.verdict, j.noise_pct), (FigureVerdict::WithinNoise, None));
    assert!(
        j.explanation.contains("no finite interval"),
        "{}",
        j.explanation
    );

    let short = Estimate::too_short(&[1.0], 10, String::new());
    let j = judge(
        relative_difference(&short, &estimate(1.0, 0.1)),
        5.0,
        Direction::LowerIsBetter,
    );
    assert_eq!(j.verdict, FigureVerdict::NotJudged);
    assert!(j.explanation.contains("not judged"), "{}", j.explanation);

    let zero_base = Estimate::too_short(&[], 10, String::new());
    let j = judge(
        relative_difference(&zero_base, &zero_base),
        5.0,
        Direction::HigherIsBetter,
    );
    assert!(j.explanation.contains("undefined"), "{}", j.explanation);
    let json = serde_json::to_string(&j).unwrap();
    assert!(json.contains("\"verdict\":\"not_judged\""), "{json}");
}

#[test]
fn noise_floor_is_the_median_half_width() {
    let cells = [
        interval_delta(-3.0, 3.0),
        interval_delta(-1.0, 1.0),
        interval_delta(0.0, 20.0),
        relative_difference(&estimate(1.0, 2.0), &estimate(5.0, 0.1)),
        relative_difference(
            &Estimate::too_short(&[], 10, String::new()),
            &estimate(5.0, 0.1),
        ),
    ];
    let floor = noise_floor(&cells);
    assert_eq!(floor.pct, Some(3.0));
    assert_eq!(
        (floor.cells, floor.bounded, floor.unbounded, floor.unknown),
        (5, 3, 1, 1)
    );
    assert!(
        floor.note.starts_with("differences under 3.0%"),
        "{}",
        floor.note
    );
    assert!(
        floor.note.contains("1 cell without a finite"),
        "{}",
        floor.note
    );

    let empty = noise_floor(&[]);
    assert_eq!((empty.pct, empty.cells), (None, 0));
    assert!(empty.note.contains("unknown"), "{}", empty.note);
}

#[test]
fn noise_floor_of_simulated_runs_matches_their_noise() {
    // 10% per-second noise over 60 correlated seconds: each mean is known to about ±5%,
    // so Δ to about ±7%.
    let mut rng = SplitMix::new(31);
    let sigma = 100.0 * (1.0f64 - 0.36).sqrt();
    let deltas: Vec<Delta> = (0..8)
        .map(|_| {
            let a = batch_means_interval(&rng.ar1(60, 1000.0, 0.6, sigma));
            let b = batch_means_interval(&rng.ar1(60, 1000.0, 0.6, sigma));
            relative_difference(&a, &b)
        })
        .collect();
    let floor = noise_floor(&deltas);
    let pct = floor.pct.unwrap();
    println!("noise floor of 8 A/A cells at 10% per-second noise: {pct:.1}%");
    assert!((3.0..15.0).contains(&pct), "{pct}");
}
