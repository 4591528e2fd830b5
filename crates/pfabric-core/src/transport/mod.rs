//! Host transports: how a sender paces its packets and recovers losses, and how a receiver acknowledges.
//!
//! One [`Sender`] type holds what every window-based protocol here shares (the SACK [`Scoreboard`], the window,
//! the retransmission timer); the protocol decides how the window reacts to ACKs, marks and timeouts, each in
//! its own file: [`tcp`] (NewReno with SACK), [`dctcp`] (ECN-driven cuts), [`pfabric`] (the paper's minimal rate
//! control, its probe mode and the line-rate variant). Receivers ACK every packet; an ACK carries the cumulative
//! acknowledgement and the index of the packet that triggered it (a one-block SACK), and echoes that packet's
//! send time (as the TCP timestamp option does) and its ECN mark.

pub mod bitset;
pub mod constant_rate;
pub mod dctcp;
pub mod homa;
pub mod ndp;
pub mod pdq;
pub mod pfabric;
pub mod phost;
pub mod receiver;
pub mod scoreboard;
pub mod tcp;

use crate::net::packet::{Packet, PacketFormat, PacketKind};
use crate::sim::time::Time;
use scoreboard::Scoreboard;

pub use receiver::Receiver;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Tcp,
    Dctcp,
    Pfabric,
    /// pFabric's host without any window reduction: only timeouts slow it.
    PfabricLinerate,
    /// PDQ: rates granted by the ports on the path, paced sending, probes while paused.
    Pdq,
    /// A UDP-like source: its bytes at a constant rate, once, whatever happens to them.
    ConstantRate,
    /// pHost: a free first window, then one packet per token from the receiver (`phost`).
    Phost,
    /// Homa: RTTbytes unscheduled, then packets as the receiver grants them, at network priorities (`homa`).
    Homa,
    /// NDP: a first window at once, then one packet per pull from the receiver (`ndp`).
    Ndp,
}

/// What a data packet's priority number (smaller = more urgent) is computed from, at each send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorityScheme {
    /// Bytes not yet acknowledged (cumulatively or selectively): the paper's default, an SRPT approximation.
    RemainingSize,
    /// The flow's total size (SJF).
    FlowSize,
    /// Bytes sent so far, retransmissions included (least attained service; needs no size knowledge).
    BytesSent,
    /// The flow's absolute deadline in picoseconds (EDF); flows without one come after every deadline flow.
    Deadline,
    /// Bytes never sent yet (what the AIFO authors' NewReno-style senders stamp as the rank).
    RemainingUnsent,
}

