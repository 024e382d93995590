//! A server that stops answering: no reset, no error, nothing (a frozen host, a dropped
//! network path). A blocking read would wait for it forever, so the step watches.
//!
//! Each worker keeps an [`AnswerSlot`]: since when it waits for the server (a statement
//! sent, no answer yet) and when the server last answered it. The controller reads the
//! slots while it waits between intervals ([`Watch::check`]). The server is silent
//! since the later of the last answer any connection got and the oldest wait that is
//! still open; a connection that is idle (an open loop between arrivals, a reconnect
//! being refused) waits for nothing and proves nothing. A silence of
//! [`NOTE_AFTER`] or more is said as it starts and recorded when it ends; one that
//! reaches the step's stall timeout (`--stall-timeout`) ends the step: the controller
//! shuts every connection's socket down, which wakes the workers' blocked reads at once
//! (no read timeout is armed: a timer at every read cost about 1 % of the client's CPU
//! per query, vendor/mysql/PATCH.md), and the step fails with [`EngineError::ServerSilent`]
//! for the step-error policy to handle.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::EngineError;
use crate::events::{EngineEvent, EventSink, ServerSilence, SilenceState};
use crate::utc::clock_text;

/// The shortest silence worth an event: below it, a slow statement on a single
/// connection is more likely than a server that stopped.
pub const NOTE_AFTER: Duration = Duration::from_secs(2);

/// One worker's waits and answers, in ms since the step's epoch plus one (0: none).
/// Aligned to a cache line of its own: the worker writes it at every statement, and
/// two workers' slots on one line would bounce it between cores.
#[repr(align(64))]
#[derive(Default)]
pub struct AnswerSlot {
    /// When the statement the worker waits on was sent; 0 while it waits for nothing.
    waiting_since: AtomicU64,
    /// When the server last answered (a result or an error).
    answered: AtomicU64,
    /// The worker's socket, while it has one, for [`Watch`] to shut down. Changed only
    /// under the lock, and retracted before the connection is closed, so that the
    /// controller never shuts down a descriptor number that was reused.
    socket: Mutex<Option<RawSocket>>,
}

#[cfg(unix)]
type RawSocket = std::os::unix::io::RawFd;
#[cfg(not(unix))]
type RawSocket = ();

/// Milliseconds since `epoch`, plus one so that 0 keeps meaning "none".
fn stamp(epoch: Instant, at: Instant) -> u64 {
    at.saturating_duration_since(epoch).as_millis() as u64 + 1
}

impl AnswerSlot {
    /// A statement goes to the server at `at`.
    pub fn sent(&self, epoch: Instant, at: Instant) {
        self.waiting_since
            .store(stamp(epoch, at), Ordering::Relaxed);
    }

    /// The server answered at `at` (a result or an error of its own).
    pub fn answered(&self, epoch: Instant, at: Instant) {
        self.answered.store(stamp(epoch, at), Ordering::Relaxed);
        self.waiting_since.store(0, Ordering::Relaxed);
    }

    /// The worker waits for nothing (its connection broke, it reconnects).
    pub fn idle(&self) {
        self.waiting_since.store(0, Ordering::Relaxed);
    }

    /// The worker's connection from now on (`conn`), or none while it has none.
    #[cfg(unix)]
    pub fn publish(&self, conn: Option<&mysql::Conn>) {
        use std::os::unix::io::AsRawFd;
        *self.socket.lock().unwrap() = conn.map(|c| c.as_raw_fd());
    }

    #[cfg(not(unix))]
    pub fn publish(&self, conn: Option<&mysql::Conn>) {
        *self.socket.lock().unwrap() = conn.map(|_| ());
    }

    /// Wakes a read blocked on this worker's socket: the server will not answer it.
    fn shut_down(&self) {
        #[cfg(unix)]
        if let Some(fd) = *self.socket.lock().unwrap() {
            // SAFETY: the descriptor belongs to the worker's open connection: the
            // worker retracts it (under this lock) before the connection closes it.
            unsafe {
                libc::shutdown(fd, libc::SHUT_RDWR);
            }
        }
    }
}

