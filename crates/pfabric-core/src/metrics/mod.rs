//! What a run measures: one record per flow, counters per port, totals per run. The records are handed out as
//! plain columns (see [`crate::results`]); summaries over them (normalized FCT per size bin, percentiles) are
//! computed by the Python front, which owns the definitions users read.

pub mod ideal_fct;
pub mod lone_flow;
pub mod parallelism;
pub mod peaks;

use crate::sim::time::Time;

/// `finish` of a flow that has not finished.
pub const UNFINISHED: Time = Time::MAX;

/// One flow's fate.
#[derive(Clone, Debug)]
pub struct FlowRecord {
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub start: Time,
    /// When the receiver held every byte; [`UNFINISHED`] if it never did.
    pub finish: Time,
    pub ideal_fct: Time,
    pub deadline: Option<Time>,
    pub retransmissions: u32,
    pub timeouts: u32,
    /// First transmissions that reached the receiver after a later packet of the flow.
    pub out_of_order: u32,
    /// The sender gave the flow up (PDQ's Early Termination of a deadline it cannot meet).
    pub terminated: bool,
}

impl FlowRecord {
    /// The row of flow `f` as it starts at `start`, its ideal FCT known: unfinished, its deadline (if any)
    /// never tighter than `deadline_min_factor` x the ideal (the paper's 1.25).
    pub fn starting(f: &crate::workload::FlowSpec, start: Time, ideal_fct: Time) -> Self {
        let floor = start + (ideal_fct as f64 * f.deadline_min_factor).ceil() as Time;
        FlowRecord {
            src: f.src,
            dst: f.dst,
            size_bytes: f.size_bytes,
            start,
            finish: UNFINISHED,
            ideal_fct,
            deadline: f.deadline.map(|d| d.max(floor)),
            retransmissions: 0,
            timeouts: 0,
            out_of_order: 0,
            terminated: false,
        }
    }
}

/// Counters of one port.
#[derive(Clone, Debug, Default)]
pub struct PortCounters {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drop_packets: u64,
    pub drop_bytes: u64,
    pub drop_data_packets: u64,
    pub max_queue_bytes: u64,
}

/// Totals of a run, and the conservation ledger of data packets.
#[derive(Clone, Debug, Default)]
pub struct RunCounters {
    pub events: u64,
    /// Packets (data, ACK, probe) that crossed one link.
    pub packet_hops: u64,
    pub data_packets_sent: u64,
    pub data_packets_delivered: u64,
    pub data_packets_dropped: u64,
    /// Data packets whose payload a switch cut (NDP's trimming port); counted in `dropped` too, and their
    /// headers, which go on, as control packets sent.
    pub data_packets_trimmed: u64,
    /// Trimmed headers that found their header queue full and went back to their senders (NDP's
    /// return-to-sender); the others reached their receivers (or were dropped).
    pub headers_returned: u64,
    /// Delivered data packets that their receiver refused: they came before the handshake's final ACK
    /// (`handshake`), as netbench's socket ignores data before it is established. Counted in `delivered` too.
    pub data_packets_refused: u64,
    pub control_packets_sent: u64,
    pub control_packets_delivered: u64,
    pub control_packets_dropped: u64,
    /// Wire bytes of every flow's data, once (what the load counts).
    pub offered_wire_bytes: u64,
    /// Payload bytes that reached their receivers new to them (goodput: copies and probes left out). The
    /// flow-level Ideal counts what its schedule served instead (`Simulation::data_bytes_received`).
    pub data_bytes_received: u64,
    pub flows_started: u64,
    pub flows_finished: u64,
    /// The most flows open and packets alive at any multiple of a microsecond (`peaks`).
    pub peak_active_flows: u64,
    pub peak_live_packets: u64,
    /// A partitioned run: packets handed over from one partition to another.
    pub handovers: u64,
}

impl RunCounters {
    /// A data packet carrying `payload` bytes reached its receiver; `new`: data the receiver did not hold.
    #[inline(always)]
    pub fn note_received(&mut self, new: bool, payload: u32) {
        self.data_bytes_received += if new { payload as u64 } else { 0 };
    }

    /// Add another part's counts to these (the peaks, which do not add, are left as they are).
    pub fn add(&mut self, o: &RunCounters) {
        self.events += o.events;
        self.packet_hops += o.packet_hops;
        self.data_packets_sent += o.data_packets_sent;
        self.data_packets_delivered += o.data_packets_delivered;
        self.data_packets_dropped += o.data_packets_dropped;
        self.data_packets_refused += o.data_packets_refused;
        self.data_packets_trimmed += o.data_packets_trimmed;
        self.headers_returned += o.headers_returned;
        self.control_packets_sent += o.control_packets_sent;
        self.control_packets_delivered += o.control_packets_delivered;
        self.control_packets_dropped += o.control_packets_dropped;
        self.offered_wire_bytes += o.offered_wire_bytes;
        self.data_bytes_received += o.data_bytes_received;
        self.flows_started += o.flows_started;
        self.flows_finished += o.flows_finished;
        self.handovers += o.handovers;
    }
}
