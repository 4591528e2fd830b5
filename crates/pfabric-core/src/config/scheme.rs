//! Schemes as parts: a host transport and a switch discipline, each with its parameters, their defaults and
//! the paper they come from; a bundle names a paper's pairing and its own values (`tcp`, `pfabric`, `aifo`).
//!
//! A scenario's `[scheme]` names a bundle (`name`), may swap either part (`host = ...`, `switch = ...`) and
//! may set any parameter of the parts it ends up with. A default comes from the bundle if it has one, else
//! from the part. A pair that cannot run (a DCTCP host over a port that never marks, PDQ's host without its
//! port) and a parameter that neither part uses are refused in one line.
//!
//! A new part is one entry in `HOSTS` or `SWITCHES` (its parameters and the function that reads them) beside
//! its behaviour (`transport/`, `queue/`); the scenario schema, `pfabric schemes` and the error messages come
//! from these tables.

use serde_json::{json, Value};

use super::{err, ConfigError, SchemeConfig, Section};
use crate::queue::{QueueConfig, RankKind, SchedulerConfig};
use crate::sim::time::{bps_from_gbps, ps_from_us, Time};
use crate::transport::homa::HomaConfig;
use crate::transport::ndp::NdpConfig;
use crate::transport::phost::PhostConfig;
use crate::transport::{PriorityScheme, Protocol, Recovery, TransportParams};

/// One parameter of a part: its name, its default in user units (null: unset, or derived where noted) and
/// what it is.
pub struct Param {
    pub name: &'static str,
    pub default: fn() -> Value,
    pub what: &'static str,
}

const fn param(name: &'static str, default: fn() -> Value, what: &'static str) -> Param {
    Param { name, default, what }
}

/// A host transport.
pub struct Host {
    pub name: &'static str,
    pub what: &'static str,
    pub paper: &'static str,
    /// Its parameters, in groups (several hosts share a group).
    pub params: &'static [&'static [Param]],
    /// Whether it needs ports that mark ECN (DCTCP).
    pub needs_ecn: bool,
    /// Reads the parameters into the transport (the stamp, `priority`, is read by `parse`).
    configure: fn(&Reader, &mut TransportParams) -> Result<(), ConfigError>,
}

/// A switch discipline (every switch port and host NIC runs it).
pub struct Switch {
    pub name: &'static str,
    pub what: &'static str,
    pub paper: &'static str,
    pub params: &'static [&'static [Param]],
    /// Whether ports read the stamp hosts put on packets (`priority`).
    pub reads_stamp: bool,
    /// The parameter that makes the ports mark ECN, if they can.
    pub marks_with: Option<&'static str>,
    /// Builds the port configuration (the transport is complete: some ports read its values).
    build: fn(&Reader, &TransportParams) -> Result<QueueConfig, ConfigError>,
    /// The port's buffer in full packets as configured, for a window "at most the buffer less one packet".
    buffer_pkts: fn(&Reader) -> Result<u64, ConfigError>,
}

