//! A constant-rate (UDP-like) source, for the AIFO paper's scheduling experiments (its Figures 15 and 16): it
//! sends each of its packets once, paced at a fixed rate, whatever is lost; ACKs are only counted. A flow
//! with losses never completes, and is reported unfinished; its throughput over time is the measure.

use super::{Sender, TransportParams};
use crate::net::packet::Packet;
use crate::sim::time::{serialization_ps, Time};

impl Sender {
    pub(super) fn constant_rate_pace(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        self.pace_at = None;
        if !self.sb.has_new() {
            return;
        }
        let i = self.sb.send_new();
        let pkt = self.data_packet(i, now, false, p);
        let gap = serialization_ps(pkt.wire as u64, p.constant_rate_bps);
        let gap = if p.sender_jitter > 0.0 {
            let u = crate::sim::rng::unit_hash(p.jitter_seed, (self.flow as u64) << 32 | i as u64) * 2.0 - 1.0;
            (gap as f64 * (1.0 + u * p.sender_jitter)).round().max(1.0) as Time
        } else {
            gap
        };
        self.pace_at = Some(now + gap);
        out.push(pkt);
    }
}
