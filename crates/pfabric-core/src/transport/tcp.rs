//! TCP NewReno with SACK-based loss recovery (RFC 6582, RFC 6675), the paper's TCP-DropTail host.
//!
//! Slow start and congestion avoidance per packet acknowledged; three duplicate ACKs (or three SACKed packets)
//! start fast recovery once per window (NewReno's recovery point): ssthresh = cwnd / 2, the window is held
//! against the pipe estimate, and the holes that SACKs expose are retransmitted in order. A timeout backs off
//! the RTO exponentially, sets the window to one packet and resends every unSACKed packet.

use super::{Protocol, Recovery, Sender, TransportParams};
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
        if p.recovery == Recovery::NewReno {
            return self.newreno_on_ack(newly_cum, now, p);
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

    /// `Recovery::NewReno` (netbench's NewReno socket, which the AIFO authors' hosts extend): per new ACK one
    /// step of slow start or congestion avoidance; a partial ACK in recovery deflates the window by what it
    /// acknowledges and resends the next hole; the third duplicate ACK halves the flight into ssthresh, opens
    /// recovery with cwnd = ssthresh + 3 and resends the first unacknowledged packet; later duplicates inflate
    /// cwnd by one; the first two send one new packet each.
    fn newreno_on_ack(&mut self, newly_cum: u32, now: Time, p: &TransportParams) {
        if newly_cum > 0 {
            self.backoff = 0;
            self.dupacks = 0;
            let flight_before = (self.sb.nxt - (self.sb.una - newly_cum)) as f64;
            if self.in_recovery && self.sb.una < self.recover {
                self.cwnd = (self.cwnd - newly_cum as f64 + 1.0).max(1.0);
                self.resend_now = self.sb.una;
            } else {
                if self.in_recovery {
                    self.in_recovery = false;
                    self.cwnd = self.ssthresh.min(flight_before + 1.0);
                }
                self.grow_window(1, p);
                self.timer = if self.sb.outstanding() > 0 { Some(now + self.rto(p)) } else { None };
            }
        } else if self.sb.outstanding() > 0 && self.sb.una > 0 {
            // netbench counts a duplicate only against the last new ACK, so before the first one nothing counts:
            // a window whose first packet comes last (a PIFO reverses a flow's own packets) neither resends nor
            // cuts the window on its way in.
            self.dupacks += 1;
            if self.dupacks == p.dupack_threshold && !self.in_recovery && self.sb.una >= self.recover {
                self.ssthresh = ((self.sb.nxt - self.sb.una) as f64 / 2.0).max(2.0);
                self.cwnd = self.ssthresh + 3.0;
                self.recover = self.sb.nxt;
                self.in_recovery = true;
                self.resend_now = self.sb.una;
            } else if self.in_recovery {
                self.cwnd += 1.0;
            } else if self.dupacks < p.dupack_threshold {
                self.limited_transmit = true;
            }
        }
    }

    /// `Recovery::NewReno`'s sending: the packet to resend at once and a limited-transmit packet outside the
    /// window, then packets (resends after a timeout first, in order, then new ones) below the window's edge,
    /// the first unacknowledged packet plus `window`. Every packet sent restarts the timer.
    pub(super) fn newreno_fill_window(&mut self, window: u32, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        let before = out.len();
        let resend = std::mem::replace(&mut self.resend_now, u32::MAX);
        if resend != u32::MAX && resend >= self.sb.una && !self.sb.is_sacked(resend) {
            self.sb.mark_retransmitted(resend);
            self.retransmissions += 1;
            let pkt = self.data_packet(resend, now, true, p);
            out.push(pkt);
        }
        if std::mem::take(&mut self.limited_transmit) && self.sb.has_new() {
            let i = self.sb.send_new();
            let pkt = self.data_packet(i, now, false, p);
            out.push(pkt);
        }
        let edge = self.sb.una.saturating_add(window);
        loop {
            if let Some(i) = self.sb.next_retransmission() {
                if i >= edge {
                    break;
                }
                self.sb.mark_retransmitted(i);
                self.retransmissions += 1;
                let pkt = self.data_packet(i, now, true, p);
                out.push(pkt);
            } else if self.sb.has_new() && self.sb.nxt < edge {
                let i = self.sb.send_new();
                let pkt = self.data_packet(i, now, false, p);
                out.push(pkt);
            } else {
                break;
            }
        }
        if self.sb.outstanding() > 0 && (out.len() > before || self.timer.is_none()) {
            self.timer = Some(now + self.rto(p));
        }
    }

    pub(super) fn tcp_on_timeout(&mut self, p: &TransportParams) {
        self.backoff += 1;
        // netbench: "current estimate is probably bad", the next sample starts it afresh.
        self.restart_rtt = p.recovery == Recovery::NewReno;
        self.ssthresh = if p.recovery == Recovery::NewReno {
            ((self.sb.nxt - self.sb.una) as f64 / 2.0).max(2.0)
        } else {
            (self.cwnd / 2.0).max(2.0)
        };
        self.cwnd = 1.0;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = self.sb.nxt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ScenarioConfig;
    use crate::net::packet::PacketKind;
    use crate::transport::receiver;

    fn newreno_params(init_cwnd: u32) -> TransportParams {
        let json = format!(
            r#"{{"scheme": {{"name": "tcp", "recovery": "newreno", "init_cwnd_pkts": {init_cwnd}, "max_cwnd_pkts": 100}},
            "workload": {{"flows": 1, "cdf": {{"size_bytes": [1460, 14600], "cdf": [0.5, 1.0], "interpolation": "step"}}}}}}"#
        );
        ScenarioConfig::from_json(&json).unwrap().scheme.transport
    }

    /// The ACK of data packet `seq` when the receiver holds everything below `cum`.
    fn ack(seq: u32, cum: u32) -> Packet {
        let mut ack = crate::queue::testing::data_packet(0, seq, 0);
        (ack.kind, ack.ack, ack.payload, ack.wire) = (PacketKind::Ack, cum, 0, 40);
        ack
    }

    fn sent(out: &mut Vec<Packet>) -> Vec<(u32, bool)> {
        out.drain(..).map(|p| (p.seq, p.retransmit)).collect()
    }

    /// netbench's sockets open with slow start's threshold at 30 packets: a window opened at 30 grows by one
    /// packet per window (congestion avoidance), not to 60 in one round trip.
    #[test]
    fn an_initial_threshold_at_the_initial_window_grows_it_by_one_packet_a_round_trip() {
        let json = r#"{"scheme": {"name": "tcp", "init_cwnd_pkts": 30, "init_ssthresh_pkts": 30, "max_cwnd_pkts": 100},
            "workload": {"flows": 1, "cdf": {"size_bytes": [1460, 14600], "cdf": [0.5, 1.0], "interpolation": "step"}}}"#;
        let p = ScenarioConfig::from_json(json).unwrap().scheme.transport;
        let mut s = Sender::new(0, 0, 1, 1000 * 1460, None, &p);
        let mut out = Vec::new();
        s.fill_window(0, &p, &mut out);
        assert_eq!(out.drain(..).count(), 30);
        for i in 0..30 {
            s.on_ack(&ack(i, i + 1), 1000 * (i as u64 + 1), &p, &mut out);
        }
        assert!((s.cwnd() - 31.0).abs() < 0.02, "cwnd {}", s.cwnd());
        // Unset, the window doubles.
        let mut fresh = Sender::new(0, 0, 1, 1000 * 1460, None, &newreno_params(30));
        fresh.fill_window(0, &newreno_params(30), &mut out);
        for i in 0..30 {
            fresh.on_ack(&ack(i, i + 1), 1000 * (i as u64 + 1), &newreno_params(30), &mut out);
        }
        assert_eq!(fresh.cwnd(), 60.0);
    }

    /// netbench's socket handles a SYN's timeout as any other: one segment of window, slow start's threshold at
    /// its floor of two, and the doubled timeout kept until the first RTT sample. (Its hosts opening at 30
    /// segments then open at one: the AIFO paper's Figure 10, where long queues delay SYNs past the 96 us first
    /// timeout, turns on it.) Other hosts keep their first window and start the data's timeout afresh.
    #[test]
    fn a_syn_timeout_opens_a_newreno_flow_at_one_segment_and_keeps_its_backoff() {
        let json = |recovery: &str| {
            format!(
                r#"{{"scheme": {{"name": "tcp", "recovery": "{recovery}", "handshake": true, "init_cwnd_pkts": 30,
                "init_ssthresh_pkts": 30, "max_cwnd_pkts": 47, "min_rto_us": 0, "init_rto_us": 96.4}},
                "workload": {{"flows": 1, "cdf": {{"size_bytes": [1460, 146000], "cdf": [0.5, 1.0], "interpolation": "step"}}}}}}"#
            )
        };
        let syn_answer = || {
            let mut a = ack(receiver::PROBE_SEQ, 0);
            a.seq = receiver::PROBE_SEQ;
            a
        };
        for (recovery, window, timeout) in [("newreno", 1, 192_800_000), ("sack", 30, 96_400_000)] {
            let p = ScenarioConfig::from_json(&json(recovery)).unwrap().scheme.transport;
            let mut s = Sender::new(0, 0, 1, 100 * 1460, None, &p);
            let mut out = Vec::new();
            s.start(0, &p, &mut out);
            assert_eq!(out.drain(..).count(), 1, "the SYN alone");
            s.on_timeout(96_400_000, &p, &mut out);
            assert_eq!(out.drain(..).count(), 1, "the SYN again");
            s.on_ack(&syn_answer(), 100_000_000, &p, &mut out);
            let data = out.iter().filter(|q| q.kind == PacketKind::Data).count();
            assert_eq!(data, window, "{recovery}: first window after a resent SYN");
            assert_eq!(s.timer, Some(100_000_000 + timeout), "{recovery}: the data's first timeout");
        }
    }

    #[test]
    fn newreno_resends_only_the_first_hole_and_holds_the_window_edge() {
        let p = newreno_params(9);
        let mut s = Sender::new(0, 0, 1, 100 * 1460, None, &p);
        let mut out = Vec::new();
        s.fill_window(0, &p, &mut out);
        assert_eq!(sent(&mut out), (0..9).map(|i| (i, false)).collect::<Vec<_>>());
        // Packet 0 is acknowledged: slow start opens the window to 10, whose edge (1 + 10) lets 9 and 10 out.
        s.on_ack(&ack(0, 1), 500, &p, &mut out);
        assert_eq!(sent(&mut out), vec![(9, false), (10, false)]);
        // Packet 1 is lost. The first two duplicate ACKs each send one new packet (limited transmit).
        s.on_ack(&ack(2, 1), 1000, &p, &mut out);
        assert_eq!(sent(&mut out), vec![(11, false)]);
        s.on_ack(&ack(3, 1), 2000, &p, &mut out);
        assert_eq!(sent(&mut out), vec![(12, false)]);
        // The third resends packet 1 alone: ssthresh = 12 / 2, cwnd = 6 + 3 = 9 ends the window at packet 9,
        // below what is out.
        s.on_ack(&ack(4, 1), 3000, &p, &mut out);
        assert_eq!(sent(&mut out), vec![(1, true)]);
        assert!(s.in_recovery && s.cwnd == 9.0);
        // Each later duplicate opens the window by one; SACKed packets above the hole do not: by the ACK of packet
        // 12, cwnd is 17 and the edge (1 + 17) lets packets 13 .. 17 out, and nothing else is resent.
        let mut more = Vec::new();
        for seq in 5..13 {
            s.on_ack(&ack(seq, 1), 4000 + seq as u64, &p, &mut out);
            more.extend(sent(&mut out));
        }
        assert_eq!(more, (13..18).map(|i| (i, false)).collect::<Vec<_>>());
        // The resent packet arrives: a full ACK (up to the recovery point, 13) ends recovery at ssthresh.
        s.on_ack(&ack(1, 13), 10_000, &p, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.cwnd, 6.0 + 1.0 / 6.0);
    }

    /// netbench's socket counts a duplicate only against the last new ACK: before the first one (a PIFO that
    /// reverses a flow's first window delivers its first packet last) no duplicate resends, sends or cuts.
    #[test]
    fn newreno_counts_no_duplicate_before_the_first_new_ack() {
        let p = newreno_params(10);
        let mut s = Sender::new(0, 0, 1, 100 * 1460, None, &p);
        let mut out = Vec::new();
        s.fill_window(0, &p, &mut out);
        out.clear();
        for seq in (1..10).rev() {
            s.on_ack(&ack(seq, 0), 1000 + seq as u64, &p, &mut out);
            assert!(out.is_empty(), "the ACK of packet {seq} sent {:?}", sent(&mut out));
        }
        assert!(!s.in_recovery && s.cwnd == 10.0);
        // Packet 0 comes last: one new ACK of all ten, then slow start as usual.
        s.on_ack(&ack(0, 10), 2000, &p, &mut out);
        assert_eq!(s.cwnd, 11.0);
        assert_eq!(sent(&mut out), (10..21).map(|i| (i, false)).collect::<Vec<_>>());
    }
}
