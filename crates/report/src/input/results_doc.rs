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

use super::{EnvironmentFacts, MysqlFigures, ReportRun, ReportStep, ServerFigures, ServerSecond};
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
    // Steps that failed while the ladder went on (`--on-step-error=continue`).
    let failed_steps: Vec<String> = outcome
        .and_then(|o| o.get("failed_steps"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|f| {
            let text = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("?").to_string();
            format!("{}: {}", text("label"), text("error"))
        })
        .collect();
    let state = if failure.is_some() {
        "failed"
    } else if cancelled {
        "cancelled"
    } else if !failed_steps.is_empty() {
        "partial"
    } else {
        "finished"
    };
    let mut run = assemble(
        plan,
        steps,
        doc.get("monitoring"),
        environment,
        Some(prewarm_done),
    );
    if let Some(f) = failure {
        run.warnings.push(format!("the run stopped early: {f}"));
    }
    run.warnings.extend(
        failed_steps
            .iter()
            .map(|l| format!("a step failed and was not measured: {l}")),
    );
    run.id = doc
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| env_name.to_string());
    run.env_name = env_name.to_string();
    run.state = Some(state.to_string());
    // `command_line` (as typed, secrets redacted) is written since it was added;
    // older documents only name the subcommand.
    run.command_line = doc
        .get("command_line")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| {
            doc.get("command")
                .and_then(Value::as_str)
                .map(|c| format!("dbdyno {c}"))
        });
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
/// snapshot's). `prewarm_done` is `None` when the source cannot know (a run imported
/// from sysbench's output). The caller fills in the identity: id, names, state, command,
/// version.
pub fn assemble(
    plan: Value,
    results: Vec<StepResult>,
    monitoring: Option<&Value>,
    mut environment: EnvironmentFacts,
    prewarm_done: Option<bool>,
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
        // The `--json` document carries the per-second samples (the history keeps them
        // in tables of their own, read by `from_history`).
        if let Some(rows) = m.get("server_samples").and_then(Value::as_array) {
            per_second_from_samples(
                &mut steps,
                rows.iter().filter_map(|r| {
                    Some((
                        r.get("step_index")
                            .and_then(Value::as_u64)
                            .map(|i| i as u32),
                        r.get("unix_ms")?.as_i64()?,
                        r.get("sample")?,
                    ))
                }),
            );
        }
    }
    if environment.dataset_gb_estimate.is_none() {
        environment.dataset_gb_estimate = dataset_gb_from_plan(&plan);
    }
    if environment.prewarm_done.is_none() {
        environment.prewarm_done = prewarm_done;
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
    e.cpu_model = e.cpu_model.take().or_else(|| s("/os/cpu_model"));
    e.cores = e.cores.or_else(|| n("/os/cpus").map(|v| v as u32));
    e.memory_gb = e
        .memory_gb
        .or_else(|| n("/os/mem_total_mb").map(|mb| mb / 1024.0));
    e.kernel = e.kernel.take().or_else(|| s("/os/kernel"));
    if e.data_disk.is_none() {
        e.data_disk = data_disk(env);
    }
    e.mysql_version = e.mysql_version.take().or_else(|| s("/server/version"));
    e.flavour = e.flavour.take().or_else(|| s("/server/flavour"));
    e.disk_size_gb = e.disk_size_gb.or_else(|| disk_size_gb(env));
    server_variables(e, env);
    e.client_cores = e
        .client_cores
        .or_else(|| n("/client/cores").map(|v| v as u32));
}

/// The data disk as "devices (mount point, filesystem)".
fn data_disk(env: &Value) -> Option<String> {
    let d = env.pointer("/data_disks/0")?;
    let devices: Vec<&str> = d
        .get("devices")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mount = d.get("mount_point").and_then(Value::as_str).unwrap_or("?");
    let fs = d.get("fs_type").and_then(Value::as_str).unwrap_or("?");
    (!devices.is_empty()).then(|| format!("{} ({mount}, {fs})", devices.join(", ")))
}

