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

    pub fn list_runs(&self, env: Option<&str>) -> Result<Vec<RunSummary>, HistoryError> {
        self.rt.block_on(self.history.list_runs(env))
    }

    pub fn load_run(&self, id: i64) -> Result<StoredRun, HistoryError> {
        self.rt.block_on(self.history.load_run(id))
    }

    pub fn delete_run(&self, id: i64) -> Result<(), HistoryError> {
        self.rt.block_on(self.history.delete_run(id))
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

impl Drop for BlockingHistory {
    fn drop(&mut self) {
        // Close the pool on our runtime so that the WAL is checkpointed cleanly.
        self.rt.block_on(self.history.close());
    }
}
