//! pFabric's switch port (section 4.1 of the paper, with the tie-breaks of the authors' ns-2 code).
//!
//! Buffer counted in bytes. On arrival the packet is enqueued; if the queue is then over its limit, exactly
//! one packet is dropped: the one with the largest priority number (the least urgent), the latest enqueued
//! among equals, which may be the arrival itself. Dequeue finds the packet with the smallest priority number
//! (the earliest enqueued among equals) and then sends the *earliest-enqueued packet of that packet's flow*:
//! this starvation prevention keeps a flow's packets in order even when its priority number changed while they
//! waited (remaining size shrinks as a flow progresses, so later packets carry smaller numbers).
//!
//! The queue is a small array in arrival order, scanned on each operation: pFabric's buffers hold a few tens of
//! packets, where a scan beats any tree; it stays correct (O(n) per operation) for thousands.

use crate::net::packet::{PacketId, PacketPool};

/// A queued packet: what the scans read, next to the packet's id.
#[derive(Clone, Copy, Debug)]
struct Entry {
    priority: u64,
    flow: u32,
    id: PacketId,
    wire: u32,
}

/// Packets in arrival order.
pub struct PfabricQueue {
    entries: Vec<Entry>,
    bytes: u64,
    limit_bytes: u64,
}

impl PfabricQueue {
    pub fn new(limit_bytes: u64) -> Self {
        PfabricQueue { entries: Vec::with_capacity(32), bytes: 0, limit_bytes }
    }

    #[inline]
    fn remove(&mut self, i: usize) -> (PacketId, u32) {
        let e = self.entries.remove(i);
        self.bytes -= e.wire as u64;
        (e.id, e.wire)
    }

