//! The agent: what `dbdyno agent` runs on a load client. It reads [`Order`]s, one JSON
//! line each, and answers with [`Report`]s, one line each, flushed at once.
//!
//! Orders are read on a thread of their own so that the end of the input, or a
//! `cancel`, stops a step at once (the cancel token), whatever the agent is doing:
//! that is how an agent whose SSH connection died leaves no process behind. While a
//! step waits for its start, the main thread takes the next orders itself (`start`,
//! `abort`, and `clock` answered on the spot).

use std::io::{BufRead, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossbeam_channel::{Receiver, RecvTimeoutError};
use dbdyno_engine::clients::protocol::check_version;
use dbdyno_engine::clients::{AgentConnect, Order, Report, StepOrder, PROTOCOL_VERSION};
use dbdyno_engine::exec::{self, StepRendezvous};
use dbdyno_engine::stats::LatencyHistogram;
use dbdyno_engine::{CancelToken, EngineEvent, EventSink, IntervalRecord};
use mysql::prelude::Queryable;

/// How an agent ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentExit {
    /// The input ended or a `cancel` came: the normal end.
    Done,
    /// The coordinator runs another version: nothing ran.
    Refused(String),
}

/// Serves orders from `input` until it ends or a `cancel` comes.
pub fn serve(
    input: impl BufRead + Send + 'static,
    output: impl Write + Send + 'static,
) -> AgentExit {
    let out = Output(Mutex::new(Box::new(output)));
    let cancel = CancelToken::new();
    let orders = read_orders(input, cancel.clone());
    loop {
        let Ok(order) = orders.recv() else {
            return AgentExit::Done;
        };
        match order {
            Order::Hello { version } => {
                if let Err(e) = check_version(&version) {
                    let reason = e.to_string();
                    out.say(&Report::Refused {
                        reason: reason.clone(),
                    });
                    return AgentExit::Refused(reason);
                }
                out.say(&hello());
            }
            Order::Clock => out.say(&clock()),
            Order::Ping { connect } => out.say(&ping(&connect)),
            Order::Step(order) => run_step(&order, &orders, &out, &cancel),
            Order::Prewarm(order) => {
                let events = forward_warnings(&out);
                let r = dbdyno_engine::phases::prewarm(
                    &order.connect.to_options(),
                    &order.workload,
                    &order.options,
                    &events.sink,
                    &cancel,
                );
                drop(events);
                out.say(&match r {
                    Ok(prewarm) => Report::Prewarmed { prewarm },
                    Err(e) => Report::Failed {
                        error: e.to_string(),
                    },
                });
            }
            // Outside a step's opening there is nothing to start or call off.
            Order::Start { .. } | Order::Abort => {}
            Order::Cancel => return AgentExit::Done,
        }
        // Cancelled (a `cancel` taken during a step, or the input's end): stop once the
        // orders read before it are answered.
        if cancel.is_cancelled() && orders.is_empty() {
            return AgentExit::Done;
        }
    }
}

/// Reads orders on a thread; a `cancel` or the end of the input also sets `cancel`, so
/// a running step stops without waiting for the main thread to read on.
fn read_orders(input: impl BufRead + Send + 'static, cancel: CancelToken) -> Receiver<Order> {
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::Builder::new()
        .name("dbdyno-agent-orders".into())
        .spawn(move || {
            for line in input.lines() {
                let Ok(line) = line else { break };
                if line.trim().is_empty() {
                    continue;
                }
                // An order this version cannot read: the coordinator is another version,
                // and `hello` already refused it; anything else is ignored.
                let Ok(order) = serde_json::from_str::<Order>(&line) else {
                    continue;
                };
                let stop = order == Order::Cancel;
                if stop {
                    cancel.cancel();
                }
                if tx.send(order).is_err() || stop {
                    return;
                }
            }
            cancel.cancel();
        })
        .expect("start the agent's reader thread");
    rx
}

/// Reports written one line at a time from several threads (the step's controller
/// and the warnings' forwarder).
struct Output(Mutex<Box<dyn Write + Send>>);

impl Output {
    fn say(&self, report: &Report) {
        let mut w = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // A closed output means the coordinator is gone; the input's end stops us next.
        let _ = writeln!(w, "{}", report.to_line());
        let _ = w.flush();
    }
}

fn hello() -> Report {
    Report::Hello {
        version: PROTOCOL_VERSION.to_string(),
        cores: exec::client_cores(),
        os: std::env::consts::OS.to_string(),
        arch: std::env::consts::ARCH.to_string(),
    }
}

pub(crate) fn unix_us(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros() as i64)
        .unwrap_or(0)
}

fn clock() -> Report {
    Report::Clock {
        unix_us: unix_us(SystemTime::now()),
    }
}

/// One `SELECT 1` on a fresh connection, timed without the connect.
fn ping(connect: &AgentConnect) -> Report {
    let timed = || -> Result<f64, String> {
        let mut conn =
            dbdyno_engine::driver::connect(&connect.to_options()).map_err(|e| e.to_string())?;
        let t = Instant::now();
        conn.query_drop("SELECT 1").map_err(|e| e.to_string())?;
        Ok(t.elapsed().as_secs_f64() * 1000.0)
    };
    match timed() {
        Ok(rtt_ms) => Report::Pinged { rtt_ms },
        Err(error) => Report::Failed { error },
    }
}

