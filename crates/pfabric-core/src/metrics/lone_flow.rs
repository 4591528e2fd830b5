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
//!   exactly for a lone flow (tested to the picosecond).
//!
//! Where every hop past the host's NIC is no slower than the slowest before it (the paper's fabric, with its
//! 40 Gbps core under 10 Gbps hosts), packets never queue where the paths part, every path gives the same
//! timings and the closed form of one path is exact. Otherwise a packet-level simulation of the lone flow
//! gives it, remembered per (source edge switch, destination edge switch, size): host links are alike on every
//! fabric built here, so that is all the answer depends on.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::config::Routing;
use crate::metrics::ideal_fct::{ideal_fct_ps, Hop};
use crate::net::packet::{packets_for, wire_bytes, MSS_BYTES};
use crate::net::topology::{ecmp_choice, Topology};
use crate::sim::time::{serialization_ps, Time};

/// The ideal FCT of each new flow of a run.
pub struct LoneFlowIdeal {
    routing: Routing,
    /// Scratch of the lone-flow simulation: when each port frees, and which ports it touched.
    free_at: Vec<Time>,
    touched: Vec<u32>,
    /// Packets on a wire: (arrival time, sequence, packet index, port crossed).
    in_flight: BinaryHeap<Reverse<(Time, u64, u64, u32)>>,
    memo: HashMap<(u32, u32, u64), Time>,
}

/// Memoized answers kept at most (a run with more distinct (edge pair, size) keys starts the memo afresh).
const MEMO_LIMIT: usize = 1 << 20;

impl LoneFlowIdeal {
    pub fn new(routing: Routing) -> Self {
        LoneFlowIdeal {
            routing,
            free_at: Vec::new(),
            touched: Vec::new(),
            in_flight: BinaryHeap::new(),
            memo: HashMap::new(),
        }
    }

    /// Ideal FCT in picoseconds of flow `flow` of `size_bytes` from `src` to `dst`.
    pub fn fct(&mut self, topo: &Topology, flow: u32, src: u32, dst: u32, size_bytes: u64) -> Time {
        match self.routing {
            Routing::Ecmp => {
                let path = topo.path_ports_with(src, dst, |node, choices| ecmp_choice(flow, node, choices));
                ideal_fct_ps(size_bytes, &hops(topo, &path))
            }
            Routing::Spray | Routing::Adaptive => {
                let path = hops(topo, &topo.path_ports(src, dst));
                if paths_part_where_nothing_queues(&path) {
                    return ideal_fct_ps(size_bytes, &path);
                }
                let key = (topo.edge_switch(src), topo.edge_switch(dst), size_bytes);
                if let Some(&t) = self.memo.get(&key) {
                    return t;
                }
                let t = self.simulate(topo, src, dst, size_bytes);
                if self.memo.len() >= MEMO_LIMIT {
                    self.memo.clear();
                }
                self.memo.insert(key, t);
                t
            }
        }
    }

    /// The lone flow, packet by packet: its NIC sends back to back from time 0, every switch sends each packet
    /// to the equal-cost port that frees first (the first such in the switch's order), every port serves in
    /// arrival order. Returns when the last byte lands.
    fn simulate(&mut self, topo: &Topology, src: u32, dst: u32, size_bytes: u64) -> Time {
        if self.free_at.len() != topo.ports.len() {
            self.free_at = vec![0; topo.ports.len()];
        }
        let n = packets_for(size_bytes);
        let last_wire = wire_bytes((size_bytes - (n - 1) * MSS_BYTES as u64) as u32) as u64;
        let full_wire = wire_bytes(MSS_BYTES) as u64;
        let wire = |i: u64| if i + 1 == n { last_wire } else { full_wire };
        let nic = topo.nic_port(src);
        let (nic_rate, nic_delay) = (topo.ports[nic as usize].rate_bps, topo.ports[nic as usize].delay_ps);
        let mut nic_free = serialization_ps(wire(0), nic_rate);
        let mut seq = 0;
        self.in_flight.clear();
        self.in_flight.push(Reverse((nic_free + nic_delay, seq, 0, nic)));
        let mut finish = 0;
        while let Some(Reverse((now, _, i, from))) = self.in_flight.pop() {
            if from == nic && i + 1 < n {
                // The NIC's next packet leaves as this one lands: in flight in time order with the rest.
                nic_free += serialization_ps(wire(i + 1), nic_rate);
                seq += 1;
                self.in_flight.push(Reverse((nic_free + nic_delay, seq, i + 1, nic)));
            }
            let node = topo.ports[from as usize].peer_node;
            if node == dst {
                finish = finish.max(now);
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
            let end = self.free_at[port as usize].max(now) + serialization_ps(wire(i), spec.rate_bps);
            self.free_at[port as usize] = end;
            seq += 1;
            self.in_flight.push(Reverse((end + spec.delay_ps, seq, i, port)));
        }
        for &p in &self.touched {
            self.free_at[p as usize] = 0;
        }
        self.touched.clear();
        finish
    }
}

fn hops(topo: &Topology, path: &[u32]) -> Vec<Hop> {
    path.iter()
        .map(|&p| Hop { rate_bps: topo.ports[p as usize].rate_bps, delay_ps: topo.ports[p as usize].delay_ps })
        .collect()
}

/// Whether the one path's closed form holds for a sprayed flow: every hop between the NIC and the last (where
/// equal-cost paths can part) serializes a full packet no slower than the slowest hop before it, so the
/// packets reach it spaced enough never to queue there, on whichever path.
fn paths_part_where_nothing_queues(path: &[Hop]) -> bool {
    let full = |h: &Hop| serialization_ps(wire_bytes(MSS_BYTES) as u64, h.rate_bps);
    let mut slowest = 0;
    for (k, h) in path.iter().enumerate() {
        if k > 0 && k + 1 < path.len() && full(h) > slowest {
            return false;
        }
        slowest = slowest.max(full(h));
    }
    true
}
