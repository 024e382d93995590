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
//!
//! The read timeout is the one set through this type (`Stream::connect_socket`,
//! `Conn::set_read_timeout`); one set on the descriptor directly is not seen by the
//! wait.

use std::{
    io::{self, Read, Write},
    os::unix::{
        io::{AsRawFd, RawFd},
        net::UnixStream,
    },
    time::Duration,
};

/// A Unix stream whose reads wait in `poll`, bounded by the read timeout it was given.
#[derive(Debug)]
pub struct PollingUnixStream {
    stream: UnixStream,
    /// The read timeout in milliseconds as `poll` takes it; -1: none.
    wait_ms: libc::c_int,
}

impl PollingUnixStream {
    pub fn new(stream: UnixStream) -> Self {
        Self {
            stream,
            wait_ms: -1,
        }
    }

    /// Sets the read timeout: both the socket's (`SO_RCVTIMEO`) and the bound of the
    /// wait in `poll`, which is known here so that the wait needs no system call to
    /// learn it. Without a timeout the wait is `poll(.., -1)`, as libmysqlclient's is:
    /// a finite one arms a kernel timer on every sleep and cancels it on every wake-up
    /// (measured: about 1 % of the client's CPU per query on the socket).
    pub fn set_read_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        self.stream.set_read_timeout(timeout)?;
        self.wait_ms = match timeout {
            None => -1,
            // Rounded up: a timeout of less than a millisecond still waits.
            Some(t) => {
                libc::c_int::try_from(t.as_nanos().div_ceil(1_000_000)).unwrap_or(libc::c_int::MAX)
            }
        };
        Ok(())
    }

    pub fn set_write_timeout(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        self.stream.set_write_timeout(timeout)
    }

    /// `Ok(true)` when the socket has data, a hang-up or an error (the next `recv`
    /// reports which), `Ok(false)` when the read timeout passed without any.
    fn poll_readable(&self) -> io::Result<bool> {
        let mut pfd = libc::pollfd {
            fd: self.stream.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd, count 1.
        match unsafe { libc::poll(&mut pfd, 1, self.wait_ms) } {
            0 => Ok(false),
            n if n > 0 => Ok(true),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Read for PollingUnixStream {
    /// Takes what is there without sleeping; otherwise waits in `poll` for data, at
    /// most the read timeout, after which it fails as a blocking `recv` whose
    /// `SO_RCVTIMEO` passed does (`WouldBlock`, EAGAIN).
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            // SAFETY: `buf` is valid for writes of `buf.len()` bytes.
            let n = unsafe {
                libc::recv(
                    self.stream.as_raw_fd(),
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
                    Ok(false) => return Err(io::Error::from_raw_os_error(libc::EAGAIN)),
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
        self.stream.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl AsRawFd for PollingUnixStream {
    fn as_raw_fd(&self) -> RawFd {
        self.stream.as_raw_fd()
    }
}
