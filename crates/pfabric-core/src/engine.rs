//! The simulation: hosts and switches exchanging packets over the topology, driven by the event queue.
//!
//! A port transmits one packet at a time: it serializes the packet for `wire bytes * 8 / rate`, the packet then
//! propagates for the link's delay and arrives whole at the next node (store and forward). A switch routes an
//! arrival to an output port's queue; a host hands it to the flow's transport, whose packets enter the host's own
//! NIC port, which has a queue like any other port. An idle port transmits an arrival at once.
//!
//! A busy port has no event of its own for the moment its serializer frees. What it sends then is its queue's
//! choice among the packets present at that moment, and only an enqueue at the port changes them; so the port
//! is brought up to date when something needs it: before every enqueue at it, and when the packet it is sending
//! arrives at the far end (a moment that always comes, a propagation delay after the serializer freed, and
//! before the next packet sent could arrive). Each packet it sends meanwhile leaves at the exact moment its
//! serializer freed, which is no later than the time being simulated, and arrives after it. This leaves one
//! event per packet-hop (and the flows' timers and arrivals): a third fewer events than a wake-up per busy port
//! (bench/RESULTS.md). At equal times, a port whose serializer frees sends before an arrival joins its queue.
//!
//! Flows arrive one at a time from the workload. Each active flow has a sender and a receiver (kept in a slab
//! whose slots are reused) and at most one pending timer event: a timer that moves later is left to fire and be
//! rescheduled, so ACKs never touch the event queue for timers. A finished flow keeps only its output record.

use crate::config::{FctEnd, MeasureConfig, Routing, ScenarioConfig};
use std::cell::Cell;
use std::sync::Arc;

use crate::ideal::IdealScheduler;
use crate::metrics::lone_flow::LoneFlowIdeal;
use crate::metrics::parallelism::WindowProfile;
use crate::metrics::{FlowRecord, PortCounters, RunCounters};
use crate::net::packet::{Packet, PacketFormat, PacketId, PacketKind, PacketPool};
use crate::net::pdq_port::PdqPort;
use crate::net::topology::{ecmp_choice, Topology};
use crate::queue::Queue;
use crate::queue::QueueConfig;
use crate::sim::event::{Event, EventKind, EventQueue};
use crate::sim::rng::Rng;
use crate::sim::time::{serialization_ps, Time};
use crate::transport::receiver::Arrival;
use crate::transport::{Receiver, Sender, TransportParams};
use crate::workload::{Arrivals, FlowSpec};

const NO_SLOT: u32 = u32::MAX;
/// In `rx_slot_of`: the flow runs within one partition (its one connection is in `slot_of`).
const ONE_PARTITION: u32 = u32::MAX - 1;
/// No spray draw expected (`Simulation::next_draw`).
const NO_DRAW: u32 = u32::MAX;
/// A node's partition (within its block) not at hand: a partitioned run looks it up where it needs it.
const SOME_PART: u32 = u32::MAX;
/// A port whose link ends in the same partition (every port of a sequential run).
const LOCAL: u32 = u32::MAX;
/// A port up to a switch shared out among the partitions below it (`Partitioning::shared_out`): each packet is
/// handed to its destination's partition.
const SHARED: u32 = u32::MAX - 1;

mod homa;
mod host_timers;
mod keys;
mod ndp;
mod parallel;
mod phost;
#[cfg(test)]
mod test_support;

/// Port state beyond which the port a packet leaves by is prefetched a step ahead (`Simulation::far_prefetch`):
/// about a core's L2 (the paper's leaf-spine: 100 KB of ports; a k = 16 fat-tree 1.6 MB, k = 32 12.5 MB).
const FAR_PREFETCH_BYTES: usize = 1 << 20;

/// Events every run may process whatever its flows (a tenth of a second of CPU on the paper's fabric).
const EVENT_BUDGET_BASE: u64 = 1_000_000;
/// The multiple of a flow's unimpeded events (each packet and its ACK once along the path) that the derived
/// budget grants it: congested runs on the paper's fabric use 2-3x; a run that needs 64x is not converging
/// (timeouts far shorter than its round trips, say) and stops with what it has, flagged.
const EVENT_ALLOWANCE: u64 = 64;

/// A port's state during a run. Laid out for the cache (cachegrind's L1 model, 10 misses per packet-hop, is
/// where much of the time goes): the first line holds what every packet crossing the port reads or writes,
/// the next two the queue and its time average (what a queued packet adds), the rest what drops touch.
#[repr(C, align(64))]
struct PortState {
    // First line: read or written by every packet crossing the port.
    /// The serializer is busy until then.
    busy_until: Time,
    /// Propagation delay of the link.
    delay_ps: Time,
    /// Bytes in the queue, mirrored here from what enqueue and dequeue hand back so that the hot path reads a
    /// field instead of dispatching on the queue's kind (every packet has a wire size > 0: 0 means empty).
    queued_bytes: u64,
    tx_packets: u64,
    tx_bytes: u64,
    /// Serialization time per byte when the rate makes it a whole number of picoseconds (10 Gbps: 800), so
    /// the hot path multiplies instead of dividing; 0 otherwise.
    ps_per_byte: u32,
    /// The node at the link's far end (copied from the topology).
    peer_node: u32,
    /// Where the port's tier (first hop, fabric, last hop) starts in the loss tables: tier x bins.
    loss_base: u32,
    /// In a partitioned run, the partition of the link's far end when it is another (its packets are handed
    /// over there), or [`SHARED`] where each packet's destination says it; [`LOCAL`] otherwise, and always in a
    /// sequential run.
    peer_part: u32,
    /// In a partitioned run, the port's own partition, numbered within its block: the origin of what it hands
    /// over, read here where every packet reads anyway rather than from a table (a miss per handover).
    own_part: u32,
    // Second and third lines: the queue, its time average and its deepest (what a queued packet adds).
    queue: Queue,
    /// Time integral of the queue's bytes (byte-picoseconds) up to `queue_since`: its time average.
    queue_area: u128,
    queue_since: Time,
    max_queue_bytes: u64,
    // What changes rarely.
    /// Used when `ps_per_byte` is 0.
    rate_bps: u64,
    /// PDQ's per-flow rate arbitration at this port, in a PDQ run.
    pdq: Option<Box<PdqPort>>,
    /// Drops (the deepest queue is kept above, with what every packet touches).
    drops: PortCounters,
}

impl PortState {
    /// Add the queue's occupancy since the last change to its time integral; call before the queue changes.
    #[inline]
    fn account_queue(&mut self, now: Time) {
        self.queue_area += self.queued_bytes as u128 * (now - self.queue_since) as u128;
        self.queue_since = now;
    }

    /// Time to serialize `bytes` onto the port's link.
    #[inline(always)]
    fn serialization(&self, bytes: u64) -> Time {
        if self.ps_per_byte != 0 {
            bytes * self.ps_per_byte as u64
        } else {
            serialization_ps(bytes, self.rate_bps)
        }
    }

    /// Packets wait and the serializer freed at or before `now`: the port owes a transmission.
    #[inline(always)]
    fn owes_a_send(&self, now: Time) -> bool {
        self.queued_bytes != 0 && self.busy_until <= now
    }
}

/// Data packets offered to and dropped by ports, per tier and per priority-number bin (the paper's Figure 13).
pub struct PriorityLoss {
    pub edges: Vec<u64>,
    /// `offered[tier * bins + bin]`, tiers in the order of [`Tier`](crate::net::topology::Tier).
    pub offered: Vec<u64>,
    pub dropped: Vec<u64>,
}

impl PriorityLoss {
    fn new(edges: Vec<u64>) -> Self {
        let cells = 3 * (edges.len() + 1);
        PriorityLoss { edges, offered: vec![0; cells], dropped: vec![0; cells] }
    }

    pub fn bins(&self) -> usize {
        self.edges.len() + 1
    }

    /// The bin of a priority number: the number of edges at or below it. Counted without branches for the
    /// usual few edges (a binary search's branches depend on each packet's number, and mispredict), searched
    /// for many.
    #[inline]
    fn bin(&self, priority: u64) -> u8 {
        if self.edges.len() <= 16 {
            self.edges.iter().map(|&e| (e <= priority) as u8).sum()
        } else {
            self.edges.partition_point(|&e| e <= priority) as u8
        }
    }
}

/// Every data packet that reached a tracked flow's receiver, in arrival order (the AIFO paper's rank logs).
pub struct ArrivalLog {
    pub track_flows: u32,
    pub rows: Vec<(Time, u32, u32, u64, bool)>,
}

/// Bytes delivered to each tracked flow in each sampling interval.
struct Sampler {
    interval: Time,
    delivered: Vec<u64>,
    /// (end of interval, flow, bytes delivered in the interval).
    rows: Vec<(Time, u32, u64)>,
}

/// A flow's two halves. The receiving half comes first and shares its line with `halves`, which holds
/// `Option<Connection>`'s tag: a data packet's arrival reads one line of its connection, and a partitioned
/// run's receiving half uses no other.
#[repr(C, align(64))]
struct Connection {
    receiver: Receiver,
    halves: Halves,
    sender: Sender,
}

/// Which halves of a connection are in use. Eight bytes where a bool would do: no other field of a connection
/// has as many invalid values, and the compiler keeps an enum's tag in its payload's largest niche, so
/// `Option<Connection>` tells `None` by this field (the test `a_connections_tag_is_on_its_receivers_line`).
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Halves {
    Both,
    /// Only the receiving half: a partitioned run's flow from another partition's host.
    ReceiverOnly,
}

impl Connection {
    #[inline(always)]
    fn receiver_only(&self) -> bool {
        self.halves == Halves::ReceiverOnly
    }
}

/// What a port did, in the order the engine did it (tests only): what the tests hold to the behaviour of a
/// work-conserving single server, whatever the engine does to get there.
#[cfg(test)]
#[derive(Clone, Copy, Debug)]
enum PortLog {
    Enqueue { port: u32, at: Time, id: PacketId },
    Drop { port: u32, at: Time, id: PacketId },
    Start { port: u32, at: Time, id: PacketId, end: Time },
}

/// Where a run stands, for progress reports.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub flows_started: u64,
    pub flows_finished: u64,
    pub flows_total: Option<u64>,
    pub sim_time: Time,
    pub events: u64,
}

