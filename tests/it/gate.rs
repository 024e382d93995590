//! The gate of `tests/support/gate.rs` on gates of the tests' own: shared tests up to the
//! limit, a test alone beside none, tests waiting to share before a test alone, and
//! long tests before short ones, announced tests before a test alone, a test alone
//! after the processes beside that hold the machine lock.
//! (Each test also passes the binary's own gate, as every test here does.)

use std::sync::mpsc;
use std::time::Duration;

use dbdyno_tests::{shared_server, Gate, MachineLock, ServerGuard};

/// A gate of the test's own (the guards borrow it for 'static).
fn gate() -> &'static Gate {
    Box::leak(Box::new(Gate::new()))
}

/// Takes a guard on another thread; the receiver hears when it got in, and the
/// sender lets it go.
fn take_elsewhere(
    take: impl FnOnce() -> ServerGuard + Send + 'static,
) -> (mpsc::Receiver<()>, mpsc::Sender<()>) {
    let (entered_tx, entered) = mpsc::channel();
    let (release, release_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        let _guard = take();
        entered_tx.send(()).unwrap();
        let _ = release_rx.recv();
    });
    (entered, release)
}

/// Waits until `n` tests wait for a place at `g`.
fn until_waiting(g: &Gate, n: usize) {
    while g.waiting_to_share() < n {
        std::thread::sleep(Duration::from_millis(10));
    }
}

// A thread that must not get in is given 200 ms to get in wrongly: a slow machine
// can only hide a broken gate that way, never fail a working one.
const GRACE: Duration = Duration::from_millis(200);

/// Fails with `wrongly` if the thread behind `entered` gets in within the grace time.
fn stays_out(entered: &mpsc::Receiver<()>, wrongly: &str) {
    assert!(entered.recv_timeout(GRACE).is_err(), "{wrongly}");
}

#[test]
fn a_test_alone_waits_for_the_shared_ones_and_they_wait_for_it() {
    let _server = shared_server();
    let g = gate();
    let shared = g.share(4, false);
    let (alone_in, alone_out) = take_elsewhere(move || g.alone());
    stays_out(&alone_in, "alone beside a shared test");
    drop(shared);
    alone_in.recv().unwrap();
    let (shared_in, _shared_out) = take_elsewhere(move || g.share(4, false));
    stays_out(&shared_in, "shared beside a test alone");
    alone_out.send(()).unwrap();
    shared_in.recv().unwrap();
}

#[test]
fn shared_tests_run_together_up_to_the_limit() {
    let _server = shared_server();
    let g = gate();
    let (first_in, first_out) = take_elsewhere(move || g.share(2, false));
    let (second_in, _second_out) = take_elsewhere(move || g.share(2, false));
    first_in.recv().unwrap();
    second_in.recv().unwrap();
    let (third_in, _third_out) = take_elsewhere(move || g.share(2, false));
    stays_out(&third_in, "a third past a limit of 2");
    first_out.send(()).unwrap();
    third_in.recv().unwrap();
}

#[test]
fn a_test_alone_lets_the_waiting_shared_tests_go_first() {
    let _server = shared_server();
    let g = gate();
    let (first_in, first_out) = take_elsewhere(move || g.share(1, false));
    first_in.recv().unwrap();
    // The second shared test waits for the limit; the test alone waits for both.
    let (second_in, second_out) = take_elsewhere(move || g.share(1, false));
    until_waiting(g, 1);
    let (alone_in, _alone_out) = take_elsewhere(move || g.alone());
    std::thread::sleep(GRACE);
    first_out.send(()).unwrap();
    second_in.recv().unwrap();
    stays_out(&alone_in, "alone beside a shared test");
    second_out.send(()).unwrap();
    alone_in.recv().unwrap();
}

#[test]
fn a_long_test_gets_the_next_place_before_the_others_waiting() {
    let _server = shared_server();
    let g = gate();
    let (first_in, first_out) = take_elsewhere(move || g.share(1, false));
    first_in.recv().unwrap();
    // A short test waits first, a long one after it: the long one gets in first.
    let (short_in, _short_out) = take_elsewhere(move || g.share(1, false));
    until_waiting(g, 1);
    let (long_in, long_out) = take_elsewhere(move || g.share(1, true));
    until_waiting(g, 2);
    first_out.send(()).unwrap();
    long_in.recv().unwrap();
    stays_out(
        &short_in,
        "the short test got in beside the long one past a limit of 1",
    );
    long_out.send(()).unwrap();
    short_in.recv().unwrap();
}

#[test]
fn a_test_alone_waits_for_a_shared_test_that_announced_itself() {
    let _server = shared_server();
    let g = gate();
    // Announced, and still waiting for its own lock: not at the gate yet.
    let announced = g.announce_shared();
    let (alone_in, _alone_out) = take_elsewhere(move || g.alone());
    stays_out(&alone_in, "alone while an announced test has not run");
    // It gets its place, runs and ends: then the test alone goes in.
    drop(g.share(4, false));
    stays_out(&alone_in, "alone before the announced test ended");
    drop(announced);
    alone_in.recv().unwrap();
}

#[test]
fn a_test_alone_waits_for_the_processes_beside_that_hold_the_machine_lock() {
    let _server = shared_server();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("machine.lock");
    // What scripts/test.sh's suites beside the binary hold while they run (`flock -s`):
    // a shared lock on the file, here from a file of this test's own.
    let beside = std::fs::File::create(&path).unwrap();
    beside.lock_shared().unwrap();
    let g: &'static Gate = Box::leak(Box::new(Gate::with_machine_lock(MachineLock::At(path))));
    let (alone_in, alone_out) = take_elsewhere(move || g.alone());
    stays_out(
        &alone_in,
        "alone while a process beside holds the machine lock",
    );
    drop(beside);
    alone_in.recv().unwrap();
    // And while the test alone runs, a suite beside cannot start.
    let late = std::fs::File::open(dir.path().join("machine.lock")).unwrap();
    assert!(
        matches!(
            late.try_lock_shared(),
            Err(std::fs::TryLockError::WouldBlock)
        ),
        "a suite beside started during a test alone"
    );
    alone_out.send(()).unwrap();
}
