//! Homa's two schedulers (Montazeri et al., "Homa: A Receiver-Driven Low-Latency Transport Protocol Using
//! Network Priorities", SIGCOMM 2018), as state machines a host drives: the receiver's [`GrantScheduler`] and
//! the sender's [`Outbox`]. Rules from the paper (sections 3.2-3.7) and the authors' simulator
//! (PlatformLab/HomaSimulation, `HomaTransport.cc`; docs/receiver-driven-notes.md):
//!
//! - A message's first `rtt_pkts` packets (RTTbytes) are *unscheduled*: its sender sends them at once, at the
//!   unscheduled priority level its size falls in. The receiver learns of the message from the first of them
//!   (every packet carries the message's length); there is no request before the data.
//! - The rest is *scheduled*: the receiver grants it, and only to the `overcommit` messages with the fewest
//!   packets still to arrive (SRPT; ties to the earlier start, then the lower flow id). A granted message is
//!   kept `rtt_pkts` packets ahead of what arrived (a grant per arriving packet moves its offset on), so its
//!   sender never idles for a round trip while it stays among the best.
//! - Priorities, 0 the most urgent: control packets (grants, ACKs) at 0; the unscheduled levels first, smaller
//!   messages higher, their cutoffs splitting the workload's unscheduled packets evenly; the scheduled levels
//!   below, a granted message at the level of its rank among the granted ones, using the lowest levels when
//!   few are granted (each grant carries it).
//! - The sender sends one packet whenever its NIC has nothing queued: of the messages with a packet it may
//!   send (unscheduled, granted, or asked again), the one with the fewest packets left first.
//! - Losses: a receiver that has heard nothing of an incomplete message for `resend_after`, while some of
//!   what it permitted is missing, asks for the first missing packet again (RESEND, section 3.7), waiting twice
//!   as long before each further RESEND until a new packet arrives (a copy of one held does not count: a
//!   message starved behind higher levels would otherwise be asked again and again, each copy restarting the
//!   wait, and flood the fabric with copies of packets still on their way). A sender
//!   that has heard nothing back of a message [`SENDER_RETRY_FACTOR`] times that long after its last packet
//!   left sends the first packet again, so a message whose every packet was lost is still heard of (Homa
//!   leaves that case to the RPC layer's timeout; a message merely waiting for its grants costs one packet
//!   per retry).
//! - The wait: the paper gives none and the authors' simulator has no loss to recover. Their Linux module
//!   (PlatformLab/HomaModule: `homa->resend_ticks = 5` among its "wild guesses", 2 in early versions, on a timer
//!   that ticks every millisecond) waits 5 ms on 25 Gbps links with software in the loop. Ours is 1 ms
//!   (`resend_us`): still over 60 round trips of the paper's fabric, and where queues grow deeper than it (an
//!   incast past its ports, the NDP figure) copies of packets still on their way follow; the NDP figure shows
//!   what they cost.
//!
//! The engine owns the timers and the packets; these types only decide.

use super::bitset::BitSet;
use crate::sim::time::Time;

/// How many times the receiver's silence a sender waits before it sends a message's first packet again.
pub const SENDER_RETRY_FACTOR: u64 = 10;

/// The priority of Homa's control packets (grants, RESENDs, ACKs): the top level, which they share with the
/// smallest messages' unscheduled data, as in the authors' simulator.
pub const CONTROL_PRIORITY: u64 = 0;

/// Homa's parameters as a scenario gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HomaConfig {
    /// Packets a message sends before any grant: RTTbytes. 0: derived from the fabric, the packets that leave
    /// while a full packet crosses the longest path and a grant comes back (13 on the pFabric paper's fabric:
    /// 14.6 us against 1.2 us per packet), so a message alone never waits for its first grant.
    pub rtt_pkts: u32,
    /// Priority levels in the switches (the paper's 8).
    pub levels: u32,
    /// Levels for scheduled packets; 0: as the workload's bytes split (section 3.4: scheduled packets get the
    /// share of levels that scheduled bytes have of all bytes, at least one level each).
    pub sched_levels: u32,
    /// Messages a receiver grants at once (the degree of overcommitment); 0: one per scheduled level.
    pub overcommit: u32,
    /// How long a receiver (or a sender) hears nothing before it asks (or sends) again, microseconds.
    pub resend_us: f64,
}

