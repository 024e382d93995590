//! `async-probe THREADS CONNS_PER_THREAD SECONDS`: oltp_point_select (4 tables of
//! 100,000 rows, uniform ids) from CONNS_PER_THREAD connections multiplexed on each of
//! THREADS current-thread tokio runtimes. Prints "queries: N (Q per sec.)" like sysbench
//! so bench scripts read it the same way. Connects over TCP to $PROBE_URL (default: the
//! sandbox), never through the socket.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_async::prelude::*;

const DEFAULT_URL: &str = "mysql://sbtest:sbtest@127.0.0.1:33306/sbtest?prefer_socket=false";

fn arg(i: usize, name: &str) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            eprintln!("usage: async-probe THREADS CONNS_PER_THREAD SECONDS ({name} missing)");
            std::process::exit(2)
        })
}

async fn connection(url: String, seed: u64, stop: Arc<AtomicBool>) -> u64 {
    let opts = mysql_async::Opts::from_url(&url).expect("PROBE_URL");
    let mut conn = mysql_async::Conn::new(opts).await.expect("connect");
    let mut stmts = Vec::new();
    for t in 1..=4 {
        stmts.push(
            conn.prep(format!("SELECT c FROM sbtest{t} WHERE id=?"))
                .await
                .expect("prepare"),
        );
    }
    let (mut x, mut n) = (0x9E37_79B9_7F4A_7C15 ^ seed, 0);
    while !stop.load(Ordering::Relaxed) {
        // xorshift64: cheap ids, so the probe measures the driver and not the generator
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let id = (x % 100_000) as i64 + 1;
        conn.exec_drop(&stmts[((x >> 32) % 4) as usize], (id,))
            .await
            .expect("query");
        n += 1;
    }
    n
}

fn main() {
    let (threads, per_thread, seconds) = (
        arg(1, "THREADS"),
        arg(2, "CONNS_PER_THREAD"),
        arg(3, "SECONDS"),
    );
    let url = std::env::var("PROBE_URL").unwrap_or_else(|_| DEFAULT_URL.to_string());
    let stop = Arc::new(AtomicBool::new(false));
    let total = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..threads)
        .map(|t| {
            let (url, stop, total) = (url.clone(), stop.clone(), total.clone());
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    let tasks: Vec<_> = (0..per_thread)
                        .map(|c| {
                            tokio::spawn(connection(url.clone(), t * 1000 + c + 1, stop.clone()))
                        })
                        .collect();
                    for task in tasks {
                        total.fetch_add(task.await.unwrap(), Ordering::Relaxed);
                    }
                });
            })
        })
        .collect();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_secs(seconds));
    stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    let n = total.load(Ordering::Relaxed);
    println!(
        "queries: {n} ({:.2} per sec.)",
        n as f64 / t0.elapsed().as_secs_f64()
    );
}