#[derive(Clone, Copy, Debug)]
pub struct TransportParams {
    pub protocol: Protocol,
    /// The run's packets: payload per full packet and header bytes (a control packet is headers alone).
    pub format: PacketFormat,
    pub init_cwnd_pkts: u32,
    pub max_cwnd_pkts: u32,
    /// TCP/DCTCP: slow start's threshold before the first loss, packets (0: none).
    pub init_ssthresh_pkts: u32,
    /// TCP/DCTCP: lower bound on the estimated RTO.
    pub min_rto: Time,
    /// TCP/DCTCP: RTO before the first RTT sample.
    pub init_rto: Time,
    /// TCP/DCTCP: upper bound on the backed-off RTO.
    pub max_rto: Time,
    /// pFabric: the fixed RTO (no estimation, no backoff).
    pub fixed_rto: Time,
    pub dupack_threshold: u32,
    /// DCTCP: gain of the marked-fraction average.
    pub dctcp_g: f64,
    /// pFabric: consecutive timeouts before probe mode; 0 disables probe mode.
    pub probe_after_timeouts: u32,
    pub priority: PriorityScheme,
    /// Upper bound on priority numbers (a starvation safeguard), if any.
    pub priority_cap: Option<u64>,
    /// The hosts' link rate (PDQ asks for it and terminates by it).
    pub host_rate_bps: u64,
    /// PDQ: how often a paused flow probes.
    pub pdq_probe_interval: Time,
    /// PDQ: deadline flows that cannot make it quit.
    pub pdq_early_termination: bool,
    /// PDQ: wire bytes of the SYN (header only by default; probes are always header only).
    pub pdq_syn_wire_bytes: u32,
    /// pHost's schedulers.
    pub phost: phost::PhostConfig,
    /// Homa's parameters (Homa hosts).
    pub homa: homa::HomaConfig,
    /// NDP's parameters (NDP hosts).
    pub ndp: ndp::NdpConfig,
    /// Constant-rate senders: their rate.
    pub constant_rate_bps: u64,
    /// TCP and DCTCP hosts open with netbench's three-way handshake: a SYN, its answer, then a final ACK ahead of
    /// the first window; the receiver takes data only once that ACK is in (`three_way_handshake`).
    pub handshake: bool,
    /// TCP-like hosts: how losses are found and repaired. `Sack` (RFC 6675, the default); `NewReno`: the AIFO
    /// authors' netbench sockets (`tcp::newreno_on_ack`).
    pub recovery: Recovery,
    /// Constant-rate senders: each gap between packets is the mean gap times (1 + u x jitter), u uniform in
    /// [-1, 1) from a stream of the run's seed (real NICs are not perfectly paced; perfectly paced senders
    /// phase-lock at a tail-drop queue).
    pub sender_jitter: f64,
    pub jitter_seed: u64,
}

impl TransportParams {
    /// Whether flows open with the three-way handshake (`handshake` on a TCP-like host): the sender sends the
    /// SYN, then on its answer a final ACK ahead of the first window, and the receiver refuses data until that
    /// ACK arrives. Data that overtakes the final ACK (in a rank-based port it carries the flow's first rank, so
    /// the flow's own later packets pass it in any queue they share) is lost to the flow, as in the AIFO
    /// authors' netbench sockets, whose receiver ignores data before it is established.
    pub fn three_way_handshake(&self) -> bool {
        self.handshake && matches!(self.protocol, Protocol::Tcp | Protocol::Dctcp)
    }
}

/// Loss recovery of TCP-like hosts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// SACK-based (RFC 6675): the pipe estimate holds the window, every hole with three SACKed packets above
    /// it is resent; the timer restarts when an ACK acknowledges new data (RFC 6298).
    Sack,
    /// NewReno as the AIFO authors' netbench sockets do it (RFC 6582 without SACK-based loss marking): the
    /// window ends at the first unacknowledged packet plus cwnd (SACKed packets do not open it), only the
    /// third duplicate ACK and each partial ACK resend one packet (the first unacknowledged), cwnd grows by
    /// one per duplicate ACK in recovery, the first two duplicate ACKs each send a new packet (limited
    /// transmit), and the timer restarts on every packet sent.
    NewReno,
}

/// The sending half of one flow.
pub struct Sender {
    pub flow: u32,
    pub src: u32,
    pub dst: u32,
    pub size_bytes: u64,
    pub deadline: Option<Time>,
    /// A rank fixed for the whole flow (from the workload), stamped instead of the scheme's priority.
    pub fixed_rank: Option<u64>,
    pub sb: Scoreboard,
    /// The run's packet format (its payload per packet decides each packet's bytes).
    format: PacketFormat,
    cwnd: f64,
    ssthresh: f64,
    dupacks: u32,
    in_recovery: bool,
    /// NewReno's recovery point: no new fast recovery until this is acknowledged.
    recover: u32,
    srtt: f64,
    rttvar: f64,
    has_rtt: bool,
    /// `Recovery::NewReno` after a timeout: the next RTT sample starts the estimate afresh (netbench's
    /// `firstRttMeasurement`).
    restart_rtt: bool,
    backoff: u32,
    acked_bytes: u64,
    sent_bytes: u64,
    consecutive_timeouts: u32,
    probing: bool,
    dctcp: dctcp::DctcpState,
    pdq: pdq::PdqState,
    /// When the next paced packet goes out (PDQ, constant rate), if pacing.
    pace_at: Option<Time>,
    /// When the retransmission timer expires, if armed.
    pub timer: Option<Time>,
    /// Time of this flow's pending timer event in the engine's queue, if one is pending.
    pub timer_event_at: Option<Time>,
    pub retransmissions: u32,
    pub timeouts: u32,
    /// The SYN is out and its answer not yet back (TCP-like hosts with `handshake`): nothing else is sent.
    awaiting_syn_ack: bool,
    /// `Recovery::NewReno`: send one new packet outside the window (limited transmit) at the next fill.
    limited_transmit: bool,
    /// `Recovery::NewReno`: resend this packet outside the window at the next fill (u32::MAX: none).
    resend_now: u32,
}

