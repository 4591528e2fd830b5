//! pFabric's minimal rate control (section 4.2 of the paper, as the authors' ns-2 code does it).
//!
//! A flow starts at line rate (initial window = one BDP) and grows its window like TCP up to a cap near the
//! switch buffer size. There are no duplicate-ACK reactions and no fast retransmit: losses are found only by a
//! fixed timeout (about 3 RTTs, no backoff, no RTT estimation). On a timeout the window drops to one packet
//! (ssthresh to half the window) and the sender resends from the first unacknowledged packet, skipping what was
//! SACKed. After `probe_after_timeouts` consecutive timeouts the flow enters probe mode: it sends header-only
//! probes, one per timeout, until an ACK returns, then resumes. The line-rate variant never reduces its window.

use super::{Protocol, Sender, TransportParams};
use crate::sim::time::Time;

impl Sender {
    pub(super) fn pfabric_on_ack(&mut self, newly_cum: u32, newly_sacked: u32, now: Time, p: &TransportParams) {
        if newly_cum + newly_sacked > 0 {
            self.consecutive_timeouts = 0;
            self.grow_window(newly_cum + newly_sacked, p);
        }
        if newly_cum > 0 {
            self.timer = if self.sb.outstanding() > 0 { Some(now + self.rto(p)) } else { None };
        }
    }

    pub(super) fn pfabric_on_timeout(&mut self, p: &TransportParams) {
        self.consecutive_timeouts += 1;
        if p.protocol != Protocol::PfabricLinerate {
            self.ssthresh = (self.cwnd / 2.0).max(2.0);
            self.cwnd = 1.0;
        }
        if p.probe_after_timeouts > 0 && self.consecutive_timeouts >= p.probe_after_timeouts {
            self.probing = true;
        }
    }
}
