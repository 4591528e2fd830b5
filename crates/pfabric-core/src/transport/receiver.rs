//! The receiving half of a flow: records which packets arrived and acknowledges every one.

use super::bitset::BitSet;

/// The `seq` of a probe and of the ACK that answers it: carries no SACK block.
pub const PROBE_SEQ: u32 = u32::MAX;
/// The `seq` of the handshake's final ACK (sender to receiver, after the SYN's answer): nothing answers it.
pub const HANDSHAKE_ACK_SEQ: u32 = u32::MAX - 1;

/// What an arriving packet meant to the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A probe, or data already received.
    Old,
    /// New data.
    New,
    /// New data that completes the flow.
    Completes,
    /// Nothing to acknowledge: the handshake's final ACK, or data that came before it (refused).
    Silent,
}

impl Arrival {
    /// Whether it brought data the receiver did not hold.
    #[inline(always)]
    pub fn is_new_data(self) -> bool {
        matches!(self, Arrival::New | Arrival::Completes)
    }
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
    /// The three-way handshake (`handshake` on TCP-like hosts) is not complete: data is refused until the
    /// sender's final ACK arrives, as netbench's socket ignores data before it is established.
    awaiting_handshake: bool,
    /// Data packets refused because they overtook the handshake's final ACK.
    pub refused: u32,
}

impl Receiver {
    /// The receiving half of a flow of `npkts` packets; `awaiting_handshake`: it takes data only after the
    /// handshake's final ACK.
    pub fn new(npkts: u32, awaiting_handshake: bool) -> Self {
        Receiver {
            got: BitSet::with_len(npkts as usize),
            cum: 0,
            npkts,
            duplicates: 0,
            highest: 0,
            out_of_order: 0,
            awaiting_handshake,
            refused: 0,
        }
    }

    /// Packet `seq` arrived (`PROBE_SEQ` for a probe, `HANDSHAKE_ACK_SEQ` for the handshake's final ACK).
    /// Inlined into the engine's hot path: data arrivals pay one compound test for the rare cases.
    #[inline(always)]
    pub fn on_packet(&mut self, seq: u32) -> Arrival {
        if seq >= HANDSHAKE_ACK_SEQ || self.awaiting_handshake {
            return self.on_probe_or_handshake(seq);
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

    /// A probe, the handshake's final ACK, or data that came before that ACK (refused).
    #[cold]
    #[inline(never)]
    fn on_probe_or_handshake(&mut self, seq: u32) -> Arrival {
        match seq {
            PROBE_SEQ => Arrival::Old,
            HANDSHAKE_ACK_SEQ => {
                self.awaiting_handshake = false;
                Arrival::Silent
            }
            _ => {
                self.refused += 1;
                Arrival::Silent
            }
        }
    }

    /// Note the order of a data packet's arrival (`retransmit`: it is a retransmission).
    pub fn note_order(&mut self, seq: u32, retransmit: bool) {
        if seq >= HANDSHAKE_ACK_SEQ || self.awaiting_handshake {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// netbench's receiver ignores data until the handshake's final ACK: what overtakes that ACK is refused (not
    /// acknowledged, not recorded, not counted as reordering), what comes after it is taken as usual.
    #[test]
    fn data_before_the_handshake_ack_is_refused() {
        let mut r = Receiver::new(3, true);
        r.note_order(2, false);
        assert_eq!(r.on_packet(2), Arrival::Silent);
        assert_eq!((r.refused, r.cum, r.out_of_order), (1, 0, 0));
        r.note_order(HANDSHAKE_ACK_SEQ, false);
        assert_eq!(r.on_packet(HANDSHAKE_ACK_SEQ), Arrival::Silent);
        for seq in 0..3 {
            r.note_order(seq, false);
            assert_ne!(r.on_packet(seq), Arrival::Silent);
        }
        assert!(r.is_complete());
        assert_eq!((r.refused, r.out_of_order, r.duplicates), (1, 0, 0));
    }

    /// Without the handshake (or once it is done) a final ACK changes nothing.
    #[test]
    fn a_receiver_not_waiting_takes_data_at_once() {
        let mut r = Receiver::new(2, false);
        assert_eq!(r.on_packet(1), Arrival::New);
        assert_eq!(r.on_packet(HANDSHAKE_ACK_SEQ), Arrival::Silent);
        assert_eq!(r.on_packet(0), Arrival::Completes);
        assert_eq!(r.refused, 0);
    }
}