impl Sender {
    pub fn new(flow: u32, src: u32, dst: u32, size_bytes: u64, deadline: Option<Time>, p: &TransportParams) -> Self {
        let npkts = p.format.packets_for(size_bytes) as u32;
        Sender {
            flow,
            src,
            dst,
            size_bytes,
            deadline,
            sb: Scoreboard::new(npkts),
            format: p.format,
            cwnd: p.init_cwnd_pkts as f64,
            ssthresh: if p.init_ssthresh_pkts > 0 { p.init_ssthresh_pkts as f64 } else { f64::INFINITY },
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            srtt: 0.0,
            rttvar: 0.0,
            has_rtt: false,
            restart_rtt: false,
            backoff: 0,
            acked_bytes: 0,
            sent_bytes: 0,
            consecutive_timeouts: 0,
            probing: false,
            dctcp: dctcp::DctcpState::new(),
            pdq: pdq::PdqState::default(),
            pace_at: None,
            fixed_rank: None,
            timer: None,
            timer_event_at: None,
            retransmissions: 0,
            timeouts: 0,
            awaiting_syn_ack: p.three_way_handshake(),
            limited_transmit: false,
            resend_now: u32::MAX,
        }
    }

    /// Payload bytes of packet `i`.
    #[inline]
    pub fn payload(&self, i: u32) -> u32 {
        self.format.payload_of(self.size_bytes, self.sb.npkts, i)
    }

    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    pub fn is_done(&self) -> bool {
        self.sb.all_acked()
    }

    /// The priority number of packet `i` (the next one to send, for probes).
    fn priority(&self, i: u32, p: &TransportParams) -> u64 {
        if let Some(rank) = self.fixed_rank {
            return rank;
        }
        let raw = match p.priority {
            PriorityScheme::RemainingSize => self.size_bytes - self.acked_bytes,
            PriorityScheme::FlowSize => self.size_bytes,
            PriorityScheme::BytesSent => self.sent_bytes,
            PriorityScheme::Deadline => self.deadline.unwrap_or(u64::MAX >> 1),
            // The AIFO authors' SRPT sender stamps `flowSize - seq`: the bytes from this packet's first on,
            // the packet's own, so a retransmission keeps its original rank.
            PriorityScheme::RemainingUnsent => self.size_bytes.saturating_sub(i as u64 * self.format.mss_bytes as u64),
        };
        match p.priority_cap {
            Some(cap) => raw.min(cap),
            None => raw,
        }
    }

    fn data_packet(&mut self, i: u32, now: Time, retransmit: bool, p: &TransportParams) -> Packet {
        let payload = self.payload(i);
        let priority = self.priority(i, p);
        self.sent_bytes += payload as u64;
        Packet {
            priority,
            sent_at: now,
            flow: self.flow,
            seq: i,
            ack: 0,
            src: self.src,
            dst: self.dst,
            payload,
            wire: self.format.wire_bytes(payload),
            kind: PacketKind::Data,
            ce: false,
            ece: false,
            retransmit,
            loss_bin: 0,
            rate_bps: 0,
            paused_by: 0,
        }
    }

