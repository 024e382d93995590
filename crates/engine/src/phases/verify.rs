//! The one verifier of a plan's OLTP tables (`sbtest1..N`) before prepare touches them:
//! absent, DB Dyno's own in the plan's shape (reusable), DB Dyno's in another shape, or
//! someone else's.
//!
//! The checks, prepare itself (and a later resumed prepare) all ask it, so that what
//! the Checks screen promises is what prepare does. Reuse needs three things: the mark
//! DB Dyno leaves in each table's comment ([`super::mark`]), the plan's shape in that
//! mark and the columns, and every id 1..table_size present. The row count alone is no
//! test: write workloads such as oltp_insert add rows.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use mysql::Conn;
use serde::{Deserialize, Serialize};

use super::schema::{describe_columns, TableInfo, TableShape};
use crate::driver;
use crate::error::EngineError;
use crate::workload::{sql, WorkloadOptions};

/// What the schema holds of a plan's dataset (its OLTP tables `sbtest1..N` here, its
/// TPC-C sets in [`crate::tpcc::verify`]).
#[derive(Debug, Clone, PartialEq)]
pub enum FoundTables {
    /// None of them exists: prepare loads them.
    Absent,
    /// All there, made by DB Dyno in the plan's shape, every id present.
    Reusable(ReusedTables),
    /// DB Dyno made them, but not as this plan wants them (another size or count, a
    /// table or ids missing): `prepare = "always"` may drop them and load again.
    OursOtherShape { why: String },
    /// A table DB Dyno did not make (sysbench's, or anyone's): never reused, never dropped.
    Foreign { table: String, why: String },
}

/// Tables a run reuses instead of loading, for its lines and its history record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ReusedTables {
    /// OLTP tables sbtest1..tables, or TPC-C sets 1..tables.
    pub tables: u32,
    /// Rows of each OLTP table (0 for TPC-C).
    pub table_size: u64,
    /// Warehouses of each TPC-C set; None for the OLTP tables (and in records written
    /// before TPC-C sets were reused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tpcc_warehouses: Option<u32>,
    /// When DB Dyno made them: "2026-12-02 01:59 UTC".
    pub made: String,
}

impl ReusedTables {
    /// "reusing sbtest1..4: 4 × 10,000 rows, made by DB Dyno on 2026-12-02 01:59 UTC";
    /// "reusing TPC-C set 1 (warehouse1, district1, …): 10 warehouses, made by …".
    pub fn summary(&self) -> String {
        let n = self.tables;
        let (names, contents) = match self.tpcc_warehouses {
            Some(w) => (
                match n {
                    1 => "TPC-C set 1 (warehouse1, district1, …)".to_string(),
                    _ => format!("TPC-C sets 1..{n} (warehouse1, district1, …)"),
                },
                match n {
                    1 => crate::wording::count(w, "warehouse"),
                    _ => format!("{} each", crate::wording::count(w, "warehouse")),
                },
            ),
            None => (
                match n {
                    1 => "sbtest1".to_string(),
                    _ => format!("sbtest1..{n}"),
                },
                format!("{n} × {} rows", thousands(self.table_size)),
            ),
        };
        format!(
            "reusing {names}: {contents}, made by DB Dyno on {}",
            self.made
        )
    }

    /// The summary as a line of its own: "Reusing sbtest1..4: …".
    pub fn line(&self) -> String {
        let summary = self.summary();
        let mut c = summary.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    }
}

/// The verdict on sbtest1..w.tables among `existing` (the schema as
/// [`super::schema::list_tables`] lists it). Counts ids only when everything else
/// already says "reusable", so refusing costs no scan.
pub fn verify_oltp_tables(
    conn: &mut Conn,
    existing: &BTreeMap<String, TableInfo>,
    w: &WorkloadOptions,
) -> Result<FoundTables, EngineError> {
    let candidate = match judge_marks(existing, w) {
        Ok(c) => c,
        Err(verdict) => return Ok(verdict),
    };
    for t in 1..=w.tables {
        match contents(conn, t, w)? {
            Contents::Complete => {}
            Contents::IndexMissing(why) | Contents::IdsMissing(why) => {
                return Ok(FoundTables::OursOtherShape { why })
            }
        }
    }
    Ok(FoundTables::Reusable(candidate))
}

/// What a table DB Dyno marked in the plan's shape holds.
enum Contents {
    /// Every id 1..table_size, and the secondary index the plan wants.
    Complete,
    /// Every id, but not the index; why, in words.
    IndexMissing(String),
    /// Ids missing; why, in words.
    IdsMissing(String),
}