/// A paper's pairing of a host and a switch, with its own values.
pub struct Bundle {
    pub name: &'static str,
    pub host: &'static str,
    pub switch: &'static str,
    pub paper: &'static str,
    /// Defaults that differ from the parts' (some for parameters the parts then read internally only).
    pub values: fn() -> Vec<(&'static str, Value)>,
}

// --- the hosts ---------------------------------------------------------------------------------------------

const STAMP: Param = param(
    "priority",
    || json!("remaining-size"),
    "the number each data packet carries for ports that read it: remaining-size, flow-size, bytes-sent, \
     deadline or remaining-unsent",
);
const WINDOW: [Param; 2] = [
    param("init_cwnd_pkts", || json!(12), "initial window, packets"),
    param("max_cwnd_pkts", || Value::Null, "largest window, packets (unset: the port's buffer less one packet)"),
];
const ADAPTIVE_RTO: [Param; 3] = [
    param("min_rto_us", || json!(200.0), "floor of the estimated timeout (SRTT + 4 RTTVAR), us"),
    param("init_rto_us", || json!(200.0), "timeout before the first RTT sample, us"),
    param("max_rto_us", || json!(1_000_000.0), "ceiling of the backed-off timeout, us"),
];
const TCP_RECOVERY: [Param; 3] = [
    param("dupack_threshold", || json!(3), "duplicate ACKs (or SACKed packets) that start fast recovery"),
    param(
        "handshake",
        || json!(false),
        "open with a three-way handshake: a SYN, its answer, then a final ACK ahead of the data; the receiver \
         takes data only once that ACK is in (netbench's sockets)",
    ),
    param(
        "recovery",
        || json!("sack"),
        "loss recovery: sack (RFC 6675) or newreno (the AIFO authors' netbench sockets)",
    ),
];

const SLOW_START: Param = param(
    "init_ssthresh_pkts",
    || Value::Null,
    "slow start's threshold before the first loss, packets (unset: none, the window doubles each round trip \
     until a loss; netbench's sockets: 30, so a window opened at 30 grows by one packet per round trip)",
);
const DCTCP_GAIN: Param = param("dctcp_g", || json!(1.0 / 16.0), "gain of the marked-fraction average, in (0, 1]");
const PFABRIC_HOST: [Param; 6] = [
    param("init_cwnd_pkts", || json!(12), "initial window, packets"),
    param("max_cwnd_pkts", || json!(24), "largest window, packets"),
    param("rto_us", || json!(45.0), "fixed timeout, us"),
    param("probe_after_timeouts", || json!(5), "consecutive timeouts before probe mode (0: never)"),
    STAMP,
    param("priority_cap_bytes", || Value::Null, "cap on priority numbers (unset: none)"),
];

pub const HOSTS: &[Host] = &[
    Host {
        name: "tcp",
        what: "TCP NewReno with SACK",
        paper: "pFabric, SIGCOMM 2013, section 5.1 (TCP-DropTail)",
        params: &[&WINDOW, &ADAPTIVE_RTO, &TCP_RECOVERY, &[SLOW_START, STAMP]],
        needs_ecn: false,
        configure: configure_tcp,
    },
    Host {
        name: "dctcp",
        what: "DCTCP: TCP whose window shrinks with the fraction of ECN-marked ACKs",
        paper: "Alizadeh et al., SIGCOMM 2010; pFabric, section 5.1",
        params: &[&WINDOW, &ADAPTIVE_RTO, &TCP_RECOVERY, &[SLOW_START, STAMP, DCTCP_GAIN]],
        needs_ecn: true,
        configure: configure_dctcp,
    },
    Host {
        name: "pfabric",
        what: "pFabric's minimal rate control: fixed timeout, no fast retransmit, probe mode",
        paper: "pFabric, section 4.2",
        params: &[&PFABRIC_HOST],
        needs_ecn: false,
        configure: configure_pfabric,
    },
    Host {
        name: "pfabric-linerate",
        what: "pFabric's transport at line rate: no window reduction",
        paper: "pFabric, section 5.2",
        params: &[&PFABRIC_HOST],
        needs_ecn: false,
        configure: configure_pfabric_linerate,
    },
    Host {
        name: "pdq",
        what: "PDQ's sender: explicit rates from the ports, paced, probing while paused",
        paper: "Hong et al., SIGCOMM 2012; pFabric, section 5.1",
        params: &[
            &[
                param("init_cwnd_pkts", || json!(12), "initial window, packets"),
                param("max_cwnd_pkts", || json!(149), "largest window, packets"),
            ],
            &ADAPTIVE_RTO,
            &[
                param("probe_interval_us", || json!(15.0), "how often a paused flow probes, us"),
                param("early_start_k", || json!(2.0), "Early Start: RTTs ahead a port grants the next flow"),
                param("rtt_us", || json!(14.6), "the RTT Early Start counts in, us"),
                param("early_termination", || json!(true), "deadline flows that cannot make it quit"),
                param(
                    "syn_bytes",
                    || Value::Null,
                    "wire bytes of the SYN that opens a flow (unset: headers alone, 40 bytes by default, its round \
                     trip 11.76 us across the paper's leaf-spine); 1500 makes it one full RTT (14.6 us)",
                ),
            ],
        ],
        needs_ecn: false,
        configure: configure_pdq,
    },
    Host {
        name: "phost",
        what: "pHost's receiver-driven host: an RTS and a free first window, then one packet per token the \
               receiver grants (SRPT), tokens expiring, unresponsive senders downgraded",
        paper: "Gao et al., CoNEXT 2015 (the authors' simulator's Capability host)",
        params: &[&[
            param("free_tokens", || json!(PhostConfig::DEFAULT.free_tokens), "tokens a flow holds from the start: packets it sends without a grant (one BDP)"),
            param("token_expiry_mtus", || json!(PhostConfig::DEFAULT.token_expiry_mtus), "how long a token may be spent, MTU wire times"),
            param("token_window", || json!(PhostConfig::DEFAULT.window), "how far a flow's tokens may run ahead of those its data echo before it is downgraded (a little over the token loop)"),
            param("downgrade_mtus", || json!(PhostConfig::DEFAULT.downgrade_mtus), "how long a downgraded flow waits for each token, MTU wire times"),
            param(
                "resend_mtus",
                || json!(PhostConfig::DEFAULT.resend_mtus),
                "after the last token, when the holes are granted again, MTU wire times",
            ),
            param(
                "short_data_pkts",
                || json!(PhostConfig::DEFAULT.short_data_pkts),
                "flows of at most this many packets send data a level above the others' (0: one data level)",
            ),
            param(
                "free_for_long_flows",
                || json!(PhostConfig::DEFAULT.free_for_long_flows),
                "true: every flow's first free_tokens packets go free (the paper); false: only flows that fit in \
                 them (the authors' simulator)",
            ),
        ]],
        needs_ecn: false,
        configure: configure_phost,
    },
    Host {
        name: "homa",
        what: "Homa's receiver-driven host: RTTbytes unscheduled at once, the rest as receivers grant it (SRPT, \
               several messages at once), at priorities from the workload's sizes; RESENDs for losses",
        paper: "Montazeri et al., SIGCOMM 2018 (sections 3.2-3.7; the authors' simulator's parameters)",
        params: &[&[
            param("rtt_pkts", || json!(HomaConfig::DEFAULT.rtt_pkts), "packets a message sends before any grant (RTTbytes; 0: those that leave while a packet crosses the longest path and a grant returns)"),
            LEVELS,
            param(
                "sched_levels",
                || json!(HomaConfig::DEFAULT.sched_levels),
                "priority levels for scheduled packets (0: the scheduled bytes' share of the levels)",
            ),
            param(
                "overcommit",
                || json!(HomaConfig::DEFAULT.overcommit),
                "messages a receiver grants at once (0: one per scheduled level)",
            ),
            param(
                "resend_us",
                || json!(HomaConfig::DEFAULT.resend_us),
                "silence after which a receiver asks for a missing packet (and a sender resends its first), us",
            ),
        ]],
        needs_ecn: false,
        configure: configure_homa,
    },
    Host {
        name: "ndp",
        what: "NDP's receiver-driven host: a first window at once, then one packet per pull; the receiver ACKs \
               each packet, NACKs each trimmed header, and paces pulls at its link rate, its senders in turn",
        paper: "Handley et al., SIGCOMM 2017 (section 3; the authors' htsim NdpSrc, NdpSink, NdpPullPacer)",
        params: &[&[
            param(
                "init_window_pkts",
                || json!(NdpConfig::DEFAULT.init_window_pkts),
                "packets a flow sends before any pull (0: those that leave while a packet crosses the longest path \
                 and its ACK returns)",
            ),
            param(
                "rto_us",
                || json!(NdpConfig::DEFAULT.rto_us),
                "silence after which a sender with unanswered packets sends them again (the backstop for lost \
                 headers), us",
            ),
        ]],
        needs_ecn: false,
        configure: configure_ndp,
    },
    Host {
        name: "constant-rate",
        what: "a UDP-like source sending each packet once at a fixed rate",
        paper: "AIFO, SIGCOMM 2021, section 6 (Figures 15-16)",
        params: &[&[
            param("sender_rate_gbps", || Value::Null, "its rate, Gbps (unset: the host link rate)"),
            param("sender_jitter", || json!(0.0), "each gap times (1 + u x jitter), u uniform in [-1, 1)"),
            STAMP,
        ]],
        needs_ecn: false,
        configure: configure_constant_rate,
    },
];

// --- the switches -------------------------------------------------------------------------------------------

const BUFFER: Param = param("queue_bytes", || json!(225_000), "buffer per port, bytes");
const MARK: Param = param(
    "ecn_threshold_bytes",
    || Value::Null,
    "mark ECN on packets that find the port this full, bytes (unset: never)",
);
const LEVELS: Param = param("levels", || json!(HomaConfig::DEFAULT.levels), "strict priority levels at every port");
const RANK: Param = param(
    "rank",
    || json!("srpt"),
    "the rank a port gives a packet: srpt (the host's stamp), stfq (start-time fair queueing) or fifo",
);

const PIFO_CAPACITY: Param = param("capacity_pkts", || json!(80), "capacity, packets");
/// SP-PIFO's and AFQ's FIFOs (8 x 10 packets in the AIFO paper).
const FIFOS: [Param; 2] =
    [param("queues", || json!(8), "FIFO queues"), param("queue_pkts", || json!(10), "capacity of each, packets")];

pub const SWITCHES: &[Switch] = &[
    Switch {
        name: "droptail",
        what: "one FIFO per port, tail drop; marks ECN above a threshold when given one",
        paper: "pFabric, section 5.1 (TCP-DropTail, DCTCP)",
        params: &[&[BUFFER, MARK]],
        reads_stamp: false,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_droptail,
        buffer_pkts: queue_bytes_pkts,
    },
    Switch {
        name: "pfabric",
        what: "pFabric's port: send the smallest priority number first, drop the largest",
        paper: "pFabric, section 4.1",
        params: &[&[param("queue_bytes", || json!(36_000), "buffer per port, bytes")]],
        reads_stamp: true,
        marks_with: None,
        build: build_pfabric,
        buffer_pkts: queue_bytes_pkts,
    },
    Switch {
        name: "prio-queues",
        what: "a few strict-priority FIFOs chosen by thresholds on the stamp, sharing the buffer",
        paper: "pFabric, section 6; PIAS, NSDI 2015",
        params: &[&[
            BUFFER,
            param(
                "thresholds_bytes",
                || Value::Null,
                "increasing thresholds between the queues (the front end chooses them for a Poisson workload)",
            ),
            param("reserved_bytes", || json!(15_000), "buffer reserved for each queue, bytes"),
            MARK,
        ]],
        reads_stamp: true,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_prio_queues,
        buffer_pkts: queue_bytes_pkts,
    },
    Switch {
        name: "strict-priority",
        what: "one FIFO per priority level, served in strict priority, sharing the buffer",
        paper: "Homa, SIGCOMM 2018 (8 levels in commodity switches)",
        params: &[&[BUFFER, LEVELS]],
        // Its hosts set each packet's level themselves: the stamp (`priority`) is not a parameter.
        reads_stamp: false,
        marks_with: None,
        build: build_strict_priority,
        buffer_pkts: queue_bytes_pkts,
    },
    Switch {
        name: "trimming",
        what: "NDP's port: a short data queue that cuts the payload of what does not fit, and a header queue \
               served first, header_ratio headers to each data packet",
        paper: "NDP, SIGCOMM 2017, section 3.1 (htsim CompositeQueue)",
        params: &[&[
            param("data_pkts", || json!(8), "data queue, packets"),
            param(
                "header_queue_bytes",
                || json!(72_000),
                "header queue, bytes (the authors' port: 8 of their 9,000-byte packets)",
            ),
            param("header_ratio", || json!(10), "headers served per data packet while both wait (0: strict priority)"),
        ]],
        reads_stamp: false,
        marks_with: None,
        build: build_trimming,
        buffer_pkts: data_pkts,
    },
    Switch {
        name: "pdq",
        what: "PDQ's port: a FIFO beside the rate arbitration of the flows crossing it",
        paper: "Hong et al., SIGCOMM 2012",
        params: &[&[BUFFER]],
        reads_stamp: false,
        marks_with: None,
        build: build_pdq,
        buffer_pkts: queue_bytes_pkts,
    },
    Switch {
        name: "pifo",
        what: "an exact push-in first-out queue by rank",
        paper: "Sivaraman et al., SIGCOMM 2016; AIFO, section 5.1",
        params: &[&[
            PIFO_CAPACITY,
            RANK,
            MARK,
            param(
                "ties",
                || json!("arrival"),
                "order among equal ranks: arrival (an exact PIFO) or heap (the AIFO authors' Java heap, which \
                 keeps capacity - 1 packets)",
            ),
        ]],
        reads_stamp: true,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_ranked,
        buffer_pkts: capacity_pkts,
    },
    Switch {
        name: "sp-pifo",
        what: "SP-PIFO: strict-priority FIFOs whose rank bounds adapt",
        paper: "Alcoz et al., NSDI 2020; AIFO, section 5.1",
        params: &[&FIFOS, &[RANK, MARK]],
        reads_stamp: true,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_ranked,
        buffer_pkts: queues_pkts,
    },
    Switch {
        name: "aifo",
        what: "AIFO: one FIFO with rank-aware admission from a window of sampled ranks",
        paper: "Yu et al., SIGCOMM 2021, section 3",
        params: &[&[
            param("capacity_pkts", || json!(20), "capacity, packets"),
            param("window", || json!(20), "sampled ranks kept"),
            param("sample_every", || json!(15), "one sample per this many arrivals"),
            param("headroom_k", || json!(0.1), "headroom k, in [0, 1)"),
            RANK,
            MARK,
        ]],
        reads_stamp: true,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_ranked,
        buffer_pkts: capacity_pkts,
    },
    Switch {
        name: "pieo",
        what: "PIEO: push-in extract-out with eligibility (WF2Q+ under STFQ ranks)",
        paper: "Shrivastav, SIGCOMM 2019; AIFO, section 5.4",
        params: &[&[PIFO_CAPACITY, RANK, MARK]],
        reads_stamp: true,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_ranked,
        buffer_pkts: capacity_pkts,
    },
    Switch {
        name: "afq",
        what: "approximate fair queueing: FIFOs served in rounds by each flow's byte count",
        paper: "Sharma et al., NSDI 2018; AIFO, section 5.4",
        params: &[&FIFOS, &[param("bytes_per_round", || json!(1500), "bytes a flow sends per round"), MARK]],
        reads_stamp: false,
        marks_with: Some("ecn_threshold_bytes"),
        build: build_afq,
        buffer_pkts: queues_pkts,
    },
];

// --- the bundles --------------------------------------------------------------------------------------------

/// The AIFO authors' SRPT hosts (netbench's NewReno "pfabric" socket): a window opening at its slow-start
/// threshold of 30 segments, capped at 64 KB (44 packets), a timeout of SRTT + 4 RTTVAR with no floor,
/// 96.4 us before the first sample, and packets stamped with the bytes from their own on.
fn aifo_hosts() -> Vec<(&'static str, Value)> {
    vec![
        ("init_cwnd_pkts", json!(30)),
        ("max_cwnd_pkts", json!(44)),
        ("min_rto_us", json!(0.0)),
        ("init_rto_us", json!(96.4)),
        ("priority", json!("remaining-unsent")),
    ]
}

pub const BUNDLES: &[Bundle] = &[
    Bundle {
        name: "tcp",
        host: "tcp",
        switch: "droptail",
        paper: "pFabric, section 5.1: TCP-DropTail",
        values: Vec::new,
    },
    Bundle {
        name: "dctcp",
        host: "dctcp",
        switch: "droptail",
        paper: "pFabric, section 5.1: DCTCP, marking at 22.5 KB",
        values: || vec![("ecn_threshold_bytes", json!(22_500))],
    },
    Bundle {
        name: "pfabric",
        host: "pfabric",
        switch: "pfabric",
        paper: "pFabric, sections 4 and 5.1",
        values: Vec::new,
    },
    Bundle {
        name: "pfabric-linerate",
        host: "pfabric-linerate",
        switch: "pfabric",
        paper: "pFabric, section 5.2",
        values: Vec::new,
    },
    Bundle { name: "pdq", host: "pdq", switch: "pdq", paper: "pFabric, section 5.1: PDQ", values: Vec::new },
    Bundle {
        name: "phost",
        host: "phost",
        switch: "pfabric",
        paper: "pHost, CoNEXT 2015: priority-dropping ports (the authors' PFabricQueue), control before data",
        values: Vec::new,
    },
    Bundle {
        name: "homa",
        host: "homa",
        switch: "strict-priority",
        paper: "Homa, SIGCOMM 2018: 8 strict priority levels; buffers large enough not to drop, as the authors' \
                simulator assumes (it has no loss recovery)",
        values: || vec![("queue_bytes", json!(1_000_000))],
    },
    Bundle {
        name: "ndp",
        host: "ndp",
        switch: "trimming",
        paper: "NDP, SIGCOMM 2017: trimming switches, receiver pulls, per-packet spraying",
        values: Vec::new,
    },
    Bundle {
        name: "ideal",
        host: "",
        switch: "",
        paper: "pFabric, section 5.1: Ideal (flow level, central SRPT)",
        values: Vec::new,
    },
    Bundle {
        name: "prio-queues",
        host: "tcp",
        switch: "prio-queues",
        paper: "pFabric, section 6: a few priority queues by flow size, TCP hosts",
        values: || vec![("priority", json!("flow-size"))],
    },
    Bundle {
        name: "pias",
        host: "dctcp",
        switch: "prio-queues",
        paper: "Bai et al., NSDI 2015 (PIAS); values from the authors' ns-2 scripts (HKUST-SING/PIAS-NS2 \
                @1496a612, scripts/run_pias_dctcp.py)",
        values: || {
            vec![
                ("queue_bytes", json!(360_000)),
                ("ecn_threshold_bytes", json!(97_500)),
                ("reserved_bytes", json!(0)),
                ("init_cwnd_pkts", json!(70)),
                ("min_rto_us", json!(2000.0)),
                ("init_rto_us", json!(2000.0)),
                ("priority", json!("bytes-sent")),
            ]
        },
    },
    Bundle { name: "pifo", host: "tcp", switch: "pifo", paper: "AIFO, section 5.1", values: aifo_hosts },
    Bundle { name: "sp-pifo", host: "tcp", switch: "sp-pifo", paper: "AIFO, section 5.1", values: aifo_hosts },
    Bundle { name: "aifo", host: "tcp", switch: "aifo", paper: "AIFO, section 5.1", values: aifo_hosts },
    Bundle { name: "pieo", host: "tcp", switch: "pieo", paper: "AIFO, section 5.4", values: aifo_hosts },
    Bundle { name: "afq", host: "tcp", switch: "afq", paper: "AIFO, section 5.4", values: aifo_hosts },
];

pub fn bundle(name: &str) -> Option<&'static Bundle> {
    BUNDLES.iter().find(|b| b.name == name)
}

