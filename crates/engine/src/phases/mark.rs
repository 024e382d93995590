//! DB Dyno's mark on the tables it makes: a table comment naming DB Dyno and the plan's
//! shape of the dataset.
//!
//! sysbench's tables have the very same columns, so the columns cannot tell whose a
//! table is. The mark can: prepare reuses, or drops and loads again, only tables that
//! carry it, and leaves every other table alone.

use crate::workload::WorkloadOptions;

/// What every mark starts with.
const PREFIX: &str = "made by DB Dyno:";

/// The dataset's shape as the plan that made a table had it, and when it was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMark {
    /// The number of tables of the set (`--tables`).
    pub tables: u32,
    /// Rows loaded into each (`--table-size`): ids 1..table_size.
    pub table_size: u64,
    pub auto_inc: bool,
    /// `--secondary`: id on a secondary key instead of the primary key.
    pub secondary: bool,
    /// `--create-secondary`: the index on k was built.
    pub k_index: bool,
    /// The storage engine named in the CREATE (lower case).
    pub engine: String,
    /// When prepare made it, UTC, `2026-12-02T01:59:56Z`.
    pub made: String,
}

impl TableMark {
    /// The mark prepare writes now for a plan over `w`.
    pub fn now(w: &WorkloadOptions) -> TableMark {
        TableMark {
            made: made_now(),
            ..TableMark::shape_of(w)
        }
    }

    /// The shape a plan over `w` wants (no date).
    fn shape_of(w: &WorkloadOptions) -> TableMark {
        TableMark {
            tables: w.tables,
            table_size: w.table_size,
            auto_inc: w.auto_inc,
            secondary: w.secondary,
            k_index: w.create_secondary,
            engine: w.mysql_storage_engine.to_ascii_lowercase(),
            made: String::new(),
        }
    }

    /// The table comment (well under the 2048 characters a comment may hold; plain
    /// ASCII, no quote, so it goes into the DDL as written).
    pub fn comment(&self) -> String {
        format!(
            "{PREFIX} tables={} table_size={} auto_inc={} secondary={} k_index={} engine={} made={}",
            self.tables,
            self.table_size,
            on_off(self.auto_inc),
            on_off(self.secondary),
            on_off(self.k_index),
            self.engine,
            self.made
        )
    }

    /// The mark in a table comment; None when the comment is not DB Dyno's (sysbench
    /// writes none) or is incomplete.
    pub fn parse(comment: &str) -> Option<TableMark> {
        let rest = comment.trim().strip_prefix(PREFIX)?;
        let mut m = TableMark {
            tables: 0,
            table_size: 0,
            auto_inc: false,
            secondary: false,
            k_index: false,
            engine: String::new(),
            made: String::new(),
        };
        let mut seen = 0;
        for (k, v) in words(rest)? {
            match k {
                "tables" => m.tables = v.parse().ok()?,
                "table_size" => m.table_size = v.parse().ok()?,
                "auto_inc" => m.auto_inc = switch(v)?,
                "secondary" => m.secondary = switch(v)?,
                "k_index" => m.k_index = switch(v)?,
                "engine" => m.engine = v.to_string(),
                "made" => m.made = v.to_string(),
                // A later DB Dyno may say more: what this one knows still decides.
                _ => continue,
            }
            seen += 1;
        }
        (seen == 7).then_some(m)
    }

    /// How this mark's shape differs from what a plan over `w` wants, in words; empty
    /// when it is the same.
    pub fn differences(&self, w: &WorkloadOptions) -> Vec<String> {
        let want = TableMark::shape_of(w);
        let mut out = Vec::new();
        let mut differ = |what: &str, had: String, wants: String| {
            if had != wants {
                out.push(format!("{what} {had} (the plan's: {wants})"));
            }
        };
        differ("tables", self.tables.to_string(), want.tables.to_string());
        differ(
            "table_size",
            self.table_size.to_string(),
            want.table_size.to_string(),
        );
        let on = |b: bool| on_off(b).to_string();
        differ("auto_inc", on(self.auto_inc), on(want.auto_inc));
        differ("secondary", on(self.secondary), on(want.secondary));
        differ("create_secondary", on(self.k_index), on(want.k_index));
        differ("engine", self.engine.clone(), want.engine);
        out
    }

    /// "2026-12-02 01:59 UTC", for the lines that say the tables are reused.
    pub fn made_text(&self) -> String {
        made_text(&self.made)
    }
}

// The words of every mark (this one and TPC-C's, `tpcc::mark`).

/// The `key=value` words after a mark's prefix; None when a word is not one.
pub(crate) fn words(rest: &str) -> Option<Vec<(&str, &str)>> {
    rest.split_whitespace().map(|w| w.split_once('=')).collect()
}

pub(crate) fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

pub(crate) fn switch(v: &str) -> Option<bool> {
    match v {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// Now, as a mark's `made=` says it: `2026-12-02T01:59:56Z`.
pub(crate) fn made_now() -> String {
    crate::utc::rfc3339(crate::utc::now_ms())
}

/// `2026-12-02T01:59:56Z` as "2026-12-02 01:59 UTC".
pub(crate) fn made_text(made: &str) -> String {
    match (made.get(..10), made.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time} UTC"),
        _ => made.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_reads_back_and_names_what_differs() {
        let w = WorkloadOptions {
            tables: 4,
            table_size: 10_000,
            ..Default::default()
        };
        let m = TableMark::now(&w);
        let text = m.comment();
        assert!(
            text.starts_with("made by DB Dyno: tables=4 table_size=10000 "),
            "{text}"
        );
        assert!(!text.contains('\'') && text.len() < 2048);
        assert_eq!(TableMark::parse(&text), Some(m.clone()));
        assert!(m.differences(&w).is_empty());
        let bigger = WorkloadOptions {
            table_size: 20_000,
            ..w.clone()
        };
        assert_eq!(
            m.differences(&bigger),
            ["table_size 10000 (the plan's: 20000)"]
        );
        // sysbench writes no comment; anyone else's comment is no mark.
        assert_eq!(TableMark::parse(""), None);
        assert_eq!(TableMark::parse("orders of 2024"), None);
        assert_eq!(TableMark::parse("made by DB Dyno: tables=4"), None);
        assert_eq!(
            TableMark::parse(&text.replace("tables=4", "tables=four")),
            None
        );
        assert_eq!(m.made_text().len(), "2026-12-02 01:59 UTC".len());
    }
}
