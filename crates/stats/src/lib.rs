//! DB Dyno's statistics: how sure we are of each figure, and whether two figures really
//! differ.
//!
//! A benchmark step gives one number (1,234 TPS), but run it again and it reads 1,190 or
//! 1,270: servers are noisy. This crate puts a 95% confidence interval on every figure and
//! turns comparisons into verdicts that know that noise. For a newcomer, the path a figure
//! takes:
//!
//! 1. **Steady state** ([`steady_state`]): which seconds of a step to trust (after any
//!    warm-up), and a flag for a step whose throughput never settles.
//! 2. **One step's interval** ([`batch_means_interval`], [`percentile_interval`]): from
//!    the step's per-second values by batch means, because consecutive seconds are alike
//!    and a textbook interval would be far too narrow. The result ([`Estimate`]) says
//!    which batch size was chosen and why, or that the step was too short.
//! 3. **Repeats** ([`repeats_interval`], [`interleaved_order`]): with the same step run
//!    several times, the spread between runs, which also shows run-to-run effects; the
//!    repeats run in an order that keeps a slow drift from reading as a difference
//!    between thread counts.
//! 4. **Δ%** ([`relative_difference`]): a candidate against a baseline, with its own
//!    interval (Fieller's method for a ratio of means).
//! 5. **Verdict** ([`judge`], [`noise_floor`]): Regressed or Improved only when the whole
//!    interval of Δ lies beyond the threshold, else within noise, with the width of that
//!    noise; and per scenario the smallest difference the runs could tell apart.
//!
//! Every function is total: empty, constant, short or zero inputs give a clear result
//! with a note, never NaN and never a panic. Every interval is at 95%
//! ([`CONFIDENCE`]) with Student's t quantiles ([`t_quantile`]). docs/reports.md, "How the
//! intervals are made", explains the same for a reader of reports.
//!
//! 6. **Change points** ([`change_points`]): over a series of runs of one cell (the
//!    history, night after night), where the figure moved to another level and stayed,
//!    by E-divisive means with a t-test, as MongoDB's Hunter does.
//!
//! [`wording`] words the counts in DB Dyno's own sentences ("1 value", "3 cells"); it
//! lives here, the lowest crate that words one, and the engine re-exports it.
//!
//! Non-goals: reading runs, histories or reports (callers pass plain numbers: this crate
//! depends on no other dbdyno crate); bootstrap and Bayesian methods (slower, and harder
//! to explain on a report than a t interval).

mod batch;
mod changepoint;
mod delta;
mod describe;
mod estimate;
mod repeats;
mod steady;
mod tdist;
mod verdict;
pub mod wording;

#[cfg(test)]
mod testutil;

pub use batch::{batch_means_interval, percentile_interval, MAX_LAG1, MIN_VALUES};
pub use changepoint::{
    change_points, last_segment, segment_levels, ChangePoint, ChangePointOptions,
};
pub use delta::{relative_difference, Delta, DeltaRange};
pub use describe::{coefficient_of_variation_pct, median};
pub use estimate::{Estimate, Interval, Method};
pub use repeats::{interleaved_order, repeats_interval, Slot, MIN_REPEATS};
pub use steady::{steady_state, Steadiness, SteadyState, Window};
pub use tdist::{t_critical, t_quantile, t_two_sided_p, CONFIDENCE};
pub use verdict::{judge, noise_floor, Direction, FigureVerdict, Judgement, NoiseFloor};
