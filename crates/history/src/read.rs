//! Reading runs back: the list, one whole run, deleting one.

use dbdyno_engine::results::IntervalQueue;
use dbdyno_engine::{IntervalRecord, StepResult};
use dbdyno_results::Sampled;
use sqlx::Row;

use crate::model::{source_from_db, RunState, RunSummary, StoredRun, StoredStep, StoredWarning};
use crate::{time, History, HistoryError};

type RunRow = (
    i64,
    String,
    String,
    String,
    String,
    i64,
    Option<i64>,
    String,
    String,
);

const RUN_COLUMNS: &str =
    "id, env, source, command, state, started_at_ms, ended_at_ms, tool_version, labels_json";

impl History {
    /// Every run, newest first; only those of `env` when given.
    pub async fn list_runs(&self, env: Option<&str>) -> Result<Vec<RunSummary>, HistoryError> {
        let sql = format!(
            "SELECT {RUN_COLUMNS} FROM runs WHERE (?1 IS NULL OR env = ?1) ORDER BY started_at_ms DESC, id DESC"
        );
        let rows: Vec<RunRow> = sqlx::query_as(&sql).bind(env).fetch_all(&self.pool).await?;
        let step_rows = sqlx::query(
            "SELECT run_id, scenario, tps FROM steps WHERE (?1 IS NULL OR run_id IN (SELECT id FROM runs WHERE env = ?1))
             ORDER BY run_id, step_index",
        )
        .bind(env)
        .fetch_all(&self.pool)
        .await?;
        let mut per_run: std::collections::HashMap<i64, (u32, Vec<String>, Option<f64>)> =
            std::collections::HashMap::new();
        for r in step_rows {
            // NULL: the step's TPS is unknown (a log without its summary).
            let (run_id, scenario, tps): (i64, String, Option<f64>) =
                (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
            let e = per_run.entry(run_id).or_default();
            e.0 += 1;
            if !e.1.contains(&scenario) {
                e.1.push(scenario);
            }
            if let Some(tps) = tps {
                e.2 = Some(e.2.map_or(tps, |m: f64| m.max(tps)));
            }
        }
        rows.into_iter()
            .map(|row| {
                let id = row.0;
                let (steps, scenarios, max_tps) = per_run.remove(&id).unwrap_or_default();
                Ok(RunSummary {
                    id,
                    env: row.1,
                    source: source_from_db(&row.2),
                    command: row.3,
                    state: RunState::parse(&row.4)?,
                    started_at: time::rfc3339(row.5),
                    started_at_ms: row.5,
                    ended_at_ms: row.6,
                    steps,
                    labels: parse_json(id, "labels", &row.8)?,
                    scenarios,
                    max_tps,
                })
            })
            .collect()
    }

    /// One run with everything stored about it.
    pub async fn load_run(&self, id: i64) -> Result<StoredRun, HistoryError> {
        let row = sqlx::query(
            "SELECT id, env, source, command, state, started_at_ms, ended_at_ms, tool_version, labels_json,
                    profile_json, plan_json, environment_json, monitoring_json, prepare_json, prewarm_json, failure
             FROM runs WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(HistoryError::NoSuchRun(id))?;
        let opt_json =
            |col: &str, what: &'static str| -> Result<Option<serde_json::Value>, HistoryError> {
                let text: Option<String> = row.try_get(col)?;
                text.map(|t| parse_json(id, what, &t)).transpose()
            };
        let started_at_ms: i64 = row.try_get("started_at_ms")?;
        let labels: String = row.try_get("labels_json")?;
        let state: String = row.try_get("state")?;
        let source: String = row.try_get("source")?;
        let mut run = StoredRun {
            id,
            env: row.try_get("env")?,
            source: source_from_db(&source),
            command: row.try_get("command")?,
            state: RunState::parse(&state)?,
            started_at: time::rfc3339(started_at_ms),
            started_at_ms,
            ended_at_ms: row.try_get("ended_at_ms")?,
            tool_version: row.try_get("tool_version")?,
            labels: parse_json(id, "labels", &labels)?,
            profile: None,
            plan: None,
            environment: opt_json("environment_json", "environment")?,
            monitoring: None,
            prepare: None,
            prewarm: None,
            failure: row.try_get("failure")?,
            steps: Vec::new(),
            warnings: Vec::new(),
            server_samples: Vec::new(),
            mysql_samples: Vec::new(),
        };
        // The profile, plan, phase reports and monitoring record as this version's types. One it cannot read
        // (written by a version with another layout) leaves the run readable without it,
        // and its warnings say so.
        let mut unreadable = Vec::new();
        run.profile = typed(
            opt_json("profile_json", "profile")?,
            "profile",
            &mut unreadable,
        );
        run.plan = typed(opt_json("plan_json", "plan")?, "plan", &mut unreadable);
        run.prepare = typed(
            opt_json("prepare_json", "prepare report")?,
            "prepare report",
            &mut unreadable,
        );
        run.prewarm = typed(
            opt_json("prewarm_json", "prewarm report")?,
            "prewarm report",
            &mut unreadable,
        );
        // Runs recorded before the monitoring column kept the record in the environment.
        let monitoring = opt_json("monitoring_json", "monitoring record")?.or_else(|| {
            run.environment
                .as_mut()
                .and_then(|e| e.as_object_mut()?.remove("monitoring"))
        });
        run.monitoring = typed(monitoring, "monitoring record", &mut unreadable);
        run.steps = self.load_steps(id).await?;
        run.warnings = sqlx::query_as::<_, (Option<i64>, i64, String)>(
            "SELECT step_index, at_ms, text FROM warnings WHERE run_id = ? ORDER BY id",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(|(step, at_ms, text)| StoredWarning {
            step_index: step.map(|s| s as u32),
            at_ms,
            text,
        })
        .collect();
        run.server_samples = self
            .load_samples("server_samples", "server", id, &mut unreadable)
            .await?;
        run.mysql_samples = self
            .load_samples("mysql_samples", "MySQL", id, &mut unreadable)
            .await?;
        run.warnings
            .extend(unreadable.into_iter().map(|text| StoredWarning {
                step_index: None,
                at_ms: started_at_ms,
                text,
            }));
        Ok(run)
    }

    async fn load_steps(&self, id: i64) -> Result<Vec<StoredStep>, HistoryError> {
        let steps: Vec<(i64, String, String)> = sqlx::query_as(
            "SELECT step_index, result_json, histogram FROM steps WHERE run_id = ? ORDER BY step_index",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::with_capacity(steps.len());
        for (index, json, histogram) in steps {
            let mut result: StepResult =
                serde_json::from_str(&json).map_err(|cause| HistoryError::Corrupt {
                    run: id,
                    what: "step result",
                    cause,
                })?;
            result.histogram = histogram;
            result.intervals = self.load_intervals(id, index).await?;
            out.push(StoredStep {
                index: index as u32,
                result,
            });
        }
        Ok(out)
    }

    async fn load_intervals(
        &self,
        id: i64,
        step: i64,
    ) -> Result<Vec<IntervalRecord>, HistoryError> {
        let mut conn = self.pool.acquire().await?;
        intervals_of(&mut conn, id, step).await
    }

    /// The run's per-second samples of one kind, in time order. Samples this version
    /// cannot read (another layout) are left out, and `unreadable` says how many.
    async fn load_samples<T: serde::de::DeserializeOwned>(
        &self,
        table: &str,
        kind: &str,
        id: i64,
        unreadable: &mut Vec<String>,
    ) -> Result<Vec<Sampled<T>>, HistoryError> {
        let sql = format!("SELECT step_index, unix_ms, sample_json FROM {table} WHERE run_id = ? ORDER BY unix_ms, rowid");
        let rows: Vec<(Option<i64>, i64, String)> =
            sqlx::query_as(&sql).bind(id).fetch_all(&self.pool).await?;
        let (total, mut first_error) = (rows.len(), None);
        let samples: Vec<Sampled<T>> = rows
            .into_iter()
            .filter_map(|(step, unix_ms, json)| match serde_json::from_str(&json) {
                Ok(sample) => Some(Sampled {
                    step_index: step.map(|s| s as u32),
                    unix_ms,
                    sample,
                }),
                Err(e) => {
                    first_error.get_or_insert(e);
                    None
                }
            })
            .collect();
        if let Some(e) = first_error {
            unreadable.push(format!(
                "{} of the run's {total} {kind} samples are left out: this version cannot read their layout ({e})",
                total - samples.len()
            ));
        }
        Ok(samples)
    }

    /// Runs imported from a file with this content (SHA-256, hex), oldest first, with the
    /// file name they were imported from.
    pub async fn find_imports(&self, sha256: &str) -> Result<Vec<(i64, String)>, HistoryError> {
        Ok(
            sqlx::query_as(
                "SELECT run_id, file FROM import_files WHERE sha256 = ? ORDER BY run_id",
            )
            .bind(sha256)
            .fetch_all(&self.pool)
            .await?,
        )
    }

    /// Deletes a run and everything stored with it.
    pub async fn delete_run(&self, id: i64) -> Result<(), HistoryError> {
        let r = sqlx::query("DELETE FROM runs WHERE id = ?")
            .bind(id)
            .execute(&self.pool)
            .await?;
        if r.rows_affected() == 0 {
            return Err(HistoryError::NoSuchRun(id));
        }
        Ok(())
    }
}

fn parse_json<T: serde::de::DeserializeOwned>(
    run: i64,
    what: &'static str,
    text: &str,
) -> Result<T, HistoryError> {
    serde_json::from_str(text).map_err(|cause| HistoryError::Corrupt { run, what, cause })
}

/// The per-second records of one stored step, in order (the history's reads and the
/// confidence backfill).
pub(crate) async fn intervals_of(
    conn: &mut sqlx::SqliteConnection,
    id: i64,
    step: i64,
) -> Result<Vec<IntervalRecord>, HistoryError> {
    let rows = sqlx::query(
        "SELECT elapsed_s, duration_s, end_unix_ms, threads, tps, qps, reads_ps, writes_ps, other_ps,
                latency_ms, percentile, errors_ps, reconnects_ps,
                queue_length, concurrency, late_starts, max_lag_ms, p95_ms, p99_ms
         FROM intervals WHERE run_id = ? AND step_index = ? ORDER BY seq",
    )
    .bind(id)
    .bind(step)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(IntervalRecord {
                elapsed_s: r.try_get(0)?,
                duration_s: r.try_get(1)?,
                end_unix_ms: r.try_get(2)?,
                threads: r.try_get::<i64, _>(3)? as u32,
                tps: r.try_get(4)?,
                qps: r.try_get(5)?,
                reads_ps: r.try_get(6)?,
                writes_ps: r.try_get(7)?,
                other_ps: r.try_get(8)?,
                latency_ms: r.try_get(9)?,
                percentile: r.try_get(10)?,
                // NULL for intervals stored before version 6: left unknown.
                p95_ms: r.try_get(17)?,
                p99_ms: r.try_get(18)?,
                errors_ps: r.try_get(11)?,
                reconnects_ps: r.try_get(12)?,
                open_loop: open_loop_of(r)?,
            })
        })
        .collect()
}

/// An interval's open-loop queue; None when the columns are NULL (a closed loop, or an
/// interval stored before they existed).
fn open_loop_of(r: &sqlx::sqlite::SqliteRow) -> Result<Option<IntervalQueue>, sqlx::Error> {
    let Some(queue) = r.try_get::<Option<i64>, _>(13)? else {
        return Ok(None);
    };
    Ok(Some(IntervalQueue {
        queue: queue as u64,
        concurrency: r.try_get::<Option<i64>, _>(14)?.unwrap_or(0) as u64,
        late_starts: r.try_get::<Option<i64>, _>(15)?.unwrap_or(0) as u64,
        max_lag_ms: r.try_get::<Option<f64>, _>(16)?.unwrap_or(0.0),
    }))
}

/// `value` as `T`, or None with a line for the run's warnings saying why not.
fn typed<T: serde::de::DeserializeOwned>(
    value: Option<serde_json::Value>,
    what: &str,
    unreadable: &mut Vec<String>,
) -> Option<T> {
    match serde_json::from_value(value?) {
        Ok(v) => Some(v),
        Err(e) => {
            unreadable.push(format!(
                "the run's {what} is left out: this version cannot read its layout ({e})"
            ));
            None
        }
    }
}
