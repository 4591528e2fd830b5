//! Port disciplines: what a port's queue admits, drops and sends next. One file per discipline; the closed set
//! dispatches through the [`Queue`] enum (no vtable per packet).

pub mod droptail;
pub mod pfabric;
pub mod prio_thresholds;

use crate::net::packet::{PacketId, PacketPool};

pub use droptail::DropTail;
pub use pfabric::PfabricQueue;
pub use prio_thresholds::PrioThresholds;

/// How to build the queue of every port of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueConfig {
    DropTail { limit_bytes: u64, mark_above_bytes: Option<u64> },
    Pfabric { limit_bytes: u64 },
    PrioThresholds { thresholds: Vec<u64>, limit_bytes: u64, reserved_bytes: u64 },
}

impl QueueConfig {
    pub fn build(&self) -> Queue {
        match *self {
            QueueConfig::DropTail { limit_bytes, mark_above_bytes } => {
                Queue::DropTail(DropTail::new(limit_bytes, mark_above_bytes))
            }
            QueueConfig::Pfabric { limit_bytes } => Queue::Pfabric(PfabricQueue::new(limit_bytes)),
            QueueConfig::PrioThresholds { ref thresholds, limit_bytes, reserved_bytes } => {
                Queue::PrioThresholds(PrioThresholds::new(thresholds.clone(), limit_bytes, reserved_bytes))
            }
        }
    }
}

pub enum Queue {
    DropTail(DropTail),
    Pfabric(PfabricQueue),
    PrioThresholds(PrioThresholds),
}

impl Queue {
    /// Offer packet `id`; returns the packet dropped to make room, if any (the arrival or another).
    #[inline]
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool) -> Option<PacketId> {
        match self {
            Queue::DropTail(q) => q.enqueue(id, pool),
            Queue::Pfabric(q) => q.enqueue(id, pool),
            Queue::PrioThresholds(q) => q.enqueue(id, pool),
        }
    }

    /// The next packet to send and its wire size.
    #[inline]
    pub fn dequeue(&mut self) -> Option<(PacketId, u32)> {
        match self {
            Queue::DropTail(q) => q.dequeue(),
            Queue::Pfabric(q) => q.dequeue(),
            Queue::PrioThresholds(q) => q.dequeue(),
        }
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.bytes(),
            Queue::Pfabric(q) => q.bytes(),
            Queue::PrioThresholds(q) => q.bytes(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        match self {
            Queue::DropTail(q) => q.is_empty(),
            Queue::Pfabric(q) => q.is_empty(),
            Queue::PrioThresholds(q) => q.is_empty(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use crate::net::packet::{Packet, PacketKind, MSS_BYTES};

    /// A full data packet of `flow` with index `seq` and the given priority number.
    pub fn data_packet(flow: u32, seq: u32, priority: u64) -> Packet {
        Packet {
            priority,
            sent_at: 0,
            flow,
            seq,
            ack: 0,
            src: 0,
            dst: 1,
            payload: MSS_BYTES,
            wire: MSS_BYTES + 40,
            kind: PacketKind::Data,
            ce: false,
            ece: false,
            retransmit: false,
        }
    }
}
