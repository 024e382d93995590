//! A step's threads (and its `--events` and `--rate`) shared across the clients.

/// `total` shared across `clients`: equal parts, the remainder one each to the first
/// clients. `split(32, 3)` is `[11, 11, 10]`.
pub fn split(total: u64, clients: usize) -> Vec<u64> {
    if clients == 0 {
        return Vec::new();
    }
    let n = clients as u64;
    (0..n)
        .map(|i| total / n + u64::from(i < total % n))
        .collect()
}

/// `total` shared in proportion to `weights` (the clients' threads), the rounding put
/// on the first clients so that the parts add up to `total` exactly.
pub fn split_by(total: u64, weights: &[u64]) -> Vec<u64> {
    let sum: u64 = weights.iter().sum();
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let mut parts: Vec<u64> = weights
        .iter()
        .map(|w| (total as u128 * *w as u128 / sum as u128) as u64)
        .collect();
    let mut left = total - parts.iter().sum::<u64>();
    for (p, w) in parts.iter_mut().zip(weights) {
        if left == 0 {
            break;
        }
        if *w > 0 {
            *p += 1;
            left -= 1;
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remainder_goes_to_the_first_clients() {
        assert_eq!(split(32, 3), vec![11, 11, 10]);
        assert_eq!(split(2, 3), vec![1, 1, 0]);
        assert_eq!(split(9, 3), vec![3, 3, 3]);
        assert_eq!(split(5, 0), Vec::<u64>::new());
        for (total, n) in [(1, 1), (7, 2), (128, 5), (0, 3)] {
            assert_eq!(split(total, n).iter().sum::<u64>(), total);
        }
    }

    #[test]
    fn events_follow_the_threads_and_add_up() {
        assert_eq!(split_by(1000, &[11, 11, 10]), vec![344, 344, 312]);
        assert_eq!(split_by(1000, &[11, 11, 10]).iter().sum::<u64>(), 1000);
        assert_eq!(split_by(7, &[1, 0, 1]), vec![4, 0, 3]);
        assert_eq!(split_by(5, &[0, 0]), vec![0, 0]);
    }
}
