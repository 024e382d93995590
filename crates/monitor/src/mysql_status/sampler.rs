//! The MySQL-side sampler: one thread, one connection of its own, `SHOW GLOBAL STATUS`
//! once a second on a fixed schedule, [`MysqlEvent`]s out on a channel.
//!
//! It survives the server: when the connection breaks (a restart, a network drop) it
//! reports `Disconnected`, retries every `retry_every`, reports `Restarted` when the
//! server's uptime went backwards, and once samples flow again a `Gap` covering the time
//! without them. No sample ever spans a gap or a restart: the first poll after a
//! reconnect is a fresh baseline.
//!
//! Cost on the server: one `SHOW GLOBAL STATUS` per second (about 560 rows on MariaDB
//! 10.11, well under a millisecond of server time), one idle connection; see
//! docs/monitoring.md for the measurement.
//!
//! Non-goals: no OS figures ([`crate::Monitor`]), no aggregation (see [`crate::timeline`]).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{bounded, unbounded, Receiver, RecvTimeoutError, Sender};
use dbdyno_mysql::{self as driver, ConnectOptions, MysqlError};
use mysql::Conn;
use serde::{Deserialize, Serialize};

use super::conn::{connect_server_within, measure_clock, MysqlClock, QUERY_TIMEOUT};
use super::sample::{self, MysqlSample, StatusSnapshot};
use crate::local::unix_ms_now;

/// Why the sampler did not start.
#[derive(Debug, thiserror::Error)]
pub enum MysqlSamplerError {
    #[error(transparent)]
    Mysql(#[from] MysqlError),

    #[error("cannot start the MySQL sampler thread: {0}")]
    Thread(#[source] std::io::Error),
}

#[derive(Debug, Clone)]
pub struct MysqlSamplerConfig {
    pub connect: ConnectOptions,
    pub interval: Duration,
    /// Pause between reconnection attempts.
    pub retry_every: Duration,
    /// Exchanges used to measure the clock offset at each connect.
    pub clock_rounds: u32,
    /// How long a connect or a query may go unanswered before the connection counts
    /// as lost (the run's stall timeout, when it is shorter than [`QUERY_TIMEOUT`]).
    pub stall_timeout: Duration,
}

impl MysqlSamplerConfig {
    pub fn new(connect: ConnectOptions) -> Self {
        MysqlSamplerConfig {
            connect,
            interval: Duration::from_secs(1),
            retry_every: Duration::from_secs(1),
            clock_rounds: 5,
            stall_timeout: QUERY_TIMEOUT,
        }
    }
}

/// What the sampler reports, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum MysqlEvent {
    /// Sampling (re)started; `clock` is the offset measured on this connection.
    Connected {
        clock: Option<MysqlClock>,
        uptime_s: Option<u64>,
        reconnect: bool,
    },
    Sample(MysqlSample),
    /// The connection broke; reconnection attempts follow.
    Disconnected {
        at_ms: i64,
        reason: String,
    },
    ReconnectFailed {
        at_ms: i64,
        reason: String,
    },
    /// The server restarted (its uptime went backwards): counters started over.
    Restarted {
        at_ms: i64,
        uptime_s: u64,
    },
    /// No samples between these local times (ms).
    Gap {
        from_ms: i64,
        to_ms: i64,
        reason: String,
    },
    /// The thread ended; `reason` is set when it was not asked to.
    Stopped {
        reason: Option<String>,
    },
}

/// A running sampler. Dropping it stops the thread.
pub struct MysqlSampler {
    events: Receiver<MysqlEvent>,
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
    clock: Option<MysqlClock>,
    connection_id: Arc<AtomicU32>,
}

impl MysqlSampler {
    /// Connects (synchronously, so a wrong password is returned here), measures the
    /// clock offset and starts polling on a new thread.
    pub fn start(config: MysqlSamplerConfig) -> Result<MysqlSampler, MysqlSamplerError> {
        let mut conn = connect_server_within(&config.connect, config.stall_timeout)?;
        let clock = measure_clock(&mut conn, config.clock_rounds).ok().flatten();
        let connection_id = Arc::new(AtomicU32::new(conn.connection_id()));
        let id = connection_id.clone();
        let (tx, events) = unbounded();
        let (stop, stop_rx) = bounded::<()>(1);
        let _ = tx.send(MysqlEvent::Connected {
            clock,
            uptime_s: None,
            reconnect: false,
        });
        let thread = std::thread::Builder::new()
            .name("dbdyno-mysql-sampler".into())
            .spawn(move || run(config, conn, clock, id, tx, stop_rx))
            .map_err(MysqlSamplerError::Thread)?;
        Ok(MysqlSampler {
            events,
            stop: Some(stop),
            thread: Some(thread),
            clock,
            connection_id,
        })
    }

    /// The server's id for the sampler's current connection (`SHOW PROCESSLIST`'s Id),
    /// so that a person (or a test) can find it on the server.
    pub fn connection_id(&self) -> u32 {
        self.connection_id.load(Ordering::Relaxed)
    }

    pub fn events(&self) -> &Receiver<MysqlEvent> {
        &self.events
    }

    /// Clock offset measured at the first connect.
    pub fn clock(&self) -> Option<MysqlClock> {
        self.clock
    }

