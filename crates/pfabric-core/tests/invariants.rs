//! Invariants of whole runs: every flow ends when the run drains, packets are conserved, and the same scenario
//! and seed replay identically.

mod common;

use common::*;
use pfabric_core::results::{flow_columns, Column};
use pfabric_core::Simulation;
use serde_json::json;

fn run(load: f64, flows: u64, scheme: serde_json::Value, seed: u64) -> Simulation {
    let mut sim = Simulation::new(scenario(leaf_spine(), poisson(load, flows), scheme, seed));
    sim.run();
    sim
}

fn check_conservation(sim: &Simulation) {
    let c = sim.counters();
    assert_eq!(sim.live_packets(), 0, "the network drained");
    assert_eq!(c.data_packets_sent, c.data_packets_delivered + c.data_packets_dropped);
    assert_eq!(c.control_packets_sent, c.control_packets_delivered + c.control_packets_dropped);
    let port_drops: u64 = (0..sim.topology().ports.len()).map(|p| sim.port_counters(p).drop_data_packets).sum();
    assert_eq!(port_drops, c.data_packets_dropped);
    // Bytes conserved: every flow finished, and the payload its receiver took new is its size, once (copies
    // from retransmissions left out).
    assert_eq!(sim.data_bytes_received(), sim.flows().iter().map(|f| f.size_bytes).sum::<u64>(), "goodput");
}

#[test]
fn tcp_run_drains_and_conserves_packets() {
    let sim = run(0.6, 3000, json!({"name": "tcp"}), 3);
    assert_eq!(sim.counters().flows_finished, 3000);
    assert!(sim.flows().iter().all(|f| f.finish >= f.start + f.ideal_fct));
    check_conservation(&sim);
}

#[test]
fn pfabric_run_drains_and_conserves_packets() {
    let sim = run(0.8, 3000, json!({"name": "pfabric"}), 4);
    assert_eq!(sim.counters().flows_finished, 3000);
    assert!(sim.counters().data_packets_dropped > 0, "a loaded pFabric fabric drops");
    check_conservation(&sim);
}

/// Every port discipline under load (the engine's debug checks compare its mirror of each queue's bytes with
/// the queue's own count after every enqueue and dequeue).
#[test]
fn every_scheme_drains_and_conserves_packets() {
    for scheme in [
        json!({"name": "dctcp"}),
        json!({"name": "pfabric-linerate"}),
        json!({"name": "pdq"}),
        json!({"name": "pifo"}),
        json!({"name": "sp-pifo"}),
        json!({"name": "aifo"}),
        json!({"name": "pieo"}),
        json!({"name": "afq"}),
        json!({"name": "pifo", "rank": "stfq"}),
        json!({"name": "pias", "thresholds_bytes": [20_000, 200_000, 2_000_000]}),
        json!({"name": "tcp", "recovery": "newreno"}),
        json!({"name": "dctcp", "recovery": "newreno", "handshake": true}),
        json!({"name": "pifo", "recovery": "newreno"}),
        json!({"name": "aifo", "recovery": "newreno", "handshake": true}),
    ] {
        let sim = run(0.7, 300, scheme.clone(), 6);
        assert_eq!(sim.counters().flows_finished, 300, "{scheme}");
        check_conservation(&sim);
    }
}

/// netbench's handshake under a PIFO: a flow's later packets rank below its final ACK and overtake it where it
/// waits, so its receiver refuses them (data before the connection is established) and the sender recovers them
/// as losses. Refused packets are delivered, counted apart, and every flow still finishes with all its data.
#[test]
fn data_that_overtakes_the_handshake_is_refused_and_recovered() {
    let sim = run(0.7, 1000, json!({"name": "pifo", "recovery": "newreno", "handshake": true}), 7);
    let c = sim.counters();
    assert_eq!(c.flows_finished, 1000);
    assert!(c.data_packets_refused > 0, "a loaded PIFO lets data pass the final ACK");
    assert!(c.data_packets_refused < c.data_packets_delivered);
    let needed: u64 = sim.flows().iter().map(|f| f.size_bytes.div_ceil(1460).max(1)).sum();
    assert!(c.data_packets_delivered - c.data_packets_refused >= needed);
    check_conservation(&sim);
    // Without the handshake nothing is refused.
    let plain = run(0.7, 1000, json!({"name": "pifo", "recovery": "newreno"}), 7);
    assert_eq!(plain.counters().data_packets_refused, 0);
}

#[test]
fn prio_queues_run_drains_conserves_and_favours_small_flows() {
    let thresholds = json!({"name": "prio-queues", "thresholds_bytes": [20_000, 200_000, 2_000_000]});
    let pq = run(0.6, 2000, thresholds, 5);
    let tcp = run(0.6, 2000, json!({"name": "tcp"}), 5);
    assert_eq!(pq.counters().flows_finished, 2000);
    check_conservation(&pq);
    let small_slowdown = |sim: &Simulation| {
        let small: Vec<f64> = sim
            .flows()
            .iter()
            .filter(|f| f.size_bytes <= 100_000)
            .map(|f| (f.finish - f.start) as f64 / f.ideal_fct as f64)
            .collect();
        small.iter().sum::<f64>() / small.len() as f64
    };
    assert!(small_slowdown(&pq) < 0.7 * small_slowdown(&tcp), "{} vs {}", small_slowdown(&pq), small_slowdown(&tcp));
}

