//! PDQ's switch port: per-flow state and the rate it grants (Hong et al., SIGCOMM 2012, section 3).
//!
//! Every data packet and probe of a flow refreshes its entry at each port on its path: its criticality
//! (deadline first, then remaining size) and its remaining packets. The port sorts the flows it knows by
//! criticality and grants the most critical ones the rate they ask for (their line rate) while it has capacity,
//! pausing the rest; with Early Start it also grants the next flows while the ones already granted will finish
//! within K RTTs, so the link does not idle while a flow hands over. The packet's rate header leaves at the minimum over the path. A flow's entry goes
//! when its last new packet passes, or after it has been silent for the expiry time (a flow that quit).
//!
//! A flow paused by one port carries that port's name in its next headers (PDQ's pause-by field): other ports
//! then hold no capacity for it, and only the pausing port can grant it again.
//!
//! Simplifications: a flow gets its whole demand or nothing (no partial rates), no flow-count limit
//! per port (PDQ keeps the 2 kappa most critical), no dampening.

use crate::net::packet::{Packet, PacketKind};
use crate::sim::time::{serialization_ps, Time};

struct Entry {
    flow: u32,
    /// Paused by another port: this one holds no capacity for it.
    paused_elsewhere: bool,
    criticality: u64,
    /// Packets the flow has not sent yet (from the header).
    remaining_pkts: u32,
    /// The rate it asks for (its host's line rate).
    demand_bps: u64,
    last_seen: Time,
}

pub struct PdqPort {
    /// This port's id + 1, as packets name their pauser.
    id: u32,
    rate_bps: u64,
    /// Early Start's horizon: K x RTT.
    early_start: Time,
    expiry: Time,
    flows: Vec<Entry>,
}

impl PdqPort {
    pub fn new(port: u32, rate_bps: u64, early_start: Time, expiry: Time) -> Self {
        PdqPort { id: port + 1, rate_bps, early_start, expiry, flows: Vec::new() }
    }

    /// A data packet or probe of a flow passes: update the flow's entry and the packet's rate header.
    pub fn on_packet(&mut self, p: &mut Packet, now: Time) {
        if p.kind == PacketKind::Ack {
            return;
        }
        let paused_elsewhere = p.paused_by != 0 && p.paused_by != self.id;
        // A header paused upstream on this pass still asks for its line rate here.
        let demand_bps = if p.rate_bps > 0 { p.rate_bps.min(self.rate_bps) } else { self.rate_bps };
        match self.flows.iter_mut().find(|e| e.flow == p.flow) {
            Some(e) => {
                e.criticality = p.priority;
                e.remaining_pkts = p.ack;
                e.last_seen = now;
                e.paused_elsewhere = paused_elsewhere;
                e.demand_bps = demand_bps;
            }
            None => self.flows.push(Entry {
                flow: p.flow,
                paused_elsewhere,
                criticality: p.priority,
                remaining_pkts: p.ack,
                demand_bps,
                last_seen: now,
            }),
        }
        let expiry = self.expiry;
        self.flows.retain(|e| now - e.last_seen <= expiry);
        self.flows.sort_unstable_by_key(|e| (e.criticality, e.flow));
        // Grant line rate to the most critical flow, and to the next ones while those granted end soon.
        if paused_elsewhere {
            return; // another port decides for this flow until it grants it
        }
        // Grant the most critical flows their rate while the port has capacity left, and (Early Start) the
        // next ones while those granted will all be done within K RTTs.
        let mut granted = false;
        let mut available = self.rate_bps;
        let mut busy_for: Time = 0;
        for e in self.flows.iter().filter(|e| !e.paused_elsewhere) {
            let grant = available >= e.demand_bps || busy_for < self.early_start;
            if e.flow == p.flow {
                granted = grant;
                break;
            }
            if !grant {
                break;
            }
            available = available.saturating_sub(e.demand_bps);
            // Until when the flows granted so far keep the port busy.
            busy_for = busy_for.max(serialization_ps(e.remaining_pkts as u64 * 1500, e.demand_bps));
        }
        if granted {
            p.rate_bps = p.rate_bps.min(self.rate_bps);
            if p.paused_by == self.id {
                p.paused_by = 0;
            }
        } else {
            if p.rate_bps > 0 || p.paused_by == 0 {
                p.paused_by = self.id; // the first port on the path to pause it names itself
            }
            p.rate_bps = 0;
        }
        // Nothing left to send (its last new packet, or the header of a flow that quit): forget it here.
        if p.ack == 0 {
            self.flows.retain(|e| e.flow != p.flow);
        }
    }
}
