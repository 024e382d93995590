//! The one verifier of a plan's TPC-C sets before prepare touches them, as
//! `phases::verify` is for the OLTP tables: absent, DB Dyno's own in the plan's shape
//! (reusable), DB Dyno's in another shape, or someone else's. The checks and prepare
//! both ask it, so the Checks screen promises what prepare does.
//!
//! Reuse needs, for every set 1..`--tables`: all nine tables with the reference's
//! columns, DB Dyno's mark on `warehouseN` ([`super::mark`], written after the set's
//! load finished) in the plan's shape, and the set's warehouses and districts all there
//! (`COUNT`, `MIN` and `MAX` of `warehouseN`, the count of `districtN`: both tables hold
//! `scale` and `10 × scale` rows, so the test reads next to nothing). The big tables are
//! not counted: the mark says their load finished, and the TPC-C transactions never
//! delete a warehouse, district, customer, item or stock row.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use mysql::Conn;

use super::dataset::{self, Found};
use super::mark::TpccMark;
use super::options::{TpccOptions, DISTRICTS_PER_WAREHOUSE};
use super::schema::{table_name, TABLES};
use crate::driver;
use crate::error::EngineError;
use crate::phases::schema::TableInfo;
use crate::phases::verify::thousands;
use crate::phases::{FoundTables, ReusedTables};

/// The verdict on the sets 1..o.tables among `existing` (the schema as
/// `phases::schema::list_tables` lists it). Counts rows only when everything else
/// already says "reusable".
pub fn verify_tpcc_tables(
    conn: &mut Conn,
    existing: &BTreeMap<String, TableInfo>,
    o: &TpccOptions,
) -> Result<FoundTables, EngineError> {
    let reused = match judge_marks(existing, o) {
        Ok(r) => r,
        Err(verdict) => return Ok(verdict),
    };
    let want = SetRows {
        warehouses: u64::from(o.scale),
        first: Some(1),
        last: Some(o.scale),
        districts: u64::from(o.scale) * u64::from(DISTRICTS_PER_WAREHOUSE),
    };
    for set in 1..=o.tables {
        let found = rows_of(conn, set)?;
        if found != want {
            return Ok(FoundTables::OursOtherShape {
                why: format!(
                    "{} holds {} warehouses and {} {} districts, not the {} warehouses (ids 1..{}) and {} districts DB Dyno loaded (rows were deleted, or the tables were changed)",
                    table_name("warehouse", set),
                    thousands(found.warehouses),
                    table_name("district", set),
                    thousands(found.districts),
                    o.scale,
                    o.scale,
                    thousands(want.districts)
                ),
            });
        }
    }
    Ok(FoundTables::Reusable(reused))
}

/// The sets DB Dyno marked among `existing`, whatever the plan: prepare = "always"
/// drops these and only these.
pub fn marked_sets(existing: &BTreeMap<String, TableInfo>) -> Vec<u32> {
    existing
        .values()
        .filter(|t| TpccMark::parse(&t.comment).is_some())
        .filter_map(|t| match dataset::classify(t) {
            Found::Ours {
                table: "warehouse",
                set,
            } => Some(set),
            _ => None,
        })
        .collect()
}

/// Everything but the rows: Ok with what would be reused, or the verdict.
fn judge_marks(
    existing: &BTreeMap<String, TableInfo>,
    o: &TpccOptions,
) -> Result<ReusedTables, FoundTables> {
    let lower: BTreeMap<String, &TableInfo> = existing
        .values()
        .map(|t| (t.name.to_ascii_lowercase(), t))
        .collect();
    let wanted: Vec<(u32, String)> = (1..=o.tables)
        .flat_map(|set| TABLES.iter().map(move |t| (set, table_name(t.name, set))))
        .collect();
    let present: Vec<(u32, &TableInfo)> = wanted
        .iter()
        .filter_map(|(set, name)| lower.get(name).map(|t| (*set, *t)))
        .collect();
    if present.is_empty() {
        return Err(FoundTables::Absent);
    }
    if let Some((_, t)) = present
        .iter()
        .find(|(_, t)| matches!(dataset::classify(t), Found::Impostor { .. }))
    {
        return Err(FoundTables::Foreign {
            table: t.name.clone(),
            why: format!(
                "{} exists with other columns ({}) and DB Dyno did not make it",
                t.name,
                crate::phases::schema::describe_columns(&t.columns)
            ),
        });
    }
    let mut marks = Vec::new();
    for set in 1..=o.tables {
        let Some((_, first)) = present.iter().find(|(s, _)| *s == set) else {
            continue;
        };
        let warehouse = table_name("warehouse", set);
        match lower.get(&warehouse).and_then(|t| TpccMark::parse(&t.comment)) {
            Some(mark) => marks.push((warehouse, mark)),
            None => {
                return Err(FoundTables::Foreign {
                    table: first.name.clone(),
                    why: format!(
                        "{} exists and DB Dyno did not make it (no DB Dyno mark on {warehouse}: sysbench-tpcc's prepare made it, or a DB Dyno prepare did not finish)",
                        first.name
                    ),
                })
            }
        }
    }
    if present.len() < wanted.len() {
        let missing: Vec<&str> = wanted
            .iter()
            .map(|(_, n)| n.as_str())
            .filter(|n| !lower.contains_key(*n))
            .collect();
        let shown = missing
            .iter()
            .take(6)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        let more = match missing.len() {
            0..=6 => String::new(),
            n => format!(" and {} more", n - 6),
        };
        return Err(FoundTables::OursOtherShape {
            why: format!(
                "the plan uses {} of TPC-C tables, but {} of its {} tables are missing ({shown}{more})",
                crate::wording::count(o.tables, "set"),
                missing.len(),
                wanted.len()
            ),
        });
    }
    for (warehouse, mark) in &marks {
        let differences = mark.differences(o);
        if !differences.is_empty() {
            return Err(FoundTables::OursOtherShape {
                why: format!(
                    "the TPC-C set of {warehouse} was loaded by DB Dyno with {}",
                    differences.join(", ")
                ),
            });
        }
    }
    Ok(ReusedTables {
        tables: o.tables,
        table_size: 0,
        tpcc_warehouses: Some(o.scale),
        made: marks[0].1.made_text(),
    })
}

