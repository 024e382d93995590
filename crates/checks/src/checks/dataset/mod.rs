//! Is the data right for the plan: the tables are there (or free for prepare, see
//! `tables`), how the dataset compares with the buffer pool (and so what the test
//! measures, seed 003's table), and whether the data directory's filesystem has room
//! for it (see `space`, which owns the disk-fit figure the Plan screen shows too).

mod found;
mod pasted;
mod size;
mod space;
mod tables;
mod tpcc;

use dbdyno_engine::Plan;

use self::space::SPACE_WHY;
use super::unreachable;
use crate::check::{Check, CheckStatus};
use crate::probe::{Facts, MysqlFacts};

pub use crate::text::human_bytes;
pub use pasted::connection_args;
pub use size::{
    estimate_bytes, tpcc_bytes, BYTES_PER_WAREHOUSE, DATA_BYTES_PER_ROW, ITEM_BYTES_PER_SET,
    K_INDEX_BYTES_PER_ROW,
};
pub use space::{disk_fit, space_factor, DiskFit, FitVerdict, SPACE_SAFETY_FACTOR};

use self::size::{estimate_text, planned_rows, plans_tpcc, prepares};

const BP_WHY: &str = "the ratio of data to buffer pool decides what the test measures (seed 003): below 1 most \
                      reads hit memory (CPU and memory bandwidth), around 1.5 a mix of memory and disk (closest \
                      to real life), far above it the storage";

pub fn checks(f: &Facts, plan: &Plan) -> Vec<Check> {
    match &f.mysql {
        Ok(m) => vec![
            tables::tables(f, m, plan),
            buffer_pool(m, plan),
            space::free_space(f, m, plan),
        ],
        Err(_) => vec![
            unreachable(tables::ID, tables::TITLE, tables::TABLES_WHY),
            unreachable("dataset.buffer_pool", "Data size vs buffer pool", BP_WHY),
            unreachable("dataset.free_space", "Free space for the data", SPACE_WHY),
        ],
    }
}

/// What a data/buffer-pool ratio makes the test measure (seed 003's table).
pub fn regime(ratio: f64) -> &'static str {
    if ratio < 1.0 {
        "CPU-bound: the data fits in the buffer pool, most reads hit memory; this measures CPU and memory bandwidth"
    } else if ratio <= 3.0 {
        "mixed: part of the reads go to disk, close to real life (seed 003 recommends at least 1.5× for formal tests)"
    } else {
        "IO-bound: most reads go to disk; this measures the storage"
    }
}

fn buffer_pool(m: &MysqlFacts, plan: &Plan) -> Check {
    const ID: &str = "dataset.buffer_pool";
    const TITLE: &str = "Data size vs buffer pool";
    let Some(bp) = m.var_u64("innodb_buffer_pool_size").filter(|b| *b > 0) else {
        return Check::skipped(
            ID,
            TITLE,
            "the server does not report innodb_buffer_pool_size",
            BP_WHY,
        );
    };
    // Existing tables are measured when they are the plan's (about as many rows as it
    // expects); otherwise the plan's size is estimated.
    let planned = planned_rows(&plan.workload, plan);
    // The measured size covers sbtest tables only: a plan with tpcc is estimated.
    let (bytes, how) = if m.benchmark_bytes > 0
        && !prepares(plan)
        && !plans_tpcc(plan)
        && m.benchmark_rows * 2 >= planned
    {
        (
            m.benchmark_bytes,
            "as measured in information_schema".to_string(),
        )
    } else {
        (estimate_bytes(plan), estimate_text(plan))
    };
    if bytes == 0 {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            "the plan loads no rows",
            BP_WHY,
        );
    }
    let ratio = bytes as f64 / bp as f64;
    Check::new(
        ID,
        TITLE,
        CheckStatus::Pass,
        format!(
            "data {} ({how}) vs innodb_buffer_pool_size {}: {ratio:.2}× → {}",
            human_bytes(bytes),
            human_bytes(bp),
            regime(ratio)
        ),
        BP_WHY,
    )
}

#[cfg(test)]
mod tests {
    use dbdyno_engine::Scenario;

    use super::*;
    use crate::checks::testing::{facts, find, plan};

    #[test]
    fn pasted_commands_reach_the_plans_server_and_schema() {
        let mut p = plan(&[Scenario::OltpReadWrite], &[4], 2, 1000, false);
        p.connect.host = "db1.example".into();
        p.connect.port = 3307;
        p.connect.user = "bench".into();
        p.connect.database = "my db".into();
        p.connect.password = Some("hunter2".into());
        let a = connection_args(&p);
        assert_eq!(
            a,
            "--mysql-host=db1.example --mysql-port=3307 --mysql-user=bench --mysql-db='my db'"
        );
        assert!(!a.contains("hunter2"));
        p.workload.create_secondary = false;
        assert!(estimate_text(&p).contains("226") && estimate_text(&p).contains("no secondary"));
        p.workload.create_secondary = true;
        assert!(estimate_text(&p).contains("242"));
    }

