//! The environments' hardware records: what the database host's disk, CPU and memory
//! can do, measured by `dbdyno hwtest` (or imported from sysbench logs), dated and
//! filed under the environment, for reports to put beside the database's figures.
//!
//! Each record keeps every test's whole result and the headline figures a comparison
//! reads ([`Headline`]), taken from the results by one rule ([`Headline::of`]).

use dbdyno_hwtest::{FileTestMode, HwTestResult, TestFigures};
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::{History, HistoryError};

/// The figures reports compare between environments.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Headline {
    /// reads/s of a random fileio test (rndrw or rndrd).
    pub rnd_read_iops: Option<f64>,
    /// writes/s of a random fileio test (rndrw or rndwr).
    pub rnd_write_iops: Option<f64>,
    /// fsyncs/s of that random write test.
    pub fsyncs_per_s: Option<f64>,
    /// MiB/s of a sequential test: read for seqrd, written for seqwr and seqrewr.
    pub seq_mib_per_s: Option<f64>,
    pub cpu_events_per_s: Option<f64>,
    pub memory_mib_per_s: Option<f64>,
}

/// Where a record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HardwareSource {
    Measured,
    Imported,
}

impl HardwareSource {
    fn as_str(self) -> &'static str {
        match self {
            HardwareSource::Measured => "measured",
            HardwareSource::Imported => "imported",
        }
    }
}

/// A record to store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewHardwareRecord {
    pub env: String,
    pub recorded_at_ms: i64,
    pub source: HardwareSource,
    pub host: Option<String>,
    pub disk_device: Option<String>,
    pub disk_model: Option<String>,
    pub cpu_model: Option<String>,
    pub results: Vec<HwTestResult>,
}

/// A stored record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HardwareRecord {
    pub id: i64,
    #[serde(flatten)]
    pub record: NewHardwareRecord,
    pub headline: Headline,
    pub tool_version: String,
}

/// The fileio test mode of a result: the header's, else the options', else (a log that
/// starts at "File operations:") random read/write when it both read and wrote, which
/// no sequential mode does.
pub fn file_test_mode(r: &HwTestResult) -> Option<FileTestMode> {
    let TestFigures::FileIo(f) = &r.test else {
        return None;
    };
    if let Some(setup) = &f.setup {
        return Some(setup.test_mode);
    }
    let named = r.options.get("file-test-mode").and_then(|m| {
        serde_json::from_value::<FileTestMode>(serde_json::Value::String(m.clone())).ok()
    });
    named.or((f.reads_per_s > 0.0 && f.writes_per_s > 0.0).then_some(FileTestMode::Rndrw))
}

impl Headline {
    /// The headline figures of a set of results; the first test that gives a figure wins.
    pub fn of(results: &[HwTestResult]) -> Headline {
        let mut h = Headline::default();
        for r in results {
            match &r.test {
                TestFigures::FileIo(f) => match file_test_mode(r) {
                    Some(FileTestMode::Rndrw) => {
                        h.rnd_read_iops.get_or_insert(f.reads_per_s);
                        h.rnd_write_iops.get_or_insert(f.writes_per_s);
                        h.fsyncs_per_s.get_or_insert(f.fsyncs_per_s);
                    }
                    Some(FileTestMode::Rndrd) => {
                        h.rnd_read_iops.get_or_insert(f.reads_per_s);
                    }
                    Some(FileTestMode::Rndwr) => {
                        h.rnd_write_iops.get_or_insert(f.writes_per_s);
                        h.fsyncs_per_s.get_or_insert(f.fsyncs_per_s);
                    }
                    Some(FileTestMode::Seqrd) => {
                        h.seq_mib_per_s.get_or_insert(f.read_mib_per_s);
                    }
                    Some(FileTestMode::Seqwr | FileTestMode::Seqrewr) => {
                        h.seq_mib_per_s.get_or_insert(f.written_mib_per_s);
                    }
                    None => {}
                },
                TestFigures::Cpu(c) => {
                    h.cpu_events_per_s.get_or_insert(c.events_per_s);
                }
                TestFigures::Memory(m) => {
                    if let Some(v) = m.mib_per_s {
                        h.memory_mib_per_s.get_or_insert(v);
                    }
                }
            }
        }
        h
    }
}

