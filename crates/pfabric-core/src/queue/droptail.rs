//! DropTail: one FIFO with a byte limit; optionally marks ECN (DCTCP's switch).
//!
//! An arrival that would take the queue over its byte limit is dropped. With a marking threshold K, an admitted
//! packet is marked Congestion Experienced when the queue, counting the arrival, holds more than K bytes: the
//! instantaneous-queue marking that DCTCP (Alizadeh et al., SIGCOMM 2010) prescribes.

use std::collections::VecDeque;

use crate::net::packet::{PacketId, PacketPool};

pub struct DropTail {
    fifo: VecDeque<(PacketId, u32)>,
    bytes: u64,
    limit_bytes: u64,
    /// Mark above this many bytes; u64::MAX: never (kept plain so that the queue stays small).
    mark_above_bytes: u64,
}

impl DropTail {
    pub fn new(limit_bytes: u64, mark_above_bytes: Option<u64>) -> Self {
        DropTail {
            fifo: VecDeque::new(),
            bytes: 0,
            limit_bytes,
            mark_above_bytes: mark_above_bytes.unwrap_or(u64::MAX),
        }
    }

    /// Admit or drop `id`; returns the dropped packet, if any (always the arrival).
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool) -> Option<PacketId> {
        let wire = pool.get(id).wire as u64;
        if self.bytes + wire > self.limit_bytes {
            return Some(id);
        }
        self.bytes += wire;
        if self.bytes > self.mark_above_bytes {
            pool.get_mut(id).ce = true;
        }
        self.fifo.push_back((id, wire as u32));
        None
    }

    /// The next packet and its wire size (kept here so that the packet itself is not touched).
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        let (id, wire) = self.fifo.pop_front()?;
        self.bytes -= wire as u64;
        Some((id, wire))
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    pub fn len(&self) -> usize {
        self.fifo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::testing::data_packet;

    #[test]
    fn drops_the_arrival_that_overflows() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(3000, None);
        let a = pool.alloc(data_packet(0, 0, 1));
        let b = pool.alloc(data_packet(0, 1, 1));
        let c = pool.alloc(data_packet(0, 2, 1));
        assert_eq!(q.enqueue(a, &mut pool), None);
        assert_eq!(q.enqueue(b, &mut pool), None);
        assert_eq!(q.enqueue(c, &mut pool), Some(c));
        assert_eq!(q.dequeue().map(|d| d.0), Some(a));
        assert_eq!(q.dequeue().map(|d| d.0), Some(b));
        assert_eq!(q.dequeue().map(|d| d.0), None);
        assert_eq!(q.bytes(), 0);
    }

    #[test]
    fn marks_above_threshold() {
        let mut pool = PacketPool::new();
        let mut q = DropTail::new(100_000, Some(3000));
        let ids: Vec<_> = (0..3).map(|i| pool.alloc(data_packet(0, i, 1))).collect();
        for &id in &ids {
            q.enqueue(id, &mut pool);
        }
        let marks: Vec<bool> = ids.iter().map(|&i| pool.get(i).ce).collect();
        assert_eq!(marks, vec![false, false, true]);
    }
}
