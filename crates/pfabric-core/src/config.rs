//! A scenario as the core takes it: parsed from JSON, checked field by field, completed with the paper's
//! defaults for the chosen scheme (DESIGN section 4, the pFabric paper's Table of parameters).
//!
//! The Python front validates first and explains; this layer checks again, so the core is safe to drive on its
//! own. Every error names the field, the value and what is allowed, in one line.

use serde_json::{Map, Value};

pub mod scheme;

use crate::net::packet::{PacketFormat, HEADER_BYTES, MSS_BYTES};
use crate::net::topology::{self, LinkParams, Topology};
use crate::queue::QueueConfig;
use crate::sim::time::{bps_from_gbps, ps_from_s, ps_from_us, Time};
use crate::transport::TransportParams;
use crate::workload::cdf::{EmpiricalCdf, Interpolation};
use crate::workload::{Arrivals, DeadlineSpec, FlowSpec, PoissonArrivals};

/// A field that is not allowed: `field: value is not allowed; expected ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub field: String,
    pub value: String,
    pub allowed: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} is not allowed; expected {}", self.field, self.value, self.allowed)
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(field: &str, value: impl std::fmt::Display, allowed: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError { field: field.to_string(), value: value.to_string(), allowed: allowed.into() })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// Per packet, uniformly among equal-cost next hops (the paper's packet spraying).
    Spray,
    /// Per flow, by a hash of the flow and the switch.
    Ecmp,
    /// Per packet, to the equal-cost port that frees first (a local least-loaded choice, as DRILL makes): a
    /// flow alone in the fabric gets its ideal FCT exactly.
    Adaptive,
}

#[derive(Clone, Debug)]
pub enum TopologyKind {
    LeafSpine { leaves: u32, hosts_per_leaf: u32, spines: u32 },
    Star { hosts: u32 },
    FatTree { k: u32 },
    Dumbbell { hosts_per_side: u32 },
}

#[derive(Clone, Debug)]
pub struct TopologyConfig {
    pub kind: TopologyKind,
    pub links: LinkParams,
    pub routing: Routing,
    /// How the fabric frames flows into packets (the scenario's `packet` section).
    pub format: PacketFormat,
}

impl TopologyConfig {
    pub fn hosts(&self) -> u32 {
        match self.kind {
            TopologyKind::LeafSpine { leaves, hosts_per_leaf, .. } => leaves * hosts_per_leaf,
            TopologyKind::Star { hosts } => hosts,
            TopologyKind::FatTree { k } => k * k * k / 4,
            TopologyKind::Dumbbell { hosts_per_side } => 2 * hosts_per_side,
        }
    }

    /// Hosts and switches.
    pub fn nodes(&self) -> u32 {
        self.hosts()
            + match self.kind {
                TopologyKind::LeafSpine { leaves, spines, .. } => leaves + spines,
                TopologyKind::Star { .. } => 1,
                TopologyKind::FatTree { k } => k * k + k * k / 4,
                TopologyKind::Dumbbell { .. } => 2,
            }
    }

    pub fn build(&self) -> Topology {
        match self.kind {
            TopologyKind::LeafSpine { leaves, hosts_per_leaf, spines } => {
                topology::leaf_spine(leaves, hosts_per_leaf, spines, self.links)
            }
            TopologyKind::Star { hosts } => topology::star(hosts, self.links),
            TopologyKind::FatTree { k } => topology::fat_tree(k, self.links),
            TopologyKind::Dumbbell { hosts_per_side } => topology::dumbbell(hosts_per_side, self.links),
        }
    }
}

#[derive(Clone, Debug)]
pub enum WorkloadConfig {
    Poisson {
        cdf: EmpiricalCdf,
        load: f64,
        flows: Option<u64>,
        duration: Option<Time>,
        deadlines: Option<DeadlineSpec>,
    },
    Flows(Vec<FlowSpec>),
    /// Distinct senders drawn at random, one per size, each sending its size to `receiver` at `start`
    /// (incast when the sizes are one request striped across the senders).
    FanIn {
        receiver: u32,
        sizes: Vec<u64>,
        starts: Vec<Time>,
        ranks: Option<Vec<u64>>,
    },
}

