//! PIEO: push-in extract-out (Shrivastav, SIGCOMM 2019), one of the schedulers the AIFO paper compares under
//! fair queueing (section 5.1, Figure 14).
//!
//! PIEO generalizes PIFO: every element carries a rank and an eligibility predicate, and dequeue extracts the
//! smallest-ranked element among those *eligible* now, not merely the head. As the paper does for shaping,
//! eligibility here is a time: an entry may leave once `now >= send_at`.
//!
//! As built, PIEO runs two programs:
//! - **Fair queueing** (STFQ ranks at the port): WF2Q+ (Bennett and Zhang), PIEO's own fair-queueing example:
//!   an arrival's rank is its virtual *finish* tag (start tag + wire bytes) and it is eligible once its
//!   virtual *start* tag is at most the system virtual time V = max(V of the last departure, smallest start
//!   tag waiting). The second term (WF2Q+'s) keeps some entry eligible whenever any waits, so the port stays
//!   work-conserving with no wake-up; eligibility is in virtual time, which [`Pieo::enqueue_eligible_at`]
//!   and [`Pieo::dequeue_entry`] carry in the time field. Against PIFO with STFQ ranks (smallest start first)
//!   it serves a short packet of another flow first when both may start: mixed packet sizes tell them apart.
//!   V's first WF2Q+ term (V plus the work served over the link rate) is left out: flows have no normalized
//!   weights here, only equal shares of an unknown number of flows.
//! - **Otherwise** (SRPT or FIFO ranks): [`Pieo::enqueue`] makes a packet eligible at its enqueue, so every
//!   queued packet is eligible whenever the port asks and PIEO behaves as a PIFO. A shaped scheduler (a rate
//!   limit per flow, a deadline's earliest start) needs a later wall-clock `send_at`, and the engine to wake
//!   the port when its first entry becomes eligible: ports have no wake-up events of their own (they act when
//!   a packet joins them or the packet they sent arrives; see engine.rs).
//!
//! Capacity is counted in packets (default 80, as the paper's PIFO). When an arrival finds the queue full,
//! the packet with the largest rank is dropped, the latest arrival among equals, which may be the arrival;
//! eligibility plays no part in the choice (PIEO itself leaves overflow to the designer).
//!
//! Departure: the hardware design's sublists of sqrt(N) entries with per-sublist minimum eligibility times are
//! not modelled; a deque sorted by rank, scanned from the front for the first eligible entry, gives the same
//! order for the tens of packets a port holds.

use std::collections::VecDeque;

use crate::net::packet::PacketId;
use crate::sim::time::Time;

pub const DEFAULT_CAPACITY_PKTS: usize = 80;

#[derive(Clone, Copy, Debug)]
struct Entry {
    rank: u64,
    send_at: Time,
    id: PacketId,
    wire: u32,
}

/// Entries sorted by (rank, arrival order).
pub struct Pieo {
    entries: VecDeque<Entry>,
    capacity: usize,
    bytes: u64,
}

impl Pieo {
    /// A PIEO holding at most `capacity_pkts` packets (at least 1).
    pub fn new(capacity_pkts: usize) -> Self {
        assert!(capacity_pkts >= 1, "a PIEO holds at least one packet");
        Pieo { entries: VecDeque::with_capacity(capacity_pkts + 1), capacity: capacity_pkts, bytes: 0 }
    }

