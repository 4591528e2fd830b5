//! The AIFO authors' PIFO as their simulator builds it (netx-repo/AIFO @333c214, PIFOQueue.java over
//! java.util.concurrent.PriorityBlockingQueue): a binary heap ordered by rank alone (`pifo` with
//! `ties = "heap"`).
//!
//! Two things set it apart from the exact PIFO of `pifo.rs`, and both come from the data structure, not from
//! PIFO as its paper defines it:
//! * Among equal ranks the order of service is the heap's, not the arrival order: an element sifted down from
//!   the end of the array stops above an equal child, so a later arrival can leave before an earlier one of the
//!   same rank. Equal ranks are common under SRPT stamps over a step CDF (flows of one size at the same stage)
//!   and between a flow's handshake ACK and its first data packet, which carry the same rank.
//! * The queue keeps at most `capacity - 1` packets: after an insertion that brings it to `capacity`, the
//!   largest rank leaves, chosen as the last element of a stable sort of the heap's array (among equal largest
//!   ranks, the one furthest along the array), possibly the arrival itself.
//!
//! The sifts below are the JDK's (`siftUpComparable`, `siftDownComparable`, `removeAt`), with ranks compared as
//! unsigned integers (the authors' `compareTo` casts ranks to `int`, which changes nothing for ranks below 2^31,
//! such as the remaining bytes of the AIFO figures' flows).

use crate::net::packet::PacketId;

#[derive(Clone, Copy)]
struct Entry {
    rank: u64,
    id: PacketId,
    wire: u32,
}

pub struct HeapPifo {
    heap: Vec<Entry>,
    capacity_pkts: usize,
    bytes: u64,
}

impl HeapPifo {
    /// A heap PIFO given `capacity_pkts` (at least 2: it keeps at most one less).
    pub fn new(capacity_pkts: usize) -> Self {
        assert!(capacity_pkts >= 2, "a heap PIFO keeps capacity - 1 packets, so its capacity is at least 2");
        HeapPifo { heap: Vec::with_capacity(capacity_pkts), capacity_pkts, bytes: 0 }
    }

    /// Insert `id` by `rank` (`offer`, then sift up); if the queue now holds `capacity` packets, drop and return
    /// the largest rank, the last of equals in array order (possibly `id`).
    pub fn enqueue(&mut self, id: PacketId, rank: u64, wire: u32) -> Option<PacketId> {
        let k = self.heap.len();
        self.heap.push(Entry { rank, id, wire });
        self.sift_up(k);
        self.bytes += wire as u64;
        if self.heap.len() < self.capacity_pkts {
            return None;
        }
        // Arrays.sort is stable: its last element is the largest rank furthest along the array.
        let mut worst = 0;
        for (i, e) in self.heap.iter().enumerate() {
            if e.rank >= self.heap[worst].rank {
                worst = i;
            }
        }
        let dropped = self.remove_at(worst);
        self.bytes -= dropped.wire as u64;
        Some(dropped.id)
    }

