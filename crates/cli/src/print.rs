//! Turns engine events into sysbench-style text on stdout, and a progress bar on stderr
//! when stderr is a terminal. The printer is one consumer of the run's events.

use std::io::{IsTerminal, Write};

use dbdyno_engine::stats::LatencyHistogram;
use dbdyno_engine::wording::count;
use dbdyno_engine::{ladder_text, sla, ConnectionsOpening, EngineEvent, SlaTarget, StepResult};
use dbdyno_sysbench_text as sysbench_text;
use indicatif::{ProgressBar, ProgressStyle};

/// What kind of output the command wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// One sysbench command: its exact layout.
    Sysbench { histogram: bool },
    /// A ladder: a heading per step, interval lines, a one-line result, a table at the end.
    Ladder,
}

pub struct Printer {
    style: Style,
    print_intervals: bool,
    bar: Option<ProgressBar>,
    ladder_rows: Vec<StepResult>,
    /// The latency target each ladder step is marked against (`--sla`).
    sla: Option<SlaTarget>,
}

impl Printer {
    pub fn new(style: Style, print_intervals: bool) -> Self {
        Printer {
            style,
            print_intervals,
            bar: None,
            ladder_rows: Vec::new(),
            sla: None,
        }
    }

    /// Marks each ladder step within or beyond `target`, and ends with the capacities.
    pub fn with_sla(mut self, target: Option<SlaTarget>) -> Self {
        self.sla = target;
        self
    }

    pub fn handle(&mut self, e: &EngineEvent) {
        let mut out = std::io::stdout().lock();
        match e {
            EngineEvent::PhaseStarted { index, of, label } => {
                if self.style == Style::Ladder {
                    let _ = writeln!(out, "\n=== [{}/{}] {label} ===", index + 1, of);
                }
            }
            EngineEvent::Message { text } => {
                let _ = writeln!(out, "{text}");
            }
            EngineEvent::Warning { text } => {
                eprintln!("WARNING: {text}");
            }
            EngineEvent::PrepareProgress {
                rows_done,
                rows_total,
            } => self.progress(*rows_done, *rows_total),
            EngineEvent::PrepareFinished(r) => {
                if let Some(bar) = self.bar.take() {
                    bar.finish_and_clear();
                }
                // A reused dataset was said by prepare's own line ("Reusing sbtest1..4: ...").
                if r.reused.is_none() {
                    let _ = writeln!(
                        out,
                        "Prepared {}, {} in {:.1}s ({:.0} rows/s; load {:.1}s, indexes {:.1}s, {})",
                        count(r.tables, "table"),
                        count(r.rows as f64, "row"),
                        r.seconds,
                        r.rows_per_sec,
                        r.load_seconds,
                        r.index_seconds,
                        count(r.threads, "thread")
                    );
                }
            }
            EngineEvent::Connecting(c) => self.connecting(c),
            EngineEvent::PrewarmFinished(r) => {
                let _ = writeln!(
                    out,
                    "Prewarmed {} in {:.1}s",
                    count(r.tables, "table"),
                    r.seconds
                );
            }
            EngineEvent::StepStarted {
                threads, warmup_s, ..
            } => {
                if let Style::Sysbench { .. } = self.style {
                    let _ = writeln!(out, "Initializing worker threads...\n");
                    let _ = writeln!(out, "Threads started!\n");
                } else if *warmup_s > 0 {
                    let _ = writeln!(
                        out,
                        "(warmup {warmup_s}s done, measuring {})",
                        count(*threads, "thread")
                    );
                }
            }
            EngineEvent::Interval { record, .. } => {
                if self.print_intervals {
                    let _ = writeln!(out, "{}", sysbench_text::format_interval(record));
                    // Under a rate, sysbench's second line: the queue and the concurrency.
                    if let Some(queue) = sysbench_text::format_interval_queue(record) {
                        let _ = writeln!(out, "{queue}");
                    }
                }
            }
            EngineEvent::StepFinished { result, .. } => self.step_finished(result),
            EngineEvent::Cooldown { seconds } => {
                let _ = writeln!(out, "cool-down {seconds}s...");
            }
            // Its warning was printed just before, and the closing line lists it again.
            EngineEvent::StepFailed { .. } => {}
            // Its start is said here, between the 0 tps lines; its end and a stall
            // timeout come as warnings (the history keeps those).
            EngineEvent::ServerSilent(s) => {
                if s.state == dbdyno_engine::SilenceState::Silent {
                    eprintln!("WARNING: {}", s.describe());
                }
            }
        }
    }

    /// A step's result: sysbench's summary, or the ladder's one-line result (kept for
    /// the closing table).
    fn step_finished(&mut self, result: &StepResult) {
        let mut out = std::io::stdout().lock();
        match self.style {
            Style::Sysbench { histogram } => {
                let hist = if histogram {
                    LatencyHistogram::from_base64(&result.histogram).ok()
                } else {
                    None
                };
                // The summary ends with sysbench's own trailing blank line.
                let _ = write!(
                    out,
                    "{}",
                    sysbench_text::format_summary(result, hist.as_ref())
                );
                // TPC-C's own figures come after everything sysbench prints.
                if let Some(tpcc) = &result.tpcc {
                    let _ = writeln!(out, "{}", tpcc.text());
                }
            }
            Style::Ladder => {
                let _ = writeln!(out, "{}", ladder_text::step_line(result));
                if let Some(open_loop) = &result.open_loop {
                    let _ = writeln!(out, "{}", open_loop.line());
                }
                if let Some(tpcc) = &result.tpcc {
                    let _ = writeln!(out, "  tpmC {:.0}, NOPM {:.0}", tpcc.tpmc, tpcc.nopm);
                }
                if let Some(target) = &self.sla {
                    let _ = writeln!(out, "{}", sla::text::step_mark(result, target));
                }
                for line in ladder_text::confidence_lines(result) {
                    let _ = writeln!(out, "{line}");
                }
                self.ladder_rows.push(result.clone());
            }
        }
    }

    /// A step's connections opening: a bar on a terminal while it lasts, and in a
    /// ladder one line when it took long enough to notice (sysbench prints nothing here,
    /// so its layout stays as it is).
    fn connecting(&mut self, c: &ConnectionsOpening) {
        if c.done {
            if let Some(bar) = self.bar.take() {
                bar.finish_and_clear();
            }
            if let (Style::Ladder, Some(line)) = (self.style, c.notable_summary()) {
                println!("({line})");
            }
            return;
        }
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new(u64::from(c.threads));
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} opening connections [{bar:40}] {pos}/{len} {elapsed} {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b
        });
        bar.set_position(u64::from(c.opened));
        if c.retries > 0 {
            bar.set_message(format!("{} retried", c.retries));
        }
    }

    fn progress(&mut self, done: u64, total: u64) {
        if !std::io::stderr().is_terminal() || total == 0 {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new(total);
            b.set_style(
                ProgressStyle::with_template(
                    "{spinner} loading [{bar:40}] {pos}/{len} rows {per_sec} eta {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b
        });
        bar.set_position(done);
    }

    /// The ladder's closing table: one line per step, the seed report's matrix.
    pub fn finish(&self) {
        if self.style != Style::Ladder || self.ladder_rows.is_empty() {
            return;
        }
        println!();
        for line in ladder_text::table(&self.ladder_rows) {
            println!("{line}");
        }
        if let Some(target) = &self.sla {
            println!();
            for line in sla::text::capacity_lines(&self.ladder_rows, target) {
                println!("{line}");
            }
        }
    }
}
