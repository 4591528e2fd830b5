//! The ideal FCT of a flow on any fabric: the flow alone in the idle fabric, routed as the run routes.
//!
//! - **ECMP**: the flow's one path (the switches' hash of it), in closed form ([`ideal_fct_ps`]).
//! - **Spraying** (random or adaptive): a flow's packets may take different equal-cost paths, and where the
//!   paths part on links slower than the host's (an oversubscribed core), a flow alone can go faster than any
//!   one path allows. Its ideal is then the best it can do alone: each packet, at each switch, sent to the
//!   equal-cost port that frees first. On the fabrics built here (every equal-cost path the same sequence of
//!   rates and delays) that greedy choice is the optimum over all per-packet choices: identical packets
//!   released in order to identical parallel servers each start earliest on the server that frees first (the
//!   list-scheduling argument), and a FIFO link's completions only move earlier when its arrivals do. So no
//!   sprayed packet in any run, loaded or not, beats it (slowdown >= 1), and `routing = "adaptive"` gives it
//!   exactly for a lone flow of whole packets (tested to the picosecond).
//!
//! Where every hop past the host's NIC is no slower than the slowest before it (the paper's fabric, with its
//! 40 Gbps core under 10 Gbps hosts), full packets never queue where the paths part, every path gives the same
//! timings and the closed form of one path is exact. Otherwise a packet-level simulation of the lone flow
//! gives when each full packet reaches the destination's switch.
//!
//! A flow's short last packet is the exception to "in order": taking another path, it can overtake the full
//! packets before it and land first (found by the property test over random scenarios: a fat-tree at equal
//! tier rates, slowdown 0.99983; then a fast core under slow hosts, where the short packet found the first
//! core link free but the second still busy with the full packet ahead, 0.969). Its ideal takes it alone on
//! its path once it leaves the NIC, after the full packets or before them all: a bound no run beats, met by
//! adaptive routing where the short packet's local choice is also its best (the paper's fabric) and a few
//! percent below it otherwise.
//!
//! Answers are remembered per (source edge switch, destination edge switch, size): host links are alike on
//! every fabric built here, so that is all they depend on.
//!
//! Where a run measures FCT to the sender's last ACK ([`FctEnd::Acked`]), the ideal adds that ACK's trip back
//! alone: a header-size packet, store and forward, along the reverse path (every equal-cost path the same).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::config::{FctEnd, Routing};
use crate::metrics::ideal_fct::{ideal_fct_ps, Hop};
use crate::net::packet::PacketFormat;
use crate::net::topology::{ecmp_choice, Topology};
use crate::sim::time::{serialization_ps, Time};

/// The ideal FCT of each new flow of a run.
pub struct LoneFlowIdeal {
    routing: Routing,
    fct_end: FctEnd,
    format: PacketFormat,
    /// Scratch of the lone-flow simulation: when each port frees, and which ports it touched.
    free_at: Vec<Time>,
    touched: Vec<u32>,
    /// Packets on a wire: (arrival time, sequence, packet index, port crossed).
    in_flight: BinaryHeap<Reverse<(Time, u64, u64, u32)>>,
    /// When each full packet reaches the destination's switch.
    landings: Vec<Time>,
    memo: HashMap<(u32, u32, u64), Time>,
}

/// Memoized answers kept at most (a run with more distinct (edge pair, size) keys starts the memo afresh).
const MEMO_LIMIT: usize = 1 << 20;