impl WorkloadConfig {
    pub fn into_arrivals(self, _topo: &Topology, t: &TopologyConfig, seed: u64) -> Arrivals {
        match self {
            WorkloadConfig::Poisson { cdf, load, flows, duration, deadlines } => {
                Arrivals::Poisson(Box::new(PoissonArrivals::new(
                    cdf,
                    t.format,
                    load,
                    t.hosts(),
                    t.links.host_rate_bps,
                    flows,
                    duration,
                    deadlines,
                    seed,
                )))
            }
            WorkloadConfig::Flows(list) => Arrivals::list(list),
            WorkloadConfig::FanIn { receiver, sizes, starts, ranks } => {
                Arrivals::list(crate::workload::fan_in(receiver, &sizes, &starts, ranks.as_deref(), t.hosts(), seed))
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct SchemeConfig {
    pub name: String,
    /// A flow-level scheme (Ideal): no packets, no queues.
    pub flow_level: bool,
    pub queue: QueueConfig,
    pub transport: TransportParams,
}

/// The scheme names the core knows: its bundles (`scheme::BUNDLES`).
pub fn scheme_names() -> Vec<&'static str> {
    scheme::BUNDLES.iter().map(|b| b.name).collect()
}

/// The parameters a scheme accepts with their defaults, in user units (`host` and `switch` first); None for an
/// unknown name.
pub fn scheme_defaults(name: &str) -> Option<Vec<(&'static str, Value)>> {
    scheme::defaults(name)
}

/// A fully resolved scenario.
#[derive(Clone, Debug)]
pub struct ScenarioConfig {
    pub seed: u64,
    pub topology: TopologyConfig,
    pub workload: WorkloadConfig,
    pub scheme: SchemeConfig,
    pub max_sim_time: Option<Time>,
    /// Stop after this many events; unset: a budget derived from the flows (see the engine's `event_budget`).
    pub max_events: Option<u64>,
    /// Run the partitioned engine on this many threads (0: every core); unset: the sequential engine. Every
    /// thread count gives the same results (engine::parallel).
    pub threads: Option<u32>,
    /// How the partitioned engine cuts the fabric (fixed by the topology, never by the thread count).
    pub partition: crate::net::partition::PartitionKind,
    pub measure: MeasureConfig,
}

/// What a run records beyond the per-flow table and port counters.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasureConfig {
    /// Upper edges of the priority-number bins for loss accounting (data packets, per port tier): bins are
    /// [0, e0), [e0, e1), ..., [e_last, inf).
    pub loss_priority_edges: Vec<u64>,
    /// Record each tracked flow's delivered bytes every this often, if set.
    pub sample_interval: Option<Time>,
    /// Flows with an id below this are tracked.
    pub track_flows: u32,
    /// Log every data packet that reaches a tracked flow's receiver (time, index, rank, retransmission).
    pub log_arrivals: bool,
    /// Which moment ends a flow's FCT (and its ideal, alone in the fabric, is measured the same way).
    pub fct_end: FctEnd,
}

/// The moment a flow completes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FctEnd {
    /// The receiver holds every byte (one way).
    #[default]
    Delivered,
    /// The sender holds the ACK of every byte: what the pFabric authors' ns-2 scripts (`done_data` on the
    /// last ACK) and netbench (`Socket.confirmFlow` at the sender), the AIFO paper's simulator, measure.
    Acked,
}

/// The paper's Figure 13 bins of priority numbers: [0,10), [10,100), [100,1K), [1K,3K), [3K,6K), [6K,10K),
/// [10K,20K) packets of 1460 bytes, and above.
pub const FIGURE13_EDGES_PKTS: [u64; 7] = [10, 100, 1_000, 3_000, 6_000, 10_000, 20_000];

impl Default for MeasureConfig {
    fn default() -> Self {
        MeasureConfig {
            loss_priority_edges: FIGURE13_EDGES_PKTS.iter().map(|p| p * crate::net::packet::MSS_BYTES as u64).collect(),
            sample_interval: None,
            track_flows: 0,
            log_arrivals: false,
            fct_end: FctEnd::Delivered,
        }
    }
}

fn parse_measure(v: &Value) -> Result<MeasureConfig, ConfigError> {
    let s = Section::of(v, "output")?;
    s.only(&[
        "warmup_fraction",
        "cooldown_fraction",
        "loss_priority_edges_bytes",
        "sample_interval_s",
        "track_flows",
        "log_arrivals",
        "fct_end",
    ])?;
    let mut m = MeasureConfig::default();
    if s.get("loss_priority_edges_bytes").is_some() {
        let edges = s.f64_list("loss_priority_edges_bytes")?;
        for (i, w) in edges.windows(2).enumerate() {
            if w[1] <= w[0] {
                return err(&format!("output.loss_priority_edges_bytes[{}]", i + 1), w[1], "increasing edges");
            }
        }
        if edges.first().is_some_and(|&e| e <= 0.0) {
            return err("output.loss_priority_edges_bytes[0]", edges[0], "edges > 0");
        }
        if edges.len() > 254 {
            return err("output.loss_priority_edges_bytes", edges.len(), "at most 254 edges");
        }
        m.loss_priority_edges = edges.iter().map(|&e| e as u64).collect();
    }
    if s.get("sample_interval_s").is_some() {
        m.sample_interval = Some(ps_from_s(s.duration("sample_interval_s", 1.0, 1.0, true)?).max(1));
    }
    m.track_flows = s.int_in("track_flows", 0, 0, 1 << 20)? as u32;
    m.log_arrivals = match s.get("log_arrivals") {
        None => false,
        Some(v) => v.as_bool().map_or_else(|| err("output.log_arrivals", v, "true or false"), Ok)?,
    };
    m.fct_end = match s.get("fct_end") {
        None | Some(Value::Null) => FctEnd::Delivered,
        Some(Value::String(name)) if name == "delivered" => FctEnd::Delivered,
        Some(Value::String(name)) if name == "acked" => FctEnd::Acked,
        Some(other) => return err("output.fct_end", other, "\"delivered\" or \"acked\""),
    };
    Ok(m)
}

// ---- reading JSON ----

struct Section<'a> {
    path: &'a str,
    map: &'a Map<String, Value>,
}

