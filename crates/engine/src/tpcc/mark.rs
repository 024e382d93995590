//! DB Dyno's mark on a TPC-C set it loaded: the comment of the set's `warehouseN` table,
//! naming DB Dyno and the plan's shape of the dataset.
//!
//! sysbench-tpcc's tables have the very same columns (the schema is the reference's,
//! statement for statement), so only the mark tells whose a set is. It is written last,
//! after every row, index and foreign key of the set is in, with an ALTER TABLE of the
//! smallest table (`scale` rows): a prepare that was cut short leaves no mark, and its
//! tables are not reused. The other eight tables carry no comment, so their
//! `SHOW CREATE TABLE` stays the reference's.

use super::options::TpccOptions;
use crate::phases::mark::{made_now, made_text, on_off, switch, words};

/// What every TPC-C mark starts with (the OLTP mark, `phases::mark`, has no `tpcc`
/// word, so neither reads the other's).
const PREFIX: &str = "made by DB Dyno: tpcc";

/// The dataset's shape as the plan that loaded a set had it, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TpccMark {
    /// Sets of tables the plan loaded (`--tables`).
    pub sets: u32,
    /// Warehouses per set (`--scale`).
    pub scale: u32,
    pub use_fk: bool,
    pub force_pk: bool,
    /// The storage engine named in the CREATE (lower case).
    pub engine: String,
    /// `--mysql_table_options`, as a 64-bit FNV-1a hash in hex ("none" when empty): the
    /// options are free text, which a comment should not have to quote.
    pub table_options: String,
    /// When prepare finished loading, UTC, `2026-12-02T01:59:56Z`.
    pub made: String,
}

impl TpccMark {
    /// The mark prepare writes now for a plan over `o`.
    pub fn now(o: &TpccOptions) -> TpccMark {
        TpccMark {
            made: made_now(),
            ..TpccMark::shape_of(o)
        }
    }

    fn shape_of(o: &TpccOptions) -> TpccMark {
        TpccMark {
            sets: o.tables,
            scale: o.scale,
            use_fk: o.use_fk,
            force_pk: o.force_pk,
            engine: o.storage_engine.to_ascii_lowercase(),
            table_options: options_hash(&o.table_options),
            made: String::new(),
        }
    }

    /// The table comment: plain ASCII without quotes, so it goes into the DDL as written.
    pub fn comment(&self) -> String {
        format!(
            "{PREFIX} sets={} scale={} use_fk={} force_pk={} engine={} table_options={} made={}",
            self.sets,
            self.scale,
            on_off(self.use_fk),
            on_off(self.force_pk),
            self.engine,
            self.table_options,
            self.made
        )
    }

    /// The mark in a table comment; None when the comment is not a DB Dyno TPC-C mark
    /// (sysbench-tpcc writes none) or is incomplete.
    pub fn parse(comment: &str) -> Option<TpccMark> {
        let rest = comment.trim().strip_prefix(PREFIX)?;
        if !rest.starts_with(' ') {
            return None;
        }
        let mut m = TpccMark {
            sets: 0,
            scale: 0,
            use_fk: false,
            force_pk: false,
            engine: String::new(),
            table_options: String::new(),
            made: String::new(),
        };
        let mut seen = 0;
        for (k, v) in words(rest)? {
            match k {
                "sets" => m.sets = v.parse().ok()?,
                "scale" => m.scale = v.parse().ok()?,
                "use_fk" => m.use_fk = switch(v)?,
                "force_pk" => m.force_pk = switch(v)?,
                "engine" => m.engine = v.to_string(),
                "table_options" => m.table_options = v.to_string(),
                "made" => m.made = v.to_string(),
                // A later DB Dyno may say more: what this one knows still decides.
                _ => continue,
            }
            seen += 1;
        }
        (seen == 7).then_some(m)
    }

    /// How this mark's shape differs from what a plan over `o` wants, in words; empty
    /// when it is the same.
    pub fn differences(&self, o: &TpccOptions) -> Vec<String> {
        let want = TpccMark::shape_of(o);
        let on = |b: bool| on_off(b).to_string();
        [
            ("tables", self.sets.to_string(), want.sets.to_string()),
            ("scale", self.scale.to_string(), want.scale.to_string()),
            ("use_fk", on(self.use_fk), on(want.use_fk)),
            ("force_pk", on(self.force_pk), on(want.force_pk)),
            ("engine", self.engine.clone(), want.engine),
            (
                "table options",
                self.table_options.clone(),
                want.table_options,
            ),
        ]
        .into_iter()
        .filter(|(_, had, wants)| had != wants)
        .map(|(what, had, wants)| format!("{what} {had} (the plan's: {wants})"))
        .collect()
    }

    /// "2026-12-02 01:59 UTC".
    pub fn made_text(&self) -> String {
        made_text(&self.made)
    }
}

/// 64-bit FNV-1a of the table options, in hex; "none" for no options.
fn options_hash(options: &str) -> String {
    let options = options.trim();
    if options.is_empty() {
        return "none".into();
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in options.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_reads_back_and_names_what_differs() {
        let o = TpccOptions {
            scale: 2,
            tables: 1,
            ..TpccOptions::default()
        };
        let m = TpccMark::now(&o);
        let text = m.comment();
        assert!(
            text.starts_with("made by DB Dyno: tpcc sets=1 scale=2 use_fk=on force_pk=off engine=innodb table_options=none made=20"),
            "{text}"
        );
        assert!(!text.contains('\'') && text.len() < 2048);
        assert_eq!(TpccMark::parse(&text), Some(m.clone()));
        assert!(m.differences(&o).is_empty());
        let bigger = TpccOptions {
            scale: 10,
            ..o.clone()
        };
        assert_eq!(m.differences(&bigger), ["scale 2 (the plan's: 10)"]);
        let compressed = TpccOptions {
            table_options: "ROW_FORMAT=COMPRESSED".into(),
            ..o.clone()
        };
        assert_eq!(m.differences(&compressed).len(), 1);
        assert!(m.differences(&compressed)[0].starts_with("table options none (the plan's: "));
        // The OLTP mark, sysbench-tpcc's empty comment and anyone's comment are no mark.
        let oltp = crate::phases::mark::TableMark::now(&Default::default()).comment();
        assert_eq!(TpccMark::parse(&oltp), None);
        assert_eq!(crate::phases::mark::TableMark::parse(&text), None);
        assert_eq!(TpccMark::parse(""), None);
        assert_eq!(TpccMark::parse("made by DB Dyno: tpccx sets=1"), None);
        assert_eq!(TpccMark::parse(&text.replace("scale=2", "scale=two")), None);
    }
}