    /// The handshake's final ACK: a header-only packet that carries the flow's first rank, as the SYN does (the
    /// authors' sockets stamp it `flowSize - 1`), and that nothing answers.
    fn handshake_ack(&self, now: Time, p: &TransportParams) -> Packet {
        Packet { seq: receiver::HANDSHAKE_ACK_SEQ, ..self.probe_packet(now, p) }
    }

    fn probe_packet(&self, now: Time, p: &TransportParams) -> Packet {
        let wire = self.format.control_wire_bytes();
        Packet {
            priority: self.priority(self.sb.nxt, p),
            ..Packet::header(PacketKind::Probe, self.flow, receiver::PROBE_SEQ, self.src, self.dst, now, wire)
        }
    }

    /// A receiver-driven host (Homa, NDP) sends packet `seq` at `priority` on a credit (a grant, a pull or its
    /// first window); None if the flow no longer needs it.
    pub fn send_credited(
        &mut self,
        seq: u32,
        priority: u64,
        retransmit: bool,
        now: Time,
        p: &TransportParams,
    ) -> Option<Packet> {
        if self.sb.all_acked() || seq >= self.sb.npkts {
            return None;
        }
        if retransmit {
            self.retransmissions += 1;
        } else {
            self.sb.nxt = self.sb.nxt.max(seq + 1);
        }
        let mut pkt = self.data_packet(seq, now, retransmit, p);
        pkt.priority = priority;
        Some(pkt)
    }

    /// The flow starts: send the initial window.
    pub fn start(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        match p.protocol {
            Protocol::Pdq => self.pdq_start(now, p, out),
            Protocol::Phost => self.phost_start(now, p, out),
            Protocol::Homa | Protocol::Ndp => {} // its outbox sends (`engine::homa`, `engine::ndp`)
            Protocol::ConstantRate => self.pace_at = Some(now),
            _ if self.awaiting_syn_ack => self.send_syn(now, p, out),
            _ => self.fill_window(now, p, out),
        }
    }

    /// The SYN: a header-only packet with the flow's first rank (a rank-based port ranks it as the whole flow),
    /// under the retransmission timer.
    fn send_syn(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        out.push(self.probe_packet(now, p));
        self.timer = Some(now + self.rto(p));
    }