    #[test]
    fn estimate_uses_the_measured_row_size() {
        let p = plan(&[Scenario::OltpReadWrite], &[8], 16, 10_000_000, true);
        // Seed 000: 16 × 10M rows "about 40 GB".
        let gb = estimate_bytes(&p) as f64 / 1e9;
        assert!((38.0..=40.0).contains(&gb), "{gb}");
        let mut p2 = p.clone();
        p2.workload.create_secondary = false;
        assert_eq!(estimate_bytes(&p2), 160_000_000 * DATA_BYTES_PER_ROW);
    }

    #[test]
    fn ratio_names_the_regime() {
        let f = facts();
        // 256 MiB buffer pool: 100k rows (23 MiB) fit; 16 × 1M rows (3.6 GiB) do not.
        let small = find(
            &checks(&f, &plan(&[Scenario::OltpReadOnly], &[8], 1, 100_000, true)),
            "dataset.buffer_pool",
        )
        .clone();
        assert!(small.seen.contains("CPU-bound"), "{}", small.seen);
        let mid = find(
            &checks(
                &f,
                &plan(&[Scenario::OltpReadOnly], &[8], 1, 1_500_000, true),
            ),
            "dataset.buffer_pool",
        )
        .clone();
        assert!(mid.seen.contains("mixed"), "{}", mid.seen);
        let big = find(
            &checks(
                &f,
                &plan(&[Scenario::OltpReadOnly], &[8], 16, 1_000_000, true),
            ),
            "dataset.buffer_pool",
        )
        .clone();
        assert!(big.seen.contains("IO-bound"), "{}", big.seen);
    }

    /// A tpcc plan is sized by its warehouses, not by sbtest's tables × rows: 1
    /// warehouse fits the facts' 256 MiB buffer pool, 10 do not; a 20 GiB disk holds
    /// 100 warehouses (9.2 GiB) but not 200 with the room they grow into.
    #[test]
    fn tpcc_is_sized_by_its_warehouses() {
        let f = facts();
        let tpcc_plan = |scale: u32, prepare: bool| {
            let mut p = plan(&[Scenario::Tpcc], &[8], 1, 10_000_000, prepare);
            p.workload.tpcc.scale = scale;
            p
        };
        let one = tpcc_plan(1, false);
        assert_eq!(estimate_bytes(&one), tpcc_bytes(&one.workload.tpcc));
        let bp = find(&checks(&f, &one), "dataset.buffer_pool").clone();
        assert!(
            bp.seen.contains("CPU-bound") && bp.seen.contains("tpcc 1 warehouse × 1 set of tables"),
            "{}",
            bp.seen
        );
        let ten = find(&checks(&f, &tpcc_plan(10, false)), "dataset.buffer_pool").clone();
        assert!(ten.seen.contains("IO-bound"), "{}", ten.seen);
        let fits = find(&checks(&f, &tpcc_plan(100, true)), "dataset.free_space").clone();
        assert_eq!(fits.status, CheckStatus::Pass, "{}", fits.seen);
        let full = find(&checks(&f, &tpcc_plan(200, true)), "dataset.free_space").clone();
        assert_ne!(full.status, CheckStatus::Pass, "{}", full.seen);
        // Beside an OLTP scenario both datasets count.
        let mut both = plan(
            &[Scenario::Tpcc, Scenario::OltpReadOnly],
            &[8],
            1,
            1000,
            false,
        );
        both.workload.tpcc.scale = 1;
        assert_eq!(
            estimate_bytes(&both),
            1000 * (DATA_BYTES_PER_ROW + K_INDEX_BYTES_PER_ROW) + tpcc_bytes(&both.workload.tpcc)
        );
        assert!(estimate_text(&both).starts_with("sbtest estimated"));
    }

    #[test]
    fn a_tpcc_plan_needs_no_sbtest_tables() {
        // The facts' schema holds no table at all.
        let f = facts();
        let tpcc = find(
            &checks(&f, &plan(&[Scenario::Tpcc], &[8], 1, 10_000, false)),
            "dataset.tables",
        )
        .clone();
        assert_eq!(
            tpcc.status,
            crate::check::CheckStatus::Pass,
            "{}",
            tpcc.seen
        );
        let mixed = find(
            &checks(
                &f,
                &plan(
                    &[Scenario::Tpcc, Scenario::OltpReadOnly],
                    &[8],
                    1,
                    10_000,
                    false,
                ),
            ),
            "dataset.tables",
        )
        .clone();
        assert_eq!(
            mixed.status,
            crate::check::CheckStatus::Fail,
            "{}",
            mixed.seen
        );
    }
}
