//! What is in the target schema, and whether a table is one of ours.
//!
//! Prepare and cleanup decide from this what they may touch: only `sbtestN` tables with
//! sysbench's shape, never anything else, never the database itself.

use std::collections::BTreeMap;

use mysql::prelude::Queryable;
use mysql::Conn;

use super::mark::TableMark;
use crate::driver;
use crate::error::EngineError;

/// The benchmark table shapes, as (column, data type) lists in ordinal order.
const OLTP_SHAPE: [(&str, &str); 4] = [("id", "int"), ("k", "int"), ("c", "char"), ("pad", "char")];
const BULK_SHAPE: [(&str, &str); 2] = [("id", "int"), ("k", "int")];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableShape {
    Oltp,
    Bulk,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableInfo {
    pub name: String,
    pub shape: TableShape,
    /// The columns as found, for error messages.
    pub columns: Vec<(String, String)>,
    /// DB Dyno's mark in the table comment, when DB Dyno made the table.
    pub mark: Option<TableMark>,
    /// The table comment as found (TPC-C's mark is read from it, `tpcc::mark`).
    pub comment: String,
}

/// Every base table of the connection's current schema.
pub fn list_tables(conn: &mut Conn) -> Result<BTreeMap<String, TableInfo>, EngineError> {
    let rows: Vec<(String, String, String, String)> = conn
        .query(
            "SELECT c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, COALESCE(t.TABLE_COMMENT, '') \
             FROM information_schema.COLUMNS c \
             JOIN information_schema.TABLES t \
               ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME \
             WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' \
             ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION",
        )
        .map_err(|e| driver::query_error("listing the schema's tables", &e))?;
    let mut tables: BTreeMap<String, (Vec<(String, String)>, String)> = BTreeMap::new();
    for (t, col, ty, comment) in rows {
        let entry = tables.entry(t).or_insert_with(|| (Vec::new(), comment));
        entry
            .0
            .push((col.to_ascii_lowercase(), ty.to_ascii_lowercase()));
    }
    Ok(tables
        .into_iter()
        .map(|(name, (columns, comment))| {
            let shape = classify(&columns);
            (
                name.clone(),
                TableInfo {
                    name,
                    shape,
                    columns,
                    mark: TableMark::parse(&comment),
                    comment,
                },
            )
        })
        .collect())
}

fn classify(columns: &[(String, String)]) -> TableShape {
    let matches = |shape: &[(&str, &str)]| {
        columns.len() == shape.len()
            && columns
                .iter()
                .zip(shape)
                .all(|((c, t), (ec, et))| c == ec && t == et)
    };
    if matches(&OLTP_SHAPE) {
        TableShape::Oltp
    } else if matches(&BULK_SHAPE) {
        TableShape::Bulk
    } else {
        TableShape::Other
    }
}

/// `sbtest` followed by a positive number: a name the benchmark may own.
pub fn benchmark_table_number(name: &str) -> Option<u32> {
    let n = name.strip_prefix("sbtest")?;
    if n.is_empty() || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

pub fn describe_columns(columns: &[(String, String)]) -> String {
    columns
        .iter()
        .map(|(c, t)| format!("{c} {t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmark_names() {
        assert_eq!(benchmark_table_number("sbtest1"), Some(1));
        assert_eq!(benchmark_table_number("sbtest42"), Some(42));
        assert_eq!(benchmark_table_number("sbtest"), None);
        assert_eq!(benchmark_table_number("sbtest01"), None);
        assert_eq!(benchmark_table_number("sbtest1_old"), None);
        assert_eq!(benchmark_table_number("orders"), None);
    }

    #[test]
    fn shapes() {
        let cols = |v: &[(&str, &str)]| {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(classify(&cols(&OLTP_SHAPE)), TableShape::Oltp);
        assert_eq!(classify(&cols(&BULK_SHAPE)), TableShape::Bulk);
        assert_eq!(
            classify(&cols(&[("id", "int"), ("name", "varchar")])),
            TableShape::Other
        );
    }
}
