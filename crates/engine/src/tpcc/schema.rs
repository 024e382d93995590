//! sysbench-tpcc's schema, table for table: the same columns, types, keys, secondary
//! indexes and foreign keys (tpcc_common.lua's `create_tables` on MySQL), so a dataset
//! prepared by either tool serves the other and `SHOW CREATE TABLE` reads the same.
//!
//! Each set of tables (`--tables`) repeats the nine tables with the set's number as a
//! suffix: `warehouse1`, `district1`, ... `warehouse2`, ...

use super::options::TpccOptions;

/// One table of a set: its name without the set's number, and its columns in order.
#[derive(Debug, Clone, Copy)]
pub struct TableDef {
    pub name: &'static str,
    pub columns: &'static [(&'static str, &'static str)],
    pub primary_key: &'static str,
}

/// history's surrogate key under `--force_pk`.
pub const HISTORY_ID_COLUMN: (&str, &str) = ("id", "int NOT NULL AUTO_INCREMENT");

/// The nine tables in the reference's creation order.
pub const TABLES: [TableDef; 9] = [
    TableDef {
        name: "warehouse",
        columns: &[
            ("w_id", "smallint not null"),
            ("w_name", "varchar(10)"),
            ("w_street_1", "varchar(20)"),
            ("w_street_2", "varchar(20)"),
            ("w_city", "varchar(20)"),
            ("w_state", "char(2)"),
            ("w_zip", "char(9)"),
            ("w_tax", "decimal(4,2)"),
            ("w_ytd", "decimal(12,2)"),
        ],
        primary_key: "w_id",
    },
    TableDef {
        name: "district",
        columns: &[
            ("d_id", "tinyint not null"),
            ("d_w_id", "smallint not null"),
            ("d_name", "varchar(10)"),
            ("d_street_1", "varchar(20)"),
            ("d_street_2", "varchar(20)"),
            ("d_city", "varchar(20)"),
            ("d_state", "char(2)"),
            ("d_zip", "char(9)"),
            ("d_tax", "decimal(4,2)"),
            ("d_ytd", "decimal(12,2)"),
            ("d_next_o_id", "int"),
        ],
        primary_key: "d_w_id, d_id",
    },
    TableDef {
        name: "customer",
        columns: &[
            ("c_id", "int not null"),
            ("c_d_id", "tinyint not null"),
            ("c_w_id", "smallint not null"),
            ("c_first", "varchar(16)"),
            ("c_middle", "char(2)"),
            ("c_last", "varchar(16)"),
            ("c_street_1", "varchar(20)"),
            ("c_street_2", "varchar(20)"),
            ("c_city", "varchar(20)"),
            ("c_state", "char(2)"),
            ("c_zip", "char(9)"),
            ("c_phone", "char(16)"),
            ("c_since", "datetime"),
            ("c_credit", "char(2)"),
            ("c_credit_lim", "bigint"),
            ("c_discount", "decimal(4,2)"),
            ("c_balance", "decimal(12,2)"),
            ("c_ytd_payment", "decimal(12,2)"),
            ("c_payment_cnt", "smallint"),
            ("c_delivery_cnt", "smallint"),
            ("c_data", "text"),
        ],
        primary_key: "c_w_id, c_d_id, c_id",
    },
    TableDef {
        name: "history",
        columns: &[
            ("h_c_id", "int"),
            ("h_c_d_id", "tinyint"),
            ("h_c_w_id", "smallint"),
            ("h_d_id", "tinyint"),
            ("h_w_id", "smallint"),
            ("h_date", "datetime"),
            ("h_amount", "decimal(6,2)"),
            ("h_data", "varchar(24)"),
        ],
        // Only with --force_pk (then on HISTORY_ID_COLUMN).
        primary_key: "",
    },
    TableDef {
        name: "orders",
        columns: &[
            ("o_id", "int not null"),
            ("o_d_id", "tinyint not null"),
            ("o_w_id", "smallint not null"),
            ("o_c_id", "int"),
            ("o_entry_d", "datetime"),
            ("o_carrier_id", "tinyint"),
            ("o_ol_cnt", "tinyint"),
            ("o_all_local", "tinyint"),
        ],
        primary_key: "o_w_id, o_d_id, o_id",
    },
    TableDef {
        name: "new_orders",
        columns: &[
            ("no_o_id", "int not null"),
            ("no_d_id", "tinyint not null"),
            ("no_w_id", "smallint not null"),
        ],
        primary_key: "no_w_id, no_d_id, no_o_id",
    },
    TableDef {
        name: "order_line",
        columns: &[
            ("ol_o_id", "int not null"),
            ("ol_d_id", "tinyint not null"),
            ("ol_w_id", "smallint not null"),
            ("ol_number", "tinyint not null"),
            ("ol_i_id", "int"),
            ("ol_supply_w_id", "smallint"),
            ("ol_delivery_d", "datetime"),
            ("ol_quantity", "tinyint"),
            ("ol_amount", "decimal(6,2)"),
            ("ol_dist_info", "char(24)"),
        ],
        primary_key: "ol_w_id, ol_d_id, ol_o_id, ol_number",
    },
    TableDef {
        name: "stock",
        columns: &[
            ("s_i_id", "int not null"),
            ("s_w_id", "smallint not null"),
            ("s_quantity", "smallint"),
            ("s_dist_01", "char(24)"),
            ("s_dist_02", "char(24)"),
            ("s_dist_03", "char(24)"),
            ("s_dist_04", "char(24)"),
            ("s_dist_05", "char(24)"),
            ("s_dist_06", "char(24)"),
            ("s_dist_07", "char(24)"),
            ("s_dist_08", "char(24)"),
            ("s_dist_09", "char(24)"),
            ("s_dist_10", "char(24)"),
            ("s_ytd", "decimal(8,0)"),
            ("s_order_cnt", "smallint"),
            ("s_remote_cnt", "smallint"),
            ("s_data", "varchar(50)"),
        ],
        primary_key: "s_w_id, s_i_id",
    },
    TableDef {
        name: "item",
        columns: &[
            ("i_id", "int not null"),
            ("i_im_id", "int"),
            ("i_name", "varchar(24)"),
            ("i_price", "decimal(5,2)"),
            ("i_data", "varchar(50)"),
        ],
        primary_key: "i_id",
    },
];

