//! What the app keeps between commands: where its data lives, the run in progress (at
//! most one) with its cancel token, and the last checks report (so a fix is applied
//! from what Rust found, never from an action the page sends back).

use std::path::PathBuf;
use std::sync::Mutex;
use std::thread::JoinHandle;

use dbdyno_checks::SuiteReport;
use dbdyno_engine::CancelToken;

use crate::error::{AppError, AppResult};

pub struct AppState {
    /// The history database and the app's own known_hosts file live here
    /// (`DBDYNO_DATA_DIR`, else `~/.local/share/dbdyno`).
    pub data_dir: PathBuf,
    pub run: Mutex<Option<ActiveRun>>,
    pub last_checks: Mutex<Option<CachedChecks>>,
}

/// The run in progress.
pub struct ActiveRun {
    pub env: String,
    pub cancel: CancelToken,
    /// The thread that drives the engine and streams snapshots; it clears
    /// [`AppState::run`] when it ends.
    pub driver: Option<JoinHandle<()>>,
}

pub struct CachedChecks {
    pub env: String,
    pub report: SuiteReport,
}

impl AppState {
    pub fn new() -> AppResult<AppState> {
        let data_dir = dbdyno_history::paths::default_data_dir()?;
        std::fs::create_dir_all(&data_dir).map_err(|e| {
            AppError::new(
                crate::error::ErrorCode::Io,
                format!("cannot create {}: {e}", data_dir.display()),
            )
        })?;
        Ok(AppState {
            data_dir,
            run: Mutex::new(None),
            last_checks: Mutex::new(None),
        })
    }

    /// The app's known_hosts: host keys the user accepted in the app.
    pub fn known_hosts_file(&self) -> PathBuf {
        self.data_dir.join("known_hosts")
    }

    pub fn is_running(&self) -> bool {
        self.run.lock().map(|r| r.is_some()).unwrap_or(false)
    }

    /// Asks the run in progress to stop and waits until it has (finished steps are
    /// kept in the history). Returns false when nothing was running.
    pub fn cancel_and_wait(&self) -> bool {
        let taken = match self.run.lock() {
            Ok(mut r) => r.as_mut().map(|a| (a.cancel.clone(), a.driver.take())),
            Err(_) => None,
        };
        match taken {
            Some((cancel, driver)) => {
                cancel.cancel();
                if let Some(d) = driver {
                    let _ = d.join();
                }
                true
            }
            None => false,
        }
    }
}