/// The engine's warnings, said as reports while it runs.
fn forward_warnings(out: &Output) -> ForwarderScope<'_> {
    let (tx, rx) = crossbeam_channel::unbounded::<EngineEvent>();
    ForwarderScope {
        sink: EventSink::new(tx),
        rx,
        out,
    }
}

/// Warnings are drained when the scope ends and while the rendezvous polls.
struct ForwarderScope<'a> {
    sink: EventSink,
    rx: Receiver<EngineEvent>,
    out: &'a Output,
}

impl ForwarderScope<'_> {
    fn drain(&self) {
        for e in self.rx.try_iter() {
            if let EngineEvent::Warning { text } = e {
                self.out.say(&Report::Warning { text });
            }
        }
    }
}

impl Drop for ForwarderScope<'_> {
    fn drop(&mut self) {
        self.drain();
    }
}

/// The step's side of the rendezvous: says `ready`, takes `start` or `abort` from the
/// orders, and says every interval as it is recorded.
struct OnCue<'a> {
    orders: &'a Receiver<Order>,
    out: &'a Output,
    cancel: &'a CancelToken,
    warnings: &'a ForwarderScope<'a>,
}

impl StepRendezvous for OnCue<'_> {
    fn ready(&self) -> Option<SystemTime> {
        self.warnings.drain();
        self.out.say(&Report::Ready);
        loop {
            if self.cancel.is_cancelled() {
                return None;
            }
            match self.orders.recv_timeout(Duration::from_millis(20)) {
                Ok(Order::Start { at_unix_us }) => {
                    let at = UNIX_EPOCH + Duration::from_micros(at_unix_us.max(0) as u64);
                    return Some(at);
                }
                Ok(Order::Abort) | Ok(Order::Cancel) => return None,
                Ok(Order::Clock) => self.out.say(&clock()),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    fn interval(&self, record: &IntervalRecord, latency: &LatencyHistogram) {
        self.warnings.drain();
        self.out.say(&Report::Interval {
            record: record.clone(),
            histogram: latency.to_base64(),
        });
    }
}

/// One share of a step, on cue; its figures (or why it failed) are the last report.
fn run_step(order: &StepOrder, orders: &Receiver<Order>, out: &Output, cancel: &CancelToken) {
    let warnings = forward_warnings(out);
    let cue = OnCue {
        orders,
        out,
        cancel,
        warnings: &warnings,
    };
    let connect = order.connect.to_options();
    let call = exec::StepCall {
        connect: &connect,
        workload: &order.workload,
        step: &order.step,
        step_index: order.step_index,
        server_seen: order.server_seen,
        events: &warnings.sink,
        cancel,
    };
    let r = exec::run_share(&call, order.workers, &cue);
    warnings.drain();
    out.say(&match r {
        Ok((result, histograms)) => Report::Finished {
            result: Box::new(result),
            histograms,
        },
        Err(e) => Report::Failed {
            error: e.to_string(),
        },
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// The agent's output, kept where the test can read it after the agent ended.
    #[derive(Clone, Default)]
    struct Kept(std::sync::Arc<Mutex<Vec<u8>>>);

    impl Write for Kept {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn replies(input: &str) -> (AgentExit, Vec<Report>) {
        let out = Kept::default();
        let exit = serve(Cursor::new(input.to_string()), out.clone());
        let bytes = out.0.lock().unwrap().clone();
        let reports = String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (exit, reports)
    }

    #[test]
    fn hello_of_the_same_version_is_answered_with_the_machine() {
        let hello = Order::Hello {
            version: PROTOCOL_VERSION.into(),
        };
        let input = format!("{}\n{}\n", hello.to_line(), Order::Clock.to_line());
        let (exit, reports) = replies(&input);
        assert_eq!(exit, AgentExit::Done, "the end of input ends the agent");
        assert!(
            matches!(&reports[0], Report::Hello { version, cores, .. } if version == PROTOCOL_VERSION && *cores >= 1),
            "{reports:?}"
        );
        let Report::Clock { unix_us: theirs } = reports[1] else {
            panic!("{reports:?}")
        };
        let now = unix_us(SystemTime::now());
        assert!((now - theirs).abs() < 5_000_000, "{now} vs {theirs}");
    }

    #[test]
    fn another_version_is_refused_and_nothing_else_runs() {
        let hello = Order::Hello {
            version: "0.0.0-elsewhere".into(),
        };
        let input = format!("{}\n{}\n", hello.to_line(), Order::Clock.to_line());
        let (exit, reports) = replies(&input);
        assert!(matches!(exit, AgentExit::Refused(_)), "{exit:?}");
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert!(
            matches!(&reports[0], Report::Refused { reason } if reason.contains("0.0.0-elsewhere"))
        );
    }

    #[test]
    fn cancel_ends_the_agent_before_later_orders() {
        let input = format!("{}\n{}\n", Order::Cancel.to_line(), Order::Clock.to_line());
        let (exit, reports) = replies(&input);
        assert_eq!(exit, AgentExit::Done);
        assert!(reports.is_empty(), "{reports:?}");
    }
}
