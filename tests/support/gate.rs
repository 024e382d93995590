//! Which integration tests run at the same time.
//!
//! Most tests wait far more than they compute (timed steps, a server's answer, an SSH
//! login), so the test binary runs many at once. They share the sandbox server and the
//! machine's cores. A few must run alone: those that restart the server or set its
//! globals, read its global counters, or measure timings, rates or CPU (a test beside
//! them would be part of what they measure). Every test takes one of the two guards,
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
    alone: bool,
}

/// The gate: shared tests up to a limit, or one test alone.
pub struct Gate {
    state: Mutex<State>,
    changed: Condvar,
}

/// Held for the whole test: dropping it (the test ended, passed or not) lets others in.
#[must_use = "the guard admits the test only while it is held"]
pub struct ServerGuard {
    gate: &'static Gate,
    alone: bool,
}

impl Gate {
    pub const fn new() -> Gate {
        Gate {
            state: Mutex::new(State {
                sharing: 0,
                waiting_to_share: 0,
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

    /// Waits for a place beside the other shared tests.
    pub fn share(&'static self, limit: usize) -> ServerGuard {
        let mut s = self.lock();
        s.waiting_to_share += 1;
        while s.alone || s.sharing >= limit {
            s = self.wait(s);
        }
        s.waiting_to_share -= 1;
        s.sharing += 1;
        ServerGuard {
            gate: self,
            alone: false,
        }
    }

    /// Waits until no other test runs or waits to share, then runs alone.
    pub fn alone(&'static self) -> ServerGuard {
        let mut s = self.lock();
        while s.alone || s.sharing > 0 || s.waiting_to_share > 0 {
            s = self.wait(s);
        }
        s.alone = true;
        ServerGuard {
            gate: self,
            alone: true,
        }
    }
}

impl Default for Gate {
    fn default() -> Self {
        Gate::new()
    }
}

impl Drop for ServerGuard {
    fn drop(&mut self) {
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
