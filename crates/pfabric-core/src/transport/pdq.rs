//! PDQ's host (Hong, Caesar and Godfrey, "Finishing Flows Quickly with Preemptive Scheduling", SIGCOMM 2012),
//! as the pFabric paper runs it: with Early Start and Early Termination.
//!
//! A flow first sends a header-only SYN asking for line rate; the ports on its path grant the rate or pause it
//! (see `net::pdq_port`), and the ACK echoes what was granted. Data starts only when that answer returns: the
//! one extra RTT that keeps PDQ's normalized FCT at 2 or more for the smallest flows. A flow then paces its
//! packets at the granted rate, which every ACK updates; a paused flow sends a header-only probe every probing
//! interval until it is granted a rate again. Losses are recovered by a timeout (TCP's RTO, with the SACK
//! scoreboard). With Early Termination a flow with a deadline it can no longer meet (even at line rate) quits.
//!
//! In flight, a flow keeps at most its initial window (12 packets, one BDP: the paper's PDQ row), so a rate
//! granted a round trip too late cannot flood a queue.
//!
//! Simplifications (documented for users): one rate per flow, line rate or zero (no partial rates); the
//! criticality in the header is (deadline, then remaining bytes), the remaining size travels in the header too
//! (for Early Start); no suppressed probing and no sender-side rate limits beyond pacing.

use super::{receiver, Sender, TransportParams};
use crate::net::packet::{Packet, PacketKind};
use crate::sim::time::{serialization_ps, Time};

/// Criticality numbers of flows without a deadline start here, above any deadline in picoseconds.
const NO_DEADLINE: u64 = 1 << 62;

#[derive(Default)]
pub struct PdqState {
    /// Rate granted by the path (bps), 0 while paused or before the SYN's answer.
    rate_bps: u64,
    /// The SYN's answer arrived.
    connected: bool,
    /// The flow quit: its deadline could not be met.
    pub terminated: bool,
    /// The port that paused the flow, from the last ACK (0: none).
    paused_by: u32,
}

impl Sender {
    /// PDQ's criticality: earlier deadline first, then fewer remaining bytes.
    pub(super) fn pdq_criticality(&self) -> u64 {
        match self.deadline {
            Some(d) => d.min(NO_DEADLINE - 1),
            None => NO_DEADLINE + (self.size_bytes - self.acked_bytes),
        }
    }

    /// A header-only packet (SYN or probe) carrying the rate request.
    fn pdq_header(&self, now: Time, p: &TransportParams) -> Packet {
        let mut h = self.probe_packet(now, p);
        h.kind = PacketKind::Probe;
        h.seq = receiver::PROBE_SEQ;
        h.wire = p.format.control_wire_bytes();
        h.priority = self.pdq_criticality();
        h.rate_bps = p.host_rate_bps;
        h.ack = self.sb.npkts - self.sb.nxt.min(self.sb.npkts);
        h.paused_by = self.pdq.paused_by;
        h
    }

    pub(super) fn pdq_start(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        let mut syn = self.pdq_header(now, p);
        syn.wire = p.pdq_syn_wire_bytes;
        out.push(syn);
        self.timer = Some(now + self.rto(p));
    }

    pub(super) fn pdq_on_ack(&mut self, ack: &Packet, newly_cum: u32, now: Time, p: &TransportParams) {
        self.pdq.connected = true;
        let was_paused = self.pdq.rate_bps == 0;
        self.pdq.rate_bps = ack.rate_bps;
        self.pdq.paused_by = ack.paused_by;
        if was_paused && self.pdq.rate_bps > 0 {
            self.pace_at = Some(now); // granted after a pause: start at once, not at the next probe
        }
        if newly_cum > 0 {
            self.backoff = 0;
            self.timer = Some(now + self.rto(p));
        }
        if self.sb.outstanding() == 0 {
            self.timer = None; // nothing in flight (a paused flow): nothing to time out
        }
        if self.pace_at.is_none() {
            // Granted: send now. Paused: probe after the interval.
            self.pace_at = Some(if self.pdq.rate_bps > 0 { now } else { now + p.pdq_probe_interval });
        }
    }

    /// Early Termination: even at line rate the rest cannot arrive by the deadline.
    pub(super) fn pdq_cannot_make_it(&self, now: Time, p: &TransportParams) -> bool {
        match self.deadline {
            Some(d) if p.pdq_early_termination => {
                // Bytes not sent yet, at line rate (what is in flight may still make it).
                let unsent = self.size_bytes.saturating_sub(self.sb.nxt as u64 * p.format.mss_bytes as u64);
                now + serialization_ps(unsent, p.host_rate_bps) > d
            }
            _ => false,
        }
    }

    /// The pacing timer fired: one data packet at the granted rate, or a probe while paused.
    pub(super) fn pdq_pace(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        self.pace_at = None;
        if self.pdq_cannot_make_it(now, p) {
            self.pdq.terminated = true;
            self.timer = None;
            // A last header with nothing left to send: the ports on the path forget the flow at once.
            let mut fin = self.pdq_header(now, p);
            fin.ack = 0;
            fin.rate_bps = 0;
            out.push(fin);
            return;
        }
        if !self.pdq.connected || self.pdq.rate_bps == 0 {
            out.push(self.pdq_header(now, p));
            self.pace_at = Some(now + p.pdq_probe_interval);
            return;
        }
        let next = if let Some(i) = self.sb.next_retransmission() {
            self.sb.mark_retransmitted(i);
            self.retransmissions += 1;
            Some(self.data_packet(i, now, true, p))
        } else if self.sb.has_new() && self.sb.pipe() < p.init_cwnd_pkts {
            let i = self.sb.send_new();
            Some(self.data_packet(i, now, false, p))
        } else {
            None
        };
        if let Some(mut pkt) = next {
            pkt.priority = self.pdq_criticality();
            pkt.rate_bps = p.host_rate_bps;
            pkt.ack = self.sb.npkts - self.sb.nxt;
            pkt.paused_by = self.pdq.paused_by;
            let gap = serialization_ps(pkt.wire as u64, self.pdq.rate_bps);
            out.push(pkt);
            self.pace_at = Some(now + gap);
            if self.timer.is_none() {
                self.timer = Some(now + self.rto(p));
            }
        }
        // Nothing to send: pacing resumes when an ACK (or a timeout) gives something to send.
    }

    pub fn pdq_terminated(&self) -> bool {
        self.pdq.terminated
    }
}
