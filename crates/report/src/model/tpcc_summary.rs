//! The executive summary's TPC-C sentences, beside what it says of TPS: each
//! environment's peak tpmC with its NOPM and thread count and, when environments are
//! compared, each one's tpmC against the baseline's.
//!
//! A comparison reads tpmC as the TPS headline reads TPS: the geometric mean of the
//! tpmC ratios over every thread count both environments ran, "matches" under
//! [`SAME_PCT`], and "cannot be told apart" when no compared tpcc step shows a real TPS
//! difference in the delta's direction ([`within_noise`]). The TPS intervals stand for
//! tpmC's: New-Order is a fixed share of the mix (10 in 23), so a relative change of
//! one is a relative change of the other, and the steps keep no per-second tpmC.

use dbdyno_engine::Scenario;

use super::summary::{within_noise, SAME_PCT};
use super::tpcc::{TpccPoint, TpccSection};
use super::Report;
use crate::format;

/// "TPC-C: peak 25,476 tpmC (25,222 NOPM) at 16 threads" for one run; for several,
/// each environment's peak after "TPC-C peak:". `None` without TPC-C figures.
pub(super) fn peaks(r: &Report) -> Option<String> {
    let t = r.tpcc.as_ref()?;
    let peaks: Vec<(usize, TpccPoint)> = t
        .curves
        .iter()
        .filter_map(|c| Some((c.env, peak_of(t, c.env)?)))
        .collect();
    let said = |p: &TpccPoint| {
        format!(
            "{} tpmC ({} NOPM) at {} threads",
            format::grouped(p.tpmc, 0),
            format::grouped(p.nopm, 0),
            p.threads
        )
    };
    match peaks.as_slice() {
        [] => None,
        [(_, p)] if r.envs.len() == 1 => Some(format!("TPC-C: peak {}.", said(p))),
        many => {
            let each: Vec<String> = many
                .iter()
                .map(|(env, p)| format!("{} {}", r.env_name(*env), said(p)))
                .collect();
            Some(format!("TPC-C peak: {}.", each.join("; ")))
        }
    }
}

/// An environment's point of highest tpmC.
fn peak_of(t: &TpccSection, env: usize) -> Option<TpccPoint> {
    t.curves
        .iter()
        .find(|c| c.env == env)?
        .points
        .iter()
        .flatten()
        .copied()
        .max_by(|a, b| a.tpmc.total_cmp(&b.tpmc))
}

/// One sentence per environment other than the baseline that shares thread counts
/// with it: its tpmC against the baseline's.
pub(super) fn deltas(r: &Report) -> Vec<String> {
    let (Some(t), Some(base)) = (r.tpcc.as_ref(), r.baseline) else {
        return Vec::new();
    };
    (0..r.envs.len())
        .filter(|&env| env != base)
        .filter_map(|env| {
            let ratios: Vec<(u32, f64)> = t
                .deltas
                .iter()
                .filter(|d| d.env == env)
                .filter_map(|d| Some((d.threads, 1.0 + d.delta_pct? / 100.0)))
                .filter(|(_, ratio)| *ratio > 0.0)
                .collect();
            let d = (geometric_mean(ratios.iter().map(|(_, q)| *q))? - 1.0) * 100.0;
            let over = match ratios.as_slice() {
                [(threads, _)] => format!("at {threads} threads"),
                many => format!("over {} thread counts", many.len()),
            };
            let (name, base_name) = (r.env_name(env), r.env_name(base));
            let noise = r
                .scenarios
                .iter()
                .filter(|s| s.scenario == Scenario::Tpcc)
                .flat_map(|s| &s.comparisons)
                .find(|c| c.env == env && c.baseline == base)
                .and_then(|c| within_noise(c, d));
            Some(if let Some(noise) = noise {
                format!(
                    "{name} and {base_name} cannot be told apart in tpmC: {} {over} is within the noise (±{}).",
                    format::delta_pct(d),
                    format::pct_words(noise)
                )
            } else if d.abs() < SAME_PCT {
                format!("{name} matches {base_name} in tpmC (within ±{SAME_PCT}% {over}).")
            } else {
                format!(
                    "{name} delivers {} {} tpmC than {base_name} ({over}).",
                    format::pct_words(d),
                    if d > 0.0 { "more" } else { "less" },
                )
            })
        })
        .collect()
}

fn geometric_mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    (n > 0).then(|| (sum / n as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometric_mean_weighs_ratios_not_differences() {
        let g = geometric_mean([2.0, 0.5].into_iter()).unwrap();
        assert!((g - 1.0).abs() < 1e-12, "{g}");
        assert!(geometric_mean(std::iter::empty()).is_none());
    }
}
