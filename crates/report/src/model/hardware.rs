//! The environments' hardware beside their database figures: each compared
//! environment's latest hardware record (`dbdyno hwtest`, or imported sysbench logs),
//! its headline figures with their ratio to the baseline's, and those ratios in the
//! bottleneck analysis ("IO-bound; this environment's random write IOPS are 0.31× the
//! baseline's"). One run: the record as an appendix of what the server can do.
//!
//! The records live in the history, not in the runs, so they are laid onto a built
//! report ([`attach`]) by whoever can read the history (the CLI, the app).

use dbdyno_history::hardware::{HardwareRecord, Headline};
use serde::{Deserialize, Serialize};

use super::{BottleneckClass, Report};
use crate::format;

/// The hardware table: one column per environment of the report (its `envs` order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HardwareSection {
    pub envs: Vec<Option<HardwareColumn>>,
    pub rows: Vec<HardwareRow>,
}

/// What an environment's record says about where its figures came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HardwareColumn {
    pub record_id: i64,
    pub recorded_at_ms: i64,
    /// "measured" or "imported".
    pub source: String,
    pub host: Option<String>,
    pub cpu_model: Option<String>,
    pub disk: Option<String>,
}

/// One headline figure of every environment, and its ratio to the baseline's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HardwareRow {
    pub label: String,
    pub values: Vec<Option<f64>>,
    /// `None` for the baseline itself, and when either figure is unknown.
    pub ratios: Vec<Option<f64>>,
}

