// DB DYNO PATCH (vendor/mysql/PATCH.md): this whole file is an addition to mysql 28.0.4.
//
// Licensed under the Apache License, Version 2.0
// <LICENSE-APACHE or http://www.apache.org/licenses/LICENSE-2.0> or the MIT
// license <LICENSE-MIT or http://opensource.org/licenses/MIT>, at your
// option, like the rest of this crate.

//! Reading a response whose rows are only counted.
//!
//! `exec_drop` and `query_drop` drop a `QueryResult`, and that drop decodes every row
//! (`RowDeserializer`, one `Value` per column, a pooled buffer per packet) only to throw
//! it away. A load generator that counts statements pays that per row. The functions
//! here read the same packets in the same order, keep the connection's state exactly as
//! the drop would (status flags, the last OK packet, the statement's column cache), and
//! count row packets without parsing them.

use mysql_common::{
    constants::DEFAULT_MAX_ALLOWED_PACKET,
    io::ParseBuf,
    packets::{ErrPacket, OldEofPacket, ResultSetTerminator},
    proto::sync_framed::MySyncFramed,
};

use crate::{
    buffer_pool::{get_buffer, Buffer},
    conn::ResultSetInfo,
    consts::{CapabilityFlags, Command, MAX_PAYLOAD_LEN},
    prelude::AsStatement,
    Conn,
    Error::MySqlError,
    Params, Result,
};

/// What a drained response held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DrainStats {
    /// Result sets read, row sets and OK packets alike (a plain statement has one;
    /// a multi-statement query or a stored procedure has several).
    pub result_sets: u32,
    /// Row packets read over all result sets.
    pub rows: u64,
    /// The sum of the OK packets' affected rows.
    pub affected_rows: u64,
}

impl Conn {
    /// Executes a prepared statement and reads its whole response without decoding
    /// any row: what `exec_drop` does, minus building the rows it discards.
    ///
    /// Unlike `exec_drop`, an error that arrives after the first result set's header (a
    /// failing row, a later result set of a procedure, a lost connection) is returned
    /// instead of being swallowed by the drop.
    pub fn exec_drain<S, P>(&mut self, stmt: S, params: P) -> Result<DrainStats>
    where
        S: AsStatement,
        P: Into<Params>,
    {
        let statement = stmt.as_statement(self)?;
        let info = match self._execute(&statement, params.into())? {
            ResultSetInfo::NonEmptyWithMeta(columns) => {
                // As `exec_iter` does: the statement keeps the columns the server sent,
                // which MariaDB's metadata cache leaves out of later executions.
                statement.update_columns_metadata(columns);
                ResultSetInfo::NonEmptyWithMeta(Vec::new())
            }
            other => other,
        };
        self.drain_sets(info)
    }

    /// Runs a text query and reads its whole response without decoding any row: what
    /// `query_drop` does, minus building the rows it discards (errors as in
    /// [`Conn::exec_drain`]).
    pub fn query_drain<Q: AsRef<str>>(&mut self, query: Q) -> Result<DrainStats> {
        self.write_command(Command::COM_QUERY, query.as_ref().as_bytes())?;
        let info = self.handle_result_set()?;
        self.drain_sets(info)
    }

    /// Reads the current result set, whose header is `info`, and every one after it.
    /// One pooled buffer serves every row packet (`read_packet` takes one per packet).
    fn drain_sets(&mut self, mut info: ResultSetInfo) -> Result<DrainStats> {
        let mut stats = DrainStats::default();
        let mut buffer = get_buffer();
        loop {
            stats.result_sets += 1;
            match info {
                ResultSetInfo::Empty(ok) => stats.affected_rows += ok.affected_rows(),
                ResultSetInfo::NonEmptyWithMeta(_) | ResultSetInfo::NonEmptySkipMeta => {
                    while self.drain_row(&mut buffer)? {
                        stats.rows += 1;
                    }
                }
            }
            if !self.more_results_exists() {
                self.rewind_receive_buffer();
                return Ok(stats);
            }
            info = self.handle_result_set()?;
        }
    }

    /// Moves the receive buffer's start back to its allocation's start once a response
    /// has been read whole. `MySyncFramed` reads into the spare room after the bytes it
    /// has consumed, and `BytesMut` moves that room back only when it runs out: each
    /// connection walks its whole 4 MiB buffer, so every `recv` writes to memory that is
    /// no longer in the CPU's cache, and a long run keeps all of it resident. With the
    /// buffer empty the move copies nothing.
    fn rewind_receive_buffer(&mut self) {
        let Some(framed) = self.0.stream.take() else {
            return;
        };
        let (mut in_buf, out_buf, codec, stream) = framed.destruct();
        if in_buf.is_empty() {
            // `false` (nothing reclaimed) only if the buffer was made smaller than
            // `MySyncFramed::new` makes it; it is then left as it is.
            let _ = in_buf.try_reclaim(DEFAULT_MAX_ALLOWED_PACKET);
        }
        self.0.stream = Some(MySyncFramed::construct(in_buf, out_buf, codec, stream));
    }

    /// `next_row_packet` into a reused buffer: `true` for a row, `false` at the end of
    /// the set (whose terminator updates the status flags as there).
    fn drain_row(&mut self, buffer: &mut Buffer) -> Result<bool> {
        if !self.0.has_results {
            return Ok(false);
        }
        self.drain_packet(buffer)?;
        if self.has_capability(CapabilityFlags::CLIENT_DEPRECATE_EOF) {
            if buffer[0] == 0xfe && buffer.len() < MAX_PAYLOAD_LEN {
                self.0.has_results = false;
                self.handle_ok::<ResultSetTerminator>(buffer)?;
                return Ok(false);
            }
        } else if buffer[0] == 0xfe && buffer.len() < 8 {
            self.0.has_results = false;
            self.handle_ok::<OldEofPacket>(buffer)?;
            return Ok(false);
        }
        Ok(true)
    }

    /// `read_packet` into a reused buffer: an error packet becomes the server's error,
    /// a progress report is skipped.
    fn drain_packet(&mut self, buffer: &mut Buffer) -> Result<()> {
        loop {
            buffer.as_mut().clear();
            if let Err(e) = self.raw_read_packet(buffer.as_mut()) {
                self.handle_err();
                return Err(e);
            }
            if buffer.first() != Some(&0xff) {
                return Ok(());
            }
            match ParseBuf(&buffer[..]).parse(self.0.capability_flags)? {
                ErrPacket::Error(server_error) => {
                    self.handle_err();
                    return Err(MySqlError(From::from(server_error)));
                }
                ErrPacket::Progress(_) => continue,
            }
        }
    }
}
