//! Reading report input files: the `--json` document of `dbdyno run` / `dbdyno ladder`
//! (the typed [`ResultsDocument`], docs/json-schema.md), or [`ReportRun`] JSON as the
//! report's own JSON output and the test fixtures write it (one object, or an array).
//!
//! A results document knows the plan and the steps. Server facts come from its
//! `monitoring` record when the run was monitored (the environment snapshot and
//! per-step server figures); otherwise only from the plan (dataset size, prewarm).

use dbdyno_engine::{Plan, StepResult};
use dbdyno_results::{EnvironmentSnapshot, Monitoring, ResultsDocument, Sampled, ServerSample};
use serde_json::Value;

use super::{EnvironmentFacts, MysqlFigures, ReportRun, ReportStep, ServerFigures, ServerSecond};
use crate::error::ReportError;

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
    let bad = |detail: String| ReportError::Input {
        source_name: source.to_string(),
        detail,
    };
    // Which of the three kinds the file is, from its top level alone; then it is read
    // as that kind's type, whose error names the field that is wrong.
    let doc: Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    match &doc {
        Value::Array(_) => serde_json::from_value::<Vec<ReportRun>>(doc)
            .map_err(|e| bad(format!("not an array of report runs: {e}"))),
        Value::Object(map) if map.contains_key("outcome") => {
            let results: ResultsDocument = serde_json::from_value(doc)
                .map_err(|e| bad(format!("not a DB Dyno results document: {e}")))?;
            Ok(vec![from_results_doc(&results, default_name)])
        }
        Value::Object(map) if map.contains_key("steps") => serde_json::from_value(doc)
            .map(|r| vec![r])
            .map_err(|e| bad(format!("not a report run: {e}"))),
        _ => Err(bad(
            "neither a `dbdyno … --json` results document (it has `plan` and `outcome`) nor report runs"
                .to_string(),
        )),
    }
}

/// Converts a `--json` results document into a run named `env_name`.
pub fn from_results_doc(doc: &ResultsDocument, env_name: &str) -> ReportRun {
    let outcome = &doc.outcome;
    // Steps that failed while the ladder went on (`--on-step-error=continue`).
    let failed_steps: Vec<String> = outcome
        .failed_steps
        .iter()
        .map(|f| format!("{}: {}", f.label, f.error))
        .collect();
    let state = if outcome.failure.is_some() {
        "failed"
    } else if outcome.cancelled {
        "cancelled"
    } else if !failed_steps.is_empty() {
        "partial"
    } else {
        "finished"
    };
    let mut run = assemble(
        Some(doc.plan.clone()),
        outcome.steps.clone(),
        doc.monitoring.as_ref(),
        EnvironmentFacts::default(),
        Some(outcome.prewarm.is_some()),
    );
    if let Some(m) = &doc.monitoring {
        per_second_from_samples(&mut run.steps, &m.server_samples);
    }
    if let Some(f) = &outcome.failure {
        run.warnings.push(format!("the run stopped early: {f}"));
    }
    run.warnings.extend(
        failed_steps
            .iter()
            .map(|l| format!("a step failed and was not measured: {l}")),
    );
    run.id = env_name.to_string();
    run.env_name = env_name.to_string();
    run.state = Some(state.to_string());
    run.command_line = doc.command_line_or_name();
    run.tool_version = doc.tool_version.clone();
    run
}

