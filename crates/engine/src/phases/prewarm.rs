//! prewarm: read every benchmark table's primary and secondary index into the buffer
//! pool, as sysbench's `cmd_prewarm` does, then report the buffer pool hit rate. The
//! plan's scenarios say whose tables ([`PrewarmDataset`]): the OLTP tables here,
//! TPC-C's in [`crate::tpcc::prewarm`], both for a ladder of both kinds.
//!
//! Optionally repeat until the pass itself stops missing the buffer pool: the hit rate
//! over one pass (status deltas) reaching the threshold means the data is resident.

use std::time::Instant;

use mysql::prelude::Queryable;

use super::PrewarmReport;
use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::EventSink;
use crate::plan::{ConnectOptions, PrewarmDataset, PrewarmOptions};
use crate::workload::WorkloadOptions;

pub fn prewarm(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    opts: &PrewarmOptions,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<PrewarmReport, EngineError> {
    let started = Instant::now();
    let mut status_conn = driver::connect(connect)?;
    let mut reached = None;
    let mut passes = 0;
    let window = loop {
        let before = driver::global_status(&mut status_conn)?;
        one_pass(connect, w, opts.threads, opts.dataset, events, cancel)?;
        passes += 1;
        let after = driver::global_status(&mut status_conn)?;
        let window = driver::hit_rate_pct(Some(&before), &after);
        let Some(threshold) = opts.until_hit_rate else {
            break window;
        };
        let ok = window.is_some_and(|h| h >= threshold);
        reached = Some(ok);
        if ok {
            events.message(format!(
                "prewarm: buffer pool hit rate {:.2}% over the last pass reached the {threshold}% asked for after {passes} pass{} ({:.1}s)",
                window.unwrap_or(0.0),
                if passes == 1 { "" } else { "es" },
                started.elapsed().as_secs_f64()
            ));
            break window;
        }
        if cancel.is_cancelled() {
            break window;
        }
        if started.elapsed().as_secs() >= opts.max_wait_s {
            events.warning(format!(
                "prewarm: gave up waiting after {:.1}s and {passes} pass{} (the maximum wait is {}s): buffer pool hit rate {:.2}% over the last pass, below the {threshold}% asked for; the data may not fit in the buffer pool",
                started.elapsed().as_secs_f64(),
                if passes == 1 { "" } else { "es" },
                opts.max_wait_s,
                window.unwrap_or(0.0),
            ));
            break window;
        }
        events.message(format!(
            "Buffer pool hit rate over the last pass: {:.2}% (waiting for {threshold}%)",
            window.unwrap_or(0.0)
        ));
    };
    let status = driver::global_status(&mut status_conn)?;
    let hit = driver::hit_rate_pct(None, &status);
    if let Some(h) = hit {
        events.message(format!("Buffer pool hit rate: {h:.2}%"));
    }
    Ok(PrewarmReport {
        tables: tables_read(w, opts.dataset),
        seconds: started.elapsed().as_secs_f64(),
        hit_rate_pct: hit,
        window_hit_rate_pct: window,
        reached_threshold: reached,
        passes,
    })
}

/// How many tables a pass reads: `sbtest1..N`, and nine per set of TPC-C tables.
fn tables_read(w: &WorkloadOptions, dataset: PrewarmDataset) -> u32 {
    let oltp = if dataset.reads_oltp() { w.tables } else { 0 };
    let tpcc = if dataset.reads_tpcc() {
        w.tpcc.tables * crate::tpcc::schema::TABLES.len() as u32
    } else {
        0
    };
    oltp + tpcc
}

/// One pass of the scans over every table of `dataset`.
fn one_pass(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    threads: u32,
    dataset: PrewarmDataset,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    if dataset.reads_oltp() {
        oltp_pass(connect, w, threads, events, cancel)?;
    }
    if dataset.reads_tpcc() && !cancel.is_cancelled() {
        crate::tpcc::prewarm::one_pass(connect, &w.tpcc, threads, events, cancel)?;
    }
    Ok(())
}

/// sysbench's scans of `sbtest1..N`: the primary key, then the secondary index on `k`.
fn oltp_pass(
    connect: &ConnectOptions,
    w: &WorkloadOptions,
    threads: u32,
    events: &EventSink,
    cancel: &CancelToken,
) -> Result<(), EngineError> {
    super::for_each_table(connect, w.tables, threads, cancel, |conn, t| {
        // As sysbench: keep the derived tables of the scans in memory.
        let _ = conn.query_drop("SET tmp_table_size=2*1024*1024*1024");
        let _ = conn.query_drop("SET max_heap_table_size=2*1024*1024*1024");
        events.message(format!("Prewarming table sbtest{t}"));
        let ctx = format!("prewarming sbtest{t}");
        let analyze: Vec<mysql::Row> = conn
            .query(format!("ANALYZE TABLE sbtest{t}"))
            .map_err(|e| driver::query_error(&ctx, &e))?;
        drop(analyze);
        let size = w.table_size;
        driver::admin_exec(
            conn,
            &ctx,
            &format!(
                "SELECT AVG(id) FROM (SELECT * FROM sbtest{t} FORCE KEY (PRIMARY) LIMIT {size}) t"
            ),
        )?;
        driver::admin_exec(
            conn,
            &ctx,
            &format!(
                "SELECT COUNT(*) FROM (SELECT * FROM sbtest{t} WHERE k LIKE '%0%' LIMIT {size}) t"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_counts_the_tables_of_the_dataset_read() {
        let mut w = WorkloadOptions {
            tables: 4,
            ..Default::default()
        };
        w.tpcc.tables = 2;
        assert_eq!(tables_read(&w, PrewarmDataset::Oltp), 4);
        assert_eq!(tables_read(&w, PrewarmDataset::Tpcc), 18);
        assert_eq!(tables_read(&w, PrewarmDataset::OltpAndTpcc), 22);
    }
}