impl LoneFlowIdeal {
    pub fn new(routing: Routing, fct_end: FctEnd, format: PacketFormat) -> Self {
        LoneFlowIdeal {
            routing,
            fct_end,
            format,
            free_at: Vec::new(),
            touched: Vec::new(),
            in_flight: BinaryHeap::new(),
            landings: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// Ideal FCT in picoseconds of flow `flow` of `size_bytes` from `src` to `dst`, to the moment the run's
    /// FCT ends.
    pub fn fct(&mut self, topo: &Topology, flow: u32, src: u32, dst: u32, size_bytes: u64) -> Time {
        let delivered = self.delivered(topo, flow, src, dst, size_bytes);
        match self.fct_end {
            FctEnd::Delivered => delivered,
            FctEnd::Acked => delivered + ack_return_ps(topo, src, dst, self.format),
        }
    }

    /// Ideal time in picoseconds until the receiver holds every byte.
    fn delivered(&mut self, topo: &Topology, flow: u32, src: u32, dst: u32, size_bytes: u64) -> Time {
        if self.routing == Routing::Ecmp {
            let path = topo.path_ports_with(src, dst, |node, choices| ecmp_choice(flow, node, choices));
            return ideal_fct_ps(size_bytes, &hops(topo, &path), self.format);
        }
        let path = hops(topo, &topo.path_ports(src, dst));
        let format = self.format;
        let n = format.packets_for(size_bytes);
        if n == 1 || !topo.has_equal_cost_choices() {
            return ideal_fct_ps(size_bytes, &path, format); // one packet, or one path between any two hosts
        }
        let short_last = !size_bytes.is_multiple_of(format.mss_bytes as u64);
        let no_queue_where_paths_part = paths_part_where_nothing_queues(&path, format);
        if !short_last && no_queue_where_paths_part {
            return ideal_fct_ps(size_bytes, &path, format);
        }
        let key = (topo.edge_switch(src), topo.edge_switch(dst), size_bytes);
        if let Some(&t) = self.memo.get(&key) {
            return t;
        }
        let full = format.full_wire_bytes() as u64;
        let full_packets = if short_last { n - 1 } else { n };
        let last_wire = format.wire_bytes(format.payload_of(size_bytes, n as u32, n as u32 - 1)) as u64;
        self.landings.clear();
        let stream = if no_queue_where_paths_part {
            // Full packets leave the NIC back to back and never queue before the last switch: they land one
            // NIC serialization apart.
            let before_last = &path[..path.len() - 1];
            let transit: Time = before_last.iter().map(|h| h.delay_ps).sum::<Time>()
                + before_last[1..].iter().map(|h| serialization_ps(full, h.rate_bps)).sum::<Time>();
            let s0 = serialization_ps(full, path[0].rate_bps);
            self.landings.push(s0 + transit);
            Landings { first: &self.landings, period: 1, advance: s0, total: full_packets, full_wire: full }
        } else {
            let simulated = full_packets.min(SIMULATED_PACKETS);
            self.simulate(topo, src, dst, simulated);
            self.landings.sort_unstable();
            let (period, advance) = if simulated < full_packets { steady_state(&self.landings) } else { (1, 0) };
            Landings { first: &self.landings, period, advance, total: full_packets, full_wire: full }
        };
        let last = path[path.len() - 1];
        let t = if short_last {
            // The short last packet alone on its path: no run lands it sooner after it leaves the NIC, nor the
            // full ones sooner than here, and the last link's work-conserving server never finishes earlier
            // for later arrivals. It leaves the NIC after the full packets (in order), or before them all,
            // which delays each of them by its own serialization there (a rank-ordered NIC queue sends the
            // flow's packets in reverse); the better of the two bounds every run from below.
            let nic = serialization_ps(last_wire, path[0].rate_bps);
            let solo: Time = nic
                + path[0].delay_ps
                + path[1..path.len() - 1]
                    .iter()
                    .map(|h| serialization_ps(last_wire, h.rate_bps) + h.delay_ps)
                    .sum::<Time>();
            let full_nic = serialization_ps(full, path[0].rate_bps);
            let after = stream.last_link_finish(0, Some((full_packets * full_nic + solo, last_wire)), last);
            let before = stream.last_link_finish(nic, Some((solo, last_wire)), last);
            after.min(before)
        } else {
            stream.last_link_finish(0, None, last)
        };
        if self.memo.len() >= MEMO_LIMIT {
            self.memo.clear();
        }
        self.memo.insert(key, t);
        t
    }

    /// The lone flow's first `packets`, packet by packet up to the destination's switch: the NIC sends back to
    /// back from time 0, every switch sends each packet to the equal-cost port that frees first (the first
    /// such in the switch's order), every port serves in arrival order. Fills `landings` with when each (a
    /// full packet) reaches the last switch.
    fn simulate(&mut self, topo: &Topology, src: u32, dst: u32, packets: u64) {
        let full = self.format.full_wire_bytes() as u64;
        if self.free_at.len() != topo.ports.len() {
            self.free_at = vec![0; topo.ports.len()];
        }
        let last_switch = topo.edge_switch(dst);
        let nic = topo.nic_port(src);
        let (nic_rate, nic_delay) = (topo.ports[nic as usize].rate_bps, topo.ports[nic as usize].delay_ps);
        let nic_ser = serialization_ps(full, nic_rate);
        let mut nic_free = nic_ser;
        let mut seq = 0;
        self.in_flight.clear();
        self.in_flight.push(Reverse((nic_free + nic_delay, seq, 0, nic)));
        while let Some(Reverse((now, _, i, from))) = self.in_flight.pop() {
            if from == nic && i + 1 < packets {
                // The NIC's next packet leaves as this one lands: in flight in time order with the rest.
                nic_free += nic_ser;
                seq += 1;
                self.in_flight.push(Reverse((nic_free + nic_delay, seq, i + 1, nic)));
            }
            let node = topo.ports[from as usize].peer_node;
            if node == last_switch {
                self.landings.push(now);
                continue;
            }
            let choices = topo.next_hops(node, dst);
            let mut port = choices[0];
            for &c in &choices[1..] {
                if self.free_at[c as usize].max(now) < self.free_at[port as usize].max(now) {
                    port = c;
                }
            }
            let spec = &topo.ports[port as usize];
            if self.free_at[port as usize] == 0 {
                self.touched.push(port);
            }
            let end = self.free_at[port as usize].max(now) + serialization_ps(full, spec.rate_bps);
            self.free_at[port as usize] = end;
            seq += 1;
            self.in_flight.push(Reverse((end + spec.delay_ps, seq, i, port)));
        }
        for &p in &self.touched {
            self.free_at[p as usize] = 0;
        }
        self.touched.clear();
    }
}

/// Full packets simulated at most; a longer flow's landings continue the steady state they reach.
const SIMULATED_PACKETS: u64 = 1 << 16;

/// Where the lone flow's full packets land at the last switch, in time order: the `first` ones as computed, the
/// rest (up to `total`) repeating the last `period` of them `advance` later each time (the steady state that a
/// flow's packets reach, a few packets in, in a network of FIFO links: a max-plus linear system's periodic
/// regime).
struct Landings<'a> {
    first: &'a [Time],
    period: usize,
    advance: Time,
    total: u64,
    /// Wire bytes of each full packet.
    full_wire: u64,
}

impl Landings<'_> {
    /// When the last link, a single server taking packets in the order they land, has delivered them all:
    /// every full packet landing `shift` later than computed, and `extra` (a landing time and wire size) too.
    /// Packet by packet without storing them, so a terabyte flow costs time, not memory.
    fn last_link_finish(&self, shift: Time, extra: Option<(Time, u64)>, last: Hop) -> Time {
        let full = serialization_ps(self.full_wire, last.rate_bps);
        let mut extra = extra.map(|(at, wire)| (at, serialization_ps(wire, last.rate_bps)));
        let mut free: Time = 0;
        let known = self.first.len() as u64;
        for i in 0..self.total {
            let at = shift
                + if i < known {
                    self.first[i as usize]
                } else {
                    let back = (i - known) / self.period as u64 + 1;
                    let base = known - self.period as u64 + (i - known) % self.period as u64;
                    self.first[base as usize] + back * self.advance
                };
            if let Some((x, ser)) = extra {
                if x <= at {
                    free = free.max(x) + ser;
                    extra = None;
                }
            }
            free = free.max(at) + full;
        }
        if let Some((x, ser)) = extra {
            free = free.max(x) + ser;
        }
        free + last.delay_ps
    }
}