    /// The root, with its rank (`poll`: the last element moves to the root and sifts down).
    pub fn dequeue(&mut self) -> Option<(PacketId, u64)> {
        if self.heap.is_empty() {
            return None;
        }
        let head = self.remove_at(0);
        self.bytes -= head.wire as u64;
        Some((head.id, head.rank))
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The JDK's `removeAt`: the last element fills slot `i` and sifts down, or up if it did not move.
    fn remove_at(&mut self, i: usize) -> Entry {
        let last = self.heap.pop().expect("remove_at on an empty heap");
        if i == self.heap.len() {
            return last;
        }
        let removed = self.heap[i];
        self.heap[i] = last;
        if self.sift_down(i) == i {
            self.sift_up(i);
        }
        removed
    }

    /// Move the element at `k` up while it is strictly smaller than its parent; returns where it ends.
    fn sift_up(&mut self, mut k: usize) -> usize {
        let key = self.heap[k];
        while k > 0 {
            let parent = (k - 1) / 2;
            if key.rank >= self.heap[parent].rank {
                break;
            }
            self.heap[k] = self.heap[parent];
            k = parent;
        }
        self.heap[k] = key;
        k
    }

    /// Move the element at `k` down while a child is strictly smaller (the right child only where it is
    /// strictly smaller than the left); returns where it ends.
    fn sift_down(&mut self, mut k: usize) -> usize {
        let n = self.heap.len();
        let key = self.heap[k];
        while k < n / 2 {
            let mut child = 2 * k + 1;
            if child + 1 < n && self.heap[child].rank > self.heap[child + 1].rank {
                child += 1;
            }
            if key.rank <= self.heap[child].rank {
                break;
            }
            self.heap[k] = self.heap[child];
            k = child;
        }
        self.heap[k] = key;
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(q: &mut HeapPifo) -> Vec<(PacketId, u64)> {
        std::iter::from_fn(|| q.dequeue()).collect()
    }

    #[test]
    fn serves_by_rank() {
        let mut q = HeapPifo::new(80);
        for (id, rank) in [(0, 50), (1, 10), (2, 30), (3, 20), (4, 40)] {
            assert_eq!(q.enqueue(id, rank, 1500), None);
        }
        assert_eq!(drain(&mut q).iter().map(|x| x.1).collect::<Vec<_>>(), [10, 20, 30, 40, 50]);
        assert_eq!(q.bytes(), 0);
    }

    /// java.util.PriorityQueue's order for these arrivals, worked by hand: a, b, c (rank 1) stay where they land;
    /// d (rank 0) sifts to the root, [d, a, c, b]. Polling d moves b (the last) to the root, where it stays above
    /// its equal children; polling b moves c up the same way. So the rank-1 packets leave b, c, a, not a, b, c.
    #[test]
    fn equal_ranks_leave_in_the_heaps_order_not_by_arrival() {
        let mut q = HeapPifo::new(80);
        for (id, rank) in [(10, 1), (11, 1), (12, 1), (13, 0)] {
            q.enqueue(id, rank, 100);
        }
        assert_eq!(drain(&mut q), [(13, 0), (11, 1), (12, 1), (10, 1)]);
    }

    /// It keeps capacity - 1: the arrival that fills the last place drops the largest rank, the one furthest
    /// along the array among equals (here the arrival itself).
    #[test]
    fn keeps_one_less_than_its_capacity_and_drops_the_largest_rank() {
        let mut q = HeapPifo::new(3);
        assert_eq!(q.enqueue(0, 5, 100), None);
        assert_eq!(q.enqueue(1, 9, 100), None);
        assert_eq!(q.enqueue(2, 1, 100), Some(1)); // holds 3 = capacity: rank 9 goes
        assert_eq!(q.enqueue(3, 5, 100), Some(3)); // ranks 1, 5, 5: the later 5 (the arrival, last) goes
        assert_eq!((q.len(), q.bytes()), (2, 200));
        assert_eq!(drain(&mut q), [(2, 1), (0, 5)]);
    }

    /// Against a model: the root is always a smallest rank, nothing is lost or made up, it never holds its
    /// capacity, and the byte count follows.
    #[test]
    fn conserves_packets_and_serves_ranks_in_order() {
        let mut q = HeapPifo::new(16);
        let mut state = 12345u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let mut inside = std::collections::HashSet::new();
        for id in 0..2000u32 {
            if next() % 3 == 0 {
                if let Some((out, _)) = q.dequeue() {
                    assert!(inside.remove(&out));
                }
            } else {
                inside.insert(id);
                if let Some(d) = q.enqueue(id, next() % 8, 100) {
                    assert!(inside.remove(&d));
                }
            }
            assert_eq!(q.len(), inside.len());
            assert!(q.len() < 16);
            assert_eq!(q.bytes(), 100 * q.len() as u64);
            // The root is a smallest rank.
            if let Some(min) = q.heap.iter().map(|e| e.rank).min() {
                assert_eq!(q.heap[0].rank, min);
            }
        }
    }
}