impl HomaConfig {
    pub const DEFAULT: HomaConfig =
        HomaConfig { rtt_pkts: 0, levels: 8, sched_levels: 0, overcommit: 0, resend_us: 1000.0 };

    /// The run's parameters, once the sizes of its messages (in packets) are known, and the grant loop (a full
    /// packet's trip over the longest path and a grant's back) against one packet's time on the host link.
    pub fn params(&self, message_pkts: &[u32], grant_loop: Time, packet_time: Time, timer_seed: u64) -> HomaParams {
        let levels = self.levels.max(2);
        let rtt_pkts =
            if self.rtt_pkts != 0 { self.rtt_pkts } else { grant_loop.div_ceil(packet_time.max(1)).max(1) as u32 };
        let sched_levels = if self.sched_levels != 0 {
            self.sched_levels.min(levels - 1)
        } else {
            scheduled_share_levels(message_pkts, rtt_pkts, levels)
        };
        let unsched_levels = levels - sched_levels;
        HomaParams {
            rtt_pkts,
            levels,
            sched_levels,
            overcommit: if self.overcommit != 0 { self.overcommit } else { sched_levels },
            unsched_cutoffs: unscheduled_cutoffs(message_pkts, rtt_pkts, unsched_levels),
            resend_after: crate::sim::time::ps_from_us(self.resend_us),
            timer_seed,
        }
    }
}

/// Scheduled levels as the bytes split: `levels` times the scheduled packets' share of all, rounded, at least
/// one and leaving at least one unscheduled level.
fn scheduled_share_levels(message_pkts: &[u32], rtt_pkts: u32, levels: u32) -> u32 {
    let total: u64 = message_pkts.iter().map(|&n| n as u64).sum();
    if total == 0 {
        return 1;
    }
    let scheduled: u64 = message_pkts.iter().map(|&n| n.saturating_sub(rtt_pkts) as u64).sum();
    let share = scheduled as f64 / total as f64;
    ((levels as f64 * share).round() as u32).clamp(1, levels - 1)
}

/// The upper sizes (packets, inclusive) of the first `levels - 1` unscheduled levels, chosen so that each level
/// carries an equal share of the messages' unscheduled packets, smaller messages first; the last level takes
/// the rest. Sizes never repeat: a level whose share would end inside the previous one's size is merged.
fn unscheduled_cutoffs(message_pkts: &[u32], rtt_pkts: u32, levels: u32) -> Vec<u32> {
    let mut sizes: Vec<u32> = message_pkts.to_vec();
    sizes.sort_unstable();
    let total: u64 = sizes.iter().map(|&n| n.min(rtt_pkts) as u64).sum();
    let mut cutoffs = Vec::new();
    if levels < 2 || total == 0 {
        return cutoffs;
    }
    let mut carried = 0u64;
    let mut next = 1u64;
    for &n in &sizes {
        carried += n.min(rtt_pkts) as u64;
        while next < levels as u64 && carried * levels as u64 >= total * next {
            if cutoffs.last().is_none_or(|&c| c < n) {
                cutoffs.push(n);
            }
            next += 1;
        }
    }
    cutoffs
}

/// Homa's parameters for a run.
#[derive(Clone, Debug, PartialEq)]
pub struct HomaParams {
    pub rtt_pkts: u32,
    pub levels: u32,
    pub sched_levels: u32,
    pub overcommit: u32,
    /// See [`unscheduled_cutoffs`].
    pub unsched_cutoffs: Vec<u32>,
    pub resend_after: Time,
    /// Seeds the spread of the timers' waits (`backoff`).
    pub timer_seed: u64,
}

impl HomaParams {
    /// The `n`th wait of message `flow` on a timer of `base`: doubled per try (at most `MAX_BACKOFF` times), and
    /// stretched by up to as much again, a fraction fixed by (`flow`, `n`) and the run's seed: without it, the
    /// many messages of an incast that all lost their packets together would all try again together, and lose
    /// them together again (real hosts' timers drift apart).
    pub fn backoff(&self, base: Time, flow: u32, n: u32) -> Time {
        let wait = base << (n & !(1 << 31)).min(MAX_BACKOFF);
        if n & !(1 << 31) == 0 {
            return wait;
        }
        let spread = crate::sim::rng::unit_hash(self.timer_seed, (flow as u64) << 32 | n as u64);
        wait + (wait as f64 * spread) as Time
    }