impl History {
    /// Stores a record; returns its id.
    pub async fn insert_hardware(&self, new: &NewHardwareRecord) -> Result<i64, HistoryError> {
        let h = Headline::of(&new.results);
        let results = serde_json::to_string(&new.results).expect("results serialize");
        let id = sqlx::query(
            "INSERT INTO hardware_records (env, recorded_at_ms, source, host, disk_device, \
             disk_model, cpu_model, rnd_read_iops, rnd_write_iops, fsyncs_per_s, seq_mib_per_s, \
             cpu_events_per_s, memory_mib_per_s, results_json, tool_version) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&new.env)
        .bind(new.recorded_at_ms)
        .bind(new.source.as_str())
        .bind(&new.host)
        .bind(&new.disk_device)
        .bind(&new.disk_model)
        .bind(&new.cpu_model)
        .bind(h.rnd_read_iops)
        .bind(h.rnd_write_iops)
        .bind(h.fsyncs_per_s)
        .bind(h.seq_mib_per_s)
        .bind(h.cpu_events_per_s)
        .bind(h.memory_mib_per_s)
        .bind(results)
        .bind(env!("CARGO_PKG_VERSION"))
        .execute(&self.pool)
        .await?
        .last_insert_rowid();
        Ok(id)
    }

    /// Records, newest first; of one environment when `env` is given.
    pub async fn list_hardware(
        &self,
        env: Option<&str>,
    ) -> Result<Vec<HardwareRecord>, HistoryError> {
        let rows = sqlx::query(
            "SELECT id, env, recorded_at_ms, source, host, disk_device, disk_model, cpu_model, \
             results_json, tool_version FROM hardware_records \
             WHERE (?1 IS NULL OR env = ?1) ORDER BY recorded_at_ms DESC, id DESC",
        )
        .bind(env)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(record_of).collect()
    }

    /// The environment's newest record.
    pub async fn latest_hardware(&self, env: &str) -> Result<Option<HardwareRecord>, HistoryError> {
        Ok(self.list_hardware(Some(env)).await?.into_iter().next())
    }
}

fn record_of(row: &sqlx::sqlite::SqliteRow) -> Result<HardwareRecord, HistoryError> {
    let id: i64 = row.try_get("id")?;
    let results: Vec<HwTestResult> =
        serde_json::from_str(&row.try_get::<String, _>("results_json")?).map_err(|cause| {
            HistoryError::Corrupt {
                run: id,
                what: "hardware record results",
                cause,
            }
        })?;
    let source = match row.try_get::<String, _>("source")?.as_str() {
        "imported" => HardwareSource::Imported,
        _ => HardwareSource::Measured,
    };
    Ok(HardwareRecord {
        id,
        headline: Headline::of(&results),
        record: NewHardwareRecord {
            env: row.try_get("env")?,
            recorded_at_ms: row.try_get("recorded_at_ms")?,
            source,
            host: row.try_get("host")?,
            disk_device: row.try_get("disk_device")?,
            disk_model: row.try_get("disk_model")?,
            cpu_model: row.try_get("cpu_model")?,
            results,
        },
        tool_version: row.try_get("tool_version")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_hwtest::parse_sysbench_hwtest;

    fn fixture(name: &str) -> HwTestResult {
        let path = format!("{}/../hwtest/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        parse_sysbench_hwtest(&std::fs::read_to_string(&path).unwrap()).unwrap()
    }

    #[test]
    fn a_seed_log_without_header_is_random_read_write() {
        let r = fixture("seed_002_fileio_rndrw_one_line.txt");
        assert_eq!(file_test_mode(&r), Some(FileTestMode::Rndrw));
        let h = Headline::of(&[r]);
        // As seed 002 prints them.
        assert_eq!(h.rnd_read_iops, Some(16121.01));
        assert_eq!(h.rnd_write_iops, Some(10747.29));
        assert_eq!(h.fsyncs_per_s, Some(34390.58));
        assert_eq!(h.seq_mib_per_s, None);
    }

    #[test]
    fn every_headline_from_its_own_test() {
        let cpu = fixture("seed_004_cpu_commented.txt");
        let seq = fixture("sysbench_1.0.20_fileio_seqwr_intervals.txt");
        let mem = fixture("sysbench_1.0.20_memory_histogram.txt");
        let h = Headline::of(&[cpu.clone(), seq.clone(), mem.clone()]);
        let TestFigures::Cpu(c) = &cpu.test else {
            panic!()
        };
        let TestFigures::FileIo(f) = &seq.test else {
            panic!()
        };
        let TestFigures::Memory(m) = &mem.test else {
            panic!()
        };
        assert_eq!(h.cpu_events_per_s, Some(c.events_per_s));
        assert_eq!(h.seq_mib_per_s, Some(f.written_mib_per_s));
        assert_eq!(h.memory_mib_per_s, m.mib_per_s);
        assert_eq!(h.rnd_read_iops, None);
    }

    #[test]
    fn records_are_stored_and_read_back_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let history = crate::BlockingHistory::open(dir.path()).unwrap();
        let record = |env: &str, at: i64| NewHardwareRecord {
            env: env.into(),
            recorded_at_ms: at,
            source: HardwareSource::Imported,
            host: None,
            disk_device: Some("sdb".into()),
            disk_model: None,
            cpu_model: Some("Xeon".into()),
            results: vec![fixture("seed_004_fileio_rndrw.txt")],
        };
        history.insert_hardware(&record("idc", 1_000)).unwrap();
        let newer = history.insert_hardware(&record("idc", 2_000)).unwrap();
        history.insert_hardware(&record("cloud", 3_000)).unwrap();
        let idc = history.list_hardware(Some("idc")).unwrap();
        assert_eq!(idc.len(), 2);
        assert_eq!(idc[0].id, newer);
        assert_eq!(idc[0].record, record("idc", 2_000));
        assert!(idc[0].headline.rnd_read_iops.is_some());
        assert_eq!(history.list_hardware(None).unwrap().len(), 3);
    }
}