impl<'a> Section<'a> {
    fn of(v: &'a Value, path: &'a str) -> Result<Self, ConfigError> {
        match v.as_object() {
            Some(map) => Ok(Section { path, map }),
            None => err(path, v, "a table"),
        }
    }

    fn field(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{}", self.path, key)
        }
    }

    fn only(&self, allowed: &[&str]) -> Result<(), ConfigError> {
        for k in self.map.keys() {
            if !allowed.contains(&k.as_str()) {
                return err(&self.field(k), "this field", format!("one of: {}", allowed.join(", ")));
            }
        }
        Ok(())
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn f64_or(&self, key: &str, default: f64) -> Result<f64, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.as_f64() {
                Some(x) if x.is_finite() => Ok(x),
                _ => err(&self.field(key), v, "a finite number"),
            },
        }
    }

    fn positive(&self, key: &str, default: f64) -> Result<f64, ConfigError> {
        let x = self.f64_or(key, default)?;
        if x > 0.0 {
            Ok(x)
        } else {
            err(&self.field(key), format!("{x:?}"), "a number > 0")
        }
    }

    /// A duration in [0, MAX_SECONDS] seconds given in `unit_s` seconds per unit.
    fn duration(&self, key: &str, default: f64, unit_s: f64, positive: bool) -> Result<f64, ConfigError> {
        let x = if positive { self.positive(key, default)? } else { self.non_negative(key, default)? };
        if x * unit_s > MAX_SECONDS {
            return err(
                &self.field(key),
                format!("{x:?}"),
                format!("at most {:?} (about 11 days)", MAX_SECONDS / unit_s),
            );
        }
        Ok(x)
    }

    /// A link's delay in microseconds, in [0, MAX_LINK_DELAY_S].
    fn link_delay(&self, key: &str, default: f64) -> Result<f64, ConfigError> {
        let x = self.non_negative(key, default)?;
        if x * 1e-6 > MAX_LINK_DELAY_S {
            return err(&self.field(key), format!("{x:?}"), "a delay in [0, 1e6] us (at most one second)");
        }
        Ok(x)
    }

    fn non_negative(&self, key: &str, default: f64) -> Result<f64, ConfigError> {
        let x = self.f64_or(key, default)?;
        if x >= 0.0 {
            Ok(x)
        } else {
            err(&self.field(key), format!("{x:?}"), "a number >= 0")
        }
    }

    fn int_in(&self, key: &str, default: u64, lo: u64, hi: u64) -> Result<u64, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => match v.as_u64() {
                Some(x) if (lo..=hi).contains(&x) => Ok(x),
                _ => err(&self.field(key), v, format!("an integer in [{lo}, {hi}]")),
            },
        }
    }

    fn str_or(&self, key: &str, default: &'a str) -> Result<&'a str, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(v) => v.as_str().map_or_else(|| err(&self.field(key), v, "a string"), Ok),
        }
    }

    fn f64_list(&self, key: &str) -> Result<Vec<f64>, ConfigError> {
        let Some(v) = self.get(key) else { return err(&self.field(key), "nothing", "a list of numbers") };
        let Some(items) = v.as_array() else { return err(&self.field(key), v, "a list of numbers") };
        items
            .iter()
            .enumerate()
            .map(|(i, x)| match x.as_f64() {
                Some(f) if f.is_finite() => Ok(f),
                _ => err(&format!("{}[{i}]", self.field(key)), x, "a finite number"),
            })
            .collect()
    }
}

const MAX_HOSTS: u64 = 1 << 20;
/// Longest time a scenario may name (delays, starts, durations): simulated time is a u64 of picoseconds,
/// which overflows after 213 days; 1e6 s leaves room for any sum of them.
pub const MAX_SECONDS: f64 = 1e6;
/// Most flows a run may start: flow ids are 32 bits.
pub const MAX_FLOWS: u64 = 1 << 32;
/// Largest flow a scenario may name: a terabyte is 685 million packets, minutes of simulation; more would
/// run for days.
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000;
/// Longest propagation or host delay of a link: a second is 5,000 times a datacenter's round trip.
pub const MAX_LINK_DELAY_S: f64 = 1.0;