    /// How long a sender hears nothing of a message before it sends the first packet again.
    pub fn sender_retry(&self) -> Time {
        self.resend_after * SENDER_RETRY_FACTOR
    }

    /// The priority number of a message's unscheduled packets (its size in packets).
    pub fn unscheduled_priority(&self, npkts: u32) -> u64 {
        self.unsched_cutoffs.partition_point(|&c| c < npkts) as u64
    }

    /// The priority number of the scheduled packets of the message ranked `rank` (0: the best) among `granted`
    /// messages granted at once: the lowest levels when few are, one level per rank, the last level shared
    /// by any beyond the scheduled levels.
    pub fn scheduled_priority(&self, rank: u32, granted: u32) -> u64 {
        let first = self.levels - self.sched_levels;
        let unused = self.sched_levels.saturating_sub(granted);
        (first + unused + rank).min(self.levels - 1) as u64
    }
}

/// A grant on its way to a sender: packets of `flow` below `offset` may go, at `priority`; or, when `resend`
/// is set, packet `resend` again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub flow: u32,
    /// The sending host.
    pub to: u32,
    pub offset: u32,
    pub priority: u64,
    pub resend: Option<u32>,
}

/// One message coming into a receiver.
#[derive(Clone, Debug)]
struct Inbound {
    flow: u32,
    src: u32,
    npkts: u32,
    got: BitSet,
    received: u32,
    /// Every packet below it has arrived.
    arrived_below: u32,
    /// Packets below it are permitted: its unscheduled ones, then as granted.
    granted: u32,
    /// The scheduled level its last grant carried.
    priority: u64,
    started: Time,
    /// Its last new packet's arrival, its last grant or its last RESEND: when the receiver may next ask again.
    last_heard: Time,
    /// RESENDs since its last new packet: each doubles the silence before the next (a packet starved behind
    /// higher levels looks lost; doubling keeps the copies asked for few).
    resends: u32,
}

/// The most doublings of a silence threshold.
const MAX_BACKOFF: u32 = 10;

impl Inbound {
    /// When the receiver may ask this message again.
    fn resend_due(&self, p: &HomaParams) -> Time {
        self.last_heard + p.backoff(p.resend_after, self.flow, self.resends)
    }

    fn remaining(&self) -> u32 {
        self.npkts - self.received
    }

    /// The first packet below the permitted offset that has not arrived, if any.
    fn first_missing(&self) -> Option<u32> {
        (self.arrived_below < self.granted).then_some(self.arrived_below)
    }
}

/// What the receiver does after a data packet arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// Already held.
    Old,
    New,
    /// The message's last missing packet: it leaves the scheduler.
    Completes,
}

/// What a receiving host grants: the `overcommit` messages with the fewest packets to come, each kept one
/// RTTbytes ahead of what arrived.
#[derive(Clone, Debug, Default)]
pub struct GrantScheduler {
    messages: Vec<Inbound>,
    /// (packets to come, start, flow, index) of the messages to grant, kept between calls (no allocation).
    ranked: Vec<(u32, Time, u32, usize)>,
}

impl GrantScheduler {
    fn find(&self, flow: u32) -> Option<usize> {
        self.messages.iter().position(|m| m.flow == flow)
    }

    /// Packet `seq` of message `flow` (`npkts` packets from host `src`) arrived at `now`; the first of its
    /// packets to arrive opens the message.
    pub fn on_data(&mut self, p: &HomaParams, flow: u32, src: u32, npkts: u32, seq: u32, now: Time) -> Received {
        let i = match self.find(flow) {
            Some(i) => i,
            None => {
                self.messages.push(Inbound {
                    flow,
                    src,
                    npkts,
                    got: BitSet::with_len(npkts as usize),
                    received: 0,
                    arrived_below: 0,
                    granted: npkts.min(p.rtt_pkts),
                    priority: 0,
                    started: now,
                    last_heard: now,
                    resends: 0,
                });
                self.messages.len() - 1
            }
        };
        let m = &mut self.messages[i];
        if seq >= m.npkts || !m.got.set(seq) {
            // A copy of a packet held says nothing new: it must not restart the silence, or the RESENDs of a
            // message starved behind higher levels never back off (each answered by a copy, each copy
            // restarting the wait: 1,332 extra packets and +2.3% in a 20-sender incast).
            return Received::Old;
        }
        m.last_heard = now;
        m.resends = 0;
        m.received += 1;
        while m.arrived_below < m.npkts && m.got.get(m.arrived_below) {
            m.arrived_below += 1;
        }
        if m.received == m.npkts {
            self.messages.swap_remove(i);
            return Received::Completes;
        }
        Received::New
    }