pub struct Simulation {
    now: Time,
    events: EventQueue,
    pool: PacketPool,
    pub(crate) topo: Arc<Topology>,
    /// The topology's host count, kept at hand: every arrival asks whether its node is a host.
    hosts: u32,
    ports: Vec<PortState>,
    transport: TransportParams,
    routing: Routing,
    /// The ports arbitrate PDQ rates (a PDQ run).
    pdq_ports: bool,
    /// Whether the ports trim (NDP's): each enqueue is asked what it trimmed.
    trimming_ports: bool,
    /// Whether any port's queue is rank-based (`Queue::Ranked`), whose state moves as each packet passes an
    /// idle port. Asked of the run, not of the port: the queue's kind lies in the port's second line, which a
    /// packet passing an idle port otherwise never reads (on a k = 32 fat-tree, where most ports are idle, it
    /// was one line missed in the L2 per packet-hop).
    ranked_ports: bool,
    /// The next event (its `Event::id`) and the switch at which it draws from a spray stream when handled, or
    /// [`NO_DRAW`]: found by `prefetch_port_out` a step ago, so that it need not be found again for the guess
    /// of the event after it (`draw_at`).
    next_draw: Cell<(u64, u32)>,
    /// Whether the hosts are receiver-driven (pHost, Homa, NDP): their arrivals take their own path.
    receiver_driven: bool,
    /// Whether the ports' state outgrows the caches (`FAR_PREFETCH_BYTES`): then the port a packet leaves by is
    /// asked for a step ahead (`prefetch_next`), which on a fabric whose ports stay cached only costs time.
    far_prefetch: bool,
    /// Whether what a route reads outgrows the caches too (the same bound): then it is asked for a step
    /// earlier still. Only a fabric routed by a large table takes it: a k = 64 fat-tree's table is 1.6 MB, but
    /// its routes are computed from 164 KB of records (`topology::Descent`), and the step was measured to gain
    /// nothing at 197 KB (k = 32's table) and to cost at 164 KB (k = 16's).
    far_routes: bool,
    /// Each switch's random stream for routes (spray, adaptive ties), by node less the hosts.
    sprays: Vec<Rng>,
    arrivals: Arrivals,
    next_arrival: Option<FlowSpec>,
    flows_total: Option<u64>,
    pub(crate) flows: Vec<FlowRecord>,
    conns: Vec<Option<Connection>>,
    free_slots: Vec<u32>,
    slot_of: Vec<u32>,
    active_flows: u64,
    /// The next multiple of a microsecond at which the run's counts are to be noted for its peaks.
    peak_grid: crate::metrics::peaks::PeakGrid,
    out: Vec<Packet>,
    pub(crate) counters: RunCounters,
    max_time: Option<Time>,
    /// The run stopped at `max_time` with events left.
    pub(crate) cut_short: bool,
    /// Events the run may process: the scenario's `max_events`, or a budget that grows with each flow by
    /// [`EVENT_ALLOWANCE`] times the events it needs unimpeded, so that no scenario runs on without bound.
    event_budget: u64,
    budget_derived: bool,
    /// The run stopped at its event budget with events left.
    pub(crate) out_of_budget: bool,
    /// Ports on the longest path between two hosts (what a flow's unimpeded events are counted from).
    longest_path: u64,
    loss: PriorityLoss,
    sampler: Option<Sampler>,
    /// Data arrivals of tracked flows, if logged: (time, flow, packet index, rank stamped, retransmission).
    arrival_log: Option<ArrivalLog>,
    /// The flow-level central scheduler, when the scheme is Ideal (no packets at all then).
    ideal: Option<IdealScheduler>,
    ideal_generation: u32,
    /// Each flow's ideal FCT: alone in the idle fabric, routed as this run routes.
    lone_flow: LoneFlowIdeal,
    /// Which moment completes a flow: its last byte at the receiver, or that byte's ACK at the sender.
    fct_end: FctEnd,
    /// The load the workload offers (Poisson), 0 when not defined by one.
    pub(crate) target_load: f64,
    /// Events charged to racks and windows, when asked for (`profile_parallelism`).
    window_profile: Option<Box<WindowProfile>>,
    /// The id of the first of `ports`: a partitioned run numbers each partition's ports in one block (0 in a
    /// sequential run, which holds them all).
    port_base: u32,
    /// A partitioned run whose hosts own their downlinks (`Partitioning::fed_from_afar`): the first port of the
    /// hosts' partitions, at or after which every such port is numbered, as no switch's own port is (every
    /// switch is in partition 0); [`u32::MAX`] otherwise, and in a sequential run.
    fed_from: u32,
    /// The fabric's own id of each port, where a partitioned run numbers them anew (empty in a sequential run,
    /// whose ids are the fabric's): an arrival's key (`keys::arrival`).
    pub(crate) fabric_id_of: Arc<[u32]>,
    /// A partitioned run's block of partitions (those one thread runs): what they share with the others and
    /// what they report to them.
    block: Option<Box<parallel::Block>>,
    /// A pHost run: every host's token scheduler and token store.
    phost: Option<Box<phost::PhostHosts>>,
    /// Homa's hosts, in a Homa run.
    homa: Option<Box<homa::HomaHosts>>,
    /// NDP's hosts, in an NDP run.
    ndp: Option<Box<ndp::NdpHosts>>,
    /// A partitioned run: the slot of the receiving half of each flow between two partitions (`slot_of`
    /// holds the sending half), or [`ONE_PARTITION`] for a flow within one partition (`slot_of` holds its
    /// connection): read where data arrives, instead of both hosts' partitions (two lines of a table).
    rx_slot_of: Vec<u32>,
    /// A partitioned run, on the simulation that gathers its results: the partitions and their windows.
    partitioned: Option<Box<parallel::Partitioned>>,
    /// Packets still held by the partitions of a partitioned run, when it ended.
    parked_packets: usize,
    /// The partitions a partitioned run had (0: a sequential run), and the windows it ran.
    pub(crate) partitions: usize,
    pub(crate) windows: u64,
    /// A partitioned run: the sum over windows of the busiest thread's events (see `critical_events`).
    critical_events: u64,
    #[cfg(test)]
    port_log: Vec<PortLog>,
    /// Tests: the sprayed port `prefetch_port_out` guessed last (packet, node, port), and how many of the
    /// draws it guessed it got right and wrong.
    #[cfg(test)]
    spray_guess: Cell<(PacketId, u32, u32)>,
    #[cfg(test)]
    spray_guesses: (u64, u64),
    /// Tests: keep a partitioned run's receiving halves to the end, as before they were retired, and count the
    /// late copies that retired halves answered and the receiving halves given a slot of their own.
    #[cfg(test)]
    keep_receivers: bool,
    #[cfg(test)]
    late_copies: u64,
    #[cfg(test)]
    receivers_apart: u64,
}

/// A port's state at the start of a run: port `i` of the fabric, `spec`, with the scheme's queue.
fn port_state(i: usize, spec: &crate::net::topology::PortSpec, queue: &QueueConfig, loss_bins: usize) -> PortState {
    let bits_ps = 8 * crate::sim::time::PS_PER_S;
    PortState {
        busy_until: 0,
        ps_per_byte: if bits_ps.is_multiple_of(spec.rate_bps) {
            u32::try_from(bits_ps / spec.rate_bps).unwrap_or(0)
        } else {
            0
        },
        rate_bps: spec.rate_bps,
        queued_bytes: 0,
        delay_ps: spec.delay_ps,
        tx_packets: 0,
        tx_bytes: 0,
        queue_since: 0,
        peer_node: spec.peer_node,
        loss_base: spec.tier as u32 * loss_bins as u32,
        peer_part: LOCAL,
        own_part: 0,
        max_queue_bytes: 0,
        queue: queue.build(),
        queue_area: 0,
        drops: PortCounters::default(),
        pdq: match *queue {
            QueueConfig::DropTailPdq { early_start, expiry, .. } => {
                Some(Box::new(PdqPort::new(i as u32, spec.rate_bps, early_start, expiry)))
            }
            _ => None,
        },
    }
}

