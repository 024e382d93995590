//! The environment table: the facts of every compared run side by side, with the rows
//! where they differ marked (seed 000's "Environment Config Table", and its reproducibility
//! rule: a delta means something only when you know everything that changed).

use std::collections::BTreeSet;

use dbdyno_engine::Plan;

use super::EnvRow;
use crate::format;
use crate::input::ReportRun;

/// Rows of facts, skipping facts no run knows.
pub fn table(runs: &[&ReportRun]) -> Vec<EnvRow> {
    let mut t = Rows {
        runs,
        rows: Vec::new(),
    };
    t.add("Run id", false, &|r| Some(r.id.clone()));
    t.add("Started", false, &|r| r.started_at.map(format::datetime));
    machine(&mut t);
    server(&mut t);
    dataset(&mut t);
    t.add("Client cores", true, &|r| {
        r.environment.client_cores.map(|c| c.to_string())
    });
    t.add("Seconds per step", true, &|r| step_seconds(&r.plan));
    recorded(&mut t);
    t.rows
}

/// The table being built: one row per fact, a value per run.
struct Rows<'a> {
    runs: &'a [&'a ReportRun],
    rows: Vec<EnvRow>,
}

impl Rows<'_> {
    /// Adds the fact `f` of every run, unless no run knows it; `compare` marks the row
    /// when the runs' values differ.
    fn add(&mut self, label: &str, compare: bool, f: &dyn Fn(&ReportRun) -> Option<String>) {
        let values: Vec<Option<String>> = self.runs.iter().map(|r| f(r)).collect();
        if values.iter().all(Option::is_none) {
            return;
        }
        let distinct: BTreeSet<&Option<String>> = values.iter().collect();
        self.rows.push(EnvRow {
            label: label.to_string(),
            differs: compare && self.runs.len() > 1 && distinct.len() > 1,
            values,
        });
    }
}

/// The database server's machine.
fn machine(t: &mut Rows) {
    t.add("CPU model", true, &|r| r.environment.cpu_model.clone());
    t.add("CPU cores", true, &|r| {
        r.environment.cores.map(|c| c.to_string())
    });
    t.add("Memory", true, &|r| {
        r.environment.memory_gb.map(format::gib)
    });
    t.add("Kernel", true, &|r| r.environment.kernel.clone());
    t.add("Data disk", true, &|r| r.environment.data_disk.clone());
    t.add("Disk size", true, &|r| {
        r.environment.disk_size_gb.map(format::gib)
    });
}

/// The database server and the settings that decide durability and capacity.
fn server(t: &mut Rows) {
    t.add("Database", true, &|r| r.environment.flavour.clone());
    t.add("Version", true, &|r| r.environment.mysql_version.clone());
    t.add("Buffer pool", true, &|r| {
        r.environment.buffer_pool_gb.map(format::gib)
    });
    t.add("innodb_flush_log_at_trx_commit", true, &|r| {
        r.environment.flush_log_at_trx_commit.map(|v| v.to_string())
    });
    t.add("sync_binlog", true, &|r| {
        r.environment.sync_binlog.map(|v| v.to_string())
    });
    t.add("log_bin", true, &|r| {
        r.environment
            .log_bin
            .map(|v| if v { "ON" } else { "OFF" }.to_string())
    });
    t.add("max_connections", true, &|r| {
        r.environment.max_connections.map(|v| v.to_string())
    });
}

/// The dataset, how it compares with the buffer pool, and whether it was prewarmed.
fn dataset(t: &mut Rows) {
    t.add("Dataset", true, &|r| dataset_words(r.plan.as_ref()));
    t.add("Dataset size (estimate)", true, &|r| {
        r.environment.dataset_gb_estimate.map(format::gib)
    });
    t.add("Dataset / buffer pool", true, &|r| {
        let e = &r.environment;
        match (e.dataset_gb_estimate, e.buffer_pool_gb) {
            (Some(d), Some(b)) if b > 0.0 => Some(format::times(d / b)),
            _ => None,
        }
    });
    t.add("Prewarm", true, &|r| {
        r.environment
            .prewarm_done
            .map(|p| if p { "yes" } else { "no" }.to_string())
    });
}

/// Whatever else the runs recorded: further server variables, then labels.
fn recorded(t: &mut Rows) {
    let runs = t.runs;
    let extra: BTreeSet<&String> = runs
        .iter()
        .flat_map(|r| r.environment.extra.keys())
        .collect();
    for key in extra {
        t.add(key, true, &|r| {
            r.environment.extra.get(key).map(|v| server_value(key, v))
        });
    }
    let labels: BTreeSet<&String> = runs.iter().flat_map(|r| r.labels.keys()).collect();
    for key in labels {
        // A label without a value ("nvme") is set: say so rather than leave the cell empty.
        t.add(&format!("Label: {key}"), true, &|r| {
            r.labels.get(key).map(|v| {
                if v.is_empty() {
                    "yes".to_string()
                } else {
                    v.clone()
                }
            })
        });
    }
}

/// A server variable as a person reads it: sizes (`innodb_log_file_size`,
/// `innodb_redo_log_capacity`, …) given in bytes become "48 MiB"; anything else as the
/// server printed it.
pub fn server_value(name: &str, value: &str) -> String {
    // innodb_io_capacity is IOPS, not a size: only the redo log's capacity is bytes.
    let is_size = name.ends_with("_size") || name == "innodb_redo_log_capacity";
    match value.trim().parse::<u64>() {
        Ok(b) if is_size && b >= 1024 => format::bytes(b as f64),
        _ => value.to_string(),
    }
}

/// "16 tables × 10,000,000 rows" from the plan's workload.
pub fn dataset_words(plan: Option<&Plan>) -> Option<String> {
    let w = &plan?.workload;
    let (tables, rows) = (w.tables, w.table_size);
    Some(format!(
        "{tables} tables × {} rows",
        format::grouped(rows as f64, 0)
    ))
}

/// The measured time of the plan's steps ("30 s"; "10–30 s" when they differ).
pub fn step_seconds(plan: &Option<Plan>) -> Option<String> {
    let times: BTreeSet<u64> = plan.as_ref()?.steps().map(|s| s.settings.time_s).collect();
    match (times.first(), times.last()) {
        (Some(a), Some(b)) if a == b => Some(format!("{a} s")),
        (Some(a), Some(b)) => Some(format!("{a}–{b} s")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_sizes_read_in_binary_units_and_other_values_as_printed() {
        assert_eq!(server_value("innodb_log_file_size", "50331648"), "48 MiB");
        assert_eq!(
            server_value("innodb_redo_log_capacity", "104857600"),
            "100 MiB"
        );
        assert_eq!(server_value("innodb_io_capacity", "4000"), "4000");
        assert_eq!(server_value("innodb_flush_method", "O_DIRECT"), "O_DIRECT");
    }
}