/// The data disk's size: its block devices' sizes, else its filesystem's.
fn disk_size_gb(env: &Value) -> Option<f64> {
    let d = env.pointer("/data_disks/0")?;
    let devices: f64 = d
        .get("device_bytes")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_f64).sum())
        .unwrap_or(0.0);
    let bytes = if devices > 0.0 {
        devices
    } else {
        d.pointer("/filesystem/total_bytes")?.as_f64()?
    };
    Some(bytes / crate::format::GIB)
}

/// The server variables the environment table shows, where the facts lack them.
fn server_variables(e: &mut EnvironmentFacts, env: &Value) {
    let var = |k: &str| {
        env.pointer(&format!("/variables/{k}"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    e.buffer_pool_gb = e.buffer_pool_gb.or_else(|| {
        var("innodb_buffer_pool_size")?
            .parse::<f64>()
            .ok()
            .map(|b| b / crate::format::GIB)
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
    // Then the variables whose defaults MySQL 8.4 changed: an 8.0-against-8.4
    // comparison on defaults differs in them, and the environment table must say so.
    let listed = [
        "innodb_io_capacity",
        "innodb_flush_method",
        "innodb_redo_log_capacity",
        "innodb_log_file_size",
        "innodb_doublewrite",
        "binlog_format",
        "transaction_isolation",
    ];
    for k in listed
        .into_iter()
        .chain(dbdyno_mysql::dialect::changed_in_8_4())
    {
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

/// Each step's server seconds from per-second samples (the monitor's `ServerSample`,
/// with the index of the step whose window holds it): busy CPU and the busiest disk's
/// utilisation and IOPS, `t_s` after the step's measurement started. Steps without
/// server figures are left alone.
pub fn per_second_from_samples<'a>(
    steps: &mut [ReportStep],
    samples: impl Iterator<Item = (Option<u32>, i64, &'a Value)>,
) {
    let samples: Vec<(Option<u32>, i64, &Value)> = samples.collect();
    for (i, step) in steps.iter_mut().enumerate() {
        let Some(server) = step.server.as_mut() else {
            continue;
        };
        let start = step.result.started_unix_ms;
        server.per_second = samples
            .iter()
            .filter(|(idx, _, _)| *idx == Some(i as u32))
            .map(|&(_, unix_ms, sample)| {
                let disk = sample.get("disks").and_then(Value::as_array).and_then(|d| {
                    d.iter().max_by(|a, b| {
                        let u =
                            |x: &Value| x.get("util_pct").and_then(Value::as_f64).unwrap_or(0.0);
                        u(a).total_cmp(&u(b))
                    })
                });
                let df = |k: &str| {
                    disk.and_then(|d| d.get(k))
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0)
                };
                ServerSecond {
                    t_s: (unix_ms - start) as f64 / 1000.0,
                    cpu_pct: sample
                        .pointer("/cpu/util")
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0),
                    disk_util_pct: df("util_pct"),
                    r_s: df("r_per_s"),
                    w_s: df("w_per_s"),
                }
            })
            .collect();
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

/// Dataset size the plan asks for, in GiB (as the buffer pool is counted), from
/// `workload.tables` × `workload.table_size`.
pub fn dataset_gb_from_plan(plan: &Value) -> Option<f64> {
    let tables = plan.pointer("/workload/tables")?.as_f64()?;
    let rows = plan.pointer("/workload/table_size")?.as_f64()?;
    Some(tables * rows * BYTES_PER_ROW_ESTIMATE / crate::format::GIB)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_000_dataset_is_about_40_gb_that_is_37_gib() {
        // 16 × 10M rows × 250 bytes = 4e10 bytes, "about 40 GB" in the seed's decimal
        // words; the report counts in GiB like the buffer pool it is compared with.
        let plan = serde_json::json!({"workload": {"tables": 16, "table_size": 10_000_000}});
        let gib = dataset_gb_from_plan(&plan).unwrap();
        assert!((gib - 37.2529).abs() < 0.001, "{gib}");
        assert_eq!(crate::format::gib(gib), "37 GiB");
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
                    "data_disks": [{"devices": ["nvme0n1"], "device_bytes": [536870912000u64], "mount_point": "/", "fs_type": "ext4"}],
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
        assert_eq!(e.disk_size_gb, Some(500.0));
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
    fn the_variables_whose_defaults_mysql_8_4_changed_reach_the_environment_table() {
        // An 8.0 and an 8.4 server on their defaults (values from their manuals).
        let env = |version: &str, vars: serde_json::Value| {
            let doc = serde_json::json!({
                "plan": {"workload": {"tables": 1, "table_size": 1000}},
                "outcome": {"steps": [], "cancelled": false},
                "monitoring": {"environment": {
                    "server": {"version": version, "flavour": "mysql"},
                    "variables": vars,
                }, "steps": [], "missing": []}
            });
            from_results_doc(&doc, version).unwrap().environment.extra
        };
        let old = env(
            "8.0.40",
            serde_json::json!({"innodb_change_buffering": "all", "innodb_io_capacity": "200",
                "innodb_use_fdatasync": "OFF", "temptable_use_mmap": "ON"}),
        );
        let new = env(
            "8.4.3",
            serde_json::json!({"innodb_change_buffering": "none", "innodb_io_capacity": "10000",
                "innodb_use_fdatasync": "ON", "temptable_use_mmap": "OFF"}),
        );
        for k in [
            "innodb_change_buffering",
            "innodb_io_capacity",
            "innodb_use_fdatasync",
            "temptable_use_mmap",
        ] {
            assert!(
                old.contains_key(k) && new.contains_key(k) && old[k] != new[k],
                "{k}: {old:?} / {new:?}"
            );
        }
    }

    #[test]
    fn per_second_samples_of_the_document_become_the_steps_server_seconds() {
        // A real step result from a fixture, its window moved to 10 s after the epoch.
        let fixture: Vec<ReportRun> = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/report/seed_000.json"
        ))
        .unwrap();
        let mut result = fixture[0].steps[0].result.clone();
        result.started_unix_ms = 10_000;
        let doc = serde_json::json!({
            "plan": {},
            "outcome": {"steps": [result], "cancelled": false},
            "monitoring": {
                "steps": [{"step": 0, "expected_samples": 2, "os": {"cpu_util_avg": 40.0, "samples": 2}}],
                "server_samples": [
                    {"step_index": 0, "unix_ms": 11_000, "sample": {"cpu": {"util": 30.0}, "disks": [
                        {"name": "sda", "util_pct": 5.0, "r_per_s": 1.0, "w_per_s": 9.0},
                        {"name": "nvme0n1", "util_pct": 60.0, "r_per_s": 100.0, "w_per_s": 50.0}]}},
                    {"step_index": 0, "unix_ms": 12_000, "sample": {"cpu": {"util": 50.0}, "disks": []}},
                    {"step_index": null, "unix_ms": 13_000, "sample": {"cpu": {"util": 99.0}}}
                ],
                "mysql_samples": []
            }
        });
        let r = from_results_doc(&doc, "lab").unwrap();
        let secs = &r.steps[0].server.as_ref().unwrap().per_second;
        assert_eq!(secs.len(), 2, "{secs:?}");
        assert_eq!((secs[0].t_s, secs[0].cpu_pct), (1.0, 30.0));
        assert_eq!(
            (secs[0].disk_util_pct, secs[0].r_s, secs[0].w_s),
            (60.0, 100.0, 50.0)
        );
        assert_eq!(
            (secs[1].t_s, secs[1].cpu_pct, secs[1].disk_util_pct),
            (2.0, 50.0, 0.0)
        );
    }

    #[test]
    fn results_doc_without_steps_names_the_problem() {
        let doc = serde_json::json!({"plan": {}, "outcome": {"cancelled": false}});
        let e = from_results_doc(&doc, "x").unwrap_err();
        assert!(e.contains("outcome.steps"), "{e}");
    }
}
