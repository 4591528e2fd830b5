//! What one meeting of two threads costs on this machine, apart from any work: the partitioned engine's
//! barrier and its reports, met ROUNDS times by two threads with WORK steps of a dependent multiply between
//! meetings. Prints nanoseconds per round. Two kinds (the third argument):
//!
//! - `counter`: the engine's barrier before the thirty-first session: each thread writes its 80-byte report
//!   into an array the threads share, adds itself to a shared count (a locked instruction), and the last to
//!   arrive moves the generation on; then each reads every report.
//! - `slots` (the engine's now): each thread writes its report into a slot of its own (two lines), then the
//!   number of windows it has ended, and waits until every slot says the window has ended; then each reads
//!   every report.
//!
//! Both spin only (the engine sleeps after 2,000 spins, which these rounds never reach).
//!
//!     rustc --edition 2021 -O bench/experiments/barrier_round.rs -o /tmp/barrier_round
//!     /tmp/barrier_round 1000000 0 counter && /tmp/barrier_round 1000000 0 slots

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A block's report, the size of the engine's (ten 8-byte fields).
#[derive(Clone, Copy, Default)]
struct Report([u64; 10]);

trait Meeting: Sync + Send {
    /// Thread `t` ends round `w` with `report`; returns the sum of every thread's first field.
    fn meet(&self, w: u64, t: usize, report: Report) -> u64;
}

struct Counter {
    threads: usize,
    waiting: AtomicUsize,
    generation: AtomicUsize,
    reports: Box<[UnsafeCell<Report>]>,
}

unsafe impl Sync for Counter {}

impl Meeting for Counter {
    fn meet(&self, w: u64, t: usize, report: Report) -> u64 {
        let parity = (w % 2) as usize * self.threads;
        unsafe { *self.reports[parity + t].get() = report };
        let generation = self.generation.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.waiting.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
        } else {
            while self.generation.load(Ordering::Acquire) == generation {
                std::hint::spin_loop();
            }
        }
        (0..self.threads).map(|u| unsafe { (*self.reports[parity + u].get()).0[0] }).sum()
    }
}

#[repr(C, align(128))]
struct Slot {
    report: UnsafeCell<Report>,
    ended: AtomicU64,
}

struct Slots {
    threads: usize,
    slots: Box<[Slot]>,
}

unsafe impl Sync for Slots {}

impl Meeting for Slots {
    fn meet(&self, w: u64, t: usize, report: Report) -> u64 {
        let mine = &self.slots[(w % 2) as usize * self.threads..][..self.threads];
        unsafe { *mine[t].report.get() = report };
        mine[t].ended.store(w + 1, Ordering::SeqCst);
        for other in mine {
            while other.ended.load(Ordering::Acquire) <= w {
                std::hint::spin_loop();
            }
        }
        mine.iter().map(|slot| unsafe { (*slot.report.get()).0[0] }).sum()
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut number = |what: &str, default: u64| {
        args.next().map_or(default, |s| s.parse::<u64>().unwrap_or_else(|_| panic!("{what}: an integer")))
    };
    let (rounds, work) = (number("ROUNDS", 1_000_000), number("WORK", 0));
    let kind = std::env::args().nth(3).unwrap_or_else(|| "slots".into());
    let threads = 2;
    let meeting: Arc<dyn Meeting> = match kind.as_str() {
        "counter" => Arc::new(Counter {
            threads,
            waiting: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            reports: (0..2 * threads).map(|_| UnsafeCell::new(Report::default())).collect(),
        }),
        "slots" => Arc::new(Slots {
            threads,
            slots: (0..2 * threads)
                .map(|_| Slot { report: UnsafeCell::new(Report::default()), ended: AtomicU64::new(0) })
                .collect(),
        }),
        other => panic!("kind = {other:?}: counter or slots"),
    };
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let meeting = meeting.clone();
            std::thread::spawn(move || {
                let mut x = t as u64 + 1;
                let mut seen = 0u64;
                for w in 0..rounds {
                    for _ in 0..work {
                        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    }
                    seen = seen.wrapping_add(meeting.meet(w, t, Report([w; 10])));
                }
                x.wrapping_add(seen)
            })
        })
        .collect();
    let check: u64 = handles.into_iter().map(|t| t.join().unwrap()).fold(0, u64::wrapping_add);
    let ns = start.elapsed().as_secs_f64() * 1e9 / rounds as f64;
    println!("{kind}: {rounds} rounds, {work} steps of work each: {ns:.0} ns per round (check {})", check % 7);
}
