//! # pfabric-core
//!
//! A packet-level discrete-event simulator of datacenter fabrics, built to reproduce pFabric (Alizadeh et al.,
//! SIGCOMM 2013) and the schemes it is compared with. Plain Rust, no Python: the `pfabric-py` crate binds it.
//!
//! Layers, bottom up:
//! - [`sim`]: integer-picosecond time, the event queue, seeded random streams.
//! - [`net`]: packets, topologies (leaf-spine, fat-tree, star, dumbbell) and their routes.
//! - [`queue`]: port disciplines, one file each (DropTail with optional ECN marking, pFabric).
//! - [`transport`]: host protocols (TCP NewReno + SACK, DCTCP, pFabric's minimal rate control).
//! - [`workload`]: flow-size CDFs, Poisson arrivals at a target load, flow lists.
//! - [`metrics`]: per-flow records, port and run counters, the ideal FCT.
//! - [`config`]: a scenario from JSON, validated, with the paper's defaults per scheme.
//! - [`engine`]: the simulation itself, tying the above together.
//! - [`ideal`]: the paper's flow-level central scheduler (Algorithm 1), run on the same arrivals.
//! - [`results`]: a finished run as columns.

pub mod config;
pub mod engine;
pub mod ideal;
pub mod metrics;
pub mod net;
pub mod queue;
pub mod results;
pub mod sim;
pub mod transport;
pub mod workload;

pub use config::{ConfigError, ScenarioConfig};
pub use engine::Simulation;
