// DB DYNO PATCH (vendor/mysql/PATCH.md): this whole file is an addition to mysql 28.0.4.
//
// Licensed under the Apache License, Version 2.0
// <LICENSE-APACHE or http://www.apache.org/licenses/LICENSE-2.0> or the MIT
// license <LICENSE-MIT or http://opensource.org/licenses/MIT>, at your
// option, like the rest of this crate.

//! A Unix socket whose reads wait for data in `poll(POLLIN)`, as libmysqlclient's do.
//!
//! A blocking `recv` on a Unix stream socket sleeps on the socket's wait queue, and the
//! kernel wakes that queue for more than incoming data: when the server reads the
//! request it was sent, the client's socket gets its write space back and
//! `unix_write_space` wakes every sleeper. A reader woken so finds nothing, and sleeps
//! again: two context switches per query instead of one whenever the server reads the
//! request after the client went to sleep (measured: 1.9 voluntary switches per query
//! against sysbench's 1.0 on a busy machine). `poll` waits for POLLIN only, and ignores
//! the write-space wake-up.

use std::{
    io::{self, Read, Write},
    os::unix::{
        io::{AsRawFd, RawFd},
        net::UnixStream,
    },
};

#[derive(Debug)]
pub struct PollingUnixStream(UnixStream);

/// How long a read waits in `poll` before it falls back to a blocking `recv`, which
/// applies the socket's read timeout (`SO_RCVTIMEO`) as the crate always did. Reading
/// the timeout back with `getsockopt` on every wait would cost a system call per query;
/// a response slower than this loses only the extra wake-up's saving.
const POLL_FIRST_MS: libc::c_int = 100;

impl PollingUnixStream {
    pub fn new(stream: UnixStream) -> Self {
        Self(stream)
    }

    /// `Ok(true)` when the socket has data, a hang-up or an error (the next `recv`
    /// reports which), `Ok(false)` after [`POLL_FIRST_MS`] without any.
    fn poll_readable(&self) -> io::Result<bool> {
        let mut pfd = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, count 1.
        match unsafe { libc::poll(&mut pfd, 1, POLL_FIRST_MS) } {
            0 => Ok(false),
            n if n > 0 => Ok(true),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Read for PollingUnixStream {
    /// Takes what is there without sleeping; otherwise waits in `poll`, then, for a
    /// slow response, in a blocking `recv` bounded by the socket's read timeout.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
            let n = unsafe {
                libc::recv(
                    self.0.as_raw_fd(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    libc::MSG_DONTWAIT,
                )
            };
            if n >= 0 {
                return Ok(n as usize);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => match self.poll_readable() {
                    Ok(true) => {}
                    Ok(false) => return self.0.read(buf),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                },
                io::ErrorKind::Interrupted => {}
                _ => return Err(e),
            }
        }
    }
}

impl Write for PollingUnixStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl AsRawFd for PollingUnixStream {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_raw_fd()
    }
}
