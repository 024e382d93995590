use super::*;
use crate::tdist::t_critical;
use crate::testutil::SplitMix;

/// Share of `trials` AR(1) series (mean 100) whose interval covers 100: batch means, and
/// the textbook interval that treats the values as independent.
fn coverage(n: usize, phi: f64, trials: usize, seed: u64) -> (f64, f64) {
    let mut rng = SplitMix::new(seed);
    let (mut batched, mut naive) = (0, 0);
    for _ in 0..trials {
        let v = rng.ar1(n, 100.0, phi, 1.0);
        let i = batch_means_interval(&v).interval.expect("interval");
        if i.lower <= 100.0 && 100.0 <= i.upper {
            batched += 1;
        }
        let half =
            t_critical(0.95, (n - 1) as f64).unwrap() * (sample_variance(&v) / n as f64).sqrt();
        if (mean(&v) - 100.0).abs() <= half {
            naive += 1;
        }
    }
    (batched as f64 / trials as f64, naive as f64 / trials as f64)
}

#[test]
fn covers_the_true_mean_of_autocorrelated_series() {
    // The case the method exists for: each second keeps 60% of the previous one's
    // deviation. 2,000 series of 60 seconds.
    let (batched, naive) = coverage(60, 0.6, 2000, 1);
    println!("phi 0.6, 60 values: batch means cover {batched:.3}, i.i.d. interval {naive:.3}");
    assert!(
        (0.90..=0.98).contains(&batched),
        "batch means covered {batched}"
    );
    assert!(
        naive < 0.80,
        "the i.i.d. interval covered {naive}: batching would not matter"
    );
    assert!(batched - naive > 0.15);
}

#[test]
fn coverage_holds_for_short_long_and_independent_series() {
    for (n, phi) in [(20, 0.6), (300, 0.6), (60, 0.0), (120, 0.3)] {
        let (batched, naive) = coverage(n, phi, 2000, 7);
        println!("phi {phi}, {n} values: batch means cover {batched:.3}, i.i.d. {naive:.3}");
        assert!(
            (0.90..=0.98).contains(&batched),
            "n {n} phi {phi}: {batched}"
        );
    }
}

#[test]
fn independent_values_keep_small_batches() {
    let mut rng = SplitMix::new(3);
    let v = rng.ar1(100, 500.0, 0.0, 10.0);
    let e = batch_means_interval(&v);
    let Method::BatchMeans {
        batch_size,
        batches,
        decorrelated,
        inflation,
        ..
    } = e.method
    else {
        panic!("{e:?}")
    };
    assert!(batch_size <= 2, "{}", e.note);
    assert_eq!(batches, 100 / batch_size);
    assert!(decorrelated && inflation == 1.0);
    assert!(e.note.contains("smallest size"), "{}", e.note);
    let cv = e.cv_pct.unwrap();
    assert!((1.0..3.0).contains(&cv), "{cv}");
    let i = e.interval.unwrap();
    assert!(i.lower < e.mean && e.mean < i.upper);
    assert!((i.upper - e.mean - i.half_width).abs() < 1e-9);
}

#[test]
fn correlated_series_get_bigger_batches_and_say_why() {
    let mut rng = SplitMix::new(5);
    let v = rng.ar1(240, 1000.0, 0.8, 20.0);
    let e = batch_means_interval(&v);
    let Method::BatchMeans {
        batch_size,
        batches,
        left_out,
        ..
    } = e.method
    else {
        panic!("{e:?}")
    };
    assert!(batch_size >= 4, "{}", e.note);
    assert_eq!(batches * batch_size + left_out, 240);
    assert!(
        e.note.contains(&format!("batches of {batch_size}")),
        "{}",
        e.note
    );
}

#[test]
fn a_short_correlated_step_is_widened_and_flagged() {
    // A slow ramp: correlated at every size that leaves 10 batches.
    let v: Vec<f64> = (0..16).map(|i| 100.0 + i as f64).collect();
    let e = batch_means_interval(&v);
    let Method::BatchMeans {
        batch_size,
        batches,
        decorrelated,
        inflation,
        ..
    } = e.method
    else {
        panic!("{e:?}")
    };
    assert_eq!((batch_size, batches), (2, 8));
    assert!(!decorrelated);
    assert!(inflation > 1.0 && inflation <= 9.0, "{inflation}");
    assert!(e.note.contains("still correlated"), "{}", e.note);
    assert!(e.note.contains("may still be too narrow"), "{}", e.note);
}

