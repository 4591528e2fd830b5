//! The sender's view of its flow: what was sent, acknowledged (cumulatively or selectively), presumed lost and
//! retransmitted; and the estimate of packets in the network ("pipe", RFC 6675) that the window is held against.
//!
//! Counters are kept incrementally (as Linux does: pipe = packets out - SACKed - lost + retransmitted), so an
//! ACK costs O(1) amortized whatever the window. "Lost" means: below the loss mark and not SACKed. The loss mark
//! moves up on SACK evidence (a packet with three SACKed packets above it) or, after a timeout, over everything
//! sent. Retransmissions go out in sequence order from a pointer that only moves forward.
//!
//! Which packets from `una` on are SACKed is a word in the scoreboard itself (as the receiver keeps what
//! arrived): every ACK asks it, and a bit set on the heap cost a cache line per ACK on a fabric whose live flows
//! outgrow the caches. Packets SACKed `WINDOW` or more ahead of `una` go to a bit set made on first use, and
//! move into the word as `una` moves on; retransmissions, rare, keep a bit set made at the first one.

use super::bitset::{BitSet, Bits128};

/// How many packets from `una` on the scoreboard's own word covers.
const WINDOW: u32 = u128::BITS;

pub struct Scoreboard {
    pub npkts: u32,
    /// First packet not cumulatively acknowledged.
    pub una: u32,
    /// Next packet never sent.
    pub nxt: u32,
    /// Highest SACKed packet + 1 (0 if none).
    pub sack_high: u32,
    /// Packets below the mark that are not SACKed are presumed lost.
    lost_mark: u32,
    /// Retransmission pointer: packets below it (and at or above `una`) were retransmitted or need not be.
    retx_next: u32,
    /// Which packets from `una` on are SACKed: bit k is packet `una + k`.
    sacked: Bits128,
    /// Packets SACKed `WINDOW` or more ahead of `una` (when it was so), over the flow's indices.
    sacked_beyond: Option<Box<BitSet>>,
    /// Packets retransmitted (and not yet acknowledged), over the flow's indices; empty until the first.
    retransmitted: BitSet,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
}

impl Scoreboard {
    pub fn new(npkts: u32) -> Self {
        Scoreboard {
            npkts,
            una: 0,
            nxt: 0,
            sack_high: 0,
            lost_mark: 0,
            retx_next: 0,
            sacked: Bits128::default(),
            sacked_beyond: None,
            retransmitted: BitSet::default(),
            sacked_out: 0,
            lost_out: 0,
            retrans_out: 0,
        }
    }

    /// Packets sent and not cumulatively acknowledged.
    #[inline]
    pub fn outstanding(&self) -> u32 {
        self.nxt - self.una
    }

    /// Estimated packets in the network.
    #[inline]
    pub fn pipe(&self) -> u32 {
        self.outstanding() - self.sacked_out - self.lost_out + self.retrans_out
    }

    pub fn sacked_out(&self) -> u32 {
        self.sacked_out
    }

    /// Whether packet `i` (at or above `una`) is SACKed.
    #[inline(always)]
    pub fn is_sacked(&self, i: u32) -> bool {
        debug_assert!(i >= self.una, "packet {i} below una {}", self.una);
        let ahead = i - self.una;
        if ahead < WINDOW {
            self.sacked.get() >> ahead & 1 == 1
        } else {
            self.sacked_beyond.as_ref().is_some_and(|b| b.get(i))
        }
    }

    /// Whether packet `i` is acknowledged, cumulatively or selectively.
    pub fn is_acked(&self, i: u32) -> bool {
        i < self.una || self.is_sacked(i)
    }

    /// Mark packet `i` (at or above `una`) SACKed; returns whether it was not before.
    #[inline(always)]
    fn mark_sacked(&mut self, i: u32) -> bool {
        let ahead = i - self.una;
        if ahead >= WINDOW {
            let npkts = self.npkts as usize;
            return self.sacked_beyond.get_or_insert_with(|| Box::new(BitSet::with_len(npkts))).set(i);
        }
        let (window, bit) = (self.sacked.get(), 1u128 << ahead);
        self.sacked.set(window | bit);
        window & bit == 0
    }

