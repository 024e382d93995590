//! Steady state: does a step's per-second throughput settle, and from which second on?
//!
//! This is the engine's rule (`dbdyno_engine::stats::find_steady_window`, whose window
//! the reports' cold-start analysis reads) applied to a plain series of per-second
//! values, so that intervals and verdicts can use it without the engine's records:
//!
//! 1. The reference level is the median of the last half of the series (the end of a
//!    step is where a warm-up has surely finished; the median ignores single spikes).
//! 2. The band is ±10% of that level, widened up to ±20% when the values themselves are
//!    noisy (three robust standard deviations, from the median absolute deviation).
//! 3. Walk back from the end while values stay in the band; a single value outside it is
//!    kept when the one before it is back inside (a checkpoint stall is part of steady
//!    behaviour); two in a row end the walk (that is the warm-up).
//! 4. A window needs at least 3 values. When the end is not steady, the longest run
//!    within the band around the whole series' median is reported instead, and the step
//!    is flagged as [`SteadyState::EndedUnsteady`]; with no such run at all, as
//!    [`SteadyState::NeverSettled`].
//!
//! How the two relate: the engine applies the same steps to its interval records, after
//! leaving out a last interval shorter than half the others (here the caller passes
//! whole seconds only), and also averages the window's figures; both give the same
//! window for the same values (the tests replay the engine's cases). The engine can call
//! this function once it depends on this crate.
//!
//! Non-goal: change-point statistics (CUSUM, Bayesian): they find more, but nobody can
//! check their answer by eye against the per-second lines.

use serde::{Deserialize, Serialize};

use crate::describe::median;
use crate::wording::{count, plural};

/// Fewer values than this say nothing about stability.
const MIN_VALUES: usize = 3;
/// Band half-width as a share of the level when values are quiet.
const BASE_BAND: f64 = 0.10;
/// Upper limit of the noise-widened band: wider would swallow real warm-ups.
const MAX_BAND: f64 = 0.20;

/// Whether a step settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SteadyState {
    /// The step ends in a steady stretch of at least 3 values (after any warm-up).
    Settled,
    /// The end of the step left the band (throughput fell away or kept climbing); the
    /// window is the longest earlier plateau.
    EndedUnsteady,
    /// No 3 values in a row stay within the band: the throughput never settled.
    NeverSettled,
    /// Fewer than 3 values: nothing to say.
    TooShort,
}

/// Where the steady values are: `len` values from index `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Window {
    pub first: usize,
    pub len: usize,
}

/// The verdict on a step's steadiness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Steadiness {
    pub state: SteadyState,
    /// The steady window (`Settled`) or the longest plateau (`EndedUnsteady`).
    pub window: Option<Window>,
    /// The level the band was drawn around and the band's half-width (share of it).
    pub level: f64,
    pub band: f64,
    /// The band around the median of the last half (the one the end of the step is
    /// judged by); the same as `band` when the step settled.
    pub tail_band: f64,
    /// One plain sentence on what was found.
    pub note: String,
}

impl Steadiness {
    /// True only when the step ended steady; anything else is worth a flag on a report.
    pub fn settled(&self) -> bool {
        self.state == SteadyState::Settled
    }

    /// The values of the window (all of them when there is none).
    pub fn window_of<'a>(&self, values: &'a [f64]) -> &'a [f64] {
        match self.window {
            Some(w) if w.first + w.len <= values.len() => &values[w.first..w.first + w.len],
            _ => values,
        }
    }
}

