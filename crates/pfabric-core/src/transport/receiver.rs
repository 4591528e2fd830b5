//! The receiving half of a flow: records which packets arrived and acknowledges every one.

use super::bitset::BitSet;

/// The `seq` of a probe and of the ACK that answers it: carries no SACK block.
pub const PROBE_SEQ: u32 = u32::MAX;

pub struct Receiver {
    got: BitSet,
    /// Next packet index expected in order: the cumulative ACK.
    pub cum: u32,
    npkts: u32,
    /// Data packets that arrived although already received (spurious retransmissions).
    pub duplicates: u32,
}

impl Receiver {
    pub fn new(npkts: u32) -> Self {
        Receiver { got: BitSet::with_len(npkts as usize), cum: 0, npkts, duplicates: 0 }
    }

    /// Packet `seq` arrived (`PROBE_SEQ` for a probe). Returns true when this arrival completes the flow.
    pub fn on_packet(&mut self, seq: u32) -> bool {
        if seq == PROBE_SEQ || self.is_complete() {
            if seq != PROBE_SEQ {
                self.duplicates += 1;
            }
            return false;
        }
        if !self.got.set(seq) {
            self.duplicates += 1;
            return false;
        }
        while self.cum < self.npkts && self.got.get(self.cum) {
            self.cum += 1;
        }
        self.is_complete()
    }

    pub fn is_complete(&self) -> bool {
        self.cum == self.npkts
    }
}