    /// `una` moves on to `cum`: the word follows, taking in the packets SACKed beyond it that it now covers.
    #[inline(always)]
    fn move_una(&mut self, cum: u32) {
        let moved = cum - self.una;
        self.sacked.set(self.sacked.get().checked_shr(moved).unwrap_or(0));
        let old_end = self.una + WINDOW;
        self.una = cum;
        if self.sacked_beyond.is_some() {
            self.refill(old_end);
        }
    }

    /// Packets from `from` (the word's old end) to its new end come from the bit set beyond it.
    #[cold]
    #[inline(never)]
    fn refill(&mut self, from: u32) {
        let beyond = self.sacked_beyond.as_ref().expect("refilled only from packets beyond the word");
        let mut window = self.sacked.get();
        for p in from.max(self.una)..(self.una + WINDOW).min(self.npkts) {
            if beyond.get(p) {
                window |= 1u128 << (p - self.una);
            }
        }
        self.sacked.set(window);
    }

    pub fn all_acked(&self) -> bool {
        self.una == self.npkts
    }

    /// A new packet goes out; returns its index.
    #[inline]
    pub fn send_new(&mut self) -> u32 {
        let i = self.nxt;
        self.nxt += 1;
        i
    }

    pub fn has_new(&self) -> bool {
        self.nxt < self.npkts
    }

    /// The next presumed-lost packet not yet retransmitted, if any.
    #[inline]
    pub fn next_retransmission(&mut self) -> Option<u32> {
        self.retx_next = self.retx_next.max(self.una);
        while self.retx_next < self.lost_mark {
            let i = self.retx_next;
            if !self.is_sacked(i) && !self.was_retransmitted(i) {
                return Some(i);
            }
            self.retx_next += 1;
        }
        None
    }

    #[inline]
    fn was_retransmitted(&self, i: u32) -> bool {
        !self.retransmitted.is_empty() && self.retransmitted.get(i)
    }

    /// Packet `i` (from `next_retransmission`) is sent again.
    #[inline]
    pub fn mark_retransmitted(&mut self, i: u32) {
        if self.retransmitted.is_empty() {
            self.retransmitted = BitSet::with_len(self.npkts as usize);
        }
        if self.retransmitted.set(i) {
            self.retrans_out += 1;
        }
        self.retx_next = i + 1;
    }

    /// Packet `i` left the sender's accounting (cumulatively or selectively acknowledged): undo its counters.
    #[inline]
    fn forget_retransmission(&mut self, i: u32) {
        // Bits are set only with the count raised: with none outstanding, none is set (and the bit set's memory,
        // a cache line per ACK otherwise, is left alone).
        if self.retrans_out != 0 && self.retransmitted.clear(i) {
            self.retrans_out -= 1;
        }
    }

    /// Cumulative ACK up to `cum` (exclusive). Returns the number of packets newly acknowledged by it and
    /// calls `on_acked` with each newly acknowledged packet that was not SACKed before.
    #[inline]
    pub fn cumulative_ack(&mut self, cum: u32, mut on_acked: impl FnMut(u32)) -> u32 {
        if cum <= self.una {
            return 0;
        }
        let newly = cum - self.una;
        for i in self.una..cum {
            if self.is_sacked(i) {
                self.sacked_out -= 1;
            } else {
                if i < self.lost_mark {
                    self.lost_out -= 1;
                }
                on_acked(i);
            }
            self.forget_retransmission(i);
        }
        self.move_una(cum);
        self.nxt = self.nxt.max(cum);
        self.lost_mark = self.lost_mark.max(cum);
        newly
    }

    /// Selective acknowledgement of packet `i`. Returns whether it is news.
    #[inline]
    pub fn sack(&mut self, i: u32) -> bool {
        if i < self.una || i >= self.nxt || !self.mark_sacked(i) {
            return false;
        }
        self.sacked_out += 1;
        if i < self.lost_mark {
            self.lost_out -= 1;
        }
        self.forget_retransmission(i);
        self.sack_high = self.sack_high.max(i + 1);
        true
    }

    /// Raise the loss mark to `mark`: unSACKed packets below it are presumed lost.
    pub fn mark_lost_below(&mut self, mark: u32) {
        let mark = mark.min(self.nxt);
        let from = self.lost_mark.max(self.una);
        for i in from..mark.max(from) {
            if !self.is_sacked(i) {
                self.lost_out += 1;
            }
        }
        self.lost_mark = self.lost_mark.max(mark);
    }