    /// When this sender next needs to act: its retransmission timer or (PDQ) its pacing timer.
    pub fn wake_at(&self) -> Option<Time> {
        match (self.timer, self.pace_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The time of the timer event the engine must schedule for this sender, if any: its next wake-up, unless
    /// an event already pending comes at or before it (a later one is left to fire and find nothing to do).
    /// The new event is then noted as pending.
    #[inline]
    pub fn timer_event_needed(&mut self) -> Option<Time> {
        let wake = self.wake_at()?;
        match self.timer_event_at {
            Some(at) if at <= wake => None,
            _ => {
                self.timer_event_at = Some(wake);
                Some(wake)
            }
        }
    }

    /// Its wake-up time came: pace (PDQ) and/or time out, whichever is due.
    pub fn on_wake(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        if self.pace_at.is_some_and(|t| t <= now) {
            if p.protocol == Protocol::ConstantRate {
                self.constant_rate_pace(now, p, out);
            } else {
                self.pdq_pace(now, p, out);
            }
        }
        if self.timer.is_some_and(|t| t <= now) {
            self.on_timeout(now, p, out);
        }
    }

    /// Send what the window allows: presumed-lost packets first, in order, then new ones.
    fn fill_window(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        if self.probing {
            return;
        }
        // `as` truncates, which is the floor of a window (never negative) without a call into libm.
        let window = (self.cwnd as u32).clamp(1, p.max_cwnd_pkts);
        if p.recovery == Recovery::NewReno && matches!(p.protocol, Protocol::Tcp | Protocol::Dctcp) {
            return self.newreno_fill_window(window, now, p, out);
        }
        while self.sb.pipe() < window {
            if let Some(i) = self.sb.next_retransmission() {
                self.sb.mark_retransmitted(i);
                self.retransmissions += 1;
                let pkt = self.data_packet(i, now, true, p);
                out.push(pkt);
            } else if self.sb.has_new() {
                let i = self.sb.send_new();
                let pkt = self.data_packet(i, now, false, p);
                out.push(pkt);
            } else {
                break;
            }
        }
        if self.timer.is_none() && self.sb.outstanding() > 0 {
            self.timer = Some(now + self.rto(p));
        }
    }

    /// The current retransmission timeout.
    fn rto(&self, p: &TransportParams) -> Time {
        match p.protocol {
            Protocol::Pfabric | Protocol::PfabricLinerate => p.fixed_rto,
            Protocol::Tcp
            | Protocol::Dctcp
            | Protocol::Pdq
            | Protocol::ConstantRate
            | Protocol::Phost
            | Protocol::Homa
            | Protocol::Ndp => {
                let base =
                    if self.has_rtt { ((self.srtt + 4.0 * self.rttvar) as Time).max(p.min_rto) } else { p.init_rto };
                base.saturating_mul(1 << self.backoff.min(16)).min(p.max_rto.max(base))
            }
        }
    }

    /// RFC 6298 smoothing of an RTT sample. Under `Recovery::NewReno` (netbench's socket, which recomputes its
    /// timeout from every ACK) a sample also ends a timeout's doubling, and the first one after a timeout starts
    /// the estimate afresh.
    fn rtt_sample(&mut self, sample: Time, p: &TransportParams) {
        let r = sample as f64;
        if p.recovery == Recovery::NewReno {
            self.backoff = 0;
            if std::mem::take(&mut self.restart_rtt) {
                self.has_rtt = false;
            }
        }
        if self.has_rtt {
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r;
        } else {
            self.srtt = r;
            self.rttvar = r / 2.0;
            self.has_rtt = true;
        }
    }

    fn grow_window(&mut self, acked_pkts: u32, p: &TransportParams) {
        let cap = p.max_cwnd_pkts as f64;
        for _ in 0..acked_pkts {
            if self.cwnd >= cap {
                break; // a window at its cap stays there: nothing left to grow
            }
            if self.cwnd < self.ssthresh {
                self.cwnd += 1.0;
            } else {
                self.cwnd += 1.0 / self.cwnd;
            }
        }
        self.cwnd = self.cwnd.min(cap);
    }

    /// An ACK (or a probe's ACK) arrives. Returns true when every byte is now acknowledged.
    pub fn on_ack(&mut self, ack: &Packet, now: Time, p: &TransportParams, out: &mut Vec<Packet>) -> bool {
        if self.sb.all_acked() {
            return true;
        }
        if self.awaiting_syn_ack {
            // Only the SYN is out, so this answers it: the final ACK, then the first window. No RTT sample: the
            // authors' socket estimates only from ACKs once established, so its first timeout is `init_rto`.
            self.awaiting_syn_ack = false;
            if p.recovery != Recovery::NewReno {
                self.backoff = 0; // (netbench's socket keeps a resent SYN's doubled timeout until its first sample)
            }
            self.timer = None;
            out.push(self.handshake_ack(now, p));
            self.fill_window(now, p, out);
            return false;
        }
        if ack.seq == receiver::PROBE_SEQ && matches!(p.protocol, Protocol::Tcp | Protocol::Dctcp) {
            return false; // a late answer to a resent SYN: nothing new
        }
        // pFabric's timeout is fixed: only TCP and DCTCP estimate the RTT.
        if matches!(p.protocol, Protocol::Tcp | Protocol::Dctcp | Protocol::Pdq) && now >= ack.sent_at {
            self.rtt_sample(now - ack.sent_at, p);
        }
        let mut newly_sacked = 0;
        if ack.seq != receiver::PROBE_SEQ && self.sb.sack(ack.seq) {
            self.acked_bytes += self.payload(ack.seq) as u64;
            newly_sacked = 1;
        }
        let mut acked_bytes = 0;
        let (size, npkts, format) = (self.size_bytes, self.sb.npkts, self.format);
        let payload_of = |i: u32| format.payload_of(size, npkts, i) as u64;
        let newly_cum = self.sb.cumulative_ack(ack.ack, |i| acked_bytes += payload_of(i));
        self.acked_bytes += acked_bytes;
        if self.probing {
            // Probe mode ends at the first ACK: the path delivers again. Resume from the first hole.
            self.probing = false;
            self.consecutive_timeouts = 0;
            self.sb.timeout();
        }
        match p.protocol {
            Protocol::Tcp | Protocol::Dctcp => self.tcp_on_ack(ack, newly_cum, newly_sacked, now, p),
            Protocol::Pfabric | Protocol::PfabricLinerate => self.pfabric_on_ack(newly_cum, newly_sacked, now, p),
            Protocol::Pdq => self.pdq_on_ack(ack, newly_cum, now, p),
            Protocol::ConstantRate | Protocol::Phost | Protocol::Homa | Protocol::Ndp => {}
        }
        if self.sb.all_acked() {
            self.timer = None;
            self.pace_at = None;
            return true;
        }
        if !matches!(
            p.protocol,
            Protocol::Pdq | Protocol::ConstantRate | Protocol::Phost | Protocol::Homa | Protocol::Ndp
        ) {
            self.fill_window(now, p, out); // PDQ and constant-rate senders send from their pacing timer, pHost's on tokens
        }
        false
    }

    /// The retransmission timer fired at `now` (the engine checked it is due).
    pub fn on_timeout(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        self.timer = None;
        if self.sb.all_acked() {
            return;
        }
        self.timeouts += 1;
        if self.awaiting_syn_ack {
            // The SYN or its answer was lost (or is late): again, after a doubled timeout. netbench's socket
            // treats it as any timeout (`handleRetransmissionTimeOut`): its window falls to one segment and slow
            // start's threshold to its floor of two (half a flight of one SYN byte), so the flow opens with one
            // packet whatever its first window, and the doubled timeout stands until its first RTT sample.
            self.backoff += 1;
            if p.recovery == Recovery::NewReno {
                self.cwnd = 1.0;
                self.ssthresh = 2.0;
            }
            self.send_syn(now, p, out);
            return;
        }
        match p.protocol {
            Protocol::Tcp | Protocol::Dctcp => self.tcp_on_timeout(p),
            Protocol::Pfabric | Protocol::PfabricLinerate => self.pfabric_on_timeout(p),
            // Never on this timer (NDP's is its outbox's, `engine::ndp`).
            Protocol::ConstantRate | Protocol::Phost | Protocol::Homa | Protocol::Ndp => return,
            Protocol::Pdq => {
                self.backoff += 1;
                self.sb.timeout();
                if self.pace_at.is_none() {
                    // Resend from the first hole at the granted rate (or ask again if nothing is granted).
                    self.pace_at = Some(now);
                }
                self.timer = Some(now + self.rto(p));
                return;
            }
        }
        self.sb.timeout();
        if p.three_way_handshake() && self.acked_bytes == 0 {
            // Nothing acknowledged yet: the final ACK may have been lost, and without it the receiver refuses
            // everything. netbench's receiver would resend its SYN's answer on its own timer and the sender
            // answer it; here (receivers keep no timers) the sender repeats the final ACK with its timeout.
            out.push(self.handshake_ack(now, p));
        }
        if self.probing {
            out.push(self.probe_packet(now, p));
            self.timer = Some(now + self.rto(p));
        } else {
            self.fill_window(now, p, out);
            if self.timer.is_none() {
                self.timer = Some(now + self.rto(p));
            }
        }
    }
}
