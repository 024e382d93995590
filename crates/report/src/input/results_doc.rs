//! Reading report input files: the `--json` document of `dbdyno run` / `dbdyno ladder`
//! (docs/json-schema.md: `plan` and `outcome.steps`), or [`ReportRun`] JSON as the
//! history and the test fixtures write it (one object, or an array of them).
//!
//! A results document knows the plan and the steps. Server facts come from its
//! `monitoring` object when the run was monitored (the checks crate's environment
//! snapshot and per-step server figures, read here as plain JSON so that this crate does
//! not depend on one in flux), or from a top-level `environment` object in this crate's
//! own [`EnvironmentFacts`] shape; otherwise only from the plan (dataset size, prewarm).

use serde_json::Value;

use super::{EnvironmentFacts, MysqlFigures, ReportRun, ReportStep, ServerFigures};
use crate::error::ReportError;
use dbdyno_engine::StepResult;

/// Bytes per sysbench OLTP row with its indexes: seed 000's rule of thumb
/// ("16 tables × 10M rows … at roughly 250 bytes per row with indexes, about 40 GB").
pub const BYTES_PER_ROW_ESTIMATE: f64 = 250.0;

/// Reads one input file's text into runs. `source` names the file in errors;
/// `default_name` is the environment name for documents that carry none (the CLI passes
/// `--env-names` or the file stem).
pub fn runs_from_json(
    text: &str,
    source: &str,
    default_name: &str,
) -> Result<Vec<ReportRun>, ReportError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| ReportError::Input {
        source_name: source.to_string(),
        detail: format!("not JSON: {e}"),
    })?;
    let bad = |detail: String| ReportError::Input {
        source_name: source.to_string(),
        detail,
    };
    match &doc {
        Value::Array(items) => items
            .iter()
            .map(|v| serde_json::from_value::<ReportRun>(v.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(format!("not an array of report runs: {e}"))),
        Value::Object(map) if map.contains_key("outcome") => {
            Ok(vec![from_results_doc(&doc, default_name).map_err(bad)?])
        }
        Value::Object(map) if map.contains_key("steps") => serde_json::from_value(doc.clone())
            .map(|r| vec![r])
            .map_err(|e| bad(format!("not a report run: {e}"))),
        _ => Err(bad(
            "neither a `dbdyno … --json` results document (it has `plan` and `outcome`) nor report runs"
                .to_string(),
        )),
    }
}

