//! The size of a TPC-C dataset, from sysbench-tpcc's `--scale` (warehouses) and
//! `--tables` (sets of tables), for the buffer-pool and free-space checks and the
//! Plan screen's estimate.

use dbdyno_engine::tpcc::schema::{table_name, TABLES};
use dbdyno_engine::tpcc::TpccOptions;
use dbdyno_engine::{Phase, Plan};

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

/// A failing check when TPC-C's prepare would create a table the schema already has
/// (`warehouse1`, ...): prepare refuses rather than load twice, as for the OLTP tables.
pub(super) fn tables_taken(m: &MysqlFacts, plan: &Plan) -> Option<Check> {
    let o = &plan.workload.tpcc;
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
        Check::new(
            super::tables::ID,
            super::tables::TITLE,
            CheckStatus::Fail,
            format!("tpcc's prepare will create its {} set(s) of tables, but {first} already exists{more}: prepare refuses rather than load twice", o.tables),
            super::TABLES_WHY,
        )
        .with_fix(
            "drop the old tables first, or run without --prepare to reuse them",
            Some(format!(
                "dbdyno tpcc {} --scale={} --tables={} cleanup",
                super::connection_args(plan),
                o.scale,
                o.tables
            )),
        ),
    )
}

/// Estimated bytes of a TPC-C dataset with these options.
pub fn dataset_bytes(o: &TpccOptions) -> u64 {
    o.tables as u64 * (o.scale as u64 * BYTES_PER_WAREHOUSE + ITEM_BYTES_PER_SET)
}

/// How [`dataset_bytes`] counted, for the checks' text.
pub fn estimate_text(o: &TpccOptions) -> String {
    format!(
        "tpcc {} warehouse(s) × {} set(s) of tables, estimated at {} per warehouse and {} of items per set",
        o.scale,
        o.tables,
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
        assert!(estimate_text(&o).contains("100 warehouse(s) × 2 set(s)"));
    }
}