/// The figures of the table, in order, with what each one reads from a headline.
/// A headline figure's name and how to read it.
type Figure = (&'static str, fn(&Headline) -> Option<f64>);
/// A record's fact and how to read it.
type Fact = (&'static str, fn(&HardwareColumn) -> Option<String>);

const FIGURES: [Figure; 6] = [
    ("Random read IOPS", |h| h.rnd_read_iops),
    ("Random write IOPS", |h| h.rnd_write_iops),
    ("fsyncs/s", |h| h.fsyncs_per_s),
    ("Sequential MiB/s", |h| h.seq_mib_per_s),
    ("CPU events/s", |h| h.cpu_events_per_s),
    ("Memory MiB/s", |h| h.memory_mib_per_s),
];

/// Lays the environments' records (found by environment name) onto `report`: the
/// hardware table, and the ratios in the IO- and CPU-bound analyses. Nothing when no
/// environment has a record.
pub fn attach(report: &mut Report, record_of: &dyn Fn(&str) -> Option<HardwareRecord>) {
    let records: Vec<Option<HardwareRecord>> =
        report.envs.iter().map(|e| record_of(&e.name)).collect();
    if records.iter().all(Option::is_none) {
        return;
    }
    let base = report.baseline;
    let rows = FIGURES
        .iter()
        .filter_map(|(label, figure)| {
            let values: Vec<Option<f64>> = records
                .iter()
                .map(|r| r.as_ref().and_then(|r| figure(&r.headline)))
                .collect();
            if values.iter().all(Option::is_none) {
                return None;
            }
            let base_value = base.and_then(|b| values[b]);
            let ratios = values
                .iter()
                .enumerate()
                .map(|(i, v)| match (Some(i) == base, *v, base_value) {
                    (false, Some(v), Some(b)) if b > 0.0 => Some(v / b),
                    _ => None,
                })
                .collect();
            Some(HardwareRow {
                label: label.to_string(),
                values,
                ratios,
            })
        })
        .collect();
    let section = HardwareSection {
        envs: records.iter().map(|r| r.as_ref().map(column)).collect(),
        rows,
    };
    explain_bottlenecks(report, &section);
    report.hardware = Some(section);
}

fn column(r: &HardwareRecord) -> HardwareColumn {
    let rec = &r.record;
    let disk = match (&rec.disk_model, &rec.disk_device) {
        (Some(m), Some(d)) => Some(format!("{m} ({d})")),
        (Some(m), None) => Some(m.clone()),
        (None, d) => d.clone(),
    };
    HardwareColumn {
        record_id: r.id,
        recorded_at_ms: rec.recorded_at_ms,
        source: format!("{:?}", rec.source).to_lowercase(),
        host: rec.host.clone(),
        cpu_model: rec.cpu_model.clone(),
        disk,
    }
}

/// The ratio a bottleneck class is explained by: write IOPS for IO (what a write-heavy
/// ladder waits on; read IOPS when no write figure), CPU events/s for CPU.
fn explain_bottlenecks(report: &mut Report, section: &HardwareSection) {
    let ratio_of = |label: &str, env: usize| {
        section
            .rows
            .iter()
            .find(|r| r.label == label)
            .and_then(|r| r.ratios[env])
    };
    for scenario in &mut report.scenarios {
        for e in &mut scenario.envs {
            let said = match e.bottleneck.class {
                BottleneckClass::IoBound => ratio_of("Random write IOPS", e.env)
                    .map(|r| ("random write IOPS", r))
                    .or_else(|| {
                        ratio_of("Random read IOPS", e.env).map(|r| ("random read IOPS", r))
                    }),
                BottleneckClass::CpuBound => {
                    ratio_of("CPU events/s", e.env).map(|r| ("CPU events/s", r))
                }
                _ => None,
            };
            if let Some((what, ratio)) = said {
                e.bottleneck.evidence.push_str(&format!(
                    "; this environment's {what} are {} the baseline's",
                    ratio_text(ratio)
                ));
            }
        }
    }
}

/// "0.31×": two decimals, as hardware ratios are read against each other.
pub fn ratio_text(r: f64) -> String {
    format!("{r:.2}×")
}

impl HardwareSection {
    /// The sentence under the table's heading.
    pub fn note(&self, comparing: bool) -> &'static str {
        if comparing {
            "Each environment's latest hardware record: the database host's disk, CPU and memory measured by DB Dyno's fileio, cpu and memory tests (or imported sysbench logs); in parentheses, the ratio to the baseline's figure."
        } else {
            "The environment's latest hardware record: what the database host's disk, CPU and memory can do, measured by DB Dyno's fileio, cpu and memory tests (or imported sysbench logs)."
        }
    }

    /// The CSV columns of an environment's figures (empty when it has no record).
    pub fn csv_fields(&self, env: usize) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| r.values[env].map(|v| format!("{v:.2}")).unwrap_or_default())
            .chain(std::iter::once(
                self.envs[env]
                    .as_ref()
                    .map(|c| c.record_id.to_string())
                    .unwrap_or_default(),
            ))
            .collect()
    }

    /// The CSV header of [`Self::csv_fields`].
    pub fn csv_header(&self) -> Vec<String> {
        self.rows
            .iter()
            .map(|r| format!("hw_{}", r.label.to_lowercase().replace(['/', ' '], "_")))
            .chain(std::iter::once("hw_record_id".to_string()))
            .collect()
    }

    /// The table as text cells, for every renderer: a header row (figure, then each
    /// environment), then one row per figure, with "(0.31×)" after a ratio.
    pub fn text_rows(&self, env_names: &[String]) -> Vec<Vec<String>> {
        let mut out = vec![std::iter::once("Figure".to_string())
            .chain(env_names.iter().cloned())
            .collect()];
        for row in &self.rows {
            let mut cells = vec![row.label.clone()];
            for (v, ratio) in row.values.iter().zip(&row.ratios) {
                cells.push(match (v, ratio) {
                    (Some(v), Some(r)) => {
                        format!("{} ({})", format::grouped(*v, 2), ratio_text(*r))
                    }
                    (Some(v), None) => format::grouped(*v, 2),
                    (None, _) => "—".to_string(),
                });
            }
            out.push(cells);
        }
        let facts: [Fact; 4] = [
            ("Recorded", |c| {
                Some(format!(
                    "{} ({})",
                    format::datetime(c.recorded_at_ms),
                    c.source
                ))
            }),
            ("Host", |c| c.host.clone()),
            ("CPU model", |c| c.cpu_model.clone()),
            ("Disk", |c| c.disk.clone()),
        ];
        for (label, fact) in facts {
            let cells: Vec<String> = self
                .envs
                .iter()
                .map(|c| c.as_ref().and_then(fact).unwrap_or_else(|| "—".into()))
                .collect();
            if cells.iter().any(|c| c != "—") {
                out.push(std::iter::once(label.to_string()).chain(cells).collect());
            }
        }
        out
    }
}