/// The period (in packets) and the advance per period of sorted landings in their steady state: the shortest
/// period over which the last four periods' landings all advanced by the same amount.
fn steady_state(landings: &[Time]) -> (usize, Time) {
    let n = landings.len();
    for period in 1..=n / 5 {
        let advance = landings[n - 1] - landings[n - 1 - period];
        if (0..4 * period).all(|k| landings[n - 1 - k] - landings[n - 1 - k - period] == advance) {
            return (period, advance);
        }
    }
    // No periodic regime within the simulated packets (not met on the fabrics built here): the last packet's
    // spacing, which a link never beats once the flow is in its stride.
    (1, landings[n - 1] - landings[n - 2])
}

/// A lone ACK's trip from `dst` back to `src`: header-size, store and forward on each hop.
pub fn ack_return_ps(topo: &Topology, src: u32, dst: u32, format: PacketFormat) -> Time {
    trip_ps(topo, dst, src, format.control_wire_bytes())
}

/// A lone full data packet's trip from `src` to `dst`: store and forward on each hop.
pub fn full_packet_trip_ps(topo: &Topology, src: u32, dst: u32, format: PacketFormat) -> Time {
    trip_ps(topo, src, dst, format.full_wire_bytes())
}

/// A lone packet of `wire` bytes from `from` to `to`: each hop's serialization and delay.
fn trip_ps(topo: &Topology, from: u32, to: u32, wire: u32) -> Time {
    hops(topo, &topo.path_ports(from, to)).iter().map(|h| h.delay_ps + serialization_ps(wire as u64, h.rate_bps)).sum()
}

