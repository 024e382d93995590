//! Opening the history: file, connection settings, migrations, the confidence of steps
//! stored before steps carried one, interrupted runs.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};

use crate::{process, HistoryError};

/// The database file inside the data directory.
pub const DB_FILE_NAME: &str = "history.sqlite3";

/// How long a writer waits for another writer's transaction before giving up. Step
/// transactions take milliseconds; this is generous so that a slow disk never loses one.
const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The run history of one data directory. Cheap to clone (a connection pool).
#[derive(Debug, Clone)]
pub struct History {
    pub(crate) pool: SqlitePool,
    path: PathBuf,
}

impl History {
    /// Opens (creating it when missing) the history in `data_dir`, brings its schema up
    /// to date (with the confidence of old steps, see `confidence.rs`), and marks runs
    /// whose writer process is gone as interrupted.
    pub async fn open(data_dir: &Path) -> Result<History, HistoryError> {
        std::fs::create_dir_all(data_dir).map_err(|cause| HistoryError::DataDir {
            path: data_dir.to_path_buf(),
            cause,
        })?;
        let path = data_dir.join(DB_FILE_NAME);
        let open_err = |cause| HistoryError::Open {
            path: path.clone(),
            cause,
        };
        let options = SqliteConnectOptions::from_str("sqlite://")
            .map_err(open_err)?
            .filename(&path)
            .create_if_missing(true)
            // WAL: readers never block the writer, and a killed process loses nothing
            // that was committed. NORMAL sync is durable against process crashes (only
            // an OS crash may lose the last transactions).
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true);
        // Migrations run on a connection of their own without foreign keys: a migration
        // that rebuilds a table others point at (SQLite cannot change a constraint in
        // place) would otherwise cascade its DROP into them, and sqlx runs each
        // migration inside a transaction, where the pragma cannot be switched off.
        let migrating = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options.clone().foreign_keys(false))
            .await
            .map_err(open_err)?;
        let migrated = migrate(&migrating, &path).await;
        migrating.close().await;
        migrated?;
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(open_err)?;
        // Steps stored before steps carried their confidence get it once (SQL cannot
        // do batch means, so this is not a migration).
        crate::confidence::backfill(&pool).await?;
        let history = History { pool, path };
        history.mark_interrupted().await?;
        Ok(history)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes the pool, waiting for connections to return (checkpoints the WAL).
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Runs left "running" whose writer process is gone become "interrupted". Returns
    /// their ids. Called by [`History::open`]; cheap enough to call again.
    pub async fn mark_interrupted(&self) -> Result<Vec<i64>, HistoryError> {
        let running: Vec<(i64, Option<i64>, Option<i64>)> = sqlx::query_as(
            "SELECT id, writer_pid, writer_start_s FROM runs WHERE state = 'running'",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut gone = Vec::new();
        for (id, pid, start) in running {
            let alive = match (pid, start) {
                (Some(pid), Some(start)) => process::is_alive(pid as u32, start as u64),
                _ => false,
            };
            if alive {
                continue;
            }
            // Only a run still 'running' changes: another process may have just done it.
            let done = sqlx::query(
                "UPDATE runs SET state = 'interrupted',
                     failure = COALESCE(failure, 'the process recording this run stopped before the run ended (crash, kill or power loss); finished steps are kept')
                 WHERE id = ? AND state = 'running'",
            )
            .bind(id)
            .execute(&self.pool)
            .await?;
            if done.rows_affected() > 0 {
                gone.push(id);
            }
        }
        Ok(gone)
    }
}

/// Applies the embedded migrations. Two processes opening a new database at the same
/// moment may both try the first migration; SQLite serializes them and the loser fails
/// on "table already exists". A second attempt then finds it applied, so we retry
/// a few times before reporting the error. (sqlx's migration lock is a no-op on SQLite.)
async fn migrate(pool: &SqlitePool, path: &Path) -> Result<(), HistoryError> {
    let mut attempt = 0;
    loop {
        match MIGRATOR.run(pool).await {
            Ok(()) => return Ok(()),
            // Only errors executing a migration are retried (the race): a database of a
            // newer DB Dyno, a changed or a partly applied migration fails at once.
            Err(e) if attempt < 5 && lost_the_race(&e) => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
            }
            Err(cause) => {
                return Err(HistoryError::Migrate {
                    path: path.to_path_buf(),
                    cause,
                })
            }
        }
    }
}

/// True for what a second process migrating the same new database may meet while
/// executing a migration (a table the other one just created, its row in
/// `_sqlx_migrations`, its lock, a schema changed under it). Not for a database this
/// build cannot migrate (applied by a newer DB Dyno, a changed migration, a partly
/// applied one): those are said at once.
fn lost_the_race(e: &sqlx::migrate::MigrateError) -> bool {
    use sqlx::migrate::MigrateError;
    matches!(
        e,
        MigrateError::Execute(_) | MigrateError::ExecuteMigration(..)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::migrate::MigrateError;

    #[test]
    fn only_the_race_between_two_openers_is_retried() {
        let db = |m: &str| sqlx::Error::Protocol(m.to_string());
        assert!(lost_the_race(&MigrateError::ExecuteMigration(
            db("table runs already exists"),
            1
        )));
        assert!(lost_the_race(&MigrateError::Execute(db(
            "UNIQUE constraint failed: _sqlx_migrations.version"
        ))));
        assert!(!lost_the_race(&MigrateError::VersionMissing(
            20990101000000
        )));
        assert!(!lost_the_race(&MigrateError::VersionMismatch(1)));
        assert!(!lost_the_race(&MigrateError::Dirty(1)));
    }
}