/// Since when (ms stamp) the server has answered no connection that waits for it;
/// None when no connection waits.
fn quiet_since(slots: &[AnswerSlot]) -> Option<u64> {
    let mut last_answer = 0;
    let mut oldest_wait: Option<u64> = None;
    for s in slots {
        last_answer = last_answer.max(s.answered.load(Ordering::Relaxed));
        let w = s.waiting_since.load(Ordering::Relaxed);
        if w != 0 {
            oldest_wait = Some(oldest_wait.map_or(w, |o| o.min(w)));
        }
    }
    oldest_wait.map(|w| w.max(last_answer))
}

/// The controller's watch over one step's connections.
pub struct Watch<'a> {
    slots: &'a [AnswerSlot],
    /// The step's stop flag: set before the sockets are shut down, so that a worker
    /// woken by the shutdown stops instead of reconnecting to the silent server.
    stop: &'a AtomicBool,
    epoch: Instant,
    stall: Duration,
    step: usize,
    events: &'a EventSink,
    /// The silence going on (its start, as a stamp), once it was long enough to say.
    ongoing: Option<u64>,
    /// A silence reached the stall timeout: the step is over, nothing more to say.
    stalled: bool,
}

impl<'a> Watch<'a> {
    pub fn new(
        slots: &'a [AnswerSlot],
        stop: &'a AtomicBool,
        epoch: Instant,
        stall: Duration,
        step: usize,
        events: &'a EventSink,
    ) -> Self {
        Watch {
            slots,
            stop,
            epoch,
            stall,
            step,
            events,
            ongoing: None,
            stalled: false,
        }
    }

    /// Looks at the connections now. Says a silence that began or ended; returns the
    /// error that ends the step when one reached the stall timeout (every socket is
    /// shut down by then, so that no worker stays blocked on it).
    pub fn check(&mut self) -> Result<(), EngineError> {
        if self.stalled {
            return Ok(());
        }
        let now = Instant::now();
        let now_stamp = stamp(self.epoch, now);
        let quiet = quiet_since(self.slots);
        let silent_for = |since: u64| Duration::from_millis(now_stamp.saturating_sub(since));
        if let Some(since) = self.ongoing {
            if quiet != Some(since) {
                // Answers came (or nobody waits any more): the silence is over.
                self.ongoing = None;
                let seconds = silent_for(since).as_secs_f64();
                self.say(since, seconds, SilenceState::Answered);
            }
        }
        let Some(since) = quiet else {
            return Ok(());
        };
        let quiet_for = silent_for(since);
        if quiet_for >= self.stall {
            self.ongoing = None;
            self.stalled = true;
            self.stop.store(true, Ordering::SeqCst);
            for s in self.slots {
                s.shut_down();
            }
            let seconds = self.stall.as_secs_f64();
            let since_unix_ms = self.unix_ms_of(since);
            self.say(since, seconds, SilenceState::StallTimeout);
            return Err(EngineError::ServerSilent {
                seconds: self.stall.as_secs(),
                since: clock_text(since_unix_ms),
            });
        }
        if self.ongoing.is_none() && quiet_for >= NOTE_AFTER.min(self.stall / 2) {
            self.ongoing = Some(since);
            self.say(since, quiet_for.as_secs_f64(), SilenceState::Silent);
        }
        Ok(())
    }

    /// The Unix time (ms) of a stamp.
    fn unix_ms_of(&self, at: u64) -> i64 {
        let ago = stamp(self.epoch, Instant::now()).saturating_sub(at);
        crate::utc::now_ms() - ago as i64
    }

