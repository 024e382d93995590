//! Which integration tests run at the same time.
//!
//! Most tests wait far more than they compute (timed steps, a server's answer, an SSH
//! login), so the test binary runs many at once. They share the sandbox server and the
//! machine's cores. A few must run alone: those that measure timings, rates or CPU (a
//! test beside them would be part of what they measure). Tests that restart a server,
//! set its globals or read its global counters do it on a server of their own (a
//! `PrivateSandbox`) and share the machine. Every test takes one of the two guards,
//! and takes it last, after any other lock (the SSH sandbox's, a module's own, a fixture
//! shared through a `LazyLock`): a test without one would run beside a test that must be
//! alone, and a test that held the gate while it waited for another lock could wait for
//! a test that waits for the gate (and would keep a place from tests that could run).
//! A test alone takes no other lock at all: it would hold it while it waits for its turn.
//! `every_test_takes_a_gate_guard_last` (it/gate_lint.rs) reads the test sources for both.
//!
//! At most [`shared_limit`] shared tests run at once: past that, the two cores are the
//! bottleneck and more would only stretch the timed steps' latencies. A test that must
//! be alone waits until no shared test runs *or waits*, so the tests alone run one after
//! another once the shared ones are through, instead of each one draining the machine in
//! the middle of the run (every other thread would idle until the longest shared test
//! in flight finished). The test binary's thread count must then exceed the limit by
//! the number of tests alone (scripts/test.sh gives it enough): a thread holds its test
//! while it waits.
//!
//! Other processes can share the machine too: `scripts/test.sh` runs the crates' own
//! tests and the GUI suite beside this binary, against sandboxes of their own, holding
//! a shared `flock` on the file `DBDYNO_MACHINE_LOCK` names. A test alone also takes
//! that lock exclusively, so it waits until they are through (see [`machine_lock`]).

use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

/// Shared tests at once when `DBDYNO_TEST_SHARED_LIMIT` does not say otherwise.
const DEFAULT_SHARED_LIMIT: usize = 6;

/// How many shared tests may run at once: `DBDYNO_TEST_SHARED_LIMIT`, else 6.
pub fn shared_limit() -> usize {
    static LIMIT: OnceLock<usize> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("DBDYNO_TEST_SHARED_LIMIT")
            .ok()
            .map(|v| {
                v.parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .unwrap_or_else(|| panic!("DBDYNO_TEST_SHARED_LIMIT={v}: not a count"))
            })
            .unwrap_or(DEFAULT_SHARED_LIMIT)
    })
}

#[derive(Debug, Default)]
struct State {
    sharing: usize,
    waiting_to_share: usize,
    /// Of `waiting_to_share`, the long tests, which get the next free place first.
    long_waiting: usize,
    /// Shared tests that wait for another lock before the gate (a module's own mutex):
    /// the gate does not see them waiting, so they say so ([`Gate::announce_shared`]).
    announced: usize,
    alone: bool,
}

/// The gate: shared tests up to a limit, or one test alone.
pub struct Gate {
    state: Mutex<State>,
    changed: Condvar,
    /// Which machine lock a test alone also takes ([`machine_lock`]).
    machine_lock: MachineLock,
}

/// The file whose `flock` says that processes beside the test binary run.
#[derive(Debug, Clone)]
pub enum MachineLock {
    /// None: the gate tests' own gates (they would wait for the suites beside).
    None,
    /// The file `DBDYNO_MACHINE_LOCK` names, if set: the test binary's gate.
    FromEnv,
    /// That file (the gate's own test of the lock).
    At(std::path::PathBuf),
}

/// Held for the whole test: dropping it (the test ended, passed or not) lets others in.
#[must_use = "the guard admits the test only while it is held"]
pub struct ServerGuard {
    gate: &'static Gate,
    alone: bool,
    admitted: std::time::Instant,
    /// A test alone: the machine lock, held exclusively until the guard drops.
    _machine: Option<std::fs::File>,
}

impl Gate {
    /// A gate for this process alone.
    pub const fn new() -> Gate {
        Gate::with_machine_lock(MachineLock::None)
    }

