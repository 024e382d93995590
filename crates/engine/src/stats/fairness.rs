//! sysbench's "Threads fairness" block: how evenly the work spread over the threads.

use crate::results::Fairness;

/// Mean and population standard deviation of the events each thread completed and of
/// the time each thread spent executing them, as sysbench prints
/// `events (avg/stddev)` and `execution time (avg/stddev)`.
///
/// sysbench divides by the number of threads (population, not sample, stddev); we do
/// the same so that the figures compare one to one. Empty slices give zeros.
pub fn fairness(events: &[u64], exec_time_s: &[f64]) -> Fairness {
    let (events_avg, events_stddev) = mean_stddev(events.iter().map(|&e| e as f64));
    let (exec_time_avg_s, exec_time_stddev_s) = mean_stddev(exec_time_s.iter().copied());
    Fairness {
        events_avg,
        events_stddev,
        exec_time_avg_s,
        exec_time_stddev_s,
    }
}

fn mean_stddev(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let n = values.clone().count();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = values.clone().sum::<f64>() / n as f64;
    let var = values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_seed_003_fairness_line() {
        // Seed 003: 2 threads, 4615 events, printed "2307.5000/6.50".
        let f = fairness(&[2314, 2301], &[60.0194, 59.9994]);
        assert_eq!(
            format!("{:.4}/{:3.2}", f.events_avg, f.events_stddev),
            "2307.5000/6.50"
        );
        assert_eq!(
            format!("{:.4}/{:3.2}", f.exec_time_avg_s, f.exec_time_stddev_s),
            "60.0094/0.01"
        );
    }

    #[test]
    fn population_not_sample_stddev() {
        // Sample stddev of [2, 4, 4, 4, 5, 5, 7, 9] is 2.138; population is exactly 2.
        let f = fairness(&[2, 4, 4, 4, 5, 5, 7, 9], &[]);
        assert_eq!(f.events_avg, 5.0);
        assert_eq!(f.events_stddev, 2.0);
        assert_eq!(f.exec_time_avg_s, 0.0);
    }

    #[test]
    fn empty_is_zero() {
        assert_eq!(fairness(&[], &[]), Fairness::default());
    }
}