fn host(name: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|h| h.name == name)
}

fn switch(name: &str) -> Option<&'static Switch> {
    SWITCHES.iter().find(|s| s.name == name)
}

fn names<T>(items: &[T], name: impl Fn(&T) -> &'static str) -> String {
    items.iter().map(name).collect::<Vec<_>>().join(", ")
}

// --- resolving a scheme -------------------------------------------------------------------------------------

/// The parts a scheme runs and every parameter it accepts with its default, in user units.
pub struct Resolved {
    pub bundle: &'static Bundle,
    pub host: &'static Host,
    pub switch: &'static Switch,
    /// Accepted parameters (host's, then switch's; `priority` only where the switch reads it) and defaults.
    pub params: Vec<(&'static str, Value)>,
    /// Defaults of parameters the parts read internally without accepting them (the bundle's for its own
    /// host, kept when the host is swapped for one that does not take them).
    internal: Vec<(&'static str, Value)>,
}

/// The parts of bundle `name` with `host` and `switch` swapped in where given, and their parameters; a pair
/// that cannot run is an error naming both parts.
pub fn resolve(name: &str, host_name: Option<&str>, switch_name: Option<&str>) -> Result<Resolved, ConfigError> {
    let Some(b) = bundle(name) else {
        return err("scheme.name", format!("{name:?}"), format!("one of: {}", names(BUNDLES, |b| b.name)));
    };
    if b.name == "ideal" {
        for (key, given) in [("host", host_name), ("switch", switch_name)] {
            if let Some(given) = given {
                return err(&format!("scheme.{key}"), format!("{given:?}"), "nothing: Ideal is flow-level");
            }
        }
        let tcp = bundle("tcp").expect("tcp is a bundle");
        let (h, s) = (host("tcp").expect("tcp host"), switch("droptail").expect("droptail switch"));
        return Ok(Resolved { bundle: b, host: h, switch: s, params: Vec::new(), internal: internal(tcp, h, s) });
    }
    let h_name = host_name.unwrap_or(b.host);
    let Some(h) = host(h_name) else {
        return err("scheme.host", format!("{h_name:?}"), format!("one of: {}", names(HOSTS, |h| h.name)));
    };
    let s_name = switch_name.unwrap_or(b.switch);
    let Some(s) = switch(s_name) else {
        return err("scheme.switch", format!("{s_name:?}"), format!("one of: {}", names(SWITCHES, |s| s.name)));
    };
    if (h.name == "pdq") != (s.name == "pdq") {
        let key = if host_name.is_some() { "host" } else { "switch" };
        let value = format!("host {:?} with switch {:?}", h.name, s.name);
        return err(
            &format!("scheme.{key}"),
            value,
            "PDQ's host and switch together (host \"pdq\" with switch \"pdq\")",
        );
    }
    if s.name == "trimming" && h.name != "ndp" {
        let key = if host_name.is_some() { "host" } else { "switch" };
        let value = format!("host {:?} with switch {:?}", h.name, s.name);
        return err(&format!("scheme.{key}"), value, "NDP's hosts with a trimming switch: they answer trimmed headers");
    }
    if h.needs_ecn && s.marks_with.is_none() {
        let key = if host_name.is_some() { "host" } else { "switch" };
        let value = format!("host {:?} with switch {:?}", h.name, s.name);
        return err(&format!("scheme.{key}"), value, format!("a switch that marks ECN for {} hosts", h.name));
    }
    let values = (b.values)();
    let mut params: Vec<(&'static str, Value)> = Vec::new();
    for p in all_params(h.params).chain(all_params(s.params)) {
        if p.name == "priority" && !s.reads_stamp {
            continue; // a stamp no port reads: not a parameter of this pair
        }
        if params.iter().any(|(k, _)| *k == p.name) {
            continue;
        }
        let default = values.iter().find(|(k, _)| *k == p.name).map_or_else(|| (p.default)(), |(_, v)| v.clone());
        params.push((p.name, default));
    }
    Ok(Resolved { bundle: b, host: h, switch: s, params, internal: internal(b, h, s) })
}

/// A part's parameters, group after group.
pub fn all_params(groups: &'static [&'static [Param]]) -> impl Iterator<Item = &'static Param> {
    groups.iter().flat_map(|g| g.iter())
}

/// Every default a part may read: the bundle's values, then the parts' own (including the parameters of
/// the bundle's own host the chosen pair does not accept).
fn internal(b: &Bundle, h: &Host, s: &Switch) -> Vec<(&'static str, Value)> {
    let mut out = (b.values)();
    let own = host(b.host).map(|own| own.params).unwrap_or(&[]);
    for p in all_params(h.params).chain(all_params(s.params)).chain(all_params(own)) {
        if !out.iter().any(|(k, _)| *k == p.name) {
            out.push((p.name, (p.default)()));
        }
    }
    out
}

/// The scheme's accepted parameters with their defaults (the bundle's pair), in user units; `host` and
/// `switch` first. None for an unknown bundle.
pub fn defaults(name: &str) -> Option<Vec<(&'static str, Value)>> {
    parameters(name, None, None).ok()
}

/// The accepted parameters of bundle `name` with `host` and/or `switch` swapped in, `host` and `switch` first.
pub fn parameters(
    name: &str,
    host_name: Option<&str>,
    switch_name: Option<&str>,
) -> Result<Vec<(&'static str, Value)>, ConfigError> {
    let r = resolve(name, host_name, switch_name)?;
    if r.bundle.name == "ideal" {
        return Ok(Vec::new());
    }
    let mut out = vec![("host", json!(r.host.name)), ("switch", json!(r.switch.name))];
    out.extend(r.params);
    Ok(out)
}

/// Reads a scheme section against the resolved parts: the user's value, else the default.
struct Reader<'a> {
    s: &'a Section<'a>,
    defaults: &'a [(&'static str, Value)],
    switch: &'static str,
    /// The run's packets: a buffer in bytes holds whole packets of it, a SYN is at least its headers.
    format: crate::net::packet::PacketFormat,
}