/// The reference drops a set's tables children first (its `cleanup`).
pub const DROP_ORDER: [&str; 9] = [
    "history",
    "new_orders",
    "order_line",
    "orders",
    "customer",
    "district",
    "stock",
    "item",
    "warehouse",
];

/// A secondary index: its name without the set's number, table, columns.
pub struct IndexDef {
    pub name: &'static str,
    pub table: &'static str,
    pub columns: &'static str,
}

/// The reference's secondary indexes, in its order. Each set's index is named with
/// the set's number glued on (`idx_customer1`, `fkey_stock_21`), as the reference does.
pub const INDEXES: [IndexDef; 6] = [
    IndexDef {
        name: "idx_customer",
        table: "customer",
        columns: "c_w_id,c_d_id,c_last,c_first",
    },
    IndexDef {
        name: "idx_orders",
        table: "orders",
        columns: "o_w_id,o_d_id,o_c_id,o_id",
    },
    IndexDef {
        name: "fkey_stock_2",
        table: "stock",
        columns: "s_i_id",
    },
    IndexDef {
        name: "fkey_order_line_2",
        table: "order_line",
        columns: "ol_supply_w_id,ol_i_id",
    },
    IndexDef {
        name: "fkey_history_1",
        table: "history",
        columns: "h_c_w_id,h_c_d_id,h_c_id",
    },
    IndexDef {
        name: "fkey_history_2",
        table: "history",
        columns: "h_w_id,h_d_id",
    },
];

/// A foreign key (`--use_fk`): constraint name without the `_N` suffix, child table
/// and columns, parent table and columns.
pub struct ForeignKeyDef {
    pub name: &'static str,
    pub table: &'static str,
    pub columns: &'static str,
    pub parent: &'static str,
    pub parent_columns: &'static str,
}

