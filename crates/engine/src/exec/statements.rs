//! One connection's statements: prepared once per table and class (as sysbench's
//! `thread_init` does), then executed with fresh random parameters.

use mysql::prelude::Queryable;
use mysql::{Conn, Params, Statement, Value};

use crate::workload::rand::SbRand;
use crate::workload::values::{fill_template, C_TEMPLATE, PAD_TEMPLATE};
use crate::workload::{sql, PsMode, Scenario, StatementClass, WorkloadOptions};

/// Parameters of one statement execution, drawn by the caller so that a DELETE and
/// the INSERT after it share their id, as in `execute_delete_inserts()`.
#[derive(Debug, Clone, Copy)]
pub struct Draw {
    pub table: u32,
    pub id: i64,
}

pub struct Statements {
    /// `prepared[table - 1][class.index()]`.
    prepared: Vec<Vec<Option<Statement>>>,
    begin: Option<Statement>,
    commit: Option<Statement>,
    /// Reused buffers: no allocation per row value in the hot loop beyond the driver's own.
    c_buf: String,
    pad_buf: String,
    text_buf: String,
}

impl Statements {
    /// Prepares every class of `classes` for every table. Fails like sysbench when the
    /// server refuses (max_prepared_stmt_count reached: error 1461).
    pub fn prepare(
        conn: &mut Conn,
        scenario: Scenario,
        classes: &[StatementClass],
        explicit_trx: bool,
        o: &WorkloadOptions,
    ) -> Result<Statements, (StatementClass, mysql::Error, String)> {
        let tables = if scenario.single_table_only() {
            1
        } else {
            o.tables
        };
        let mut prepared = Vec::with_capacity(tables as usize);
        for t in 1..=tables {
            let mut row: Vec<Option<Statement>> = vec![None; StatementClass::COUNT];
            if o.ps_mode == PsMode::Auto {
                for &class in classes {
                    if !sql::is_prepared(scenario, class) {
                        continue;
                    }
                    if let Some(text) = sql::statement_text(class, t, o) {
                        let stmt = conn.prep(&text).map_err(|e| (class, e, text.clone()))?;
                        row[class.index()] = Some(stmt);
                    }
                }
            }
            prepared.push(row);
        }
        let (mut begin, mut commit) = (None, None);
        if explicit_trx && o.ps_mode == PsMode::Auto {
            // sysbench prepares BEGIN and COMMIT too and falls back to plain queries when
            // the server cannot prepare them (error 1295, "not supported in the prepared
            // statement protocol").
            begin = prepare_optional(conn, "BEGIN", StatementClass::Begin)?;
            commit = prepare_optional(conn, "COMMIT", StatementClass::Commit)?;
        }
        Ok(Statements {
            prepared,
            begin,
            commit,
            c_buf: String::with_capacity(128),
            pad_buf: String::with_capacity(64),
            text_buf: String::with_capacity(256),
        })
    }

    /// Executes one statement and reads its response. Rows are counted by the driver
    /// and never decoded (`exec_drain`, vendor/mysql/PATCH.md): the counters count
    /// statements, as sysbench's do, and decoding values only to drop them was half of
    /// the client's own CPU on range selects.
    pub fn execute(
        &mut self,
        conn: &mut Conn,
        class: StatementClass,
        d: Draw,
        rng: &mut SbRand,
        o: &WorkloadOptions,
    ) -> Result<(), mysql::Error> {
        use StatementClass::*;
        match class {
            Begin => return run_control(conn, self.begin.as_ref(), "BEGIN"),
            Commit => return run_control(conn, self.commit.as_ref(), "COMMIT"),
            _ => {}
        }
        let params: Vec<Value> = match class {
            PointSelect | IndexUpdate | Delete => vec![Value::Int(d.id)],
            SimpleRange | SumRange | OrderRange | DistinctRange => {
                vec![Value::Int(d.id), Value::Int(d.id + o.range_size as i64 - 1)]
            }
            NonIndexUpdate => {
                fill_template(rng, C_TEMPLATE, &mut self.c_buf);
                vec![
                    Value::Bytes(self.c_buf.as_bytes().to_vec()),
                    Value::Int(d.id),
                ]
            }
            Insert => {
                let k = rng.default_dist(1, o.table_size.max(1)) as i64;
                fill_template(rng, C_TEMPLATE, &mut self.c_buf);
                fill_template(rng, PAD_TEMPLATE, &mut self.pad_buf);
                vec![
                    Value::Int(d.id),
                    Value::Int(k),
                    Value::Bytes(self.c_buf.as_bytes().to_vec()),
                    Value::Bytes(self.pad_buf.as_bytes().to_vec()),
                ]
            }
            RandomPoints => (0..o.random_points.max(1))
                .map(|_| Value::Int(d.id_in_thread_range(rng)))
                .collect(),
            RandomRanges => {
                let mut v = Vec::with_capacity(o.number_of_ranges as usize * 2);
                for _ in 0..o.number_of_ranges.max(1) {
                    let lo = d.id_in_thread_range(rng);
                    v.push(Value::Int(lo));
                    v.push(Value::Int(lo + o.delta as i64));
                }
                v
            }
            Begin | Commit | BulkInsert => unreachable!("handled elsewhere"),
        };
        let stmt = self.prepared[(d.table - 1) as usize][class.index()].as_ref();
        match stmt {
            Some(stmt) => conn.exec_drain(stmt, Params::Positional(params)).map(drop),
            None => {
                // Text protocol: --db-ps-mode=disable, and oltp_insert's plain query.
                let text = sql::statement_text(class, d.table, o).unwrap_or_default();
                render_text(&text, &params, &mut self.text_buf);
                conn.query_drain(&self.text_buf).map(drop)
            }
        }
    }
}