    /// The grants due at `now`: each of the best `overcommit` messages still to be granted in full, one per
    /// sender (a sender sends one message at a time: a second slot for it would idle), is permitted up to one
    /// RTTbytes beyond what arrived, at its rank's level (a grant whenever that moves its offset on or
    /// changes its level). A message granted in full leaves the ranking (its slot goes to the next), and a
    /// grant restarts the message's silence (it waited for the grant, not for lost packets).
    pub fn grants(&mut self, p: &HomaParams, now: Time, out: &mut Vec<Grant>) {
        let ranked = &mut self.ranked;
        ranked.clear();
        ranked.extend(
            self.messages
                .iter()
                .enumerate()
                .filter(|(_, m)| m.npkts > p.rtt_pkts && m.granted < m.npkts)
                .map(|(i, m)| (m.remaining(), m.started, m.flow, i)),
        );
        ranked.sort_unstable();
        // Each sender's best message only, then the best `overcommit` of those.
        let mut kept = 0;
        for j in 0..ranked.len() {
            let src = self.messages[ranked[j].3].src;
            if ranked[..kept].iter().all(|r| self.messages[r.3].src != src) {
                ranked[kept] = ranked[j];
                kept += 1;
                if kept == p.overcommit as usize {
                    break;
                }
            }
        }
        ranked.truncate(kept);
        let granted = ranked.len() as u32;
        for (rank, &(_, _, _, i)) in ranked.iter().enumerate() {
            let m = &mut self.messages[i];
            let offset = (m.received + p.rtt_pkts).min(m.npkts).max(m.granted);
            let priority = p.scheduled_priority(rank as u32, granted);
            if offset > m.granted || priority != m.priority {
                if offset > m.granted {
                    m.last_heard = now;
                    m.resends = 0;
                }
                m.granted = offset;
                m.priority = priority;
                out.push(Grant { flow: m.flow, to: m.src, offset, priority, resend: None });
            }
        }
    }

    /// RESENDs due at `now`: for each message silent for `resend_after` (doubled per RESEND since its last
    /// arrival) with a permitted packet missing, the first of them again (at the message's level).
    pub fn resends(&mut self, p: &HomaParams, now: Time, out: &mut Vec<Grant>) {
        for m in &mut self.messages {
            if m.resend_due(p) > now {
                continue;
            }
            if m.first_missing().is_none() {
                continue;
            }
            m.last_heard = now;
            m.resends += 1;
            // The first missing packet only: a message silent this long is more often starved by higher levels
            // than hit by a loss, and asking for every permitted packet would send copies of what still waits
            // in the fabric (an incast of 20 took 23% longer than its link time so; within 5% with one).
            let seq = m.arrived_below;
            let priority = if seq < p.rtt_pkts { p.unscheduled_priority(m.npkts) } else { m.priority };
            out.push(Grant { flow: m.flow, to: m.src, offset: m.granted, priority, resend: Some(seq) });
        }
    }

    /// When a RESEND may next be due (None: no message waits on a permitted packet).
    pub fn next_resend_at(&self, p: &HomaParams) -> Option<Time> {
        self.messages.iter().filter(|m| m.first_missing().is_some()).map(|m| m.resend_due(p)).min()
    }

    /// Whether message `flow` is open here.
    pub fn is_open(&self, flow: u32) -> bool {
        self.find(flow).is_some()
    }
}

/// One message leaving a sender.
#[derive(Clone, Debug)]
struct Outbound {
    flow: u32,
    npkts: u32,
    /// Packets sent once, from the first: the next new packet.
    next: u32,
    /// Packets below it may go.
    permitted: u32,
    /// The level its scheduled packets go at (the last grant's).
    sched_priority: u64,
    /// Packets asked for again.
    resend: Vec<u32>,
    /// When it last sent or heard from its receiver.
    last_heard: Time,
    /// Retries since it last heard from its receiver: each doubles the silence before the next.
    retries: u32,
}

