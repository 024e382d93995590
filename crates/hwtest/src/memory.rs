//! `memory`: sysbench's memory test (sb_memory.c). An event reads, writes or only walks
//! one block of `--memory-block-size`, word by word, sequentially or at random words;
//! the block is shared by all threads (`global`) or one per thread (`local`). Each
//! thread stops after its share of `--memory-total-size`.

mod events;
mod rng;

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use rand::rngs::SmallRng;
use rand::SeedableRng;

use rng::Xoroshiro128Plus;

use crate::error::HwTestError;
use crate::options::{GeneralOptions, MemoryOptions};
use crate::result::{
    IntervalFigures, MemoryAccessMode, MemoryOper, MemoryResult, MemoryScope, MemorySetup,
};
use crate::runner::{self, IntervalCommon, LoopFigures, Workload};

const MIB: f64 = 1024.0 * 1024.0;

/// A block of machine words, shared by the threads with `global` scope (how each event
/// walks it: `events`).
type Block = Arc<Vec<AtomicU64>>;

fn new_block(bytes: u64) -> Result<Block, HwTestError> {
    let words = usize::try_from(bytes / 8).map_err(|_| {
        HwTestError::Memory(format!("a block of {bytes} bytes does not fit in memory"))
    })?;
    Ok(Arc::new((0..words).map(|_| AtomicU64::new(0)).collect()))
}

struct Memory {
    o: MemoryOptions,
    global: Option<Block>,
    ops_per_thread: Option<u64>,
    seed: u64,
}

struct Worker {
    block: Block,
    left: Option<u64>,
    rng: Xoroshiro128Plus,
}

impl Workload for Memory {
    type State = Worker;
    type Event = ();

    fn thread_state(&self, thread: usize) -> Result<Worker, HwTestError> {
        let block = match &self.global {
            Some(b) => b.clone(),
            None => new_block(self.o.block_size)?,
        };
        let rng = if self.seed == 0 {
            Xoroshiro128Plus::from_rng(&mut SmallRng::from_entropy())
        } else {
            Xoroshiro128Plus::seeded(self.seed.wrapping_add(thread as u64))
        };
        Ok(Worker {
            block,
            left: self.ops_per_thread,
            rng,
        })
    }

    fn next_event(&self, w: &mut Worker) -> Option<()> {
        match &mut w.left {
            Some(0) => None,
            Some(n) => {
                *n -= 1;
                Some(())
            }
            None => Some(()),
        }
    }

    fn execute(&self, w: &mut Worker, _: ()) -> Result<(), HwTestError> {
        let words = &w.block[..];
        match (self.o.access_mode, self.o.oper) {
            (MemoryAccessMode::Seq, MemoryOper::None) => events::seq_none(words),
            (MemoryAccessMode::Seq, MemoryOper::Read) => events::seq_read(words),
            (MemoryAccessMode::Seq, MemoryOper::Write) => events::seq_write(words),
            (MemoryAccessMode::Rnd, MemoryOper::None) => events::rnd_none(words, &mut w.rng),
            (MemoryAccessMode::Rnd, MemoryOper::Read) => events::rnd_read(words, &mut w.rng),
            (MemoryAccessMode::Rnd, MemoryOper::Write) => events::rnd_write(words, &mut w.rng),
        }
        Ok(())
    }

    fn interval(&self, c: &IntervalCommon) -> IntervalFigures {
        IntervalFigures {
            elapsed_s: c.elapsed_s,
            mib_per_s: Some(c.events as f64 * self.o.block_size as f64 / MIB / c.interval_s),
            ..Default::default()
        }
    }
}

/// What sysbench's memory header states, plus the access mode.
pub fn setup(o: &MemoryOptions) -> MemorySetup {
    MemorySetup {
        block_size_bytes: o.block_size,
        total_size_bytes: o.total_size,
        oper: o.oper,
        scope: o.scope,
        access_mode: Some(o.access_mode),
    }
}

pub fn run(
    general: &GeneralOptions,
    o: &MemoryOptions,
    on_interval: &(dyn Fn(&IntervalFigures) + Sync),
    cancel: &AtomicBool,
) -> Result<(LoopFigures, MemoryResult), HwTestError> {
    let test = Memory {
        o: o.clone(),
        global: match o.scope {
            MemoryScope::Global => Some(new_block(o.block_size)?),
            MemoryScope::Local => None,
        },
        ops_per_thread: (o.total_size > 0)
            .then(|| o.total_size / o.block_size / u64::from(general.threads)),
        seed: general.rand_seed,
    };
    // sysbench ignores --events here: the total size is the memory test's own limit.
    let general = GeneralOptions {
        events: 0,
        ..general.clone()
    };
    let figures = runner::run(&test, &general, on_interval, cancel)?;
    let s = figures.total_time_s;
    let mib = figures.total_events as f64 * o.block_size as f64 / MIB;
    let moved = o.oper != MemoryOper::None;
    let result = MemoryResult {
        operations_per_s: figures.total_events as f64 / s,
        mib_transferred: moved.then_some(mib),
        mib_per_s: moved.then_some(mib / s),
        setup: Some(setup(o)),
    };
    Ok((figures, result))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_stops_after_its_share_of_the_total() {
        let general = GeneralOptions {
            threads: 2,
            ..Default::default()
        };
        for (scope, mode, oper) in [
            (
                MemoryScope::Global,
                MemoryAccessMode::Seq,
                MemoryOper::Write,
            ),
            (MemoryScope::Local, MemoryAccessMode::Rnd, MemoryOper::Read),
            (MemoryScope::Global, MemoryAccessMode::Seq, MemoryOper::None),
        ] {
            let o = MemoryOptions {
                block_size: 4096,
                total_size: 4 << 20,
                scope,
                oper,
                access_mode: mode,
            };
            let (f, r) = run(&general, &o, &|_| {}, &AtomicBool::new(false)).unwrap();
            assert_eq!(f.total_events, 1024);
            assert_eq!(r.mib_transferred, (oper != MemoryOper::None).then_some(4.0));
        }
    }
}
