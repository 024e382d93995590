// DB DYNO PATCH (vendor/mysql/PATCH.md): this whole file is an addition to mysql 28.0.4.
//
// Licensed under the Apache License, Version 2.0
// <LICENSE-APACHE or http://www.apache.org/licenses/LICENSE-2.0> or the MIT
// license <LICENSE-MIT or http://opensource.org/licenses/MIT>, at your
// option, like the rest of this crate.

//! Changing an open connection's read and write timeouts.
//!
//! `OptsBuilder::read_timeout` / `write_timeout` apply from the connect on, the
//! handshake included. A caller that wants the handshake bounded and its statements
//! not (a load generator: a statement may rightly wait for a lock) lifts them after
//! the login. Setting `SO_RCVTIMEO` on the descriptor would do it for TCP, but a Unix
//! socket's reads wait in `poll` for the timeout the stream knows, so the change has to
//! go through the stream.

use std::time::Duration;

use crate::{Conn, Result};

impl Conn {
    /// Sets the read timeout from now on; None: reads wait as long as the server takes.
    #[cfg(unix)]
    pub fn set_read_timeout(&mut self, timeout: Option<Duration>) -> Result<()> {
        self.stream_mut().get_mut().set_read_timeout(timeout)?;
        Ok(())
    }

    /// Sets the write timeout from now on; None: writes wait as long as they must.
    #[cfg(unix)]
    pub fn set_write_timeout(&mut self, timeout: Option<Duration>) -> Result<()> {
        self.stream_mut().get_mut().set_write_timeout(timeout)?;
        Ok(())
    }
}
