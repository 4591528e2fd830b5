//! AIFO (Yu et al., SIGCOMM 2021, "Programmable Packet Scheduling with a Single Queue"): one FIFO with rank-
//! aware admission control, in the form and with the arithmetic of the authors' simulator.
//!
//! The port keeps a sliding window W of recently sampled ranks. An arrival of rank r, finding `qlen` packets
//! in a FIFO of capacity C (packets), is admitted when
//!
//! ```text
//!     qlen <= k * C                                    (headroom: a short queue takes anything)
//!  or q < 1/(1 - k) * (C - qlen) / C * |W|             (quantile: r ranks low enough for the room left)
//! ```
//!
//! and the FIFO is not full, where q counts the window's ranks strictly below r and |W| is the number of
//! samples the window holds so far. Admitted packets leave in arrival order: AIFO never reorders.
//!
//! Then, admitted or not, the arrival may be sampled: every `sample_every`-th arrival, starting with the first,
//! enters the window (the oldest sample leaving once it holds `window` ranks). Refused arrivals count toward
//! the sampling period and can be sampled, as in the authors' code.
//!
//! Edge cases, as the authors' code settles them:
//! - The quantile is taken *before* the arrival can enter the window, so a packet never competes with itself.
//! - An empty window (only before the first arrival) passes the quantile test.
//! - `qlen <= k * C` admits any rank, even the largest: with C = 20 and k = 0.1, a queue of 0, 1 or 2 packets.
//! - At qlen = C the quantile bound is 0, which no q passes, and the headroom test fails for k < 1: a full
//!   FIFO refuses everything. The explicit capacity check is kept as the authors keep it; with an empty window
//!   it is the only thing that refuses.
//! - Floating point, exactly as in the authors' Java: k is an `f32` (so 1 - k is rounded to `f32`: for k = 0.1
//!   it is 0.89999998), the bound is computed in `f64` in the order 1/(1-k) * (C - qlen) / C, then multiplied
//!   by |W| and compared with q as an `f64`. Where the real-number bound is a whole number the rounding
//!   decides: with C = |W| = 20, k = 0.1 and qlen = 11 the exact bound is 10, the computed one 10.0000003, and
//!   q = 10 is admitted.
//!
//! Defaults (AIFO paper, section 5.1, from the authors' code): C = 20 packets, |W| = 20, one sample every 15
//! arrivals, k = 0.1.

use std::collections::VecDeque;

use crate::net::packet::PacketId;

pub const DEFAULT_CAPACITY_PKTS: usize = 20;
pub const DEFAULT_WINDOW: usize = 20;
pub const DEFAULT_SAMPLE_EVERY: u32 = 15;
pub const DEFAULT_HEADROOM: f64 = 0.1;

/// The admission rule alone: may an arrival with `below` window ranks strictly below its own be admitted
/// into a FIFO holding `qlen` of `capacity` packets, the window holding `window_len` samples?
#[inline]
pub fn admits(below: usize, window_len: usize, qlen: usize, capacity: usize, k: f32) -> bool {
    let c = capacity as f64;
    let headroom = qlen as f64 <= k as f64 * c;
    let quantile = window_len == 0 || {
        let room = 1.0 / (1.0f32 - k) as f64 * (c - qlen as f64) / c;
        (below as f64) < room * window_len as f64
    };
    (headroom || quantile) && qlen < capacity
}

/// The last `len()` sampled ranks, in a fixed ring: the order of samples does not matter to a quantile.
#[derive(Clone, Debug)]
struct Window {
    ranks: Vec<u64>,
    /// Where the next sample goes once the ring is full (the oldest sample).
    next: usize,
    size: usize,
}

impl Window {
    fn new(size: usize) -> Self {
        Window { ranks: Vec::with_capacity(size), next: 0, size }
    }

    /// How many samples rank strictly below `rank`.
    #[inline]
    fn count_below(&self, rank: u64) -> usize {
        self.ranks.iter().filter(|&&r| r < rank).count()
    }

    #[inline]
    fn push(&mut self, rank: u64) {
        if self.ranks.len() < self.size {
            self.ranks.push(rank);
        } else {
            self.ranks[self.next] = rank;
            self.next = (self.next + 1) % self.size;
        }
    }

    fn len(&self) -> usize {
        self.ranks.len()
    }
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    rank: u64,
    id: PacketId,
    wire: u32,
}

pub struct Aifo {
    fifo: VecDeque<Entry>,
    capacity: usize,
    window: Window,
    /// Arrivals since the last sample: the arrival that finds 0 is sampled.
    since_sample: u32,
    sample_every: u32,
    /// k, stored as the authors store it.
    headroom: f32,
    bytes: u64,
}