fn contents(conn: &mut Conn, t: u32, w: &WorkloadOptions) -> Result<Contents, EngineError> {
    let found = ids_present(conn, t, w)?;
    if found != w.table_size {
        return Ok(Contents::IdsMissing(format!(
            "{} holds {} of the ids 1..{} DB Dyno loaded (a run deleted rows, or a load was cut short)",
            sql::table_name(t),
            thousands(found),
            thousands(w.table_size)
        )));
    }
    if w.create_secondary && !has_secondary_index(conn, t)? {
        return Ok(Contents::IndexMissing(format!(
            "{} has every row but not its index k_{t} (a prepare was cut short while building it)",
            sql::table_name(t)
        )));
    }
    Ok(Contents::Complete)
}

/// What a resumed prepare (`prepare = "resume"`) does with each table of the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumeTables {
    /// Complete and verified: kept as they are.
    pub keep: Vec<u32>,
    /// Every row there, the secondary index missing: only the index is built.
    pub index_only: Vec<u32>,
    /// DB Dyno's, but cut short or of another shape: dropped and loaded again, each
    /// with the reason.
    pub reload: Vec<(u32, String)>,
    /// Not there: created and loaded.
    pub missing: Vec<u32>,
}

impl ResumeTables {
    /// The tables to create and load: the missing ones and those dropped.
    pub fn to_load(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.missing.clone();
        v.extend(self.reload.iter().map(|(t, _)| *t));
        v.sort_unstable();
        v
    }
}

/// Table by table, what resuming a prepare of `w` keeps and what it loads again. A table
/// DB Dyno did not make is refused as in every other mode.
pub fn resume_oltp_tables(
    conn: &mut Conn,
    existing: &BTreeMap<String, TableInfo>,
    w: &WorkloadOptions,
) -> Result<Result<ResumeTables, FoundTables>, EngineError> {
    let mut out = ResumeTables::default();
    for t in 1..=w.tables {
        let name = sql::table_name(t);
        let Some(info) = existing.get(&name) else {
            out.missing.push(t);
            continue;
        };
        let Some(mark) = &info.mark else {
            // The same refusal, in the same words, as the other modes give.
            return Ok(Err(not_ours(info)));
        };
        if info.shape != TableShape::Oltp {
            out.reload
                .push((t, format!("it has {}", describe_columns(&info.columns))));
            continue;
        }
        let differences = mark.differences(w);
        if !differences.is_empty() {
            out.reload
                .push((t, format!("made with {}", differences.join(", "))));
            continue;
        }
        match contents(conn, t, w)? {
            Contents::Complete => out.keep.push(t),
            Contents::IndexMissing(_) => out.index_only.push(t),
            Contents::IdsMissing(why) => out.reload.push((t, why)),
        }
    }
    Ok(Ok(out))
}

/// The verdict on a table of the plan's names that carries no DB Dyno mark.
fn not_ours(info: &TableInfo) -> FoundTables {
    FoundTables::Foreign {
        table: info.name.clone(),
        why: if info.shape == TableShape::Oltp {
            format!(
                "{} exists and DB Dyno did not make it (no DB Dyno mark in its comment: sysbench's prepare or a CREATE TABLE made it)",
                info.name
            )
        } else {
            format!(
                "{} exists with another shape ({}) and DB Dyno did not make it",
                info.name,
                describe_columns(&info.columns)
            )
        },
    }
}

/// Whether table `t` has its secondary index `k_t`.
fn has_secondary_index(conn: &mut Conn, t: u32) -> Result<bool, EngineError> {
    let n: Option<u64> = conn
        .exec_first(
            "SELECT COUNT(*) FROM information_schema.STATISTICS \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ?",
            (sql::table_name(t), format!("k_{t}")),
        )
        .map_err(|e| driver::query_error("reading the tables' indexes", &e))?;
    Ok(n.unwrap_or(0) > 0)
}

/// Everything but the ids: Ok with what would be reused, or the verdict.
fn judge_marks(
    existing: &BTreeMap<String, TableInfo>,
    w: &WorkloadOptions,
) -> Result<ReusedTables, FoundTables> {
    let present: Vec<&TableInfo> = (1..=w.tables)
        .filter_map(|t| existing.get(&sql::table_name(t)))
        .collect();
    let Some(first) = present.first() else {
        return Err(FoundTables::Absent);
    };
    for info in &present {
        if info.mark.is_none() {
            return Err(not_ours(info));
        }
    }
    if let Some(info) = present.iter().find(|i| i.shape != TableShape::Oltp) {
        return Err(FoundTables::OursOtherShape {
            why: format!(
                "{}, made by DB Dyno, no longer has the OLTP columns (it has {})",
                info.name,
                describe_columns(&info.columns)
            ),
        });
    }
    if present.len() < w.tables as usize {
        let missing: Vec<String> = (1..=w.tables)
            .map(sql::table_name)
            .filter(|n| !existing.contains_key(n))
            .collect();
        return Err(FoundTables::OursOtherShape {
            why: format!(
                "the plan uses sbtest1..{}, but only {} of {} are there (missing: {})",
                w.tables,
                present.len(),
                w.tables,
                missing.join(", ")
            ),
        });
    }
    for info in &present {
        let mark = info.mark.as_ref().expect("checked above");
        let differences = mark.differences(w);
        if !differences.is_empty() {
            return Err(FoundTables::OursOtherShape {
                why: format!(
                    "{} was made by DB Dyno with {}",
                    info.name,
                    differences.join(", ")
                ),
            });
        }
    }
    Ok(ReusedTables {
        tables: w.tables,
        table_size: w.table_size,
        tpcc_warehouses: None,
        made: first.mark.as_ref().expect("checked above").made_text(),
    })
}