    /// Stops polling and waits for the thread (at most one query timeout).
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for MysqlSampler {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// Sleeps up to `d`; true if stop was requested meanwhile (sender dropped or message).
fn wait_or_stop(stop: &Receiver<()>, d: Duration) -> bool {
    !matches!(stop.recv_timeout(d), Err(RecvTimeoutError::Timeout))
}

struct Loop {
    config: MysqlSamplerConfig,
    connection_id: Arc<AtomicU32>,
    tx: Sender<MysqlEvent>,
    start: Instant,
    offset_ms: f64,
    prev: Option<StatusSnapshot>,
    last_uptime: Option<(u64, Instant)>,
    last_sample_ms: Option<i64>,
    pending_gap: Option<(i64, String)>,
}

fn run(
    config: MysqlSamplerConfig,
    conn: Conn,
    clock: Option<MysqlClock>,
    connection_id: Arc<AtomicU32>,
    tx: Sender<MysqlEvent>,
    stop: Receiver<()>,
) {
    let interval = config.interval.max(Duration::from_millis(100));
    let mut l = Loop {
        offset_ms: clock.map_or(0.0, |c| c.offset_ms),
        config,
        connection_id,
        tx,
        start: Instant::now(),
        prev: None,
        last_uptime: None,
        last_sample_ms: None,
        pending_gap: None,
    };
    let mut conn = Some(conn);
    let mut tick: u32 = 0;
    loop {
        let wait = match conn.as_mut() {
            Some(c) => {
                if let Err(reason) = l.poll(c) {
                    let at = unix_ms_now();
                    let _ = l.tx.send(MysqlEvent::Disconnected {
                        at_ms: at,
                        reason: reason.clone(),
                    });
                    l.pending_gap
                        .get_or_insert((l.last_sample_ms.unwrap_or(at), reason));
                    l.prev = None;
                    conn = None;
                    l.config.retry_every
                } else {
                    // Fixed schedule: the poll's own duration does not stretch the period;
                    // after a stall, skip the missed ticks instead of bursting.
                    tick = tick.saturating_add(1);
                    let mut next = l.start + interval * tick;
                    let now = Instant::now();
                    while next <= now {
                        tick = tick.saturating_add(1);
                        next = l.start + interval * tick;
                    }
                    next - now
                }
            }
            None => match l.reconnect() {
                Ok(c) => {
                    conn = Some(c);
                    Duration::ZERO
                }
                Err(reason) => {
                    let _ = l.tx.send(MysqlEvent::ReconnectFailed {
                        at_ms: unix_ms_now(),
                        reason,
                    });
                    l.config.retry_every
                }
            },
        };
        if wait_or_stop(&stop, wait) {
            if let Some((from_ms, reason)) = l.pending_gap.take() {
                let _ = l.tx.send(MysqlEvent::Gap {
                    from_ms,
                    to_ms: unix_ms_now(),
                    reason,
                });
            }
            let _ = l.tx.send(MysqlEvent::Stopped { reason: None });
            return;
        }
    }
}

impl Loop {
    /// One poll; `Err(reason)` when the connection is gone.
    fn poll(&mut self, conn: &mut Conn) -> Result<(), String> {
        let t0 = Instant::now();
        let values = driver::global_status(conn).map_err(|e| {
            // A read that waited the whole timeout: the server said nothing at all.
            let waited = t0.elapsed();
            if waited >= self.config.stall_timeout {
                format!(
                    "server silent for {:.0} s (no answer to SHOW GLOBAL STATUS): {e}",
                    waited.as_secs_f64()
                )
            } else {
                e.to_string()
            }
        })?;
        let rtt = t0.elapsed();
        let snap = StatusSnapshot {
            values,
            mono_s: (t0 + rtt / 2).duration_since(self.start).as_secs_f64(),
            local_unix_ms: unix_ms_now() - (rtt / 2).as_millis() as i64,
        };
        if let Some(up) = snap.uptime_s() {
            self.last_uptime = Some((up, Instant::now()));
        }
        if let Some(prev) = &self.prev {
            if sample::restarted(prev, &snap) {
                self.restarted(snap.uptime_s().unwrap_or(0), snap.local_unix_ms);
            } else if let Some(s) = sample::compute(prev, &snap, self.offset_ms) {
                if let Some((from_ms, reason)) = self.pending_gap.take() {
                    let _ = self.tx.send(MysqlEvent::Gap {
                        from_ms,
                        to_ms: s.local_unix_ms,
                        reason,
                    });
                }
                self.last_sample_ms = Some(s.local_unix_ms);
                let _ = self.tx.send(MysqlEvent::Sample(s));
            }
        }
        self.prev = Some(snap);
        Ok(())
    }

    fn restarted(&mut self, uptime_s: u64, at_ms: i64) {
        let _ = self.tx.send(MysqlEvent::Restarted { at_ms, uptime_s });
        self.pending_gap.get_or_insert((
            self.last_sample_ms.unwrap_or(at_ms),
            "the MySQL server restarted".into(),
        ));
    }

    fn reconnect(&mut self) -> Result<Conn, String> {
        let mut c = connect_server_within(&self.config.connect, self.config.stall_timeout)
            .map_err(|e| e.to_string())?;
        self.connection_id
            .store(c.connection_id(), Ordering::Relaxed);
        let clock = measure_clock(&mut c, self.config.clock_rounds)
            .ok()
            .flatten();
        if let Some(clock) = clock {
            self.offset_ms = clock.offset_ms;
        }
        let uptime_s = driver::global_status(&mut c)
            .ok()
            .and_then(|m| m.get("Uptime").copied());
        let _ = self.tx.send(MysqlEvent::Connected {
            clock,
            uptime_s,
            reconnect: true,
        });
        // Uptime lower than it was plus the time since: the server started over.
        if let (Some(now), Some((before, seen))) = (uptime_s, self.last_uptime) {
            if now + 1 < before + seen.elapsed().as_secs() {
                self.restarted(now, unix_ms_now());
            }
        }
        Ok(c)
    }
}