/// Finds the steady part of a step from its per-second throughput (whole seconds only;
/// non-finite values count as outside every band). See the module documentation.
pub fn steady_state(per_second: &[f64]) -> Steadiness {
    let n = per_second.len();
    if n < MIN_VALUES {
        return Steadiness {
            state: SteadyState::TooShort,
            window: None,
            level: 0.0,
            band: BASE_BAND,
            tail_band: BASE_BAND,
            note: format!(
                "{}: too few to judge whether the step settled",
                count(n as u32, "value")
            ),
        };
    }
    let tail = &per_second[n / 2..];
    let level = finite_median(tail);
    let band = band_for(tail, level);
    let first = walk_back(per_second, level, band);
    if n - first >= MIN_VALUES {
        let warmup = match first {
            0 => "no value was excluded".to_string(),
            k => format!(
                "the first {} {} excluded as warm-up",
                count(k as u32, "value"),
                plural(k as f64, "was")
            ),
        };
        return Steadiness {
            state: SteadyState::Settled,
            window: Some(Window {
                first,
                len: n - first,
            }),
            level,
            band,
            tail_band: band,
            note: format!(
                "settled: the last {} values stay within ±{:.0}% of {level:.2} (the median of \
                 the last half), a single value outside the band being tolerated; {warmup}",
                n - first,
                band * 100.0
            ),
        };
    }
    unsettled(per_second, band)
}

/// The fallback of a step whose end left the band: its longest plateau, if any.
fn unsettled(values: &[f64], tail_band: f64) -> Steadiness {
    let level = finite_median(values);
    let band = band_for(values, level);
    match longest_run(values, level, band) {
        Some((first, last)) => Steadiness {
            state: SteadyState::EndedUnsteady,
            window: Some(Window {
                first,
                len: last - first + 1,
            }),
            level,
            band,
            tail_band,
            note: format!(
                "did not end steady (its last values left the ±{:.0}% band around the median \
                 of its last half); the longest run within ±{:.0}% of {level:.2} (the median \
                 of the whole step) ends {} before the step does",
                tail_band * 100.0,
                band * 100.0,
                count((values.len() - 1 - last) as u32, "value")
            ),
        },
        None => Steadiness {
            state: SteadyState::NeverSettled,
            window: None,
            level,
            band,
            tail_band,
            note: format!(
                "never settled: no 3 values in a row stay within ±{:.0}% of {level:.2} (the \
                 median of the whole step)",
                band * 100.0
            ),
        },
    }
}

fn finite_median(values: &[f64]) -> f64 {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    median(&finite)
}

/// Band half-width (as a share of `level`) for these values.
fn band_for(values: &[f64], level: f64) -> f64 {
    if level <= 0.0 {
        return BASE_BAND;
    }
    let deviations: Vec<f64> = values
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| (v - level).abs())
        .collect();
    // 1.4826 × MAD estimates the standard deviation of normally distributed noise.
    let robust_sigma = 1.4826 * median(&deviations);
    (3.0 * robust_sigma / level).clamp(BASE_BAND, MAX_BAND)
}

fn in_band(v: f64, level: f64, band: f64) -> bool {
    (v - level).abs() <= band * level
}

/// Index of the first value of the steady suffix (== values.len() when even the last
/// value is out and cannot be tolerated).
fn walk_back(values: &[f64], level: f64, band: f64) -> usize {
    let mut first = values.len();
    let mut i = values.len();
    while i > 0 {
        let k = i - 1;
        if in_band(values[k], level, band) {
            first = k;
            i = k;
        } else if k > 0 && in_band(values[k - 1], level, band) {
            // A single dip or spike with a steady neighbour before it: keep both.
            first = k - 1;
            i = k - 1;
        } else {
            break;
        }
    }
    first
}

