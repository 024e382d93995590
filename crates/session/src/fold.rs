//! The pure half of a run's monitoring: folds the samplers' events into the timeline,
//! keeps every sample for the history, and says what happened as [`Update`]s. No
//! threads and no connections, so it is unit-tested on synthetic events.

use dbdyno_monitor::timeline::{SampleGap, Source};
use dbdyno_monitor::{MysqlEvent, MysqlSample, SamplerEvent, ServerSample, StepWindow, Timeline};
use dbdyno_results::Sampled;

/// What the samplers reported, for the shell to show (the CLI prints, the app charts).
#[derive(Debug, Clone, PartialEq)]
pub enum Update {
    /// An OS sample. `end_unix_ms` is the end of its interval on this machine's clock,
    /// as the timeline aligns it (the server's own time minus the SSH clock offset), so
    /// a live chart and the step figures put it at the same instant.
    Os {
        end_unix_ms: i64,
        sample: ServerSample,
    },
    /// A MySQL status sample (stamped on this machine's clock by the sampler).
    Mysql(MysqlSample),
    /// A time without samples from one sampler, known once sampling resumed.
    Gap(SampleGap),
    /// A line for the user; `warning` when figures may be missing because of it.
    Note { warning: bool, text: String },
}

fn note(text: String) -> Update {
    Update::Note {
        warning: false,
        text,
    }
}

fn warning(text: String) -> Update {
    Update::Note {
        warning: true,
        text,
    }
}

/// A copy of one sample for the history: its end, the middle of its interval (which
/// decides its step, as in the timeline), and the sample.
struct Kept<T> {
    end_ms: i64,
    mid_ms: f64,
    sample: T,
}

pub(crate) struct Fold {
    /// "ssh root@db1:22" or "this machine (/proc)": named in connection warnings.
    access: String,
    /// Local /proc: the sample's time is already this machine's.
    local: bool,
    os_offset: Option<f64>,
    /// Since when (local ms) and why the OS sampler has no connection.
    os_down: Option<(i64, String)>,
    pub(crate) timeline: Timeline,
    pub(crate) windows: Vec<StepWindow>,
    os_rows: Vec<Kept<ServerSample>>,
    mysql_rows: Vec<Kept<MysqlSample>>,
    /// How many of `os_rows` / `mysql_rows` were handed to the history already.
    os_taken: usize,
    mysql_taken: usize,
}

impl Fold {
    pub(crate) fn new(access: String, local: bool, timeline: Timeline) -> Fold {
        Fold {
            access,
            local,
            os_offset: None,
            os_down: None,
            timeline,
            windows: Vec::new(),
            os_rows: Vec::new(),
            mysql_rows: Vec::new(),
            os_taken: 0,
            mysql_taken: 0,
        }
    }

    pub(crate) fn os_down(&self) -> Option<(i64, &str)> {
        self.os_down.as_ref().map(|(at, why)| (*at, why.as_str()))
    }

    pub(crate) fn os(&mut self, ev: SamplerEvent) -> Vec<Update> {
        match ev {
            SamplerEvent::Connected {
                addr,
                clock,
                reconnect,
                ..
            } => {
                self.os_down = None;
                self.os_offset = if self.local {
                    Some(0.0)
                } else {
                    clock.map(|c| c.offset_ms)
                };
                if reconnect {
                    vec![note(format!(
                        "server monitor: reconnected to {addr}; sampling resumes"
                    ))]
                } else {
                    Vec::new()
                }
            }
            SamplerEvent::Sample(s) => {
                let end_ms = match self.os_offset {
                    Some(o) => s.server_unix_ms as f64 - o,
                    None => s.local_unix_ms as f64,
                };
                self.os_rows.push(Kept {
                    end_ms: end_ms as i64,
                    mid_ms: end_ms - s.interval_s * 500.0,
                    sample: s.clone(),
                });
                self.timeline.push_os(s.clone(), self.os_offset);
                vec![Update::Os {
                    end_unix_ms: end_ms as i64,
                    sample: s,
                }]
            }
            SamplerEvent::Disconnected { at_ms, reason } => {
                let text = format!(
                    "server monitor lost {}: {reason}. The benchmark goes on; reconnecting",
                    self.access
                );
                self.os_down = Some((at_ms, reason));
                vec![warning(text)]
            }
            SamplerEvent::ReconnectFailed { .. } | SamplerEvent::Stopped { reason: None } => {
                Vec::new()
            }
            SamplerEvent::Gap {
                from_ms,
                to_ms,
                reason,
            } => self.gap(SampleGap {
                source: Source::Os,
                from_ms,
                to_ms,
                reason,
            }),
            SamplerEvent::Warning(w) => vec![note(format!("server monitor: {w}"))],
            SamplerEvent::Stopped { reason: Some(r) } => {
                vec![warning(format!("server monitor stopped: {r}"))]
            }
        }
    }