/// How many of the ids 1..table_size table `t` holds (each counted once: with
/// `--secondary` id is not unique).
///
/// With id the primary key, `MIN(id)`, `MAX(id)` and `COUNT(*)` answer first: MIN and
/// MAX come off the ends of the primary key, and the count may read the smaller `k`
/// index instead of every row. table_size distinct ids between 1 and table_size are
/// exactly the ids 1..table_size. Only when they don't add up (oltp_insert added rows
/// above table_size, or some are gone) does the exact count over the id range run.
/// Measured on the sandbox MariaDB 10.11 on one table of 2,000,000 rows with its `k`
/// index, warm, three rounds each (`SHOW PROFILES`): the range count 0.90-0.95 s, the
/// ends and count 0.22-0.32 s (EXPLAIN: it reads k_1).
fn ids_present(conn: &mut Conn, t: u32, w: &WorkloadOptions) -> Result<u64, EngineError> {
    let name = sql::table_name(t);
    let failed = |e: mysql::Error| driver::query_error(&format!("counting the ids of {name}"), &e);
    if !w.secondary {
        let ends: Option<(Option<u64>, Option<u64>, u64)> = conn
            .query_first(format!("SELECT MIN(id), MAX(id), COUNT(*) FROM {name}"))
            .map_err(failed)?;
        if ends == Some((Some(1), Some(w.table_size), w.table_size)) {
            return Ok(w.table_size);
        }
    }
    let what = if w.secondary {
        "COUNT(DISTINCT id)"
    } else {
        "COUNT(*)"
    };
    conn.exec_first::<u64, _, _>(
        format!("SELECT {what} FROM {name} WHERE id BETWEEN 1 AND ?"),
        (w.table_size,),
    )
    .map(Option::unwrap_or_default)
    .map_err(failed)
}

/// 10000 as "10,000".
pub(crate) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::mark::TableMark;
    use super::*;

    fn w(tables: u32, table_size: u64) -> WorkloadOptions {
        WorkloadOptions {
            tables,
            table_size,
            ..Default::default()
        }
    }

    fn table(n: u32, shape: TableShape, mark: Option<TableMark>) -> (String, TableInfo) {
        let name = sql::table_name(n);
        (
            name.clone(),
            TableInfo {
                name,
                shape,
                columns: vec![("id".into(), "int".into())],
                mark,
                comment: String::new(),
            },
        )
    }

    #[test]
    fn marks_decide_before_any_id_is_counted() {
        let plan = w(2, 10_000);
        let mark = TableMark::now(&plan);
        let ours = |n| table(n, TableShape::Oltp, Some(mark.clone()));
        let schema = |v: Vec<(String, TableInfo)>| v.into_iter().collect::<BTreeMap<_, _>>();

        assert_eq!(
            judge_marks(&schema(vec![]), &plan),
            Err(FoundTables::Absent)
        );
        let r = judge_marks(&schema(vec![ours(1), ours(2)]), &plan).unwrap();
        assert_eq!((r.tables, r.table_size), (2, 10_000));
        assert!(r
            .summary()
            .starts_with("reusing sbtest1..2: 2 × 10,000 rows, made by DB Dyno on 20"));

        // sysbench's table has the same columns, but no mark.
        let sysbench = table(2, TableShape::Oltp, None);
        match judge_marks(&schema(vec![ours(1), sysbench]), &plan) {
            Err(FoundTables::Foreign { table, why }) => {
                assert_eq!(table, "sbtest2");
                assert!(why.contains("DB Dyno did not make it"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        // Ours, but a table short or of another size.
        match judge_marks(&schema(vec![ours(1)]), &plan) {
            Err(FoundTables::OursOtherShape { why }) => {
                assert!(why.contains("missing: sbtest2"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        match judge_marks(&schema(vec![ours(1), ours(2)]), &w(2, 20_000)) {
            Err(FoundTables::OursOtherShape { why }) => {
                assert!(
                    why.contains("table_size 10000 (the plan's: 20000)"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
        // A plan of fewer tables than the mark's set is another shape too.
        assert!(matches!(
            judge_marks(&schema(vec![ours(1), ours(2)]), &w(1, 10_000)),
            Err(FoundTables::OursOtherShape { .. })
        ));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(10_000_000), "10,000,000");
    }
}
