//! DCTCP holds the bottleneck queue near its marking threshold and keeps the link busy; TCP fills the buffer.

mod common;

use common::*;
use pfabric_core::Simulation;
use serde_json::json;

const FLOW_BYTES: u64 = 20_000_000;

/// Two long flows into host 0 of a star; returns (mean and max queue at host 0's port, last finish in ps).
fn two_flows_into_one_port(scheme: serde_json::Value) -> (f64, u64, u64) {
    let flows = [(0.0, 1, 0, FLOW_BYTES), (0.0, 2, 0, FLOW_BYTES)];
    let mut sim = Simulation::new(scenario(star(4), trace(&flows), scheme, 1));
    sim.run();
    assert!(sim.flows().iter().all(|f| f.finish != u64::MAX));
    let t = sim.topology();
    let port = (0..t.ports.len()).find(|&p| t.ports[p].node == 4 && t.ports[p].peer_node == 0).unwrap();
    let last = sim.flows().iter().map(|f| f.finish).max().unwrap();
    (sim.mean_queue_bytes(port), sim.port_counters(port).max_queue_bytes, last)
}

#[test]
fn dctcp_queue_hovers_near_k_and_the_link_stays_busy() {
    let k = 22_500.0;
    let (mean, max, last) = two_flows_into_one_port(json!({"name": "dctcp"}));
    assert!(mean > 0.3 * k && mean < 2.0 * k, "mean queue {mean} B, K {k} B");
    assert!(max < 4 * k as u64, "max queue {max} B");
    // Both flows' wire bytes through the 10 Gbps port, plus little: the link never idles for long.
    let best = 2 * pfabric_core::net::packet::PacketFormat::DEFAULT.flow_wire_bytes(FLOW_BYTES) * 800;
    assert!((last as f64) < best as f64 * 1.02, "last finish {last} ps, best {best} ps");

    let (tcp_mean, tcp_max, _) = two_flows_into_one_port(json!({"name": "tcp"}));
    assert!(tcp_max > 200_000, "TCP fills the 225 KB buffer: max {tcp_max} B");
    assert!(tcp_mean > 3.0 * mean, "TCP's standing queue {tcp_mean} B against DCTCP's {mean} B");
}