impl Aifo {
    /// A FIFO of `capacity_pkts` packets, a window of `window` samples, one sample every `sample_every`
    /// arrivals, headroom `k` in [0, 1) (rounded to `f32`, as the authors' code holds it).
    pub fn new(capacity_pkts: usize, window: usize, sample_every: u32, k: f64) -> Self {
        assert!(capacity_pkts >= 1, "AIFO's FIFO holds at least one packet");
        assert!(window >= 1 && sample_every >= 1, "AIFO needs a window and a sampling period");
        assert!((0.0..1.0).contains(&k), "AIFO's headroom k lies in [0, 1)");
        Aifo {
            fifo: VecDeque::with_capacity(capacity_pkts),
            capacity: capacity_pkts,
            window: Window::new(window),
            since_sample: 0,
            sample_every,
            headroom: k as f32,
            bytes: 0,
        }
    }

    /// The paper's setting: C = 20, |W| = 20, a sample every 15 arrivals, k = 0.1.
    pub fn paper_default() -> Self {
        Self::new(DEFAULT_CAPACITY_PKTS, DEFAULT_WINDOW, DEFAULT_SAMPLE_EVERY, DEFAULT_HEADROOM)
    }

    /// Admit `id` at the tail or refuse it (returning `id`); then sample its rank if its turn has come.
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, rank: u64, wire: u32) -> Option<PacketId> {
        let admit =
            admits(self.window.count_below(rank), self.window.len(), self.fifo.len(), self.capacity, self.headroom);
        self.sample(rank);
        if !admit {
            return Some(id);
        }
        self.fifo.push_back(Entry { rank, id, wire });
        self.bytes += wire as u64;
        None
    }

    /// An arrival of rank `rank` that the idle port sends at once: admitted (the queue is empty), it counts
    /// toward the sampling period and may enter the window as any arrival does.
    #[inline]
    pub fn pass_through(&mut self, rank: u64) {
        debug_assert!(self.fifo.is_empty());
        self.sample(rank);
    }

    /// Count the arrival toward the sampling period; the first of each period enters the window.
    #[inline]
    fn sample(&mut self, rank: u64) {
        if self.since_sample == 0 {
            self.window.push(rank);
        }
        self.since_sample += 1;
        if self.since_sample == self.sample_every {
            self.since_sample = 0;
        }
    }

    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u64)> {
        let e = self.fifo.pop_front()?;
        self.bytes -= e.wire as u64;
        Some((e.id, e.rank))
    }

    /// The sampled ranks the window holds now (in ring order, not by age).
    pub fn window(&self) -> &[u64] {
        &self.window.ranks
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: f32 = 0.1;

    #[test]
    fn empty_window_admits_any_rank_while_there_is_room() {
        assert!(admits(0, 0, 19, 20, K), "no samples yet: the quantile test passes");
        assert!(!admits(0, 0, 20, 20, K), "but a full FIFO still refuses");
    }

    #[test]
    fn headroom_admits_any_rank() {
        // k * C = 2: queues of 0, 1, 2 packets take even a rank above the whole window.
        for qlen in 0..=2 {
            assert!(admits(20, 20, qlen, 20, K), "qlen {qlen}");
        }
        assert!(!admits(20, 20, 3, 20, K));
    }

    #[test]
    fn quantile_bound_at_its_edges() {
        // Bound = 1/(1 - k) * (20 - qlen) / 20 * 20 = 1.111 * (20 - qlen).
        // qlen 3: 18.9, so q = 18 passes and 19 does not.
        assert!(admits(18, 20, 3, 20, K));
        assert!(!admits(19, 20, 3, 20, K));
        // qlen 10: 11.1.
        assert!(admits(11, 20, 10, 20, K));
        assert!(!admits(12, 20, 10, 20, K));
        // qlen 19: 1.11, only the two lowest quantiles.
        assert!(admits(1, 20, 19, 20, K));
        assert!(!admits(2, 20, 19, 20, K));
        // qlen 11: the real-number bound is exactly 10, but 1 - 0.1f32 rounds down: 10.0000003 admits q = 10.
        assert!(admits(10, 20, 11, 20, K));
        assert!(!admits(11, 20, 11, 20, K));
        // A partly filled window scales the bound by its size: 5 samples, qlen 10: 1.111 * 10 / 20 * 5 = 2.78.
        assert!(admits(2, 5, 10, 20, K));
        assert!(!admits(3, 5, 10, 20, K));
        // Full: the bound is 0 and k * C < C.
        assert!(!admits(0, 20, 20, 20, K));
    }

    /// An AIFO whose window holds `n` samples of rank 0, all packets gone.
    fn primed_with_zeros(n: usize) -> Aifo {
        let mut q = Aifo::new(20, n, 1, 0.1);
        for i in 0..n {
            assert_eq!(q.enqueue(i as PacketId, 0, 1500), None);
            q.dequeue();
        }
        q
    }

    #[test]
    fn short_queue_admits_any_rank_then_the_quantile_refuses_it() {
        let mut q = primed_with_zeros(20);
        // Ranks near the top of the range, above every sample (each is sampled too, replacing a 0).
        for i in 0..3u32 {
            assert_eq!(q.enqueue(100 + i, u64::MAX - 3 + i as u64, 1500), None, "qlen {i} <= kC = 2");
        }
        // qlen 3: the bound is 18.9, and all 20 samples lie below the largest rank.
        assert_eq!(q.enqueue(103, u64::MAX, 1500), Some(103));
        // A rank no sample lies below is still admitted.
        assert_eq!(q.enqueue(104, 0, 1500), None);
        assert_eq!(q.len(), 4);
        assert_eq!(q.bytes(), 6000);
    }

    #[test]
    fn rank_above_the_allowed_quantile_is_refused() {
        // Window of ranks 0, 10, ..., 190 (every arrival sampled), the queue emptied after each.
        let mut q = Aifo::new(20, 20, 1, 0.1);
        for r in 0..20u64 {
            q.enqueue(r as PacketId, r * 10, 1500);
            q.dequeue();
        }
        // Ten rank-0 packets (nothing lies below 0): qlen 10; they replace 0..90, so the window holds ten 0s
        // and 100..190.
        for id in 0..10 {
            assert_eq!(q.enqueue(id, 0, 1500), None);
        }
        // qlen 10, bound 11.1: rank 105 has 11 samples below (ten 0s and 100), admitted; it replaces 100.
        assert_eq!(q.enqueue(20, 105, 1500), None);
        // qlen 11, bound 10.0000003: rank 110 has 11 below (ten 0s and 105), refused; it replaces 110.
        assert_eq!(q.enqueue(21, 110, 1500), Some(21));
        // Rank 105 has 10 below: admitted, at the rounding edge.
        assert_eq!(q.enqueue(22, 105, 1500), None);
        assert_eq!(q.len(), 12);
    }

    #[test]
    fn full_fifo_refuses() {
        let mut q = Aifo::new(2, 20, 15, 0.1);
        assert_eq!(q.enqueue(0, 5, 1500), None);
        assert_eq!(q.enqueue(1, 5, 1500), None);
        assert_eq!(q.enqueue(2, 0, 1500), Some(2), "even the best rank");
        assert_eq!(q.dequeue(), Some((0, 5)));
        assert_eq!(q.enqueue(3, 0, 1500), None);
    }

    #[test]
    fn quantile_is_taken_before_the_arrival_enters_the_window() {
        // One-sample window, every arrival sampled, no headroom beyond an empty queue.
        let mut q = Aifo::new(20, 1, 1, 0.0);
        assert_eq!(q.enqueue(0, 10, 1500), None, "qlen 0 <= 0");
        assert_eq!(q.window(), [10]);
        // qlen 1: bound 0.95. Rank 50 has one sample (10) below it: refused. Had it entered the window first,
        // nothing would lie below it and it would pass.
        assert_eq!(q.enqueue(1, 50, 1500), Some(1));
        assert_eq!(q.window(), [50], "refused, but sampled");
        assert_eq!(q.enqueue(2, 50, 1500), None, "now nothing lies strictly below 50");
    }

    #[test]
    fn samples_every_fifteenth_arrival_counting_refused_ones() {
        // A one-packet FIFO: after the first arrival every arrival is refused (full).
        let mut q = Aifo::new(1, 20, 15, 0.0);
        let mut refused = 0;
        for i in 0..31u32 {
            if q.enqueue(i, i as u64, 1500).is_some() {
                refused += 1;
            }
        }
        assert_eq!(refused, 30);
        assert_eq!(q.window(), [0, 15, 30], "arrivals 0, 15 and 30 are sampled");
    }

    #[test]
    fn window_slides_over_the_oldest_sample() {
        let mut q = Aifo::new(20, 3, 1, 0.1);
        for r in 1..=5u64 {
            q.enqueue(r as PacketId, r, 1500);
            q.dequeue();
        }
        let mut w = q.window().to_vec();
        w.sort_unstable();
        assert_eq!(w, [3, 4, 5]);
    }

    #[test]
    fn admitted_packets_leave_in_arrival_order() {
        let mut q = Aifo::paper_default();
        for (id, rank) in [(0, 30), (1, 10), (2, 20)] {
            assert_eq!(q.enqueue(id, rank, 1000), None);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue()).collect();
        assert_eq!(order, [(0, 30), (1, 10), (2, 20)]);
        assert!(q.is_empty());
        assert_eq!(q.bytes(), 0);
    }
}
