//! A few strict-priority FIFOs per port with a shared buffer (section 6 of the pFabric paper, Figure 17).
//!
//! A packet joins the queue its priority number selects against a list of thresholds (queue 0 for numbers up
//! to the first threshold, and so on; ACKs carry 0 and join queue 0). Hosts stamp the flow's size as the
//! number, so each flow stays in one queue and its packets in order. The queues share one buffer: each has a
//! reserved part (15 KB in the paper) and the rest is a pool taken first come, first served; an arrival that
//! fits neither its queue's reserve nor the pool is dropped. The port sends from the highest-priority
//! non-empty queue, FIFO within it.
//!
//! PIAS (Bai et al., NSDI 2015) runs the same port under DCTCP hosts that stamp the bytes a flow has sent, so
//! a flow is demoted queue by queue as it sends; the port then marks ECN as DropTail does for DCTCP: an admitted
//! packet is marked Congestion Experienced when the port, counting the arrival, holds more than K bytes (one
//! threshold for the port, over all its queues).

use std::collections::VecDeque;

use crate::net::packet::{PacketId, PacketPool};

pub struct PrioThresholds {
    /// Upper bounds (inclusive) of the priority numbers of queues 0..n-1; the last queue takes the rest.
    thresholds: Vec<u64>,
    queues: Vec<VecDeque<(PacketId, u32)>>,
    queue_bytes: Vec<u64>,
    reserved_bytes: u64,
    /// Bytes of the shared pool in use: the sum over queues of what exceeds their reserve.
    shared_used: u64,
    shared_bytes: u64,
    bytes: u64,
    /// Mark above this many bytes at the port; u64::MAX: never.
    mark_above_bytes: u64,
}

impl PrioThresholds {
    /// `thresholds.len() + 1` queues sharing `limit_bytes`, `reserved_bytes` of it set aside for each; ECN marks
    /// above `mark_above_bytes` at the port, if given.
    pub fn new(thresholds: Vec<u64>, limit_bytes: u64, reserved_bytes: u64, mark_above_bytes: Option<u64>) -> Self {
        let n = thresholds.len() + 1;
        PrioThresholds {
            thresholds,
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            queue_bytes: vec![0; n],
            reserved_bytes,
            shared_used: 0,
            shared_bytes: limit_bytes.saturating_sub(n as u64 * reserved_bytes),
            bytes: 0,
            mark_above_bytes: mark_above_bytes.unwrap_or(u64::MAX),
        }
    }

    /// The queue a priority number goes to.
    #[inline]
    pub fn class_of(&self, priority: u64) -> usize {
        self.thresholds.partition_point(|&t| t < priority)
    }

    /// Bytes a queue holding `bytes` takes from the shared pool.
    #[inline]
    fn over_reserve(&self, bytes: u64) -> u64 {
        bytes.saturating_sub(self.reserved_bytes)
    }

    #[inline]
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool) -> Option<PacketId> {
        let p = pool.get(id);
        let q = self.class_of(p.priority);
        let wire = p.wire as u64;
        let before = self.queue_bytes[q];
        let extra = self.over_reserve(before + wire) - self.over_reserve(before);
        if self.shared_used + extra > self.shared_bytes {
            return Some(id);
        }
        self.shared_used += extra;
        self.queue_bytes[q] += wire;
        self.bytes += wire;
        self.queues[q].push_back((id, wire as u32));
        if self.bytes > self.mark_above_bytes {
            pool.get_mut(id).ce = true;
        }
        None
    }

    /// The next packet and its wire size.
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let q = self.queues.iter().position(|q| !q.is_empty())?;
        let (id, wire) = self.queues[q].pop_front().unwrap();
        let before = self.queue_bytes[q];
        self.shared_used -= self.over_reserve(before) - self.over_reserve(before - wire as u64);
        self.queue_bytes[q] -= wire as u64;
        self.bytes -= wire as u64;
        Some((id, wire))
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0 && self.queues.iter().all(|q| q.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::Packet;
    use crate::queue::testing::data_packet;

    fn offer(q: &mut PrioThresholds, pool: &mut PacketPool, packet: Packet) -> Option<PacketId> {
        let id = pool.alloc(packet);
        q.enqueue(id, pool)
    }

    #[test]
    fn classes_follow_the_thresholds() {
        let q = PrioThresholds::new(vec![100, 1000], 225_000, 15_000, None);
        assert_eq!(
            [q.class_of(0), q.class_of(100), q.class_of(101), q.class_of(1000), q.class_of(5000)],
            [0, 0, 1, 1, 2]
        );
    }

    #[test]
    fn strict_priority_then_fifo() {
        let mut pool = PacketPool::new();
        let mut q = PrioThresholds::new(vec![100], 225_000, 15_000, None);
        let low1 = pool.alloc(data_packet(1, 0, 500));
        let high = pool.alloc(data_packet(2, 0, 50));
        let low2 = pool.alloc(data_packet(1, 1, 500));
        for id in [low1, high, low2] {
            assert_eq!(q.enqueue(id, &mut pool), None);
        }
        assert_eq!(
            [q.dequeue().map(|d| d.0), q.dequeue().map(|d| d.0), q.dequeue().map(|d| d.0), q.dequeue().map(|d| d.0)],
            [Some(high), Some(low1), Some(low2), None]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn reserves_hold_when_the_shared_pool_is_full() {
        // 2 queues, 6000 B in all, 1500 B reserved each: 3000 B shared.
        let mut pool = PacketPool::new();
        let mut q = PrioThresholds::new(vec![100], 6000, 1500, None);
        // The low queue takes its reserve and the whole pool (3 packets), then is refused.
        for i in 0..3 {
            assert_eq!(offer(&mut q, &mut pool, data_packet(1, i, 500)), None);
        }
        let refused = pool.alloc(data_packet(1, 3, 500));
        assert_eq!(q.enqueue(refused, &mut pool), Some(refused));
        // The high queue still has its reserve: one packet, not two.
        assert_eq!(offer(&mut q, &mut pool, data_packet(2, 0, 50)), None);
        let second = pool.alloc(data_packet(2, 1, 50));
        assert_eq!(q.enqueue(second, &mut pool), Some(second));
        // Draining the low queue frees the pool for the high one.
        q.dequeue().map(|d| d.0); // high
        q.dequeue().map(|d| d.0); // low: back within its reserve plus one pooled packet
        assert_eq!(offer(&mut q, &mut pool, data_packet(2, 2, 50)), None);
        assert_eq!(offer(&mut q, &mut pool, data_packet(2, 3, 50)), None);
        assert_eq!(q.bytes(), 4 * 1500);
    }

    #[test]
    fn marks_when_the_port_holds_more_than_the_threshold() {
        // Marking counts the whole port, every queue: the third 1,500-byte packet takes it over 2,000 bytes.
        let mut pool = PacketPool::new();
        let mut q = PrioThresholds::new(vec![100], 225_000, 0, Some(2000));
        let ids: Vec<PacketId> = [(1, 500), (2, 50), (1, 500)]
            .iter()
            .enumerate()
            .map(|(i, &(flow, priority))| {
                let id = pool.alloc(data_packet(flow, i as u32, priority));
                assert_eq!(q.enqueue(id, &mut pool), None);
                id
            })
            .collect();
        let marks: Vec<bool> = ids.iter().map(|&i| pool.get(i).ce).collect();
        assert_eq!(marks, vec![false, true, true]);
    }
}
