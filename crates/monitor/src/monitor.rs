//! The `Monitor` handle: samples one server on a background thread and reports on a
//! channel, through connection drops.
//!
//! Purpose: start (connecting once synchronously so host-key and credential problems
//! surface to the caller right away), then stream [`SamplerEvent`]s: samples, and
//! when the SSH channel or session dies, a `Disconnected` event, retries every
//! `retry_every` until stopped, and on recovery a `Gap { from_ms, to_ms }` covering the
//! time without samples, followed by samples again.
//!
//! Non-goals: no storage, no aggregation, no async runtime. A changed or revoked host
//! key on reconnect stops the monitor: that needs a person, not a retry.

use crate::local::{unix_ms_now, LocalSampler};
use crate::procfs::RawSnapshot;
use crate::rates::{compute_sample, RateOptions, ServerSample};
use crate::stream::{sampler_script, StreamHeader, StreamItem, StreamParser};
use crossbeam_channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender, TryRecvError};
use dbdyno_ssh::{self as ssh, ClockSync, SshConnection, SshError, SshTarget};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader};
use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Which server to watch. One per monitor, built once: the size of the SSH variant
/// does not matter (clippy::large_enum_variant).
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum Target {
    /// This machine, through /proc directly.
    Local,
    Ssh(SshTarget),
}

#[derive(Debug, Clone)]
pub struct MonitorConfig {
    pub target: Target,
    /// Sampling period (1 s by default; 10 ms resolution on the server side).
    pub interval: Duration,
    /// Disk selection and loopback; `clk_tck` is taken from the server when known.
    pub rates: RateOptions,
    /// Pause between reconnection attempts.
    pub retry_every: Duration,
    /// No data for this long means the connection is dead (silent network drops).
    pub stall_timeout: Duration,
    /// Exchanges used to measure the clock offset at each connect.
    pub clock_sync_rounds: u32,
}

impl MonitorConfig {
    pub fn new(target: Target) -> Self {
        MonitorConfig {
            target,
            interval: Duration::from_secs(1),
            rates: RateOptions::default(),
            retry_every: Duration::from_secs(3),
            stall_timeout: Duration::from_secs(5),
            clock_sync_rounds: 5,
        }
    }
}