    /// SACK-based loss detection (RFC 6675's rule with DupThresh packets SACKed above a hole, approximated by
    /// the highest SACKed index): mark lost everything more than `dup_thresh - 1` packets below it.
    pub fn mark_lost_by_sack(&mut self, dup_thresh: u32) {
        if self.sack_high >= dup_thresh {
            self.mark_lost_below(self.sack_high + 1 - dup_thresh);
        }
    }

    /// After a timeout: everything outstanding and not SACKed is presumed lost, and retransmissions start over
    /// from the first unacknowledged packet.
    pub fn timeout(&mut self) {
        for i in self.una..self.nxt {
            self.forget_retransmission(i);
        }
        self.mark_lost_below(self.nxt);
        self.retx_next = self.una;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipe_follows_sends_sacks_and_losses() {
        let mut sb = Scoreboard::new(20);
        for _ in 0..10 {
            sb.send_new();
        }
        assert_eq!(sb.pipe(), 10);
        // Packet 0 lost; 1..=4 SACKed.
        for i in 1..=4 {
            assert!(sb.sack(i));
        }
        assert_eq!(sb.pipe(), 6);
        sb.mark_lost_by_sack(3);
        // sack_high = 5, mark = 3: packet 0 lost (1, 2 SACKed).
        assert_eq!(sb.pipe(), 5);
        assert_eq!(sb.next_retransmission(), Some(0));
        sb.mark_retransmitted(0);
        assert_eq!(sb.pipe(), 6);
        assert_eq!(sb.next_retransmission(), None);
        let mut fresh = vec![];
        assert_eq!(sb.cumulative_ack(5, |i| fresh.push(i)), 5);
        assert_eq!(fresh, vec![0]);
        assert_eq!(sb.pipe(), 5);
        assert_eq!(sb.sacked_out(), 0);
    }

    /// The SACKed packets, in the word from `una` and beyond it, answer as a plain set would: random SACKs
    /// (some hundreds of packets ahead) and cumulative ACKs, on flows of up to 2,000 packets.
    #[test]
    fn sacked_packets_answer_as_a_plain_set_would() {
        let mut rng = crate::sim::rng::Rng::new(11);
        for case in 0..300 {
            let npkts = 1 + rng.below(2_000) as u32;
            let mut sb = Scoreboard::new(npkts);
            let mut plain = std::collections::BTreeSet::new();
            let mut una = 0;
            while una < npkts {
                // Send a stretch, SACK some of it (far ahead at times), then move the cumulative ACK on.
                for _ in 0..rng.below(400) {
                    if sb.has_new() {
                        sb.send_new();
                    }
                }
                for _ in 0..rng.below(30) {
                    let i = una + rng.below(u64::from(sb.nxt - una) + 1) as u32;
                    let news = sb.sack(i);
                    assert_eq!(news, i < sb.nxt && plain.insert(i), "case {case}: SACK {i}");
                }
                let cum = (una + rng.below(150) as u32).min(sb.nxt);
                let mut fresh = Vec::new();
                sb.cumulative_ack(cum, |i| fresh.push(i));
                let expected: Vec<u32> = (una..cum).filter(|i| !plain.contains(i)).collect();
                assert_eq!(fresh, expected, "case {case}: ACK up to {cum}");
                una = una.max(cum);
                plain.retain(|&i| i >= una);
                assert_eq!(sb.sacked_out(), plain.len() as u32, "case {case}");
                for i in 0..npkts {
                    assert_eq!(sb.is_acked(i), i < una || plain.contains(&i), "case {case}: packet {i}");
                }
                if sb.nxt == npkts && una < npkts && rng.below(4) == 0 {
                    una = npkts; // the rest at once
                    sb.cumulative_ack(npkts, |_| ());
                    plain.clear();
                }
            }
            assert!(sb.all_acked());
        }
    }

    #[test]
    fn timeout_marks_everything_unsacked_lost() {
        let mut sb = Scoreboard::new(8);
        for _ in 0..6 {
            sb.send_new();
        }
        sb.sack(3);
        sb.timeout();
        assert_eq!(sb.pipe(), 0);
        let mut order = vec![];
        while let Some(i) = sb.next_retransmission() {
            sb.mark_retransmitted(i);
            order.push(i);
        }
        assert_eq!(order, vec![0, 1, 2, 4, 5]);
        assert_eq!(sb.pipe(), 5);
    }
}