    /// Enqueue `id`; if over the limit, drop and return the least urgent packet (possibly `id`).
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, pool: &PacketPool) -> Option<PacketId> {
        let p = pool.get(id);
        self.entries.push(Entry { priority: p.priority, flow: p.flow, id, wire: p.wire });
        self.bytes += p.wire as u64;
        if self.bytes <= self.limit_bytes {
            return None;
        }
        // The largest priority number; among equals the latest enqueued (the last in arrival order).
        let mut worst = 0;
        let mut worst_prio = 0;
        for (i, e) in self.entries.iter().enumerate() {
            let not_less = e.priority >= worst_prio;
            worst = std::hint::select_unpredictable(not_less, i, worst);
            worst_prio = std::hint::select_unpredictable(not_less, e.priority, worst_prio);
        }
        Some(self.remove(worst).0)
    }

    /// The next packet and its wire size.
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let first = self.entries.first()?;
        // The most urgent packet: the smallest priority number, the earliest among equals.
        let mut best = 0;
        let mut best_prio = first.priority;
        // Selects, not branches: where the running minimum changes follows no pattern, and as a branch it was
        // mispredicted a few times per scan.
        for (i, e) in self.entries.iter().enumerate().skip(1) {
            let less = e.priority < best_prio;
            best = std::hint::select_unpredictable(less, i, best);
            best_prio = std::hint::select_unpredictable(less, e.priority, best_prio);
        }
        // Starvation prevention: the earliest-enqueued packet of that flow, at or before `best`.
        let flow = self.entries[best].flow;
        let send = self.entries[..=best].iter().position(|e| e.flow == flow).unwrap_or(best);
        Some(self.remove(send))
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::data_packet;

    fn push(
        q: &mut PfabricQueue,
        pool: &mut PacketPool,
        flow: u32,
        seq: u32,
        prio: u64,
    ) -> (PacketId, Option<PacketId>) {
        let id = pool.alloc(data_packet(flow, seq, prio));
        (id, q.enqueue(id, pool))
    }

    #[test]
    fn dequeues_smallest_priority_first() {
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(100_000);
        let (a, _) = push(&mut q, &mut pool, 1, 0, 50);
        let (b, _) = push(&mut q, &mut pool, 2, 0, 10);
        let (c, _) = push(&mut q, &mut pool, 3, 0, 30);
        assert_eq!(q.dequeue().map(|d| d.0), Some(b));
        assert_eq!(q.dequeue().map(|d| d.0), Some(c));
        assert_eq!(q.dequeue().map(|d| d.0), Some(a));
        assert_eq!(q.dequeue().map(|d| d.0), None);
    }

    #[test]
    fn equal_priorities_leave_in_arrival_order() {
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(100_000);
        let (a, _) = push(&mut q, &mut pool, 1, 0, 7);
        let (b, _) = push(&mut q, &mut pool, 2, 0, 7);
        let (c, _) = push(&mut q, &mut pool, 3, 0, 7);
        assert_eq!(
            [q.dequeue().map(|d| d.0), q.dequeue().map(|d| d.0), q.dequeue().map(|d| d.0)],
            [Some(a), Some(b), Some(c)]
        );
    }

    #[test]
    fn starvation_prevention_sends_the_flows_earliest_packet() {
        // Flow 1's first packet carries 100 (remaining size then), its later one 20. The minimum is the later
        // packet, but the earliest packet of that flow goes first, although its number is larger than the
        // other flow's 50.
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(100_000);
        let (first, _) = push(&mut q, &mut pool, 1, 0, 100);
        let (other, _) = push(&mut q, &mut pool, 2, 0, 50);
        let (later, _) = push(&mut q, &mut pool, 1, 1, 20);
        assert_eq!(q.dequeue().map(|d| d.0), Some(first));
        assert!(pool.get(first).priority > pool.get(other).priority);
        assert_eq!(q.dequeue().map(|d| d.0), Some(later));
        assert_eq!(q.dequeue().map(|d| d.0), Some(other));
    }

    #[test]
    fn overflow_drops_the_largest_priority_number() {
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(3000); // two full packets
        let (_a, _) = push(&mut q, &mut pool, 1, 0, 10);
        let (b, _) = push(&mut q, &mut pool, 2, 0, 90);
        let (_c, dropped) = push(&mut q, &mut pool, 3, 0, 40);
        assert_eq!(dropped, Some(b));
        assert_eq!(q.len(), 2);
        assert_eq!(q.bytes(), 3000);
    }

    #[test]
    fn overflow_may_drop_the_arrival() {
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(3000);
        push(&mut q, &mut pool, 1, 0, 10);
        push(&mut q, &mut pool, 2, 0, 20);
        let (c, dropped) = push(&mut q, &mut pool, 3, 0, 30);
        assert_eq!(dropped, Some(c));
    }

    #[test]
    fn overflow_tie_drops_the_latest_enqueued() {
        let mut pool = PacketPool::new();
        let mut q = PfabricQueue::new(3000);
        push(&mut q, &mut pool, 1, 0, 10);
        let (_b, _) = push(&mut q, &mut pool, 2, 0, 50);
        let (c, dropped) = push(&mut q, &mut pool, 3, 0, 50);
        assert_eq!(dropped, Some(c), "equal numbers: the later arrival goes");
        let mut q = PfabricQueue::new(3000);
        push(&mut q, &mut pool, 1, 0, 50);
        let (b, _) = push(&mut q, &mut pool, 2, 0, 50);
        let (_c, dropped) = push(&mut q, &mut pool, 3, 0, 10);
        assert_eq!(dropped, Some(b), "among queued equals, the latest enqueued goes");
    }

    /// The rules stated plainly, over a list kept in no particular order, for the property test below.
    struct Reference {
        packets: Vec<(u64, u64, u32, PacketId, u32)>, // (priority, arrival order, flow, id, wire)
        limit: u64,
        next: u64,
    }

    impl Reference {
        fn bytes(&self) -> u64 {
            self.packets.iter().map(|p| p.4 as u64).sum()
        }

        fn enqueue(&mut self, priority: u64, flow: u32, id: PacketId, wire: u32) -> Option<PacketId> {
            self.packets.push((priority, self.next, flow, id, wire));
            self.next += 1;
            if self.bytes() <= self.limit {
                return None;
            }
            // Largest priority number; among equals, the latest arrival.
            let worst = (0..self.packets.len()).max_by_key(|&i| (self.packets[i].0, self.packets[i].1)).unwrap();
            Some(self.packets.remove(worst).3)
        }

        fn dequeue(&mut self) -> Option<PacketId> {
            let best = (0..self.packets.len()).min_by_key(|&i| (self.packets[i].0, self.packets[i].1))?;
            let flow = self.packets[best].2;
            let first =
                (0..self.packets.len()).filter(|&i| self.packets[i].2 == flow).min_by_key(|&i| self.packets[i].1)?;
            Some(self.packets.remove(first).3)
        }
    }

    #[test]
    fn random_operations_match_the_reference_model() {
        use crate::sim::rng::Rng;
        for seed in 0..200 {
            let mut rng = Rng::new(seed);
            let limit = 1500 * (1 + rng.below(40));
            let mut q = PfabricQueue::new(limit);
            let mut reference = Reference { packets: Vec::new(), limit, next: 0 };
            let mut pool = PacketPool::new();
            let flows = 1 + rng.below(6) as u32;
            let priorities = 1 + rng.below(20);
            for step in 0..400u32 {
                if rng.below(3) > 0 {
                    let flow = rng.below(flows as u64) as u32;
                    let mut p = data_packet(flow, step, rng.below(priorities));
                    if rng.below(4) == 0 {
                        p.payload = 1 + rng.below(1459) as u32;
                        p.wire = p.payload + 40;
                    }
                    let id = pool.alloc(p);
                    let got = q.enqueue(id, &pool);
                    assert_eq!(got, reference.enqueue(p.priority, flow, id, p.wire), "seed {seed} step {step}");
                } else {
                    assert_eq!(q.dequeue().map(|d| d.0), reference.dequeue(), "seed {seed} step {step}");
                }
                assert_eq!(q.bytes(), reference.bytes());
                assert_eq!(q.len(), reference.packets.len());
            }
        }
    }
}
