//! SP-PIFO (Alcoz et al., NSDI 2020): a PIFO approximated by a few strict-priority FIFOs whose rank bounds
//! adapt to the traffic, as the AIFO paper runs it (section 5.1: 8 queues of 10 packets).
//!
//! Queue 0 has the highest priority and the port always sends from the highest-priority non-empty queue,
//! FIFO inside it. Each queue has a rank bound, all starting at 0. An arrival of rank r scans the queues
//! bottom-up, from the lowest priority, for the first whose bound is <= r:
//! - *push-up*: found, the packet joins that queue and the queue's bound becomes r;
//! - *push-down*: none found (r is below every bound, an inversion at the top queue), the packet joins the top
//!   queue and every bound decreases by (top bound - r), so the top bound becomes r.
//!
//! A full target queue drops the arrival and leaves the bounds as they were (no spill into a neighbouring
//! queue), as the authors' code does: bounds adapt only to admitted packets. Capacity is counted in packets,
//! per queue.
//!
//! The bounds stay sorted (top <= ... <= bottom) and never negative, so they fit a `u64` where the authors
//! use a signed int: a push-up into queue i sets its bound to a rank at or above its own bound and the bounds
//! of the queues above, and below the bound of the queue beneath (which refused it); a push-down lowers all
//! bounds by the same amount, the top one to r >= 0, the others to at least r.
//!
//! Departure: only the "cost" step size of the paper's push-down is modelled (decrease by the size of the
//! inversion), the one the AIFO comparison uses.

use std::collections::VecDeque;

use crate::net::packet::PacketId;

/// The AIFO paper's SP-PIFO: 8 queues ...
pub const DEFAULT_QUEUES: usize = 8;
/// ... of 10 packets each.
pub const DEFAULT_PER_QUEUE_PKTS: usize = 10;

#[derive(Clone, Copy, Debug)]
struct Entry {
    rank: u64,
    id: PacketId,
    wire: u32,
}

pub struct SpPifo {
    /// Queue 0 is served first.
    queues: Vec<VecDeque<Entry>>,
    /// Rank bound of each queue, same indices.
    bounds: Vec<u64>,
    per_queue: usize,
    bytes: u64,
    len: usize,
}

impl SpPifo {
    /// `n_queues` strict-priority FIFOs (at least 1) of `per_queue_pkts` packets each.
    pub fn new(n_queues: usize, per_queue_pkts: usize) -> Self {
        assert!(n_queues >= 1, "SP-PIFO needs at least one queue");
        SpPifo {
            queues: (0..n_queues).map(|_| VecDeque::with_capacity(per_queue_pkts)).collect(),
            bounds: vec![0; n_queues],
            per_queue: per_queue_pkts,
            bytes: 0,
            len: 0,
        }
    }

    /// The queue an arrival of `rank` maps to: the lowest-priority queue whose bound is <= `rank`, else the
    /// top queue (an inversion).
    #[inline]
    pub fn target(&self, rank: u64) -> usize {
        self.bounds.iter().rposition(|&b| b <= rank).unwrap_or(0)
    }