fn snapshot(sim: &Simulation) -> Vec<u64> {
    let mut v = Vec::new();
    for (_, col) in flow_columns(sim) {
        match col {
            Column::U64(x) => v.extend(x),
            Column::U32(x) => v.extend(x.iter().map(|&y| y as u64)),
            Column::Bool(x) => v.extend(x.iter().map(|&y| y as u64)),
            _ => {}
        }
    }
    v.push(sim.counters().events);
    v
}

#[test]
fn same_seed_same_results_other_seed_other_results() {
    let a = snapshot(&run(0.5, 800, json!({"name": "tcp"}), 9));
    let b = snapshot(&run(0.5, 800, json!({"name": "tcp"}), 9));
    let c = snapshot(&run(0.5, 800, json!({"name": "tcp"}), 10));
    assert_eq!(a, b);
    assert_ne!(a, c);
}

/// No scenario runs on without bound. A host delay of 1e12 us (once accepted, then a run of timeouts a million
/// times shorter than the round trip that never ended) is refused; at the longest delay allowed, a second,
/// pFabric's 45 us timeouts still fire thousands of times per round trip, and the run stops at its event
/// budget with what it has, flagged, instead of running on.
#[test]
fn every_accepted_scenario_ends_within_its_event_budget() {
    let refused = pfabric_core::ScenarioConfig::from_value(&json!({
        "topology": {"kind": "star", "hosts": 8, "host_delay_us": 1e12},
    }));
    let Err(e) = refused else { panic!("a host delay of 1e12 us was accepted") };
    assert_eq!(e.field, "topology.host_delay_us", "{e}");
    let huge_cdf = json!({"size_bytes": [1460.0, 1e15], "cdf": [0.5, 1.0], "interpolation": "linear"});
    let refused = pfabric_core::ScenarioConfig::from_value(&json!({"workload": {"flows": 10, "cdf": huge_cdf}}));
    let Err(e) = refused else { panic!("a CDF reaching 1e15-byte flows was accepted") };
    assert!(e.to_string().contains("1e12"), "{e}");

    for scheme in [json!({"name": "pfabric"}), json!({"name": "tcp"})] {
        let mut sim = Simulation::new(scenario(
            json!({"kind": "star", "hosts": 8, "host_delay_us": 1e6}),
            json!({"kind": "poisson", "load": 0.5, "flows": 20,
                   "cdf": {"size_bytes": [14600], "cdf": [1.0], "interpolation": "step"}}),
            scheme.clone(),
            1,
        ));
        sim.run();
        let c = sim.counters();
        assert!(c.events <= sim.event_budget(), "{scheme}");
        assert!(
            c.flows_finished == 20 || (sim.out_of_budget() && sim.cut_short()),
            "{scheme}: {} finished, not flagged",
            c.flows_finished
        );
    }
    let mut sim = Simulation::new(
        pfabric_core::ScenarioConfig::from_value(&json!({
            "topology": {"kind": "star", "hosts": 8},
            "workload": {"kind": "poisson", "load": 0.5, "flows": 50, "cdf": websearch_cdf()},
            "run": {"max_events": 1000},
        }))
        .unwrap(),
    );
    sim.run();
    assert_eq!(sim.counters().events, 1000);
    assert!(sim.out_of_budget() && sim.cut_short());
    assert!(sim.counters().flows_finished < 50);
}

/// The parallelism profile watches a run without changing it, and charges it every event.
#[test]
fn the_parallelism_profile_changes_nothing_and_counts_every_event() {
    let plain = run(0.6, 600, json!({"name": "pfabric"}), 5);
    let mut profiled = Simulation::new(scenario(leaf_spine(), poisson(0.6, 600), json!({"name": "pfabric"}), 5));
    profiled.profile_parallelism();
    profiled.run();
    assert_eq!(snapshot(&plain), snapshot(&profiled));
    let events = profiled.counters().events;
    let p = profiled.parallelism().expect("asked for");
    assert_eq!(p.events, events);
    assert_eq!(p.racks, 9);
    // One thread's critical path is every event; more threads never lengthen it.
    assert_eq!(p.critical[0], p.events);
    assert!(p.critical.windows(2).all(|w| w[1] <= w[0]));
}

/// A run stopped at its time limit with flows in flight: the goodput holds every finished flow's bytes and part of
/// the others', packet-level and flow-level (Ideal) alike, and the same run let drain holds every byte.
#[test]
fn goodput_counts_the_bytes_received_by_the_time_limit() {
    for scheme in [json!({"name": "pfabric"}), json!({"name": "ideal"}), json!({"name": "tcp"})] {
        let mut cfg = scenario(leaf_spine(), poisson(0.8, 2000), scheme.clone(), 9);
        cfg.max_sim_time = Some(20_000_000_000); // 20 ms: long flows are still in flight
        let mut cut = Simulation::new(cfg);
        cut.run();
        let size = |f: &pfabric_core::metrics::FlowRecord| f.size_bytes;
        let finished: u64 =
            cut.flows().iter().filter(|f| f.finish != pfabric_core::metrics::UNFINISHED).map(size).sum();
        let started: u64 = cut.flows().iter().filter(|f| f.start <= 20_000_000_000).map(size).sum();
        let got = cut.data_bytes_received();
        assert!(finished < got && got < started, "{scheme}: {finished} < {got} < {started}");
        let whole = run(0.8, 2000, scheme.clone(), 9);
        assert_eq!(whole.data_bytes_received(), whole.flows().iter().map(size).sum::<u64>(), "{scheme}");
    }
}
