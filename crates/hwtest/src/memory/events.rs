//! One memory event, word by word, as sysbench 1.0.20's six event functions
//! (`event_{seq,rnd}_{none,read,write}` in sb_memory.c) do it.
//!
//! Why so literal: a DBA compares these figures with old sysbench logs, so an event must
//! cost what sysbench's costs, not as little as the compiler can make it. sysbench stores
//! one machine word per iteration through ConcurrencyKit's `ck_pr_store_64` (inline
//! assembly, one `mov` each) with the value `end - buf`; written as `(n - i)` over an
//! iterator, the same loop is strength-reduced and unrolled by LLVM to about half the
//! instructions per word, and reported 1.4-2× sysbench's MiB/s. Relaxed atomic stores
//! keep one store per word (LLVM neither merges nor vectorizes them). Each function stays out of line, as sysbench calls its event
//! through a function pointer. `bench/hwtest_vs_sysbench.sh` measures the two side by
//! side.

use std::sync::atomic::{AtomicU64, Ordering};

use super::rng::Xoroshiro128Plus;

/// Words are atomics because a `global` block is written by every thread at once;
/// relaxed loads and stores are the plain `mov`s ck's are.
const RELAXED: Ordering = Ordering::Relaxed;

/// `event_seq_none`: the walk alone, kept by `ck_pr_barrier()` in each iteration.
#[inline(never)]
pub fn seq_none(words: &[AtomicU64]) {
    // sysbench's compiler walks eight words per iteration (nothing happens between
    // them but empty barriers); LLVM does not unroll a loop with asm in it, so it is
    // written out: one barrier per eight words, then one per word left.
    let eights = words.chunks_exact(8);
    for _ in eights.remainder() {
        compiler_barrier();
    }
    for _ in eights {
        compiler_barrier();
    }
}

/// ck's `ck_pr_barrier()`: an empty `asm volatile` that may touch memory, so the loop
/// around it stays. (`compiler_fence` does not keep it: LLVM deletes the empty loop.)
fn compiler_barrier() {
    // SAFETY: an empty instruction string does nothing.
    unsafe { std::arch::asm!("", options(nostack, preserves_flags)) };
}

/// `event_seq_read`: one load per word, the value dropped.
#[inline(never)]
pub fn seq_read(words: &[AtomicU64]) {
    for word in words {
        // A volatile read is one load the compiler cannot drop, as ck's asm; no thread
        // writes a block while the test reads it, so reading it non-atomically races with
        // nothing.
        // SAFETY: `word` is a live, aligned u64 (AtomicU64 has u64's layout).
        unsafe { std::ptr::read_volatile(word.as_ptr()) };
    }
}

/// `event_seq_write`: each word gets the number of words from it to the block's end
/// (`end - buf`).
///
/// Shaped as sysbench's compiled loop: eight stores per iteration, each computing
/// `(end - p) >> 3` from its own address (`lea`, `sub`, `shr`, `mov`). Left to itself
/// LLVM either keeps one word per iteration (1 MiB blocks cost 15% more CPU than
/// sysbench's) or, unrolled, strength-reduces the value to a counter (45% less). Hiding
/// the iteration's base address from the optimizer (`opaque`) keeps the arithmetic per
/// word; measured within 5% of sysbench's 1 MiB events (`bench/hwtest_vs_sysbench.sh`).
#[inline(never)]
pub fn seq_write(words: &[AtomicU64]) {
    const WORD: usize = std::mem::size_of::<u64>();
    let range = words.as_ptr_range();
    let end = range.end as usize;
    let mut at = range.start as usize;
    let store = |address: usize| {
        // SAFETY: callers pass an address of one of `words` (start <= address < end,
        // word-aligned), which outlive this call.
        let word = unsafe { &*(address as *const AtomicU64) };
        word.store(((end - address) / WORD) as u64, RELAXED);
    };
    while at + 8 * WORD <= end {
        let base = opaque(at);
        for k in 0..8 {
            store(base + k * WORD);
        }
        at = base + 8 * WORD;
    }
    while at < end {
        store(at);
        at += WORD;
    }
}

