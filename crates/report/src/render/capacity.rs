//! The capacity table (with a latency target, `--sla`) laid out once for HTML and
//! Markdown: per scenario and environment, the capacity's TPS and threads, the step's
//! percentile with the upper end of its interval, and the Δ against the baseline. The
//! PDF cover and every format's executive summary carry the same figures as sentences.

use dbdyno_stats::Delta;

use crate::format;
use crate::model::capacity::CapacityReport;
use crate::model::Report;

pub const HEADER: [&str; 6] = [
    "Scenario",
    "Environment",
    "Capacity TPS",
    "Threads",
    "Percentile (CI ≤)",
    "Δ TPS vs baseline",
];

/// "Capacity at p95 ≤ 20 ms".
pub fn title(c: &CapacityReport) -> String {
    format!("Capacity at {}", c.target_text)
}

/// What the figures mean, in one sentence.
pub fn explanation(c: &CapacityReport) -> String {
    format!(
        "The highest TPS of a step whose {} is at most the target even at the upper end \
         of its 95% interval, and that step's thread count; steps marked \"search\" were \
         added between the ladder's to refine it (--sla-search).",
        c.target.percentile_name()
    )
}

/// One row per scenario × environment, as text.
pub fn rows(r: &Report) -> Vec<[String; 6]> {
    let Some(c) = &r.capacity else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for s in &c.scenarios {
        for e in &s.envs {
            let env = r.env_name(e.env).to_string();
            let row = match &e.capacity {
                Some(cap) => [
                    s.scenario.name().to_string(),
                    env,
                    format::rate(cap.tps),
                    format!(
                        "{}{}",
                        cap.threads,
                        if cap.searched { " (search)" } else { "" }
                    ),
                    percentile(cap.sla.percentile_ms, cap.sla.upper_ms),
                    e.delta.as_ref().map(delta).unwrap_or_else(|| "—".into()),
                ],
                None => [
                    s.scenario.name().to_string(),
                    env,
                    if e.steps.is_empty() {
                        "not run".into()
                    } else {
                        "none: no step met the target".into()
                    },
                    "—".into(),
                    "—".into(),
                    "—".into(),
                ],
            };
            out.push(row);
        }
    }
    out
}

/// "19.20 ms (≤ 20.41)", "19.20 ms (no interval)".
fn percentile(value: Option<f64>, upper: Option<f64>) -> String {
    match (value, upper) {
        (Some(v), Some(u)) => format!("{} ms (≤ {})", format::ms(v), format::ms(u)),
        (Some(v), None) => format!("{} ms (no interval)", format::ms(v)),
        _ => "—".into(),
    }
}

/// "−19.7% (−21.8…−17.6)".
fn delta(d: &Delta) -> String {
    match d.pct {
        Some(p) => format::delta_with_range(p, d.bounds_pct()),
        None => "—".into(),
    }
}
