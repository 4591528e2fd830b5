//! The receiving half of a flow: records which packets arrived and acknowledges every one.

use super::bitset::{BitSet, Bits128};

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
    /// Which of the packets from `cum` on arrived: bit i is packet `cum + i` (so bit 0, the packet missing
    /// first, is clear). A flow's packets arrive in order or nearly so, and this word, in the receiver's own
    /// line, holds what a bit set on the heap held: one miss fewer per data packet.
    window: Bits128,
    /// Packets that arrived `WINDOW` or more ahead of `cum` (a sender far past a hole: a large window after a
    /// loss), over the flow's packet indices; made on first use.
    beyond: Option<Box<BitSet>>,
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

/// How many packets from `cum` on the receiver's own word covers.
const WINDOW: u32 = u128::BITS;

impl Receiver {
    /// The receiving half of a flow of `npkts` packets; `awaiting_handshake`: it takes data only after the
    /// handshake's final ACK.
    pub fn new(npkts: u32, awaiting_handshake: bool) -> Self {
        Receiver {
            window: Bits128::default(),
            beyond: None,
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
        if self.is_complete() || !self.take(seq) {
            self.duplicates += 1;
            return Arrival::Old;
        }
        if self.is_complete() {
            Arrival::Completes
        } else {
            Arrival::New
        }
    }

    /// Record data packet `seq` (below `npkts`); returns whether it is new. The packet expected next moves
    /// `cum` past every packet held in a row.
    #[inline(always)]
    fn take(&mut self, seq: u32) -> bool {
        debug_assert!(seq < self.npkts, "packet {seq} of a flow of {} packets", self.npkts);
        let Some(ahead) = seq.checked_sub(self.cum) else { return false };
        if ahead >= WINDOW {
            return self.take_beyond(seq);
        }
        let bit = 1u128 << ahead;
        let window = self.window.get();
        if window & bit != 0 {
            return false;
        }
        self.window.set(window | bit);
        if ahead == 0 {
            self.advance();
        }
        true
    }

    /// `cum` arrived: move past the run of packets held from it (and, where packets arrived beyond the word,
    /// bring those the word now covers into it).
    #[inline(always)]
    fn advance(&mut self) {
        let (window, run) = self.move_past_run(self.window.get());
        self.window.set(window);
        if self.beyond.is_some() {
            self.refill(run);
        }
    }

    /// Move `cum` past the packets `window` holds in a row from it; returns the word from the new `cum` on
    /// and how far it moved.
    #[inline(always)]
    fn move_past_run(&mut self, window: u128) -> (u128, u32) {
        let run = window.trailing_ones();
        self.cum += run;
        (window.checked_shr(run).unwrap_or(0), run)
    }

    /// The word moved on by `moved` packets: the packets it now covers at its far end come from `beyond`;
    /// where they make a run from `cum`, move on again.
    #[cold]
    #[inline(never)]
    fn refill(&mut self, mut moved: u32) {
        let mut window = self.window.get();
        loop {
            let beyond = self.beyond.as_ref().expect("refilled only from packets beyond the word");
            let first = self.cum + WINDOW - moved;
            for p in first..(self.cum + WINDOW).min(self.npkts) {
                if beyond.get(p) {
                    window |= 1u128 << (p - self.cum);
                }
            }
            if window & 1 == 0 {
                self.window.set(window);
                return;
            }
            (window, moved) = self.move_past_run(window);
        }
    }

    /// Data packet `seq`, `WINDOW` or more ahead of `cum`: recorded in the bit set beyond the word.
    #[cold]
    #[inline(never)]
    fn take_beyond(&mut self, seq: u32) -> bool {
        let npkts = self.npkts as usize;
        self.beyond.get_or_insert_with(|| Box::new(BitSet::with_len(npkts))).set(seq)
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

    /// The word and the bit set beyond it answer as one bit set over the flow would: packets in any order,
    /// repeated, and holes far wider than the word (a large window after a loss), against a plain set.
    #[test]
    fn the_window_answers_as_a_plain_set_would() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as u32
        };
        for case in 0..400 {
            let npkts = 1 + next(if case % 4 == 0 { 2000 } else { 300 });
            // How far past the lowest missing packet a copy may land: within the word, or well beyond it.
            let reach = [4, 40, 127, 128, 129, 700, 5000][case % 7];
            let mut r = Receiver::new(npkts, false);
            let mut held = vec![false; npkts as usize];
            let mut cum = 0;
            let mut steps = 0;
            while cum < npkts {
                steps += 1;
                assert!(steps < 1_000_000, "case {case}: no progress");
                let seq = if next(8) == 0 { next(npkts) } else { (cum + next(reach)).min(npkts - 1) };
                let new = !held[seq as usize];
                held[seq as usize] = true;
                while cum < npkts && held[cum as usize] {
                    cum += 1;
                }
                let want = match (new, cum == npkts) {
                    (false, _) => Arrival::Old,
                    (true, true) => Arrival::Completes,
                    (true, false) => Arrival::New,
                };
                assert_eq!(r.on_packet(seq), want, "case {case}, packet {seq}");
                assert_eq!(r.cum, cum, "case {case}, packet {seq}");
            }
            assert!(r.is_complete());
            assert_eq!(r.on_packet(next(npkts)), Arrival::Old);
        }
    }
}
