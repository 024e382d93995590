#![cfg(feature = "buffer-pool")]

// DB DYNO PATCH (vendor/mysql/PATCH.md): the pool is one per thread instead of one
// global `ArrayQueue` behind an `Arc`. Upstream's take and give-back each cost two
// atomic read-modify-writes on cache lines every thread shares (the queue's head or
// tail and the `Arc`'s count); a statement takes three or four buffers, and with many
// connections on few cores those lines bounce between cores at every packet (measured:
// 0.35-0.45 us per point select on two cores, more than sysbench spends on its whole
// latency histogram). A connection is used by one thread at a time, so a
// thread's own free list serves it without any shared write. Same limits as upstream
// (`RUST_MYSQL_BUFFER_POOL_CAP` buffers kept, now per thread, each shrunk to
// `RUST_MYSQL_BUFFER_SIZE_CAP`); a thread's buffers are freed when it ends.

use std::{cell::RefCell, mem::take, ops::Deref, sync::OnceLock};

const DEFAULT_MYSQL_BUFFER_POOL_CAP: usize = 128;
const DEFAULT_MYSQL_BUFFER_SIZE_CAP: usize = 4 * 1024 * 1024;

/// The pool's limits, read from the environment once per process as upstream does.
struct Limits {
    pool_cap: usize,
    buffer_cap: usize,
}

fn limits() -> &'static Limits {
    static LIMITS: OnceLock<Limits> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let var = |name: &str, default: usize| {
            std::env::var(name)
                .ok()
                .and_then(|x| x.parse().ok())
                .unwrap_or(default)
        };
        Limits {
            pool_cap: var("RUST_MYSQL_BUFFER_POOL_CAP", DEFAULT_MYSQL_BUFFER_POOL_CAP),
            buffer_cap: var("RUST_MYSQL_BUFFER_SIZE_CAP", DEFAULT_MYSQL_BUFFER_SIZE_CAP),
        }
    })
}

thread_local! {
    /// This thread's free buffers, empty (length 0) with their capacity kept.
    static POOL: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

#[inline(always)]
pub fn get_buffer() -> Buffer {
    // `try_with`: a buffer asked for while the thread's locals are being destroyed is
    // simply a new one.
    let pooled = POOL
        .try_with(|pool| pool.try_borrow_mut().ok().and_then(|mut p| p.pop()))
        .ok()
        .flatten();
    Buffer(pooled.unwrap_or_default())
}

#[derive(Debug)]
pub struct Buffer(Vec<u8>);

impl AsMut<Vec<u8>> for Buffer {
    fn as_mut(&mut self) -> &mut Vec<u8> {
        &mut self.0
    }
}

impl Deref for Buffer {
    type Target = [u8];

    fn deref(&self) -> &Self::Target {
        self.0.deref()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let limits = limits();
        if limits.pool_cap == 0 {
            return;
        }
        let mut buf = take(&mut self.0);
        buf.clear();
        buf.shrink_to(limits.buffer_cap);
        let _ = POOL.try_with(|pool| {
            if let Ok(mut pool) = pool.try_borrow_mut() {
                if pool.len() < limits.pool_cap {
                    pool.push(buf);
                }
            }
        });
    }
}
