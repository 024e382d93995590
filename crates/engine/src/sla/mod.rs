//! Capacity under a latency target (`--sla=p95<=20ms`): each step judged within or
//! beyond the target on the upper end of its percentile's 95% interval ([`judge`]), the
//! capacity of a scenario at the target ([`capacity`]), and the search that refines it
//! with extra steps between the ladder's ([`search`], run by [`crate::runner`]).
//!
//! - [`target`]: the target and its text form;
//! - [`figure`]: a step's latency at the percentile and its interval (the one place that
//!   makes that interval);
//! - [`judge`]: within, beyond or unknown, and the mark a ladder line carries;
//! - [`capacity`]: the highest throughput within the target;
//! - [`search`]: the plan's SLA phase and the bisection's next thread count;
//! - [`text`]: the marks and capacity lines of a ladder's text output.
//!
//! Reports use the same functions, so a step reads "within" in the ladder's output and
//! in every report alike.

pub mod capacity;
pub mod figure;
pub mod judge;
pub mod search;
pub mod target;
pub mod text;

#[cfg(test)]
mod tests;

pub use capacity::{capacity, capacity_at, Capacity};
pub use figure::{percentile_figure, PercentileFigure};
pub use judge::{judge_step, mark, SlaStanding, StepSla};
pub use search::SlaPhase;
pub use target::{SlaParseError, SlaTarget};
