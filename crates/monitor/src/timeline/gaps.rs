//! Times without samples, and the seed's sample-count rule that turns a step's short
//! coverage into flags naming the gaps that explain it (the timeline's module comment
//! says why the rule counts covered seconds rather than samples).
//!
//! Non-goals: no figures (see the aggregate module), no detection of gaps (the samplers
//! report them).

use serde::{Deserialize, Serialize};

use super::StepWindow;

/// Which sampler a gap belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The server's OS (CPU, disks) over SSH or local /proc.
    Os,
    /// MySQL's `SHOW GLOBAL STATUS`.
    Mysql,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Os => "server OS",
            Source::Mysql => "MySQL status",
        })
    }
}

/// A time without samples, on this machine's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SampleGap {
    pub source: Source,
    pub from_ms: i64,
    pub to_ms: i64,
    pub reason: String,
}

impl SampleGap {
    pub fn seconds(&self) -> f64 {
        (self.to_ms - self.from_ms).max(0) as f64 / 1000.0
    }
}

/// The gaps that overlap the window, clipped to it.
pub(super) fn clip(gaps: &[SampleGap], w: &StepWindow) -> Vec<SampleGap> {
    gaps.iter()
        .filter(|g| g.from_ms < w.ended_unix_ms && g.to_ms > w.started_unix_ms)
        .map(|g| SampleGap {
            from_ms: g.from_ms.max(w.started_unix_ms),
            to_ms: g.to_ms.min(w.ended_unix_ms),
            ..g.clone()
        })
        .collect()
}

/// One flag per active sampler that broke the rule: its samples cover less of the step
/// than they should (with the window's gaps as the reason), or it delivered more than
/// one sample fewer than the step's seconds. `delivered` holds each source's (samples,
/// covered seconds), `None` for a source that was not sampled.
pub(super) fn sample_count_flags(
    delivered: &[(Source, Option<(u32, f64)>)],
    gaps: &[SampleGap],
    expected: u32,
    duration_s: f64,
) -> Vec<String> {
    let mut flags = Vec::new();
    for &(source, got) in delivered {
        let Some((got, covered)) = got else { continue };
        if covered + 0.5 < duration_s {
            let lost: Vec<String> = gaps
                .iter()
                .filter(|g| g.source == source)
                .map(|g| format!("{:.1} s without samples: {}", g.seconds(), g.reason))
                .collect();
            flags.push(format!(
                "{source}: samples cover {covered:.1} of the step's {duration_s:.1} s ({got} samples; sample count \
                 rule: the averages miss {:.1} s){}",
                duration_s - covered,
                if lost.is_empty() { String::new() } else { format!("; {}", lost.join("; ")) }
            ));
        } else if got + 1 < expected {
            flags.push(format!(
                "{source}: {got} samples for {expected} s of step: the sampler fell behind (a busy server or \
                 client); the averages hold, the maxima are coarse"
            ));
        }
    }
    flags
}