impl Reader<'_> {
    fn default(&self, key: &str) -> Option<&Value> {
        self.defaults.iter().find(|(k, _)| *k == key).map(|(_, v)| v).filter(|v| !v.is_null())
    }

    fn f64_default(&self, key: &str) -> f64 {
        self.default(key).and_then(Value::as_f64).unwrap_or(0.0)
    }

    fn int(&self, key: &str, lo: u64, hi: u64) -> Result<u64, ConfigError> {
        self.s.int_in(key, self.f64_default(key) as u64, lo, hi)
    }

    fn positive(&self, key: &str) -> Result<f64, ConfigError> {
        self.s.positive(key, self.f64_default(key))
    }

    fn non_negative(&self, key: &str) -> Result<f64, ConfigError> {
        self.s.non_negative(key, self.f64_default(key))
    }

    fn is_set(&self, key: &str) -> bool {
        self.s.get(key).is_some() || self.default(key).is_some()
    }

    fn string(&self, key: &str) -> Result<&str, ConfigError> {
        match self.s.get(key) {
            Some(v) => v.as_str().map_or_else(|| err(&self.s.field(key), v, "a string"), Ok),
            None => Ok(self.default(key).and_then(Value::as_str).unwrap_or("")),
        }
    }

    fn flag(&self, key: &str) -> Result<bool, ConfigError> {
        match self.s.get(key) {
            Some(v) => v.as_bool().map_or_else(|| err(&self.s.field(key), v, "true or false"), Ok),
            None => Ok(self.default(key).and_then(Value::as_bool).unwrap_or(false)),
        }
    }

    fn us(&self, key: &str) -> Result<Time, ConfigError> {
        Ok(ps_from_us(self.positive(key)?))
    }
}

