//! The Plan screen's workload knobs that were the command line's alone: how rows are
//! picked (`--rand-type` and its parameters) and the OLTP transaction mix (the screen's
//! "Advanced" section). The form starts from the profile's values and goes back onto
//! the profile's `[workload]` keys, so the engine validates them exactly as it
//! validates the command line's options.

use dbdyno_engine::workload::{RandType, WorkloadOptions};
use dbdyno_profile::Profile;
use serde::{Deserialize, Serialize};

/// `--rand-type`: which rows a transaction picks, and so how hot the hot rows are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RandDistribution {
    Uniform,
    Gaussian,
    Special,
    Pareto,
    Zipfian,
}

/// A parameter of a distribution, named as its form field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RandParameter {
    RandSpecIter,
    RandSpecPct,
    RandSpecRes,
    RandParetoH,
    RandZipfianExp,
}

/// One choice of the distribution list, with the parameters the form shows for it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct RandChoice {
    pub kind: RandDistribution,
    pub label: String,
    pub parameters: Vec<RandParameter>,
}

impl RandDistribution {
    pub const ALL: [RandDistribution; 5] = [
        RandDistribution::Uniform,
        RandDistribution::Gaussian,
        RandDistribution::Special,
        RandDistribution::Pareto,
        RandDistribution::Zipfian,
    ];

    fn engine(self) -> RandType {
        match self {
            RandDistribution::Uniform => RandType::Uniform,
            RandDistribution::Gaussian => RandType::Gaussian,
            RandDistribution::Special => RandType::Special,
            RandDistribution::Pareto => RandType::Pareto,
            RandDistribution::Zipfian => RandType::Zipfian,
        }
    }

    fn of(t: RandType) -> RandDistribution {
        Self::ALL
            .into_iter()
            .find(|d| d.engine() == t)
            .unwrap_or(RandDistribution::Special)
    }

    /// The spelling of `--rand-type` and of the profile key.
    pub fn name(self) -> &'static str {
        match self {
            RandDistribution::Uniform => "uniform",
            RandDistribution::Gaussian => "gaussian",
            RandDistribution::Special => "special",
            RandDistribution::Pareto => "pareto",
            RandDistribution::Zipfian => "zipfian",
        }
    }

    /// The parameters the engine's generator reads for this distribution (sysbench's
    /// `sb_rand.c`): gaussian averages `iter` uniform draws, special sends `res`% of
    /// draws to `pct`% of the rows and the rest to its gaussian.
    pub fn parameters(self) -> Vec<RandParameter> {
        use RandParameter::*;
        match self {
            RandDistribution::Uniform => vec![],
            RandDistribution::Gaussian => vec![RandSpecIter],
            RandDistribution::Special => vec![RandSpecIter, RandSpecPct, RandSpecRes],
            RandDistribution::Pareto => vec![RandParetoH],
            RandDistribution::Zipfian => vec![RandZipfianExp],
        }
    }

    fn label(self) -> &'static str {
        match self {
            RandDistribution::Uniform => "uniform (every row alike)",
            RandDistribution::Gaussian => "gaussian (middle rows hot)",
            RandDistribution::Special => "special (sysbench's default)",
            RandDistribution::Pareto => "pareto (few rows take most)",
            RandDistribution::Zipfian => "zipfian (hot rows by rank)",
        }
    }

    /// Every distribution, in the order the form lists them.
    pub fn choices() -> Vec<RandChoice> {
        Self::ALL
            .into_iter()
            .map(|kind| RandChoice {
                kind,
                label: kind.label().to_string(),
                parameters: kind.parameters(),
            })
            .collect()
    }
}

