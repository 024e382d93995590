//! A run whose steps were repeated (`dbdyno ladder --repeat=3`) against the synthetic
//! three environments: one cell per scenario and thread count, its figures the mean of
//! the repeats, its intervals their spread, and the report saying so.

mod support;

use dbdyno_engine::Repeat;
use dbdyno_report::model::noise::Spread;
use dbdyno_report::render::markdown;
use dbdyno_report::{build, ReportRun};
use dbdyno_stats::Method;
use support::{opts, runs};

/// Each step of `run` three times (1.00×, 1.02× and 0.98× its TPS and QPS), in the
/// serpentine order the engine runs them.
fn repeated(run: &ReportRun) -> ReportRun {
    let mut out = run.clone();
    out.steps.clear();
    let n = run.steps.len();
    for (round, scale) in [1.0, 1.02, 0.98].into_iter().enumerate() {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..n).collect()
        } else {
            (0..n).rev().collect()
        };
        for i in order {
            let mut step = run.steps[i].clone();
            let r = &mut step.result;
            r.transactions = (r.transactions as f64 * scale).round() as u64;
            r.queries.read = (r.queries.read as f64 * scale).round() as u64;
            r.printed = None;
            r.repeat = Repeat {
                number: round as u32 + 1,
                of: 3,
            };
            out.steps.push(step);
        }
    }
    out
}

#[test]
fn repeats_make_one_cell_with_the_spread_as_its_interval() {
    let single = runs("three_envs.json");
    let with_repeats: Vec<ReportRun> = single.iter().map(repeated).collect();
    let one = build(&single, &opts(Some("idc"))).unwrap();
    let three = build(&with_repeats, &opts(Some("idc"))).unwrap();
    for (s1, s3) in one.scenarios.iter().zip(&three.scenarios) {
        assert_eq!(s1.threads, s3.threads, "one cell per thread count");
        for (e1, e3) in s1.envs.iter().zip(&s3.envs) {
            for (c1, c3) in e1.cells.iter().zip(&e3.cells) {
                let (c1, c3) = (c1.as_ref().unwrap(), c3.as_ref().unwrap());
                assert_eq!(c3.repeats, 3);
                // The mean of 1.00×, 1.02× and 0.98×.
                assert!(
                    (c3.tps / c1.tps - 1.0).abs() < 1e-3,
                    "{} vs {}",
                    c3.tps,
                    c1.tps
                );
                let Spread::Estimated(e) = &c3.intervals.tps else {
                    panic!("{:?}", c3.intervals.tps)
                };
                assert_eq!(e.method, Method::Repeats { repeats: 3 });
                // s = 2% of the figure, t(2) = 4.30: ±4.97%.
                let pct = e.half_width_pct().unwrap();
                assert!((pct - 4.3027 * 2.0 / 3f64.sqrt()).abs() < 0.05, "{pct}");
            }
        }
        for c in &s3.comparisons {
            for row in &c.rows {
                assert_eq!(
                    row.interval_method.as_deref(),
                    Some("intervals from the spread of 3 repeats")
                );
            }
        }
        for c in &s1.comparisons {
            assert!(c.rows.iter().all(|r| r.interval_method.is_none()));
        }
    }
    let md = markdown::render(&three);
    assert!(
        md.contains("; intervals from the spread of 3 repeats"),
        "{md}"
    );
}

#[test]
fn a_run_with_repeats_against_a_single_run_says_which_side_used_which() {
    let single = runs("three_envs.json");
    let mut mixed = single.clone();
    mixed[1] = repeated(&single[1]);
    let r = build(&mixed, &opts(Some("idc"))).unwrap();
    let row = &r.scenarios[0].comparisons[0].rows[0];
    assert_eq!(
        row.interval_method.as_deref(),
        Some("intervals from the batch means of one run (baseline) and the spread of 3 repeats (candidate)")
    );
}