    /// Push `id` in by `rank`, eligible from `now` on (unshaped); on overflow return the packet dropped.
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, rank: u64, wire: u32, now: Time) -> Option<PacketId> {
        self.enqueue_eligible_at(id, rank, wire, now)
    }

    /// Push `id` in by `rank`, eligible from `send_at` on; if the queue was full, drop and return the largest
    /// rank (the latest arrival among equals, possibly `id`).
    #[inline]
    pub fn enqueue_eligible_at(&mut self, id: PacketId, rank: u64, wire: u32, send_at: Time) -> Option<PacketId> {
        let e = Entry { rank, send_at, id, wire };
        if self.entries.len() < self.capacity {
            self.insert(e);
            return None;
        }
        // Full: the arrival is the latest of its rank, so it goes unless a queued rank lies above it.
        if rank >= self.entries.back().expect("capacity >= 1").rank {
            return Some(id);
        }
        let dropped = self.entries.pop_back().expect("full");
        self.bytes -= dropped.wire as u64;
        self.insert(e);
        Some(dropped.id)
    }

    /// Behind every entry of a rank <= `e.rank`: FIFO among equals.
    #[inline]
    fn insert(&mut self, e: Entry) {
        let at = self.entries.partition_point(|q| q.rank <= e.rank);
        self.entries.insert(at, e);
        self.bytes += e.wire as u64;
    }

    /// Extract the smallest-ranked entry eligible at `now` (the earliest among equal ranks), with its rank.
    #[inline]
    pub fn dequeue(&mut self, now: Time) -> Option<(PacketId, u64)> {
        self.dequeue_entry(now).map(|(id, rank, _)| (id, rank))
    }

    /// As [`Pieo::dequeue`], with the entry's eligibility time too.
    #[inline]
    pub fn dequeue_entry(&mut self, now: Time) -> Option<(PacketId, u64, Time)> {
        let i = self.entries.iter().position(|e| e.send_at <= now)?;
        let e = self.entries.remove(i).expect("found");
        self.bytes -= e.wire as u64;
        Some((e.id, e.rank, e.send_at))
    }

    /// The earliest eligibility time of any entry.
    pub fn earliest_eligible(&self) -> Option<Time> {
        self.entries.iter().map(|e| e.send_at).min()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unshaped_pieo_serves_in_rank_order() {
        let mut q = Pieo::new(DEFAULT_CAPACITY_PKTS);
        for (t, (id, rank)) in [(0, 40), (1, 10), (2, 40), (3, 25)].into_iter().enumerate() {
            assert_eq!(q.enqueue(id, rank, 1500, t as Time * 100), None);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(1_000)).collect();
        assert_eq!(order, [(1, 10), (3, 25), (0, 40), (2, 40)]);
        assert!(q.is_empty());
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn enqueued_packets_are_eligible_at_once() {
        let mut q = Pieo::new(8);
        q.enqueue(0, 5, 1500, 700);
        assert_eq!(q.dequeue(700), Some((0, 5)));
    }

    #[test]
    fn extracts_the_smallest_rank_among_eligible_entries() {
        let mut q = Pieo::new(8);
        q.enqueue_eligible_at(0, 10, 1500, 500); // best rank, not yet eligible
        q.enqueue_eligible_at(1, 30, 1500, 0);
        q.enqueue_eligible_at(2, 20, 1500, 100);
        assert_eq!(q.dequeue(50), Some((1, 30)), "only rank 30 is eligible at 50");
        assert_eq!(q.dequeue(200), Some((2, 20)));
        assert_eq!(q.dequeue(200), None, "rank 10 waits for 500");
        assert_eq!(q.len(), 1);
        assert_eq!(q.dequeue(500), Some((0, 10)));
    }

    #[test]
    fn full_queue_drops_the_largest_rank_latest_first() {
        let mut q = Pieo::new(3);
        q.enqueue(0, 50, 1500, 0);
        q.enqueue(1, 50, 1000, 0);
        q.enqueue(2, 10, 1500, 0);
        assert_eq!(q.enqueue(3, 20, 1500, 0), Some(1), "the later of the two 50s");
        assert_eq!(q.bytes(), 4500);
        assert_eq!(q.enqueue(4, 50, 1500, 0), Some(4), "an arrival tying the largest rank is the latest");
        assert_eq!(q.enqueue(5, 90, 1500, 0), Some(5));
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(0)).map(|(id, _)| id).collect();
        assert_eq!(order, [2, 3, 0]);
    }
}
