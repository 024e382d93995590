//! Repeats: the interval of a figure across repeated runs of one step, and the order in
//! which to run the repeats of a ladder.
//!
//! One run's batch means see only the noise inside that run. Running each step several
//! times and taking the spread of the step's means also captures what changes from run to
//! run (the buffer pool's contents, a neighbour on the host, the time of day): it is the
//! interval to trust when two environments are compared.
//!
//! Repeats are run interleaved, not back to back, so that a slow drift of the server
//! (warming caches, growing tables, a noisy neighbour arriving) spreads over all steps
//! instead of landing on the last thread counts and reading as a difference between them.
//!
//! Non-goal: pooling the within-run intervals of the repeats with their spread (the spread
//! of the means already contains the within-run noise).

use serde::{Deserialize, Serialize};

use crate::describe::{coefficient_of_variation_pct, finite, mean, sample_variance};
use crate::estimate::{Estimate, Interval, Method};
use crate::wording::count;

/// Fewest repeats for an interval.
pub const MIN_REPEATS: usize = 2;

/// The 95% interval of a step's figure from the means of its `repeats` (one value per
/// repeat: its TPS, QPS or percentile): mean ± t(n − 1) × s/√n. Non-finite values are
/// left out; fewer than 2 repeats give no interval. With 2 repeats t is 12.7, so the
/// interval is wide: 3 or more repeats give a useful one (t = 4.3, then 3.2).
pub fn repeats_interval(means: &[f64]) -> Estimate {
    let values = finite(means);
    let n = values.len();
    if n < MIN_REPEATS {
        let note = format!(
            "too short for an interval: {}, at least {MIN_REPEATS} are needed",
            count(n as u32, "repeat")
        );
        return Estimate::too_short(&values, MIN_REPEATS, note);
    }
    let centre = mean(&values);
    let std_error = (sample_variance(&values) / n as f64).sqrt();
    let df = (n - 1) as f64;
    let estimate = Estimate {
        mean: centre,
        interval: Interval::around(centre, std_error, df),
        method: Method::Repeats { repeats: n },
        values: n,
        cv_pct: coefficient_of_variation_pct(&values),
        note: format!(
            "spread of {n} repeats (Student t with {} of freedom); it includes the \
             differences from run to run that one run cannot show",
            count((n - 1) as u32, "degree")
        ),
    };
    estimate.at_least_zero_for(&values)
}

/// One measured step in a run with repeats: which step (index into the ladder's steps)
/// and which of its repeats (both from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Slot {
    pub step: usize,
    pub repeat: usize,
}

