//! PIFO: an ideal push-in first-out queue (Sivaraman et al., SIGCOMM 2016), the reference that SP-PIFO and
//! AIFO approximate (AIFO paper, section 5.1: "PIFO 80 packets").
//!
//! An arrival is pushed in at the place its rank gives it, behind every queued packet of the same rank; the
//! head (the smallest rank, the earliest among equals) leaves first. Capacity is counted in packets, as the
//! AIFO authors' simulations do. When an arrival finds the queue full, exactly one packet is dropped: the one
//! with the largest rank, the latest arrival among equals, which may be the arrival itself.
//!
//! Where this departs from the authors' code: their PIFO is a Java heap, so among equal ranks the order of
//! service and the choice of the packet to drop are whatever the heap gives; here both are by arrival order.
//! Their queue also drops once it holds `C` packets after an insertion, i.e. it keeps at most `C - 1`; this
//! one keeps `C`, the capacity it is given.
//!
//! The queue is a [`Pieo`] whose packets are all eligible at once (PIEO generalizes PIFO): a deque kept
//! sorted by rank, a binary search for the place, the head leaving from the front and a drop from the back.
//! For the tens of packets a PIFO holds, the shift on insertion is a short memmove.

use crate::net::packet::PacketId;
use crate::queue::pieo::Pieo;

/// The capacity of the AIFO paper's PIFO, in packets.
pub const DEFAULT_CAPACITY_PKTS: usize = 80;

/// Packets sorted by (rank, arrival order).
pub struct Pifo(Pieo);

impl Pifo {
    /// A PIFO holding at most `capacity_pkts` packets (at least 1).
    pub fn new(capacity_pkts: usize) -> Self {
        assert!(capacity_pkts >= 1, "a PIFO holds at least one packet");
        Pifo(Pieo::new(capacity_pkts))
    }

    /// Push `id` in by `rank`; if the queue was full, drop and return the largest rank (possibly `id`).
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, rank: u64, wire: u32) -> Option<PacketId> {
        self.0.enqueue_eligible_at(id, rank, wire, 0)
    }

    /// The head: smallest rank, earliest among equals; with its rank.
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u64)> {
        self.0.dequeue(0) // every packet was eligible from time 0: the head is the one
    }

    pub fn bytes(&self) -> u64 {
        self.0.bytes()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut Pifo) -> Vec<(PacketId, u64)> {
        std::iter::from_fn(|| q.dequeue()).collect()
    }

    #[test]
    fn dequeues_in_rank_order() {
        let mut q = Pifo::new(80);
        for (id, rank) in [(0, 50), (1, 10), (2, 30), (3, 0)] {
            assert_eq!(q.enqueue(id, rank, 1500), None);
        }
        assert_eq!(q.len(), 4);
        assert_eq!(q.bytes(), 6000);
        assert_eq!(drain(&mut q), [(3, 0), (1, 10), (2, 30), (0, 50)]);
        assert!(q.is_empty());
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn equal_ranks_leave_in_arrival_order() {
        let mut q = Pifo::new(80);
        for (id, rank) in [(0, 7), (1, 3), (2, 7), (3, 7), (4, 3)] {
            q.enqueue(id, rank, 1500);
        }
        assert_eq!(drain(&mut q), [(1, 3), (4, 3), (0, 7), (2, 7), (3, 7)]);
    }

    #[test]
    fn full_queue_drops_the_largest_rank() {
        let mut q = Pifo::new(3);
        q.enqueue(0, 10, 1500);
        q.enqueue(1, 90, 1000);
        q.enqueue(2, 40, 1500);
        assert_eq!(q.enqueue(3, 20, 1500), Some(1), "the queued 90 goes, the arrival stays");
        assert_eq!(q.len(), 3);
        assert_eq!(q.bytes(), 4500);
        assert_eq!(drain(&mut q), [(0, 10), (3, 20), (2, 40)]);
    }

    #[test]
    fn full_queue_may_drop_the_arrival() {
        let mut q = Pifo::new(2);
        q.enqueue(0, 10, 1500);
        q.enqueue(1, 20, 1500);
        assert_eq!(q.enqueue(2, 30, 1500), Some(2));
        assert_eq!(q.bytes(), 3000);
    }

    #[test]
    fn drop_ties_go_to_the_latest_arrival() {
        // The arrival ties the largest queued rank: the arrival is the later one, so it goes.
        let mut q = Pifo::new(2);
        q.enqueue(0, 10, 1500);
        q.enqueue(1, 50, 1500);
        assert_eq!(q.enqueue(2, 50, 1500), Some(2));
        // Two queued packets tie at the largest rank: the later of them goes.
        let mut q = Pifo::new(3);
        q.enqueue(0, 50, 1500);
        q.enqueue(1, 50, 1500);
        q.enqueue(2, 10, 1500);
        assert_eq!(q.enqueue(3, 20, 1500), Some(1));
        assert_eq!(drain(&mut q), [(2, 10), (3, 20), (0, 50)]);
    }

    #[test]
    fn random_operations_match_a_sorted_reference() {
        use crate::sim::rng::Rng;
        for seed in 0..100 {
            let mut rng = Rng::new(seed);
            let cap = 1 + rng.below(12) as usize;
            let mut q = Pifo::new(cap);
            // (rank, arrival, id): the rules stated plainly.
            let mut reference: Vec<(u64, u32, PacketId)> = Vec::new();
            for step in 0..500u32 {
                if rng.below(3) > 0 {
                    let rank = rng.below(10);
                    reference.push((rank, step, step));
                    let expect = if reference.len() > cap {
                        let worst = (0..reference.len()).max_by_key(|&i| (reference[i].0, reference[i].1)).unwrap();
                        Some(reference.remove(worst).2)
                    } else {
                        None
                    };
                    assert_eq!(q.enqueue(step, rank, 1500), expect, "seed {seed} step {step}");
                } else {
                    let best = (0..reference.len()).min_by_key(|&i| (reference[i].0, reference[i].1));
                    let expect = best.map(|i| {
                        let (rank, _, id) = reference.remove(i);
                        (id, rank)
                    });
                    assert_eq!(q.dequeue(), expect, "seed {seed} step {step}");
                }
                assert_eq!(q.len(), reference.len());
            }
        }
    }
}
