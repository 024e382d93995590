//! cleanup: drop the benchmark tables of this workload, and nothing else (TPC-C's:
//! [`crate::tpcc::cleanup`]).

use super::schema::{self, TableShape};
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::plan::ConnectOptions;
use crate::workload::{sql, Scenario, WorkloadOptions};

/// Drops `sbtest1..N` (N = --tables, or the thread count for bulk_insert) when they have
/// a benchmark shape. A same-named table of another shape is left alone with a warning.
/// Returns the names dropped.
pub fn cleanup(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    scenario: Scenario,
    threads: u32,
    events: &EventSink,
) -> Result<Vec<String>, EngineError> {
    if scenario.is_tpcc() {
        return crate::tpcc::cleanup::cleanup(connect, events);
    }
    let mut conn = driver::connect(connect)?;
    let existing = schema::list_tables(&mut conn)?;
    let (count, wanted) = if scenario.uses_bulk_tables() {
        (threads, TableShape::Bulk)
    } else {
        (w.tables, TableShape::Oltp)
    };
    let mut dropped = Vec::new();
    for t in 1..=count {
        let name = sql::table_name(t);
        match existing.get(&name) {
            None => {}
            Some(info) if info.shape == wanted => {
                events.message(format!("Dropping table '{name}'..."));
                driver::admin_exec(
                    &mut conn,
                    "DROP TABLE",
                    &format!("DROP TABLE IF EXISTS `{name}`"),
                )?;
                dropped.push(name);
            }
            Some(info) => events.warning(format!(
                "left {name} alone: its columns ({}) are not a benchmark table's",
                schema::describe_columns(&info.columns)
            )),
        }
    }
    Ok(dropped)
}
