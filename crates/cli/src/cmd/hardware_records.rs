//! The environments' hardware records on the command line: `dbdyno runs hardware`
//! lists them, `dbdyno import hardware` files sysbench fileio/cpu/memory logs as one,
//! and `dbdyno hwtest` stores each measurement ([`store_measurement`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use dbdyno_history::hardware::{HardwareRecord, HardwareSource, Headline, NewHardwareRecord};
use dbdyno_history::BlockingHistory;
use dbdyno_hwtest::parse_sysbench_hwtest;

/// `dbdyno runs hardware [--env NAME] [--json]`.
pub fn list(h: &BlockingHistory, env: Option<&str>, json: bool, out: &mut dyn Write) -> Result<()> {
    let records = h.list_hardware(env)?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&records)?)?;
        return Ok(());
    }
    if records.is_empty() {
        writeln!(out, "No hardware records yet: `dbdyno hwtest --profile=NAME` measures a database host, `dbdyno import hardware FILE --env NAME` files sysbench logs.")?;
        return Ok(());
    }
    writeln!(out, "{}", header())?;
    for r in &records {
        writeln!(out, "{}", row(r))?;
    }
    Ok(())
}

fn header() -> String {
    format!(
        "{:>4}  {:<20}  {:<16}  {:<8}  {:>12}  {:>12}  {:>12}  {:>10}  {:>10}  {:>10}",
        "id",
        "recorded (UTC)",
        "environment",
        "source",
        "rnd read/s",
        "rnd write/s",
        "fsyncs/s",
        "seq MiB/s",
        "cpu ev/s",
        "mem MiB/s"
    )
}

fn row(r: &HardwareRecord) -> String {
    let f = |v: Option<f64>| v.map(|v| format!("{v:.2}")).unwrap_or_else(|| "-".into());
    let h: &Headline = &r.headline;
    let source = match r.record.source {
        HardwareSource::Measured => "measured",
        HardwareSource::Imported => "imported",
    };
    let date = dbdyno_history::time::rfc3339(r.record.recorded_at_ms);
    format!(
        "{:>4}  {:<20}  {:<16}  {:<8}  {:>12}  {:>12}  {:>12}  {:>10}  {:>10}  {:>10}",
        r.id,
        &date[..date.len().min(19)].replace('T', " "),
        r.record.env,
        source,
        f(h.rnd_read_iops),
        f(h.rnd_write_iops),
        f(h.fsyncs_per_s),
        f(h.seq_mib_per_s),
        f(h.cpu_events_per_s),
        f(h.memory_mib_per_s)
    )
}

/// `dbdyno import hardware FILE... --env NAME`: every file's fileio, cpu or memory
/// report, parsed by the hardware tests' own reader, as one record dated by the newest
/// file's modification time.
pub fn import(
    files: &[PathBuf],
    env: &str,
    host: Option<&str>,
    data_dir: Option<&Path>,
    json: bool,
) -> Result<()> {
    let mut results = Vec::new();
    let mut newest_ms = 0i64;
    for file in files {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let result = parse_sysbench_hwtest(&text).with_context(|| format!("{}", file.display()))?;
        results.push(result);
        let modified = std::fs::metadata(file)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        newest_ms = newest_ms.max(modified);
    }
    if results.is_empty() {
        bail!("no file to import");
    }
    let h = crate::record::open_history(data_dir)?;
    let id = h.insert_hardware(&NewHardwareRecord {
        env: env.into(),
        recorded_at_ms: if newest_ms > 0 {
            newest_ms
        } else {
            dbdyno_history::time::now_ms()
        },
        source: HardwareSource::Imported,
        host: host.map(str::to_string),
        disk_device: None,
        disk_model: None,
        cpu_model: None,
        results,
    })?;
    let mut out = std::io::stdout().lock();
    let record = h
        .list_hardware(Some(env))?
        .into_iter()
        .find(|r| r.id == id)
        .context("the record just stored")?;
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&record)?)?;
    } else {
        writeln!(
            out,
            "Imported {} as hardware record {id} of {env}:",
            dbdyno_engine::wording::count(record.record.results.len() as u32, "test")
        )?;
        writeln!(out, "{}", header())?;
        writeln!(out, "{}", row(&record))?;
    }
    Ok(())
}

/// Files a measurement from `dbdyno hwtest` under `env`; returns the record's id.
pub fn store_measurement(data_dir: Option<&Path>, record: NewHardwareRecord) -> Result<i64> {
    let h = crate::record::open_history(data_dir)?;
    Ok(h.insert_hardware(&record)?)
}

/// Lays each environment's latest hardware record onto a built report. A history that
/// cannot be read leaves the report without the section, with a note on stderr.
pub fn attach_to_report(report: &mut dbdyno_report::Report, data_dir: Option<&Path>) {
    let h = match crate::record::open_history(data_dir) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("NOTE: no hardware records in the report: {e:#}");
            return;
        }
    };
    dbdyno_report::model::hardware::attach(report, &|env| {
        h.list_hardware(Some(env))
            .ok()
            .and_then(|r| r.into_iter().next())
    });
}
