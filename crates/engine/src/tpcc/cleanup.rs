//! `tpcc cleanup`: drop the TPC-C tables, every set of them, and nothing else.
//!
//! The reference drops `history1..N` ... `warehouse1..N` for N = --tables, by name. Here
//! every set found in the schema is dropped, so a cleanup with the default --tables
//! leaves nothing of a prepare with more sets behind; a table is dropped only when its
//! name and its columns are a TPC-C table's (module `dataset`).

use mysql::Conn;

use super::dataset::{self, Found};
use super::schema::{self, DROP_ORDER};
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::phases::schema as phase_schema;
use crate::plan::ConnectOptions;

/// Drops every TPC-C table of the schema; a same-named table of other columns is left
/// alone with a warning. Returns the names dropped.
pub fn cleanup(connect: &ConnectOptions, events: &EventSink) -> Result<Vec<String>, EngineError> {
    let mut conn = driver::connect(connect)?;
    cleanup_on(&mut conn, events)
}

fn cleanup_on(conn: &mut Conn, events: &EventSink) -> Result<Vec<String>, EngineError> {
    let existing = phase_schema::list_tables(conn)?;
    let mut ours: Vec<(u32, &'static str)> = Vec::new();
    for info in existing.values() {
        match dataset::classify(info) {
            Found::Ours { table, set } => ours.push((set, table)),
            Found::Impostor { columns, .. } => events.warning(format!(
                "left {} alone: its columns ({columns}) are not a TPC-C table's",
                info.name
            )),
            Found::Other => {}
        }
    }
    // Children before parents within a set, as the reference drops them; with the
    // checks off a parent may go first anyway (a set partly dropped by an earlier run).
    let rank = |t: &str| {
        DROP_ORDER
            .iter()
            .position(|d| *d == t)
            .unwrap_or(usize::MAX)
    };
    ours.sort_by_key(|&(set, table)| (set, rank(table)));
    driver::admin_exec(conn, "SET FOREIGN_KEY_CHECKS", "SET FOREIGN_KEY_CHECKS=0")?;
    let mut sets_said = Vec::new();
    let mut dropped = Vec::new();
    for (set, table) in ours {
        if !sets_said.contains(&set) {
            sets_said.push(set);
            events.message(format!("Dropping tables '{set}'..."));
        }
        dropped.push(drop_table(conn, table, set)?);
    }
    Ok(dropped)
}

/// `DROP TABLE IF EXISTS` of `table` of `set` (the caller turns the foreign key checks
/// off first); its name.
pub(super) fn drop_table(conn: &mut Conn, table: &str, set: u32) -> Result<String, EngineError> {
    let name = schema::table_name(table, set);
    driver::admin_exec(
        conn,
        "DROP TABLE",
        &format!("DROP TABLE IF EXISTS `{name}`"),
    )?;
    Ok(name)
}
