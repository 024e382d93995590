//! The agent: `dbdyno hwtest-agent`, started on the database host over SSH.
//!
//! It reads one [`Job`] line, creates the job's work directory, runs the tests there
//! and answers with [`Event`] lines. Whatever ends it, the work directory goes with it:
//! after the last test, after a failure, on a `cancel` line, on the end of its input
//! (the SSH connection dropped: sshd closes the pipes of a process without a PTY), and
//! on SIGTERM, SIGHUP or SIGINT. Only SIGKILL can leave files behind, which is why the
//! local side closes stdin and sends TERM before it ever sends KILL.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dbdyno_hwtest::{HwTestOptions, IntervalFigures, TestKind};

use crate::protocol::{Event, Job, Stage, TestJob, CANCEL_LINE};

/// The signal that arrived, 0 while none did.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    SIGNALLED.store(signal, Ordering::SeqCst);
}

/// Exit status after a cancel, as a shell reports an interrupted command.
const EXIT_CANCELLED: i32 = 130;

/// Runs the agent on this process's stdin and stdout; returns the exit status.
pub fn serve() -> i32 {
    catch_signals();
    let out = Arc::new(Output(Mutex::new(std::io::stdout())));
    let mut first = String::new();
    let job: Job = match std::io::stdin().lock().read_line(&mut first) {
        Ok(n) if n > 0 => match serde_json::from_str(first.trim()) {
            Ok(job) => job,
            Err(e) => return out.fail(format!("not a job: {e}")),
        },
        _ => return out.fail("no job on stdin".into()),
    };
    let work_dir = PathBuf::from(&job.work_dir);
    if !work_dir.is_absolute() {
        return out.fail(format!(
            "the work directory {} is not absolute",
            job.work_dir
        ));
    }
    // create_dir, not create_dir_all: an existing directory is never taken (and so
    // never removed), and a missing parent is an error rather than a new tree.
    if let Err(e) = std::fs::create_dir(&work_dir) {
        return out.fail(format!("creating {}: {e}", job.work_dir));
    }
    let cleanup = Arc::new(Cleanup {
        dir: work_dir.clone(),
        done: Mutex::new(false),
    });
    out.emit(&Event::Started {
        work_dir: job.work_dir.clone(),
    });
    watch_for_stop(out.clone(), cleanup.clone());
    let code = match run_tests(&job.tests, &work_dir, &out) {
        Ok(()) => {
            cleanup.remove();
            out.emit(&Event::Done);
            0
        }
        Err(message) => {
            cleanup.remove();
            out.emit(&Event::Failed { message });
            1
        }
    };
    // Held to the end, so a stop arriving now cannot print a second last word.
    let _finished = cleanup.done.lock();
    code
}

fn run_tests(tests: &[TestJob], work_dir: &Path, out: &Output) -> Result<(), String> {
    let file_dir = ("file-dir".to_string(), work_dir.display().to_string());
    let mut prepared: Option<HwTestOptions> = None;
    for job in tests {
        let kind = job
            .kind()
            .ok_or_else(|| format!("unknown test {:?}", job.test))?;
        let mut pairs = job.options.clone();
        if kind == TestKind::FileIo {
            pairs.push(file_dir.clone());
        }
        let opts = HwTestOptions::from_pairs(kind, &pairs).map_err(|e| e.to_string())?;
        if kind == TestKind::FileIo && prepared.is_none() {
            out.stage(kind, Stage::Prepare);
            dbdyno_hwtest::prepare(&opts, &mut |_| {}).map_err(|e| e.to_string())?;
            prepared = Some(opts.clone());
        }
        out.stage(kind, Stage::Run);
        let on_interval = |figures: &IntervalFigures| {
            out.emit(&Event::Interval {
                test: kind.name().to_string(),
                figures: figures.clone(),
            })
        };
        let mut output = dbdyno_hwtest::run(&opts, &on_interval).map_err(|e| e.to_string())?;
        // The work directory is temporary: the record keeps the options that matter.
        output.result.options.remove("file-dir");
        out.emit(&Event::Result {
            result: Box::new(output.result),
        });
    }
    if let Some(opts) = prepared {
        out.stage(TestKind::FileIo, Stage::Cleanup);
        dbdyno_hwtest::cleanup(&opts, &mut |_| {}).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The work directory, removed once by whichever path ends the agent first.
struct Cleanup {
    dir: PathBuf,
    done: Mutex<bool>,
}

impl Cleanup {
    fn remove(&self) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        if *done {
            return;
        }
        // A test thread may still create a file while the tree is being removed, which
        // makes one pass fail with "directory not empty": retry a few times.
        for _ in 0..20 {
            match std::fs::remove_dir_all(&self.dir) {
                Ok(()) => break,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        *done = true;
    }
}

fn catch_signals() {
    // A write to a dropped connection must fail, not end the process before cleanup
    // (the CLI restores SIGPIPE's default for `dbdyno check | head`).
    // SAFETY: setting a disposition, no handler code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        // SAFETY: the handler only stores into an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(signal, handler);
        }
    }
}

/// Two watchers: one reads stdin (a cancel line or its end), one acts on either that or
/// a signal: removes the work directory, says so, and ends the process.
fn watch_for_stop(out: Arc<Output>, cleanup: Arc<Cleanup>) {
    let stop: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let s = stop.clone();
    std::thread::spawn(move || {
        let why = read_until_stop();
        *s.lock().unwrap_or_else(|e| e.into_inner()) = Some(why);
    });
    std::thread::spawn(move || loop {
        let why = stop.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let why = why.or_else(|| match SIGNALLED.load(Ordering::SeqCst) {
            0 => None,
            n => Some(format!("signal {n}")),
        });
        if let Some(why) = why {
            cleanup.remove();
            out.emit(&Event::Cancelled { why });
            std::process::exit(EXIT_CANCELLED);
        }
        std::thread::sleep(Duration::from_millis(20));
    });
}

fn read_until_stop() -> String {
    let mut lines = std::io::stdin().lock().lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.trim() == CANCEL_LINE => return "cancelled".into(),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return format!("reading the input: {e}"),
            None => return "the input ended (connection lost)".into(),
        }
    }
}

/// stdout shared by the test threads; a write that fails (the connection is gone) is
/// dropped rather than a panic, so cleanup still runs.
struct Output(Mutex<std::io::Stdout>);

impl Output {
    fn emit(&self, event: &Event) {
        let line = serde_json::to_string(event).expect("events serialize");
        let out = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = out.lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    fn stage(&self, kind: TestKind, stage: Stage) {
        self.emit(&Event::Stage {
            test: kind.name().to_string(),
            stage,
        });
    }

    fn fail(&self, message: String) -> i32 {
        self.emit(&Event::Failed { message });
        2
    }
}