    pub(crate) fn mysql(&mut self, ev: MysqlEvent) -> Vec<Update> {
        match ev {
            MysqlEvent::Sample(s) => {
                let end_ms = s.local_unix_ms;
                self.mysql_rows.push(Kept {
                    end_ms,
                    mid_ms: end_ms as f64 - s.interval_s * 500.0,
                    sample: s.clone(),
                });
                self.timeline.push_mysql(s.clone());
                vec![Update::Mysql(s)]
            }
            MysqlEvent::Connected {
                reconnect: true, ..
            } => vec![note("mysql sampler: reconnected; sampling resumes".into())],
            MysqlEvent::Disconnected { reason, .. } => vec![warning(format!(
                "mysql sampler lost its connection: {reason}; reconnecting"
            ))],
            MysqlEvent::Restarted { uptime_s, .. } => vec![note(format!(
                "mysql sampler: the server restarted (uptime {uptime_s} s): counters start over"
            ))],
            MysqlEvent::Gap {
                from_ms,
                to_ms,
                reason,
            } => self.gap(SampleGap {
                source: Source::Mysql,
                from_ms,
                to_ms,
                reason,
            }),
            MysqlEvent::Stopped { reason: Some(r) } => {
                vec![warning(format!("mysql sampler stopped: {r}"))]
            }
            MysqlEvent::Connected { .. }
            | MysqlEvent::ReconnectFailed { .. }
            | MysqlEvent::Stopped { reason: None } => Vec::new(),
        }
    }

    fn gap(&mut self, gap: SampleGap) -> Vec<Update> {
        let who = match gap.source {
            Source::Os => "server monitor",
            Source::Mysql => "mysql sampler",
        };
        let text = format!(
            "{who}: {:.1} s without samples ({})",
            gap.seconds(),
            gap.reason
        );
        self.timeline.push_gap(gap.clone());
        vec![Update::Gap(gap), note(text)]
    }

    /// The OS samples as history rows, each with the step whose window holds its middle.
    /// The server and MySQL rows not handed out yet, up to `until_ms` (the middle of a
    /// sample before it; `None`: all of them). Samples arrive in time order, so what is
    /// left is always later than what was taken.
    pub(crate) fn take_rows(
        &mut self,
        until_ms: Option<f64>,
    ) -> (Vec<Sampled<ServerSample>>, Vec<Sampled<MysqlSample>>) {
        fn due<T>(rows: &[Kept<T>], from: usize, until_ms: Option<f64>) -> usize {
            from + rows[from..]
                .iter()
                .take_while(|k| until_ms.is_none_or(|u| k.mid_ms < u))
                .count()
        }
        let (os_end, my_end) = (
            due(&self.os_rows, self.os_taken, until_ms),
            due(&self.mysql_rows, self.mysql_taken, until_ms),
        );
        let os = self.rows(&self.os_rows[self.os_taken..os_end]);
        let my = self.rows(&self.mysql_rows[self.mysql_taken..my_end]);
        (self.os_taken, self.mysql_taken) = (os_end, my_end);
        (os, my)
    }

