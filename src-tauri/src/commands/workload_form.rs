//! The Plan screen's workload knobs that were the command line's alone: how rows are
//! picked (`--rand-type` and its parameters) and the OLTP transaction mix (the screen's
//! "Advanced" section). The form starts from the profile's values and goes back onto
//! the profile's `[workload]` keys, so the engine validates them exactly as it
//! validates the command line's options.

use dbdyno_engine::tpcc::{IsolationLevel, TpccOptions};
use dbdyno_engine::workload::{RandType, WorkloadOptions};
use dbdyno_engine::Scenario;
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
    /// sysbench-tpcc's options, for `tpcc` steps.
    pub tpcc: TpccKnobs,
}

/// `--trx_level`: the isolation level of tpcc's connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TpccIsolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl TpccIsolation {
    fn of(l: IsolationLevel) -> TpccIsolation {
        match l {
            IsolationLevel::ReadCommitted => TpccIsolation::ReadCommitted,
            IsolationLevel::RepeatableRead => TpccIsolation::RepeatableRead,
            IsolationLevel::Serializable => TpccIsolation::Serializable,
        }
    }

    /// sysbench-tpcc's spelling, which the profile's `trx_level` key takes.
    fn option_value(self) -> &'static str {
        match self {
            TpccIsolation::ReadCommitted => "RC",
            TpccIsolation::RepeatableRead => "RR",
            TpccIsolation::Serializable => "SER",
        }
    }
}

/// The tpcc scenario's knobs. `tables` of the form counts its sets of tables, as
/// `--tables` does for sysbench-tpcc.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct TpccKnobs {
    /// `--scale`: warehouses per set of tables.
    pub warehouses: u32,
    pub use_fk: bool,
    pub force_pk: bool,
    pub trx_level: TpccIsolation,
    pub enable_purge: bool,
    /// `--mysql_storage_engine`, shared with the OLTP tables.
    pub storage_engine: String,
    /// `--mysql_table_options`: appended to every CREATE TABLE.
    pub table_options: String,
}

impl TpccKnobs {
    fn of(o: &TpccOptions) -> TpccKnobs {
        TpccKnobs {
            warehouses: o.scale,
            use_fk: o.use_fk,
            force_pk: o.force_pk,
            trx_level: TpccIsolation::of(o.trx_level),
            enable_purge: o.enable_purge,
            storage_engine: o.storage_engine.clone(),
            table_options: o.table_options.clone(),
        }
    }

    fn apply(&self, p: &mut Profile) {
        let w = &mut p.workload;
        w.scale = Some(self.warehouses);
        w.use_fk = Some(self.use_fk);
        w.force_pk = Some(self.force_pk);
        w.trx_level = Some(self.trx_level.option_value().to_string());
        w.enable_purge = Some(self.enable_purge);
        w.mysql_storage_engine = Some(self.storage_engine.clone());
        w.mysql_table_options = Some(self.table_options.clone());
    }
}

/// Which of the Data panel's fields the chosen scenarios read: sbtest's tables × rows,
/// TPC-C's warehouses (with its sets of tables), or both in a mixed ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
pub struct DatasetFields {
    pub tables_and_rows: bool,
    pub warehouses: bool,
}