/// Parses `[scheme]`: the bundle, its parts, their parameters.
pub(super) fn parse(s: &Section, format: crate::net::packet::PacketFormat) -> Result<SchemeConfig, ConfigError> {
    let name = s.str_or("name", "tcp")?;
    let str_of = |key: &str| -> Result<Option<&str>, ConfigError> {
        match s.get(key) {
            None => Ok(None),
            Some(v) => v.as_str().map(Some).map_or_else(|| err(&s.field(key), v, "a string"), Ok),
        }
    };
    let r = resolve(name, str_of("host")?, str_of("switch")?)?;
    if r.bundle.name == "ideal" {
        s.only(&["name"])?;
    } else {
        let keys: Vec<&str> = ["name", "host", "switch"].into_iter().chain(r.params.iter().map(|(k, _)| *k)).collect();
        if let Some(bad) = s.map.keys().find(|k| !keys.contains(&k.as_str())) {
            let parts = format!("host {:?} and switch {:?}", r.host.name, r.switch.name);
            let why = if bad == "priority" {
                format!("a port that reads the hosts' stamp; switch {:?} never does", r.switch.name)
            } else {
                format!("a parameter of {parts}: {}", keys[1..].join(", "))
            };
            return err(&s.field(bad), "this field", why);
        }
    }
    let defaults = merged(&r.params, &r.internal);
    let reader = Reader { s, defaults: &defaults, switch: r.switch.name, format };
    let mut t = blank_transport();
    t.format = format;
    (r.host.configure)(&reader, &mut t)?;
    t.priority = match reader.string("priority")? {
        "" => PriorityScheme::RemainingSize, // a host that stamps nothing (PDQ's)
        name => stamp(name)?,
    };
    if t.max_cwnd_pkts == 0 {
        // "At most the buffer less one packet", as the pFabric authors' ns-2 scripts set TCP's window
        // (`maxcwnd_ = queueSize - 1`): larger, a lone flow overruns its own NIC's buffer and times out.
        t.max_cwnd_pkts = (r.switch.buffer_pkts)(&reader)?.saturating_sub(1).max(1) as u32;
    }
    t.max_cwnd_pkts = t.max_cwnd_pkts.max(t.init_cwnd_pkts);
    if let (true, Some(key)) = (r.host.needs_ecn, r.switch.marks_with) {
        if !reader.is_set(key) {
            let value = format!("host {:?} with switch {:?} and no scheme.{key}", r.host.name, r.switch.name);
            return err("scheme.host", value, format!("ports that mark ECN: set scheme.{key}"));
        }
    }
    let queue = (r.switch.build)(&reader, &t)?;
    Ok(SchemeConfig { name: name.to_string(), flow_level: r.bundle.name == "ideal", queue, transport: t })
}

