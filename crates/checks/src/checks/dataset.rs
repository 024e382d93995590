//! Is the data right for the plan: the tables are there (or free for prepare), how the
//! dataset compares with the buffer pool (and so what the test measures, seed 003's
//! table), and whether the data directory's filesystem has room for it.

use dbdyno_engine::phases::schema::{benchmark_table_number, TableShape};
use dbdyno_engine::{Phase, Plan, Scenario, WorkloadOptions};

use super::unreachable;
use crate::probe::{AccessKind, Facts, MysqlFacts};
use crate::suite::{Check, CheckStatus};

/// Bytes one sbtest row takes on disk, measured rather than guessed: DB Dyno prepared
/// 2 tables × 100,000 rows on the sandbox MariaDB 10.11 (InnoDB, 16 KiB pages), ran
/// ANALYZE TABLE, and read information_schema.TABLES: DATA_LENGTH 22,593,536 and
/// INDEX_LENGTH 1,589,248 per table, i.e. 225.9 bytes of clustered data and 15.9 bytes
/// of the k_N secondary index per row (242 in all; seed 000 says "about 250").
pub const DATA_BYTES_PER_ROW: u64 = 226;
pub const K_INDEX_BYTES_PER_ROW: u64 = 16;

/// Free space wanted per byte of data loaded: files grow in extents, and the load
/// writes redo and undo on the same filesystem.
pub const SPACE_SAFETY_FACTOR: f64 = 1.5;

const TABLES_WHY: &str =
    "steps read rows that prepare loaded: with tables missing or short, statements fail or \
                          return nothing and the figures mean nothing";
const BP_WHY: &str = "the ratio of data to buffer pool decides what the test measures (seed 003): below 1 most \
                      reads hit memory (CPU and memory bandwidth), around 1.5 a mix of memory and disk (closest \
                      to real life), far above it the storage";
const SPACE_WHY: &str =
    "a prepare that fills the disk fails half-way and can stop the server for everyone";

