//! What one meeting of two threads costs on this machine, apart from any work: the partitioned engine's
//! barrier reduced to its count and generation (spinning only), met ROUNDS times by two threads with WORK
//! steps of a dependent multiply between meetings. Prints nanoseconds per round.
//!
//!     rustc -O bench/experiments/barrier_round.rs -o /tmp/barrier_round && /tmp/barrier_round 1000000 0

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

struct Barrier {
    threads: usize,
    waiting: AtomicUsize,
    generation: AtomicUsize,
}

impl Barrier {
    fn wait(&self) {
        let generation = self.generation.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.waiting.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        while self.generation.load(Ordering::Acquire) == generation {
            std::hint::spin_loop();
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1).map(|s| s.parse::<u64>().expect("ROUNDS WORK: two integers"));
    let (rounds, work) = (args.next().unwrap_or(1_000_000), args.next().unwrap_or(0));
    let barrier = Arc::new(Barrier { threads: 2, waiting: AtomicUsize::new(0), generation: AtomicUsize::new(0) });
    let start = Instant::now();
    let threads: Vec<_> = (0..2u64)
        .map(|t| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut x = t + 1;
                for _ in 0..rounds {
                    for _ in 0..work {
                        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    }
                    barrier.wait();
                }
                x
            })
        })
        .collect();
    let check: u64 = threads.into_iter().map(|t| t.join().unwrap()).fold(0, u64::wrapping_add);
    let ns = start.elapsed().as_secs_f64() * 1e9 / rounds as f64;
    println!("{rounds} rounds, {work} steps of work each: {ns:.0} ns per round (check {})", check % 7);
}
