//! PDQ: the extra RTT of flow initiation, preemptive scheduling of the most critical flow, and whole runs.

mod common;

use common::*;
use pfabric_core::Simulation;
use serde_json::json;

#[test]
fn one_packet_flows_take_at_least_twice_their_ideal_time() {
    for (src, dst) in [(0, 143), (0, 1)] {
        let mut sim =
            Simulation::new(scenario(leaf_spine(), trace(&[(0.0, src, dst, 1460)]), json!({"name": "pdq"}), 1));
        sim.run();
        let f = &sim.flows()[0];
        let slowdown = (f.finish - f.start) as f64 / f.ideal_fct as f64;
        assert!((2.0..3.0).contains(&slowdown), "{src}->{dst}: {slowdown}");
    }
}

#[test]
fn the_smaller_flow_preempts_and_the_link_stays_busy() {
    // A 2 MB flow starts; 100 us later a 200 KB flow to the same host preempts it.
    let flows = [(0.0, 1, 0, 2_000_000u64), (100e-6, 2, 0, 200_000)];
    let mut sim = Simulation::new(scenario(star(4), trace(&flows), json!({"name": "pdq"}), 1));
    sim.run();
    let f = sim.flows();
    assert!(f.iter().all(|x| x.finish != u64::MAX));
    let small = (f[1].finish - f[1].start) as f64 / f[1].ideal_fct as f64;
    assert!(small < 1.5, "the preempting flow runs near line rate: {small}");
    assert!(f[1].finish < f[0].finish, "the smaller flow finishes first");
    let best = (pfabric_core::net::packet::PacketFormat::DEFAULT.flow_wire_bytes(2_000_000)
        + pfabric_core::net::packet::PacketFormat::DEFAULT.flow_wire_bytes(200_000))
        * 800;
    assert!(((f[0].finish - f[0].start) as f64) < best as f64 * 1.05, "the link stays busy");
}

#[test]
fn a_loaded_fabric_drains_and_conserves_packets() {
    let mut sim = Simulation::new(scenario(leaf_spine(), poisson(0.6, 1500), json!({"name": "pdq"}), 2));
    sim.run();
    let c = sim.counters();
    assert_eq!(c.flows_finished, 1500);
    assert_eq!(sim.live_packets(), 0);
    assert_eq!(c.data_packets_sent, c.data_packets_delivered + c.data_packets_dropped);
}
