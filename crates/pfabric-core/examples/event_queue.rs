//! The event queue alone, on a hold model shaped like a 10 Gbps leaf-spine: pop the earliest event and schedule
//! one in its place, half of them one full-packet serialization (1.2-1.32 us) ahead and half anywhere within
//! 1.3 us, with PENDING events waiting (default 1517, the peak of pfabric-websearch-0.6-20k). Prints wall
//! nanoseconds per pop + schedule; see bench/RESULTS.md.
//!
//! cargo run --release -p pfabric-core --example event_queue -- [PENDING]

use pfabric_core::sim::event::{EventKind, EventQueue};
use pfabric_core::sim::rng::Rng;

/// Pops and schedules timed per run.
const OPS: u64 = 200_000_000;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|x| x.parse().ok()).unwrap_or(1517);
    let mut q = EventQueue::for_horizon(1_320_000);
    let mut rng = Rng::new(1);
    let deltas: Vec<u64> = (0..4096)
        .map(|_| if rng.below(2) == 0 { 1_200_000 + rng.below(120_000) } else { rng.below(1_300_000) })
        .collect();
    for i in 0..n {
        q.schedule(deltas[i % 4096], EventKind::Arrive, i as u32, 0);
    }
    let t = std::time::Instant::now();
    let mut acc = 0u64;
    for i in 0..OPS {
        let e = q.pop().unwrap();
        acc = acc.wrapping_add(e.a as u64);
        q.schedule(e.time + deltas[(i as usize) & 4095], EventKind::Arrive, e.a, 0);
    }
    let s = t.elapsed().as_secs_f64();
    // `acc` keeps the popped events observable, so the loop cannot be optimized away.
    println!("pending {n}: {:.2} ns per pop + schedule (checksum {acc})", s * 1e9 / OPS as f64);
}