/// A data packet to send: packet `seq` of `flow` at `priority`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToSend {
    pub flow: u32,
    pub seq: u32,
    pub priority: u64,
    pub retransmit: bool,
    /// The message has nothing more it may send now: its silence counts from this packet.
    pub waits: bool,
    /// Another packet (of this message or another) may go after this one: the sender looks again when its NIC
    /// drains. Without one it looks again only when a grant, a RESEND, a new message or a retry comes.
    pub more: bool,
}

impl Outbound {
    /// Nothing it may send now: it waits for grants (or for its ACK).
    fn waits(&self) -> bool {
        self.next >= self.permitted && self.resend.is_empty()
    }

    /// When it may next send its first packet again.
    fn retry_due(&self, p: &HomaParams) -> Time {
        self.last_heard + p.backoff(p.sender_retry(), self.flow, self.retries | 1 << 31)
    }
}

/// The messages a sending host has to send.
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    messages: Vec<Outbound>,
}

impl Outbox {
    fn find(&self, flow: u32) -> Option<usize> {
        self.messages.iter().position(|m| m.flow == flow)
    }

    /// A message of `npkts` packets starts at `now`: its unscheduled packets may go.
    pub fn open(&mut self, p: &HomaParams, flow: u32, npkts: u32, now: Time) {
        self.messages.push(Outbound {
            flow,
            npkts,
            next: 0,
            permitted: npkts.min(p.rtt_pkts),
            sched_priority: p.scheduled_priority(0, 1),
            resend: Vec::new(),
            last_heard: now,
            retries: 0,
        });
    }

    /// A grant (or a RESEND) for one of its messages arrived at `now`.
    pub fn on_grant(&mut self, grant: &Grant, now: Time) {
        let Some(i) = self.find(grant.flow) else { return };
        let m = &mut self.messages[i];
        m.last_heard = now;
        m.retries = 0;
        match grant.resend {
            // A packet not sent yet is not lost: it goes in its turn (Homa's sender answers BUSY).
            Some(seq) if seq < m.next && !m.resend.contains(&seq) => m.resend.push(seq),
            Some(_) => {}
            // A grant overtaken by a later one (sprayed on another path) changes nothing.
            None if grant.offset < m.permitted => {}
            None => {
                m.permitted = grant.offset.min(m.npkts);
                m.sched_priority = grant.priority;
            }
        }
    }

    /// The packet to send at `now`, if any: the message with the fewest packets left to send first (ties: the
    /// lower flow id), a packet asked for again before a new one.
    pub fn next(&mut self, p: &HomaParams, now: Time) -> Option<ToSend> {
        let mut best: Option<(usize, (u32, u32))> = None;
        let mut ready = 0u32;
        for (i, m) in self.messages.iter().enumerate() {
            if m.waits() {
                continue;
            }
            ready += 1;
            let key = (m.npkts - m.next + m.resend.len() as u32, m.flow);
            if best.is_none_or(|(_, k)| key < k) {
                best = Some((i, key));
            }
        }
        let (i, _) = best?;
        let m = &mut self.messages[i];
        m.last_heard = now;
        let (seq, retransmit) = match m.resend.pop() {
            Some(seq) => (seq, true),
            None => {
                m.next += 1;
                (m.next - 1, false)
            }
        };
        let priority = if seq < p.rtt_pkts { p.unscheduled_priority(m.npkts) } else { m.sched_priority };
        let waits = m.waits();
        Some(ToSend { flow: m.flow, seq, priority, retransmit, waits, more: ready > 1 || !waits })
    }

    /// Messages that have sent everything they may and heard nothing for `resend_after`: their first packet
    /// goes again (so that a receiver that never heard of one learns of it). Returns whether any was queued.
    pub fn retry_silent(&mut self, p: &HomaParams, now: Time) -> bool {
        let mut any = false;
        for m in &mut self.messages {
            if m.waits() && m.retry_due(p) <= now {
                m.resend.push(0);
                m.last_heard = now;
                m.retries += 1;
                any = true;
            }
        }
        any
    }

    /// When a waiting message may next need its first packet again (one still sending is not silent).
    pub fn next_retry_at(&self, p: &HomaParams) -> Option<Time> {
        self.messages.iter().filter(|m| m.waits()).map(|m| m.retry_due(p)).min()
    }