impl Simulation {
    /// A run of `cfg`: partitioned when `run.threads` asks for two threads or more (0: every core, where the
    /// machine has two or more) and the scenario allows it (see `engine::parallel`), sequential otherwise. Both
    /// engines give the same results, so one thread runs the sequential engine, which needs no windows.
    pub fn new(cfg: ScenarioConfig) -> Self {
        let threads = match cfg.threads {
            Some(0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(n) => n as usize,
            None => 1,
        };
        if threads >= 2 {
            return Self::partitioned(cfg);
        }
        let topo = Arc::new(cfg.topology.build());
        Self::sequential(cfg, topo)
    }

    /// A run of `cfg` on the partitioned engine, whatever `run.threads` says (unset or 0: one thread), where
    /// the scenario allows it: tests, and benchmarks of the engine itself on one thread.
    pub fn partitioned(cfg: ScenarioConfig) -> Self {
        let topo = Arc::new(cfg.topology.build());
        if parallel::partitionable(&cfg) {
            return parallel::Partitioned::simulation(cfg, topo);
        }
        Self::sequential(cfg, topo)
    }

    fn sequential(cfg: ScenarioConfig, topo: Arc<Topology>) -> Self {
        let loss_bins = cfg.measure.loss_priority_edges.len() + 1;
        let ports = crate::sim::collect_on_huge_pages(
            topo.ports.iter().enumerate().map(|(i, spec)| port_state(i, spec, &cfg.scheme.queue, loss_bins)),
        );
        let arrivals = cfg.workload.clone().into_arrivals(&topo, &cfg.topology, cfg.seed);
        let longest_path = (1..topo.hosts).map(|d| topo.path_ports(0, d).len() as u64).max().unwrap_or(1);
        let mut sim = Self::base(&cfg, topo, ports, longest_path);
        sim.flows_total = arrivals.total();
        if cfg.scheme.transport.protocol == crate::transport::Protocol::Homa {
            sim.homa = Some(homa::HomaHosts::for_run(&cfg, &sim.topo, &arrivals));
        }
        if cfg.scheme.flow_level {
            sim.ideal =
                Some(IdealScheduler::new(sim.topo.hosts, cfg.topology.links.host_rate_bps, cfg.topology.format));
        }
        if let Some(s) = &sim.sampler {
            sim.events.schedule_keyed(s.interval, keys::SAMPLE, EventKind::Sample, 0, 0);
        }
        sim.start_arrivals(arrivals);
        sim
    }

    /// Hand the run its flows: the first one's arrival is scheduled.
    fn start_arrivals(&mut self, mut arrivals: Arrivals) {
        self.next_arrival = arrivals.next_flow();
        self.arrivals = arrivals;
        if let Some(f) = self.next_arrival {
            self.events.schedule_keyed(
                f.start,
                keys::flow_start(self.flows.len() as u32),
                EventKind::FlowArrival,
                0,
                0,
            );
        }
    }

    /// What every run starts with: its ports, no flows, no events.
    fn base(cfg: &ScenarioConfig, topo: Arc<Topology>, ports: Vec<PortState>, longest_path: u64) -> Self {
        let (hosts, nodes) = (topo.hosts, topo.nodes);
        let MeasureConfig { loss_priority_edges, sample_interval, track_flows, log_arrivals, fct_end } =
            cfg.measure.clone();
        let target_load = match &cfg.workload {
            crate::config::WorkloadConfig::Poisson { load, .. } => *load,
            _ => 0.0,
        };
        let (topo_hosts, host_rate_bps) = (topo.hosts, cfg.topology.links.host_rate_bps);
        // PDQ keeps per-flow state along one path: its packets follow the flow's ECMP path, never sprayed.
        let routing = if matches!(cfg.scheme.queue, QueueConfig::DropTailPdq { .. }) {
            Routing::Ecmp
        } else {
            cfg.topology.routing
        };
        let far_prefetch = ports.len() * std::mem::size_of::<PortState>() > FAR_PREFETCH_BYTES;
        let ranked_ports = ports.iter().any(|p| matches!(p.queue, Queue::Ranked(_)));
        let far_routes = far_prefetch && topo.route_table_bytes() > FAR_PREFETCH_BYTES;
        let ndp = (cfg.scheme.transport.protocol == crate::transport::Protocol::Ndp)
            .then(|| ndp::NdpHosts::for_run(cfg, &topo));
        Simulation {
            now: 0,
            events: EventQueue::for_horizon(event_horizon(&topo)),
            pool: PacketPool::new(),
            hosts: topo.hosts,
            topo,
            ports,
            transport: cfg.scheme.transport,
            routing,
            lone_flow: LoneFlowIdeal::new(routing, fct_end, cfg.topology.format),
            fct_end,
            pdq_ports: matches!(cfg.scheme.queue, QueueConfig::DropTailPdq { .. }),
            trimming_ports: matches!(cfg.scheme.queue, QueueConfig::Trimming { .. }),
            ranked_ports,
            next_draw: Cell::new((u64::MAX, NO_DRAW)),
            receiver_driven: matches!(
                cfg.scheme.transport.protocol,
                crate::transport::Protocol::Phost | crate::transport::Protocol::Homa | crate::transport::Protocol::Ndp
            ),
            far_prefetch,
            far_routes,
            sprays: (hosts..nodes).map(|n| Rng::stream(cfg.seed, &format!("spray/{n}"))).collect(),
            next_arrival: None,
            flows_total: None,
            flows: Vec::new(),
            conns: Vec::new(),
            free_slots: Vec::new(),
            slot_of: Vec::new(),
            active_flows: 0,
            peak_grid: Default::default(),
            out: Vec::with_capacity(64),
            counters: RunCounters::default(),
            max_time: cfg.max_sim_time,
            cut_short: false,
            event_budget: cfg.max_events.unwrap_or(EVENT_BUDGET_BASE),
            budget_derived: cfg.max_events.is_none(),
            out_of_budget: false,
            longest_path,
            arrivals: Arrivals::List { flows: Vec::new(), next: 0 },
            loss: PriorityLoss::new(loss_priority_edges),
            sampler: sample_interval.filter(|_| track_flows > 0).map(|interval| Sampler {
                interval,
                delivered: vec![0; track_flows as usize],
                rows: Vec::new(),
            }),
            ideal: None,
            ideal_generation: 0,
            arrival_log: log_arrivals.then_some(ArrivalLog { track_flows, rows: Vec::new() }),
            target_load,
            window_profile: None,
            port_base: 0,
            fed_from: u32::MAX,
            fabric_id_of: Arc::from(Vec::new()),
            block: None,
            phost: (cfg.scheme.transport.protocol == crate::transport::Protocol::Phost).then(|| {
                phost::PhostHosts::new(
                    topo_hosts,
                    cfg.scheme.transport.phost.params(host_rate_bps, cfg.scheme.transport.format),
                )
            }),
            homa: None,
            ndp,
            rx_slot_of: Vec::new(),
            partitioned: None,
            parked_packets: 0,
            partitions: 0,
            windows: 0,
            critical_events: 0,
            #[cfg(test)]
            port_log: Vec::new(),
            #[cfg(test)]
            spray_guess: Cell::new((PacketId::MAX, 0, 0)),
            #[cfg(test)]
            spray_guesses: (0, 0),
            #[cfg(test)]
            keep_receivers: false,
            #[cfg(test)]
            late_copies: 0,
            #[cfg(test)]
            receivers_apart: 0,
        }
    }

    /// The most events ever pending at once.
    pub fn peak_pending_events(&self) -> usize {
        self.events.peak_len()
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn progress(&self) -> Progress {
        Progress {
            flows_started: self.counters.flows_started,
            flows_finished: self.counters.flows_finished,
            flows_total: self.flows_total,
            sim_time: self.now,
            events: self.counters.events,
        }
    }

    pub fn flows(&self) -> &[FlowRecord] {
        &self.flows
    }

    pub fn counters(&self) -> &RunCounters {
        &self.counters
    }

    /// Payload bytes delivered new to their receivers by the end of the run (goodput); for the flow-level
    /// Ideal, the bytes its schedule served.
    pub fn data_bytes_received(&self) -> u64 {
        match &self.ideal {
            Some(ideal) => ideal.served_bytes(self.now, &self.flows),
            None => self.counters.data_bytes_received,
        }
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    pub fn port_counters(&self, port: usize) -> PortCounters {
        let ps = &self.ports[port];
        PortCounters {
            tx_packets: ps.tx_packets,
            tx_bytes: ps.tx_bytes,
            max_queue_bytes: ps.max_queue_bytes,
            ..ps.drops.clone()
        }
    }

    /// Time-averaged bytes in a port's queue over the run so far.
    pub fn mean_queue_bytes(&self, port: usize) -> f64 {
        let ps = &self.ports[port];
        let area = ps.queue_area + ps.queued_bytes as u128 * (self.now - ps.queue_since) as u128;
        if self.now == 0 {
            0.0
        } else {
            area as f64 / self.now as f64
        }
    }

    /// Packets still queued or on a wire.
    pub fn live_packets(&self) -> usize {
        self.pool.live() + self.parked_packets
    }

    /// The partitions of a partitioned run (0: the run is sequential).
    pub fn partitions(&self) -> usize {
        self.partitions
    }

    /// The windows a partitioned run synchronized its partitions in (0: sequential).
    pub fn windows(&self) -> u64 {
        self.windows
    }

    /// A partitioned run: the sum over windows of the busiest thread's events, the work no thread count
    /// could overlap with these blocks. Unlike every result it depends on the thread count, so it is not
    /// among the run's statistics (the bench prints it).
    pub fn critical_events(&self) -> u64 {
        self.critical_events
    }

    /// Run to the end: until no event is left (every flow finished) or the time limit.
    pub fn run(&mut self) {
        // In steps, as the Python binding runs it: after each, a partitioned run sums what its blocks noted for
        // the peaks, which would otherwise pile up for the whole run (`metrics::peaks`).
        while !self.step(1 << 24) {}
    }

    /// Process at most `max_events` events. Returns true when the run is over.
    pub fn step(&mut self, max_events: u64) -> bool {
        if self.partitioned.is_some() {
            return parallel::Partitioned::step(self, max_events);
        }
        // Two copies of the loop, so that a run without the parallelism profile pays nothing per event for it.
        if self.window_profile.is_some() {
            self.step_events::<true>(max_events)
        } else {
            self.step_events::<false>(max_events)
        }
    }

    #[inline(always)]
    fn step_events<const PROFILE: bool>(&mut self, max_events: u64) -> bool {
        for _ in 0..max_events {
            let Some(ev) = self.events.pop() else {
                self.finish_records();
                return true;
            };
            if let Some(limit) = self.max_time {
                if ev.time > limit {
                    self.now = limit;
                    self.cut_short = true;
                    if self.peak_grid.passes(limit) {
                        self.note_peaks_through(limit);
                    }
                    self.send_all_due();
                    self.finish_records();
                    return true;
                }
            }
            if self.counters.events >= self.event_budget {
                self.out_of_budget = true;
                self.cut_short = true;
                self.send_all_due();
                self.finish_records();
                return true;
            }
            self.now = ev.time;
            self.counters.events += 1;
            if self.peak_grid.passes(ev.time) {
                self.note_peaks_through(ev.time);
            }
            self.prefetch_next(&ev);
            if PROFILE {
                self.profile_event(ev.kind(), ev.a, ev.b);
            }
            self.dispatch::<false>(ev);
        }
        false
    }

    /// Note the run's counts (or the block's) at every grid instant through `t` not yet noted (`metrics::peaks`):
    /// called before anything due at `t` happens.
    #[cold]
    #[inline(never)]
    pub(super) fn note_peaks_through(&mut self, t: Time) {
        let index = self.peak_grid.note_through(t);
        self.note_peaks_from(index);
    }

    /// The counts as they stand, noted for the grid instants from `index` on.
    fn note_peaks_from(&mut self, index: u64) {
        let live = self.pool.live() as u64;
        match &mut self.block {
            None => {
                self.counters.peak_active_flows = self.counters.peak_active_flows.max(self.active_flows);
                self.counters.peak_live_packets = self.counters.peak_live_packets.max(live);
            }
            Some(block) => {
                let live = live as i64 + block.posted - block.taken;
                block.peak_notes.note(index, self.active_flows, live);
            }
        }
    }

    /// Nearly every event is a packet's arrival, and the next one is known already: ask for its packet and the
    /// port that sent it now (the port's first line, which every arrival reads, and its queue, which a due
    /// transmission reads), so that their cache misses overlap this event's work. (Asked whatever the kind: a
    /// branch on it costs more than a useless prefetch.)
    ///
    /// The port a switch sends the next packet out of is where an arrival misses most on a large fabric (its
    /// state is one of tens of thousands: 41% of the samples of `arrive` on the k = 32 fat-tree). It depends on
    /// the packet and on the sending port, so those are asked for two events ahead, and at the next step, when
    /// they are in the cache, the port out is found and asked for too: the one port of its route, the spray
    /// stream's coming draw among several (`prefetch_port_out`), or a host's NIC, which answers an arrival.
    /// On a fabric whose ports fit the caches that costs more than it saves (+10% on the paper's leaf-spine), so
    /// it is done only where they do not (`far_prefetch`).
    #[inline(always)]
    fn prefetch_next(&self, now: &Event) {
        if self.far_prefetch {
            // Three ahead: the packet and the sending port; two ahead (those in the cache now): the route entry
            // that the next step reads to find the port out.
            if self.far_routes {
                if let Some(third) = self.events.peek_after_pop_nth(2) {
                    self.pool.prefetch(third.a);
                    if let Some(ps) = self.ports.get(self.slot(third.b)) {
                        crate::sim::prefetch(ps);
                    }
                }
            }
            if let Some(after) = self.events.peek_after_pop_nth(1) {
                self.pool.prefetch(after.a);
                if let Some(ps) = self.ports.get(self.slot(after.b)) {
                    crate::sim::prefetch(ps);
                    if self.far_routes && after.kind() == EventKind::Arrive {
                        if let Some(p) = self.pool.try_get(after.a) {
                            self.topo.prefetch_route(ps.peer_node, p.dst);
                        }
                    }
                }
            }
        }
        if let Some(next) = self.events.peek_after_pop() {
            self.pool.prefetch(next.a);
            if let Some(ps) = self.ports.get(self.slot(next.b)) {
                crate::sim::prefetch(ps);
                crate::sim::prefetch(&ps.queue);
                if self.far_prefetch && next.kind() == EventKind::Arrive {
                    self.prefetch_port_out(now, next, ps.peer_node);
                }
            }
            // A packet handed over from another partition names the node it arrives at.
            if self.far_prefetch && next.kind() == EventKind::Handed {
                self.prefetch_port_out(now, next, next.b);
            }
        }
    }

    /// Ask for the state of the port that node `node` will send the packet of event `next` out of (the event
    /// after `now`, the one about to be handled). Where the route leaves several choices and the run sprays,
    /// the choice is the switch's stream's next draw, or the one after it when `now` draws from the same
    /// stream: read, not drawn, so the draws and the results stay as they were. A guess that turns out wrong
    /// (an event scheduled in between) costs one useless prefetch.
    #[inline(always)]
    fn prefetch_port_out(&self, now: &Event, next: &Event, node: u32) {
        if node < self.hosts {
            // A host that takes a packet in answers through its NIC (an ACK, or the data an ACK lets out).
            let nic = self.topo.nic_port(node);
            if let Some(ps) = self.ports.get(self.slot(nic)) {
                crate::sim::prefetch(ps);
            }
            self.next_draw.set((next.id(), NO_DRAW));
            return;
        }
        let Some(p) = self.pool.try_get(next.a) else { return };
        let port = match &*self.topo.next_hops(node, p.dst) {
            [port] => {
                self.next_draw.set((next.id(), NO_DRAW));
                *port
            }
            choices if matches!(self.routing, Routing::Spray) => {
                let draw_now = self.draw_at(now);
                self.next_draw.set((next.id(), node));
                let Some(stream) = self.sprays.get(node.wrapping_sub(self.hosts) as usize) else { return };
                let skip = draw_now == node;
                let pick = stream.peek_below(choices.len() as u64, skip as usize) as usize;
                let Some(&port) = choices.get(pick) else { return };
                #[cfg(test)]
                self.spray_guess.set((next.a, node, port));
                port
            }
            _ => return,
        };
        if let Some(ps) = self.ports.get(self.slot(port)) {
            crate::sim::prefetch(ps);
        }
    }

    /// The switch at which event `ev` draws from a spray stream when handled, or [`NO_DRAW`]: known when the
    /// step before found it (`next_draw`), else found from its packet and node, as handling it will.
    #[inline(always)]
    fn draw_at(&self, ev: &Event) -> u32 {
        let (known, node) = self.next_draw.get();
        if known == ev.id() {
            return node;
        }
        self.find_draw(ev)
    }

    #[inline(never)]
    fn find_draw(&self, ev: &Event) -> u32 {
        let node = match ev.kind() {
            EventKind::Arrive => match self.ports.get(self.slot(ev.b)) {
                Some(ps) => ps.peer_node,
                None => return NO_DRAW,
            },
            EventKind::Handed => ev.b,
            _ => return NO_DRAW,
        };
        match self.pool.try_get(ev.a) {
            Some(p) if node >= self.hosts && self.topo.next_hops(node, p.dst).len() > 1 => node,
            _ => NO_DRAW,
        }
    }

    /// Do what event `ev` says (its time is now).
    #[inline(always)]
    fn dispatch<const PARTITIONED: bool>(&mut self, ev: crate::sim::event::Event) {
        match ev.kind() {
            EventKind::Arrive => self.arrive::<PARTITIONED>(ev.a, ev.b),
            EventKind::FlowArrival => self.flow_arrival(ev.a),
            EventKind::Timer => self.timer(ev.a, ev.time),
            EventKind::Sample => self.sample(),
            EventKind::IdealCompletion => self.ideal_completion(ev.a),
            EventKind::Handed => self.arrive_at(ev.a, ev.b, SOME_PART),
            EventKind::HostTick => self.host_tick(ev.a, ev.b, ev.time),
        }
    }

    /// Timer `which` of host `host` fired at `at` (the receiver-driven hosts' timers).
    #[inline(never)]
    fn host_tick(&mut self, host: u32, which: u32, at: Time) {
        if self.homa.is_some() {
            self.homa_tick(host, which, at)
        } else if self.ndp.is_some() {
            self.ndp_tick(host, which, at)
        } else {
            self.phost_tick(host, which, at)
        }
    }

    /// Charge an event to the node where it happens (see `metrics::parallelism`).
    #[cold]
    fn profile_event(&mut self, kind: EventKind, a: u32, b: u32) {
        let node = match kind {
            EventKind::Arrive => Some(self.topo.ports[b as usize].peer_node),
            EventKind::FlowArrival => self.next_arrival.map(|f| f.src),
            EventKind::Timer => self.flows.get(a as usize).map(|f| f.src),
            EventKind::Handed => Some(b),
            EventKind::HostTick => Some(a),
            EventKind::Sample | EventKind::IdealCompletion => None,
        };
        let now = self.now;
        if let Some(p) = &mut self.window_profile {
            p.record(now, node);
        }
    }

    /// From now on, charge every event to a rack and a window of the lookahead (`metrics::parallelism`):
    /// what a conservative parallel engine could overlap. Read it with `parallelism`, after the run.
    pub fn profile_parallelism(&mut self) {
        self.window_profile = Some(Box::new(WindowProfile::new(&self.topo)));
    }

    /// The profile asked for by `profile_parallelism`, its last window closed.
    pub fn parallelism(&mut self) -> Option<&WindowProfile> {
        let p = self.window_profile.as_mut()?;
        p.close_window();
        Some(p)
    }

    // ---- flows ----

    fn flow_arrival(&mut self, part: u32) {
        if self.block.is_some() {
            return self.partition_flow_arrival(part);
        }
        let spec = self.next_arrival.take().expect("a flow arrival event has its flow");
        if self.ideal.is_some() {
            self.start_flow_ideal(spec);
        } else {
            self.start_flow(spec);
        }
        self.next_arrival = self.arrivals.next_flow();
        if let Some(f) = self.next_arrival {
            self.events.schedule_keyed(
                f.start.max(self.now),
                keys::flow_start(self.flows.len() as u32),
                EventKind::FlowArrival,
                0,
                0,
            );
        }
    }

    /// Record a new flow (its output row, with its ideal FCT); returns its id. A partition of a partitioned
    /// run has its flows' rows made in advance, and counts the flow.
    fn record_flow(&mut self, f: &FlowSpec) -> u32 {
        if let Some(block) = &mut self.block {
            let id = block.next_flow_id(f.src);
            self.count_flow(f);
            return id;
        }
        let id = self.flows.len() as u32;
        let ideal_fct = self.lone_flow.fct(&self.topo, id, f.src, f.dst, f.size_bytes);
        self.flows.push(FlowRecord::starting(f, self.now, ideal_fct));
        self.count_flow(f);
        id
    }

    /// A flow starts: counted, and the event budget grows with it.
    fn count_flow(&mut self, f: &FlowSpec) {
        self.counters.flows_started += 1;
        let format = self.transport.format;
        self.counters.offered_wire_bytes += format.flow_wire_bytes(f.size_bytes);
        if self.budget_derived {
            // Each packet and its ACK cross the path once, plus the flow's arrival and a few timers.
            let unimpeded = 2 * format.packets_for(f.size_bytes) * self.longest_path + 4;
            self.event_budget = self.event_budget.saturating_add(EVENT_ALLOWANCE.saturating_mul(unimpeded));
        }
    }

    /// A flow's deadline as its row has it (floored at min_factor x its ideal FCT).
    fn deadline_of(&self, id: u32) -> Option<Time> {
        match &self.block {
            None => self.flows[id as usize].deadline,
            Some(block) => block.records[id as usize].deadline,
        }
    }

    fn start_flow(&mut self, f: FlowSpec) {
        let id = self.record_flow(&f);
        let deadline = self.deadline_of(id); // floored at min_factor x the ideal FCT
        let mut sender = Sender::new(id, f.src, f.dst, f.size_bytes, deadline, &self.transport);
        sender.fixed_rank = f.rank;
        let receiver = Receiver::new(sender.sb.npkts, self.transport.three_way_handshake());
        let slot = self.open_connection(id, Connection { receiver, halves: Halves::Both, sender });
        self.active_flows += 1;
        let mut out = std::mem::take(&mut self.out);
        let conn = self.conns[slot as usize].as_mut().unwrap();
        conn.sender.start(self.now, &self.transport, &mut out);
        let npkts = conn.sender.sb.npkts;
        self.send_from_host(f.src, &mut out);
        self.out = out;
        if self.phost.is_some() {
            self.phost_open(f.src, id, npkts);
        } else if self.homa.is_some() {
            self.homa_open(f.src, id, npkts);
        } else if self.ndp.is_some() {
            self.ndp_open(f.src, id, npkts);
        }
        self.sync_timer(id);
    }

    /// Give flow `id` a slot for its connection.
    fn open_connection(&mut self, id: u32, conn: Connection) -> u32 {
        let slot = match self.free_slots.pop() {
            Some(s) => {
                self.conns[s as usize] = Some(conn);
                s
            }
            None => {
                self.conns.push(Some(conn));
                (self.conns.len() - 1) as u32
            }
        };
        if self.block.is_none() {
            self.slot_of.push(slot);
        } else if self.conns[slot as usize].as_ref().unwrap().receiver_only() {
            self.rx_slot_of[id as usize] = slot;
        } else {
            self.slot_of[id as usize] = slot;
        }
        slot
    }

    /// Ideal mode: the flow joins the central scheduler, which is brought up to now and rescheduled.
    fn start_flow_ideal(&mut self, f: FlowSpec) {
        let id = self.record_flow(&f);
        let ideal = self.ideal.as_mut().unwrap();
        self.counters.flows_finished += ideal.advance(self.now, &mut self.flows);
        ideal.add(id, f.src, f.dst, f.size_bytes);
        self.counters.peak_active_flows = self.counters.peak_active_flows.max(ideal.active_flows() as u64);
        self.reschedule_ideal();
    }

    /// Ideal mode: a new schedule, and a wake-up at its first completion (earlier wake-ups go stale).
    fn reschedule_ideal(&mut self) {
        let ideal = self.ideal.as_mut().unwrap();
        if let Some(at) = ideal.reschedule() {
            self.ideal_generation = self.ideal_generation.wrapping_add(1);
            self.events.schedule_keyed(
                at,
                keys::ideal_completion(self.ideal_generation),
                EventKind::IdealCompletion,
                self.ideal_generation,
                0,
            );
        }
    }

    fn ideal_completion(&mut self, generation: u32) {
        if generation != self.ideal_generation {
            return;
        }
        let ideal = self.ideal.as_mut().unwrap();
        self.counters.flows_finished += ideal.advance(self.now, &mut self.flows);
        self.reschedule_ideal();
    }

    /// The sender of flow `id` has everything acknowledged: keep its record, free its state (but for a
    /// receiving half that shares it and is not retired: `parallel::open_receiver`, tests that keep them).
    fn close_flow(&mut self, id: u32) {
        let slot = self.slot_of[id as usize];
        let mut conn = self.conns[slot as usize].take().unwrap();
        self.note_counts(id, &conn);
        self.slot_of[id as usize] = NO_SLOT;
        self.active_flows -= 1;
        if self.rx_slot_of.get(id as usize) == Some(&slot) {
            conn.halves = Halves::ReceiverOnly;
            self.conns[slot as usize] = Some(conn);
        } else {
            self.free_slots.push(slot);
        }
    }

    /// Copy a flow's sender and receiver counts into its row (a partition: those of the halves it holds).
    fn note_counts(&mut self, id: u32, conn: &Connection) {
        match &mut self.block {
            None => {
                let rec = &mut self.flows[id as usize];
                rec.retransmissions = conn.sender.retransmissions;
                rec.timeouts = conn.sender.timeouts;
                rec.out_of_order = conn.receiver.out_of_order;
            }
            Some(block) => block.note_counts(id, conn),
        }
    }

    /// Make sure flow `id` has a timer event at or before its sender's next wake-up (retransmission timer,
    /// or PDQ's pacing).
    fn sync_timer(&mut self, id: u32) {
        let slot = self.slot_of[id as usize];
        if slot == NO_SLOT {
            return;
        }
        let s = &mut self.conns[slot as usize].as_mut().unwrap().sender;
        if let Some(wake) = s.timer_event_needed() {
            self.events.schedule_keyed(wake, keys::timer(id), EventKind::Timer, id, 0);
        }
    }

    fn timer(&mut self, id: u32, at: Time) {
        let slot = self.slot_of[id as usize];
        if slot == NO_SLOT {
            return;
        }
        let sender = &mut self.conns[slot as usize].as_mut().unwrap().sender;
        if sender.timer_event_at != Some(at) {
            return; // superseded by an earlier event for this flow
        }
        sender.timer_event_at = None;
        match sender.wake_at() {
            None => {}
            Some(wake) if wake > self.now => self.sync_timer(id),
            Some(_) => {
                let conn = self.conns[slot as usize].as_mut().unwrap();
                let mut out = std::mem::take(&mut self.out);
                conn.sender.on_wake(self.now, &self.transport, &mut out);
                let src = conn.sender.src;
                let quit = conn.sender.pdq_terminated();
                self.send_from_host(src, &mut out);
                self.out = out;
                if quit {
                    // PDQ only, which runs sequentially.
                    self.flows[id as usize].terminated = true;
                    self.close_flow(id);
                } else {
                    self.sync_timer(id);
                }
            }
        }
    }

    // ---- packets ----

    /// Where port `port` of the fabric is in `ports` (past their end for another partition's port).
    #[inline(always)]
    fn slot(&self, port: u32) -> usize {
        port.wrapping_sub(self.port_base) as usize
    }

    fn send_from_host(&mut self, host: u32, out: &mut Vec<Packet>) {
        let port = self.topo.nic_port(host);
        for mut p in out.drain(..) {
            if p.kind == PacketKind::Data {
                self.counters.data_packets_sent += 1;
                p.loss_bin = self.loss.bin(p.priority);
            } else {
                self.counters.control_packets_sent += 1;
            }
            let id = self.pool.alloc(p);
            self.enqueue(port, id);
        }
    }

    #[inline(always)]
    fn enqueue(&mut self, port: u32, id: PacketId) {
        self.send_due(port);
        #[cfg(test)]
        self.port_log.push(PortLog::Enqueue { port, at: self.now, id });
        let slot = self.slot(port);
        let ps = &mut self.ports[slot];
        // Asked of the run, not of the port: the port's PDQ state lies outside the lines every packet reads.
        if self.pdq_ports {
            if let Some(pdq) = &mut ps.pdq {
                pdq.on_packet(self.pool.get_mut(id), self.now);
            }
        }
        let p = self.pool.get(id);
        // Counted without a branch (control packets add 0 to their bin): data and ACKs interleave with no
        // pattern, and the branch was mispredicted on about one packet-hop in three.
        let cell = ps.loss_base as usize + p.loss_bin as usize;
        self.loss.offered[cell] += (p.kind == PacketKind::Data) as u64;
        let wire = p.wire;
        if ps.busy_until <= self.now && ps.queued_bytes == 0 {
            if self.ranked_ports {
                ps.queue.pass_through(id, &self.pool);
            }
            self.transmit(port, id, wire, self.now);
            return;
        }
        ps.account_queue(self.now);
        ps.queued_bytes += wire as u64;
        let dropped = ps.queue.enqueue(id, &mut self.pool, self.now);
        if self.trimming_ports {
            self.settle_trimming_port(port, dropped);
            return;
        }
        if let Some(dropped) = dropped {
            #[cfg(test)]
            self.port_log.push(PortLog::Drop { port, at: self.now, id: dropped });
            count_drop(ps, &mut self.pool, &mut self.counters, &mut self.loss, dropped);
        }
        debug_assert_eq!(ps.queued_bytes, ps.queue.bytes());
        ps.max_queue_bytes = ps.max_queue_bytes.max(ps.queued_bytes);
        if ps.peer_part != LOCAL {
            // A partitioned run brings this port up to date itself, at the end of each window.
            self.queued_at_cut_port(port);
        }
    }

    /// NDP's port `port` after an enqueue (kept off the other disciplines' path): the payload its queue
    /// trimmed is counted dropped and the header that goes on a control packet sent; a trimmed header with no
    /// room is returned to its sender once the port is settled, and any other packet refused is dropped.
    #[inline(never)]
    fn settle_trimming_port(&mut self, port: u32, dropped: Option<PacketId>) {
        let slot = self.slot(port);
        let ps = &mut self.ports[slot];
        if let Some((trimmed, cut)) = ps.queue.take_trimmed() {
            ps.queued_bytes -= cut as u64;
            ps.drops.drop_packets += 1;
            ps.drops.drop_bytes += cut as u64;
            ps.drops.drop_data_packets += 1;
            self.counters.data_packets_dropped += 1;
            self.counters.data_packets_trimmed += 1;
            self.counters.control_packets_sent += 1;
            self.loss.dropped[ps.loss_base as usize + self.pool.get(trimmed).loss_bin as usize] += 1;
        }
        let returned = dropped.filter(|&d| self.pool.get(d).kind == PacketKind::Trimmed);
        let ps = &mut self.ports[slot];
        match (dropped, returned) {
            (Some(d), Some(_)) => ps.queued_bytes -= self.pool.get(d).wire as u64,
            (Some(d), None) => {
                #[cfg(test)]
                self.port_log.push(PortLog::Drop { port, at: self.now, id: d });
                count_drop(ps, &mut self.pool, &mut self.counters, &mut self.loss, d)
            }
            (None, _) => {}
        }
        debug_assert_eq!(ps.queued_bytes, ps.queue.bytes());
        ps.max_queue_bytes = ps.max_queue_bytes.max(ps.queued_bytes);
        if ps.peer_part != LOCAL {
            // As `enqueue` does for any other port: a partitioned run brings a cut port up to date itself.
            self.queued_at_cut_port(port);
        }
        if let Some(id) = returned {
            self.ndp_return_to_sender(port, id);
        }
    }

    /// Port `port` starts sending packet `id` at `start` (now, or the moment its serializer freed).
    #[inline(always)]
    fn transmit(&mut self, port: u32, id: PacketId, wire: u32, start: Time) {
        let slot = self.slot(port);
        let ps = &mut self.ports[slot];
        let wire = wire as u64;
        let ser = ps.serialization(wire);
        ps.busy_until = start + ser;
        #[cfg(test)]
        self.port_log.push(PortLog::Start { port, at: start, id, end: start + ser });
        ps.tx_packets += 1;
        ps.tx_bytes += wire;
        self.counters.packet_hops += 1;
        let at = start + ser + ps.delay_ps;
        if ps.peer_part == LOCAL {
            // (The fabric's own id of the port: a partitioned run numbers its ports anew.)
            let own = if self.fabric_id_of.is_empty() { port } else { self.fabric_id_of[port as usize] };
            self.events.schedule_keyed(at, keys::arrival(at, own), EventKind::Arrive, id, port);
        } else {
            let (dest, node) = (ps.peer_part, ps.peer_node);
            self.hand_over(dest, at, port, node, id);
        }
    }

    /// Bring port `port` up to now: each time its serializer freed (at or before now) with packets waiting, it
    /// sent its queue's choice at that moment. Nothing else has touched its queue since: every enqueue brings
    /// the port up to date first.
    #[inline(always)]
    fn send_due(&mut self, port: u32) {
        if self.ports[self.slot(port)].owes_a_send(self.now) {
            self.send_due_loop(port);
        }
    }

    fn send_due_loop(&mut self, port: u32) {
        let slot = self.slot(port);
        while self.ports[slot].owes_a_send(self.now) {
            let ps = &mut self.ports[slot];
            let at = ps.busy_until;
            ps.account_queue(at);
            let Some((id, wire)) = ps.queue.dequeue(&self.pool, at) else {
                // Every discipline here yields a packet whenever bytes wait (PIEO's packets are eligible from
                // their enqueue, which comes before any departure that could pick them): a queue that held
                // packets back would need a wake-up of the port, which this engine does not have.
                debug_assert!(false, "port {port}: bytes wait but the queue yields nothing");
                return;
            };
            ps.queued_bytes -= wire as u64;
            debug_assert_eq!(ps.queued_bytes, ps.queue.bytes());
            self.transmit(port, id, wire, at);
        }
    }

    /// The run stops at its time limit: every port sends what it would have sent by then.
    fn send_all_due(&mut self) {
        for slot in 0..self.ports.len() as u32 {
            self.send_due(self.port_base + slot);
        }
    }

    /// A random draw below `n` for a route at switch `node`: from the run's stream, or in a partitioned run
    /// from the stream of the switch's partition.
    #[inline]
    fn spray_below(&mut self, node: u32, n: u64) -> u64 {
        self.sprays[(node - self.hosts) as usize].below(n)
    }

    /// Adaptive routing: of the equal-cost ports of switch `node` towards `dst`, the one that frees first (its
    /// serializer and queue drained); ties go to the first found from a random place in the list, so idle
    /// ports share the traffic.
    fn least_loaded(&mut self, node: u32, dst: u32) -> u32 {
        let n = self.topo.next_hops(node, dst).len();
        let first = self.spray_below(node, n as u64) as usize;
        let mut best = (Time::MAX, 0);
        for k in 0..n {
            let port = self.topo.next_hops(node, dst)[(first + k) % n];
            let free = self.drains_at(port);
            if free < best.0 {
                best = (free, port);
            }
        }
        best.1
    }

    /// When port `port` will have sent everything it holds (now if it is idle and empty).
    fn drains_at(&mut self, port: u32) -> Time {
        self.send_due(port);
        let ps = &self.ports[self.slot(port)];
        ps.busy_until.max(self.now) + ps.serialization(ps.queued_bytes)
    }

    /// Packet `id`, sent by port `from`, arrives at the port's far end.
    #[inline(always)]
    fn arrive<const PARTITIONED: bool>(&mut self, id: PacketId, from: u32) {
        if PARTITIONED && from >= self.fed_from {
            self.arrive_from_afar(id, from);
            return;
        }
        // The sending port's serializer freed one propagation delay ago: what it sent then (if it had
        // anything waiting) leaves now, before its arrival could be due. (A packet from another partition
        // arrives as `Handed`: its port is brought up to date by its own partition, at each window's end.)
        self.send_due(from);
        // (An arrival crosses a link within a partition: the node's partition is the sending port's. Read only
        // where there are partitions: the sequential engine's loop pays nothing for it.)
        let ps = &self.ports[self.slot(from)];
        let (node, part) = (ps.peer_node, if PARTITIONED { ps.own_part } else { SOME_PART });
        self.arrive_at(id, node, part);
    }

    /// Packet `id` arrives at node `node` (of partition `part` within its block, or [`SOME_PART`]): a switch
    /// forwards it, a host takes it in.
    #[inline(always)]
    fn arrive_at(&mut self, id: PacketId, node: u32, part: u32) {
        if node >= self.hosts {
            let p = self.pool.get(id);
            let choices = self.topo.next_hops(node, p.dst);
            let port = match choices.len() {
                1 => choices[0],
                n => match self.routing {
                    Routing::Spray => {
                        // (Fields borrowed apart from the topology that `choices` borrows.)
                        let pick = self.sprays[(node - self.hosts) as usize].below(n as u64);
                        let port = choices[pick as usize];
                        #[cfg(test)]
                        {
                            let (guessed, at, guess) = self.spray_guess.get();
                            if (guessed, at) == (id, node) {
                                self.spray_guesses.0 += (guess == port) as u64;
                                self.spray_guesses.1 += (guess != port) as u64;
                            }
                        }
                        port
                    }
                    Routing::Ecmp => ecmp_choice(p.flow, node, &choices),
                    Routing::Adaptive => {
                        let dst = p.dst;
                        self.least_loaded(node, dst)
                    }
                },
            };
            if port >= self.fed_from {
                // A port down to a host of another partition, which runs it: queued there, a window later.
                self.feed_from_afar(port, id, node, part);
                return;
            }
            self.enqueue(port, id);
        } else {
            let pkt = *self.pool.get(id);
            debug_assert_eq!(pkt.dst, node);
            if self.receiver_driven {
                self.arrive_at_receiver_driven_host(id, pkt);
                return;
            }
            match pkt.kind {
                PacketKind::Data | PacketKind::Probe => self.receive_data(id, pkt),
                PacketKind::Ack => {
                    self.pool.release(id);
                    self.receive_ack(pkt)
                }
                kind => unreachable!("a {kind:?} packet in a run of sender-driven hosts"),
            }
        }
    }

    /// Packet `id` (`pkt`) arrives at its host in a run of receiver-driven hosts (pHost, Homa, NDP), kept off
    /// the path of the others.
    #[inline(never)]
    fn arrive_at_receiver_driven_host(&mut self, id: PacketId, pkt: Packet) {
        if self.phost.is_some() {
            match pkt.kind {
                PacketKind::Data | PacketKind::Probe => self.phost_receive(id, pkt),
                PacketKind::Grant => {
                    self.pool.release(id);
                    self.phost_token_arrives(pkt)
                }
                PacketKind::Ack => {
                    self.pool.release(id);
                    self.receive_ack(pkt)
                }
                kind => unreachable!("a {kind:?} packet in a pHost run"),
            }
        } else if self.homa.is_some() {
            match pkt.kind {
                PacketKind::Data => self.homa_receive(id, pkt),
                PacketKind::Grant => {
                    self.pool.release(id);
                    self.homa_grant_arrives(pkt)
                }
                PacketKind::Ack => {
                    self.pool.release(id);
                    self.receive_ack(pkt)
                }
                kind => unreachable!("a {kind:?} packet in a Homa run"),
            }
        } else {
            match pkt.kind {
                PacketKind::Data => self.ndp_receive(id, pkt),
                PacketKind::Trimmed => self.ndp_trimmed(id, pkt),
                PacketKind::Ack | PacketKind::Nack | PacketKind::Grant | PacketKind::Bounced => {
                    self.pool.release(id);
                    self.ndp_sender_hears(pkt)
                }
                kind => unreachable!("a {kind:?} packet in an NDP run"),
            }
        }
    }

    /// Data (or a probe) `pkt`, held in the pool as `id`, reaches its receiver; its ACK takes over the slot.
    #[inline(always)]
    fn receive_data(&mut self, id: PacketId, pkt: Packet) {
        if pkt.kind == PacketKind::Data {
            self.counters.data_packets_delivered += 1;
        } else {
            self.counters.control_packets_delivered += 1;
        }
        let (slot, half) = match self.receiving_half(pkt.flow) {
            Ok(found) => found,
            Err(noted) => {
                self.answer_late_copy(id, pkt, noted);
                return;
            }
        };
        if slot == NO_SLOT {
            self.answer_closed_flow(id, pkt);
            return; // a late copy for a flow whose sender already closed
        }
        let conn = self.conns[slot as usize].as_mut().unwrap();
        conn.receiver.note_order(pkt.seq, pkt.retransmit);
        if let Some(log) = &mut self.arrival_log {
            if pkt.flow < log.track_flows && pkt.kind == PacketKind::Data {
                log.rows.push((self.now, pkt.flow, pkt.seq, pkt.priority, pkt.retransmit));
            }
        }
        let arrival = conn.receiver.on_packet(pkt.seq);
        if arrival == Arrival::Silent {
            if pkt.kind == PacketKind::Data {
                self.counters.data_packets_refused += 1;
            }
            self.pool.release(id);
            return; // the handshake's final ACK, or data that overtook it: nothing to acknowledge
        }
        if arrival == Arrival::Completes && self.fct_end == FctEnd::Delivered {
            // Inline, not `complete`: `conn` is still borrowed (its ACK is made below).
            match &mut self.block {
                None => self.flows[pkt.flow as usize].finish = self.now,
                Some(block) => block.finished.push((pkt.flow, self.now)),
            }
            self.counters.flows_finished += 1;
        }
        self.counters.note_received(arrival.is_new_data(), pkt.payload);
        if arrival != Arrival::Old {
            if let Some(s) = &mut self.sampler {
                if let Some(bytes) = s.delivered.get_mut(pkt.flow as usize) {
                    *bytes += pkt.payload as u64;
                }
            }
        }
        let ack = ack_for(&pkt, conn.receiver.cum, self.transport.format);
        if arrival == Arrival::Completes {
            self.retire_if_half(pkt.flow, slot, half);
        }
        self.answer_in_place(id, ack, pkt.dst);
    }

    /// A late copy for a flow closed at its sender (its receiver held every packet, and its state is gone):
    /// answered as a retired receiving half answers one (`parallel::answer_late_copy`), so that a flow's halves
    /// in one partition, or in the sequential engine, answer as halves apart do. A first transmission counts
    /// as out of order.
    #[cold]
    #[inline(never)]
    fn answer_closed_flow(&mut self, id: PacketId, pkt: Packet) {
        if pkt.seq < crate::transport::receiver::HANDSHAKE_ACK_SEQ && !pkt.retransmit {
            self.count_late_out_of_order(pkt.flow);
        }
        self.answer_copy(id, pkt);
    }

    /// A copy for a receiver that held every packet (its flow closed, or its receiving half retired): data and
    /// probes are acknowledged with everything received, the handshake's final ACK is taken silently.
    fn answer_copy(&mut self, id: PacketId, pkt: Packet) {
        let data = pkt.seq < crate::transport::receiver::HANDSHAKE_ACK_SEQ;
        if !data && pkt.seq != crate::transport::receiver::PROBE_SEQ {
            if pkt.kind == PacketKind::Data {
                self.counters.data_packets_refused += 1;
            }
            self.pool.release(id);
            return;
        }
        let size = match &self.block {
            None => self.flows[pkt.flow as usize].size_bytes,
            Some(block) => block.records[pkt.flow as usize].size_bytes,
        };
        let npkts = self.transport.format.packets_for(size) as u32;
        self.counters.note_received(false, pkt.payload);
        self.answer_in_place(id, ack_for(&pkt, npkts, self.transport.format), pkt.dst);
    }

    /// One more packet out of order for flow `flow`, closed at its sender (its counts already noted).
    pub(super) fn count_late_out_of_order(&mut self, flow: u32) {
        match &mut self.block {
            None => self.flows[flow as usize].out_of_order += 1,
            Some(block) => block.late_out_of_order.push(flow),
        }
    }

    /// The slot of the connection whose receiver takes flow `flow`'s packets here ([`NO_SLOT`]: the flow
    /// closed), and whether it is a receiving half in a partition apart from the sender's (made when the flow's
    /// first packet arrives); or, for a receiving half already retired, where its counts were noted.
    #[inline(always)]
    fn receiving_half(&mut self, flow: u32) -> Result<(u32, bool), usize> {
        if self.block.is_some() {
            let rx = self.rx_slot_of[flow as usize];
            if rx != ONE_PARTITION {
                if let Some(noted) = parallel::retired(rx) {
                    return Err(noted);
                }
                let slot = if rx == NO_SLOT { self.open_receiver(flow) } else { rx };
                return Ok((slot, true));
            }
        }
        Ok((self.slot_of[flow as usize], false))
    }

    /// Host `host` sends `ack` in the pool slot `id` of the packet it answers: no release, allocation or copy
    /// through `out`.
    #[inline(always)]
    fn answer_in_place(&mut self, id: PacketId, ack: Packet, host: u32) {
        *self.pool.get_mut(id) = ack;
        self.counters.control_packets_sent += 1;
        self.enqueue(self.topo.nic_port(host), id);
    }

    #[inline(always)]
    fn receive_ack(&mut self, ack: Packet) {
        self.counters.control_packets_delivered += 1;
        let slot = self.slot_of[ack.flow as usize];
        if slot == NO_SLOT {
            return;
        }
        let conn = self.conns[slot as usize].as_mut().unwrap();
        let mut out = std::mem::take(&mut self.out);
        let done = conn.sender.on_ack(&ack, self.now, &self.transport, &mut out);
        let src = conn.sender.src;
        // Asked while the sender is at hand (sending its packets does not change its timers), scheduled after
        // them as before.
        let timer = if done { None } else { conn.sender.timer_event_needed() };
        self.send_from_host(src, &mut out);
        self.out = out;
        if done {
            if self.fct_end == FctEnd::Acked {
                self.complete(ack.flow);
            }
            if self.phost.is_some() {
                self.phost_forget(src, ack.flow);
            } else if self.homa.is_some() {
                self.homa_forget(src, ack.flow);
            } else if self.ndp.is_some() {
                self.ndp_forget(src, ack.flow);
            }
            self.close_flow(ack.flow);
        } else if let Some(wake) = timer {
            self.events.schedule_keyed(wake, keys::timer(ack.flow), EventKind::Timer, ack.flow, 0);
        }
    }

    /// Flow `flow` completes now (its last byte delivered, or that byte's ACK back, as the run measures).
    fn complete(&mut self, flow: u32) {
        match &mut self.block {
            None => self.flows[flow as usize].finish = self.now,
            Some(block) => block.finished.push((flow, self.now)),
        }
        self.counters.flows_finished += 1;
    }

    /// End of a sampling interval: record each tracked flow's delivered bytes.
    fn sample(&mut self) {
        let Some(s) = &mut self.sampler else { return };
        let started = self.flows.len().min(s.delivered.len());
        for (f, bytes) in s.delivered[..started].iter_mut().enumerate() {
            s.rows.push((self.now, f as u32, *bytes));
            *bytes = 0;
        }
        // Keep sampling while anything else is left to happen (flows that can no longer progress, such as a
        // constant-rate flow that lost packets, do not keep the run alive).
        if !self.events.is_empty() {
            self.events.schedule_keyed(self.now + s.interval, keys::SAMPLE, EventKind::Sample, 0, 0);
        }
    }

    /// The arrival log of tracked flows (empty unless `output.log_arrivals`).
    pub fn arrivals(&self) -> &[(Time, u32, u32, u64, bool)] {
        self.arrival_log.as_ref().map_or(&[], |l| &l.rows)
    }

    /// Data-packet loss per tier and priority bin.
    pub fn priority_loss(&self) -> &PriorityLoss {
        &self.loss
    }

    /// (end of interval, flow, bytes delivered in it) for the tracked flows, if sampling was on.
    pub fn throughput_samples(&self) -> &[(Time, u32, u64)] {
        self.sampler.as_ref().map_or(&[], |s| &s.rows)
    }

    /// Copy the counters of flows still open into their records (at the end of a run).
    fn finish_records(&mut self) {
        for id in 0..self.slot_of.len() {
            let (tx, rx) = (self.slot_of[id], self.rx_slot_of.get(id).copied().unwrap_or(NO_SLOT));
            for (receiving, slot) in [(false, tx), (true, rx)] {
                // (Not NO_SLOT, ONE_PARTITION or a retired receiving half: `parallel::RETIRED`.)
                if slot < parallel::RETIRED {
                    let conn = self.conns[slot as usize].take().unwrap();
                    match &mut self.block {
                        // A receiving half in its sending half's connection, whose counts were just noted.
                        Some(block) if receiving && rx == tx => block.note_receiving_half(id as u32, &conn.receiver),
                        _ => self.note_counts(id as u32, &conn),
                    }
                    self.conns[slot as usize] = Some(conn);
                }
            }
        }
    }
}

/// The bucket width (a power of two, in picoseconds) of a sequential run's event queue.
/// The ACK of data (or a probe) `pkt`, the receiver holding everything below `cum`: header-size, ahead of data,
/// echoing the packet's send time, its ECN mark and PDQ's rate and pause-by fields.
/// Packet `dropped` leaves port `ps`'s queue, dropped: counted (at the port, in the run's ledger and in the loss
/// tables) and freed.
#[inline(always)]
fn count_drop(
    ps: &mut PortState,
    pool: &mut PacketPool,
    counters: &mut RunCounters,
    loss: &mut PriorityLoss,
    dropped: PacketId,
) {
    let p = pool.get(dropped);
    ps.queued_bytes -= p.wire as u64;
    ps.drops.drop_packets += 1;
    ps.drops.drop_bytes += p.wire as u64;
    if p.kind == PacketKind::Data {
        ps.drops.drop_data_packets += 1;
        counters.data_packets_dropped += 1;
        loss.dropped[ps.loss_base as usize + p.loss_bin as usize] += 1;
    } else {
        counters.control_packets_dropped += 1;
    }
    pool.release(dropped);
}

pub(super) fn ack_for(pkt: &Packet, cum: u32, format: PacketFormat) -> Packet {
    Packet {
        priority: 0,
        sent_at: pkt.sent_at,
        flow: pkt.flow,
        seq: pkt.seq,
        ack: cum,
        src: pkt.dst,
        dst: pkt.src,
        payload: 0,
        wire: format.control_wire_bytes(),
        kind: PacketKind::Ack,
        ce: false,
        ece: pkt.ce,
        retransmit: false,
        loss_bin: 0,
        rate_bps: pkt.rate_bps,
        paused_by: pkt.paused_by,
    }
}

fn event_horizon_shift(topo: &Topology) -> u32 {
    EventQueue::for_horizon(event_horizon(topo)).shift()
}

/// How far ahead packet events fall: the longest serialization of a full packet plus propagation, over all
/// ports. The event queue keeps this much of the future in its calendar of buckets (wider buckets put more
/// events in each, which the queue sorts: measured in bench/RESULTS.md). A tuning only, so the default packet
/// format serves every run: any bucket width gives the same order of events.
fn event_horizon(topo: &Topology) -> Time {
    let full = PacketFormat::DEFAULT.full_wire_bytes() as u64;
    let longest = topo.ports.iter().map(|p| serialization_ps(full, p.rate_bps) + p.delay_ps).max().unwrap_or(1);
    longest
}

impl Simulation {
    /// Whether the run stopped at its time limit or its event budget with work left.
    pub fn cut_short(&self) -> bool {
        self.cut_short
    }

    /// Whether the run stopped at its event budget (`run.max_events`, or the one derived from its flows).
    pub fn out_of_budget(&self) -> bool {
        self.out_of_budget
    }

    /// The events the run may process (grows with each flow when derived).
    pub fn event_budget(&self) -> u64 {
        self.event_budget
    }
}

#[cfg(test)]
mod port_behaviour {
    use super::*;
    use std::collections::HashMap;

    fn run(scheme: serde_json::Value, load: f64, flows: u64, max_sim_time_s: Option<f64>) -> Simulation {
        let pkts = [6., 6., 13., 19., 33., 53., 133., 667., 1333., 3333., 6667., 20000.];
        let cdf = [0., 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1.];
        let cfg = ScenarioConfig::from_value(&serde_json::json!({
            "seed": 11,
            "topology": {"kind": "leaf-spine"},
            "workload": {"kind": "poisson", "load": load, "flows": flows, "cdf": {
                "size_bytes": pkts.iter().map(|p| p * 1460.0).collect::<Vec<_>>(), "cdf": cdf.to_vec(),
                "interpolation": "linear"}},
            "scheme": scheme,
            "run": {"max_sim_time_s": max_sim_time_s},
        }))
        .expect("valid scenario");
        let mut sim = Simulation::new(cfg);
        sim.run();
        sim
    }

    /// Every port behaves as a work-conserving single server: its transmissions never overlap, each starts
    /// the moment the port is free and a packet waits (a packet enqueued or, failing that, the next to
    /// arrive), only packets that wait are sent, and the port's record is in time order. At the end, nothing
    /// waits that the port could have sent by then. Returns the transmissions checked.
    fn check_work_conserving(sim: &Simulation) -> u64 {
        let ports = sim.ports.len();
        let mut last_at = vec![0; ports];
        let mut free_at = vec![0; ports];
        let mut waiting: Vec<HashMap<PacketId, Time>> = vec![HashMap::new(); ports];
        let mut starts = 0;
        for &entry in &sim.port_log {
            match entry {
                PortLog::Enqueue { port, at, id } => {
                    let p = port as usize;
                    assert!(at >= last_at[p], "{entry:?}: port {p} acted at {} before", last_at[p]);
                    last_at[p] = at;
                    assert!(waiting[p].insert(id, at).is_none(), "{entry:?}: already waiting");
                }
                PortLog::Drop { port, at, id } => {
                    let p = port as usize;
                    assert_eq!(at, last_at[p], "{entry:?}: a drop happens as a packet joins the queue");
                    assert!(waiting[p].remove(&id).is_some(), "{entry:?}: not waiting");
                }
                PortLog::Start { port, at, id, end } => {
                    let p = port as usize;
                    assert!(at >= last_at[p], "{entry:?}: port {p} acted at {} before", last_at[p]);
                    last_at[p] = at;
                    let first_waiting = *waiting[p].values().min().expect("a packet waits");
                    assert_eq!(at, free_at[p].max(first_waiting), "{entry:?}: the port was free at {}", free_at[p]);
                    assert!(waiting[p].remove(&id).is_some(), "{entry:?}: sent without waiting");
                    assert!(end > at);
                    free_at[p] = end;
                    starts += 1;
                }
            }
        }
        assert_eq!(starts, sim.counters.packet_hops, "every transmission recorded once");
        for (p, w) in waiting.iter().enumerate() {
            assert!(w.is_empty() || free_at[p] > sim.now, "port {p}: {} waiting, free since {}", w.len(), free_at[p]);
        }
        starts
    }

    #[test]
    fn ports_are_work_conserving_single_servers_under_load() {
        for scheme in [serde_json::json!({"name": "pfabric"}), serde_json::json!({"name": "tcp"})] {
            let sim = run(scheme.clone(), 0.8, 400, None);
            assert_eq!(sim.counters.flows_finished, 400, "{scheme}");
            assert!(sim.counters.data_packets_dropped > 0, "{scheme}: queues overflowed, drops were exercised");
            assert!(check_work_conserving(&sim) > 100_000, "{scheme}");
            assert_eq!(sim.live_packets(), 0);
        }
    }

    /// The same, partitioned: every link cut (each node its own partition), so every hop is handed over
    /// between windows, and hosts apart from switches, whose ports down to the hosts are fed from afar (each
    /// packet queued there a window after the switch sent it, as of then); on two threads and on one, with the
    /// same port records.
    #[test]
    fn partitioned_ports_are_work_conserving_single_servers_and_thread_counts_agree() {
        for (partition, parts) in [("nodes", 36), ("hosts", 9)] {
            partitioned_ports_are_work_conserving_when_cut(partition, parts);
        }
    }

    fn partitioned_ports_are_work_conserving_when_cut(partition: &str, parts: usize) {
        let run_on = |threads: u32, max_sim_time_s: Option<f64>| {
            let pkts = [6., 6., 13., 19., 33., 53., 133., 667., 1333., 3333., 6667., 20000.];
            let cdf = [0., 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 1.];
            let cfg = ScenarioConfig::from_value(&serde_json::json!({
                "seed": 12,
                "topology": {"kind": "fat-tree", "k": 4},
                "workload": {"kind": "poisson", "load": 0.8, "flows": 300, "cdf": {
                    "size_bytes": pkts.iter().map(|p| p * 1460.0).collect::<Vec<_>>(), "cdf": cdf.to_vec(),
                    "interpolation": "linear"}},
                "scheme": {"name": "pfabric"},
                "run": {"threads": threads, "partition": partition, "max_sim_time_s": max_sim_time_s},
            }))
            .expect("valid scenario");
            let mut sim = Simulation::partitioned(cfg);
            sim.run();
            sim
        };
        let one = run_on(1, None);
        assert_eq!(one.partitions(), parts);
        assert_eq!(one.counters.flows_finished, 300);
        assert!(one.counters.data_packets_dropped > 0);
        assert!(check_work_conserving(&one) > 10_000);
        assert_eq!(one.live_packets(), 0);
        let two = run_on(2, None);
        let key = |s: &Simulation| -> Vec<(u32, Time, u32)> {
            let mut v: Vec<_> = s
                .port_log
                .iter()
                .filter_map(|e| match *e {
                    PortLog::Start { port, at, end, .. } => Some((port, at, (end - at) as u32)),
                    _ => None,
                })
                .collect();
            v.sort_unstable();
            v
        };
        assert_eq!(key(&one), key(&two));
        let cut = run_on(2, Some(0.0005));
        assert!(cut.cut_short() && cut.now == 500_000_000);
        assert!(cut.live_packets() > 0);
        check_work_conserving(&cut);
    }

    /// The prefetches ahead that large fabrics turn on (`far_prefetch`, `far_routes`) only read: forced on for a
    /// small fat-tree with every kind of hop, the run is the same, event for event and flow for flow.
    #[test]
    fn prefetching_ahead_changes_nothing() {
        // Sprayed, so that the port out guessed from the spray streams' next draws is asked for too; and on the
        // partitioned engine, whose blocks draw from their switches' streams and take packets handed over.
        let run_with = |far: bool, run: serde_json::Value| {
            let cfg = ScenarioConfig::from_value(&serde_json::json!({
                "seed": 5,
                "topology": {"kind": "fat-tree", "k": 4, "routing": "spray"},
                "workload": {"kind": "poisson", "load": 0.8, "flows": 300, "cdf": {
                    "size_bytes": [1460.0, 14600.0, 146000.0, 1460000.0], "cdf": [0.0, 0.5, 0.9, 1.0],
                    "interpolation": "linear"}},
                "scheme": {"name": "pfabric"},
                "run": run,
            }))
            .expect("valid scenario");
            let mut sim = Simulation::new(cfg);
            each_block(&mut sim, &mut |s| {
                assert!(!s.far_prefetch && !s.far_routes, "a k = 4 fat-tree's ports and routes fit the caches");
                s.far_prefetch = far;
                s.far_routes = far;
            });
            sim.run();
            let flows: Vec<(Time, u64)> = sim.flows().iter().map(|f| (f.finish, f.size_bytes)).collect();
            (sim.counters.events, sim.counters.packet_hops, flows)
        };
        assert_eq!(run_with(true, serde_json::json!({})), run_with(false, serde_json::json!({})));
        let partitioned = serde_json::json!({"threads": 2, "partition": "nodes"});
        assert_eq!(run_with(true, partitioned.clone()), run_with(false, partitioned));
    }

    /// A panic in a partition's thread (a bug), whether in the block the calling thread runs or in another,
    /// fails the run with its message instead of leaving the other threads waiting for it, and the run cannot
    /// be stepped on after it.
    #[test]
    fn a_panic_in_a_partitions_thread_fails_the_run_instead_of_hanging_it() {
        let message = |panic: Box<dyn std::any::Any + Send>| parallel::panic_message(&*panic);
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for block in [0, 1] {
                let cfg = ScenarioConfig::from_value(&serde_json::json!({
                    "seed": 3,
                    "topology": {"kind": "fat-tree", "k": 4},
                    "workload": {"kind": "poisson", "load": 0.6, "flows": 200, "cdf": {
                        "size_bytes": [1460.0, 14600.0, 146000.0], "cdf": [0.0, 0.5, 1.0],
                        "interpolation": "linear"}},
                    "scheme": {"name": "pfabric"},
                    "run": {"threads": 2},
                }))
                .expect("valid scenario");
                let mut sim = Simulation::new(cfg);
                let blocks = sim.partitioned.as_mut().unwrap().blocks_mut();
                blocks[block].block.as_mut().unwrap().panic_in = Some(5);
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sim.run()));
                let again = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sim.step(1_000)));
                tx.send((block, run.err().and_then(message), again.err().and_then(message))).unwrap();
            }
        });
        for block in [0, 1] {
            // (A thread left waiting would hang the test: fail it instead.)
            let got = rx.recv_timeout(std::time::Duration::from_secs(120));
            let (b, run, again) = got.expect("no answer in 120 s: the run hung (or the test's thread failed)");
            assert_eq!(b, block);
            let run = run.expect("the run fails");
            assert!(run.contains(&format!("block {block} fails in window 5 (on purpose)")), "{run}");
            // Block 0 runs on the calling thread; block 1's panic is raised again there, saying whose it was.
            assert_eq!(run.starts_with("a partition's thread: "), block == 1, "{run}");
            assert!(again.expect("stepping on fails").contains("cannot go on"));
        }
    }

    /// A partitioned run frees a receiving half once it holds every packet and answers the copies that still
    /// come as the half would have: kept to the end instead, every flow's row and every count is the same. The
    /// runs drop and resend (TCP on shallow buffers, pFabric), so that late copies reach retired halves.
    ///
    /// With one thread every receiving half shares its sending half's connection (`parallel::open_receiver`),
    /// with two only those whose halves run in one block: a shared half retires, is kept or closes alike, and
    /// the rows are those of two threads.
    #[test]
    fn retiring_receiving_halves_changes_nothing() {
        let mut late_copies = 0;
        for (scheme, buffer) in [("tcp", 15_000), ("pfabric", 15_000), ("dctcp", 30_000)] {
            let run_with = |keep: bool, threads: u32| {
                let cfg = ScenarioConfig::from_value(&serde_json::json!({
                    "seed": 3,
                    "topology": {"kind": "fat-tree", "k": 4},
                    "workload": {"kind": "poisson", "load": 0.9, "flows": 400, "cdf": {
                        "size_bytes": [1460.0, 14600.0, 146000.0, 1460000.0], "cdf": [0.0, 0.5, 0.9, 1.0],
                        "interpolation": "linear"}},
                    "scheme": {"name": scheme, "queue_bytes": buffer},
                    "run": {"threads": threads},
                }))
                .expect("valid scenario");
                let mut sim = Simulation::partitioned(cfg);
                each_block(&mut sim, &mut |s| s.keep_receivers = keep);
                sim.run();
                let flows: Vec<_> =
                    sim.flows().iter().map(|f| (f.finish, f.retransmissions, f.timeouts, f.out_of_order)).collect();
                ((format!("{:?}", sim.counters), flows), sim.late_copies, sim.receivers_apart)
            };
            let (kept, none, apart) = run_with(true, 2);
            let (retired, late, _) = run_with(false, 2);
            assert_eq!(kept, retired, "{scheme}");
            assert_eq!(none, 0);
            assert!(apart > 0, "{scheme}: two threads, and no receiving half apart from its sending half");
            late_copies += late;
            for keep in [true, false] {
                let (one, late_one, apart_one) = run_with(keep, 1);
                assert_eq!(one, retired, "{scheme}: one thread, receiving halves kept: {keep}");
                assert_eq!(apart_one, 0, "{scheme}: one thread, a receiving half apart from its sending half");
                assert_eq!(late_one, if keep { 0 } else { late }, "{scheme}");
            }
        }
        assert!(late_copies > 0, "no late copy reached a retired half: the test tests nothing");
    }

    /// Apply `f` to the simulation that handles events: `sim` itself, or each block of a partitioned run.
    fn each_block(sim: &mut Simulation, f: &mut dyn FnMut(&mut Simulation)) {
        match sim.partitioned.as_mut() {
            Some(p) => p.blocks_mut().iter_mut().for_each(f),
            None => f(sim),
        }
    }

    /// The sprayed port asked for a step ahead is the one the draw then picks, nearly always (a wrong guess
    /// only wastes a prefetch, so only a test can tell that the guesses are right).
    #[test]
    fn the_sprayed_port_asked_for_ahead_is_the_one_drawn() {
        for run in [serde_json::json!({}), serde_json::json!({"threads": 1, "partition": "nodes"})] {
            let cfg = ScenarioConfig::from_value(&serde_json::json!({
                "seed": 9,
                "topology": {"kind": "fat-tree", "k": 4, "routing": "spray"},
                "workload": {"kind": "poisson", "load": 0.7, "flows": 200, "cdf": {
                    "size_bytes": [1460.0, 14600.0, 146000.0], "cdf": [0.0, 0.6, 1.0], "interpolation": "linear"}},
                "scheme": {"name": "pfabric"},
                "run": run,
            }))
            .expect("valid scenario");
            let mut sim = if cfg.threads.is_some() { Simulation::partitioned(cfg) } else { Simulation::new(cfg) };
            let label = if sim.partitioned.is_some() { "partitioned" } else { "sequential" };
            each_block(&mut sim, &mut |s| s.far_prefetch = true);
            sim.run();
            // (A partitioned run adds its blocks' counts up as it ends.)
            let (right, wrong) = sim.spray_guesses;
            assert!(right > 5_000 && wrong * 100 < right, "{label}: {right} right, {wrong} wrong");
        }
    }

    #[test]
    fn a_run_cut_at_its_time_limit_sends_what_was_due_by_then() {
        let sim = run(serde_json::json!({"name": "pfabric"}), 0.8, 400, Some(0.002));
        assert!(sim.cut_short() && sim.now == 2_000_000_000);
        assert!(sim.live_packets() > 0, "packets were queued or on a wire at the cut");
        let sent: u64 = (0..sim.ports.len()).map(|p| sim.port_counters(p).tx_packets).sum();
        assert_eq!(sent, sim.counters.packet_hops);
        check_work_conserving(&sim);
    }
}

