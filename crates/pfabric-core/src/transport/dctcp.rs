//! DCTCP (Alizadeh et al., SIGCOMM 2010): the sender keeps alpha, a moving average of the fraction of its
//! packets that were ECN-marked, updated once per window of data with gain g, and on a marked ACK cuts its window
//! by alpha / 2, at most once per window. Loss and timeout reactions are TCP's.

use super::{Sender, TransportParams};
use crate::net::packet::Packet;

pub struct DctcpState {
    alpha: f64,
    acked: u32,
    marked: u32,
    /// The current observation window ends when this packet is acknowledged.
    window_end: u32,
    /// No new cut until this packet is acknowledged.
    cut_end: u32,
}

impl DctcpState {
    pub fn new() -> Self {
        // Linux starts alpha at its maximum: the first congestion signal cuts like TCP.
        DctcpState { alpha: 1.0, acked: 0, marked: 0, window_end: 0, cut_end: 0 }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl Default for DctcpState {
    fn default() -> Self {
        Self::new()
    }
}

impl Sender {
    pub(super) fn dctcp_on_ack(&mut self, ack: &Packet, acked_pkts: u32, p: &TransportParams) {
        let d = &mut self.dctcp;
        d.acked += acked_pkts.max(1);
        if ack.ece {
            d.marked += acked_pkts.max(1);
        }
        if self.sb.una >= d.window_end {
            let fraction = if d.acked > 0 { d.marked as f64 / d.acked as f64 } else { 0.0 };
            d.alpha = (1.0 - p.dctcp_g) * d.alpha + p.dctcp_g * fraction;
            d.acked = 0;
            d.marked = 0;
            d.window_end = self.sb.nxt;
        }
        if ack.ece && self.sb.una >= d.cut_end {
            self.cwnd = (self.cwnd * (1.0 - d.alpha / 2.0)).max(1.0);
            self.ssthresh = self.cwnd;
            d.cut_end = self.sb.nxt;
        }
    }

    pub fn dctcp_alpha(&self) -> f64 {
        self.dctcp.alpha()
    }
}