/// Longest run of in-band values (single outliers tolerated inside, never at the edges);
/// ties go to the later run. None when no run reaches MIN_VALUES.
fn longest_run(values: &[f64], level: f64, band: f64) -> Option<(usize, usize)> {
    let inside: Vec<bool> = values.iter().map(|&v| in_band(v, level, band)).collect();
    let mut best: Option<(usize, usize)> = None;
    let mut start = 0;
    while start < inside.len() {
        if !inside[start] {
            start += 1;
            continue;
        }
        let mut end = start;
        let mut j = start + 1;
        while j < inside.len() {
            if inside[j] {
                end = j;
                j += 1;
            } else if j + 1 < inside.len() && inside[j + 1] {
                end = j + 1;
                j += 2;
            } else {
                break;
            }
        }
        let len = end - start + 1;
        if len >= MIN_VALUES && best.is_none_or(|(a, b)| len > b - a) {
            best = Some((start, end));
        }
        start = end + 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(s: &Steadiness) -> (usize, usize) {
        let w = s.window.expect("window");
        (w.first, w.len)
    }

    // The engine's cases (crates/engine/src/stats/steady.rs), same values, same windows.

    #[test]
    fn cold_start_is_excluded() {
        let s = steady_state(&[23.30, 77.70, 89.00, 92.50, 88.40, 90.40]);
        assert_eq!(s.state, SteadyState::Settled);
        assert_eq!(window(&s), (2, 4));
        assert!(s.note.contains("warm-up"), "{}", s.note);
        assert_eq!(
            s.window_of(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            &[3.0, 4.0, 5.0, 6.0]
        );
    }

    #[test]
    fn too_few_values_say_nothing() {
        for v in [&[][..], &[100.0, 100.0][..]] {
            let s = steady_state(v);
            assert_eq!((s.state, s.window), (SteadyState::TooShort, None));
            assert!(!s.settled());
        }
    }

    #[test]
    fn flat_series_is_all_steady() {
        let s = steady_state(&[1000.0, 1004.0, 998.0, 1001.0, 997.0, 1003.0, 1000.0, 999.0]);
        assert!(s.settled());
        assert_eq!(window(&s), (0, 8));
        assert!(s.note.contains("no value was excluded"), "{}", s.note);
    }

    #[test]
    fn degrading_end_gives_the_plateau_and_says_so() {
        let tps = [
            60.0, 99.0, 101.0, 100.0, 102.0, 98.0, 100.0, 101.0, 99.0, 80.0, 65.0, 50.0,
        ];
        let s = steady_state(&tps);
        assert_eq!(s.state, SteadyState::EndedUnsteady);
        assert_eq!(window(&s), (1, 8));
        assert!(s.note.contains("did not end steady"), "{}", s.note);
        assert!(s.note.contains("3 values before"), "{}", s.note);
    }

    #[test]
    fn noisy_series_keeps_most_values() {
        let tps = [
            300.0, 1080.0, 920.0, 1110.0, 950.0, 1040.0, 890.0, 1120.0, 400.0, 1010.0, 960.0,
            1090.0, 900.0, 1050.0, 980.0,
        ];
        let s = steady_state(&tps);
        assert_eq!(window(&s), (1, 14));
        assert!(s.settled());
    }

    #[test]
    fn two_slow_values_in_a_row_end_the_window() {
        let s = steady_state(&[500.0, 520.0, 300.0, 310.0, 500.0, 505.0, 498.0, 502.0]);
        assert_eq!(window(&s), (4, 4));
    }

    #[test]
    fn all_zero_series_does_not_divide_by_zero() {
        let s = steady_state(&[0.0; 5]);
        assert!(s.settled());
        assert_eq!(window(&s), (0, 5));
    }

    // Beyond the engine's cases: the flag this crate adds.

    #[test]
    fn a_series_that_never_settles_is_flagged() {
        // Throughput doubling every second: no three values within ±20% of any level.
        let climbing: Vec<f64> = (0..12).map(|i| 10.0 * 2f64.powi(i)).collect();
        let s = steady_state(&climbing);
        assert_eq!(s.state, SteadyState::NeverSettled);
        assert_eq!(s.window, None);
        assert!(s.note.contains("never settled"), "{}", s.note);
        assert_eq!(s.window_of(&climbing).len(), 12);
    }

    #[test]
    fn non_finite_values_are_outside_every_band() {
        let s = steady_state(&[f64::NAN, 100.0, 101.0, 99.0, 100.0, f64::INFINITY, 100.0]);
        assert!(s.settled(), "{}", s.note);
        assert_eq!(window(&s), (1, 6));
        assert!(s.level.is_finite() && s.band.is_finite());
    }
}
