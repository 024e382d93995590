//! sysbench-tpcc's random functions (tpcc_common.lua, tpcc_run.lua): NURand with its
//! constants, customer last names and the remote-warehouse pick, drawn from the same
//! uniform generator as sysbench's `sysbench.rand.uniform` ([`SbRand::uniform`]).
//!
//! Where the reference behaves other than the TPC-C specification says, this module
//! behaves as the reference does, because what matters is that both tools send the
//! server the same statements over the same keys. Each such place says so.

use crate::workload::rand::SbRand;

/// The syllables of a TPC-C customer last name (TPC-C 4.3.2.3).
const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

/// `NURand(A, x, y)`: TPC-C's non-uniform random number, hot keys and all.
///
/// The constant C for A = 255, 1023 and 8191 is `uniform(0, A)`. The reference means to
/// draw the three constants once per thread, but its guard (`if init_rand`, later set
/// to 0) is always true in Lua, where 0 is truthy: so each call draws all three again
/// before drawing its own two values. We do the same, so the distribution (and the
/// number of draws per transaction) is the reference's. For any other A, C is 0 (the
/// reference leaves it nil; it is never called so).
pub fn nurand(rng: &mut SbRand, a: u64, x: u64, y: u64) -> u64 {
    let c_255 = rng.uniform(0, 255);
    let c_1023 = rng.uniform(0, 1023);
    let c_8191 = rng.uniform(0, 8191);
    let c = match a {
        255 => c_255,
        1023 => c_1023,
        8191 => c_8191,
        _ => 0,
    };
    let i = rng.uniform(0, a);
    let j = rng.uniform(x, y);
    ((i | j) + c) % (y - x + 1) + x
}

/// The last name numbered `num` (0..=999): three syllables, by the hundreds, tens and
/// units digit (TPC-C 4.3.2.3, tpcc_common.lua's `Lastname`).
pub fn last_name(num: u64, out: &mut String) {
    out.clear();
    let num = num % 1000;
    out.push_str(SYLLABLES[(num / 100) as usize]);
    out.push_str(SYLLABLES[((num / 10) % 10) as usize]);
    out.push_str(SYLLABLES[(num % 10) as usize]);
}

/// A random customer last name, as New-Order's siblings draw it: `Lastname(NURand(255, 0, 999))`.
pub fn random_last_name(rng: &mut SbRand, out: &mut String) {
    let num = nurand(rng, 255, 0, 999);
    last_name(num, out);
}

/// The reference's `other_ware(home)`: meant to pick a warehouse other than `home`, it
/// loops *until* the draw equals `home` (`repeat ... until tmp == home_ware`) and so
/// always returns `home`. We keep that: "remote" order lines and payments of the
/// reference touch the home warehouse, and so must ours for the same server work. The
/// draws are made as the reference makes them (none at scale 1).
pub fn other_warehouse(rng: &mut SbRand, home: u64, scale: u64) -> u64 {
    if scale <= 1 {
        return home;
    }
    while rng.uniform(1, scale) != home {}
    home
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::RandOptions;

    fn rng(seed: u64) -> SbRand {
        SbRand::new(
            &RandOptions {
                seed,
                ..RandOptions::default()
            },
            1,
        )
    }

    #[test]
    fn last_names_follow_the_syllable_table() {
        let mut s = String::new();
        last_name(0, &mut s);
        assert_eq!(s, "BARBARBAR");
        last_name(371, &mut s);
        assert_eq!(s, "PRICALLYOUGHT");
        last_name(999, &mut s);
        assert_eq!(s, "EINGEINGEING");
    }

    #[test]
    fn nurand_stays_in_range() {
        let mut r = rng(7);
        for _ in 0..10_000 {
            let v = nurand(&mut r, 1023, 1, 3000);
            assert!((1..=3000).contains(&v));
        }
        for _ in 0..10_000 {
            let v = nurand(&mut r, 8191, 1, 100_000);
            assert!((1..=100_000).contains(&v));
            let v = nurand(&mut r, 255, 0, 999);
            assert!(v <= 999);
        }
    }

    #[test]
    fn nurand_draws_its_constants_at_every_call() {
        // Five uniform draws per call, as the reference (see nurand's doc): two
        // generators with the same seed agree after one NURand and five plain draws.
        // The value is TPC-C's ((i | j) + C) mod (y - x + 1) + x with C the A's constant.
        let (mut a, mut b) = (rng(11), rng(11));
        for _ in 0..1000 {
            let got = nurand(&mut a, 1023, 1, 3000);
            let [_, c, _, i, j] = [(0, 255), (0, 1023), (0, 8191), (0, 1023), (1, 3000)]
                .map(|(lo, hi)| b.uniform(lo, hi));
            assert_eq!(got, ((i | j) + c) % 3000 + 1);
            let got = nurand(&mut a, 255, 0, 999);
            let [c, _, _, i, j] = [(0, 255), (0, 1023), (0, 8191), (0, 255), (0, 999)]
                .map(|(lo, hi)| b.uniform(lo, hi));
            assert_eq!(got, ((i | j) + c) % 1000);
        }
        assert_eq!(a.uniform(0, u32::MAX as u64), b.uniform(0, u32::MAX as u64));
    }

    #[test]
    fn other_warehouse_is_home_as_in_the_reference() {
        let mut r = rng(3);
        assert_eq!(other_warehouse(&mut r, 1, 1), 1);
        for home in 1..=4 {
            assert_eq!(other_warehouse(&mut r, home, 4), home);
        }
    }
}