/// What every source of runs shares (the `--json` document and the history): the plan,
/// the step results and the monitoring record (environment snapshot, per-step server
/// figures and missing metrics) become a [`ReportRun`] with its environment facts,
/// per-step server and MySQL figures, warnings about missing metrics, and start/end
/// times. `environment` holds facts already known (they win over the snapshot's).
/// `prewarm_done` is `None` when the source cannot know (a run imported from sysbench's
/// output). The caller fills in the identity (id, names, state, command, version) and
/// the per-second samples ([`per_second_from_samples`]).
pub fn assemble(
    plan: Option<Plan>,
    results: Vec<StepResult>,
    monitoring: Option<&Monitoring>,
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
    if let Some(m) = monitoring {
        monitoring_facts(&mut environment, &m.environment);
        monitoring_steps(&mut steps, m);
    }
    if environment.dataset_gb_estimate.is_none() {
        environment.dataset_gb_estimate = plan.as_ref().map(dataset_gb_from_plan);
    }
    if environment.prewarm_done.is_none() {
        environment.prewarm_done = prewarm_done;
    }
    let warnings: Vec<String> = monitoring
        .map(|m| {
            m.missing
                .iter()
                .map(|x| format!("not measured: {} ({})", x.what, x.why))
                .collect()
        })
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

/// Environment facts from the monitoring snapshot.
fn monitoring_facts(e: &mut EnvironmentFacts, env: &EnvironmentSnapshot) {
    let os = env.os.as_ref();
    e.cpu_model = e
        .cpu_model
        .take()
        .or_else(|| os.and_then(|o| o.cpu_model.clone()));
    e.cores = e.cores.or_else(|| os.and_then(|o| o.cpus));
    e.memory_gb = e
        .memory_gb
        .or_else(|| os.and_then(|o| o.mem_total_mb).map(|mb| mb / 1024.0));
    e.kernel = e
        .kernel
        .take()
        .or_else(|| os.and_then(|o| o.kernel.clone()));
    let disk = env.data_disks.first();
    if e.data_disk.is_none() {
        e.data_disk = disk.and_then(|d| {
            (!d.devices.is_empty()).then(|| {
                format!(
                    "{} ({}, {})",
                    d.devices.join(", "),
                    d.mount_point,
                    d.fs_type
                )
            })
        });
    }
    let server = env.server.as_ref();
    e.mysql_version = e
        .mysql_version
        .take()
        .or_else(|| server.map(|s| s.version.clone()));
    e.flavour = e
        .flavour
        .take()
        .or_else(|| server.map(|s| s.flavour.key().to_string()));
    e.disk_size_gb = e.disk_size_gb.or_else(|| {
        let d = disk?;
        // The data disk's size: its block devices' sizes, else its filesystem's.
        let devices: u64 = d.device_bytes.iter().flatten().sum();
        let bytes = if devices > 0 {
            devices
        } else {
            d.filesystem.as_ref()?.total_bytes
        };
        Some(bytes as f64 / crate::format::GIB)
    });
    server_variables(e, env);
    e.client_cores = e.client_cores.or(Some(env.client.cores));
}

/// The server variables the environment table shows, where the facts lack them.
fn server_variables(e: &mut EnvironmentFacts, env: &EnvironmentSnapshot) {
    let var = |k: &str| env.variables.get(k).cloned();
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
fn monitoring_steps(steps: &mut [ReportStep], m: &Monitoring) {
    for item in &m.steps {
        let Some(step) = steps.get_mut(item.step) else {
            continue;
        };
        if let Some(os) = &item.os {
            // The data disk is the busiest sampled device.
            let disk = os
                .disks
                .iter()
                .max_by(|a, b| a.util_pct_avg.total_cmp(&b.util_pct_avg));
            step.server = Some(ServerFigures {
                cpu_pct_avg: os.cpu_util_avg.unwrap_or(0.0),
                cpu_pct_max: os.cpu_util_max.unwrap_or(0.0),
                iowait_pct_avg: os.cpu_iowait_avg,
                disk_util_pct_avg: disk.map_or(0.0, |d| d.util_pct_avg),
                disk_util_pct_max: disk.map_or(0.0, |d| d.util_pct_max),
                samples: os.samples,
                expected_samples: item.expected_samples,
                per_second: Vec::new(),
            });
        }
        if let Some(my) = &item.mysql {
            step.mysql = Some(MysqlFigures {
                hit_rate_pct: my.hit_rate_pct,
                row_lock_waits: Some(my.row_lock_waits),
                row_lock_time_ms: Some(my.row_lock_time_ms as f64),
                threads_running_max: Some(my.threads_running_max as u32),
            });
        }
    }
}

/// Each step's server seconds from per-second samples (with the index of the step
/// whose window holds each): busy CPU and the busiest disk's utilisation and IOPS,
/// `t_s` after the step's measurement started. Steps without server figures are left
/// alone.
pub fn per_second_from_samples(steps: &mut [ReportStep], samples: &[Sampled<ServerSample>]) {
    for (i, step) in steps.iter_mut().enumerate() {
        let Some(server) = step.server.as_mut() else {
            continue;
        };
        let start = step.result.started_unix_ms;
        server.per_second = samples
            .iter()
            .filter(|s| s.step_index == Some(i as u32))
            .map(|s| {
                let disk = s
                    .sample
                    .disks
                    .iter()
                    .max_by(|a, b| a.util_pct.total_cmp(&b.util_pct));
                ServerSecond {
                    t_s: (s.unix_ms - start) as f64 / 1000.0,
                    cpu_pct: s.sample.cpu.map_or(0.0, |c| c.util),
                    disk_util_pct: disk.map_or(0.0, |d| d.util_pct),
                    r_s: disk.map_or(0.0, |d| d.r_per_s),
                    w_s: disk.map_or(0.0, |d| d.w_per_s),
                }
            })
            .collect();
    }
}

/// Dataset size the plan asks for, in GiB (as the buffer pool is counted), from
/// `workload.tables` × `workload.table_size`.
pub fn dataset_gb_from_plan(plan: &Plan) -> f64 {
    plan.workload.tables as f64 * plan.workload.table_size as f64 * BYTES_PER_ROW_ESTIMATE
        / crate::format::GIB
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A monitored two-step ladder's `--json`, as an earlier DB Dyno wrote it
    /// (tests/fixtures/results/README.md).
    fn fixture() -> ResultsDocument {
        serde_json::from_str(include_str!(
            "../../../../tests/fixtures/results/v1_ladder.json"
        ))
        .unwrap()
    }

    fn monitoring(doc: &mut ResultsDocument) -> &mut Monitoring {
        doc.monitoring.as_mut().expect("the fixture is monitored")
    }

    #[test]
    fn seed_000_dataset_is_about_40_gb_that_is_37_gib() {
        // 16 × 10M rows × 250 bytes = 4e10 bytes, "about 40 GB" in the seed's decimal
        // words; the report counts in GiB like the buffer pool it is compared with.
        let mut plan = fixture().plan;
        (plan.workload.tables, plan.workload.table_size) = (16, 10_000_000);
        let gib = dataset_gb_from_plan(&plan);
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
        let mut doc = fixture();
        let m = monitoring(&mut doc);
        let env = &mut m.environment;
        let os = env.os.as_mut().unwrap();
        os.cpu_model = Some("AMD EPYC".into());
        os.mem_total_mb = Some(65536.0);
        for (k, v) in [
            ("innodb_buffer_pool_size", "268435456"),
            ("log_bin", "OFF"),
            ("innodb_io_capacity", "200"),
        ] {
            env.variables.insert(k.into(), v.into());
        }
        let disk = &mut env.data_disks[0];
        (disk.devices, disk.device_bytes) = (vec!["nvme0n1".into()], vec![Some(536_870_912_000)]);
        (disk.mount_point, disk.fs_type) = ("/".into(), "ext4".into());
        m.missing = vec![dbdyno_results::Missing::new(
            "disk utilisation",
            "no SSH access",
        )];
        let r = from_results_doc(&doc, "lab");
        let e = &r.environment;
        assert_eq!(e.cpu_model.as_deref(), Some("AMD EPYC"));
        assert_eq!(e.memory_gb, Some(64.0));
        assert_eq!(e.buffer_pool_gb, Some(0.25));
        assert_eq!(e.disk_size_gb, Some(500.0));
        assert_eq!(e.log_bin, Some(false));
        assert_eq!(e.flavour.as_deref(), Some("mariadb"));
        assert_eq!(e.data_disk.as_deref(), Some("nvme0n1 (/, ext4)"));
        assert_eq!(
            e.extra.get("innodb_io_capacity").map(String::as_str),
            Some("200")
        );
        assert_eq!(
            r.warnings,
            ["not measured: disk utilisation (no SSH access)"]
        );
        // Each step's server figures, from the record's per-step figures.
        let server = r.steps[0].server.as_ref().expect("server figures");
        assert_eq!(server.expected_samples, 2);
        assert!(server.cpu_pct_avg > 0.0, "{server:?}");
    }

    #[test]
    fn the_variables_whose_defaults_mysql_8_4_changed_reach_the_environment_table() {
        // An 8.0 and an 8.4 server on their defaults (values from their manuals).
        let env = |version: &str, vars: [(&str, &str); 4]| {
            let mut doc = fixture();
            let m = monitoring(&mut doc);
            m.environment.server.as_mut().unwrap().version = version.into();
            m.environment.variables = vars
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            from_results_doc(&doc, version).environment.extra
        };
        let old = env(
            "8.0.40",
            [
                ("innodb_change_buffering", "all"),
                ("innodb_io_capacity", "200"),
                ("innodb_use_fdatasync", "OFF"),
                ("temptable_use_mmap", "ON"),
            ],
        );
        let new = env(
            "8.4.3",
            [
                ("innodb_change_buffering", "none"),
                ("innodb_io_capacity", "10000"),
                ("innodb_use_fdatasync", "ON"),
                ("temptable_use_mmap", "OFF"),
            ],
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
        let mut doc = fixture();
        doc.outcome.steps[0].started_unix_ms = 10_000;
        let m = monitoring(&mut doc);
        let template = m.server_samples[0].sample.clone();
        let sample = |util: f64, disks: &[(&str, f64, f64, f64)]| {
            let mut s = template.clone();
            s.cpu.as_mut().unwrap().util = util;
            s.disks = disks
                .iter()
                .map(|&(name, util_pct, r_per_s, w_per_s)| {
                    let mut d = template.disks[0].clone();
                    (d.name, d.util_pct, d.r_per_s, d.w_per_s) =
                        (name.into(), util_pct, r_per_s, w_per_s);
                    d
                })
                .collect();
            s
        };
        let at = |step_index, unix_ms, sample| Sampled {
            step_index,
            unix_ms,
            sample,
        };
        m.server_samples = vec![
            at(
                Some(0),
                11_000,
                sample(
                    30.0,
                    &[("sda", 5.0, 1.0, 9.0), ("nvme0n1", 60.0, 100.0, 50.0)],
                ),
            ),
            at(Some(0), 12_000, sample(50.0, &[])),
            at(None, 13_000, sample(99.0, &[])),
        ];
        let r = from_results_doc(&doc, "lab");
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
        let mut doc: Value = serde_json::from_str(include_str!(
            "../../../../tests/fixtures/results/v1_ladder.json"
        ))
        .unwrap();
        doc["outcome"].as_object_mut().unwrap().remove("steps");
        let e = runs_from_json(&doc.to_string(), "x.json", "x").unwrap_err();
        assert!(e.to_string().contains("steps"), "{e}");
    }
}
