//! The SQL text of every statement class and of the table definitions, copied from
//! sysbench 1.0.20's `oltp_common.lua` and per-script files so that a dataset prepared
//! by either tool serves the other.

use super::{Scenario, StatementClass, WorkloadOptions};

/// Table name sysbench uses for table number `n` (1-based).
pub fn table_name(n: u32) -> String {
    format!("sbtest{n}")
}

/// Statement text with `?` placeholders for table `n`. `None` for classes that are not
/// parameterised statements (BulkInsert is built as one multi-row text query).
pub fn statement_text(class: StatementClass, table: u32, o: &WorkloadOptions) -> Option<String> {
    use StatementClass::*;
    let t = table_name(table);
    Some(match class {
        Begin => "BEGIN".to_string(),
        Commit => "COMMIT".to_string(),
        PointSelect => format!("SELECT c FROM {t} WHERE id=?"),
        SimpleRange => format!("SELECT c FROM {t} WHERE id BETWEEN ? AND ?"),
        SumRange => format!("SELECT SUM(k) FROM {t} WHERE id BETWEEN ? AND ?"),
        OrderRange => format!("SELECT c FROM {t} WHERE id BETWEEN ? AND ? ORDER BY c"),
        DistinctRange => {
            format!("SELECT DISTINCT c FROM {t} WHERE id BETWEEN ? AND ? ORDER BY c")
        }
        IndexUpdate => format!("UPDATE {t} SET k=k+1 WHERE id=?"),
        NonIndexUpdate => format!("UPDATE {t} SET c=? WHERE id=?"),
        Delete => format!("DELETE FROM {t} WHERE id=?"),
        Insert => format!("INSERT INTO {t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
        RandomPoints => {
            let points = vec!["?"; o.random_points.max(1) as usize].join(", ");
            format!("SELECT id, k, c, pad FROM sbtest1 WHERE k IN ({points})")
        }
        RandomRanges => {
            let ranges = vec!["k BETWEEN ? AND ?"; o.number_of_ranges.max(1) as usize].join(" OR ");
            format!("SELECT count(k) FROM sbtest1 WHERE {ranges}")
        }
        BulkInsert => return None,
    })
}

/// Whether sysbench runs this class as a server-side prepared statement in this
/// scenario. oltp_insert.lua and bulk_insert.lua send plain `con:query` text.
pub fn is_prepared(scenario: Scenario, class: StatementClass) -> bool {
    !matches!(scenario, Scenario::OltpInsert | Scenario::BulkInsert)
        && class != StatementClass::BulkInsert
}

/// `CREATE TABLE` for an OLTP table, as `create_table()` in oltp_common.lua writes it
/// (the secondary index on k is created after the load).
pub fn create_oltp_table(table: u32, o: &WorkloadOptions) -> String {
    let id_def = if o.auto_inc {
        "INTEGER NOT NULL AUTO_INCREMENT"
    } else {
        "INTEGER NOT NULL"
    };
    let id_index = if o.secondary {
        "KEY xid"
    } else {
        "PRIMARY KEY"
    };
    format!(
        "CREATE TABLE {}(\n  id {id_def},\n  k INTEGER DEFAULT '0' NOT NULL,\n  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  {id_index} (id)\n) /*! ENGINE = {} */",
        table_name(table),
        quote_engine(&o.mysql_storage_engine)
    )
}

/// The secondary index sysbench adds after loading (`CREATE INDEX k_N ON sbtestN(k)`).
pub fn create_secondary_index(table: u32) -> String {
    format!("CREATE INDEX k_{table} ON sbtest{table}(k)")
}

/// bulk_insert.lua's table: one per thread, `(id, k)` only.
pub fn create_bulk_table(table: u32) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS sbtest{table} (\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id))"
    )
}

/// Storage engine names go into DDL unquoted; allow only identifier characters so a
/// profile cannot smuggle SQL in.
fn quote_engine(engine: &str) -> String {
    engine
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Whether an engine name survives [`quote_engine`] unchanged (validation uses it).
pub fn is_valid_engine_name(engine: &str) -> bool {
    !engine.is_empty() && quote_engine(engine) == engine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_are_sysbench_text() {
        let o = WorkloadOptions::default();
        assert_eq!(
            statement_text(StatementClass::DistinctRange, 3, &o).unwrap(),
            "SELECT DISTINCT c FROM sbtest3 WHERE id BETWEEN ? AND ? ORDER BY c"
        );
        let rp = statement_text(StatementClass::RandomPoints, 1, &o).unwrap();
        assert_eq!(rp.matches('?').count(), 10);
        let rr = statement_text(StatementClass::RandomRanges, 1, &o).unwrap();
        assert_eq!(rr.matches('?').count(), 20);
    }

    #[test]
    fn table_ddl_matches_sysbench_shape() {
        let o = WorkloadOptions::default();
        let ddl = create_oltp_table(2, &o);
        assert!(ddl.starts_with("CREATE TABLE sbtest2("));
        assert!(ddl.contains("id INTEGER NOT NULL AUTO_INCREMENT"));
        assert!(ddl.contains("PRIMARY KEY (id)"));
        assert!(ddl.contains("ENGINE = innodb"));
        assert!(!is_valid_engine_name("innodb; DROP TABLE x"));
    }
}