/// `value`, unknown to the optimizer from here on (an empty asm that may change it).
fn opaque(mut value: usize) -> usize {
    // SAFETY: an empty instruction string leaves the register as it was.
    unsafe {
        std::arch::asm!("/* {0} */", inout(reg) value, options(pure, nomem, nostack, preserves_flags))
    };
    value
}

/// `event_rnd_none`: one step of the generator per word. sysbench's source also scales
/// the draw to an offset, but nothing uses it and its compiler drops all but the
/// generator's step; this does the work sysbench's binary does.
#[inline(never)]
pub fn rnd_none(words: &[AtomicU64], rng: &mut Xoroshiro128Plus) {
    for _ in words {
        rng.next_u64();
    }
}

/// `event_rnd_read`: one load per word at a random offset.
#[inline(never)]
pub fn rnd_read(words: &[AtomicU64], rng: &mut Xoroshiro128Plus) {
    for _ in words {
        let word = &words[random_word(words.len(), rng)];
        // SAFETY: as in `seq_read`.
        unsafe { std::ptr::read_volatile(word.as_ptr()) };
    }
}

/// `event_rnd_write`: one store per word at a random offset; the value is the loop's
/// byte offset, as sysbench's `i`.
#[inline(never)]
pub fn rnd_write(words: &[AtomicU64], rng: &mut Xoroshiro128Plus) {
    for i in 0..words.len() {
        words[random_word(words.len(), rng)].store(i as u64 * 8, RELAXED);
    }
}

/// sysbench's `(size_t)(sb_rand_uniform_double() * (memory_block_size / SIZEOF_SIZE_T))`:
/// a double in [0, 1) scaled to the block, so always below `words`.
fn random_word(words: usize, rng: &mut Xoroshiro128Plus) -> usize {
    let scaled = rng.uniform_double_through_memory() * words as f64;
    // C's plain conversion rather than `as`, whose saturation checks cost a tenth of a
    // draw here.
    // SAFETY: `scaled` is finite and in [0, words), so it fits a usize.
    unsafe { scaled.to_int_unchecked::<usize>() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(words: usize) -> Vec<AtomicU64> {
        (0..words).map(|_| AtomicU64::new(0)).collect()
    }

    fn values(block: &[AtomicU64]) -> Vec<u64> {
        block.iter().map(|w| w.load(RELAXED)).collect()
    }

    #[test]
    fn seq_write_stores_the_words_left_to_the_end_as_sysbench() {
        let b = block(5);
        seq_write(&b);
        assert_eq!(values(&b), [5, 4, 3, 2, 1]);
        // Past one unrolled round of eight, and its remainder.
        let b = block(19);
        seq_write(&b);
        assert_eq!(values(&b), (1..=19).rev().collect::<Vec<u64>>());
    }

    #[test]
    fn rnd_write_stores_byte_offsets_within_the_block() {
        let b = block(64);
        let mut rng = Xoroshiro128Plus::seeded(7);
        rnd_write(&b, &mut rng);
        let written: Vec<u64> = values(&b).into_iter().filter(|&v| v != 0).collect();
        assert!(written.len() > 20, "{written:?}");
        assert!(
            written.iter().all(|v| v % 8 == 0 && *v < 64 * 8),
            "{written:?}"
        );
    }

    #[test]
    fn reads_and_walks_leave_the_block_as_it_was() {
        let b = block(16);
        seq_write(&b);
        let before = values(&b);
        let mut rng = Xoroshiro128Plus::seeded(1);
        seq_none(&b);
        seq_read(&b);
        rnd_none(&b, &mut rng);
        rnd_read(&b, &mut rng);
        assert_eq!(values(&b), before);
    }
}
