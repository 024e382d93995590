//! Writing runs: each call is one short transaction, so a crash keeps everything that
//! returned and concurrent writers (the app and a CLI run) only wait for each other.

use dbdyno_engine::StepResult;
use sqlx::{Sqlite, Transaction};

use crate::confidence::{update_columns, ConfidenceColumns};
use crate::model::{to_value, NewRun, RunState};
use crate::{process, time, History, HistoryError};
use dbdyno_results::{Monitoring, MysqlSample, Sampled, ServerSample};

impl History {
    /// Creates a run in state `running`, owned by this process. Returns its id.
    pub async fn create_run(&self, new: &NewRun) -> Result<i64, HistoryError> {
        let (pid, start) = process::current();
        self.insert_run(new, RunState::Running, Some((pid, start)))
            .await
    }

    async fn insert_run(
        &self,
        new: &NewRun,
        state: RunState,
        writer: Option<(u32, u64)>,
    ) -> Result<i64, HistoryError> {
        let mut tx = self.pool.begin().await?;
        let id = insert_run(&mut tx, new, state, writer).await?;
        tx.commit().await?;
        Ok(id)
    }

    /// Stores one finished step with its intervals and histogram, in one transaction.
    /// Storing the same step index again replaces it.
    pub async fn record_step(
        &self,
        run_id: i64,
        step_index: u32,
        result: &StepResult,
    ) -> Result<(), HistoryError> {
        let mut tx = self.pool.begin().await?;
        insert_step(&mut tx, run_id, step_index, result).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Sets the final state (and the error that ended a failed run).
    pub async fn finish_run(
        &self,
        run_id: i64,
        state: RunState,
        failure: Option<&str>,
    ) -> Result<(), HistoryError> {
        let r = sqlx::query("UPDATE runs SET state = ?, ended_at_ms = ?, failure = ? WHERE id = ?")
            .bind(state.as_str())
            .bind(time::now_ms())
            .bind(failure)
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        if r.rows_affected() == 0 {
            return Err(HistoryError::NoSuchRun(run_id));
        }
        Ok(())
    }

    pub async fn add_warning(
        &self,
        run_id: i64,
        step_index: Option<u32>,
        text: &str,
    ) -> Result<(), HistoryError> {
        sqlx::query("INSERT INTO warnings (run_id, step_index, at_ms, text) VALUES (?, ?, ?, ?)")
            .bind(run_id)
            .bind(step_index)
            .bind(time::now_ms())
            .bind(text)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Stores the prepare report (`"prepare"`) or the prewarm report (`"prewarm"`).
    pub async fn set_phase_report(
        &self,
        run_id: i64,
        phase: PhaseReport,
        report: &serde_json::Value,
    ) -> Result<(), HistoryError> {
        let column = match phase {
            PhaseReport::Prepare => JsonColumn::Prepare,
            PhaseReport::Prewarm => JsonColumn::Prewarm,
        };
        self.set_json(run_id, column, report).await?;
        Ok(())
    }

    /// Replaces the environment snapshot (server facts found after the run started).
    pub async fn set_environment(
        &self,
        run_id: i64,
        environment: &serde_json::Value,
    ) -> Result<(), HistoryError> {
        self.set_json(run_id, JsonColumn::Environment, environment)
            .await?;
        Ok(())
    }

    /// Stores what monitoring recorded about the run (the `monitoring` object of
    /// `--json`; its per-second samples go to their own tables, not into the record).
    pub async fn set_monitoring(
        &self,
        run_id: i64,
        monitoring: &Monitoring,
    ) -> Result<(), HistoryError> {
        let record = to_value(&monitoring.without_samples(), "the monitoring record")?;
        if self
            .set_json(run_id, JsonColumn::Monitoring, &record)
            .await?
            == 0
        {
            return Err(HistoryError::NoSuchRun(run_id));
        }
        Ok(())
    }

    /// Writes one JSON column of a run; returns the rows changed (0: no such run).
    async fn set_json(
        &self,
        run_id: i64,
        column: JsonColumn,
        value: &serde_json::Value,
    ) -> Result<u64, HistoryError> {
        let r = sqlx::query(column.update_sql())
            .bind(value.to_string())
            .bind(run_id)
            .execute(&self.pool)
            .await?;
        Ok(r.rows_affected())
    }

    /// Stores per-second server samples (the monitor's `ServerSample`).
    pub async fn add_server_samples(
        &self,
        run_id: i64,
        rows: &[Sampled<ServerSample>],
    ) -> Result<(), HistoryError> {
        self.add_samples("server_samples", run_id, rows).await
    }

    /// Stores per-second MySQL status samples.
    pub async fn add_mysql_samples(
        &self,
        run_id: i64,
        rows: &[Sampled<MysqlSample>],
    ) -> Result<(), HistoryError> {
        self.add_samples("mysql_samples", run_id, rows).await
    }

    async fn add_samples<T: serde::Serialize>(
        &self,
        table: &str,
        run_id: i64,
        rows: &[Sampled<T>],
    ) -> Result<(), HistoryError> {
        let mut tx = self.pool.begin().await?;
        insert_samples(&mut tx, table, run_id, rows).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Stores a whole run at once (an import): the run and all its steps land in one
    /// transaction, or nothing does.
    pub async fn insert_finished_run(
        &self,
        new: &NewRun,
        steps: &[StepResult],
        state: RunState,
        ended_at_ms: Option<i64>,
    ) -> Result<i64, HistoryError> {
        let mut tx = self.pool.begin().await?;
        let id = insert_run(&mut tx, new, state, None).await?;
        for (i, s) in steps.iter().enumerate() {
            insert_step(&mut tx, id, i as u32, s).await?;
        }
        if let Some(f) = &new.import_file {
            sqlx::query("INSERT INTO import_files (run_id, sha256, file) VALUES (?, ?, ?)")
                .bind(id)
                .bind(&f.sha256)
                .bind(&f.name)
                .execute(&mut *tx)
                .await?;
        }
        sqlx::query("UPDATE runs SET ended_at_ms = ? WHERE id = ?")
            .bind(ended_at_ms)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(id)
    }
}

/// Which phase report [`History::set_phase_report`] stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseReport {
    Prepare,
    Prewarm,
}

/// A snapshot column's text: `v` as JSON, or NULL.
fn json_text<T: serde::Serialize>(
    v: &Option<T>,
    what: &'static str,
) -> Result<Option<String>, HistoryError> {
    Ok(v.as_ref()
        .map(|v| to_value(v, what))
        .transpose()?
        .map(|v| v.to_string()))
}

/// Per-second samples into `table` (`server_samples`, `mysql_samples`), in `tx`.
pub(crate) async fn insert_samples<T: serde::Serialize>(
    tx: &mut Transaction<'_, Sqlite>,
    table: &str,
    run_id: i64,
    rows: &[Sampled<T>],
) -> Result<(), HistoryError> {
    let sql = format!(
        "INSERT INTO {table} (run_id, step_index, unix_ms, sample_json) VALUES (?, ?, ?, ?)"
    );
    for r in rows {
        let sample = to_value(&r.sample, "a sample")?.to_string();
        sqlx::query(&sql)
            .bind(run_id)
            .bind(r.step_index)
            .bind(r.unix_ms)
            .bind(sample)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

pub(crate) async fn insert_run(
    tx: &mut Transaction<'_, Sqlite>,
    new: &NewRun,
    state: RunState,
    writer: Option<(u32, u64)>,
) -> Result<i64, HistoryError> {
    let labels = to_value(&new.labels, "the labels")?.to_string();
    let r = sqlx::query(
        "INSERT INTO runs (env, source, command, state, started_at_ms, tool_version, labels_json,
                           profile_json, plan_json, environment_json, writer_pid, writer_start_s)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&new.env)
    .bind(new.source.as_str())
    .bind(&new.command)
    .bind(state.as_str())
    .bind(new.started_at_ms.unwrap_or_else(time::now_ms))
    .bind(env!("CARGO_PKG_VERSION"))
    .bind(labels)
    .bind(json_text(&new.profile, "the profile")?)
    .bind(json_text(&new.plan, "the plan")?)
    .bind(json_text(&new.environment, "the environment")?)
    .bind(writer.map(|w| w.0 as i64))
    .bind(writer.map(|w| w.1 as i64))
    .execute(&mut **tx)
    .await?;
    Ok(r.last_insert_rowid())
}

pub(crate) async fn insert_step(
    tx: &mut Transaction<'_, Sqlite>,
    run_id: i64,
    step_index: u32,
    result: &StepResult,
) -> Result<(), HistoryError> {
    // Intervals and the histogram have their own storage; the JSON holds the rest.
    let mut rest = result.clone();
    // A step handed over without its confidence (a result of an older build) gets it
    // from its per-second records, as the backfill gives old steps theirs.
    rest.confidence = result.confidence_or_computed().map(|c| c.into_owned());
    let columns = ConfidenceColumns::of(rest.confidence.as_ref());
    rest.intervals = Vec::new();
    rest.histogram = String::new();
    let json = to_value(&rest, "a step result")?.to_string();
    sqlx::query("DELETE FROM steps WHERE run_id = ? AND step_index = ?")
        .bind(run_id)
        .bind(step_index)
        .execute(&mut **tx)
        .await?;
    let inserted = sqlx::query(
        "INSERT INTO steps (run_id, step_index, scenario, threads, started_unix_ms, ended_unix_ms,
                            tps, qps, latency_pct_ms, p95_ms, p99_ms, result_json, histogram)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?)",
    )
    .bind(run_id)
    .bind(step_index)
    .bind(result.scenario.name())
    .bind(result.threads)
    .bind(result.started_unix_ms)
    .bind(result.ended_unix_ms)
    .bind(result.known_tps())
    .bind(result.known_qps())
    .bind(result.known_latency_pct_ms())
    .bind(result.latency.p95_ms)
    .bind(result.latency.p99_ms)
    .bind(json)
    .bind(&result.histogram)
    .bind(run_id)
    .execute(&mut **tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(HistoryError::NoSuchRun(run_id));
    }
    update_columns(&mut *tx, run_id, i64::from(step_index), &columns, None).await?;
    for (seq, r) in result.intervals.iter().enumerate() {
        sqlx::query(
            "INSERT INTO intervals (run_id, step_index, seq, elapsed_s, duration_s, end_unix_ms, threads,
                                    tps, qps, reads_ps, writes_ps, other_ps, latency_ms, percentile,
                                    errors_ps, reconnects_ps, queue_length, concurrency, late_starts,
                                    max_lag_ms, p95_ms, p99_ms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(run_id)
        .bind(step_index)
        .bind(seq as i64)
        .bind(r.elapsed_s)
        .bind(r.duration_s)
        .bind(r.end_unix_ms)
        .bind(r.threads)
        .bind(r.tps)
        .bind(r.qps)
        .bind(r.reads_ps)
        .bind(r.writes_ps)
        .bind(r.other_ps)
        .bind(r.latency_ms)
        .bind(r.percentile)
        .bind(r.errors_ps)
        .bind(r.reconnects_ps)
        .bind(r.open_loop.map(|q| q.queue as i64))
        .bind(r.open_loop.map(|q| q.concurrency as i64))
        .bind(r.open_loop.map(|q| q.late_starts as i64))
        .bind(r.open_loop.map(|q| q.max_lag_ms))
        .bind(r.p95_ms)
        .bind(r.p99_ms)
        .execute(&mut **tx)
        .await?;
    }
    insert_client_rows(tx, run_id, step_index, result).await
}

/// One `step_clients` row per load client of a step run from several clients.
async fn insert_client_rows(
    tx: &mut Transaction<'_, Sqlite>,
    run_id: i64,
    step_index: u32,
    result: &StepResult,
) -> Result<(), HistoryError> {
    for c in &result.clients {
        sqlx::query(
            "INSERT INTO step_clients (run_id, step_index, client, threads, tps, qps, latency_pct_ms,
                                       transactions, errors, reconnects, client_cpu_pct, client_bound,
                                       lost_after_s, lost_reason)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(run_id)
        .bind(step_index)
        .bind(&c.client)
        .bind(c.threads)
        .bind(c.tps)
        .bind(c.qps)
        .bind(c.latency_pct_ms)
        // SQLite integers are signed 64-bit; counts never come near the limit.
        .bind(c.transactions as i64)
        .bind(c.ignored_errors as i64)
        .bind(c.reconnects as i64)
        .bind(c.client_cpu.percent_of_machine)
        .bind(c.client_bound)
        .bind(c.lost.as_ref().map(|l| l.after_s))
        .bind(c.lost.as_ref().map(|l| l.reason.as_str()))
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// The JSON columns of `runs` that are filled in after the run starts. The SQL is fixed
/// per column (no column name is ever formatted into a statement).
#[derive(Debug, Clone, Copy)]
enum JsonColumn {
    Prepare,
    Prewarm,
    Environment,
    Monitoring,
}

impl JsonColumn {
    fn update_sql(self) -> &'static str {
        match self {
            JsonColumn::Prepare => "UPDATE runs SET prepare_json = ? WHERE id = ?",
            JsonColumn::Prewarm => "UPDATE runs SET prewarm_json = ? WHERE id = ?",
            JsonColumn::Environment => "UPDATE runs SET environment_json = ? WHERE id = ?",
            JsonColumn::Monitoring => "UPDATE runs SET monitoring_json = ? WHERE id = ?",
        }
    }
}
