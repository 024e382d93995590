//! prepare: create the sbtest tables and load them.
//!
//! sysbench loads one table per thread, so one big table loads on one thread. Here the
//! rows of every table are cut into chunks that all threads pull from a shared queue,
//! so the load is parallel across tables and within a table ([`super::oltp_load`]:
//! how rows travel, in which order), and the secondary index on `k` of each table is
//! built after its rows (cheaper than maintaining it row by row), as sysbench does.
//! A prepare that was cut short is continued with `prepare = "resume"`: the tables
//! that are complete and verified are kept.

use std::collections::BTreeMap;
use std::time::Instant;

use super::mark::TableMark;
use super::oltp_load::{self, LoadTimes};
use super::schema::{self, TableInfo, TableShape};
use super::verify::{resume_oltp_tables, verify_oltp_tables, FoundTables, ResumeTables};
use super::{PrepareMode, PrepareReport};
use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::plan::ConnectOptions;
use crate::workload::{sql, Scenario, WorkloadOptions};

/// Prepares the dataset `scenario` reads. With `mode` if-missing (or never), the OLTP
/// tables DB Dyno made earlier in the plan's shape are reused, and nothing is loaded;
/// with always, DB Dyno's own tables are dropped and loaded again. Tables DB Dyno did
/// not make are refused in every mode.
#[allow(clippy::too_many_arguments)]
pub fn prepare(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    scenario: Scenario,
    threads: u32,
    mode: PrepareMode,
    force: bool,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<PrepareReport, EngineError> {
    if scenario.is_tpcc() {
        return crate::tpcc::load::prepare(connect, &w.tpcc, threads, mode, force, events, cancel);
    }
    let started = Instant::now();
    let mut conn = driver::connect(connect)?;
    let existing = schema::list_tables(&mut conn)?;

    if scenario.uses_bulk_tables() {
        prepare_bulk(&mut conn, &existing, threads, events)?;
        return Ok(PrepareReport {
            tables: threads,
            threads,
            seconds: started.elapsed().as_secs_f64(),
            ..Default::default()
        });
    }

    // Every refusal happens before the first DROP or CREATE: bad input leaves the
    // schema as it was.
    refuse_foreign_tables(&existing, connect, force)?;
    let to_load: Vec<u32> = if mode == PrepareMode::Resume {
        match resume_oltp_tables(&mut conn, &existing, w)? {
            Ok(resume) => {
                say_resume(&resume, w, events);
                for &(t, _) in &resume.reload {
                    drop_table(&mut conn, t, events)?;
                }
                if !resume.index_only.is_empty() {
                    oltp_load::build_indexes(
                        connect,
                        w,
                        &resume.index_only,
                        threads,
                        events,
                        cancel,
                    )?;
                }
                resume.to_load()
            }
            Err(refusal) => return Err(refusal_error(refusal, &existing, scenario, w)),
        }
    } else {
        match verify_oltp_tables(&mut conn, &existing, w)? {
            FoundTables::Absent => {}
            FoundTables::Reusable(_) | FoundTables::OursOtherShape { .. }
                if mode == PrepareMode::Always =>
            {
                drop_our_tables(&mut conn, &existing, w, events)?;
            }
            FoundTables::Reusable(reused) => {
                events.message(reused.line());
                return Ok(PrepareReport {
                    tables: w.tables,
                    threads,
                    seconds: started.elapsed().as_secs_f64(),
                    reused: Some(reused),
                    ..Default::default()
                });
            }
            refusal => return Err(refusal_error(refusal, &existing, scenario, w)),
        }
        (1..=w.tables).collect()
    };
    let mark = TableMark::now(w).comment();
    for &t in &to_load {
        events.message(format!("Creating table 'sbtest{t}'..."));
        let create = format!("{} COMMENT='{mark}'", sql::create_oltp_table(t, w));
        driver::admin_exec(&mut conn, "CREATE TABLE", &create)?;
    }
    let total_rows = w.table_size * to_load.len() as u64;
    let loaders = oltp_load::loaders(&mut conn, threads, to_load.len(), events);
    if w.table_size > 0 && !to_load.is_empty() {
        events.message(format!(
            "Inserting {} into {} with {}",
            crate::wording::count(w.table_size as f64, "record"),
            crate::wording::count(to_load.len() as u32, "table"),
            crate::wording::count(loaders, "thread")
        ));
    }
    let LoadTimes {
        load_seconds,
        index_seconds,
    } = oltp_load::load_tables(connect, w, &to_load, loaders, events, cancel)?;
    if cancel.is_cancelled() {
        return Err(EngineError::Refused(
            "prepare was cancelled; the tables are partly loaded: prepare = \"resume\" (--resume) keeps the complete ones and loads the rest, cleanup removes them".into(),
        ));
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(PrepareReport {
        tables: w.tables,
        rows: total_rows,
        seconds,
        rows_per_sec: if seconds > 0.0 {
            total_rows as f64 / seconds
        } else {
            0.0
        },
        index_seconds,
        threads: loaders,
        load_seconds,
        reused: None,
    })
}

/// The error for a verdict prepare will not act on, with what the user can do.
fn refusal_error(
    found: FoundTables,
    existing: &BTreeMap<String, TableInfo>,
    scenario: Scenario,
    w: &WorkloadOptions,
) -> EngineError {
    EngineError::Refused(match found {
        FoundTables::OursOtherShape { why } => format!(
            "{why}: prepare reuses DB Dyno's tables only in the plan's shape. prepare = \"resume\" (--resume) keeps the complete tables and loads the rest; prepare = \"always\" (--prepare=always) drops DB Dyno's tables and loads them again; or run cleanup first (dbdyno {scenario} --tables={} … cleanup)",
            w.tables
        ),
        FoundTables::Foreign { table, why } => {
            if existing.get(&table).map(|i| i.shape) == Some(TableShape::Oltp) {
                format!(
                    "{why}, so prepare neither reuses nor drops it. Run cleanup first (dbdyno {scenario} --tables={} … cleanup), run without prepare (prepare = \"never\") to read the tables as they are, or use another schema",
                    w.tables
                )
            } else {
                format!("{why}; it is not a benchmark table, so DB Dyno will not touch it. Rename it or use another schema")
            }
        }
        FoundTables::Absent | FoundTables::Reusable(_) => {
            "internal: prepare refused a dataset it can use".to_string()
        }
    })
}

/// The lines a resumed prepare starts with: what it keeps and what it loads again.
fn say_resume(r: &ResumeTables, w: &WorkloadOptions, events: &EventSink) {
    let names = |v: &[u32]| {
        v.iter()
            .map(|t| sql::table_name(*t))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !r.keep.is_empty() {
        events.message(format!(
            "Resuming: keeping {} of {} ({}), complete and verified",
            crate::wording::count(r.keep.len() as u32, "table"),
            w.tables,
            names(&r.keep)
        ));
    }
    if !r.index_only.is_empty() {
        events.message(format!(
            "Resuming: {} {} every row but not the secondary index; building it",
            names(&r.index_only),
            if r.index_only.len() == 1 {
                "has"
            } else {
                "have"
            }
        ));
    }
    for (t, why) in &r.reload {
        events.message(format!(
            "Resuming: {} is incomplete ({why}); loading it again",
            sql::table_name(*t)
        ));
    }
    if r.keep.is_empty() && r.index_only.is_empty() && r.reload.is_empty() {
        events.message("Resuming: none of the tables is there yet; loading them all");
    }
}

fn drop_table(conn: &mut mysql::Conn, t: u32, events: &EventSink) -> Result<(), EngineError> {
    let name = sql::table_name(t);
    events.message(format!("Dropping table '{name}'..."));
    driver::admin_exec(conn, "DROP TABLE", &format!("DROP TABLE `{name}`"))
}

/// prepare = "always": drops the plan's tables, which the verifier found DB Dyno's own
/// (marked) before this is called; an unmarked one is left alone all the same.
fn drop_our_tables(
    conn: &mut mysql::Conn,
    existing: &BTreeMap<String, TableInfo>,
    w: &WorkloadOptions,
    events: &EventSink,
) -> Result<(), EngineError> {
    for t in 1..=w.tables {
        let name = sql::table_name(t);
        if existing.get(&name).is_some_and(|i| i.mark.is_some()) {
            events.message(format!(
                "Dropping table '{name}' (made by DB Dyno; prepare = always loads it again)..."
            ));
            driver::admin_exec(conn, "DROP TABLE", &format!("DROP TABLE `{name}`"))?;
        }
    }
    Ok(())
}

/// bulk_insert.lua's prepare: one (id, k) table per thread, CREATE IF NOT EXISTS.
fn prepare_bulk(
    conn: &mut mysql::Conn,
    existing: &BTreeMap<String, TableInfo>,
    threads: u32,
    events: &EventSink,
) -> Result<(), EngineError> {
    for t in 1..=threads {
        let name = sql::table_name(t);
        if let Some(info) = existing.get(&name) {
            if info.shape != TableShape::Bulk {
                return Err(EngineError::Refused(format!(
                    "table {name} exists with another shape ({}); bulk_insert needs (id, k). Use another schema or clean up first",
                    schema::describe_columns(&info.columns)
                )));
            }
        }
    }
    for t in 1..=threads {
        events.message(format!("Creating table 'sbtest{t}'..."));
        driver::admin_exec(
            conn,
            "creating a bulk_insert table",
            &sql::create_bulk_table(t),
        )?;
    }
    Ok(())
}

/// Refuses to load next to tables that are not benchmark tables, unless `force`.
fn refuse_foreign_tables(
    existing: &BTreeMap<String, TableInfo>,
    connect: &ConnectOptions,
    force: bool,
) -> Result<(), EngineError> {
    // TPC-C's tables are benchmark tables too: a ladder of both prepares both.
    let foreign = crate::tpcc::foreign_tables(existing);
    if !foreign.is_empty() && !force {
        return Err(EngineError::Refused(format!(
            "schema '{}' holds tables that are not benchmark tables: {}. DB Dyno only creates and drops sbtest1..N, but it will not load test data next to real data unless you pass --force (or use an empty schema)",
            connect.database,
            foreign.join(", ")
        )));
    }
    Ok(())
}
