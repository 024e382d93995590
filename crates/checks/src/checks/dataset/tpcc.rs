//! The size of a TPC-C dataset, from sysbench-tpcc's `--scale` (warehouses) and
//! `--tables` (sets of tables), for the buffer-pool and free-space checks and the
//! Plan screen's estimate.

use dbdyno_engine::tpcc::schema::{table_name, TABLES};
use dbdyno_engine::tpcc::TpccOptions;
use dbdyno_engine::phases::FoundTables;
use dbdyno_engine::{Phase, Plan, PrepareMode};

use crate::check::{Check, CheckStatus};
use crate::probe::MysqlFacts;

/// Bytes one warehouse takes on disk, measured rather than guessed: DB Dyno prepared
/// `dbdyno tpcc --scale=1 --tables=1 prepare` (foreign keys on, the defaults) on the
/// sandbox MariaDB 10.11 (InnoDB, 16 KiB pages), ran ANALYZE TABLE on the nine tables
/// and read information_schema.TABLES: DATA_LENGTH + INDEX_LENGTH 109,658,112 bytes in
/// all, of which `item1` (100,000 rows whatever the scale) holds 11,026,432. The other
/// eight tables grow with the warehouses: stock 37.8 MB, order_line 30.5 MB, customer
/// 22.1 MB, history 4.7 MB, orders 3.2 MB, new_orders 0.3 MB.
pub const BYTES_PER_WAREHOUSE: u64 = 109_658_112 - ITEM_BYTES_PER_SET;

/// Bytes of the `item` table, loaded once per set of tables (same measurement).
pub const ITEM_BYTES_PER_SET: u64 = 11_026_432;

/// True when the plan runs or prepares `tpcc`.
pub fn plans_tpcc(plan: &Plan) -> bool {
    plan.steps().any(|s| s.scenario.is_tpcc())
        || plan
            .phases
            .iter()
            .any(|p| matches!(p, Phase::Prepare { scenario, .. } if scenario.is_tpcc()))
}

/// What TPC-C's prepare will do with the sets it finds, as the engine's verifier
/// decided (`m.tpcc_tables`, the very verifier prepare asks): None when none is there
/// (prepare loads them), else a passing check (reused, or loaded again under
/// `prepare = "always"`) or a failing one with its fixes.
pub(super) fn before_prepare(m: &MysqlFacts, plan: &Plan) -> Option<Check> {
    let o = &plan.workload.tpcc;
    let always = prepare_mode(plan) == PrepareMode::Always;
    let cleanup = format!(
        "dbdyno tpcc {} --scale={} --tables={} cleanup",
        super::connection_args(plan),
        o.scale,
        o.tables
    );
    let check = |status, seen: String| {
        Check::new(
            super::tables::ID,
            super::tables::TITLE,
            status,
            seen,
            super::TABLES_WHY,
        )
    };
    match &m.tpcc_tables {
        Some(FoundTables::Absent) => None,
        Some(FoundTables::Reusable(r)) if always => Some(check(
            CheckStatus::Pass,
            format!(
                "prepare = \"always\": drops DB Dyno's TPC-C tables (made on {}) and loads them again",
                r.made
            ),
        )),
        Some(FoundTables::Reusable(r)) => Some(check(
            CheckStatus::Pass,
            format!("prepare will find DB Dyno's TPC-C tables in the plan's shape: {}", r.summary()),
        )),
        Some(FoundTables::OursOtherShape { why }) if always => Some(check(
            CheckStatus::Pass,
            format!("prepare = \"always\": {why}; prepare drops DB Dyno's TPC-C tables and loads them again"),
        )),
        Some(FoundTables::OursOtherShape { why }) => Some(
            check(
                CheckStatus::Fail,
                format!("{why}: prepare reuses DB Dyno's TPC-C tables only in the plan's shape, and refuses"),
            )
            .with_fix(
                "drop DB Dyno's TPC-C tables and prepare again (prepare = \"always\", --prepare=always), or clean them up first",
                Some(cleanup),
            )
            .with_prepare_fix(PrepareMode::Always),
        ),
        Some(FoundTables::Foreign { why, .. }) => Some(
            check(
                CheckStatus::Fail,
                format!("{why}: prepare neither reuses nor drops it, and refuses"),
            )
            .with_fix(
                "read the tables as they are (prepare = \"never\", run without --prepare), or drop them first if nobody needs them",
                Some(cleanup),
            )
            .with_prepare_fix(PrepareMode::Never),
        ),
        // Without the verifier's word (it could not read the tables), the names alone:
        // prepare would refuse over tables it cannot judge.
        None => {
            let taken: Vec<String> = (1..=o.tables)
                .flat_map(|set| TABLES.iter().map(move |t| table_name(t.name, set)))
                .filter(|name| m.tables.keys().any(|k| k.eq_ignore_ascii_case(name)))
                .collect();
            let first = taken.first()?;
            let more = match taken.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            Some(
                check(
                    CheckStatus::Fail,
                    format!(
                        "tpcc's prepare will create its {}, but {first} already exists{more} and could not be verified as DB Dyno's: prepare refuses rather than load twice",
                        count(o.tables, "set of tables", "sets of tables")
                    ),
                )
                .with_fix(
                    "drop the old tables first, or run without --prepare to reuse them",
                    Some(cleanup),
                ),
            )
        }
    }
}

/// The plan's prepare mode of its TPC-C dataset.
fn prepare_mode(plan: &Plan) -> PrepareMode {
    plan.phases
        .iter()
        .find_map(|p| match p {
            Phase::Prepare { scenario, mode, .. } if scenario.is_tpcc() => Some(*mode),
            _ => None,
        })
        .unwrap_or_default()
}

/// "1 set of tables", "2 sets of tables": nouns whose plural is not the last word's.
fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Estimated bytes of a TPC-C dataset with these options.
pub fn dataset_bytes(o: &TpccOptions) -> u64 {
    o.tables as u64 * (o.scale as u64 * BYTES_PER_WAREHOUSE + ITEM_BYTES_PER_SET)
}

/// How [`dataset_bytes`] counted, for the checks' text.
pub fn estimate_text(o: &TpccOptions) -> String {
    format!(
        "tpcc {} × {}, estimated at {} per warehouse and {} of items per set",
        dbdyno_engine::wording::count(o.scale, "warehouse"),
        count(o.tables, "set of tables", "sets of tables"),
        super::human_bytes(BYTES_PER_WAREHOUSE),
        super::human_bytes(ITEM_BYTES_PER_SET)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_grows_with_warehouses_and_sets() {
        let mut o = TpccOptions {
            scale: 1,
            tables: 1,
            ..TpccOptions::default()
        };
        assert_eq!(dataset_bytes(&o), 109_658_112);
        o.scale = 100;
        // sysbench-tpcc's default scale: about 9.2 GiB, the figure its users quote (~10 GB).
        let gib = dataset_bytes(&o) as f64 / (1u64 << 30) as f64;
        assert!((9.0..9.5).contains(&gib), "{gib}");
        o.tables = 2;
        assert_eq!(
            dataset_bytes(&o),
            2 * (100 * BYTES_PER_WAREHOUSE + ITEM_BYTES_PER_SET)
        );
        assert!(estimate_text(&o).contains("100 warehouses × 2 sets of tables"));
    }
}
