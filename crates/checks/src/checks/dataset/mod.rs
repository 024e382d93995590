//! Is the data right for the plan: the tables are there (or free for prepare, see
//! `tables`), how the dataset compares with the buffer pool (and so what the test
//! measures, seed 003's table), and whether the data directory's filesystem has room
//! for it (see `space`, which owns the disk-fit figure the Plan screen shows too).

mod space;
mod tables;
pub mod tpcc;

use dbdyno_engine::{Phase, Plan, WorkloadOptions};

use self::space::SPACE_WHY;
use super::unreachable;
use crate::check::{Check, CheckStatus};
use crate::probe::{Facts, MysqlFacts};

pub use space::{disk_fit, space_factor, DiskFit, FitVerdict, SPACE_SAFETY_FACTOR};

/// Bytes one sbtest row takes on disk, measured rather than guessed: DB Dyno prepared
/// 2 tables × 100,000 rows on the sandbox MariaDB 10.11 (InnoDB, 16 KiB pages), ran
/// ANALYZE TABLE, and read information_schema.TABLES: DATA_LENGTH 22,593,536 and
/// INDEX_LENGTH 1,589,248 per table, i.e. 225.9 bytes of clustered data and 15.9 bytes
/// of the k_N secondary index per row (242 in all; seed 000 says "about 250").
pub const DATA_BYTES_PER_ROW: u64 = 226;
pub const K_INDEX_BYTES_PER_ROW: u64 = 16;

const TABLES_WHY: &str =
    "steps read rows that prepare loaded: with tables missing or short, statements fail or \
                          return nothing and the figures mean nothing";
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
            unreachable("dataset.tables", "Benchmark tables", TABLES_WHY),
            unreachable("dataset.buffer_pool", "Data size vs buffer pool", BP_WHY),
            unreachable("dataset.free_space", "Free space for the data", SPACE_WHY),
        ],
    }
}

/// Rows the plan's OLTP tables hold after prepare.
fn planned_rows(w: &WorkloadOptions, plan: &Plan) -> u64 {
    // tpcc has tables of its own (see `tpcc`), counted apart.
    let sbtest = |s: dbdyno_engine::Scenario| !s.uses_bulk_tables() && !s.is_tpcc();
    let oltp = plan.steps().any(|s| sbtest(s.scenario))
        || plan
            .phases
            .iter()
            .any(|p| matches!(p, Phase::Prepare { scenario, .. } if sbtest(*scenario)));
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
/// and its TPC-C warehouses (see [`tpcc::BYTES_PER_WAREHOUSE`]).
pub fn estimate_bytes(plan: &Plan) -> u64 {
    let w = &plan.workload;
    let per_row = DATA_BYTES_PER_ROW
        + if w.create_secondary {
            K_INDEX_BYTES_PER_ROW
        } else {
            0
        };
    let tpcc = if tpcc::plans_tpcc(plan) {
        tpcc::dataset_bytes(&w.tpcc)
    } else {
        0
    };
    planned_rows(w, plan) * per_row + tpcc
}

/// How [`estimate_bytes`] counted, for the check's text.
fn estimate_text(plan: &Plan) -> String {
    let rows = if plan.workload.create_secondary {
        "estimated at 242 bytes per row (226 of data, 16 of the k index)"
    } else {
        "estimated at 226 bytes per row (no secondary index)"
    };
    match (
        planned_rows(&plan.workload, plan) > 0,
        tpcc::plans_tpcc(plan),
    ) {
        (_, false) => rows.to_string(),
        (false, true) => tpcc::estimate_text(&plan.workload.tpcc),
        (true, true) => format!(
            "sbtest {rows}; {}",
            tpcc::estimate_text(&plan.workload.tpcc)
        ),
    }
}

/// The connection options of a pasted `dbdyno` command, so it reaches the same server
/// and schema as the plan (never the password: MYSQL_PWD, the keyring or a prompt).
pub fn connection_args(plan: &Plan) -> String {
    let c = &plan.connect;
    let endpoint = match &c.socket {
        Some(sock) => format!("--mysql-socket={}", shell_word(sock)),
        None => format!(
            "--mysql-host={} --mysql-port={}",
            shell_word(&c.host),
            c.port
        ),
    };
    format!(
        "{endpoint} --mysql-user={} --mysql-db={}",
        shell_word(&c.user),
        shell_word(&c.database)
    )
}

/// `s` as one POSIX shell word: as is when it is plain, else single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@%+=,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

pub fn human_bytes(b: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

fn prepares(plan: &Plan) -> bool {
    prepares_where(plan, |_| true)
}

/// Whether the plan has a prepare of a scenario `which` accepts (the OLTP tables and
/// TPC-C's are prepared apart).
fn prepares_where(plan: &Plan, which: impl Fn(dbdyno_engine::Scenario) -> bool) -> bool {
    plan.phases
        .iter()
        .any(|p| matches!(p, Phase::Prepare { scenario, .. } if which(*scenario)))
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
        && !tpcc::plans_tpcc(plan)
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
        assert_eq!(
            estimate_bytes(&one),
            tpcc::dataset_bytes(&one.workload.tpcc)
        );
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
            1000 * (DATA_BYTES_PER_ROW + K_INDEX_BYTES_PER_ROW)
                + tpcc::dataset_bytes(&both.workload.tpcc)
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
