//! A process started on a host: a line channel over its stdin and stdout, and a way to
//! end it with everything it started.
//!
//! The process has its SSH session to itself, in non-blocking mode: reading waits on
//! the socket (poll) with a deadline, stdout and stderr are both drained at each turn
//! (so a chatty stderr can never fill the window and stall stdout), and a write that
//! would block keeps reading meanwhile (so both sides filling their windows cannot
//! deadlock).

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use dbdyno_ssh::SshConnection;
use ssh2::Channel;

use crate::shell::{parse_pid_line, spawn_header, SPAWN};
use crate::{socket_wait, RemoteError};

/// Limit for starting the process and saying its pid.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// Limit for one line to leave.
const SEND_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a TERMed process group gets before KILL.
const TERM_GRACE: Duration = Duration::from_secs(2);
/// How long to wait for the channel to report the end after KILL.
const KILL_WAIT: Duration = Duration::from_secs(2);
/// Limit for the kill commands themselves.
const SIGNAL_TIMEOUT: Duration = Duration::from_secs(5);
/// Lines a login shell may print before the process says its pid.
const MAX_LINES_BEFORE_PID: usize = 100;
/// Bytes of stderr kept for error messages.
const STDERR_TAIL: usize = 4096;
/// libssh2 sends keepalives only when asked.
const KEEPALIVE_EVERY: Duration = Duration::from_secs(5);

pub struct RemoteProcess {
    host: String,
    conn: SshConnection,
    channel: Channel,
    socket: Option<TcpStream>,
    pid: u32,
    group: u32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    stdout_ended: bool,
    /// Why the connection broke, once it did.
    lost: Option<String>,
    status: Option<i32>,
    stopped: bool,
    last_keepalive: Instant,
    /// Where `pump` reads into: kept, because zeroing 32 KiB on every look was most of
    /// an idle follower's CPU.
    read_buf: Box<[u8]>,
}

impl std::fmt::Debug for RemoteProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteProcess")
            .field("host", &self.host)
            .field("pid", &self.pid)
            .finish()
    }
}

impl RemoteProcess {
    pub(crate) fn start(
        conn: SshConnection,
        host: String,
        program: &str,
        args: &[String],
        env: &[(String, String)],
    ) -> Result<RemoteProcess, RemoteError> {
        let header = spawn_header(program, args, env)?;
        conn.set_timeout(START_TIMEOUT);
        let mut channel = conn.exec(SPAWN)?;
        channel
            .write_all(&header)
            .map_err(|source| RemoteError::Io {
                host: host.clone(),
                doing: "starting the process",
                source,
            })?;
        conn.set_blocking(false);
        let mut process = RemoteProcess {
            host,
            socket: conn.socket_handle(),
            conn,
            channel,
            pid: 0,
            group: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
            stdout_ended: false,
            lost: None,
            status: None,
            stopped: false,
            last_keepalive: Instant::now(),
            read_buf: vec![0u8; 32 * 1024].into_boxed_slice(),
        };
        // A login shell's startup files may print lines of their own before the wrapper
        // runs (a banner in .bashrc); they are skipped, within reason.
        let deadline = Instant::now() + START_TIMEOUT;
        let mut skipped = Vec::new();
        while skipped.len() < MAX_LINES_BEFORE_PID {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some(line) = process.recv_line(left)? else {
                return Err(RemoteError::Timeout {
                    host: process.host.clone(),
                    doing: "starting the process",
                    seconds: START_TIMEOUT.as_secs(),
                });
            };
            if let Some((pid, group)) = parse_pid_line(&line) {
                process.pid = pid;
                process.group = group;
                return Ok(process);
            }
            skipped.push(line);
        }
        Err(RemoteError::NoPid {
            host: process.host.clone(),
            line: skipped.join("\n"),
        })
    }

    /// The process's id on its host.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Its process group (the session sshd started it in), which `kill` signals.
    pub fn process_group(&self) -> u32 {
        self.group
    }