/// What a set holds of its small tables.
#[derive(Debug, PartialEq)]
struct SetRows {
    warehouses: u64,
    /// The lowest and highest w_id.
    first: Option<u32>,
    last: Option<u32>,
    districts: u64,
}

/// `COUNT(*), MIN(w_id), MAX(w_id)` of warehouseN and `COUNT(*)` of districtN.
fn rows_of(conn: &mut Conn, set: u32) -> Result<SetRows, EngineError> {
    let warehouse = table_name("warehouse", set);
    let district = table_name("district", set);
    let w: Option<(u64, Option<u32>, Option<u32>)> = conn
        .query_first(format!(
            "SELECT COUNT(*), MIN(w_id), MAX(w_id) FROM {warehouse}"
        ))
        .map_err(|e| driver::query_error(&format!("counting the rows of {warehouse}"), &e))?;
    let d: Option<u64> = conn
        .query_first(format!("SELECT COUNT(*) FROM {district}"))
        .map_err(|e| driver::query_error(&format!("counting the rows of {district}"), &e))?;
    let (warehouses, first, last) = w.unwrap_or((0, None, None));
    Ok(SetRows {
        warehouses,
        first,
        last,
        districts: d.unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phases::schema::TableShape;
    use crate::tpcc::schema::column_names;

    fn o(tables: u32, scale: u32) -> TpccOptions {
        TpccOptions {
            tables,
            scale,
            ..TpccOptions::default()
        }
    }

    /// The nine tables of `set`, with `mark` on its warehouse.
    fn set_of(set: u32, mark: Option<&TpccMark>) -> Vec<(String, TableInfo)> {
        TABLES
            .iter()
            .map(|t| {
                let name = table_name(t.name, set);
                let info = TableInfo {
                    name: name.clone(),
                    shape: TableShape::Other,
                    columns: column_names(t, false)
                        .into_iter()
                        .map(|c| (c.to_string(), "int".to_string()))
                        .collect(),
                    mark: None,
                    comment: match (t.name, mark) {
                        ("warehouse", Some(m)) => m.comment(),
                        _ => String::new(),
                    },
                };
                (name, info)
            })
            .collect()
    }

    fn schema(sets: Vec<Vec<(String, TableInfo)>>) -> BTreeMap<String, TableInfo> {
        sets.into_iter().flatten().collect()
    }

    #[test]
    fn marks_decide_before_any_row_is_counted() {
        let plan = o(2, 3);
        let mark = TpccMark::now(&plan);
        assert_eq!(
            judge_marks(&schema(vec![]), &plan),
            Err(FoundTables::Absent)
        );
        let both = schema(vec![set_of(1, Some(&mark)), set_of(2, Some(&mark))]);
        let r = judge_marks(&both, &plan).unwrap();
        assert!(
            r.summary().starts_with(
                "reusing TPC-C sets 1..2 (warehouse1, district1, …): 3 warehouses each, made by DB Dyno on 20"
            ),
            "{}",
            r.summary()
        );
        assert_eq!(marked_sets(&both), [1, 2]);

        // sysbench-tpcc's set: the same columns, no mark.
        let theirs = schema(vec![set_of(1, Some(&mark)), set_of(2, None)]);
        match judge_marks(&theirs, &plan) {
            Err(FoundTables::Foreign { why, .. }) => {
                assert!(why.contains("no DB Dyno mark on warehouse2"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(marked_sets(&theirs), [1]);
        // A set short of a table, a plan of another scale or of fewer sets.
        let mut short = both.clone();
        short.remove("stock2");
        match judge_marks(&short, &plan) {
            Err(FoundTables::OursOtherShape { why }) => {
                assert!(
                    why.contains("1 of its 18 tables are missing (stock2)"),
                    "{why}"
                )
            }
            other => panic!("{other:?}"),
        }
        match judge_marks(&both, &o(2, 10)) {
            Err(FoundTables::OursOtherShape { why }) => {
                assert!(why.contains("scale 3 (the plan's: 10)"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            judge_marks(&both, &o(1, 3)),
            Err(FoundTables::OursOtherShape { .. })
        ));
        // A TPC-C name over other columns is someone's table.
        let mut impostor = both.clone();
        impostor.get_mut("item1").unwrap().columns = vec![("sku".into(), "int".into())];
        assert!(matches!(
            judge_marks(&impostor, &plan),
            Err(FoundTables::Foreign { table, .. }) if table == "item1"
        ));
    }
}