    fn say(&self, since: u64, seconds: f64, state: SilenceState) {
        let silence = ServerSilence {
            step: self.step,
            since_unix_ms: self.unix_ms_of(since),
            seconds,
            stall_timeout_s: self.stall.as_secs(),
            state,
        };
        // The end of a silence is a warning too: the history files it under the step.
        if state != SilenceState::Silent {
            self.events.warning(silence.describe());
        }
        self.events.send(EngineEvent::ServerSilent(silence));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(n: usize) -> Vec<AnswerSlot> {
        (0..n).map(|_| AnswerSlot::default()).collect()
    }

    #[test]
    fn the_server_is_quiet_since_the_last_answer_or_the_oldest_open_wait() {
        let epoch = Instant::now();
        let at = |ms: u64| epoch + Duration::from_millis(ms);
        let s = slots(3);
        assert_eq!(quiet_since(&s), None, "nobody waits: no silence");
        s[0].answered(epoch, at(100));
        s[1].answered(epoch, at(300));
        assert_eq!(quiet_since(&s), None, "answered, waiting for nothing");
        s[0].sent(epoch, at(150));
        assert_eq!(
            quiet_since(&s),
            Some(301),
            "the last answer came after the wait"
        );
        s[1].sent(epoch, at(400));
        s[2].sent(epoch, at(1000));
        assert_eq!(quiet_since(&s), Some(301));
        s[0].answered(epoch, at(1200));
        assert_eq!(
            quiet_since(&s),
            Some(1201),
            "another connection's answer ends it"
        );
        s[1].idle();
        s[2].idle();
        assert_eq!(quiet_since(&s), None);
        // An idle open loop: a wait that starts long after the last answer is quiet
        // from its send, not from the answer.
        s[2].sent(epoch, at(5000));
        assert_eq!(quiet_since(&s), Some(5001));
    }

    #[test]
    fn a_silence_is_said_when_it_starts_and_ends_and_fails_the_step_at_the_stall_timeout() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let sink = EventSink::new(tx);
        let stop = AtomicBool::new(false);
        let s = slots(1);
        let epoch = Instant::now() - Duration::from_secs(10);
        let mut watch = Watch::new(&s, &stop, epoch, Duration::from_secs(6), 3, &sink);
        // Waiting for 1 s: not yet worth a word.
        s[0].sent(epoch, Instant::now() - Duration::from_secs(1));
        watch.check().unwrap();
        assert!(rx.try_recv().is_err());
        // Waiting for 3 s: said once.
        s[0].sent(epoch, Instant::now() - Duration::from_secs(3));
        watch.check().unwrap();
        watch.check().unwrap();
        let said: Vec<EngineEvent> = rx.try_iter().collect();
        assert!(
            matches!(&said[..], [EngineEvent::ServerSilent(ServerSilence { state: SilenceState::Silent, step: 3, seconds, .. })] if *seconds >= 3.0),
            "{said:?}"
        );
        // The answer comes: the end is a warning and an event.
        s[0].answered(epoch, Instant::now());
        watch.check().unwrap();
        let said: Vec<EngineEvent> = rx.try_iter().collect();
        assert!(
            matches!(&said[..], [EngineEvent::Warning { text }, EngineEvent::ServerSilent(ServerSilence { state: SilenceState::Answered, .. })] if text.starts_with("server silent for 3.")),
            "{said:?}"
        );
        // A wait as long as the stall timeout fails the step (on a step whose
        // connections have had no answer yet).
        let s = slots(2);
        let mut watch = Watch::new(&s, &stop, epoch, Duration::from_secs(6), 3, &sink);
        s[0].sent(epoch, Instant::now() - Duration::from_secs(7));
        s[1].sent(epoch, Instant::now() - Duration::from_secs(6));
        let e = watch.check().unwrap_err();
        assert!(stop.load(Ordering::Relaxed), "the step is stopped");
        assert!(
            e.to_string().contains("silent for 6 s"),
            "the error says how long: {e}"
        );
        let said: Vec<EngineEvent> = rx.try_iter().collect();
        assert!(
            matches!(
                said.last(),
                Some(EngineEvent::ServerSilent(ServerSilence {
                    state: SilenceState::StallTimeout,
                    ..
                }))
            ),
            "{said:?}"
        );
    }
}