/// Converts a `--json` results document into a run named `env_name`.
pub fn from_results_doc(doc: &Value, env_name: &str) -> Result<ReportRun, String> {
    let steps_v = doc
        .pointer("/outcome/steps")
        .and_then(Value::as_array)
        .ok_or("the document has no outcome.steps array")?;
    let mut steps = Vec::with_capacity(steps_v.len());
    for (i, s) in steps_v.iter().enumerate() {
        let result: StepResult = serde_json::from_value(s.clone())
            .map_err(|e| format!("outcome.steps[{i}] is not a step result: {e}"))?;
        steps.push(result);
    }
    let plan = doc.get("plan").cloned().unwrap_or(Value::Null);
    let environment: EnvironmentFacts = match doc.get("environment") {
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| format!("`environment` is not a set of environment facts: {e}"))?,
        None => EnvironmentFacts::default(),
    };
    let prewarm_done = doc
        .pointer("/outcome/prewarm")
        .is_some_and(|p| !p.is_null());
    let outcome = doc.get("outcome");
    let cancelled = outcome
        .and_then(|o| o.get("cancelled"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let failure = outcome
        .and_then(|o| o.get("failure"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let state = if failure.is_some() {
        "failed"
    } else if cancelled {
        "cancelled"
    } else {
        "finished"
    };
    let mut run = assemble(
        plan,
        steps,
        doc.get("monitoring"),
        environment,
        prewarm_done,
    );
    if let Some(f) = failure {
        run.warnings.push(format!("the run stopped early: {f}"));
    }
    run.id = doc
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| env_name.to_string());
    run.env_name = env_name.to_string();
    run.state = Some(state.to_string());
    run.command_line = doc
        .get("command")
        .and_then(Value::as_str)
        .map(|c| format!("dbdyno {c}"));
    run.tool_version = doc
        .get("tool_version")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(run)
}

/// What every source of runs shares (the `--json` document and the history): the plan,
/// the step results and the `monitoring` object (the checks crate's environment snapshot,
/// per-step server figures and missing metrics) become a [`ReportRun`] with its
/// environment facts, per-step server and MySQL figures, warnings about missing metrics,
/// and start/end times. `environment` holds facts already known (they win over the
/// snapshot's). The caller fills in the identity: id, names, state, command, version.
pub fn assemble(
    plan: Value,
    results: Vec<StepResult>,
    monitoring: Option<&Value>,
    mut environment: EnvironmentFacts,
    prewarm_done: bool,
) -> ReportRun {
    let mut steps: Vec<ReportStep> = results
        .into_iter()
        .map(|result| ReportStep {
            result,
            server: None,
            mysql: None,
        })
        .collect();
    let monitoring = monitoring.filter(|m| !m.is_null());
    if let Some(m) = monitoring {
        monitoring_facts(&mut environment, m);
        monitoring_steps(&mut steps, m);
    }
    if environment.dataset_gb_estimate.is_none() {
        environment.dataset_gb_estimate = dataset_gb_from_plan(&plan);
    }
    if environment.prewarm_done.is_none() {
        environment.prewarm_done = Some(prewarm_done);
    }
    let warnings: Vec<String> = monitoring
        .and_then(|m| m.get("missing"))
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(missing_words).collect())
        .unwrap_or_default();
    let started_at = steps.iter().map(|s| s.result.started_unix_ms).min();
    let finished_at = steps.iter().map(|s| s.result.ended_unix_ms).max();
    ReportRun {
        id: String::new(),
        env_name: String::new(),
        labels: Default::default(),
        started_at,
        finished_at,
        state: None,
        command_line: None,
        tool_version: None,
        plan,
        environment,
        steps,
        warnings,
    }
}

/// Environment facts from the monitoring snapshot (`monitoring.environment`).
fn monitoring_facts(e: &mut EnvironmentFacts, m: &Value) {
    let Some(env) = m.get("environment") else {
        return;
    };
    let s = |p: &str| env.pointer(p).and_then(Value::as_str).map(str::to_string);
    let n = |p: &str| env.pointer(p).and_then(Value::as_f64);
    let var = |k: &str| {
        env.pointer(&format!("/variables/{k}"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    e.cpu_model = e.cpu_model.take().or_else(|| s("/os/cpu_model"));
    e.cores = e.cores.or_else(|| n("/os/cpus").map(|v| v as u32));
    e.memory_gb = e
        .memory_gb
        .or_else(|| n("/os/mem_total_mb").map(|mb| mb / 1024.0));
    e.kernel = e.kernel.take().or_else(|| s("/os/kernel"));
    if e.data_disk.is_none() {
        if let Some(d) = env.pointer("/data_disks/0") {
            let devices: Vec<&str> = d
                .get("devices")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mount = d.get("mount_point").and_then(Value::as_str).unwrap_or("?");
            let fs = d.get("fs_type").and_then(Value::as_str).unwrap_or("?");
            if !devices.is_empty() {
                e.data_disk = Some(format!("{} ({mount}, {fs})", devices.join(", ")));
            }
        }
    }
    e.mysql_version = e.mysql_version.take().or_else(|| s("/server/version"));
    e.flavour = e.flavour.take().or_else(|| s("/server/flavour"));
    e.buffer_pool_gb = e.buffer_pool_gb.or_else(|| {
        var("innodb_buffer_pool_size")?
            .parse::<f64>()
            .ok()
            .map(|b| b / (1024.0 * 1024.0 * 1024.0))
    });
    e.flush_log_at_trx_commit = e
        .flush_log_at_trx_commit
        .or_else(|| var("innodb_flush_log_at_trx_commit")?.parse().ok());
    e.sync_binlog = e.sync_binlog.or_else(|| var("sync_binlog")?.parse().ok());
    e.log_bin = e
        .log_bin
        .or_else(|| var("log_bin").map(|v| v.eq_ignore_ascii_case("on") || v == "1"));
    e.max_connections = e
        .max_connections
        .or_else(|| var("max_connections")?.parse().ok());
    e.client_cores = e
        .client_cores
        .or_else(|| n("/client/cores").map(|v| v as u32));
    for k in [
        "innodb_io_capacity",
        "innodb_flush_method",
        "innodb_redo_log_capacity",
        "innodb_log_file_size",
        "innodb_doublewrite",
        "binlog_format",
        "transaction_isolation",
    ] {
        if let Some(v) = var(k) {
            e.extra.entry(k.to_string()).or_insert(v);
        }
    }
}

/// Per-step server figures (`monitoring.steps[]`, matched by their `step` index).
fn monitoring_steps(steps: &mut [ReportStep], m: &Value) {
    let Some(items) = m.get("steps").and_then(Value::as_array) else {
        return;
    };
    for item in items {
        let Some(i) = item.get("step").and_then(Value::as_u64) else {
            continue;
        };
        let Some(step) = steps.get_mut(i as usize) else {
            continue;
        };
        let expected = item
            .get("expected_samples")
            .and_then(Value::as_u64)
            .unwrap_or(0) as u32;
        if let Some(os) = item.get("os").filter(|o| !o.is_null()) {
            let f = |k: &str| os.get(k).and_then(Value::as_f64);
            // The data disk is the busiest sampled device.
            let disk = os.get("disks").and_then(Value::as_array).and_then(|d| {
                d.iter().max_by(|a, b| {
                    let u =
                        |x: &Value| x.get("util_pct_avg").and_then(Value::as_f64).unwrap_or(0.0);
                    u(a).total_cmp(&u(b))
                })
            });
            let df = |k: &str| {
                disk.and_then(|d| d.get(k))
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
            };
            step.server = Some(ServerFigures {
                cpu_pct_avg: f("cpu_util_avg").unwrap_or(0.0),
                cpu_pct_max: f("cpu_util_max").unwrap_or(0.0),
                iowait_pct_avg: f("cpu_iowait_avg"),
                disk_util_pct_avg: df("util_pct_avg"),
                disk_util_pct_max: df("util_pct_max"),
                samples: os.get("samples").and_then(Value::as_u64).unwrap_or(0) as u32,
                expected_samples: expected,
                per_second: Vec::new(),
            });
        }
        if let Some(my) = item.get("mysql").filter(|o| !o.is_null()) {
            step.mysql = Some(MysqlFigures {
                hit_rate_pct: my.get("hit_rate_pct").and_then(Value::as_f64),
                row_lock_waits: my.get("row_lock_waits").and_then(Value::as_u64),
                row_lock_time_ms: my.get("row_lock_time_ms").and_then(Value::as_f64),
                threads_running_max: my
                    .get("threads_running_max")
                    .and_then(Value::as_u64)
                    .map(|v| v as u32),
            });
        }
    }
}

/// One `monitoring.missing` entry in words.
fn missing_words(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => {
            let what = o
                .get("what")
                .or_else(|| o.get("metric"))
                .and_then(Value::as_str)?;
            let why = o
                .get("why")
                .or_else(|| o.get("reason"))
                .and_then(Value::as_str);
            Some(match why {
                Some(w) => format!("not measured: {what} ({w})"),
                None => format!("not measured: {what}"),
            })
        }
        _ => None,
    }
}

/// Dataset size the plan asks for, from `workload.tables` × `workload.table_size`.
pub fn dataset_gb_from_plan(plan: &Value) -> Option<f64> {
    let tables = plan.pointer("/workload/tables")?.as_f64()?;
    let rows = plan.pointer("/workload/table_size")?.as_f64()?;
    Some(tables * rows * BYTES_PER_ROW_ESTIMATE / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_dataset_is_about_40_gb() {
        let plan = serde_json::json!({"workload": {"tables": 16, "table_size": 10_000_000}});
        let gb = dataset_gb_from_plan(&plan).unwrap();
        assert!((gb - 40.0).abs() < 0.01, "{gb}");
    }

    #[test]
    fn unknown_documents_are_refused_with_the_file_name() {
        let e = runs_from_json("{\"x\": 1}", "a.json", "a").unwrap_err();
        assert!(e.to_string().contains("a.json"), "{e}");
        let e = runs_from_json("not json", "b.json", "b").unwrap_err();
        assert!(e.to_string().contains("b.json"), "{e}");
    }

    #[test]
    fn monitoring_fills_environment_and_server_figures() {
        let doc = serde_json::json!({
            "plan": {"workload": {"tables": 4, "table_size": 1000}},
            "outcome": {"steps": [], "cancelled": false},
            "monitoring": {
                "environment": {
                    "os": {"cpu_model": "AMD EPYC", "cpus": 16, "mem_total_mb": 65536.0, "kernel": "6.1"},
                    "server": {"version": "10.11.6-MariaDB", "flavour": "mariadb"},
                    "variables": {"innodb_buffer_pool_size": "268435456", "sync_binlog": "0", "log_bin": "OFF", "innodb_io_capacity": "200"},
                    "data_disks": [{"devices": ["nvme0n1"], "mount_point": "/", "fs_type": "ext4"}],
                    "client": {"cores": 2}
                },
                "steps": [],
                "missing": [{"what": "disk utilisation", "why": "no SSH access"}]
            }
        });
        let r = from_results_doc(&doc, "lab").unwrap();
        let e = &r.environment;
        assert_eq!(e.cpu_model.as_deref(), Some("AMD EPYC"));
        assert_eq!(e.memory_gb, Some(64.0));
        assert_eq!(e.buffer_pool_gb, Some(0.25));
        assert_eq!(e.log_bin, Some(false));
        assert_eq!(e.data_disk.as_deref(), Some("nvme0n1 (/, ext4)"));
        assert_eq!(
            e.extra.get("innodb_io_capacity").map(String::as_str),
            Some("200")
        );
        assert_eq!(
            r.warnings,
            ["not measured: disk utilisation (no SSH access)"]
        );
    }

    #[test]
    fn results_doc_without_steps_names_the_problem() {
        let doc = serde_json::json!({"plan": {}, "outcome": {"cancelled": false}});
        let e = from_results_doc(&doc, "x").unwrap_err();
        assert!(e.contains("outcome.steps"), "{e}");
    }
}