fn hops(topo: &Topology, path: &[u32]) -> Vec<Hop> {
    path.iter()
        .map(|&p| Hop { rate_bps: topo.ports[p as usize].rate_bps, delay_ps: topo.ports[p as usize].delay_ps })
        .collect()
}

/// Whether the one path's closed form holds for a sprayed flow: every hop between the NIC and the last (where
/// equal-cost paths can part) serializes a full packet no slower than the slowest hop before it, so the
/// packets reach it spaced enough never to queue there, on whichever path.
fn paths_part_where_nothing_queues(path: &[Hop], format: PacketFormat) -> bool {
    let full = |h: &Hop| serialization_ps(format.full_wire_bytes() as u64, h.rate_bps);
    let mut slowest = 0;
    for (k, h) in path.iter().enumerate() {
        if k > 0 && k + 1 < path.len() && full(h) > slowest {
            return false;
        }
        slowest = slowest.max(full(h));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::{leaf_spine, LinkParams};

    #[test]
    fn measured_to_its_ack_a_one_packet_flow_takes_the_papers_rtt() {
        // Out: 2 x (1.2 us at 10G + 2.7 us) + 2 x (0.3 us at 40G + 0.2 us) = 8.8 us; the 40-byte ACK back:
        // 2 x (0.032 + 2.7) + 2 x (0.008 + 0.2) = 5.88 us; together the paper's 14.6 us RTT (to 0.08 us).
        let topo = leaf_spine(9, 16, 4, LinkParams::PAPER);
        assert_eq!(ack_return_ps(&topo, 0, 143, PacketFormat::DEFAULT), 5_880_000);
        let mut delivered = LoneFlowIdeal::new(Routing::Spray, FctEnd::Delivered, PacketFormat::DEFAULT);
        let mut acked = LoneFlowIdeal::new(Routing::Spray, FctEnd::Acked, PacketFormat::DEFAULT);
        assert_eq!(delivered.fct(&topo, 0, 0, 143, 1460), 8_800_000);
        assert_eq!(acked.fct(&topo, 0, 0, 143, 1460), 14_680_000);
        // Under one leaf: two host links each way.
        assert_eq!(acked.fct(&topo, 1, 0, 5, 1460) - delivered.fct(&topo, 1, 0, 5, 1460), 5_464_000);
    }
}
