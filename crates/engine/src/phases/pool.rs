//! The thread pools every prepare shares (the OLTP tables and TPC-C's): work items in
//! a shared queue, taken by a fixed number of connections, the first error returned.
//! One mechanism, so both loads stop, report progress and fall back alike.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::ScopedJoinHandle;
use std::time::Duration;

use crossbeam_channel::Receiver;
use mysql::Conn;

use crate::cancel::CancelToken;
use crate::driver;
use crate::error::EngineError;
use crate::events::{EngineEvent, EventSink};
use crate::plan::ConnectOptions;

/// What the loader threads tell each other and the progress reporter.
#[derive(Default)]
pub(crate) struct LoadFlags {
    pub(crate) rows_done: AtomicU64,
    /// A loader failed: the others stop at their next work item.
    pub(crate) failed: AtomicBool,
    /// The server refused LOAD DATA LOCAL INFILE: rows went in as INSERTs.
    pub(crate) inserts_instead: AtomicBool,
}

/// A queue already holding `items`, closed: receivers end when it is empty.
fn queue_of<T>(items: impl IntoIterator<Item = T>) -> Receiver<T> {
    let (tx, rx) = crossbeam_channel::unbounded();
    for item in items {
        let _ = tx.send(item);
    }
    rx
}

/// Joins every thread and returns the first error; a panic counts as an error named
/// after `what` ("a loader thread panicked").
fn first_error(
    handles: Vec<ScopedJoinHandle<'_, Result<(), EngineError>>>,
    what: &str,
) -> Result<(), EngineError> {
    let mut first_err = None;
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert(EngineError::Internal(format!("{what} panicked")));
            }
        }
    }
    first_err.map_or(Ok(()), Err)
}

/// Runs `work` once for each item, on up to `threads` connections that take items from
/// a shared queue (prewarm and index builds). Stops taking items on cancel; returns the
/// first error.
pub(crate) fn for_each_queued<T, F>(
    connect: &ConnectOptions,
    items: Vec<T>,
    threads: u32,
    cancel: &CancelToken,
    work: F,
) -> Result<(), EngineError>
where
    T: Send,
    F: Fn(&mut Conn, T) -> Result<(), EngineError> + Sync,
{
    let count = u32::try_from(items.len()).unwrap_or(u32::MAX);
    let rx = queue_of(items);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1).min(count))
            .map(|_| {
                let (rx, work) = (rx.clone(), &work);
                scope.spawn(move || -> Result<(), EngineError> {
                    let mut conn = driver::connect(connect)?;
                    while let Ok(item) = rx.recv() {
                        if cancel.is_cancelled() {
                            break;
                        }
                        work(&mut conn, item)?;
                    }
                    Ok(())
                })
            })
            .collect();
        first_error(handles, "a worker thread")
    })
}

/// Loads `items` with `threads` loader threads, each running `load(worker, queue,
/// flags)` until the queue is empty; meanwhile the calling thread reports
/// `PrepareProgress` every 200 ms and says once when the server made the loaders fall
/// back to INSERTs. A loader's error sets `flags.failed` so the others stop early.
pub(crate) fn load_in_parallel<T, F>(
    items: impl IntoIterator<Item = T>,
    threads: u32,
    rows_total: u64,
    events: &EventSink,
    load: F,
) -> Result<(), EngineError>
where
    T: Send,
    F: Fn(u32, &Receiver<T>, &LoadFlags) -> Result<(), EngineError> + Sync,
{
    let rx = queue_of(items);
    let flags = LoadFlags::default();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|worker| {
                let (rx, flags, load) = (rx.clone(), &flags, &load);
                scope.spawn(move || -> Result<(), EngineError> {
                    let r = load(worker, &rx, flags);
                    if r.is_err() {
                        flags.failed.store(true, Ordering::SeqCst);
                    }
                    r
                })
            })
            .collect();
        let mut fallback_said = false;
        let mut report = || {
            if !fallback_said && flags.inserts_instead.load(Ordering::Relaxed) {
                fallback_said = true;
                events.message(
                    "The server does not allow LOAD DATA LOCAL INFILE (local_infile=OFF): loading with multi-row INSERTs, which is slower",
                );
            }
            events.send(EngineEvent::PrepareProgress {
                rows_done: flags.rows_done.load(Ordering::Relaxed),
                rows_total,
            });
        };
        while handles.iter().any(|h| !h.is_finished()) {
            report();
            std::thread::sleep(Duration::from_millis(200));
        }
        report();
        first_error(handles, "a loader thread")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_error_keeps_the_first_failure_and_names_a_panic() {
        let got = std::thread::scope(|scope| {
            let handles = vec![
                scope.spawn(|| Ok(())),
                scope.spawn(|| Err(EngineError::Refused("first".into()))),
            ];
            first_error(handles, "a loader thread")
        });
        assert!(matches!(got, Err(EngineError::Refused(m)) if m == "first"));
        let got = std::thread::scope(|scope| {
            let handles: Vec<ScopedJoinHandle<'_, Result<(), EngineError>>> =
                vec![scope.spawn(|| panic!("boom"))];
            first_error(handles, "a loader thread")
        });
        assert!(matches!(got, Err(EngineError::Internal(m)) if m == "a loader thread panicked"));
    }

    #[test]
    fn load_in_parallel_gives_every_item_to_exactly_one_loader() {
        let taken = AtomicU64::new(0);
        let sum = AtomicU64::new(0);
        load_in_parallel(1..=100u64, 4, 100, &EventSink::none(), |_, rx, flags| {
            while let Ok(i) = rx.recv() {
                taken.fetch_add(1, Ordering::Relaxed);
                sum.fetch_add(i, Ordering::Relaxed);
                flags.rows_done.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(taken.load(Ordering::Relaxed), 100);
        assert_eq!(sum.load(Ordering::Relaxed), 5050);
    }
}