pub fn checks(f: &Facts, plan: &Plan) -> Vec<Check> {
    match &f.mysql {
        Ok(m) => vec![
            tables(f, m, plan),
            buffer_pool(m, plan),
            free_space(f, m, plan),
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
    let oltp = plan.steps().any(|s| !s.scenario.uses_bulk_tables())
        || plan
            .phases
            .iter()
            .any(|p| matches!(p, Phase::Prepare { scenario, .. } if !scenario.uses_bulk_tables()));
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

/// Estimated bytes of the plan's dataset (see [`DATA_BYTES_PER_ROW`]).
pub fn estimate_bytes(plan: &Plan) -> u64 {
    let w = &plan.workload;
    let per_row = DATA_BYTES_PER_ROW
        + if w.create_secondary {
            K_INDEX_BYTES_PER_ROW
        } else {
            0
        };
    planned_rows(w, plan) * per_row
}

/// How [`estimate_bytes`] counted, for the check's text.
fn estimate_text(plan: &Plan) -> &'static str {
    if plan.workload.create_secondary {
        "estimated at 242 bytes per row (226 of data, 16 of the k index)"
    } else {
        "estimated at 226 bytes per row (no secondary index)"
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
    plan.phases
        .iter()
        .any(|p| matches!(p, Phase::Prepare { .. }))
}

fn tables(f: &Facts, m: &MysqlFacts, plan: &Plan) -> Check {
    const ID: &str = "dataset.tables";
    const TITLE: &str = "Benchmark tables";
    if !m.schema_exists {
        return Check::skipped(
            ID,
            TITLE,
            format!("`{}` does not exist yet", f.schema),
            TABLES_WHY,
        );
    }
    let w = &plan.workload;
    let oltp_steps: Vec<Scenario> = plan
        .steps()
        .map(|s| s.scenario)
        .filter(|s| !s.uses_bulk_tables())
        .collect();
    let needed = if oltp_steps.iter().all(|s| s.single_table_only()) && !oltp_steps.is_empty() {
        1
    } else {
        w.tables
    };
    let present: Vec<(u32, TableShape)> = m
        .tables
        .values()
        .filter_map(|t| benchmark_table_number(&t.name).map(|n| (n, t.shape)))
        .filter(|(n, _)| *n <= needed)
        .collect();
    let workload = oltp_steps
        .first()
        .copied()
        .unwrap_or(Scenario::OltpReadWrite);
    if prepares(plan) {
        if let Some((n, _)) = present.first() {
            return Check::new(
                ID,
                TITLE,
                CheckStatus::Fail,
                format!("prepare will create sbtest1..{needed}, but sbtest{n} already exists: prepare refuses rather than load twice"),
                TABLES_WHY,
            )
            .with_fix(
                "drop the old tables first, or run without --prepare to reuse them",
                Some(format!(
                    "dbdyno {workload} {} --tables={needed} cleanup",
                    connection_args(plan)
                )),
            );
        }
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            format!(
                "prepare will create sbtest1..{needed} with {} rows each",
                w.table_size
            ),
            TABLES_WHY,
        );
    }
    let reads_rows = plan
        .steps()
        .any(|s| !matches!(s.scenario, Scenario::OltpInsert | Scenario::BulkInsert));
    if !reads_rows {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            "the plan only inserts: no prepared rows needed",
            TABLES_WHY,
        );
    }
    let missing: Vec<u32> = (1..=needed)
        .filter(|n| !present.iter().any(|(p, _)| p == n))
        .collect();
    let prepare_cmd = format!(
        "dbdyno {workload} {} --tables={needed} --table-size={} prepare",
        connection_args(plan),
        w.table_size
    );
    if !missing.is_empty() {
        let list = if missing.len() > 5 {
            format!(
                "sbtest{}..sbtest{} ({} tables)",
                missing[0],
                missing[missing.len() - 1],
                missing.len()
            )
        } else {
            missing
                .iter()
                .map(|n| format!("sbtest{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Fail,
            format!("the plan reads sbtest1..{needed}; missing: {list}"),
            TABLES_WHY,
        )
        .with_fix(
            "prepare them first (or add --prepare to the ladder)",
            Some(prepare_cmd),
        );
    }
    if let Some((n, _)) = present.iter().find(|(_, s)| *s != TableShape::Oltp) {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Fail,
            format!("sbtest{n} does not have sysbench's OLTP shape (id, k, c, pad)"),
            TABLES_WHY,
        )
        .with_fix(
            "clean up and prepare again",
            Some(format!(
                "dbdyno {workload} {} --tables={needed} cleanup",
                connection_args(plan)
            )),
        );
    }
    // TABLE_ROWS is InnoDB's estimate (±10 % or so): only a large shortfall is reported.
    let expected = needed as u64 * w.table_size;
    if m.benchmark_rows * 2 < expected {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Warn,
            format!(
                "sbtest1..{needed} hold about {} rows, the plan expects {expected} (--table-size={}): reads past the loaded ids find nothing",
                m.benchmark_rows, w.table_size
            ),
            TABLES_WHY,
        )
        .with_fix("use the --table-size the tables were prepared with, or prepare again", Some(prepare_cmd));
    }
    Check::new(
        ID,
        TITLE,
        CheckStatus::Pass,
        format!(
            "sbtest1..{needed} present, about {} rows, {}",
            m.benchmark_rows,
            human_bytes(m.benchmark_bytes)
        ),
        TABLES_WHY,
    )
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
    let (bytes, how) =
        if m.benchmark_bytes > 0 && !prepares(plan) && m.benchmark_rows * 2 >= planned {
            (m.benchmark_bytes, "as measured in information_schema")
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

fn free_space(f: &Facts, m: &MysqlFacts, plan: &Plan) -> Check {
    const ID: &str = "dataset.free_space";
    const TITLE: &str = "Free space for the data";
    let datadir = m
        .var("datadir")
        .unwrap_or("")
        .trim_end_matches('/')
        .to_string();
    let by_hand = format!(
        "df -h {}",
        if datadir.is_empty() {
            "<datadir>"
        } else {
            &datadir
        }
    );
    let fs = f
        .host
        .os
        .as_ref()
        .and_then(|o| o.filesystem(&datadir).or_else(|| o.filesystems.first()));
    let Some(fs) = fs else {
        let why_not = match f.host.kind {
            AccessKind::None => f.host.none_why.clone().unwrap_or_default(),
            _ => f
                .host
                .os_error
                .clone()
                .or_else(|| {
                    f.host
                        .ssh
                        .as_ref()
                        .and_then(|s| s.as_ref().err())
                        .map(|p| p.message.clone())
                })
                .unwrap_or_else(|| "df gave no answer for the data directory".into()),
        };
        return Check::skipped(
            ID,
            TITLE,
            format!("free space unknown: {why_not}"),
            SPACE_WHY,
        )
        .with_fix("check it on the server by hand", Some(by_hand));
    };
    let free = format!(
        "{} free of {} on {}",
        human_bytes(fs.avail_bytes),
        human_bytes(fs.total_bytes),
        fs.mount_point
    );
    if !prepares(plan) {
        return Check::new(
            ID,
            TITLE,
            CheckStatus::Pass,
            format!("the plan loads no data (no prepare); {free}"),
            SPACE_WHY,
        );
    }
    let data = estimate_bytes(plan);
    // The binary log keeps a second copy of every loaded row.
    let binlog = m
        .var("log_bin")
        .is_some_and(|v| v.eq_ignore_ascii_case("ON") || v == "1");
    let factor = SPACE_SAFETY_FACTOR + if binlog { 1.0 } else { 0.0 };
    let need = (data as f64 * factor) as u64;
    let seen = format!(
        "prepare loads about {} ({} needed with a safety factor of {factor}{}); {free}",
        human_bytes(data),
        human_bytes(need),
        if binlog { ", binary log on" } else { "" }
    );
    let status = if fs.avail_bytes < data {
        CheckStatus::Fail
    } else if fs.avail_bytes < need {
        CheckStatus::Warn
    } else {
        return Check::new(ID, TITLE, CheckStatus::Pass, seen, SPACE_WHY);
    };
    Check::new(ID, TITLE, status, seen, SPACE_WHY).with_fix(
        "free space on the data disk, or use fewer/smaller tables (--tables, --table-size)",
        Some(by_hand),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn pasted_commands_reach_the_plans_server_and_schema() {
        let mut p = crate::checks::testing::plan(&[Scenario::OltpReadWrite], &[4], 2, 1000, false);
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

    use std::collections::BTreeMap;

    use dbdyno_engine::phases::schema::TableInfo;

    use super::*;
    use crate::checks::testing::{facts, find, mysql, plan, set_var, GIB};

    fn oltp(name: &str) -> (String, TableInfo) {
        (
            name.to_string(),
            TableInfo {
                name: name.into(),
                shape: TableShape::Oltp,
                columns: vec![],
            },
        )
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

    #[test]
    fn tables_present_or_free_for_prepare() {
        let mut f = facts();
        let run = plan(&[Scenario::OltpReadWrite], &[8], 3, 1000, false);
        let c = find(&checks(&f, &run), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(
            c.seen.contains("missing: sbtest1, sbtest2, sbtest3"),
            "{}",
            c.seen
        );
        assert!(c
            .fix
            .unwrap()
            .sql_or_command
            .unwrap()
            .ends_with("--tables=3 --table-size=1000 prepare"));
        mysql(&mut f).tables = BTreeMap::from([oltp("sbtest1"), oltp("sbtest2"), oltp("sbtest3")]);
        mysql(&mut f).benchmark_rows = 2950;
        assert_eq!(
            find(&checks(&f, &run), "dataset.tables").status,
            CheckStatus::Pass
        );
        mysql(&mut f).benchmark_rows = 1000;
        assert_eq!(
            find(&checks(&f, &run), "dataset.tables").status,
            CheckStatus::Warn
        );
        let prep = plan(&[Scenario::OltpReadWrite], &[8], 3, 1000, true);
        let c = find(&checks(&f, &prep), "dataset.tables").clone();
        assert_eq!(c.status, CheckStatus::Fail);
        assert!(c.seen.contains("already exists"), "{}", c.seen);
    }

    #[test]
    fn free_space_with_safety_factor_and_binlog() {
        let mut f = facts(); // 20 GiB free
        let fits = plan(&[Scenario::OltpReadWrite], &[8], 10, 1_000_000, true); // ~2.3 GiB
        assert_eq!(
            find(&checks(&f, &fits), "dataset.free_space").status,
            CheckStatus::Pass
        );
        let tight = plan(&[Scenario::OltpReadWrite], &[8], 16, 4_500_000, true); // ~16.2 GiB
        assert_eq!(
            find(&checks(&f, &tight), "dataset.free_space").status,
            CheckStatus::Warn
        );
        let too_big = plan(&[Scenario::OltpReadWrite], &[8], 16, 10_000_000, true);
        assert_eq!(
            find(&checks(&f, &too_big), "dataset.free_space").status,
            CheckStatus::Fail
        );
        set_var(&mut f, "log_bin", "ON");
        let c = find(&checks(&f, &fits), "dataset.free_space").clone();
        assert!(
            c.seen.contains("safety factor of 2.5, binary log on"),
            "{}",
            c.seen
        );
        // Without OS access: skipped, with the reason and the command to run by hand.
        f.host.os = None;
        f.host.kind = AccessKind::None;
        f.host.none_why = Some("managed database".into());
        let c = find(&checks(&f, &fits), "dataset.free_space").clone();
        assert_eq!(c.status, CheckStatus::Skipped);
        assert!(c.seen.contains("managed database"));
        assert_eq!(
            c.fix.unwrap().sql_or_command.as_deref(),
            Some("df -h /var/lib/mysql")
        );
        assert!(human_bytes(20 * GIB).starts_with("20.0 GiB"));
    }
}
