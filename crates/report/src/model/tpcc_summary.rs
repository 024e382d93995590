//! The executive summary's TPC-C sentences, beside what it says of TPS: each
//! environment's peak tpmC with its NOPM and thread count and, when environments are
//! compared, each one's tpmC against the baseline's.
//!
//! A comparison reads tpmC as the TPS headline reads TPS, from a claim ([`claims`]) whose
//! standing is the tpcc cells' verdict column and whose size is the geometric mean of the
//! tpmC ratios over every thread count both environments ran. The TPS intervals stand for
//! tpmC's: New-Order is a fixed share of the mix (10 in 23), so a relative change of
//! one is a relative change of the other, and the steps keep no per-second tpmC.

use dbdyno_engine::Scenario;

use super::claims::{self, Claim, ClaimFigure};
use super::tpcc::{TpccPoint, TpccSection};
use super::{Report, ScenarioReport};
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

/// The tpmC claims: each tpcc comparison's throughput claim (its standing from the
/// verdict column) with tpmC's Δ, the geometric mean of the tpmC ratios over the thread
/// counts both ran, as its size.
pub(super) fn claims(scenarios: &[ScenarioReport], tpcc: Option<&TpccSection>) -> Vec<Claim> {
    let Some(t) = tpcc else {
        return Vec::new();
    };
    scenarios
        .iter()
        .filter(|s| s.scenario == Scenario::Tpcc)
        .flat_map(|s| &s.comparisons)
        .filter_map(|c| {
            let mut claim = claims::throughput(Scenario::Tpcc, c)?;
            let tpmc = |threads: u32| {
                t.deltas
                    .iter()
                    .find(|d| d.env == c.env && d.threads == threads)
                    .and_then(|d| d.delta_pct)
            };
            for cell in &mut claim.cells {
                cell.delta_pct = tpmc(cell.threads);
            }
            let ratios = claim
                .cells
                .iter()
                .filter_map(|cell| Some(1.0 + cell.delta_pct? / 100.0))
                .filter(|ratio| *ratio > 0.0);
            claim.delta_pct = Some((geometric_mean(ratios)? - 1.0) * 100.0);
            claim.figure = ClaimFigure::Tpmc;
            Some(claim)
        })
        .collect()
}

/// One sentence per environment other than the baseline that shares thread counts
/// with it: its tpmC claim.
pub(super) fn deltas(r: &Report) -> Vec<String> {
    let name = |i: usize| r.env_name(i).to_string();
    r.claims
        .iter()
        .filter(|c| c.figure == ClaimFigure::Tpmc)
        .map(|c| format!("{}.", c.sentence(&name)))
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