/// The workload knobs of the Plan form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct WorkloadKnobs {
    pub rand_type: RandDistribution,
    /// gaussian and special: uniform draws averaged per value.
    pub rand_spec_iter: u32,
    /// special: percent of the rows that are hot.
    pub rand_spec_pct: f64,
    /// special: percent of draws that go to the hot rows.
    pub rand_spec_res: f64,
    /// pareto: its h (between 0 and 1; smaller is more skewed).
    pub rand_pareto_h: f64,
    /// zipfian: its exponent (between 0 and 1; larger is more skewed).
    pub rand_zipfian_exp: f64,
    /// Queries of each kind per OLTP transaction.
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    /// Rows per range query.
    pub range_size: u32,
    /// Run the queries without BEGIN/COMMIT (autocommit).
    pub skip_trx: bool,
}

impl WorkloadKnobs {
    /// The knobs as the profile's workload (and the engine's defaults) set them.
    pub fn of(w: &WorkloadOptions) -> WorkloadKnobs {
        let r = &w.rand;
        WorkloadKnobs {
            rand_type: RandDistribution::of(r.rand_type),
            rand_spec_iter: r.spec_iter,
            rand_spec_pct: r.spec_pct,
            rand_spec_res: r.spec_res,
            rand_pareto_h: r.pareto_h,
            rand_zipfian_exp: r.zipfian_exp,
            point_selects: w.point_selects,
            simple_ranges: w.simple_ranges,
            sum_ranges: w.sum_ranges,
            order_ranges: w.order_ranges,
            distinct_ranges: w.distinct_ranges,
            index_updates: w.index_updates,
            non_index_updates: w.non_index_updates,
            delete_inserts: w.delete_inserts,
            range_size: w.range_size,
            skip_trx: w.skip_trx,
        }
    }

    /// Sets the knobs onto the profile's `[workload]` keys, where the command line's
    /// options land too.
    pub fn apply(&self, p: &mut Profile) {
        let w = &mut p.workload;
        w.rand_type = Some(self.rand_type.name().to_string());
        w.rand_spec_iter = Some(self.rand_spec_iter);
        w.rand_spec_pct = Some(self.rand_spec_pct);
        w.rand_spec_res = Some(self.rand_spec_res);
        w.rand_pareto_h = Some(self.rand_pareto_h);
        w.rand_zipfian_exp = Some(self.rand_zipfian_exp);
        w.point_selects = Some(self.point_selects);
        w.simple_ranges = Some(self.simple_ranges);
        w.sum_ranges = Some(self.sum_ranges);
        w.order_ranges = Some(self.order_ranges);
        w.distinct_ranges = Some(self.distinct_ranges);
        w.index_updates = Some(self.index_updates);
        w.non_index_updates = Some(self.non_index_updates);
        w.delete_inserts = Some(self.delete_inserts);
        w.range_size = Some(self.range_size);
        w.skip_trx = Some(self.skip_trx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every distribution the engine knows is offered, spelled as `--rand-type` takes it.
    #[test]
    fn every_distribution_is_offered_under_its_option_name() {
        for d in RandDistribution::ALL {
            assert_eq!(d.name().parse::<RandType>(), Ok(d.engine()));
            assert_eq!(RandDistribution::of(d.engine()), d);
        }
        assert_eq!(
            RandDistribution::choices().len(),
            RandDistribution::ALL.len()
        );
    }

    /// The knobs go onto the profile and come back unchanged, away from the defaults.
    #[test]
    fn knobs_round_trip_through_the_profile() {
        let knobs = WorkloadKnobs {
            rand_type: RandDistribution::Pareto,
            rand_spec_iter: 3,
            rand_spec_pct: 5.0,
            rand_spec_res: 50.0,
            rand_pareto_h: 0.4,
            rand_zipfian_exp: 0.5,
            point_selects: 2,
            simple_ranges: 3,
            sum_ranges: 4,
            order_ranges: 5,
            distinct_ranges: 6,
            index_updates: 7,
            non_index_updates: 8,
            delete_inserts: 9,
            range_size: 10,
            skip_trx: true,
        };
        assert_ne!(knobs, WorkloadKnobs::of(&WorkloadOptions::default()));
        let mut p = Profile::named("x");
        knobs.apply(&mut p);
        assert_eq!(WorkloadKnobs::of(&p.workload_options().unwrap()), knobs);
    }
}
