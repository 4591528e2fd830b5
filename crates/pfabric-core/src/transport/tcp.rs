//! TCP NewReno with SACK-based loss recovery (RFC 6582, RFC 6675), the paper's TCP-DropTail host.
//!
//! Slow start and congestion avoidance per packet acknowledged; three duplicate ACKs (or three SACKed packets)
//! start fast recovery once per window (NewReno's recovery point): ssthresh = cwnd / 2, the window is held
//! against the pipe estimate, and the holes that SACKs expose are retransmitted in order. A timeout backs off
//! the RTO exponentially, sets the window to one packet and resends every unSACKed packet.

use super::{Protocol, Sender, TransportParams};
use crate::net::packet::Packet;
use crate::sim::time::Time;

impl Sender {
    pub(super) fn tcp_on_ack(
        &mut self,
        ack: &Packet,
        newly_cum: u32,
        newly_sacked: u32,
        now: Time,
        p: &TransportParams,
    ) {
        if p.protocol == Protocol::Dctcp {
            self.dctcp_on_ack(ack, newly_cum + newly_sacked, p);
        }
        if newly_cum > 0 {
            self.backoff = 0;
            self.dupacks = 0;
            if self.in_recovery {
                if self.sb.una >= self.recover {
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh;
                } else {
                    self.sb.mark_lost_by_sack(p.dupack_threshold);
                }
            } else {
                self.grow_window(newly_cum, p);
            }
            self.timer = if self.sb.outstanding() > 0 { Some(now + self.rto(p)) } else { None };
        } else if self.sb.outstanding() > 0 {
            self.dupacks += 1;
            if self.in_recovery {
                self.sb.mark_lost_by_sack(p.dupack_threshold);
            } else if self.sb.una >= self.recover
                && (self.dupacks >= p.dupack_threshold || self.sb.sacked_out() >= p.dupack_threshold)
            {
                self.enter_recovery(p);
            }
        }
    }

    fn enter_recovery(&mut self, p: &TransportParams) {
        self.in_recovery = true;
        self.recover = self.sb.nxt;
        self.ssthresh = (self.cwnd / 2.0).max(2.0);
        self.cwnd = self.ssthresh;
        // The first unacknowledged packet is the one the duplicate ACKs point at.
        self.sb.mark_lost_below(self.sb.una + 1);
        self.sb.mark_lost_by_sack(p.dupack_threshold);
    }

    pub(super) fn tcp_on_timeout(&mut self) {
        self.backoff += 1;
        self.ssthresh = (self.cwnd / 2.0).max(2.0);
        self.cwnd = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.sb.nxt;
    }
}
