//! A run's output as columns: plain vectors, one per field, ready to become an Arrow table without a copy per
//! row. The binding hands each column to Python as little-endian bytes.

use crate::engine::Simulation;
use crate::metrics::UNFINISHED;
use crate::net::topology::Tier;

/// A column of values.
pub enum Column {
    U64(Vec<u64>),
    U32(Vec<u32>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    /// Text from a few distinct values: each row's index into `names` (a port table of a k = 64 fat-tree has
    /// 393,216 rows and five distinct labels; a string per row cost 90 MB between core and Python).
    Labels {
        codes: Vec<u8>,
        names: Vec<&'static str>,
    },
}

impl Column {
    /// A `Labels` column of `values`, their distinct values numbered in order of first appearance.
    pub fn labels(values: impl Iterator<Item = &'static str>) -> Column {
        let mut names: Vec<&'static str> = Vec::new();
        let codes = values
            .map(|v| {
                let i = names.iter().position(|&n| n == v).unwrap_or_else(|| {
                    names.push(v);
                    names.len() - 1
                });
                u8::try_from(i).expect("at most 256 distinct labels")
            })
            .collect();
        Column::Labels { codes, names }
    }
}

/// Named columns, in a fixed order.
pub type Columns = Vec<(&'static str, Column)>;

/// The per-flow table. Times in picoseconds; `finish_ps` is `u64::MAX` and `finished` false for flows that did
/// not finish; `deadline_ps` is 0 for flows without a deadline.
pub fn flow_columns(sim: &Simulation) -> Columns {
    let f = sim.flows();
    vec![
        ("flow_id", Column::U64((0..f.len() as u64).collect())),
        ("src", Column::U32(f.iter().map(|r| r.src).collect())),
        ("dst", Column::U32(f.iter().map(|r| r.dst).collect())),
        ("size_bytes", Column::U64(f.iter().map(|r| r.size_bytes).collect())),
        ("start_ps", Column::U64(f.iter().map(|r| r.start).collect())),
        ("finish_ps", Column::U64(f.iter().map(|r| r.finish).collect())),
        ("ideal_fct_ps", Column::U64(f.iter().map(|r| r.ideal_fct).collect())),
        ("deadline_ps", Column::U64(f.iter().map(|r| r.deadline.unwrap_or(0)).collect())),
        ("retransmissions", Column::U32(f.iter().map(|r| r.retransmissions).collect())),
        ("timeouts", Column::U32(f.iter().map(|r| r.timeouts).collect())),
        ("out_of_order", Column::U32(f.iter().map(|r| r.out_of_order).collect())),
        ("finished", Column::Bool(f.iter().map(|r| r.finish != UNFINISHED).collect())),
        ("terminated", Column::Bool(f.iter().map(|r| r.terminated).collect())),
    ]
}

/// The per-port table.
pub fn port_columns(sim: &Simulation) -> Columns {
    let t = sim.topology();
    let n = t.ports.len();
    let c = |i: usize| sim.port_counters(i);
    vec![
        ("port", Column::U32((0..n as u32).collect())),
        ("node", Column::U32(t.ports.iter().map(|p| p.node).collect())),
        ("peer_node", Column::U32(t.ports.iter().map(|p| p.peer_node).collect())),
        ("tier", Column::labels(t.ports.iter().map(|p| p.tier.name()))),
        ("link", Column::labels(t.ports.iter().map(|p| p.label))),
        ("rate_bps", Column::U64(t.ports.iter().map(|p| p.rate_bps).collect())),
        ("tx_packets", Column::U64((0..n).map(|i| c(i).tx_packets).collect())),
        ("tx_bytes", Column::U64((0..n).map(|i| c(i).tx_bytes).collect())),
        ("drop_packets", Column::U64((0..n).map(|i| c(i).drop_packets).collect())),
        ("drop_bytes", Column::U64((0..n).map(|i| c(i).drop_bytes).collect())),
        ("drop_data_packets", Column::U64((0..n).map(|i| c(i).drop_data_packets).collect())),
        ("max_queue_bytes", Column::U64((0..n).map(|i| c(i).max_queue_bytes).collect())),
        ("mean_queue_bytes", Column::F64((0..n).map(|i| sim.mean_queue_bytes(i)).collect())),
    ]
}

/// Loss of data packets per port tier and priority-number bin: the paper's Figure 13.
pub fn priority_loss_columns(sim: &Simulation) -> Columns {
    let l = sim.priority_loss();
    let bins = l.bins();
    let mut tier = Vec::new();
    let (mut lo, mut hi) = (Vec::new(), Vec::new());
    for t in Tier::ALL {
        for b in 0..bins {
            tier.push(t.name());
            lo.push(if b == 0 { 0 } else { l.edges[b - 1] });
            hi.push(if b < l.edges.len() { l.edges[b] } else { u64::MAX });
        }
    }
    vec![
        ("tier", Column::labels(tier.into_iter())),
        ("priority_lo_bytes", Column::U64(lo)),
        ("priority_hi_bytes", Column::U64(hi)),
        ("offered_packets", Column::U64(l.offered.clone())),
        ("dropped_packets", Column::U64(l.dropped.clone())),
    ]
}

/// Bytes delivered per tracked flow per sampling interval.
pub fn throughput_columns(sim: &Simulation) -> Columns {
    let rows = sim.throughput_samples();
    vec![
        ("time_ps", Column::U64(rows.iter().map(|r| r.0).collect())),
        ("flow_id", Column::U32(rows.iter().map(|r| r.1).collect())),
        ("delivered_bytes", Column::U64(rows.iter().map(|r| r.2).collect())),
    ]
}

/// Data packets as they reached tracked flows' receivers: the AIFO paper's rank logs.
pub fn arrival_columns(sim: &Simulation) -> Columns {
    let rows = sim.arrivals();
    vec![
        ("time_ps", Column::U64(rows.iter().map(|r| r.0).collect())),
        ("flow_id", Column::U32(rows.iter().map(|r| r.1).collect())),
        ("seq", Column::U32(rows.iter().map(|r| r.2).collect())),
        ("rank", Column::U64(rows.iter().map(|r| r.3).collect())),
        ("retransmit", Column::Bool(rows.iter().map(|r| r.4).collect())),
    ]
}

/// Run totals as (name, value) pairs.
pub fn run_stats(sim: &Simulation) -> Vec<(&'static str, f64)> {
    let c = sim.counters();
    vec![
        ("events", c.events as f64),
        ("packet_hops", c.packet_hops as f64),
        ("sim_time_ps", sim.now() as f64),
        ("flows_started", c.flows_started as f64),
        ("flows_finished", c.flows_finished as f64),
        ("data_packets_sent", c.data_packets_sent as f64),
        ("data_packets_delivered", c.data_packets_delivered as f64),
        ("data_packets_dropped", c.data_packets_dropped as f64),
        ("data_packets_refused", c.data_packets_refused as f64),
        ("data_packets_trimmed", c.data_packets_trimmed as f64),
        ("headers_returned", c.headers_returned as f64),
        ("control_packets_sent", c.control_packets_sent as f64),
        ("control_packets_delivered", c.control_packets_delivered as f64),
        ("control_packets_dropped", c.control_packets_dropped as f64),
        ("offered_wire_bytes", c.offered_wire_bytes as f64),
        ("data_bytes_received", sim.data_bytes_received() as f64),
        ("peak_active_flows", c.peak_active_flows as f64),
        ("peak_live_packets", c.peak_live_packets as f64),
        ("hosts", sim.topology().hosts as f64),
        ("cut_short", if sim.cut_short() { 1.0 } else { 0.0 }),
        ("out_of_event_budget", if sim.out_of_budget() { 1.0 } else { 0.0 }),
        ("event_budget", sim.event_budget() as f64),
        ("target_load", sim.target_load),
        ("partitions", sim.partitions() as f64),
        ("windows", sim.windows() as f64),
        ("handovers", c.handovers as f64),
    ]
}
