//! The sender's view of its flow: what was sent, acknowledged (cumulatively or selectively), presumed lost and
//! retransmitted; and the estimate of packets in the network ("pipe", RFC 6675) that the window is held against.
//!
//! Counters are kept incrementally (as Linux does: pipe = packets out - SACKed - lost + retransmitted), so an
//! ACK costs O(1) amortized whatever the window. "Lost" means: below the loss mark and not SACKed. The loss mark
//! moves up on SACK evidence (a packet with three SACKed packets above it) or, after a timeout, over everything
//! sent. Retransmissions go out in sequence order from a pointer that only moves forward.

use super::bitset::BitSet;

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
    sacked: BitSet,
    retransmitted: BitSet,
    sacked_out: u32,
    lost_out: u32,
    retrans_out: u32,
}

impl Scoreboard {
    pub fn new(npkts: u32) -> Self {
        let n = npkts as usize;
        Scoreboard {
            npkts,
            una: 0,
            nxt: 0,
            sack_high: 0,
            lost_mark: 0,
            retx_next: 0,
            sacked: BitSet::with_len(n),
            retransmitted: BitSet::with_len(n),
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

    pub fn is_sacked(&self, i: u32) -> bool {
        self.sacked.get(i)
    }

    /// Whether packet `i` is acknowledged, cumulatively or selectively.
    pub fn is_acked(&self, i: u32) -> bool {
        i < self.una || self.sacked.get(i)
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
            if !self.sacked.get(i) && !self.retransmitted.get(i) {
                return Some(i);
            }
            self.retx_next += 1;
        }
        None
    }

    /// Packet `i` (from `next_retransmission`) is sent again.
    #[inline]
    pub fn mark_retransmitted(&mut self, i: u32) {
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
            if self.sacked.get(i) {
                self.sacked_out -= 1;
            } else {
                if i < self.lost_mark {
                    self.lost_out -= 1;
                }
                on_acked(i);
            }
            self.forget_retransmission(i);
        }
        self.una = cum;
        self.nxt = self.nxt.max(cum);
        self.lost_mark = self.lost_mark.max(cum);
        newly
    }

    /// Selective acknowledgement of packet `i`. Returns whether it is news.
    #[inline]
    pub fn sack(&mut self, i: u32) -> bool {
        if i < self.una || i >= self.nxt || !self.sacked.set(i) {
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
            if !self.sacked.get(i) {
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
