//! Each step's confidence in the history: the headline columns of `steps` (`tps_lo` …
//! `settled`, migration 20261202000000) copied out of the step's
//! [`StepConfidence`], and the one-time backfill of steps stored before steps carried
//! one.
//!
//! The backfill runs when the history opens, after the migrations: SQL cannot do batch
//! means, so the steps whose `settled` is NULL and that have per-second records get
//! their confidence made here from those records, in one transaction, written to the
//! columns and into `result_json`. It is idempotent: a step it filled has `settled` set
//! and is never looked at again; a step without per-second records stays without (no
//! interval is made up).
//!
//! Non-goals: making the confidence (the engine's [`StepConfidence`] does), reading it
//! back (it is part of the step's result JSON).

use dbdyno_engine::stats::{Spread, StepConfidence};
use dbdyno_engine::StepResult;
use sqlx::{SqliteConnection, SqlitePool};

use crate::HistoryError;

/// The confidence columns of one step, in the table's order.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct ConfidenceColumns {
    pub tps: Option<(f64, f64)>,
    pub qps: Option<(f64, f64)>,
    pub p95: Option<(f64, f64)>,
    pub p99: Option<(f64, f64)>,
    pub cv_pct: Option<f64>,
    /// NULL only for a step without a confidence.
    pub settled: Option<bool>,
}

impl ConfidenceColumns {
    pub(crate) fn of(c: Option<&StepConfidence>) -> ConfidenceColumns {
        let Some(c) = c else {
            return ConfidenceColumns::default();
        };
        let b = Spread::bounds;
        ConfidenceColumns {
            tps: b(&c.spreads.tps),
            qps: b(&c.spreads.qps),
            p95: b(&c.spreads.p95),
            p99: b(&c.spreads.p99),
            cv_pct: c.cv_pct,
            settled: Some(c.settled),
        }
    }

    /// The values of the REAL columns in their order (`tps_lo` … `cv_pct`).
    fn values(&self) -> [Option<f64>; 9] {
        let lo = |b: Option<(f64, f64)>| b.map(|b| b.0);
        let hi = |b: Option<(f64, f64)>| b.map(|b| b.1);
        [
            lo(self.tps),
            hi(self.tps),
            lo(self.qps),
            hi(self.qps),
            lo(self.p95),
            hi(self.p95),
            lo(self.p99),
            hi(self.p99),
            self.cv_pct,
        ]
    }
}

/// Sets the confidence columns of one stored step (`result_json` is the caller's).
pub(crate) async fn update_columns(
    conn: &mut SqliteConnection,
    run_id: i64,
    step_index: i64,
    columns: &ConfidenceColumns,
    result_json: Option<&str>,
) -> Result<(), HistoryError> {
    let mut q = sqlx::query(
        "UPDATE steps SET tps_lo = ?, tps_hi = ?, qps_lo = ?, qps_hi = ?, p95_lo = ?, p95_hi = ?,
                          p99_lo = ?, p99_hi = ?, cv_pct = ?, settled = ?,
                          result_json = COALESCE(?, result_json)
         WHERE run_id = ? AND step_index = ?",
    );
    for v in columns.values() {
        q = q.bind(v);
    }
    q.bind(columns.settled)
        .bind(result_json)
        .bind(run_id)
        .bind(step_index)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Steps that have per-second records but no confidence yet.
const PENDING: &str = "FROM steps s WHERE s.settled IS NULL AND EXISTS
     (SELECT 1 FROM intervals i WHERE i.run_id = s.run_id AND i.step_index = s.step_index)";

/// Gives every stored step with per-second records and no confidence its confidence;
/// returns how many steps it filled. See the module documentation.
pub(crate) async fn backfill(pool: &SqlitePool) -> Result<usize, HistoryError> {
    // The usual case, nothing to do, costs one read and takes no write lock.
    let pending: bool = sqlx::query_scalar(&format!("SELECT EXISTS (SELECT 1 {PENDING})"))
        .fetch_one(pool)
        .await?;
    if !pending {
        return Ok(0);
    }
    // IMMEDIATE: the write lock from the start, so two processes opening the history at
    // once take turns instead of one failing to upgrade its read; the second then finds
    // nothing left.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let steps: Vec<(i64, i64, String)> = sqlx::query_as(&format!(
        "SELECT s.run_id, s.step_index, s.result_json {PENDING} ORDER BY s.run_id, s.step_index"
    ))
    .fetch_all(&mut *tx)
    .await?;
    let mut filled = 0;
    for (run_id, step_index, json) in &steps {
        // The stored JSON is kept as it is, with `confidence` added: fields this build
        // does not know stay. A step that cannot be read is left as it is: reading its
        // run says so, and one bad row must not keep the whole history from opening.
        let Ok(mut stored) = serde_json::from_str::<serde_json::Value>(json) else {
            continue;
        };
        let Ok(mut result) = serde_json::from_value::<StepResult>(stored.clone()) else {
            continue;
        };
        result.intervals = crate::read::intervals_of(&mut tx, *run_id, *step_index).await?;
        let confidence = StepConfidence::of_step(&result);
        if let Some(o) = stored.as_object_mut() {
            let value =
                serde_json::to_value(&confidence).map_err(|cause| HistoryError::Serialize {
                    what: "a step's confidence",
                    cause,
                })?;
            o.insert("confidence".into(), value);
        }
        let columns = ConfidenceColumns::of(Some(&confidence));
        update_columns(
            &mut tx,
            *run_id,
            *step_index,
            &columns,
            Some(&stored.to_string()),
        )
        .await?;
        filled += 1;
    }
    tx.commit().await?;
    Ok(filled)
}