impl Draw {
    /// select_random_points/ranges draw from the worker's own slice of the table, as
    /// their Lua scripts do (`rlen = table_size / threads`). The slice is packed into
    /// `id`: the caller stores `rmin` there and the slice length in the table field's
    /// place is not needed, so the worker passes both through [`SliceDraw`].
    fn id_in_thread_range(&self, rng: &mut SbRand) -> i64 {
        let (rmin, rlen) = SliceDraw::unpack(self.id);
        rng.default_dist(rmin, rmin + rlen) as i64
    }
}

/// Packs a worker's (rmin, rlen) slice into one i64 for the two single-table scripts.
pub struct SliceDraw;

impl SliceDraw {
    pub fn pack(rmin: u64, rlen: u64) -> i64 {
        ((rmin << 32) | (rlen & 0xFFFF_FFFF)) as i64
    }

    fn unpack(v: i64) -> (u64, u64) {
        let v = v as u64;
        (v >> 32, v & 0xFFFF_FFFF)
    }
}

fn prepare_optional(
    conn: &mut Conn,
    text: &str,
    class: StatementClass,
) -> Result<Option<Statement>, (StatementClass, mysql::Error, String)> {
    match conn.prep(text) {
        Ok(s) => Ok(Some(s)),
        Err(mysql::Error::MySqlError(me)) if me.code == 1295 => Ok(None),
        Err(e) => Err((class, e, text.to_string())),
    }
}

fn run_control(conn: &mut Conn, stmt: Option<&Statement>, text: &str) -> Result<(), mysql::Error> {
    match stmt {
        Some(s) => conn.exec_drain(s, ()).map(drop),
        None => conn.query_drain(text).map(drop),
    }
}

/// Substitutes `?` placeholders with literals. Values here are integers and sysbench's
/// digit-and-dash strings, so quoting needs no escaping beyond the quotes themselves.
pub fn render_text(template: &str, params: &[Value], out: &mut String) {
    use std::fmt::Write;
    out.clear();
    let mut values = params.iter();
    for ch in template.chars() {
        if ch == '?' {
            match values.next() {
                Some(Value::Int(i)) => {
                    let _ = write!(out, "{i}");
                }
                Some(Value::Bytes(b)) => {
                    out.push('\'');
                    for &c in b {
                        if c == b'\'' || c == b'\\' {
                            out.push('\\');
                        }
                        out.push(c as char);
                    }
                    out.push('\'');
                }
                Some(other) => out.push_str(&other.as_sql(false)),
                None => out.push('?'),
            }
        } else {
            out.push(ch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering_fills_placeholders() {
        let mut out = String::new();
        render_text(
            "UPDATE sbtest1 SET c=? WHERE id=?",
            &[Value::Bytes(b"12-34".to_vec()), Value::Int(7)],
            &mut out,
        );
        assert_eq!(out, "UPDATE sbtest1 SET c='12-34' WHERE id=7");
    }

    #[test]
    fn slice_packing_round_trips() {
        let v = SliceDraw::pack(250_000, 125_000);
        assert_eq!(SliceDraw::unpack(v), (250_000, 125_000));
    }
}