    /// Message `flow` is acknowledged: it leaves.
    pub fn forget(&mut self, flow: u32) {
        if let Some(i) = self.find(flow) {
            self.messages.swap_remove(i);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(rtt_pkts: u32, overcommit: u32) -> HomaParams {
        HomaParams {
            rtt_pkts,
            levels: 8,
            sched_levels: 2,
            overcommit,
            unsched_cutoffs: vec![1, 3],
            resend_after: 1_000,
            timer_seed: 7,
        }
    }

    #[test]
    fn unscheduled_cutoffs_split_the_unscheduled_packets_evenly_smaller_messages_first() {
        // Unscheduled packets (rtt 4): 1+1+2+4+4+4 = 16; two levels: the first ends where 8 are carried.
        assert_eq!(unscheduled_cutoffs(&[1, 1, 2, 4, 10, 50], 4, 2), vec![4]);
        // Four levels over sizes 1..=8 with rtt 8: 36 packets, boundaries at 9, 18, 27.
        assert_eq!(unscheduled_cutoffs(&[1, 2, 3, 4, 5, 6, 7, 8], 8, 4), vec![4, 6, 7]);
        // One size only: one cutoff at most, never repeated.
        assert_eq!(unscheduled_cutoffs(&[5; 10], 8, 4), vec![5]);
        assert!(unscheduled_cutoffs(&[], 8, 4).is_empty());
    }

    #[test]
    fn scheduled_levels_follow_the_scheduled_bytes_share() {
        // Mostly small messages: one scheduled level; mostly large: all but one.
        assert_eq!(scheduled_share_levels(&[1; 100], 12, 8), 1);
        assert_eq!(scheduled_share_levels(&[1000, 2000], 12, 8), 7);
        assert_eq!(scheduled_share_levels(&[24, 24], 12, 8), 4);
    }

    #[test]
    fn priorities_put_small_messages_first_and_use_the_lowest_scheduled_levels_when_few_are_granted() {
        let p = params(4, 2);
        assert_eq!((p.unscheduled_priority(1), p.unscheduled_priority(3), p.unscheduled_priority(4)), (0, 1, 2));
        // Levels 6 and 7 are scheduled: one granted message takes 7, two take 6 and 7.
        assert_eq!(p.scheduled_priority(0, 1), 7);
        assert_eq!((p.scheduled_priority(0, 2), p.scheduled_priority(1, 2)), (6, 7));
        assert_eq!(p.scheduled_priority(4, 5), 7);
    }

    #[test]
    fn a_receiver_grants_the_best_messages_one_rttbytes_ahead_of_what_arrived() {
        let p = params(2, 1);
        let mut s = GrantScheduler::default();
        let mut out = Vec::new();
        // A 10-packet message opens with packets 0-1 unscheduled; its first arrival grants up to 3.
        assert_eq!(s.on_data(&p, 7, 1, 10, 0, 0), Received::New);
        s.grants(&p, 0, &mut out);
        assert_eq!(out, vec![Grant { flow: 7, to: 1, offset: 3, priority: 7, resend: None }]);
        // A shorter one arrives: with an overcommitment of one, only it is granted now.
        out.clear();
        assert_eq!(s.on_data(&p, 8, 2, 5, 0, 10), Received::New);
        s.grants(&p, 0, &mut out);
        assert_eq!(out, vec![Grant { flow: 8, to: 2, offset: 3, priority: 7, resend: None }]);
        // Unscheduled-only messages are never granted.
        out.clear();
        s.on_data(&p, 9, 3, 2, 0, 20);
        s.grants(&p, 0, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.on_data(&p, 9, 3, 2, 1, 21), Received::Completes);
        assert!(!s.is_open(9));
    }

    #[test]
    fn a_receiver_grants_one_message_per_sender_and_drops_those_granted_in_full() {
        let p = params(2, 2);
        let mut s = GrantScheduler::default();
        let mut out = Vec::new();
        // Two messages from host 1 and one from host 2: host 1's second message gets no slot.
        s.on_data(&p, 7, 1, 4, 0, 0);
        s.on_data(&p, 8, 1, 5, 0, 0);
        s.on_data(&p, 9, 2, 6, 0, 0);
        s.grants(&p, 0, &mut out);
        let flows: Vec<u32> = out.iter().map(|g| g.flow).collect();
        assert_eq!(flows, vec![7, 9]);
        // Message 7 is granted in full (offset 3 of 4 after one arrival, 4 after two): its slot then goes to 8.
        out.clear();
        s.on_data(&p, 7, 1, 4, 1, 1);
        s.grants(&p, 1, &mut out);
        assert!(out.iter().any(|g| g.flow == 7 && g.offset == 4));
        out.clear();
        s.grants(&p, 2, &mut out);
        assert!(out.iter().any(|g| g.flow == 8), "{out:?}");
    }

    #[test]
    fn a_sender_ignores_a_resend_of_a_packet_it_has_not_sent_and_a_stale_grant() {
        let p = params(2, 1);
        let mut o = Outbox::default();
        o.open(&p, 1, 10, 0);
        o.next(&p, 0);
        o.on_grant(&Grant { flow: 1, to: 0, offset: 2, priority: 1, resend: Some(1) }, 1);
        o.on_grant(&Grant { flow: 1, to: 0, offset: 4, priority: 6, resend: None }, 1);
        o.on_grant(&Grant { flow: 1, to: 0, offset: 3, priority: 7, resend: None }, 1);
        let sent: Vec<(u32, bool, u64)> =
            std::iter::from_fn(|| o.next(&p, 2)).map(|t| (t.seq, t.retransmit, t.priority)).collect();
        assert_eq!(sent, vec![(1, false, 2), (2, false, 6), (3, false, 6)]);
    }

    #[test]
    fn a_silent_message_missing_a_permitted_packet_is_asked_for_it_again() {
        let p = params(2, 1);
        let mut s = GrantScheduler::default();
        s.on_data(&p, 7, 1, 3, 1, 0); // packet 0 lost
        assert_eq!(s.next_resend_at(&p), Some(1_000));
        let mut out = Vec::new();
        s.resends(&p, 999, &mut out);
        assert!(out.is_empty());
        s.resends(&p, 1_000, &mut out);
        assert_eq!(out, vec![Grant { flow: 7, to: 1, offset: 2, priority: 1, resend: Some(0) }]);
        // Still silent: the next RESEND waits twice as long, stretched by up to as much again.
        let next = s.next_resend_at(&p).unwrap();
        assert!((3_000..5_000).contains(&next), "{next}");
        // A copy of a packet held is not news: the wait stands (else a starved message's RESENDs, each
        // answered by a copy, would never back off). A new packet resets it.
        assert_eq!(s.on_data(&p, 7, 1, 3, 1, 1_500), Received::Old);
        assert_eq!(s.next_resend_at(&p), Some(next));
        assert_eq!(s.on_data(&p, 7, 1, 3, 2, 1_600), Received::New);
        assert_eq!(s.next_resend_at(&p), Some(2_600));
    }

    #[test]
    fn a_sender_sends_the_shortest_message_first_and_a_resend_before_new_data() {
        let p = params(2, 1);
        let mut o = Outbox::default();
        o.open(&p, 1, 10, 0);
        o.open(&p, 2, 3, 0);
        let sent: Vec<(u32, u32, bool)> =
            std::iter::from_fn(|| o.next(&p, 0)).map(|t| (t.flow, t.seq, t.more)).collect();
        // `more`: another packet may follow, so the sender looks again when its NIC drains; after the last one
        // it may send, it waits for a grant.
        assert_eq!(sent, vec![(2, 0, true), (2, 1, true), (1, 0, true), (1, 1, false)]);
        o.on_grant(&Grant { flow: 1, to: 0, offset: 3, priority: 6, resend: None }, 5);
        o.on_grant(&Grant { flow: 2, to: 0, offset: 2, priority: 1, resend: Some(0) }, 5);
        let resent = o.next(&p, 5).unwrap();
        assert_eq!((resent.flow, resent.seq, resent.retransmit, resent.more), (2, 0, true, true));
        let granted = o.next(&p, 5).unwrap();
        assert_eq!((granted.flow, granted.seq, granted.priority, granted.more), (1, 2, 6, false));
        assert_eq!(o.next(&p, 5), None);
    }

    #[test]
    fn a_sender_that_hears_nothing_sends_its_first_packet_again() {
        let p = params(2, 1);
        let mut o = Outbox::default();
        o.open(&p, 1, 2, 0);
        while o.next(&p, 0).is_some() {}
        assert!(!o.retry_silent(&p, 9_999));
        assert!(o.retry_silent(&p, 10_000));
        let again = o.next(&p, 10_000).unwrap();
        assert_eq!((again.seq, again.retransmit), (0, true));
        o.forget(1);
        assert!(o.is_empty());
    }
}