/// The accepted parameters' defaults over the internal ones (both already the bundle's where it has values).
fn merged(params: &[(&'static str, Value)], internal: &[(&'static str, Value)]) -> Vec<(&'static str, Value)> {
    let mut out = params.to_vec();
    out.extend(internal.iter().filter(|(k, _)| !params.iter().any(|(p, _)| p == k)).cloned());
    out
}

fn stamp(name: &str) -> Result<PriorityScheme, ConfigError> {
    Ok(match name {
        "remaining-size" => PriorityScheme::RemainingSize,
        "flow-size" => PriorityScheme::FlowSize,
        "bytes-sent" => PriorityScheme::BytesSent,
        "deadline" => PriorityScheme::Deadline,
        "remaining-unsent" => PriorityScheme::RemainingUnsent,
        other => {
            return err(
                "scheme.priority",
                format!("{other:?}"),
                "one of: remaining-size, flow-size, bytes-sent, deadline, remaining-unsent",
            )
        }
    })
}

// --- the parts' readers -------------------------------------------------------------------------------------

/// A transport with nothing chosen yet: the host's `configure` and `parse` fill what it uses; the rest keeps
/// neutral values (the topology's rates and the seed come later, in `ScenarioConfig::from_value`).
fn blank_transport() -> TransportParams {
    TransportParams {
        protocol: Protocol::Tcp,
        init_cwnd_pkts: 1,
        max_cwnd_pkts: 0,
        init_ssthresh_pkts: 0,
        min_rto: 0,
        init_rto: 0,
        max_rto: 0,
        fixed_rto: 0,
        dupack_threshold: 3,
        dctcp_g: 1.0 / 16.0,
        probe_after_timeouts: 0,
        priority: PriorityScheme::RemainingSize,
        priority_cap: None,
        host_rate_bps: 0,
        pdq_probe_interval: 0,
        pdq_early_termination: false,
        pdq_syn_wire_bytes: crate::net::packet::PacketFormat::DEFAULT.control_wire_bytes(),
        format: crate::net::packet::PacketFormat::DEFAULT,
        phost: crate::transport::phost::PhostConfig::DEFAULT,
        homa: HomaConfig::DEFAULT,
        ndp: NdpConfig::DEFAULT,
        constant_rate_bps: 0,
        sender_jitter: 0.0,
        jitter_seed: 0,
        handshake: false,
        recovery: Recovery::Sack,
    }
}

fn window(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    t.init_cwnd_pkts = r.int("init_cwnd_pkts", 1, 1 << 20)? as u32;
    // 0: derived from the port's buffer once the switch is known (`parse`).
    t.max_cwnd_pkts = if r.is_set("max_cwnd_pkts") { r.int("max_cwnd_pkts", 1, 1 << 24)? as u32 } else { 0 };
    Ok(())
}

fn adaptive_rto(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    t.min_rto = ps_from_us(r.non_negative("min_rto_us")?);
    t.init_rto = r.us("init_rto_us")?;
    t.max_rto = r.us("max_rto_us")?;
    Ok(())
}

fn configure_tcp(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    window(r, t)?;
    adaptive_rto(r, t)?;
    t.dupack_threshold = r.int("dupack_threshold", 1, 1000)? as u32;
    // 0: no threshold (slow start until the first loss).
    t.init_ssthresh_pkts =
        if r.is_set("init_ssthresh_pkts") { r.int("init_ssthresh_pkts", 1, 1 << 24)? as u32 } else { 0 };
    t.handshake = r.flag("handshake")?;
    t.recovery = match r.string("recovery")? {
        "sack" => Recovery::Sack,
        "newreno" => Recovery::NewReno,
        other => {
            return err("scheme.recovery", format!("{other:?}"), "sack (RFC 6675) or newreno (netbench's NewReno)")
        }
    };
    t.protocol = Protocol::Tcp;
    Ok(())
}

fn configure_dctcp(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    configure_tcp(r, t)?;
    t.protocol = Protocol::Dctcp;
    let g = r.positive("dctcp_g")?;
    if g > 1.0 {
        return err("scheme.dctcp_g", g, "a gain in (0, 1]");
    }
    t.dctcp_g = g;
    Ok(())
}

fn configure_pfabric(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    pfabric_transport(r, t, Protocol::Pfabric)
}

fn configure_pfabric_linerate(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    pfabric_transport(r, t, Protocol::PfabricLinerate)
}