fn parse_topology(v: &Value) -> Result<TopologyConfig, ConfigError> {
    let s = Section::of(v, "topology")?;
    let kind = s.str_or("kind", "leaf-spine")?;
    let common = ["kind", "host_rate_gbps", "link_delay_us", "host_delay_us", "routing"];
    let allowed = |extra: &[&'static str]| -> Vec<&str> { common.iter().chain(extra).copied().collect() };
    let (kind, core_key) = match kind {
        "leaf-spine" => {
            s.only(&allowed(&["leaves", "hosts_per_leaf", "spines", "core_rate_gbps"]))?;
            let leaves = s.int_in("leaves", 9, 1, 4096)? as u32;
            let hpl = s.int_in("hosts_per_leaf", 16, 1, 4096)? as u32;
            if (leaves as u64) * (hpl as u64) < 2 || (leaves as u64) * (hpl as u64) > MAX_HOSTS {
                return err("topology.hosts_per_leaf", hpl, format!("leaves x hosts_per_leaf in [2, {MAX_HOSTS}]"));
            }
            (
                TopologyKind::LeafSpine { leaves, hosts_per_leaf: hpl, spines: s.int_in("spines", 4, 1, 4096)? as u32 },
                "core_rate_gbps",
            )
        }
        "star" => {
            s.only(&allowed(&["hosts"]))?;
            (TopologyKind::Star { hosts: s.int_in("hosts", 145, 2, MAX_HOSTS)? as u32 }, "")
        }
        "fat-tree" => {
            s.only(&allowed(&["k", "core_rate_gbps"]))?;
            let k = s.int_in("k", 4, 2, 64)?;
            if k % 2 != 0 {
                return err("topology.k", k, "an even integer in [2, 64]");
            }
            (TopologyKind::FatTree { k: k as u32 }, "core_rate_gbps")
        }
        "dumbbell" => {
            s.only(&allowed(&["hosts_per_side", "bottleneck_rate_gbps"]))?;
            (
                TopologyKind::Dumbbell { hosts_per_side: s.int_in("hosts_per_side", 8, 1, MAX_HOSTS / 2)? as u32 },
                "bottleneck_rate_gbps",
            )
        }
        other => return err("topology.kind", format!("{other:?}"), "one of: leaf-spine, star, fat-tree, dumbbell"),
    };
    let host_rate = s.positive("host_rate_gbps", 10.0)?;
    let core_rate = if core_key.is_empty() {
        host_rate
    } else {
        s.positive(core_key, if core_key == "core_rate_gbps" { 40.0 } else { 10.0 })?
    };
    let routing = match s.str_or("routing", "spray")? {
        "spray" => Routing::Spray,
        "ecmp" => Routing::Ecmp,
        "adaptive" => Routing::Adaptive,
        other => return err("topology.routing", format!("{other:?}"), "one of: spray, ecmp, adaptive"),
    };
    for (key, rate) in [("host_rate_gbps", host_rate), (core_key, core_rate)] {
        if !(1e-3..=1e6).contains(&rate) {
            return err(&format!("topology.{key}"), format!("{rate:?}"), "a rate in [0.001, 1e6] Gbps");
        }
    }
    Ok(TopologyConfig {
        kind,
        links: LinkParams {
            host_rate_bps: bps_from_gbps(host_rate),
            core_rate_bps: bps_from_gbps(core_rate),
            link_delay_ps: ps_from_us(s.link_delay("link_delay_us", 0.2)?),
            host_delay_ps: ps_from_us(s.link_delay("host_delay_us", 2.5)?),
        },
        routing,
        format: PacketFormat::DEFAULT,
    })
}

/// The `packet` section: payload bytes of a full packet and header bytes of every packet.
fn parse_packet(v: &Value) -> Result<PacketFormat, ConfigError> {
    let s = Section::of(v, "packet")?;
    s.only(&["mss_bytes", "header_bytes"])?;
    Ok(PacketFormat {
        mss_bytes: s.int_in("mss_bytes", MSS_BYTES as u64, 1, MAX_MSS_BYTES)? as u32,
        header_bytes: s.int_in("header_bytes", HEADER_BYTES as u64, 1, MAX_HEADER_BYTES)? as u32,
    })
}

/// Largest payload of a packet a scenario may name (a jumbo frame is 9,000 bytes; a 64 KB segment offloaded
/// whole is the most any stack sends as one).
pub const MAX_MSS_BYTES: u64 = 65_536;
/// Largest header a scenario may name.
pub const MAX_HEADER_BYTES: u64 = 4_096;

fn parse_workload(
    v: &Value,
    format: PacketFormat,
    hosts: u32,
    host_rate_bps: u64,
) -> Result<WorkloadConfig, ConfigError> {
    let s = Section::of(v, "workload")?;
    match s.str_or("kind", "poisson")? {
        "poisson" => {
            s.only(&["kind", "cdf", "load", "arrival_rate_per_s", "flows", "duration_s", "deadlines"])?;
            // Either a load in (0, 1), or (to reproduce set-ups that got it wrong, such as a per-sender rate
            // used as the total) an explicit total arrival rate, whose load may be anything, overload included.
            let rate = match (s.get("load"), s.get("arrival_rate_per_s")) {
                (Some(_), Some(_)) => {
                    return err(
                        "workload.arrival_rate_per_s",
                        "both load and a rate",
                        "one of load, arrival_rate_per_s",
                    )
                }
                (None, Some(_)) => Some(s.positive("arrival_rate_per_s", 1.0)?),
                _ => None,
            };
            let load = s.f64_or("load", 0.6)?;
            if rate.is_none() && !(load > 0.0 && load < 1.0) {
                return err("workload.load", load, "a number in (0, 1)");
            }
            let flows = match s.get("flows") {
                None => None,
                Some(_) => Some(s.int_in("flows", 0, 1, MAX_FLOWS)?),
            };
            let duration = match s.get("duration_s") {
                None => None,
                Some(_) => Some(ps_from_s(s.duration("duration_s", 1.0, 1.0, true)?)),
            };
            if flows.is_none() && duration.is_none() {
                return err("workload.flows", "nothing", "a number of flows or a duration_s");
            }
            let Some(cdf_v) = s.get("cdf") else { return err("workload.cdf", "nothing", "a CDF table") };
            let c = Section::of(cdf_v, "workload.cdf")?;
            c.only(&["size_bytes", "cdf", "interpolation"])?;
            let interpolation = match c.str_or("interpolation", "linear")? {
                "linear" => Interpolation::Linear,
                "step" => Interpolation::Step,
                other => return err("workload.cdf.interpolation", format!("{other:?}"), "one of: linear, step"),
            };
            let cdf = EmpiricalCdf::new(c.f64_list("size_bytes")?, c.f64_list("cdf")?, interpolation).or_else(|e| {
                let field =
                    if e.place.is_empty() { "workload.cdf".to_string() } else { format!("workload.cdf: {}", e.place) };
                err(&field, e.value, e.allowed)
            })?;
            let deadlines = match s.get("deadlines") {
                None => None,
                Some(v) => {
                    let d = Section::of(v, "workload.deadlines")?;
                    d.only(&["mean_s", "min_factor", "max_size_bytes", "fraction"])?;
                    let fraction = d.f64_or("fraction", 1.0)?;
                    if !(fraction > 0.0 && fraction <= 1.0) {
                        return err("workload.deadlines.fraction", format!("{fraction:?}"), "a fraction in (0, 1]");
                    }
                    Some(DeadlineSpec {
                        mean: ps_from_s(d.duration("mean_s", 1e-3, 1.0, true)?),
                        min_factor: d.non_negative("min_factor", 1.25)?,
                        max_size_bytes: d.int_in("max_size_bytes", u64::MAX >> 2, 1, u64::MAX >> 2)?,
                        fraction,
                    })
                }
            };
            let load = match rate {
                Some(r) => r * 8.0 * cdf.mean_wire_bytes(format) / (hosts as f64 * host_rate_bps as f64),
                None => load,
            };
            // Arrivals must fit the longest simulated time: a load so small (or so many flows) that they would
            // arrive over more than MAX_SECONDS is refused (time is a u64 of picoseconds).
            let per_s = crate::workload::arrival_rate_per_s(load, hosts, host_rate_bps, cdf.mean_wire_bytes(format));
            if let (Some(n), None) = (flows, duration) {
                let span_s = n as f64 / per_s;
                if span_s.is_nan() || span_s > MAX_SECONDS {
                    let (field, value) = match rate {
                        Some(r) => ("workload.arrival_rate_per_s", format!("{r:?}")),
                        None => ("workload.load", format!("{load:?}")),
                    };
                    let allowed = format!(
                        "flows arriving within {MAX_SECONDS:e} s ({n} flows would take {span_s:.3e} s): a larger \
                         load or rate, or fewer flows"
                    );
                    return err(field, value, allowed);
                }
            }
            if let (None, Some(d)) = (flows, duration) {
                // Flow ids are 32 bits: a duration that would start more flows than that is refused, not cut.
                let per_s =
                    crate::workload::arrival_rate_per_s(load, hosts, host_rate_bps, cdf.mean_wire_bytes(format));
                let longest = MAX_FLOWS as f64 / per_s;
                if d as f64 / crate::sim::time::PS_PER_S as f64 > longest {
                    let value = format!("{:?}", d as f64 / crate::sim::time::PS_PER_S as f64);
                    let allowed = format!("at most {longest:.4e} s at this load and CDF (2^32 flows at most)");
                    return err("workload.duration_s", value, allowed);
                }
            }
            Ok(WorkloadConfig::Poisson { cdf, load, flows, duration, deadlines })
        }
        "trace" => {
            s.only(&["kind", "start_s", "src", "dst", "size_bytes", "deadline_s"])?;
            let start = s.f64_list("start_s")?;
            let src = s.f64_list("src")?;
            let dst = s.f64_list("dst")?;
            let size = s.f64_list("size_bytes")?;
            let deadline = if s.get("deadline_s").is_some() { Some(s.f64_list("deadline_s")?) } else { None };
            let n = start.len();
            if src.len() != n || dst.len() != n || size.len() != n || deadline.as_ref().is_some_and(|d| d.len() != n) {
                return err(
                    "workload",
                    "columns of different lengths",
                    "start_s, src, dst, size_bytes (and deadline_s) of equal length",
                );
            }
            let mut flows = Vec::with_capacity(n);
            for i in 0..n {
                let host = |x: f64, name: &str| {
                    if x.fract() == 0.0 && x >= 0.0 && x < hosts as f64 {
                        Ok(x as u32)
                    } else {
                        err(&format!("workload.{name}[{i}]"), x, format!("a host index in [0, {hosts})"))
                    }
                };
                let (a, b) = (host(src[i], "src")?, host(dst[i], "dst")?);
                if a == b {
                    return err(&format!("workload.dst[{i}]"), b, "a host other than the source");
                }
                if !(0.0..=MAX_SECONDS).contains(&start[i]) {
                    return err(&format!("workload.start_s[{i}]"), format!("{:?}", start[i]), "a time in [0, 1e6] s");
                }
                if size[i].is_nan() || size[i] <= 0.0 || size[i] > MAX_FLOW_BYTES as f64 {
                    return err(&format!("workload.size_bytes row {}", i + 1), size[i], "a size in (0, 1e12] bytes");
                }
                let dl = match &deadline {
                    Some(d) if d[i] > MAX_SECONDS => {
                        return err(
                            &format!("workload.deadline_s[{i}]"),
                            format!("{:?}", d[i]),
                            "a deadline of at most 1e6 s",
                        )
                    }
                    Some(d) if d[i] > 0.0 => Some(ps_from_s(start[i] + d[i])),
                    Some(d) if d[i] < 0.0 => {
                        return err(&format!("workload.deadline_s[{i}]"), d[i], "a deadline > 0 (0 for none)")
                    }
                    _ => None,
                };
                flows.push(FlowSpec {
                    start: ps_from_s(start[i]),
                    src: a,
                    dst: b,
                    size_bytes: size[i].ceil() as u64,
                    deadline: dl,
                    deadline_min_factor: 0.0,
                    rank: None,
                });
            }
            Ok(WorkloadConfig::Flows(flows))
        }
        "fan-in" => {
            s.only(&[
                "kind",
                "receiver",
                "senders",
                "flow_bytes",
                "total_bytes",
                "sizes_bytes",
                "start_s",
                "starts_s",
                "ranks",
            ])?;
            let receiver = s.int_in("receiver", 0, 0, hosts as u64 - 1)? as u32;
            let sizes: Vec<u64> = match (s.get("flow_bytes"), s.get("total_bytes"), s.get("sizes_bytes")) {
                (Some(_), None, None) => {
                    let senders = s.int_in("senders", 1, 1, hosts as u64 - 1)?;
                    vec![s.int_in("flow_bytes", 1, 1, MAX_FLOW_BYTES)?; senders as usize]
                }
                (None, Some(_), None) => {
                    let senders = s.int_in("senders", 1, 1, hosts as u64 - 1)?;
                    vec![s.int_in("total_bytes", 1, 1, MAX_FLOW_BYTES * senders)?.div_ceil(senders); senders as usize]
                }
                (None, None, Some(v)) => {
                    let list = s.f64_list("sizes_bytes")?;
                    if list.is_empty() || list.len() as u64 > hosts as u64 - 1 {
                        return err("workload.sizes_bytes", v, format!("1 to {} sizes, one per sender", hosts - 1));
                    }
                    if let Some(bad) = list.iter().find(|&&x| !(1.0..=MAX_FLOW_BYTES as f64).contains(&x)) {
                        return err("workload.sizes_bytes", bad, "sizes in [1, 1e12] bytes");
                    }
                    list.iter().map(|&x| x.ceil() as u64).collect()
                }
                _ => {
                    return err(
                        "workload.flow_bytes",
                        "more or fewer than one size",
                        "exactly one of flow_bytes, total_bytes, sizes_bytes",
                    )
                }
            };
            let start = ps_from_s(s.duration("start_s", 0.0, 1.0, false)?);
            let per_sender = |key: &str| -> Result<Option<Vec<f64>>, ConfigError> {
                match s.get(key) {
                    None => Ok(None),
                    Some(v) => {
                        let list = s.f64_list(key)?;
                        if list.len() != sizes.len() {
                            return err(
                                &format!("workload.{key}"),
                                v,
                                format!("{} values, one per sender", sizes.len()),
                            );
                        }
                        if let Some(bad) = list.iter().find(|&&x| !(0.0..=MAX_SECONDS * 1e12).contains(&x)) {
                            return err(&format!("workload.{key}"), bad, "values >= 0");
                        }
                        Ok(Some(list))
                    }
                }
            };
            let starts = per_sender("starts_s")?
                .map(|l| l.iter().map(|&x| ps_from_s(x.min(MAX_SECONDS))).collect())
                .unwrap_or_else(|| vec![start; sizes.len()]);
            let ranks = per_sender("ranks")?.map(|l| l.iter().map(|&x| x as u64).collect());
            Ok(WorkloadConfig::FanIn { receiver, sizes, starts, ranks })
        }
        other => err("workload.kind", format!("{other:?}"), "one of: poisson, trace, fan-in"),
    }
}

fn parse_scheme(v: &Value, format: PacketFormat) -> Result<SchemeConfig, ConfigError> {
    scheme::parse(&Section::of(v, "scheme")?, format)
}

impl ScenarioConfig {
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let v: Value = serde_json::from_str(text).or_else(|e| err("scenario", e, "valid JSON"))?;
        Self::from_value(&v)
    }

    pub fn from_value(v: &Value) -> Result<Self, ConfigError> {
        let s = Section::of(v, "")?;
        s.only(&["seed", "topology", "packet", "workload", "scheme", "run", "output"])?;
        let seed = s.int_in("seed", 1, 0, u64::MAX >> 1)?;
        let empty = Value::Object(Map::new());
        let mut topology = parse_topology(s.get("topology").unwrap_or(&empty))?;
        topology.format = parse_packet(s.get("packet").unwrap_or(&empty))?;
        let mut scheme = parse_scheme(s.get("scheme").unwrap_or(&empty), topology.format)?;
        scheme.transport.host_rate_bps = topology.links.host_rate_bps;
        if scheme.transport.constant_rate_bps == 0 {
            scheme.transport.constant_rate_bps = topology.links.host_rate_bps;
        }
        scheme.transport.jitter_seed = crate::sim::rng::stream_seed(seed, "send-jitter");
        let workload = parse_workload(
            s.get("workload").unwrap_or(&empty),
            topology.format,
            topology.hosts(),
            topology.links.host_rate_bps,
        )?;
        let run = Section::of(s.get("run").unwrap_or(&empty), "run")?;
        run.only(&["max_sim_time_s", "max_events", "threads", "partition"])?;
        let max_sim_time = match run.get("max_sim_time_s") {
            None => None,
            Some(_) => Some(ps_from_s(run.duration("max_sim_time_s", 1.0, 1.0, true)?)),
        };
        let max_events = match run.get("max_events") {
            None | Some(Value::Null) => None,
            Some(_) => Some(run.int_in("max_events", 1, 1, u64::MAX >> 1)?),
        };
        let threads = match run.get("threads") {
            None | Some(Value::Null) => None,
            Some(_) => Some(run.int_in("threads", 1, 0, 4096)? as u32),
        };
        use crate::net::partition::{PartitionKind, MAX_NODE_PARTITIONS};
        let partition = match run.get("partition") {
            // Unset: what runs fastest on the kind of fabric (bench/RESULTS.md, seventh session): a fat-tree's
            // pods; elsewhere hosts apart from switches, whose long host links make long windows, but for NDP,
            // which cannot run so (`engine::parallel::partitionable`): its racks.
            None | Some(Value::Null) => match topology.kind {
                TopologyKind::FatTree { .. } => PartitionKind::Groups,
                _ if scheme.transport.protocol == crate::transport::Protocol::Ndp => PartitionKind::Racks,
                _ => PartitionKind::Hosts,
            },
            Some(Value::String(name)) => match PartitionKind::parse(name) {
                Some(kind) => kind,
                None => return err("run.partition", format!("{name:?}"), "one of: groups, racks, hosts, nodes"),
            },
            Some(other) => return err("run.partition", other.to_string(), "one of: groups, racks, hosts, nodes"),
        };
        if partition == PartitionKind::Nodes && topology.nodes() > MAX_NODE_PARTITIONS {
            return err(
                "run.partition",
                "\"nodes\"".to_string(),
                format!(
                    "groups or racks on a fabric of {} nodes (nodes: at most {MAX_NODE_PARTITIONS})",
                    topology.nodes()
                ),
            );
        }
        let measure = parse_measure(s.get("output").unwrap_or(&empty))?;
        Ok(ScenarioConfig { seed, topology, workload, scheme, max_sim_time, max_events, threads, partition, measure })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::{PriorityScheme, Protocol};

    fn parse(json: &str) -> Result<ScenarioConfig, String> {
        ScenarioConfig::from_json(json).map_err(|e| e.to_string())
    }

    const CDF: &str = r#""cdf": {"size_bytes": [1460, 14600], "cdf": [0.5, 1.0], "interpolation": "step"}"#;

    #[test]
    fn defaults_are_the_papers() {
        let c = parse(&format!(r#"{{"workload": {{"flows": 10, {CDF}}}}}"#)).unwrap();
        assert_eq!(c.topology.hosts(), 144);
        assert_eq!(c.scheme.queue, QueueConfig::DropTail { limit_bytes: 225_000, mark_above_bytes: None });
        assert_eq!(c.scheme.transport.min_rto, 200_000_000);
        let p = parse(&format!(r#"{{"scheme": {{"name": "pfabric"}}, "workload": {{"flows": 10, {CDF}}}}}"#)).unwrap();
        assert_eq!(p.scheme.queue, QueueConfig::Pfabric { limit_bytes: 36_000 });
        assert_eq!(p.scheme.transport.fixed_rto, 45_000_000);
    }

    #[test]
    fn pias_is_dctcp_stamping_bytes_sent_over_marking_priority_queues() {
        let c = parse(&format!(
            r#"{{"scheme": {{"name": "pias", "thresholds_bytes": [14600, 146000]}}, "workload": {{"flows": 10, {CDF}}}}}"#
        ))
        .unwrap();
        assert_eq!(c.scheme.transport.protocol, Protocol::Dctcp);
        assert_eq!(c.scheme.transport.priority, PriorityScheme::BytesSent);
        assert_eq!((c.scheme.transport.init_cwnd_pkts, c.scheme.transport.max_cwnd_pkts), (70, 239));
        // The first 14,600 bytes (10 packets, stamped 0 .. 13,140) go to the top queue: the port's bound is
        // one less than the bytes a flow sends there.
        let queue = QueueConfig::PrioThresholds {
            thresholds: vec![14_599, 145_999],
            limit_bytes: 360_000,
            reserved_bytes: 0,
            mark_above_bytes: Some(97_500),
        };
        assert_eq!(c.scheme.queue, queue);
        let q = crate::queue::PrioThresholds::new(vec![14_599, 145_999], 360_000, 0, None);
        assert_eq!(
            [q.class_of(9 * 1460), q.class_of(10 * 1460), q.class_of(99 * 1460), q.class_of(100 * 1460)],
            [0, 1, 1, 2]
        );
    }

    #[test]
    fn the_packet_format_sizes_flows_and_the_load_and_bad_ones_are_refused() {
        let netbench = parse(&format!(
            r#"{{"packet": {{"mss_bytes": 1380, "header_bytes": 120}}, "scheme": {{"name": "pdq"}},
                "workload": {{"flows": 10, {CDF}}}}}"#
        ))
        .unwrap();
        let f = PacketFormat { mss_bytes: 1380, header_bytes: 120 };
        assert_eq!((netbench.topology.format, netbench.scheme.transport.format), (f, f));
        assert_eq!(netbench.scheme.transport.pdq_syn_wire_bytes, 120, "PDQ's SYN: headers alone");
        // The step CDF's 1,460 and 14,600 bytes are 2 and 11 packets of 1,380: 6.5 x 1,500 wire bytes a flow.
        let WorkloadConfig::Poisson { cdf, .. } = &netbench.workload else { panic!() };
        assert_eq!(cdf.mean_wire_bytes(f), 6.5 * 1500.0);
        assert_eq!(cdf.sample_bytes(0.2, f), 2 * 1380);
        // TCP's window, at most the buffer less one packet, counts packets of the run's format.
        let jumbo = parse(&format!(
            r#"{{"packet": {{"mss_bytes": 9000}}, "scheme": {{"name": "tcp"}}, "workload": {{"flows": 10, {CDF}}}}}"#
        ))
        .unwrap();
        assert_eq!(jumbo.scheme.transport.max_cwnd_pkts, 225_000 / 9_040 - 1);
        let refused = |packet: &str| {
            parse(&format!(r#"{{"packet": {packet}, "workload": {{"flows": 10, {CDF}}}}}"#)).unwrap_err().to_string()
        };
        assert!(refused(r#"{"mss_bytes": 0}"#).starts_with("packet.mss_bytes: 0 is not allowed"));
        assert!(refused(r#"{"header_bytes": 0}"#).starts_with("packet.header_bytes: 0 is not allowed"));
        assert!(refused(r#"{"mss_bytes": 1e9}"#).starts_with("packet.mss_bytes"));
        assert!(refused(r#"{"mtu": 1500}"#).starts_with("packet.mtu: this field is not allowed"));
        let e = parse(&format!(
            r#"{{"packet": {{"header_bytes": 120}}, "scheme": {{"name": "pdq", "syn_bytes": 40}},
                "workload": {{"flows": 10, {CDF}}}}}"#
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("scheme.syn_bytes: 40 is not allowed; expected at least the packet's header_bytes"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_field_value_and_what_is_allowed() {
        let e = parse(&format!(r#"{{"workload": {{"load": 1.5, "flows": 3, {CDF}}}}}"#)).unwrap_err();
        assert_eq!(e, "workload.load: 1.5 is not allowed; expected a number in (0, 1)");
        let e = parse(r#"{"topology": {"kind": "ring"}}"#).unwrap_err();
        assert!(e.starts_with("topology.kind: \"ring\" is not allowed"), "{e}");
        let e = parse(r#"{"scheme": {"name": "xcp"}}"#).unwrap_err();
        assert!(e.contains("scheme.name") && e.contains("pfabric"), "{e}");
        let e = parse(r#"{"topology": {"host_rate_gbps": -1}, "workload": {"flows": 1}}"#).unwrap_err();
        assert!(e.starts_with("topology.host_rate_gbps: -1"), "{e}");
        let e = parse(r#"{"scheme": {"name": "tcp", "rto_us": 3}}"#).unwrap_err();
        assert!(e.starts_with("scheme.rto_us"), "{e}");
        let e =
            parse(r#"{"workload": {"kind": "trace", "start_s": [0], "src": [0], "dst": [999], "size_bytes": [10]}}"#)
                .unwrap_err();
        assert!(e.starts_with("workload.dst[0]: 999"), "{e}");
    }

    /// A load so small that the flows would arrive over more than 1e6 s (it once overflowed the event queue's
    /// time) is refused.
    #[test]
    fn flows_that_would_arrive_beyond_the_longest_time_are_refused() {
        let e = parse(&format!(r#"{{"workload": {{"load": 1e-300, "flows": 10, {CDF}}}}}"#)).unwrap_err();
        assert!(e.starts_with("workload.load: 1e-300 is not allowed; expected flows arriving within"), "{e}");
        let e = parse(&format!(r#"{{"workload": {{"arrival_rate_per_s": 1e-9, "flows": 10, {CDF}}}}}"#)).unwrap_err();
        assert!(e.starts_with("workload.arrival_rate_per_s: 1e-9"), "{e}");
    }

    /// A duration that would start more than 2^32 flows (flow ids are 32 bits) is refused, not cut short.
    #[test]
    fn a_duration_beyond_four_billion_flows_is_refused() {
        let e = parse(&format!(r#"{{"workload": {{"load": 0.9, "duration_s": 1e6, {CDF}}}}}"#)).unwrap_err();
        assert!(e.starts_with("workload.duration_s: 1000000.0 is not allowed; expected at most"), "{e}");
        assert!(parse(&format!(r#"{{"workload": {{"load": 0.9, "duration_s": 1e-3, {CDF}}}}}"#)).is_ok());
    }
}