#[cfg(test)]
mod loss_bins {
    use super::PriorityLoss;

    #[test]
    fn a_priority_number_falls_in_the_bin_after_the_edges_at_or_below_it() {
        for edges in [vec![10, 100, 1_000], (1..=40).map(|e| e * 7).collect()] {
            let loss = PriorityLoss::new(edges.clone());
            for priority in 0..300 {
                let expected = edges.iter().take_while(|&&e| e <= priority).count() as u8;
                assert_eq!(loss.bin(priority), expected, "{priority} with {} edges", edges.len());
            }
        }
    }
}

#[cfg(test)]
mod layout {
    #[test]
    fn a_ports_hot_fields_share_one_cache_line() {
        use super::PortState;
        assert!(std::mem::offset_of!(PortState, queue) == 64);
        assert!(std::mem::offset_of!(PortState, own_part) < 64);
        assert!(std::mem::offset_of!(PortState, max_queue_bytes) + 8 <= 192, "the queue and its time average: 2 lines");
    }

    /// A data packet's arrival reads its receiver and `Option<Connection>`'s tag: one line, if the tag is in
    /// `halves`. Zeros with 2 in `halves` (the first value `Halves` leaves free) read as `None` then.
    #[test]
    fn a_connections_tag_is_on_its_receivers_line() {
        use super::{Connection, Halves};
        use std::mem::{offset_of, size_of, ManuallyDrop};
        assert_eq!(size_of::<Connection>() % 64, 0);
        assert_eq!(size_of::<Option<Connection>>(), size_of::<Connection>());
        let halves = offset_of!(Connection, halves);
        assert!(offset_of!(Connection, receiver) == 0 && halves + size_of::<Halves>() <= 64);
        let mut bytes = [0u8; size_of::<Option<Connection>>()];
        bytes[halves..halves + 8].copy_from_slice(&2u64.to_ne_bytes());
        // SAFETY: with the tag in `halves` these bytes are `None`, whatever the rest holds (the assertion
        // is what this test checks; elsewhere, zeros would be no valid connection). Never dropped.
        let read = ManuallyDrop::new(unsafe { std::mem::transmute_copy::<_, Option<Connection>>(&bytes) });
        assert!(read.is_none(), "Option<Connection> keeps its tag elsewhere");
    }
}
