//! sysbench 1.0.20's uniform generator for the memory test's random offsets:
//! xoroshiro128+ (src/xoroshiro128plus.h) and its double in [0, 1) made from the top 52
//! bits (`sb_rand_uniform_double` in src/sb_rand.h). The `rnd` modes draw one number per
//! word, so the generator is most of an event's cost; rand's `SmallRng` (xoshiro256++,
//! a multiply for the double) costs more per draw, and the rates would not compare with
//! sysbench's. (The rand_xoshiro crate has the generator, not the double; eight lines here
//! spare a dependency.)

use rand::{Rng, SeedableRng};

pub struct Xoroshiro128Plus {
    s: [u64; 2],
}

impl Xoroshiro128Plus {
    /// sysbench seeds each thread's state from libc's `random()`; any state but all
    /// zeros will do, so it comes from rand's seeding (the OS, or `--rand-seed`).
    pub fn from_rng(rng: &mut impl Rng) -> Self {
        loop {
            let s = [rng.gen(), rng.gen()];
            if s != [0, 0] {
                return Xoroshiro128Plus { s };
            }
        }
    }

    pub fn seeded(seed: u64) -> Self {
        Self::from_rng(&mut rand::rngs::SmallRng::seed_from_u64(seed))
    }

    /// `xoroshiro_next`, the state kept in registers while a loop runs.
    pub fn next_u64(&mut self) -> u64 {
        let (result, next) = step(self.s);
        self.s = next;
        result
    }

    /// `sb_rand_uniform_double`, the state read from and written to memory at each draw.
    /// sysbench's state is thread-local memory and the "memory" clobber of each ck load or
    /// store between draws makes its compiler write it back every time: two more stores
    /// per word, which is what makes random 1 MiB writes half as fast as without them
    /// (measured). The volatile accesses keep them.
    pub fn uniform_double_through_memory(&mut self) -> f64 {
        // Word by word, as sysbench's compiler does (a volatile array goes through the
        // stack).
        // SAFETY: each is a live, aligned u64 of the state this `&mut` owns.
        let [s0, s1] = &mut self.s;
        let (result, [n0, n1]) =
            unsafe { step([std::ptr::read_volatile(s0), std::ptr::read_volatile(s1)]) };
        unsafe {
            std::ptr::write_volatile(s0, n0);
            std::ptr::write_volatile(s1, n1);
        }
        to_unit_interval(result)
    }
}

/// One xoroshiro128+ step: the output and the next state.
fn step([s0, s1]: [u64; 2]) -> (u64, [u64; 2]) {
    let result = s0.wrapping_add(s1);
    let s1 = s1 ^ s0;
    (
        result,
        [s0.rotate_left(55) ^ s1 ^ (s1 << 14), s1.rotate_left(36)],
    )
}

/// `sb_rand_uniform_double`: the exponent of 1.0 over the top 52 bits, minus one.
fn to_unit_interval(draw: u64) -> f64 {
    f64::from_bits((0x3FF << 52) | (draw >> 12)) - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_reference_sequence() {
        // xoroshiro128+ from state {1, 2}, worked by hand from the reference code:
        // 1 + 2; then s = {rotl(1, 55) ^ 3 ^ (3 << 14), rotl(3, 36)}.
        let mut g = Xoroshiro128Plus { s: [1, 2] };
        assert_eq!(g.next_u64(), 3);
        let s0 = (1u64 << 55) ^ 3 ^ (3 << 14);
        let s1 = 3u64 << 36;
        assert_eq!(g.next_u64(), s0.wrapping_add(s1));
    }

    #[test]
    fn doubles_stay_in_the_unit_interval_and_spread_over_it() {
        let mut g = Xoroshiro128Plus::seeded(42);
        let draws: Vec<f64> = (0..10_000)
            .map(|_| g.uniform_double_through_memory())
            .collect();
        assert!(draws.iter().all(|d| (0.0..1.0).contains(d)));
        let low = draws.iter().filter(|d| **d < 0.5).count();
        assert!((4_500..5_500).contains(&low), "{low} of 10000 below 0.5");
        // The extremes: a draw of all zero bits gives 0.0, of all one bits the largest
        // double below 1.
        assert_eq!(
            Xoroshiro128Plus { s: [0, 0] }.uniform_double_through_memory(),
            0.0
        );
        let top = Xoroshiro128Plus { s: [u64::MAX, 0] }.uniform_double_through_memory();
        assert!(top > 0.999_999 && top < 1.0, "{top}");
    }
}