/// The reference's foreign keys, in its order. Each is served by the primary key or a
/// secondary index above, so adding them creates no index of its own.
pub const FOREIGN_KEYS: [ForeignKeyDef; 10] = [
    fk(
        "fkey_new_orders_1",
        "new_orders",
        "no_w_id,no_d_id,no_o_id",
        "orders",
        "o_w_id,o_d_id,o_id",
    ),
    fk(
        "fkey_orders_1",
        "orders",
        "o_w_id,o_d_id,o_c_id",
        "customer",
        "c_w_id,c_d_id,c_id",
    ),
    fk(
        "fkey_customer_1",
        "customer",
        "c_w_id,c_d_id",
        "district",
        "d_w_id,d_id",
    ),
    fk(
        "fkey_history_1",
        "history",
        "h_c_w_id,h_c_d_id,h_c_id",
        "customer",
        "c_w_id,c_d_id,c_id",
    ),
    fk(
        "fkey_history_2",
        "history",
        "h_w_id,h_d_id",
        "district",
        "d_w_id,d_id",
    ),
    fk("fkey_district_1", "district", "d_w_id", "warehouse", "w_id"),
    fk(
        "fkey_order_line_1",
        "order_line",
        "ol_w_id,ol_d_id,ol_o_id",
        "orders",
        "o_w_id,o_d_id,o_id",
    ),
    fk(
        "fkey_order_line_2",
        "order_line",
        "ol_supply_w_id,ol_i_id",
        "stock",
        "s_w_id,s_i_id",
    ),
    fk("fkey_stock_1", "stock", "s_w_id", "warehouse", "w_id"),
    fk("fkey_stock_2", "stock", "s_i_id", "item", "i_id"),
];

const fn fk(
    name: &'static str,
    table: &'static str,
    columns: &'static str,
    parent: &'static str,
    parent_columns: &'static str,
) -> ForeignKeyDef {
    ForeignKeyDef {
        name,
        table,
        columns,
        parent,
        parent_columns,
    }
}

/// `history3`: a table's name in a set.
pub fn table_name(table: &str, set: u32) -> String {
    format!("{table}{set}")
}

/// Whether `name` is one of the nine tables of some set, and which set.
pub fn parse_table_name(name: &str) -> Option<(&'static TableDef, u32)> {
    TABLES.iter().find_map(|t| {
        let n = name.strip_prefix(t.name)?;
        if n.is_empty() || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((t, n.parse().ok()?))
    })
}

/// The column names a table of ours has, in order (history gains `id` under --force_pk).
pub fn column_names(t: &TableDef, force_pk: bool) -> Vec<&'static str> {
    let id = (t.name == "history" && force_pk).then_some(HISTORY_ID_COLUMN.0);
    id.into_iter()
        .chain(t.columns.iter().map(|(c, _)| *c))
        .collect()
}

/// The storage engine must be a plain word: it is spliced into CREATE TABLE.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--mysql_storage_engine={0:?} is not a storage engine name (letters, digits and _ only)")]
pub struct BadStorageEngine(pub String);

/// `CREATE TABLE` of `t` in `set`, with the options' engine and table options.
pub fn create_table_sql(
    t: &TableDef,
    set: u32,
    o: &TpccOptions,
) -> Result<String, BadStorageEngine> {
    let engine = &o.storage_engine;
    if engine.is_empty()
        || !engine
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return Err(BadStorageEngine(engine.clone()));
    }
    let mut lines: Vec<String> = Vec::with_capacity(t.columns.len() + 2);
    if t.name == "history" && o.force_pk {
        lines.push(format!("{} {}", HISTORY_ID_COLUMN.0, HISTORY_ID_COLUMN.1));
    }
    lines.extend(t.columns.iter().map(|(c, ty)| format!("{c} {ty}")));
    if t.name == "history" {
        if o.force_pk {
            lines.push(format!("PRIMARY KEY({})", HISTORY_ID_COLUMN.0));
        }
    } else {
        lines.push(format!("PRIMARY KEY({})", t.primary_key));
    }
    Ok(format!(
        "CREATE TABLE {} (\n  {}\n) ENGINE = {engine} {}",
        table_name(t.name, set),
        lines.join(",\n  "),
        o.table_options
    ))
}

/// The secondary indexes of one table in `set`, as one ALTER TABLE (None when the
/// table has none): one pass over the loaded rows builds them all.
pub fn add_indexes_sql(table: &str, set: u32) -> Option<String> {
    let adds: Vec<String> = INDEXES
        .iter()
        .filter(|i| i.table == table)
        .map(|i| format!("ADD INDEX {}{set} ({})", i.name, i.columns))
        .collect();
    (!adds.is_empty())
        .then(|| format!("ALTER TABLE {} {}", table_name(table, set), adds.join(", ")))
}

