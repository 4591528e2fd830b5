//! The receiving half of a flow: records which packets arrived and acknowledges every one.

use super::bitset::BitSet;

/// The `seq` of a probe and of the ACK that answers it: carries no SACK block.
pub const PROBE_SEQ: u32 = u32::MAX;

/// What an arriving packet meant to the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A probe, or data already received.
    Old,
    /// New data.
    New,
    /// New data that completes the flow.
    Completes,
}

pub struct Receiver {
    got: BitSet,
    /// Next packet index expected in order: the cumulative ACK.
    pub cum: u32,
    npkts: u32,
    /// Data packets that arrived although already received (spurious retransmissions).
    pub duplicates: u32,
    /// One past the highest packet index received so far.
    highest: u32,
    /// First transmissions that arrived after a packet with a higher index: reordering in the network, not
    /// loss recovery (retransmissions are left out).
    pub out_of_order: u32,
}

impl Receiver {
    pub fn new(npkts: u32) -> Self {
        Receiver { got: BitSet::with_len(npkts as usize), cum: 0, npkts, duplicates: 0, highest: 0, out_of_order: 0 }
    }

    /// Packet `seq` arrived (`PROBE_SEQ` for a probe).
    pub fn on_packet(&mut self, seq: u32) -> Arrival {
        if seq == PROBE_SEQ {
            return Arrival::Old;
        }
        if self.is_complete() || !self.got.set(seq) {
            self.duplicates += 1;
            return Arrival::Old;
        }
        while self.cum < self.npkts && self.got.get(self.cum) {
            self.cum += 1;
        }
        if self.is_complete() {
            Arrival::Completes
        } else {
            Arrival::New
        }
    }

    /// Note the order of a data packet's arrival (`retransmit`: it is a retransmission).
    pub fn note_order(&mut self, seq: u32, retransmit: bool) {
        if seq == PROBE_SEQ {
            return;
        }
        if seq < self.highest {
            if !retransmit {
                self.out_of_order += 1;
            }
        } else {
            self.highest = seq + 1;
        }
    }

    pub fn is_complete(&self) -> bool {
        self.cum == self.npkts
    }
}
