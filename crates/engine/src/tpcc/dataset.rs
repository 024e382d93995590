//! Which tables of the target schema belong to a TPC-C dataset: a table is ours when
//! its name is one of the nine tables with a set number (`stock3`) and its columns are
//! the ones we create. Prepare and cleanup decide from this what they may touch.

use std::collections::BTreeMap;

use crate::phases::schema::{benchmark_table_number, TableInfo, TableShape};

use super::schema::{column_names, parse_table_name};

/// A table of the schema, as a TPC-C dataset sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// One of ours: this table of this set.
    Ours { table: &'static str, set: u32 },
    /// A TPC-C name with other columns: not ours, never touched.
    Impostor { set: u32, columns: String },
    /// Anything else.
    Other,
}

pub fn classify(info: &TableInfo) -> Found {
    let Some((def, set)) = parse_table_name(&info.name) else {
        return Found::Other;
    };
    let names: Vec<&str> = info.columns.iter().map(|(c, _)| c.as_str()).collect();
    if names == column_names(def, false) || names == column_names(def, true) {
        Found::Ours {
            table: def.name,
            set,
        }
    } else {
        Found::Impostor {
            set,
            columns: crate::phases::schema::describe_columns(&info.columns),
        }
    }
}

/// Tables that are neither a TPC-C table nor an OLTP benchmark table (sbtestN of the
/// OLTP shape): someone's real data, next to which no prepare loads without --force.
/// Both prepares and the checks use this one list, so a ladder of both kinds prepares
/// both.
pub fn foreign_tables(tables: &BTreeMap<String, TableInfo>) -> Vec<String> {
    tables
        .values()
        .filter(|t| {
            let oltp = benchmark_table_number(&t.name).is_some() && t.shape != TableShape::Other;
            !oltp && !matches!(classify(t), Found::Ours { .. })
        })
        .map(|t| t.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, cols: &[&str]) -> TableInfo {
        TableInfo {
            name: name.into(),
            shape: TableShape::Other,
            columns: cols.iter().map(|c| (c.to_string(), "int".into())).collect(),
            mark: None,
            comment: String::new(),
        }
    }

    #[test]
    fn ours_needs_the_name_and_the_columns() {
        let cols = ["no_o_id", "no_d_id", "no_w_id"];
        assert_eq!(
            classify(&info("new_orders2", &cols)),
            Found::Ours {
                table: "new_orders",
                set: 2
            }
        );
        assert!(matches!(
            classify(&info("new_orders2", &["id", "name"])),
            Found::Impostor { set: 2, .. }
        ));
        assert_eq!(classify(&info("customers", &cols)), Found::Other);
    }

    #[test]
    fn history_is_ours_with_or_without_its_forced_key() {
        let plain = [
            "h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data",
        ];
        let mut keyed = vec!["id"];
        keyed.extend(plain);
        assert!(matches!(
            classify(&info("history1", &plain)),
            Found::Ours { .. }
        ));
        assert!(matches!(
            classify(&info("history1", &keyed)),
            Found::Ours { .. }
        ));
    }

    #[test]
    fn foreign_tables_leave_out_ours_and_oltp_tables() {
        let mut m = BTreeMap::new();
        m.insert(
            "new_orders1".to_string(),
            info("new_orders1", &["no_o_id", "no_d_id", "no_w_id"]),
        );
        let mut sb = info("sbtest1", &["id", "k", "c", "pad"]);
        sb.shape = TableShape::Oltp;
        m.insert("sbtest1".to_string(), sb);
        m.insert("invoices".to_string(), info("invoices", &["id"]));
        assert_eq!(foreign_tables(&m), ["invoices"]);
    }
}