/// What the monitor reports, in order.
// One event a second at most: the size gap between `Sample` and the rest costs
// nothing worth a Box in every consumer's match.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum SamplerEvent {
    /// Sampling (re)started. `clock` is `None` locally or if the measurement failed.
    Connected {
        addr: String,
        host_key_fingerprint: Option<String>,
        clock: Option<ClockSync>,
        reconnect: bool,
    },
    Sample(ServerSample),
    /// The stream broke; reconnection attempts follow.
    Disconnected {
        at_ms: i64,
        reason: String,
    },
    /// One reconnection attempt failed; another follows after `retry_every`.
    ReconnectFailed {
        at_ms: i64,
        reason: String,
    },
    /// No samples between these local times (ms): from the last sample before the
    /// drop to the first one after recovery (or to the stop).
    Gap {
        from_ms: i64,
        to_ms: i64,
        reason: String,
    },
    /// Something odd in the server's data that did not stop sampling (sent once each).
    Warning(String),
    /// The thread ended; `reason` is set when it was not asked to.
    Stopped {
        reason: Option<String>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum MonitorError {
    #[error(transparent)]
    Ssh(#[from] SshError),
    #[error("cannot start the monitor thread: {0}")]
    Thread(#[source] std::io::Error),
    #[error("Monitor::start_connected needs an Ssh target (it reconnects with it), not Local")]
    NotSsh,
}

/// A running monitor. Dropping it stops the thread.
pub struct Monitor {
    events: Receiver<SamplerEvent>,
    stop: Option<Sender<()>>,
    socket: Arc<Mutex<Option<TcpStream>>>,
    thread: Option<JoinHandle<()>>,
    clock: Option<ClockSync>,
}

impl Monitor {
    /// Connects (over SSH: synchronously, so an unknown host key or a wrong password
    /// is returned here) and starts sampling on a new thread.
    pub fn start(config: MonitorConfig) -> Result<Monitor, MonitorError> {
        match &config.target {
            Target::Local => Self::spawn(config, None),
            Target::Ssh(target) => {
                let conn = ssh::connect(target)?;
                Self::spawn(config, Some(conn))
            }
        }
    }

    /// Starts sampling over a session the caller already opened (e.g. after resolving
    /// the data disk with it). `config.target` must be the `Ssh` target `conn` came
    /// from: reconnections use it.
    pub fn start_connected(
        config: MonitorConfig,
        conn: SshConnection,
    ) -> Result<Monitor, MonitorError> {
        if matches!(config.target, Target::Local) {
            return Err(MonitorError::NotSsh);
        }
        Self::spawn(config, Some(conn))
    }

    fn spawn(config: MonitorConfig, conn: Option<SshConnection>) -> Result<Monitor, MonitorError> {
        let (tx, events) = unbounded();
        let (stop, stop_rx) = bounded::<()>(1);
        let socket = Arc::new(Mutex::new(None));
        let builder = std::thread::Builder::new();
        let (thread, clock) = match conn {
            None => {
                let _ = tx.send(SamplerEvent::Connected {
                    addr: "local".into(),
                    host_key_fingerprint: None,
                    clock: None,
                    reconnect: false,
                });
                let t = builder
                    .name("dbdyno-monitor-local".into())
                    .spawn(move || run_local(config, tx, stop_rx))
                    .map_err(MonitorError::Thread)?;
                (t, None)
            }
            Some(conn) => {
                let clock = conn.clock_sync(config.clock_sync_rounds).ok();
                let _ = tx.send(connected_event(&conn, clock, false));
                *lock(&socket) = conn.socket_handle();
                let slot = socket.clone();
                let t = builder
                    .name(format!("dbdyno-monitor-{}", conn.addr()))
                    .spawn(move || run_ssh(config, conn, tx, stop_rx, slot))
                    .map_err(MonitorError::Thread)?;
                (t, clock)
            }
        };
        Ok(Monitor {
            events,
            stop: Some(stop),
            socket,
            thread: Some(thread),
            clock,
        })
    }

    /// The event stream. It ends (disconnects) after `Stopped`.
    pub fn events(&self) -> &Receiver<SamplerEvent> {
        &self.events
    }

    /// Clock offset measured at the first connect (reconnects report theirs in
    /// `Connected` events).
    pub fn clock(&self) -> Option<ClockSync> {
        self.clock
    }

    /// Stops sampling and waits for the thread (at most about one connect timeout).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        // Dropping the sender wakes every wait; shutting the socket down wakes a
        // blocking SSH read at once instead of after the stall timeout.
        self.stop.take();
        if let Some(s) = lock(&self.socket).take() {
            let _ = s.shutdown(Shutdown::Both);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panic elsewhere while holding this lock cannot leave an Option<TcpStream> in a
    // broken state, so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn connected_event(
    conn: &SshConnection,
    clock: Option<ClockSync>,
    reconnect: bool,
) -> SamplerEvent {
    SamplerEvent::Connected {
        addr: conn.addr().to_string(),
        host_key_fingerprint: Some(conn.host_key().fingerprint_sha256()),
        clock,
        reconnect,
    }
}

/// True once stop was requested (sender dropped or a message sent).
fn stop_requested(stop: &Receiver<()>) -> bool {
    !matches!(stop.try_recv(), Err(TryRecvError::Empty))
}

/// Sleeps up to `d`; true if stop was requested meanwhile.
fn wait_or_stop(stop: &Receiver<()>, d: Duration) -> bool {
    !matches!(stop.recv_timeout(d), Err(RecvTimeoutError::Timeout))
}

fn run_local(config: MonitorConfig, tx: Sender<SamplerEvent>, stop: Receiver<()>) {
    let mut sampler = LocalSampler::new(config.rates.clone());
    let start = Instant::now();
    let mut tick: u32 = 0;
    let mut warned = Vec::new();
    loop {
        if let Some(s) = sampler.sample() {
            if tx.send(SamplerEvent::Sample(s)).is_err() {
                return; // nobody listens any more
            }
        }
        for w in sampler.warnings() {
            if !warned.contains(w) {
                warned.push(w.clone());
                let _ = tx.send(SamplerEvent::Warning(w.clone()));
            }
        }
        tick = tick.saturating_add(1);
        // Fixed schedule, so the loop's own run time does not stretch the period.
        let next = start + config.interval * tick;
        let wait = next.saturating_duration_since(Instant::now());
        if wait_or_stop(&stop, wait) {
            let _ = tx.send(SamplerEvent::Stopped { reason: None });
            return;
        }
    }
}

/// Samples and gap bookkeeping that outlive one connection.
struct Continuity {
    last_sample_ms: Option<i64>,
    pending_gap: Option<(i64, String)>,
    warned: Vec<String>,
}

enum StreamEnd {
    Stopped,
    Lost(String),
}

fn run_ssh(
    config: MonitorConfig,
    first: SshConnection,
    tx: Sender<SamplerEvent>,
    stop: Receiver<()>,
    socket: Arc<Mutex<Option<TcpStream>>>,
) {
    let Target::Ssh(target) = &config.target else {
        return;
    };
    let mut cont = Continuity {
        last_sample_ms: None,
        pending_gap: None,
        warned: Vec::new(),
    };
    let mut conn = first;
    loop {
        let end = stream_samples(&conn, &config, &tx, &stop, &mut cont);
        lock(&socket).take();
        conn.close();
        let reason = match end {
            StreamEnd::Stopped => {
                let _ = tx.send(SamplerEvent::Stopped { reason: None });
                return;
            }
            StreamEnd::Lost(reason) => reason,
        };
        let at = unix_ms_now();
        let _ = tx.send(SamplerEvent::Disconnected {
            at_ms: at,
            reason: reason.clone(),
        });
        if cont.pending_gap.is_none() {
            cont.pending_gap = Some((cont.last_sample_ms.unwrap_or(at), reason));
        }
        conn = loop {
            if wait_or_stop(&stop, config.retry_every) {
                close_gap(&tx, &mut cont, unix_ms_now());
                let _ = tx.send(SamplerEvent::Stopped { reason: None });
                return;
            }
            match ssh::connect(target) {
                Ok(c) => {
                    if stop_requested(&stop) {
                        c.close();
                        close_gap(&tx, &mut cont, unix_ms_now());
                        let _ = tx.send(SamplerEvent::Stopped { reason: None });
                        return;
                    }
                    *lock(&socket) = c.socket_handle();
                    let clock = c.clock_sync(config.clock_sync_rounds).ok();
                    let _ = tx.send(connected_event(&c, clock, true));
                    break c;
                }
                // Host key and login problems do not go away by retrying: stop, and
                // say why (the gap so far is recorded).
                Err(e) if e.needs_user_action() => {
                    close_gap(&tx, &mut cont, unix_ms_now());
                    let _ = tx.send(SamplerEvent::Stopped {
                        reason: Some(e.to_string()),
                    });
                    return;
                }
                Err(e) => {
                    let _ = tx.send(SamplerEvent::ReconnectFailed {
                        at_ms: unix_ms_now(),
                        reason: e.to_string(),
                    });
                }
            }
        };
    }
}

fn close_gap(tx: &Sender<SamplerEvent>, cont: &mut Continuity, to_ms: i64) {
    if let Some((from_ms, reason)) = cont.pending_gap.take() {
        let _ = tx.send(SamplerEvent::Gap {
            from_ms,
            to_ms,
            reason,
        });
    }
}

/// Runs the remote loop on `conn` until the stream breaks or stop is requested.
fn stream_samples(
    conn: &SshConnection,
    config: &MonitorConfig,
    tx: &Sender<SamplerEvent>,
    stop: &Receiver<()>,
    cont: &mut Continuity,
) -> StreamEnd {
    let stall = config.stall_timeout.max(config.interval * 3);
    conn.set_timeout(stall);
    let channel = match conn.spawn_script(&sampler_script(config.interval)) {
        Ok(c) => c,
        Err(e) => return StreamEnd::Lost(format!("cannot start the sampler on the server: {e}")),
    };
    let mut feed = Feed {
        conn,
        reader: BufReader::new(channel),
        buf: Vec::new(),
        stall,
        last_data: Instant::now(),
    };
    let mut parser = StreamParser::new();
    let mut blocks = Blocks {
        header: None,
        rates: config.rates.clone(),
        prev: None,
    };
    loop {
        if let Err(end) = feed.next_line(stop) {
            return end;
        }
        let item = parser.feed_line(&String::from_utf8_lossy(&feed.buf));
        feed.buf.clear();
        match item {
            Some(StreamItem::Header(h)) => {
                blocks.rates.clk_tck = h.clk_tck;
                blocks.header = Some(h);
            }
            Some(StreamItem::Block(block)) => {
                let received = Instant::now();
                let local_ms = unix_ms_now();
                let snap = block.snapshot;
                for w in &snap.warnings {
                    if !cont.warned.contains(w) {
                        cont.warned.push(w.clone());
                        let _ = tx.send(SamplerEvent::Warning(w.clone()));
                    }
                }
                if let Some(s) = blocks.sample(snap, received, local_ms) {
                    close_gap(tx, cont, s.local_unix_ms);
                    cont.last_sample_ms = Some(s.local_unix_ms);
                    if tx.send(SamplerEvent::Sample(s)).is_err() {
                        return StreamEnd::Stopped; // nobody listens any more
                    }
                }
                // libssh2 sends keepalives only when asked; this is the natural beat.
                if let Err(e) = conn.keepalive() {
                    return StreamEnd::Lost(e.to_string());
                }
            }
            None => {}
        }
    }
}

/// The sampler's output on one connection, read a line at a time.
struct Feed<'a> {
    conn: &'a SshConnection,
    reader: BufReader<ssh2::Channel>,
    /// A partial line stays here across retries; the caller clears it once processed.
    buf: Vec<u8>,
    /// No data for this long is a dead connection.
    stall: Duration,
    last_data: Instant,
}

impl Feed<'_> {
    /// Reads until `buf` holds a whole line, or says why the stream ended.
    fn next_line(&mut self, stop: &Receiver<()>) -> Result<(), StreamEnd> {
        loop {
            if stop_requested(stop) {
                return Err(StreamEnd::Stopped);
            }
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => {
                    let status = self
                        .reader
                        .get_ref()
                        .exit_status()
                        .map(|s| format!(" (exit status {s})"))
                        .unwrap_or_default();
                    return Err(StreamEnd::Lost(format!(
                        "the sampler on the server stopped{status}"
                    )));
                }
                Ok(_) => {
                    self.last_data = Instant::now();
                    return Ok(());
                }
                Err(_) if stop_requested(stop) => return Err(StreamEnd::Stopped),
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                    // libssh2 (1.11) also reports a timeout when its poll wakes up only
                    // because a keepalive is due, long before the session timeout: not a
                    // stall unless our own clock says so. Retrying is safe, as after EAGAIN.
                    if self.last_data.elapsed() >= self.stall {
                        return Err(StreamEnd::Lost(format!(
                            "no data from the server for {} s: the connection or the server stalled",
                            self.stall.as_secs()
                        )));
                    }
                    self.conn
                        .keepalive()
                        .map_err(|e| StreamEnd::Lost(e.to_string()))?;
                }
                Err(e) => {
                    let code = self
                        .conn
                        .last_error_code()
                        .map(|c| format!(", libssh2 code {c}"))
                        .unwrap_or_default();
                    return Err(StreamEnd::Lost(format!(
                        "the SSH connection was lost (sshd restarted or killed the session, or the network dropped): {e}{code}"
                    )));
                }
            }
        }
    }
}

