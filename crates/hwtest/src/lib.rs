//! Native hardware tests with sysbench 1.0.20's options, defaults and output:
//! `fileio` (prepare/run/cleanup), `cpu` and `memory`.
//!
//! A test takes its options ([`options`]), runs on worker threads timed like sysbench's
//! event loop ([`runner`]), and returns a [`HwTestResult`]; [`text`] prints it in
//! sysbench's layout and [`parse_sysbench_hwtest`] reads that layout back (also from
//! old sysbench logs).

pub mod cpu;
pub mod error;
pub mod fileio;
pub mod histogram;
pub mod memory;
pub mod options;
mod parse;
pub mod result;
pub mod runner;
pub mod size;
pub mod text;

pub use error::{HwTestError, OptionError};
pub use histogram::Histogram;
pub use options::{HwTestOptions, TestKind, TestOptions};
pub use parse::{parse_sysbench_hwtest, ParseError};
pub use result::*;

use std::sync::atomic::AtomicBool;

use runner::LoopFigures;

/// A finished run: its result and the latency histogram behind `--histogram`.
#[derive(Debug, Clone)]
pub struct RunOutput {
    pub result: HwTestResult,
    pub histogram: Histogram,
}

/// `prepare`, `run` or `cleanup`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Prepare,
    Run,
    Cleanup,
}

impl Command {
    pub fn from_name(name: &str) -> Option<Command> {
        match name {
            "prepare" => Some(Command::Prepare),
            "run" => Some(Command::Run),
            "cleanup" => Some(Command::Cleanup),
            _ => None,
        }
    }
}

/// What [`run`] would refuse before it starts, to ask before printing a header.
pub fn check_run(opts: &HwTestOptions) -> Result<(), HwTestError> {
    match &opts.test {
        TestOptions::FileIo(o) => fileio::check_run(o).map(|_| ()),
        TestOptions::Cpu(_) | TestOptions::Memory(_) => Ok(()),
    }
}

/// Runs the test, calling `on_interval` with each interval line's figures.
pub fn run(
    opts: &HwTestOptions,
    on_interval: &(dyn Fn(&IntervalFigures) + Sync),
) -> Result<RunOutput, HwTestError> {
    run_cancellable(opts, on_interval, &AtomicBool::new(false))
}

/// [`run`], ended early with [`HwTestError::Cancelled`] once `cancel` is set (from
/// another thread: a Ctrl-C handler, a lost connection). Files are left as they are:
/// `cleanup` removes them.
pub fn run_cancellable(
    opts: &HwTestOptions,
    on_interval: &(dyn Fn(&IntervalFigures) + Sync),
    cancel: &AtomicBool,
) -> Result<RunOutput, HwTestError> {
    let g = &opts.general;
    let (figures, test) = match &opts.test {
        TestOptions::FileIo(o) => {
            let (f, r) = fileio::run(g, o, on_interval, cancel)?;
            (f, TestFigures::FileIo(r))
        }
        TestOptions::Cpu(o) => {
            let (f, r) = cpu::run(g, o, on_interval, cancel)?;
            (f, TestFigures::Cpu(r))
        }
        TestOptions::Memory(o) => {
            let (f, r) = memory::run(g, o, on_interval, cancel)?;
            (f, TestFigures::Memory(r))
        }
    };
    let LoopFigures {
        total_time_s,
        total_events,
        latency,
        fairness,
        histogram,
        intervals,
    } = figures;
    Ok(RunOutput {
        result: HwTestResult {
            test,
            threads: g.threads,
            total_time_s,
            total_events,
            latency,
            fairness,
            intervals,
            options: opts.given.clone(),
        },
        histogram,
    })
}

/// `prepare`: creates fileio's file set (cpu and memory have no prepare, as in sysbench).
pub fn prepare(opts: &HwTestOptions, log: &mut dyn FnMut(String)) -> Result<(), HwTestError> {
    let o = fileio_only(opts, "prepare")?;
    fileio::check(o)?;
    fileio::prepare(o, log)
}

/// `cleanup`: removes fileio's file set.
pub fn cleanup(opts: &HwTestOptions, log: &mut dyn FnMut(String)) -> Result<(), HwTestError> {
    fileio::cleanup(fileio_only(opts, "cleanup")?, log)
}

fn fileio_only<'a>(
    opts: &'a HwTestOptions,
    command: &'static str,
) -> Result<&'a options::FileIoOptions, HwTestError> {
    match &opts.test {
        TestOptions::FileIo(o) => Ok(o),
        _ => Err(HwTestError::NoSuchCommand {
            test: opts.kind().name(),
            command,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    #[test]
    fn a_cancelled_run_ends_at_once() {
        let pairs = [("time".to_string(), "30".to_string())];
        let opts = HwTestOptions::from_pairs(TestKind::Cpu, &pairs).unwrap();
        let cancel = AtomicBool::new(false);
        let started = Instant::now();
        let outcome = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(200));
                cancel.store(true, Ordering::Relaxed);
            });
            run_cancellable(&opts, &|_| {}, &cancel)
        });
        assert!(
            matches!(outcome, Err(HwTestError::Cancelled)),
            "{outcome:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn cpu_and_memory_have_no_prepare_or_cleanup() {
        let opts = HwTestOptions::from_pairs(TestKind::Memory, &[]).unwrap();
        let err = prepare(&opts, &mut |_| {}).unwrap_err();
        assert_eq!(
            err.to_string(),
            "'memory' test does not implement the 'prepare' command"
        );
        assert!(cleanup(&opts, &mut |_| {}).is_err());
    }
}