fn pfabric_transport(r: &Reader, t: &mut TransportParams, protocol: Protocol) -> Result<(), ConfigError> {
    window(r, t)?;
    t.protocol = protocol;
    t.fixed_rto = r.us("rto_us")?;
    t.probe_after_timeouts = r.int("probe_after_timeouts", 0, 1000)? as u32;
    t.priority_cap = match r.s.get("priority_cap_bytes") {
        None => None,
        Some(_) => Some(r.s.int_in("priority_cap_bytes", 0, 1, u64::MAX >> 2)?),
    };
    // The timeout of the TCP-like hosts, kept for a bundle whose own host is one (unused by pFabric's).
    if r.default("min_rto_us").is_some() {
        adaptive_rto(r, t)?;
    }
    Ok(())
}

fn configure_pdq(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    window(r, t)?;
    adaptive_rto(r, t)?;
    t.protocol = Protocol::Pdq;
    t.pdq_probe_interval = r.us("probe_interval_us")?;
    t.pdq_early_termination = r.flag("early_termination")?;
    // Unset: headers alone; never smaller than the headers.
    let headers = r.format.control_wire_bytes();
    let syn = if r.is_set("syn_bytes") { r.int("syn_bytes", 1, 1500)? as u32 } else { headers };
    if syn < headers {
        return err("scheme.syn_bytes", syn, format!("at least the packet's header_bytes ({headers}), at most 1500"));
    }
    t.pdq_syn_wire_bytes = syn;
    Ok(())
}

fn configure_phost(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    t.protocol = Protocol::Phost;
    t.phost = PhostConfig {
        free_tokens: r.int("free_tokens", 0, 1 << 20)? as u32,
        token_expiry_mtus: r.positive("token_expiry_mtus")?,
        window: r.int("token_window", 1, 1 << 20)? as u32,
        downgrade_mtus: r.non_negative("downgrade_mtus")?,
        resend_mtus: r.positive("resend_mtus")?,
        short_data_pkts: r.int("short_data_pkts", 0, 1 << 30)? as u32,
        free_for_long_flows: r.flag("free_for_long_flows")?,
    };
    Ok(())
}

fn configure_homa(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    t.protocol = Protocol::Homa;
    let levels = r.int("levels", 2, 64)? as u32;
    let sched_levels = r.int("sched_levels", 0, 63)? as u32;
    if sched_levels >= levels {
        return err("scheme.sched_levels", sched_levels, format!("0 (derived) or at most levels - 1 = {}", levels - 1));
    }
    t.homa = HomaConfig {
        rtt_pkts: r.int("rtt_pkts", 0, 1 << 20)? as u32,
        levels,
        sched_levels,
        overcommit: r.int("overcommit", 0, 1 << 20)? as u32,
        resend_us: r.positive("resend_us")?,
    };
    Ok(())
}

fn configure_ndp(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    t.protocol = Protocol::Ndp;
    t.ndp =
        NdpConfig { init_window_pkts: r.int("init_window_pkts", 0, 1 << 20)? as u32, rto_us: r.positive("rto_us")? };
    Ok(())
}

fn configure_constant_rate(r: &Reader, t: &mut TransportParams) -> Result<(), ConfigError> {
    t.protocol = Protocol::ConstantRate;
    let jitter = r.non_negative("sender_jitter")?;
    if jitter >= 1.0 {
        return err("scheme.sender_jitter", format!("{jitter:?}"), "a fraction in [0, 1)");
    }
    t.sender_jitter = jitter;
    if r.s.get("sender_rate_gbps").is_some() {
        let gbps = r.s.positive("sender_rate_gbps", 1.0)?;
        if gbps > 1e6 {
            return err("scheme.sender_rate_gbps", format!("{gbps:?}"), "a rate in (0, 1e6] Gbps");
        }
        t.constant_rate_bps = bps_from_gbps(gbps).max(1);
    }
    // The window and timeout of the bundle's own host: unused by a paced source, kept as they were.
    t.init_cwnd_pkts = r.f64_default("init_cwnd_pkts").max(1.0) as u32;
    t.max_cwnd_pkts = r.f64_default("max_cwnd_pkts") as u32;
    if r.default("min_rto_us").is_some() {
        adaptive_rto(r, t)?;
    }
    Ok(())
}

fn queue_bytes(r: &Reader) -> Result<u64, ConfigError> {
    r.int("queue_bytes", 1500, 1 << 40)
}

fn queue_bytes_pkts(r: &Reader) -> Result<u64, ConfigError> {
    Ok(queue_bytes(r)? / r.format.full_wire_bytes() as u64)
}

fn capacity_pkts(r: &Reader) -> Result<u64, ConfigError> {
    r.int("capacity_pkts", 1, 1 << 24)
}

fn queues_pkts(r: &Reader) -> Result<u64, ConfigError> {
    Ok(r.int("queues", 1, 1 << 24)? * r.int("queue_pkts", 1, 1 << 24)?)
}

fn mark(r: &Reader) -> Result<Option<u64>, ConfigError> {
    if r.is_set("ecn_threshold_bytes") {
        Ok(Some(r.int("ecn_threshold_bytes", 1, 1 << 40)?))
    } else {
        Ok(None)
    }
}

fn build_droptail(r: &Reader, _: &TransportParams) -> Result<QueueConfig, ConfigError> {
    Ok(QueueConfig::DropTail { limit_bytes: queue_bytes(r)?, mark_above_bytes: mark(r)? })
}

fn build_pfabric(r: &Reader, _: &TransportParams) -> Result<QueueConfig, ConfigError> {
    Ok(QueueConfig::Pfabric { limit_bytes: queue_bytes(r)? })
}

fn build_pdq(r: &Reader, t: &TransportParams) -> Result<QueueConfig, ConfigError> {
    let k = r.non_negative("early_start_k")?;
    let rtt = r.positive("rtt_us")?;
    Ok(QueueConfig::DropTailPdq {
        limit_bytes: queue_bytes(r)?,
        early_start: ps_from_us(k * rtt),
        expiry: 4 * t.pdq_probe_interval,
    })
}

fn build_trimming(r: &Reader, _: &TransportParams) -> Result<QueueConfig, ConfigError> {
    Ok(QueueConfig::Trimming {
        data_pkts: data_pkts(r)? as usize,
        header_limit_bytes: r.int("header_queue_bytes", 1, 1 << 40)?,
        header_ratio: r.int("header_ratio", 0, 1 << 20)? as u32,
    })
}

fn data_pkts(r: &Reader) -> Result<u64, ConfigError> {
    r.int("data_pkts", 1, 1 << 24)
}