    fn rows<T: Clone>(&self, kept: &[Kept<T>]) -> Vec<Sampled<T>> {
        kept.iter()
            .map(|k| Sampled {
                step_index: self
                    .windows
                    .iter()
                    .find(|w| {
                        k.mid_ms >= w.started_unix_ms as f64 && k.mid_ms < w.ended_unix_ms as f64
                    })
                    .map(|w| w.step as u32),
                unix_ms: k.end_ms,
                sample: k.sample.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbdyno_monitor::CpuRates;
    use dbdyno_ssh::ClockSync;
    use std::time::Duration;

    fn os_sample(server_end_ms: i64, local_ms: i64, util: f64) -> ServerSample {
        ServerSample {
            server_unix_ms: server_end_ms,
            local_unix_ms: local_ms,
            interval_s: 1.0,
            cpu: Some(CpuRates {
                util,
                idle: 100.0 - util,
                ..Default::default()
            }),
            disks: Vec::new(),
            mem: None,
            swap: None,
            net: Vec::new(),
            load: None,
            sampler: None,
        }
    }

    fn ssh_fold() -> Fold {
        let mut f = Fold::new(
            "ssh root@db1:22".into(),
            false,
            Timeline::new(Duration::from_secs(1)),
        );
        f.os(SamplerEvent::Connected {
            addr: "db1:22".into(),
            host_key_fingerprint: None,
            clock: Some(ClockSync {
                offset_ms: 2_000.0,
                rtt_ms: 1.0,
                server_resolution_ms: 0.001,
                rounds: 5,
            }),
            reconnect: false,
        });
        f
    }

    #[test]
    fn os_samples_are_put_on_this_machines_clock_for_charts_and_the_history() {
        let mut f = ssh_fold();
        // The server's clock runs 2 s ahead; the sample arrived 300 ms after it ended.
        let up = f.os(SamplerEvent::Sample(os_sample(12_000, 10_300, 40.0)));
        assert!(
            matches!(
                &up[..],
                [Update::Os {
                    end_unix_ms: 10_000,
                    ..
                }]
            ),
            "{up:?}"
        );
        f.windows.push(StepWindow {
            step: 0,
            label: "s".into(),
            started_unix_ms: 9_000,
            ended_unix_ms: 11_000,
        });
        let (rows, _) = f.take_rows(None);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].unix_ms, 10_000);
        assert_eq!(rows[0].step_index, Some(0), "middle 9.5 s lies in the step");
        assert!(f.take_rows(None).0.is_empty(), "a row is handed out once");
    }

    #[test]
    fn rows_are_handed_out_once_and_only_up_to_the_finished_steps() {
        let mut f = ssh_fold();
        for server_end in [11_000, 12_000, 13_000, 14_000] {
            f.os(SamplerEvent::Sample(os_sample(
                server_end,
                server_end - 1_700,
                40.0,
            )));
        }
        // On this machine's clock the samples end at 9, 10, 11 and 12 s.
        let (first, _) = f.take_rows(Some(10_000.0));
        assert_eq!(
            first.iter().map(|r| r.unix_ms).collect::<Vec<_>>(),
            [9_000, 10_000]
        );
        let (second, _) = f.take_rows(Some(11_000.0));
        assert_eq!(
            second.iter().map(|r| r.unix_ms).collect::<Vec<_>>(),
            [11_000]
        );
        let (rest, _) = f.take_rows(None);
        assert_eq!(rest.iter().map(|r| r.unix_ms).collect::<Vec<_>>(), [12_000]);
    }

    #[test]
    fn a_lost_connection_warns_and_its_gap_is_timed_and_reported() {
        let mut f = ssh_fold();
        let up = f.os(SamplerEvent::Disconnected {
            at_ms: 5_000,
            reason: "EOF".into(),
        });
        assert!(
            matches!(&up[..], [Update::Note { warning: true, text }] if text.contains("lost ssh root@db1:22: EOF")),
            "{up:?}"
        );
        assert_eq!(f.os_down(), Some((5_000, "EOF")));
        let up = f.os(SamplerEvent::Gap {
            from_ms: 4_000,
            to_ms: 9_500,
            reason: "EOF".into(),
        });
        assert!(matches!(&up[0], Update::Gap(g) if g.source == Source::Os && g.seconds() == 5.5));
        assert!(
            matches!(&up[1], Update::Note { text, .. } if text == "server monitor: 5.5 s without samples (EOF)")
        );
        assert_eq!(f.timeline.gaps().len(), 1);
    }
}