/// The order in which to run `repeats` repeats of `steps` steps: rounds of every step,
/// forward in even rounds and backward in odd ones (A B C, C B A, A B C, …; a
/// "serpentine" or ABBA order).
///
/// Why this order: under a drift that grows steadily with time, a step's average reading
/// is shifted by its average position in time. Running the rounds alternately forward and
/// backward gives every step the same average position after each pair of rounds, so with
/// an even number of repeats a linear drift cancels exactly; with an odd number the
/// first and last steps' average positions differ by (steps − 1)/repeats slots (3 repeats
/// of 8 steps: 2.3 to 4.7 within a round). A rotation (A B C, B C A, C A B) balances only
/// when the repeats are a multiple of the steps; with 3 repeats of 8 steps it leaves the
/// averages between 1 and 6. The first round is the plain ladder, so a run cut short
/// still has every step once. The price: at each turn the last step of one round is the
/// first of the next, so those two repeats run back to back and their spread shows less
/// of the drift than the other steps' do.
pub fn interleaved_order(steps: usize, repeats: usize) -> Vec<Slot> {
    (0..repeats)
        .flat_map(|repeat| {
            (0..steps).map(move |i| {
                let step = if repeat % 2 == 0 { i } else { steps - 1 - i };
                Slot { step, repeat }
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_across_repeats() {
        let e = repeats_interval(&[100.0, 104.0, 96.0]);
        assert_eq!(e.mean, 100.0);
        assert_eq!(e.method, Method::Repeats { repeats: 3 });
        let i = e.interval.unwrap();
        // s = 4, se = 4/√3, t(2) = 4.3027.
        assert!(
            (i.half_width - 4.3027 * 4.0 / 3f64.sqrt()).abs() < 1e-3,
            "{i:?}"
        );
        assert_eq!(i.df, 2.0);
        assert!((e.cv_pct.unwrap() - 4.0).abs() < 1e-9);
    }

    #[test]
    fn degenerate_repeats() {
        let none = repeats_interval(&[]);
        assert_eq!(none.method, Method::TooShort { needed: 2 });
        assert_eq!((none.mean, none.interval), (0.0, None));
        assert!(none.note.contains("too short"), "{}", none.note);
        let one = repeats_interval(&[5.0, f64::NAN]);
        assert_eq!((one.mean, one.values, one.interval), (5.0, 1, None));
        let same = repeats_interval(&[7.0, 7.0, 7.0]);
        assert_eq!(same.interval.unwrap().half_width, 0.0);
        assert_eq!(same.interval.unwrap().lower, 7.0);
    }

    #[test]
    fn serpentine_order() {
        let order: Vec<(usize, usize)> = interleaved_order(3, 3)
            .iter()
            .map(|s| (s.step, s.repeat))
            .collect();
        assert_eq!(
            order,
            [
                (0, 0),
                (1, 0),
                (2, 0),
                (2, 1),
                (1, 1),
                (0, 1),
                (0, 2),
                (1, 2),
                (2, 2)
            ]
        );
        assert!(interleaved_order(0, 3).is_empty());
        assert!(interleaved_order(4, 0).is_empty());
    }

    /// Average slot (time) of each step over the whole order.
    fn mean_slots(steps: usize, repeats: usize) -> Vec<f64> {
        let order = interleaved_order(steps, repeats);
        (0..steps)
            .map(|s| {
                let slots: Vec<f64> = order
                    .iter()
                    .enumerate()
                    .filter(|(_, slot)| slot.step == s)
                    .map(|(t, _)| t as f64)
                    .collect();
                assert_eq!(slots.len(), repeats, "every step runs once per repeat");
                mean(&slots)
            })
            .collect()
    }

    #[test]
    fn every_step_runs_each_repeat_once_in_order() {
        let order = interleaved_order(5, 4);
        assert_eq!(order.len(), 20);
        for s in 0..5 {
            let repeats: Vec<usize> = order
                .iter()
                .filter(|slot| slot.step == s)
                .map(|slot| slot.repeat)
                .collect();
            assert_eq!(repeats, [0, 1, 2, 3]);
        }
    }

    #[test]
    fn linear_drift_cancels_with_even_repeats() {
        for (steps, repeats) in [(3, 2), (8, 2), (5, 4), (6, 6)] {
            let slots = mean_slots(steps, repeats);
            let spread = slots.iter().cloned().fold(f64::MIN, f64::max)
                - slots.iter().cloned().fold(f64::MAX, f64::min);
            assert!(spread.abs() < 1e-9, "{steps}×{repeats}: {slots:?}");
        }
    }

    #[test]
    fn odd_repeats_leave_a_small_known_imbalance() {
        // (steps − 1)/repeats within a round: 7/3 for 8 steps and 3 repeats.
        let slots = mean_slots(8, 3);
        let spread = slots[7] - slots[0];
        assert!((spread - 7.0 / 3.0).abs() < 1e-9, "{slots:?}");
        // A rotation would leave 5 slots between the extremes: the reason for this order.
        let rotation_spread = {
            let per_step: Vec<f64> = (0..8)
                .map(|s| {
                    let slots: Vec<f64> =
                        (0..3).map(|r| (r * 8 + (s + 8 - r) % 8) as f64).collect();
                    mean(&slots)
                })
                .collect();
            per_step.iter().cloned().fold(f64::MIN, f64::max)
                - per_step.iter().cloned().fold(f64::MAX, f64::min)
        };
        assert!(
            rotation_spread > 2.0 * spread,
            "{rotation_spread} vs {spread}"
        );
    }

    #[test]
    fn drift_does_not_read_as_a_difference_between_steps() {
        // Every step delivers the same 1000 TPS, but the server loses 0.5% per slot.
        let (steps, repeats) = (6, 4);
        let order = interleaved_order(steps, repeats);
        let mut per_step = vec![Vec::new(); steps];
        for (t, slot) in order.iter().enumerate() {
            per_step[slot.step].push(1000.0 * (1.0 - 0.005 * t as f64));
        }
        let means: Vec<f64> = per_step.iter().map(|v| mean(v)).collect();
        for m in &means {
            assert!((m - means[0]).abs() < 1e-9, "{means:?}");
        }
        // Repeats back to back (A A A A B B B B …): the last step reads 10% below the first.
        let back_to_back = |s: usize| {
            let slots: Vec<f64> = (0..repeats)
                .map(|r| 1000.0 * (1.0 - 0.005 * (s * repeats + r) as f64))
                .collect();
            mean(&slots)
        };
        assert!((back_to_back(0) - back_to_back(steps - 1) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn two_far_apart_repeats_of_a_rate_never_reach_below_zero() {
        // Seen in the app: a repeat-2 step's TPS interval (t = 12.7) reached below 0.
        let e = repeats_interval(&[900.0, 1500.0]);
        let i = e.interval.unwrap();
        assert_eq!(i.lower, 0.0, "{i:?}");
        assert!(i.upper > 1500.0);
        assert!(e.note.contains("raised to 0"), "{}", e.note);
        // Values that may be negative (differences) keep their symmetric interval.
        let d = repeats_interval(&[-300.0, 300.0]).interval.unwrap();
        assert!(d.lower < -300.0);
    }
}