fn build_strict_priority(r: &Reader, _: &TransportParams) -> Result<QueueConfig, ConfigError> {
    let levels = r.int("levels", 2, 64)?;
    // Priority number i goes to queue i; the last queue takes every larger number.
    Ok(QueueConfig::PrioThresholds {
        thresholds: (0..levels - 1).collect(),
        limit_bytes: queue_bytes(r)?,
        reserved_bytes: 0,
        mark_above_bytes: None,
    })
}

fn build_prio_queues(r: &Reader, t: &TransportParams) -> Result<QueueConfig, ConfigError> {
    let limit_bytes = queue_bytes(r)?;
    let Some(list) = r.s.get("thresholds_bytes") else {
        return err("scheme.thresholds_bytes", "nothing", "a list of increasing flow sizes in bytes");
    };
    let thresholds = r.s.f64_list("thresholds_bytes")?;
    if thresholds.is_empty() || thresholds.len() > 63 {
        return err("scheme.thresholds_bytes", list, "1 to 63 thresholds (2 to 64 queues)");
    }
    for (i, w) in thresholds.windows(2).enumerate() {
        if w[1] <= w[0] {
            return err(&format!("scheme.thresholds_bytes[{}]", i + 1), w[1], "increasing thresholds");
        }
    }
    if thresholds[0] <= 0.0 {
        return err("scheme.thresholds_bytes[0]", thresholds[0], "thresholds > 0");
    }
    let reserved_bytes = r.int("reserved_bytes", 0, 1 << 40)?;
    let queues = thresholds.len() as u64 + 1;
    if reserved_bytes * queues > limit_bytes {
        let allowed = format!("at most queue_bytes / queues = {}", limit_bytes / queues);
        return err("scheme.reserved_bytes", reserved_bytes, allowed);
    }
    // A packet joins the first queue whose threshold its stamp is at most. A flow-size stamp sends a flow of
    // size <= t_1 up; a bytes-sent stamp (PIAS) counts the bytes sent before the packet, and the thresholds
    // then count the bytes a flow sends in the queues above (its first t_1 bytes go up): one less at the port.
    let shift = u64::from(t.priority == PriorityScheme::BytesSent);
    Ok(QueueConfig::PrioThresholds {
        thresholds: thresholds.iter().map(|&x| x as u64 - shift).collect(),
        limit_bytes,
        reserved_bytes,
        mark_above_bytes: mark(r)?,
    })
}

fn build_ranked(r: &Reader, _: &TransportParams) -> Result<QueueConfig, ConfigError> {
    let pkts = |key: &str| r.int(key, 1, 1 << 24).map(|x| x as usize);
    let rank = match r.string("rank")? {
        "srpt" => RankKind::Srpt,
        "stfq" => RankKind::Stfq,
        "fifo" => RankKind::Fifo,
        other => return err("scheme.rank", format!("{other:?}"), "one of: srpt, stfq, fifo"),
    };
    let scheduler = ranked_scheduler(r, r.switch, &pkts)?;
    Ok(QueueConfig::Ranked { scheduler, rank, mark_at_bytes: mark(r)? })
}

fn ranked_scheduler(
    r: &Reader,
    name: &str,
    pkts: &dyn Fn(&str) -> Result<usize, ConfigError>,
) -> Result<SchedulerConfig, ConfigError> {
    Ok(match name {
        "pifo" => {
            let heap = match r.string("ties")? {
                "arrival" => false,
                "heap" => true,
                other => return err("scheme.ties", format!("{other:?}"), "one of: arrival, heap"),
            };
            let capacity_pkts = pkts("capacity_pkts")?;
            if heap && capacity_pkts < 2 {
                return err(
                    "scheme.capacity_pkts",
                    capacity_pkts.to_string(),
                    "at least 2 with ties = \"heap\" (the heap keeps capacity - 1 packets)",
                );
            }
            SchedulerConfig::Pifo { capacity_pkts, heap }
        }
        "pieo" => SchedulerConfig::Pieo { capacity_pkts: pkts("capacity_pkts")? },
        "sp-pifo" => SchedulerConfig::SpPifo { queues: pkts("queues")?, per_queue_pkts: pkts("queue_pkts")? },
        _ => {
            let k = r.s.f64_or("headroom_k", r.f64_default("headroom_k"))?;
            if !(0.0..1.0).contains(&k) {
                return err("scheme.headroom_k", format!("{k:?}"), "a headroom in [0, 1)");
            }
            SchedulerConfig::Aifo {
                capacity_pkts: pkts("capacity_pkts")?,
                window: pkts("window")?,
                sample_every: r.int("sample_every", 1, 1 << 20)? as u32,
                k,
            }
        }
    })
}

fn build_afq(r: &Reader, _: &TransportParams) -> Result<QueueConfig, ConfigError> {
    let pkts = |key: &str| r.int(key, 1, 1 << 24).map(|x| x as usize);
    Ok(QueueConfig::Afq {
        queues: pkts("queues")?,
        per_queue_pkts: pkts("queue_pkts")?,
        bytes_per_round: r.int("bytes_per_round", 1, 1 << 40)?,
        mark_at_bytes: mark(r)?,
    })
}

// --- the catalogue ------------------------------------------------------------------------------------------

fn param_entries(groups: &'static [&'static [Param]]) -> Vec<Value> {
    all_params(groups).map(|p| json!({"name": p.name, "default": (p.default)(), "what": p.what})).collect()
}

/// Every host, switch and bundle with its parameters, defaults and paper, as JSON (`pfabric schemes`).
pub fn catalogue() -> Value {
    let hosts: Vec<Value> = HOSTS
        .iter()
        .map(|h| json!({"name": h.name, "what": h.what, "paper": h.paper, "parameters": param_entries(h.params)}))
        .collect();
    let switches: Vec<Value> = SWITCHES
        .iter()
        .map(|s| {
            json!({
                "name": s.name, "what": s.what, "paper": s.paper, "reads_stamp": s.reads_stamp,
                "marks_ecn_with": s.marks_with, "parameters": param_entries(s.params),
            })
        })
        .collect();
    let bundles: Vec<Value> = BUNDLES
        .iter()
        .map(|b| {
            let values: serde_json::Map<String, Value> = (b.values)().into_iter().map(|(k, v)| (k.into(), v)).collect();
            json!({
                "name": b.name, "host": (!b.host.is_empty()).then_some(b.host),
                "switch": (!b.switch.is_empty()).then_some(b.switch), "paper": b.paper, "values": values,
            })
        })
        .collect();
    json!({"hosts": hosts, "switches": switches, "bundles": bundles})
}