/// What one connection's blocks need to become samples: the server's header and the
/// block before.
struct Blocks {
    header: Option<StreamHeader>,
    rates: RateOptions,
    prev: Option<(RawSnapshot, Instant)>,
}

impl Blocks {
    /// The sample from the previous block to `snap` (none for the first block), which
    /// then becomes the previous one.
    fn sample(
        &mut self,
        snap: RawSnapshot,
        received: Instant,
        local_ms: i64,
    ) -> Option<ServerSample> {
        let sample = self.prev.as_ref().and_then(|(p, p_at)| {
            sample_from(
                p,
                *p_at,
                &snap,
                received,
                local_ms,
                self.header.as_ref(),
                &self.rates,
            )
        });
        self.prev = Some((snap, received));
        sample
    }
}

fn sample_from(
    prev: &RawSnapshot,
    prev_at: Instant,
    cur: &RawSnapshot,
    cur_at: Instant,
    local_ms: i64,
    header: Option<&StreamHeader>,
    rates: &RateOptions,
) -> Option<ServerSample> {
    // The server's uptime stamps each block when it was read there: exact intervals
    // whatever the network jitter. Our receive times are the fallback.
    let (dt, server_ms) = match (prev.uptime_s, cur.uptime_s) {
        (Some(a), Some(b)) if b > a => (b - a, header.and_then(|h| h.server_unix_ms(b))),
        _ => (cur_at.duration_since(prev_at).as_secs_f64(), None),
    };
    compute_sample(
        prev,
        cur,
        dt,
        server_ms.unwrap_or(local_ms),
        local_ms,
        rates,
    )
}