    /// A gate whose tests alone also take `machine_lock` ([`machine_lock`]).
    pub const fn with_machine_lock(machine_lock: MachineLock) -> Gate {
        Gate {
            machine_lock,
            state: Mutex::new(State {
                sharing: 0,
                waiting_to_share: 0,
                long_waiting: 0,
                announced: 0,
                alone: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test never holds this mutex (only the guard), but stay usable anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(state).unwrap_or_else(|e| e.into_inner())
    }

    /// How many tests wait for a place beside the shared ones (for the gate's own tests).
    pub fn waiting_to_share(&self) -> usize {
        self.lock().waiting_to_share
    }

    /// Waits for a place beside the other shared tests. A `long` test (one of the few
    /// that take a minute) gets the next free place before the others waiting: started
    /// last, it would run on alone at the end of the shared tests and hold back the
    /// tests that must run alone.
    pub fn share(&'static self, limit: usize, long: bool) -> ServerGuard {
        let mut s = self.lock();
        s.waiting_to_share += 1;
        s.long_waiting += usize::from(long);
        while s.alone || s.sharing >= limit || (!long && s.long_waiting > 0) {
            s = self.wait(s);
        }
        s.waiting_to_share -= 1;
        s.long_waiting -= usize::from(long);
        s.sharing += 1;
        ServerGuard {
            gate: self,
            alone: false,
            admitted: admitted_now(),
            _machine: None,
        }
    }

    /// For a shared test that first waits for another lock (tests that run one at a
    /// time among themselves): held from before that lock to the test's end, it keeps
    /// the tests alone from slipping in between such tests, so that they run at the
    /// end, after every shared test, as the gate means them to. Never blocks.
    pub fn announce_shared(&'static self) -> Announced {
        self.lock().announced += 1;
        Announced { gate: self }
    }

    /// Waits until no other test runs, waits to share or has announced it will, then
    /// runs alone.
    pub fn alone(&'static self) -> ServerGuard {
        let mut s = self.lock();
        while s.alone || s.sharing > 0 || s.waiting_to_share > 0 || s.announced > 0 {
            s = self.wait(s);
        }
        s.alone = true;
        drop(s);
        // Once alone in this binary: no test here waits on the processes beside it.
        let machine = machine_lock(&self.machine_lock);
        ServerGuard {
            gate: self,
            alone: true,
            admitted: admitted_now(),
            _machine: machine,
        }
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new()
    }
}

/// Waits for an exclusive `flock` on the machine lock's file and returns the file
/// (closing it releases the lock): the suites `scripts/test.sh` runs beside this binary
/// hold it shared while they run, and a test that measures must not run beside them.
/// Without `DBDYNO_MACHINE_LOCK` (a developer's `cargo test`), nothing to wait for.
fn machine_lock(which: &MachineLock) -> Option<std::fs::File> {
    let path = match which {
        MachineLock::None => return None,
        MachineLock::FromEnv => std::path::PathBuf::from(std::env::var_os("DBDYNO_MACHINE_LOCK")?),
        MachineLock::At(path) => path.clone(),
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("machine lock {}: {e}", path.to_string_lossy()));
    let waited = std::time::Instant::now();
    file.lock()
        .unwrap_or_else(|e| panic!("flock {}: {e}", path.to_string_lossy()));
    let secs = waited.elapsed().as_secs_f64();
    if secs >= 1.0 {
        eprintln!("gate: waited {secs:.0} s for the suites beside the integration tests");
    }
    Some(file)
}

/// When the binary's first test got its place (for `DBDYNO_TEST_TIMES`).
static FIRST_ADMITTED: OnceLock<std::time::Instant> = OnceLock::new();

fn admitted_now() -> std::time::Instant {
    let now = std::time::Instant::now();
    FIRST_ADMITTED.get_or_init(|| now);
    now
}

/// The machine's busy and total CPU time so far (the first line of /proc/stat).
fn cpu_times() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    let total: u64 = fields.iter().take(8).sum();
    let idle = fields.get(3)? + fields.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// A test that measures waits, up to 20 s, until the machine has been quiet for two
/// half-seconds in a row (under a fifth of its CPUs busy): what the tests before it
/// left running goes on for a while (a restarted server loading its buffer pool,
/// InnoDB purging a big load's undo), and an A/A comparison that caught it in one of
/// its runs and not the other called a difference of a third (seen in CI).
pub fn wait_for_a_quiet_machine() {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut quiet_in_a_row = 0;
    let Some(mut last) = cpu_times() else {
        return; // no /proc/stat: nothing to wait on
    };
    while quiet_in_a_row < 2 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(500));
        let Some(now) = cpu_times() else { return };
        let (busy, total) = (now.0 - last.0, now.1 - last.1);
        last = now;
        quiet_in_a_row = if total > 0 && busy * 5 < total {
            quiet_in_a_row + 1
        } else {
            0
        };
    }
    if quiet_in_a_row < 2 {
        eprintln!("gate: the machine stayed busy for 20 s before a test that runs alone; running it anyway");
    }
}

/// With `DBDYNO_TEST_TIMES=<file>`, each test appends how long it held its place and
/// when it got it (seconds since the binary's first test did):
/// `alone|shared <seconds> <test name> <admitted at>`, what the suite's time is made of
/// (`sort -k2 -n -r <file> | head` names the tests worth shortening).
fn record_time(guard: &ServerGuard) {
    let Some(path) = std::env::var_os("DBDYNO_TEST_TIMES") else {
        return;
    };
    let kind = if guard.alone { "alone" } else { "shared" };
    let secs = guard.admitted.elapsed().as_secs_f64();
    // Threads without a name are the gate tests' own helpers, not tests.
    let Some(name) = std::thread::current().name().map(str::to_string) else {
        return;
    };
    let first = *FIRST_ADMITTED.get().unwrap_or(&guard.admitted);
    let at = guard
        .admitted
        .saturating_duration_since(first)
        .as_secs_f64();
    let line = format!("{kind} {secs:.1} {name} {at:.1}\n");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    // A timing that cannot be written is not a test failure.
    if let Ok(mut f) = file {
        let _ = std::io::Write::write_all(&mut f, line.as_bytes());
    }
}

/// A shared test's word that it will pass the gate ([`Gate::announce_shared`]).
#[must_use = "the announcement holds only while it is held"]
pub struct Announced {
    gate: &'static Gate,
}

impl Drop for Announced {
    fn drop(&mut self) {
        self.gate.lock().announced -= 1;
        self.gate.changed.notify_all();
    }
}

impl Drop for ServerGuard {
    fn drop(&mut self) {
        record_time(self);
        let mut s = self.gate.lock();
        if self.alone {
            s.alone = false;
        } else {
            s.sharing -= 1;
        }
        drop(s);
        self.gate.changed.notify_all();
    }
}