impl DatasetFields {
    /// From the form's scenario names; names the engine does not know count as sbtest
    /// scenarios (the preview names them as errors).
    pub fn of(scenarios: &[String]) -> DatasetFields {
        let tpcc = |s: &String| s.parse::<Scenario>().is_ok_and(|s| s.is_tpcc());
        DatasetFields {
            tables_and_rows: scenarios.is_empty() || scenarios.iter().any(|s| !tpcc(s)),
            warehouses: scenarios.iter().any(tpcc),
        }
    }
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
            tpcc: TpccKnobs::of(&w.tpcc),
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
        self.tpcc.apply(p);
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
            tpcc: TpccKnobs {
                warehouses: 4,
                use_fk: false,
                force_pk: true,
                trx_level: TpccIsolation::Serializable,
                enable_purge: true,
                storage_engine: "myisam".into(),
                table_options: "ROW_FORMAT=COMPRESSED".into(),
            },
        };
        assert_ne!(knobs, WorkloadKnobs::of(&WorkloadOptions::default()));
        let mut p = Profile::named("x");
        knobs.apply(&mut p);
        assert_eq!(WorkloadKnobs::of(&p.workload_options().unwrap()), knobs);
    }

    /// The Data panel asks for warehouses when tpcc is chosen, for tables × rows when
    /// an sbtest scenario is, and for both in a mixed ladder.
    #[test]
    fn dataset_fields_follow_the_scenarios() {
        let of = |names: &[&str]| {
            DatasetFields::of(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        };
        let both = DatasetFields {
            tables_and_rows: true,
            warehouses: true,
        };
        assert_eq!(
            of(&["tpcc"]),
            DatasetFields {
                tables_and_rows: false,
                warehouses: true
            }
        );
        assert_eq!(
            of(&["oltp_read_only"]),
            DatasetFields {
                tables_and_rows: true,
                warehouses: false
            }
        );
        assert_eq!(of(&["tpcc", "oltp_read_write"]), both);
        assert!(of(&[]).tables_and_rows);
    }

    /// The tpcc knobs reach the plan the profile's keys make, and the preview's size
    /// estimate is the checks' figure for those warehouses.
    #[test]
    fn tpcc_knobs_reach_the_plan_and_its_size_estimate() {
        use crate::commands::plan::{plan_without_secret, PlanForm};
        use dbdyno_checks::checks::dataset::{
            estimate_bytes, BYTES_PER_WAREHOUSE, ITEM_BYTES_PER_SET,
        };
        let p = Profile::named("x");
        let mut form = PlanForm::from_profile(&p).unwrap();
        form.scenarios = vec!["tpcc".into()];
        form.tables = 2;
        form.workload.tpcc.warehouses = 4;
        form.workload.tpcc.trx_level = TpccIsolation::ReadCommitted;
        let plan = plan_without_secret(&p, &form).unwrap();
        let o = &plan.workload.tpcc;
        assert_eq!((o.scale, o.tables), (4, 2));
        assert_eq!(o.trx_level, IsolationLevel::ReadCommitted);
        assert_eq!(
            estimate_bytes(&plan),
            2 * (4 * BYTES_PER_WAREHOUSE + ITEM_BYTES_PER_SET)
        );
        form.workload.tpcc.warehouses = 0;
        assert!(plan_without_secret(&p, &form).is_err(), "0 warehouses");
    }

    /// One road to a tpcc plan: sysbench-tpcc's options typed on the command line and
    /// the same choices on the Plan screen give the same plan, for every shipped profile.
    #[test]
    fn the_command_line_and_the_plan_screen_make_the_same_tpcc_plan() {
        use crate::commands::plan::{plan_without_secret, PlanForm};
        let examples: Vec<String> = dbdyno_profile::list_profiles()
            .unwrap()
            .into_iter()
            .filter(|e| e.origin == dbdyno_profile::ProfileOrigin::Example)
            .map(|e| e.name)
            .collect();
        assert!(!examples.is_empty());
        for name in &examples {
            let p = crate::resolve::load_profile(name).unwrap();
            let mut form = PlanForm::from_profile(&p).unwrap();
            form.scenarios = vec!["tpcc".into(), "oltp_read_only".into()];
            form.tables = 2;
            let t = &mut form.workload.tpcc;
            (t.warehouses, t.use_fk, t.force_pk, t.enable_purge) = (3, false, true, true);
            t.trx_level = TpccIsolation::Serializable;
            t.table_options = "ROW_FORMAT=DYNAMIC".into();
            let on_screen = plan_without_secret(&p, &form).unwrap();
            let profile = format!("--profile={name}");
            let typed = dbdyno_cli::ladder_plan_of(&[
                &profile,
                "--scenarios=tpcc,oltp_read_only",
                "--tables=2",
                "--scale=3",
                "--use_fk=0",
                "--force_pk=1",
                "--enable_purge=yes",
                "--trx_level=SER",
                "--mysql_table_options=ROW_FORMAT=DYNAMIC",
            ])
            .unwrap();
            assert_eq!(typed, on_screen, "{name}");
        }
    }
}