    /// Admit `id` into the queue its rank maps to and adapt the bounds; if that queue is full, return `id`.
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, rank: u64, wire: u32) -> Option<PacketId> {
        let q = self.target(rank);
        if self.queues[q].len() >= self.per_queue {
            return Some(id);
        }
        self.queues[q].push_back(Entry { rank, id, wire });
        self.bytes += wire as u64;
        self.len += 1;
        self.adapt(q, rank);
        None
    }

    /// An arrival of rank `rank` that the idle port sends at once: mapped to its queue (empty, so it has room),
    /// it moves the bounds as any admitted arrival does.
    #[inline]
    pub fn pass_through(&mut self, rank: u64) {
        debug_assert_eq!(self.len, 0);
        let q = self.target(rank);
        self.adapt(q, rank);
    }

    /// Push-up, or push-down after an inversion at the top queue.
    #[inline]
    fn adapt(&mut self, q: usize, rank: u64) {
        let bound = self.bounds[q];
        if bound > rank {
            // Only the top queue takes a rank below its bound; lower every bound by the inversion's size.
            debug_assert_eq!(q, 0);
            let cost = bound - rank;
            for b in &mut self.bounds {
                *b -= cost;
            }
        } else {
            self.bounds[q] = rank;
        }
    }

    /// The highest-priority non-empty queue's head, with its rank.
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u64)> {
        let e = self.queues.iter_mut().find_map(|q| q.pop_front())?;
        self.bytes -= e.wire as u64;
        self.len -= 1;
        Some((e.id, e.rank))
    }

    /// Current rank bounds, queue 0 (highest priority) first.
    pub fn bounds(&self) -> &[u64] {
        &self.bounds
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_trace_push_up_and_push_down() {
        let mut q = SpPifo::new(2, 10);
        // (rank, queue it joins, bounds after: [top, bottom])
        let trace = [
            (5, 1, [0, 5]), // bottom bound 0 <= 5: push-up of the bottom queue
            (3, 0, [3, 5]), // 5 > 3, top bound 0 <= 3: push-up of the top queue
            (7, 1, [3, 7]), // push-up of the bottom queue
            (4, 0, [4, 7]),
            (1, 0, [1, 4]), // below every bound: push-down by 4 - 1 = 3
            (2, 0, [2, 4]),
            (4, 1, [2, 4]), // equal to a bound: that queue, bound unchanged
        ];
        for (i, &(rank, queue, bounds)) in trace.iter().enumerate() {
            assert_eq!(q.target(rank), queue, "arrival {i}");
            assert_eq!(q.enqueue(i as PacketId, rank, 1500), None);
            assert_eq!(q.bounds(), bounds, "after arrival {i} of rank {rank}");
        }
        // Strict priority, FIFO inside: the top queue holds 3, 4, 1, 2; the bottom 5, 7, 4.
        let ranks: Vec<u64> = std::iter::from_fn(|| q.dequeue()).map(|(_, r)| r).collect();
        assert_eq!(ranks, [3, 4, 1, 2, 5, 7, 4]);
    }

    #[test]
    fn eight_queue_trace() {
        let mut q = SpPifo::new(DEFAULT_QUEUES, DEFAULT_PER_QUEUE_PKTS);
        let mut push = |rank| {
            assert_eq!(q.enqueue(0, rank, 1500), None);
            q.bounds().to_vec()
        };
        assert_eq!(push(100), [0, 0, 0, 0, 0, 0, 0, 100]);
        assert_eq!(push(50), [0, 0, 0, 0, 0, 0, 50, 100]);
        assert_eq!(push(60), [0, 0, 0, 0, 0, 0, 60, 100]);
        assert_eq!(push(20), [0, 0, 0, 0, 0, 20, 60, 100]);
        assert_eq!(push(200), [0, 0, 0, 0, 0, 20, 60, 200]);
        assert_eq!(push(0), [0, 0, 0, 0, 0, 20, 60, 200], "0 <= every zero bound: queue 4, push-up to 0");
    }

    #[test]
    fn push_down_lowers_every_bound_by_the_inversion() {
        let mut q = SpPifo::new(3, 10);
        for rank in [30, 20, 10] {
            q.enqueue(0, rank, 1500);
        }
        assert_eq!(q.bounds(), [10, 20, 30]);
        q.enqueue(0, 4, 1500);
        assert_eq!(q.bounds(), [4, 14, 24]);
    }

    #[test]
    fn full_target_queue_drops_the_arrival_without_spill_or_adaptation() {
        let mut q = SpPifo::new(2, 2);
        q.enqueue(0, 10, 1500);
        q.enqueue(1, 10, 1500);
        assert_eq!(q.bounds(), [0, 10]);
        // Rank 15 maps to the full bottom queue: dropped, although the top queue is empty.
        assert_eq!(q.enqueue(2, 15, 1500), Some(2));
        assert_eq!(q.bounds(), [0, 10], "a dropped packet does not move the bounds");
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 3000);
        // Rank 5 maps to the top queue and is admitted.
        assert_eq!(q.enqueue(3, 5, 1500), None);
        assert_eq!(q.dequeue(), Some((3, 5)));
    }

    #[test]
    fn strict_priority_then_fifo() {
        let mut q = SpPifo::new(2, 10);
        q.enqueue(0, 50, 1500); // bottom
        q.enqueue(1, 10, 1500); // top
        q.enqueue(2, 60, 1500); // bottom
        q.enqueue(3, 20, 1500); // top
        let ids: Vec<PacketId> = std::iter::from_fn(|| q.dequeue()).map(|(id, _)| id).collect();
        assert_eq!(ids, [1, 3, 0, 2]);
        assert!(q.is_empty());
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn bounds_stay_sorted_under_random_ranks() {
        use crate::sim::rng::Rng;
        let mut rng = Rng::new(11);
        let mut q = SpPifo::new(8, 10);
        for step in 0..20_000 {
            if rng.below(2) == 0 {
                q.enqueue(step, rng.below(1_000_000), 1500);
            } else {
                q.dequeue();
            }
            assert!(q.bounds().windows(2).all(|w| w[0] <= w[1]), "step {step}: {:?}", q.bounds());
        }
    }
}
