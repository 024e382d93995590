//! A stored run's per-second server and MySQL samples as the Run screen's series, read
//! back for the History screen's charts: on the run's clock, the data disk as the run
//! sampled it, and a stored gap as an empty point in its middle (the line breaks there).

use dbdyno_history::StoredRun;
use dbdyno_monitor::timeline::{SampleGap, Source};

use super::{data_disk_util, MysqlPoint, ServerPoint};

/// The server's and MySQL's per-second samples of a monitored run, on the run's clock,
/// for the History screen's charts (the Run screen's series, read back).
pub fn stored_series(run: &StoredRun) -> (Vec<ServerPoint>, Vec<MysqlPoint>) {
    let t_of = |unix_ms: i64| (unix_ms - run.started_at_ms) as f64 / 1000.0;
    // The data disk as the run sampled it (empty: every device, as on the Run screen).
    let (devices, gaps): (&[String], &[SampleGap]) = match &run.monitoring {
        Some(m) => (&m.devices, &m.gaps),
        None => (&[], &[]),
    };
    // A stored gap becomes an empty point in its middle, as on the Run screen: the line
    // breaks there instead of bridging the time without samples.
    let gap_times = |source: Source| -> Vec<(i64, f64)> {
        gaps.iter()
            .filter(|g| g.source == source)
            .map(|g| {
                let mid = (g.from_ms + g.to_ms) / 2;
                (mid, t_of(mid))
            })
            .collect()
    };
    let mut server: Vec<(i64, ServerPoint)> = run
        .server_samples
        .iter()
        .map(|x| {
            let point = ServerPoint {
                t_s: t_of(x.unix_ms),
                cpu_pct: x.sample.cpu.as_ref().map(|c| c.util),
                disk_util_pct: data_disk_util(&x.sample, devices),
            };
            (x.unix_ms, point)
        })
        .collect();
    server.extend(gap_times(Source::Os).into_iter().map(|(at, t_s)| {
        let point = ServerPoint {
            t_s,
            cpu_pct: None,
            disk_util_pct: None,
        };
        (at, point)
    }));
    let mut mysql: Vec<(i64, MysqlPoint)> = run
        .mysql_samples
        .iter()
        .map(|x| {
            let point = MysqlPoint {
                t_s: t_of(x.unix_ms),
                qps: Some(x.sample.questions_per_s),
                tps: Some(x.sample.transactions_per_s),
            };
            (x.unix_ms, point)
        })
        .collect();
    mysql.extend(gap_times(Source::Mysql).into_iter().map(|(at, t_s)| {
        let point = MysqlPoint {
            t_s,
            qps: None,
            tps: None,
        };
        (at, point)
    }));
    server.sort_by_key(|(at, _)| *at);
    mysql.sort_by_key(|(at, _)| *at);
    (
        server.into_iter().map(|(_, p)| p).collect(),
        mysql.into_iter().map(|(_, p)| p).collect(),
    )
}