/// The foreign keys of one table in `set`, as one ALTER TABLE (None when it has none).
pub fn add_foreign_keys_sql(table: &str, set: u32) -> Option<String> {
    let adds: Vec<String> = FOREIGN_KEYS
        .iter()
        .filter(|f| f.table == table)
        .map(|f| {
            format!(
                "ADD CONSTRAINT {}_{set} FOREIGN KEY({}) REFERENCES {}({})",
                f.name,
                f.columns,
                table_name(f.parent, set),
                f.parent_columns
            )
        })
        .collect();
    (!adds.is_empty())
        .then(|| format!("ALTER TABLE {} {}", table_name(table, set), adds.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_parse_back_with_their_set() {
        let (t, set) = parse_table_name("order_line12").unwrap();
        assert_eq!((t.name, set), ("order_line", 12));
        // "orders" is not "order_line", and "new_orders3" is not "orders".
        assert_eq!(parse_table_name("orders3").unwrap().0.name, "orders");
        assert_eq!(
            parse_table_name("new_orders3").unwrap().0.name,
            "new_orders"
        );
        assert!(parse_table_name("warehouse").is_none());
        assert!(parse_table_name("warehouse01").is_none());
        assert!(parse_table_name("sbtest1").is_none());
        assert!(parse_table_name("stock1_old").is_none());
    }

    #[test]
    fn history_has_a_key_only_under_force_pk() {
        let history = TABLES.iter().find(|t| t.name == "history").unwrap();
        let plain = create_table_sql(history, 1, &TpccOptions::default()).unwrap();
        assert!(!plain.contains("PRIMARY KEY"), "{plain}");
        let o = TpccOptions {
            force_pk: true,
            ..Default::default()
        };
        let keyed = create_table_sql(history, 1, &o).unwrap();
        assert!(keyed.contains("id int NOT NULL AUTO_INCREMENT"), "{keyed}");
        assert!(keyed.contains("PRIMARY KEY(id)"), "{keyed}");
        assert_eq!(column_names(history, true)[0], "id");
    }

    #[test]
    fn engine_and_table_options_are_appended() {
        let o = TpccOptions {
            storage_engine: "MyISAM".into(),
            table_options: "COLLATE latin1_bin".into(),
            ..Default::default()
        };
        let sql = create_table_sql(&TABLES[0], 2, &o).unwrap();
        assert!(sql.starts_with("CREATE TABLE warehouse2 ("), "{sql}");
        assert!(sql.ends_with("ENGINE = MyISAM COLLATE latin1_bin"), "{sql}");
        let bad = TpccOptions {
            storage_engine: "innodb; DROP TABLE x".into(),
            ..Default::default()
        };
        assert!(create_table_sql(&TABLES[0], 1, &bad).is_err());
    }

    #[test]
    fn every_foreign_key_is_served_by_a_key_or_an_index() {
        for f in &FOREIGN_KEYS {
            let table = TABLES.iter().find(|t| t.name == f.table).unwrap();
            let pk = table.primary_key.replace(' ', "");
            let served = pk.starts_with(f.columns)
                || INDEXES
                    .iter()
                    .any(|i| i.table == f.table && i.columns.starts_with(f.columns));
            assert!(served, "{} would make an index of its own", f.name);
        }
    }

    #[test]
    fn index_and_key_statements_name_the_set() {
        assert_eq!(
            add_indexes_sql("history", 3).unwrap(),
            "ALTER TABLE history3 ADD INDEX fkey_history_13 (h_c_w_id,h_c_d_id,h_c_id), \
             ADD INDEX fkey_history_23 (h_w_id,h_d_id)"
        );
        assert!(add_indexes_sql("item", 1).is_none());
        assert_eq!(
            add_foreign_keys_sql("district", 2).unwrap(),
            "ALTER TABLE district2 ADD CONSTRAINT fkey_district_1_2 FOREIGN KEY(d_w_id) REFERENCES warehouse2(w_id)"
        );
        assert!(add_foreign_keys_sql("item", 1).is_none());
    }
}
