//! Scenario builders shared by the integration tests.
#![allow(dead_code)]

use pfabric_core::ScenarioConfig;
use serde_json::{json, Value};

pub const WEBSEARCH_PKTS: [f64; 12] = [6., 6., 13., 19., 33., 53., 133., 667., 1333., 3333., 6667., 20000.];
pub const WEBSEARCH_CDF: [f64; 12] = [0., 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1.];

pub fn websearch_cdf() -> Value {
    json!({"size_bytes": WEBSEARCH_PKTS.iter().map(|p| p * 1460.0).collect::<Vec<_>>(), "cdf": WEBSEARCH_CDF.to_vec(), "interpolation": "linear"})
}

pub fn leaf_spine() -> Value {
    json!({"kind": "leaf-spine"})
}

pub fn star(hosts: u32) -> Value {
    json!({"kind": "star", "hosts": hosts})
}

/// Flows given as (start_s, src, dst, size_bytes).
pub fn trace(flows: &[(f64, u32, u32, u64)]) -> Value {
    json!({
        "kind": "trace",
        "start_s": flows.iter().map(|f| f.0).collect::<Vec<_>>(),
        "src": flows.iter().map(|f| f.1).collect::<Vec<_>>(),
        "dst": flows.iter().map(|f| f.2).collect::<Vec<_>>(),
        "size_bytes": flows.iter().map(|f| f.3).collect::<Vec<_>>(),
    })
}

pub fn poisson(load: f64, flows: u64) -> Value {
    json!({"kind": "poisson", "load": load, "flows": flows, "cdf": websearch_cdf()})
}

pub fn scenario(topology: Value, workload: Value, scheme: Value, seed: u64) -> ScenarioConfig {
    ScenarioConfig::from_value(&json!({"seed": seed, "topology": topology, "workload": workload, "scheme": scheme}))
        .expect("valid scenario")
}

/// A 64-bit FNV-1a hash of words (little-endian bytes): a run's results pinned in one number.
pub fn fnv1a(words: impl IntoIterator<Item = u64>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}