#[test]
fn values_that_fill_no_batch_are_left_out_at_the_start() {
    assert_eq!(batch_means(&[1.0, 2.0, 3.0, 4.0, 5.0], 2), [2.5, 4.5]);
    let mut rng = SplitMix::new(11);
    let mut v = rng.ar1(25, 100.0, 0.9, 1.0);
    v[0] = 1e6; // a first value the batches leave out when the size is even
    let e = batch_means_interval(&v);
    if let Method::BatchMeans {
        batch_size,
        left_out,
        ..
    } = e.method
    {
        assert_eq!(left_out, 25 % batch_size);
        if left_out > 0 {
            assert!(e.mean < 1000.0, "{}", e.mean);
            assert!(e.note.contains("left out to fill"), "{}", e.note);
        }
    }
}

#[test]
fn degenerate_inputs_give_clear_results() {
    for v in [&[][..], &[42.0][..], &[1.0, 2.0][..], &[5.0; 9][..]] {
        let e = batch_means_interval(v);
        assert_eq!(e.interval, None);
        assert_eq!(e.method, Method::TooShort { needed: 10 });
        assert!(
            e.note.starts_with("too short for an interval"),
            "{}",
            e.note
        );
        assert!(e.mean.is_finite());
        assert_eq!(e.values, v.len());
    }
    assert_eq!(batch_means_interval(&[]).mean, 0.0);
    assert_eq!(batch_means_interval(&[42.0]).mean, 42.0);

    let constant = batch_means_interval(&[250.0; 30]);
    let i = constant.interval.unwrap();
    assert_eq!((i.lower, i.upper, i.half_width), (250.0, 250.0, 0.0));
    assert_eq!(constant.cv_pct, Some(0.0));
    assert!(constant.note.contains("all 30"), "{}", constant.note);

    let zeros = batch_means_interval(&[0.0; 12]);
    assert_eq!(zeros.mean, 0.0);
    assert_eq!(zeros.cv_pct, None);
    assert_eq!(zeros.half_width_pct(), None);

    let mut with_nan = vec![
        100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 102.0, 98.0, 100.0, 101.0,
    ];
    with_nan.push(f64::NAN);
    with_nan.push(f64::INFINITY);
    let e = batch_means_interval(&with_nan);
    assert_eq!(e.values, 10);
    assert!(e.interval.is_some());
    assert!(e.note.contains("2 non-finite"), "{}", e.note);
    let json = serde_json::to_string(&e).unwrap();
    assert!(
        !json.contains("null") || json.contains("\"cv_pct\":null"),
        "{json}"
    );
    let back: Estimate = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (&back.method, &back.note, back.values),
        (&e.method, &e.note, e.values)
    );
    assert!((back.interval.unwrap().upper - e.interval.unwrap().upper).abs() < 1e-9);
}

#[test]
fn percentile_interval_is_centred_on_the_steps_percentile() {
    let mut rng = SplitMix::new(13);
    let mut p95 = rng.ar1(60, 10.0, 0.5, 0.3);
    p95[7] = 0.0; // a second without transactions
    let e = percentile_interval(&p95, 12.0);
    assert_eq!(e.mean, 12.0);
    assert_eq!(e.values, 59);
    let i = e.interval.unwrap();
    assert!(i.lower < 12.0 && 12.0 < i.upper);
    let raw = batch_means_interval(&p95.iter().copied().filter(|v| *v > 0.0).collect::<Vec<_>>());
    assert!((e.half_width_pct().unwrap() - raw.half_width_pct().unwrap()).abs() < 1e-9);
    assert!(e.note.starts_with("per-second percentiles"), "{}", e.note);
    assert!(e.note.contains("1 second without"), "{}", e.note);
    // Without a usable step percentile the interval stays around the per-second mean.
    let around_mean = percentile_interval(&p95, f64::NAN);
    assert!((around_mean.mean - raw.mean).abs() < 1e-12);
    // Too few seconds with transactions: the step's figure, no interval.
    let short = percentile_interval(&[0.0, 3.0, 0.0, 4.0], 5.0);
    assert_eq!((short.mean, short.interval), (5.0, None));
}

#[test]
fn a_latency_interval_never_reaches_below_zero() {
    // Small per-second p95s with one slow second (seen on a busy machine: 0.17 ms read
    // as "−0.01 … 0.35"): the symmetric interval would cross 0.
    let mut p95 = vec![0.01; 10];
    p95[4] = 3.0;
    let unclamped = batch_means_interval(&p95).interval.unwrap();
    assert!(
        unclamped.half_width > batch_means_interval(&p95).mean,
        "the case must reach below 0: {unclamped:?}"
    );
    assert_eq!(unclamped.lower, 0.0);
    let e = percentile_interval(&p95, 0.17);
    let i = e.interval.unwrap();
    assert_eq!(i.lower, 0.0);
    assert!(i.upper > 0.17);
    assert!(e.note.contains("raised to 0"), "{}", e.note);
}
