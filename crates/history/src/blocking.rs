//! The history for synchronous callers that read or write whole runs at once (the CLI's
//! `runs` and `import` commands, tests): each call runs on a private current-thread
//! runtime. For recording a run as it happens, see [`crate::HistoryWriter`].

use std::path::Path;

use dbdyno_engine::StepResult;

use crate::model::{NewRun, RunState, RunSummary, StoredRun};
use crate::{History, HistoryError};

pub struct BlockingHistory {
    rt: tokio::runtime::Runtime,
    history: History,
}

impl BlockingHistory {
    pub fn open(data_dir: &Path) -> Result<BlockingHistory, HistoryError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(HistoryError::Runtime)?;
        let history = rt.block_on(History::open(data_dir))?;
        Ok(BlockingHistory { rt, history })
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Runs `f` (a query on [`Self::history`]'s pool) on this history's runtime. Not on
    /// another one: the pool hands a used connection back through a task spawned where
    /// it was used, and this current-thread runtime polls such tasks only inside its own
    /// `block_on`, so a query awaited elsewhere may find every connection still on its
    /// way back and time out (seen on a loaded machine: `PoolTimedOut` after 30 s).
    #[cfg(test)]
    pub(crate) fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    pub fn list_runs(&self, env: Option<&str>) -> Result<Vec<RunSummary>, HistoryError> {
        self.rt.block_on(self.history.list_runs(env))
    }

    pub fn load_run(&self, id: i64) -> Result<StoredRun, HistoryError> {
        self.rt.block_on(self.history.load_run(id))
    }

    pub fn delete_run(&self, id: i64) -> Result<(), HistoryError> {
        self.rt.block_on(self.history.delete_run(id))
    }

    /// A results document as one run (`import_results`).
    pub(crate) fn insert_results_run(
        &self,
        doc: &crate::import_results::ResultsFile,
        env: &str,
        file: crate::model::ImportedFile,
    ) -> Result<i64, HistoryError> {
        self.rt
            .block_on(self.history.insert_results_run(doc, env, file))
    }

    pub fn find_imports(&self, sha256: &str) -> Result<Vec<(i64, String)>, HistoryError> {
        self.rt.block_on(self.history.find_imports(sha256))
    }

    pub fn insert_finished_run(
        &self,
        new: &NewRun,
        steps: &[StepResult],
        state: RunState,
        ended_at_ms: Option<i64>,
    ) -> Result<i64, HistoryError> {
        self.rt.block_on(
            self.history
                .insert_finished_run(new, steps, state, ended_at_ms),
        )
    }
}

/// The environments' hardware records (hardware.rs).
impl BlockingHistory {
    pub fn insert_hardware(
        &self,
        new: &crate::hardware::NewHardwareRecord,
    ) -> Result<i64, HistoryError> {
        self.rt.block_on(self.history.insert_hardware(new))
    }

    pub fn list_hardware(
        &self,
        env: Option<&str>,
    ) -> Result<Vec<crate::hardware::HardwareRecord>, HistoryError> {
        self.rt.block_on(self.history.list_hardware(env))
    }
}

impl Drop for BlockingHistory {
    fn drop(&mut self) {
        // Close the pool on our runtime so that the WAL is checkpointed cleanly.
        self.rt.block_on(self.history.close());
    }
}

#[cfg(test)]
impl BlockingHistory {
    /// Runs `sql` with a text and a run id bound (to store what an older version might
    /// have written).
    pub(crate) fn exec_for_test(&self, sql: &str, text: &str, id: i64) {
        self.rt
            .block_on(
                sqlx::query(sql)
                    .bind(text)
                    .bind(id)
                    .execute(&self.history.pool),
            )
            .unwrap();
    }
}
