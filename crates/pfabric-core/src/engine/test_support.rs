//! What the engine's unit tests share: a run from scenario JSON, trace workloads written inline, and the
//! packet ledger's check.

use crate::config::ScenarioConfig;
use crate::engine::Simulation;

/// The scenario `json`, run to its end.
pub(super) fn run(json: &str) -> Simulation {
    let mut sim = Simulation::new(ScenarioConfig::from_json(json).unwrap());
    sim.run();
    sim
}

/// A trace workload of (start s, src, dst, bytes) flows, as scenario JSON.
pub(super) fn trace(flows: &[(f64, u32, u32, u64)]) -> String {
    let joined = |items: Vec<String>| items.join(",");
    format!(
        r#"{{"kind": "trace", "start_s": [{}], "src": [{}], "dst": [{}], "size_bytes": [{}]}}"#,
        joined(flows.iter().map(|f| format!("{:?}", f.0)).collect()),
        joined(flows.iter().map(|f| f.1.to_string()).collect()),
        joined(flows.iter().map(|f| f.2.to_string()).collect()),
        joined(flows.iter().map(|f| f.3.to_string()).collect())
    )
}

/// Every data and control packet sent was delivered or dropped (a run that drained), and the goodput holds
/// every finished flow's bytes once, and no more than the flows' bytes.
pub(super) fn conserved(sim: &Simulation) {
    let c = sim.counters();
    assert_eq!(c.data_packets_sent, c.data_packets_delivered + c.data_packets_dropped);
    assert_eq!(c.control_packets_sent, c.control_packets_delivered + c.control_packets_dropped);
    goodput_within_bounds(sim);
}

/// Payload received new (`data_bytes_received`) lies between the bytes of the finished flows and those of every
/// flow: a copy is never counted twice.
pub(crate) fn goodput_within_bounds(sim: &Simulation) {
    let finished: u64 =
        sim.flows().iter().filter(|f| f.finish != crate::metrics::UNFINISHED).map(|f| f.size_bytes).sum();
    let all: u64 = sim.flows().iter().map(|f| f.size_bytes).sum();
    let got = sim.data_bytes_received();
    assert!(finished <= got && got <= all, "goodput {got} outside [{finished}, {all}]");
}
