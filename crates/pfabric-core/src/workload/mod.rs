//! Traffic: which flows start when, between which hosts, of what size.
//!
//! A workload is a source of flow arrivals in start order, drawn lazily: a million-flow run holds only the next
//! arrival, not the whole schedule. Poisson arrivals at a target load draw sizes, gaps and endpoints from
//! separate random streams, so changing one never shifts the others.

pub mod cdf;

use crate::net::packet::PacketFormat;
use crate::sim::rng::Rng;
use crate::sim::time::{Time, PS_PER_S};
use cdf::EmpiricalCdf;

/// One flow as the workload asks for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlowSpec {
    pub start: Time,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    /// Absolute deadline, if the flow has one.
    pub deadline: Option<Time>,
    /// If > 0, the deadline is raised to at least start + this x the flow's ideal FCT (known at its start).
    pub deadline_min_factor: f64,
    /// A rank the flow's packets carry whatever the scheme would stamp (the AIFO paper's fixed-rank flows).
    pub rank: Option<u64>,
}

/// Which flows of a Poisson workload get deadlines, and how tight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeadlineSpec {
    /// Mean of the exponential time a flow gets after its start.
    pub mean: Time,
    /// The deadline is at least this x the flow's ideal FCT (the paper: 1.25).
    pub min_factor: f64,
    /// Only flows of at most this size get one.
    pub max_size_bytes: u64,
    /// Of those, this fraction (at random) gets one.
    pub fraction: f64,
}

/// Total flow arrival rate (flows per second) that offers `load` of the hosts' access capacity, in wire bytes
/// (DESIGN section 3): lambda = load * hosts * rate / (8 * mean wire bytes per flow).
pub fn arrival_rate_per_s(load: f64, hosts: u32, host_rate_bps: u64, mean_wire_bytes: f64) -> f64 {
    load * hosts as f64 * host_rate_bps as f64 / (8.0 * mean_wire_bytes)
}

/// A Poisson process of flows, sources and destinations uniform over the hosts (source != destination).
#[derive(Clone)]
pub struct PoissonArrivals {
    cdf: EmpiricalCdf,
    /// Sizes are whole packets of this format, and the load counts its wire bytes.
    format: PacketFormat,
    hosts: u32,
    mean_gap_ps: f64,
    clock_ps: f64,
    remaining: Option<u64>,
    end: Option<Time>,
    gaps: Rng,
    sizes: Rng,
    endpoints: Rng,
    deadlines: Option<(DeadlineSpec, Rng)>,
}

impl PoissonArrivals {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        cdf: EmpiricalCdf,
        format: PacketFormat,
        load: f64,
        hosts: u32,
        host_rate_bps: u64,
        flows: Option<u64>,
        end: Option<Time>,
        deadlines: Option<DeadlineSpec>,
        seed: u64,
    ) -> Self {
        let rate = arrival_rate_per_s(load, hosts, host_rate_bps, cdf.mean_wire_bytes(format));
        PoissonArrivals {
            cdf,
            format,
            hosts,
            mean_gap_ps: PS_PER_S as f64 / rate,
            clock_ps: 0.0,
            remaining: flows,
            end,
            gaps: Rng::stream(seed, "arrival-gaps"),
            sizes: Rng::stream(seed, "flow-sizes"),
            endpoints: Rng::stream(seed, "endpoints"),
            deadlines: deadlines.map(|d| (d, Rng::stream(seed, "deadlines"))),
        }
    }

    pub fn next_flow(&mut self) -> Option<FlowSpec> {
        if self.remaining == Some(0) {
            return None;
        }
        self.clock_ps += self.gaps.exponential(self.mean_gap_ps);
        if self.clock_ps > 2.0 * crate::config::MAX_SECONDS * PS_PER_S as f64 {
            // Past any time a scenario may name (validation keeps the expected span within MAX_SECONDS).
            self.remaining = Some(0);
            return None;
        }
        let start = self.clock_ps.round() as Time;
        if let Some(end) = self.end {
            if start >= end {
                self.remaining = Some(0);
                return None;
            }
        }
        if let Some(r) = self.remaining.as_mut() {
            *r -= 1;
        }
        let src = self.endpoints.below(self.hosts as u64) as u32;
        let mut dst = self.endpoints.below(self.hosts as u64 - 1) as u32;
        if dst >= src {
            dst += 1;
        }
        let size_bytes = self.cdf.sample_bytes(self.sizes.uniform(), self.format);
        let mut flow = FlowSpec { start, src, dst, size_bytes, deadline: None, deadline_min_factor: 0.0, rank: None };
        if let Some((spec, rng)) = &mut self.deadlines {
            // Both draws always happen, so which flows get deadlines does not shift the times drawn.
            let chosen = rng.uniform() < spec.fraction;
            let after = rng.exponential(spec.mean as f64).round() as Time;
            if chosen && size_bytes <= spec.max_size_bytes {
                flow.deadline = Some(start + after);
                flow.deadline_min_factor = spec.min_factor;
            }
        }
        Some(flow)
    }
}

/// Where a run's flows come from.
#[derive(Clone)]
pub enum Arrivals {
    Poisson(Box<PoissonArrivals>),
    /// A fixed list, sorted by start time.
    List {
        flows: Vec<FlowSpec>,
        next: usize,
    },
}

impl Arrivals {
    pub fn list(mut flows: Vec<FlowSpec>) -> Self {
        flows.sort_by_key(|f| f.start);
        Arrivals::List { flows, next: 0 }
    }

    pub fn next_flow(&mut self) -> Option<FlowSpec> {
        match self {
            Arrivals::Poisson(p) => p.next_flow(),
            Arrivals::List { flows, next } => {
                let f = flows.get(*next).copied();
                *next += 1;
                f
            }
        }
    }

    /// How many flows this source will produce, when known in advance.
    /// The sizes of the first `at_most` flows to come, drawn from a copy (the run's own draws are untouched):
    /// what a scheme that learns the workload's size distribution (Homa's priority cutoffs) is shown.
    pub fn first_sizes(&self, at_most: usize) -> Vec<u64> {
        let mut ahead = self.clone();
        std::iter::from_fn(|| ahead.next_flow()).take(at_most).map(|f| f.size_bytes).collect()
    }

    pub fn total(&self) -> Option<u64> {
        match self {
            Arrivals::Poisson(p) => p.remaining.filter(|_| p.end.is_none()),
            Arrivals::List { flows, .. } => Some(flows.len() as u64),
        }
    }
}

/// One sender per entry of `sizes`, distinct hosts other than `receiver` drawn at random (stream "fan-in"),
/// each sending its size to `receiver` at its start, with its fixed rank if given.
pub fn fan_in(
    receiver: u32,
    sizes: &[u64],
    starts: &[Time],
    ranks: Option<&[u64]>,
    hosts: u32,
    seed: u64,
) -> Vec<FlowSpec> {
    let senders = sizes.len();
    let mut rng = Rng::stream(seed, "fan-in");
    let mut others: Vec<u32> = (0..hosts).filter(|&h| h != receiver).collect();
    // Partial Fisher-Yates: the first `senders` entries become a uniform sample without replacement.
    for i in 0..senders {
        let j = i + rng.below((others.len() - i) as u64) as usize;
        others.swap(i, j);
    }
    others[..senders]
        .iter()
        .zip(sizes)
        .enumerate()
        .map(|(i, (&src, &size_bytes))| FlowSpec {
            start: starts[i],
            src,
            dst: receiver,
            size_bytes,
            deadline: None,
            deadline_min_factor: 0.0,
            rank: ranks.map(|r| r[i]),
        })
        .collect()
}
