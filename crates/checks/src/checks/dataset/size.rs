//! How big the plan's dataset is and what the plan loads: its sbtest rows and its TPC-C
//! warehouses, each at a size measured on a real server, for the buffer-pool and
//! free-space checks and the Plan screen's estimate.
//!
//! A leaf of the dataset checks: `space`, `tables` and `tpcc` use it, it uses none of them.

use dbdyno_engine::tpcc::TpccOptions;
use dbdyno_engine::{Plan, WorkloadOptions};

use crate::text::human_bytes;

/// Bytes one sbtest row takes on disk, measured rather than guessed: DB Dyno prepared
/// 2 tables × 100,000 rows on the sandbox MariaDB 10.11 (InnoDB, 16 KiB pages), ran
/// ANALYZE TABLE, and read information_schema.TABLES: DATA_LENGTH 22,593,536 and
/// INDEX_LENGTH 1,589,248 per table, i.e. 225.9 bytes of clustered data and 15.9 bytes
/// of the k_N secondary index per row (242 in all; seed 000 says "about 250").
pub const DATA_BYTES_PER_ROW: u64 = 226;
pub const K_INDEX_BYTES_PER_ROW: u64 = 16;

/// Rows the plan's OLTP tables hold after prepare.
pub(super) fn planned_rows(w: &WorkloadOptions, plan: &Plan) -> u64 {
    // tpcc has tables of its own (below), counted apart.
    let sbtest = |s: dbdyno_engine::Scenario| !s.uses_bulk_tables() && !s.is_tpcc();
    let oltp = plan.steps().any(|s| sbtest(s.scenario)) || prepares_where(plan, sbtest);
    let tables =
        if plan.steps().all(|s| s.scenario.single_table_only()) && plan.steps().next().is_some() {
            1
        } else {
            w.tables as u64
        };
    if oltp {
        tables * w.table_size
    } else {
        0
    }
}

/// Estimated bytes of the plan's dataset: its sbtest rows (see [`DATA_BYTES_PER_ROW`])
/// and its TPC-C warehouses (see [`BYTES_PER_WAREHOUSE`]).
pub fn estimate_bytes(plan: &Plan) -> u64 {
    let w = &plan.workload;
    let per_row = DATA_BYTES_PER_ROW
        + if w.create_secondary {
            K_INDEX_BYTES_PER_ROW
        } else {
            0
        };
    let tpcc = if plans_tpcc(plan) {
        tpcc_bytes(&w.tpcc)
    } else {
        0
    };
    planned_rows(w, plan) * per_row + tpcc
}

/// How [`estimate_bytes`] counted, for the check's text.
pub(super) fn estimate_text(plan: &Plan) -> String {
    let rows = if plan.workload.create_secondary {
        "estimated at 242 bytes per row (226 of data, 16 of the k index)"
    } else {
        "estimated at 226 bytes per row (no secondary index)"
    };
    match (planned_rows(&plan.workload, plan) > 0, plans_tpcc(plan)) {
        (_, false) => rows.to_string(),
        (false, true) => tpcc_estimate_text(&plan.workload.tpcc),
        (true, true) => format!("sbtest {rows}; {}", tpcc_estimate_text(&plan.workload.tpcc)),
    }
}

pub(super) fn prepares(plan: &Plan) -> bool {
    prepares_where(plan, |_| true)
}

/// Whether the plan has a prepare of a scenario `which` accepts (the OLTP tables and
/// TPC-C's are prepared apart).
pub(super) fn prepares_where(plan: &Plan, which: impl Fn(dbdyno_engine::Scenario) -> bool) -> bool {
    plan.prepare_mode_of(which).is_some()
}

/// The plan's prepare mode of the dataset whose scenarios `which` accepts;
/// if-missing when it has no such prepare.
pub(super) fn prepare_mode_where(
    plan: &Plan,
    which: impl Fn(dbdyno_engine::Scenario) -> bool,
) -> dbdyno_engine::PrepareMode {
    plan.prepare_mode_of(which).unwrap_or_default()
}

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
    plan.steps().any(|s| s.scenario.is_tpcc()) || prepares_where(plan, |s| s.is_tpcc())
}

/// "1 set of tables", "2 sets of tables".
pub(super) fn sets_of_tables(n: u32) -> String {
    format!("{} of tables", dbdyno_engine::wording::count(n, "set"))
}

/// Estimated bytes of a TPC-C dataset with these options.
pub fn tpcc_bytes(o: &TpccOptions) -> u64 {
    o.tables as u64 * (o.scale as u64 * BYTES_PER_WAREHOUSE + ITEM_BYTES_PER_SET)
}

/// How [`tpcc_bytes`] counted, for the checks' text.
pub fn tpcc_estimate_text(o: &TpccOptions) -> String {
    format!(
        "tpcc {} × {}, estimated at {} per warehouse and {} of items per set",
        dbdyno_engine::wording::count(o.scale, "warehouse"),
        sets_of_tables(o.tables),
        human_bytes(BYTES_PER_WAREHOUSE),
        human_bytes(ITEM_BYTES_PER_SET)
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
        assert_eq!(tpcc_bytes(&o), 109_658_112);
        o.scale = 100;
        // sysbench-tpcc's default scale: about 9.2 GiB, the figure its users quote (~10 GB).
        let gib = tpcc_bytes(&o) as f64 / (1u64 << 30) as f64;
        assert!((9.0..9.5).contains(&gib), "{gib}");
        o.tables = 2;
        assert_eq!(
            tpcc_bytes(&o),
            2 * (100 * BYTES_PER_WAREHOUSE + ITEM_BYTES_PER_SET)
        );
        assert!(tpcc_estimate_text(&o).contains("100 warehouses × 2 sets of tables"));
    }
}
