//! `LOAD DATA LOCAL INFILE` fed from memory: the bulk-load mechanism every prepare
//! shares (the OLTP tables and TPC-C's).
//!
//! Why LOAD DATA: on a small box the server's per-row cost bounds the load, and
//! parsing tab-separated rows costs the server less than parsing INSERT … VALUES
//! (measured with the mariadb client on the sandbox, 200k sbtest rows: 1.55 s against
//! 2.30 s). The data and the resulting tables are the same either way, so a server
//! that forbids LOCAL INFILE gets multi-row INSERTs instead.

use std::io::Write as _;
use std::sync::{Arc, Mutex};

use crossbeam_channel::Receiver;
use mysql::LocalInfileHandler;

/// The file name in our `LOAD DATA LOCAL INFILE`: the handler answers only this name,
/// with rows generated in memory; no file on disk is ever read.
pub(crate) const STREAM_NAME: &str = "dbdyno-generated-rows";

/// Server errors meaning "LOCAL INFILE is not allowed here": 4166 (MariaDB 10.5+,
/// local_infile=OFF), 1148 (older MariaDB and MySQL), 3948 (MySQL 8's default).
const LOCAL_INFILE_REFUSED: [u16; 3] = [4166, 1148, 3948];

/// Whether the server refused LOCAL INFILE itself (nothing was loaded): the caller
/// goes on with INSERTs.
pub(crate) fn is_local_infile_refused(e: &mysql::Error) -> bool {
    matches!(e, mysql::Error::MySqlError(me) if LOCAL_INFILE_REFUSED.contains(&me.code))
}

/// The statement that loads the stream into `table`, tab-separated, one row a line;
/// `columns` lists the columns in the order of the fields (`id, k, c, pad`).
pub(crate) fn load_data_sql(table: &str, columns: &str) -> String {
    format!(
        "LOAD DATA LOCAL INFILE '{STREAM_NAME}' INTO TABLE {table} \
         FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' ({columns})"
    )
}

/// What the next LOAD DATA statement sends.
enum Source {
    /// These rows, written before the statement.
    Rows(Vec<u8>),
    /// Chunks of rows as another thread writes them, until it closes the channel: one
    /// statement of any size, written while the server reads it.
    Chunks(Receiver<Vec<u8>>),
}

/// The rows of one LOAD DATA statement, shared with the connection's infile handler
/// (the driver wants a `'static` handler, so the source lives behind an `Arc`).
pub(crate) struct LoadDataStream {
    source: Arc<Mutex<Source>>,
}

impl LoadDataStream {
    pub(crate) fn install(conn: &mut mysql::Conn, capacity: usize) -> LoadDataStream {
        let source = Arc::new(Mutex::new(Source::Rows(Vec::with_capacity(capacity))));
        let shared = Arc::clone(&source);
        conn.set_local_infile_handler(Some(LocalInfileHandler::new(move |name, out| {
            if name != STREAM_NAME.as_bytes() {
                // A server asking for any other file gets nothing.
                return Err(std::io::Error::other("DB Dyno sends no local files"));
            }
            let source = shared
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?;
            match &*source {
                Source::Rows(rows) => out.write_all(rows),
                Source::Chunks(chunks) => {
                    for chunk in chunks {
                        out.write_all(&chunk)?;
                    }
                    Ok(())
                }
            }
        })));
        LoadDataStream { source }
    }

    /// Replaces the stream's rows with what `f` writes into the emptied buffer.
    pub(crate) fn fill(&self, f: impl FnOnce(&mut Vec<u8>)) {
        let mut source = self.source.lock().unwrap_or_else(|p| p.into_inner());
        if let Source::Rows(rows) = &mut *source {
            rows.clear();
            f(rows);
        } else {
            let mut rows = Vec::new();
            f(&mut rows);
            *source = Source::Rows(rows);
        }
    }

    /// The next statement sends the chunks `chunks` delivers, until its sender is
    /// dropped. Call [`fill`](Self::fill) after the statement: that drops the receiver,
    /// so a writer the server never read from (it refused the statement) stops.
    pub(crate) fn stream_from(&self, chunks: Receiver<Vec<u8>>) {
        *self.source.lock().unwrap_or_else(|p| p.into_inner()) = Source::Chunks(chunks);
    }
}
