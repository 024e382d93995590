//! The knee of a thread ladder: the best thread count, where throughput stops rising
//! while latency climbs (seed 003: "当 TPS 不再随线程数增长、P95 开始显著上升时，上一个线程数
//! 即为最优并发点": when TPS no longer grows with threads and p95 starts to climb, the
//! previous thread count is the best one).
//!
//! Rule, checkable by eye on the matrix: walking up the ladder, the knee is the first
//! thread count `t` such that no higher thread count delivers at least
//! [`MIN_GAIN_PCT`] more TPS than `t` does. Looking at every higher step, not only the
//! next one, keeps a single noisy step from ending the walk early. In a closed-loop
//! benchmark a throughput plateau means latency grows with the thread count (Little's
//! law), so the evidence quotes both.
//!
//! When even the top of the ladder still gains, the knee was not reached: the best
//! measured thread count is the highest, and the report says the knee lies beyond it.

use serde::{Deserialize, Serialize};

use super::Cell;
use crate::format;

/// Throughput gain (percent) that a higher thread count must deliver to be worth it.
pub const MIN_GAIN_PCT: f64 = 10.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KneeKind {
    /// Throughput stopped rising within the ladder.
    Found,
    /// Throughput still rose at the top of the ladder.
    NotReached,
    /// Fewer than two thread counts: nothing to compare.
    TooFewSteps,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Knee {
    pub kind: KneeKind,
    /// The best measured thread count (the knee, or the top of the ladder when not reached).
    pub best_threads: Option<u32>,
    /// The sentence that justifies it, with the figures.
    pub evidence: String,
}

/// Finds the knee of one environment's ladder for one scenario (`cells` ascending by threads).
pub fn find_knee(cells: &[&Cell]) -> Knee {
    match cells {
        [] => Knee {
            kind: KneeKind::TooFewSteps,
            best_threads: None,
            evidence: "no step ran".into(),
        },
        [one] => Knee {
            kind: KneeKind::TooFewSteps,
            best_threads: Some(one.threads),
            evidence: format!(
                "only {} ran: a ladder of at least two thread counts is needed to find the knee",
                dbdyno_engine::wording::count(one.threads, "thread")
            ),
        },
        _ => {
            let factor = 1.0 + MIN_GAIN_PCT / 100.0;
            for (i, c) in cells.iter().enumerate().take(cells.len() - 1) {
                let rest = &cells[i + 1..];
                let best_after = rest.iter().map(|r| r.tps).fold(f64::MIN, f64::max);
                if best_after < c.tps * factor {
                    let top = cells[cells.len() - 1];
                    return Knee {
                        kind: KneeKind::Found,
                        best_threads: Some(c.threads),
                        evidence: found_evidence(c, top, best_after),
                    };
                }
            }
            let prev = cells[cells.len() - 2];
            let top = cells[cells.len() - 1];
            let gain = pct_change(prev.tps, top.tps);
            Knee {
                kind: KneeKind::NotReached,
                best_threads: Some(top.threads),
                evidence: format!(
                    "TPS still rose {} from {} to {} threads (p95 {} → {} ms): the knee lies beyond {} threads",
                    format::delta_pct(gain),
                    prev.threads,
                    top.threads,
                    format::ms_opt(prev.p95_ms),
                    format::ms_opt(top.p95_ms),
                    top.threads
                ),
            }
        }
    }
}

fn found_evidence(knee: &Cell, top: &Cell, best_after: f64) -> String {
    let gain = pct_change(knee.tps, best_after);
    let more = if gain >= 0.0 {
        format!("added at most {} TPS", format::pct_words(gain))
    } else {
        format!("only lost TPS (at least {})", format::pct_words(gain))
    };
    format!(
        "{} threads is the knee ({} TPS): more threads, up to {}, {more} while p95 rose from {} to {} ms ({})",
        knee.threads,
        format::rate(knee.tps),
        top.threads,
        format::ms_opt(knee.p95_ms),
        format::ms_opt(top.p95_ms),
        match (knee.p95_ms, top.p95_ms) {
            (Some(a), Some(b)) => format::delta_pct(pct_change(a, b)),
            _ => "—".into(),
        },
    )
}

/// Change from `a` to `b` in percent (0 when `a` is 0).
pub fn pct_change(a: f64, b: f64) -> f64 {
    if a > 0.0 {
        (b / a - 1.0) * 100.0
    } else {
        0.0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn c(threads: u32, tps: f64, p95: f64) -> Cell {
        Cell {
            threads,
            tps,
            qps: tps * 20.0,
            p95_ms: Some(p95),
            p99_ms: None,
            cpu_pct: None,
            disk_util_pct: None,
            iowait_pct: None,
            samples: None,
            expected_samples: None,
            errors: 0,
            reconnects: 0,
            client_cpu_pct: 0.0,
            qps_per_cpu: None,
            steady_tps: None,
            row_lock_waits: None,
            seconds: 30.0,
            cancelled: false,
            repeats: 1,
            open_loop: None,
            intervals: crate::model::noise::step_intervals(
                &[],
                crate::model::noise::Figures {
                    tps,
                    qps: tps * 20.0,
                    p95_ms: Some(p95),
                    p99_ms: None,
                },
            ),
        }
    }

    #[test]
    fn knee_is_where_throughput_stops_rising() {
        let cells = [
            c(1, 100.0, 1.0),
            c(8, 700.0, 1.2),
            c(16, 1300.0, 1.4),
            c(32, 1400.0, 2.6),
            c(64, 1420.0, 5.5),
            c(128, 1380.0, 12.0),
        ];
        let refs: Vec<&Cell> = cells.iter().collect();
        let k = find_knee(&refs);
        assert_eq!(k.kind, KneeKind::Found);
        assert_eq!(k.best_threads, Some(16));
        assert!(
            k.evidence.starts_with("16 threads is the knee"),
            "{}",
            k.evidence
        );
    }

    #[test]
    fn one_noisy_step_does_not_end_the_walk() {
        // 16 → 32 gains only 5%, but 64 gains 40% over 16: the knee is later.
        let cells = [
            c(8, 700.0, 1.0),
            c(16, 1000.0, 1.2),
            c(32, 1050.0, 2.0),
            c(64, 1400.0, 3.0),
            c(128, 1410.0, 7.0),
        ];
        let refs: Vec<&Cell> = cells.iter().collect();
        assert_eq!(find_knee(&refs).best_threads, Some(64));
    }

    #[test]
    fn still_scaling_at_the_top_is_not_a_knee() {
        let cells = [c(1, 17_109.0, 0.06), c(128, 321_410.0, 0.41)];
        let refs: Vec<&Cell> = cells.iter().collect();
        let k = find_knee(&refs);
        assert_eq!(k.kind, KneeKind::NotReached);
        assert_eq!(k.best_threads, Some(128));
        assert!(k.evidence.contains("beyond 128 threads"), "{}", k.evidence);
    }

    #[test]
    fn a_single_step_cannot_have_a_knee() {
        let cells = [c(8, 1.0, 1.0)];
        let refs: Vec<&Cell> = cells.iter().collect();
        assert_eq!(find_knee(&refs).kind, KneeKind::TooFewSteps);
        assert_eq!(find_knee(&[]).best_threads, None);
    }
}