    /// Sends `line` and a newline to the process's stdin (`line` holds no newline of
    /// its own: one line is one message).
    pub fn send_line(&mut self, line: &str) -> Result<(), RemoteError> {
        let mut data = Vec::with_capacity(line.len() + 1);
        data.extend_from_slice(line.as_bytes());
        data.push(b'\n');
        let deadline = Instant::now() + SEND_TIMEOUT;
        let mut sent = 0;
        while sent < data.len() {
            if self.stdout_ended {
                return Err(self.closed());
            }
            match self.channel.write(&data[sent..]) {
                Ok(n) => sent += n,
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    self.pump();
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(RemoteError::Timeout {
                            host: self.host.clone(),
                            doing: "sending a line to the process",
                            seconds: SEND_TIMEOUT.as_secs(),
                        });
                    }
                    self.wait((deadline - now).min(Duration::from_millis(100)));
                }
                Err(e) => {
                    self.connection_lost(e.to_string());
                    return Err(self.closed());
                }
            }
        }
        Ok(())
    }

    /// The next line of the process's stdout, without its newline: `Ok(None)` when none
    /// was complete within `timeout`; [`RemoteError::Closed`] (with the last of its
    /// stderr) once stdout has ended or the connection is gone.
    pub fn recv_line(&mut self, timeout: Duration) -> Result<Option<String>, RemoteError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(line) = self.take_line() {
                return Ok(Some(line));
            }
            if self.stdout_ended {
                return Err(self.closed());
            }
            if self.pump() {
                continue;
            }
            self.keepalive_if_due();
            let now = Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            self.wait(deadline - now);
        }
    }

    /// Ends the process and everything it started: closes its stdin, sends TERM to its
    /// process group, KILL after a short grace, then closes the session. Idempotent;
    /// also done on drop. When the connection is already gone nothing can be sent: sshd
    /// has then closed the process's pipes, and the process sees end of input.
    pub fn kill(&mut self) -> Result<(), RemoteError> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        if self.lost.is_none() {
            self.close_stdin();
        }
        let mut result = Ok(());
        // Without a pid (it never said one) there is nothing to signal: closing the
        // channel below ends its stdin.
        if !self.stdout_ended && self.lost.is_none() && self.group != 0 {
            result = self.signal_group("TERM");
            if result.is_ok() && !self.wait_for_end(TERM_GRACE) {
                result = self.signal_group("KILL");
                self.wait_for_end(KILL_WAIT);
            }
        }
        self.reap(Duration::from_millis(500));
        self.conn.set_blocking(true);
        self.conn.set_timeout(SIGNAL_TIMEOUT);
        let _ = self.channel.close();
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(Shutdown::Both);
        }
        result
    }

    /// The exit status once the host has reported it (128 + n for a process ended by
    /// signal n), `None` while it runs.
    pub fn exit_status(&mut self) -> Option<i32> {
        if self.status.is_none() && !self.stopped && self.lost.is_none() {
            self.pump();
            if self.stdout_ended {
                self.reap(Duration::from_secs(1));
            }
        }
        self.status
    }

    /// Cuts this process's SSH connection as a network failure would, without stopping
    /// the process: for tests of what a lost connection leaves behind.
    pub fn sever_connection(&mut self) {
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(Shutdown::Both);
        }
        self.connection_lost("cut on purpose (sever_connection)".into());
        self.stopped = true;
    }

    /// Reads whatever stdout and stderr have now; true if anything came (or ended).
    fn pump(&mut self) -> bool {
        let mut progress = false;
        let mut buf = std::mem::take(&mut self.read_buf);
        while !self.stdout_ended {
            match self.channel.read(&mut buf) {
                Ok(0) => {
                    self.stdout_ended = true;
                    progress = true;
                }
                Ok(n) => {
                    self.stdout.extend_from_slice(&buf[..n]);
                    progress = true;
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => {
                    self.connection_lost(e.to_string());
                    progress = true;
                }
            }
        }
        if self.lost.is_none() {
            let mut stderr = self.channel.stderr();
            loop {
                match stderr.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        self.stderr.extend_from_slice(&buf[..n]);
                        let excess = self.stderr.len().saturating_sub(STDERR_TAIL);
                        self.stderr.drain(..excess);
                        progress = true;
                    }
                    Err(_) => break,
                }
            }
        }
        self.read_buf = buf;
        progress
    }

    fn take_line(&mut self) -> Option<String> {
        let end = match self.stdout.iter().position(|&b| b == b'\n') {
            Some(i) => i + 1,
            // What stdout said last, without a newline, is still a line.
            None if self.stdout_ended && !self.stdout.is_empty() => self.stdout.len(),
            None => return None,
        };
        let raw: Vec<u8> = self.stdout.drain(..end).collect();
        let text = String::from_utf8_lossy(&raw);
        Some(text.trim_end_matches(['\n', '\r']).to_string())
    }

    fn closed(&mut self) -> RemoteError {
        if self.lost.is_none() {
            self.reap(Duration::from_secs(1));
        }
        RemoteError::Closed {
            host: self.host.clone(),
            status: self.status,
            stderr: String::from_utf8_lossy(&self.stderr).into_owned(),
            lost: self.lost.clone(),
        }
    }

    fn connection_lost(&mut self, why: String) {
        self.stdout_ended = true;
        self.lost.get_or_insert(why);
    }

    fn wait(&self, timeout: Duration) {
        match &self.socket {
            Some(socket) => socket_wait::wait(socket, self.conn.block_directions(), timeout),
            None => std::thread::sleep(timeout.min(Duration::from_millis(10))),
        }
    }

    fn keepalive_if_due(&mut self) {
        if self.last_keepalive.elapsed() >= KEEPALIVE_EVERY {
            self.last_keepalive = Instant::now();
            // Would-block only postpones it; a broken connection shows on the next read.
            let _ = self.conn.keepalive();
        }
    }

    fn close_stdin(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(1);
        loop {
            match self.channel.send_eof() {
                Err(e) if would_block(&e) && Instant::now() < deadline => {
                    self.wait(Duration::from_millis(50));
                }
                _ => return,
            }
        }
    }

    /// `kill -s SIG` to the process group and the process, on a channel of its own.
    fn signal_group(&mut self, signal: &str) -> Result<(), RemoteError> {
        self.conn.set_blocking(true);
        self.conn.set_timeout(SIGNAL_TIMEOUT);
        let command = format!(
            "kill -s {signal} -- -{} {} 2>/dev/null; true",
            self.group, self.pid
        );
        let ran = self.conn.run(&command, None);
        self.conn.set_blocking(false);
        match ran {
            Ok(_) => Ok(()),
            Err(e) => {
                self.connection_lost(e.to_string());
                Err(e.into())
            }
        }
    }

    /// Reads until stdout ends; false if `limit` passed first.
    fn wait_for_end(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while !self.stdout_ended {
            if self.pump() {
                continue;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            self.wait((deadline - now).min(Duration::from_millis(100)));
        }
        self.lost.is_none()
    }

    /// Takes the exit status once the channel closes (it follows stdout's end closely).
    fn reap(&mut self, limit: Duration) {
        if self.status.is_some() || self.lost.is_some() || !self.stdout_ended {
            return;
        }
        let deadline = Instant::now() + limit;
        loop {
            match self.channel.wait_close() {
                Ok(()) => break,
                Err(e) if would_block(&e) => {
                    if Instant::now() >= deadline {
                        return;
                    }
                    self.wait(Duration::from_millis(20));
                }
                Err(_) => return,
            }
        }
        let signal = self
            .channel
            .exit_signal()
            .ok()
            .and_then(|s| s.exit_signal)
            .and_then(|name| signal_number(&name));
        self.status = match signal {
            Some(n) => Some(128 + n),
            None => self.channel.exit_status().ok(),
        };
    }
}

impl Drop for RemoteProcess {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}

/// libssh2's "would block" (LIBSSH2_ERROR_EAGAIN), for calls that return ssh2 errors.
fn would_block(e: &ssh2::Error) -> bool {
    const LIBSSH2_ERROR_EAGAIN: i32 = -37;
    e.code() == ssh2::ErrorCode::Session(LIBSSH2_ERROR_EAGAIN)
}

/// Numbers of the signals a process is likely to end by (the same on Linux and the BSDs).
fn signal_number(name: &str) -> Option<i32> {
    Some(match name.trim_start_matches("SIG") {
        "HUP" => 1,
        "INT" => 2,
        "QUIT" => 3,
        "ABRT" => 6,
        "KILL" => 9,
        "SEGV" => 11,
        "PIPE" => 13,
        "ALRM" => 14,
        "TERM" => 15,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_as_sshd_sends_them() {
        assert_eq!(signal_number("TERM"), Some(15));
        assert_eq!(signal_number("SIGKILL"), Some(9));
        assert_eq!(signal_number("USR1"), None);
    }
}
