//! pHost's two schedulers (Gao et al., "pHost: Distributed Near-Optimal Datacenter Transport Over Commodity
//! Network Fabric", CoNEXT 2015), as state machines a host drives: the receiver's [`TokenScheduler`], which
//! grants one packet per packet time to the flows coming in, and the sender's [`TokenStore`], which spends the
//! tokens it holds. Rules as the authors' simulator runs them (NetSys/simulator, the "Capability" flow and host:
//! `ext/capabilityflow.cpp`, `ext/capabilityhost.cpp` @00b7557; docs/receiver-driven-notes.md):
//!
//! - A flow opens with an RTS and holds `free_tokens` tokens of its own from the start (the authors' initial
//!   capabilities): its first packets need no grant, but they leave as any token's packet does, one at a time.
//! - The receiver sends one token per packet time of its link (an MTU's wire time plus a header's, the room a
//!   token or ACK takes beside each data packet on the link), to the flow with the fewest packets not yet
//!   received (SRPT; ties to the earlier start, then the lower flow id). A token names the next packet not yet
//!   received and not yet granted, carries its number among the flow's tokens, and expires `token_expiry` after
//!   it reaches the sender.
//! - A flow with free tokens gets its first grant once its free packets are on their way: at its first data
//!   packet, or their wire time after its RTS. (Granted at the RTS, the first tokens reach a sender still busy
//!   with its free packets, expire, and leave holes.) And a new flow's free packets book the receiver's link
//!   for their wire time, after the granted packets still on their way: no grant whose packet would arrive
//!   meanwhile, so a token leaves a token loop before its packet's turn on the link (without the booking,
//!   many senders' free packets on top of granted data overflow a receiver's link: on one bottleneck at load
//!   0.7, mean slowdown 3.6 against 1.9; booking from the RTS without the loop cost a lone flow one packet
//!   longer than its free tokens a whole loop).
//! - Each data packet echoes the number of the token it spends. A flow whose tokens run more than `window`
//!   ahead of the highest echo is downgraded: one token per `downgrade_time`, so a sender busy with other
//!   receivers' tokens does not hold this receiver's link idle (the authors' capability gap).
//! - Once every packet is granted but some never arrived, `resend_after` after the flow's last token the
//!   receiver grants the holes again (pHost has no sender timeout).
//! - The sender spends its unexpired tokens, the flow with the least remaining first, one whenever its NIC has
//!   nothing queued: tokens wait at the host, not packets in its NIC (the authors' host sends only on an idle
//!   queue).
//!
//! The engine owns the timers and the packets; these types only decide.

use super::bitset::BitSet;
use super::{receiver, Sender, TransportParams};
use crate::net::packet::Packet;
use crate::sim::time::Time;

/// The priority number of pHost's data packets: below its control packets (RTS, tokens, ACKs: 0), all alike,
/// as the authors' simulator stamps them.
pub const DATA_PRIORITY: u64 = 1;
/// With a third level (`PhostConfig::short_data_pkts`), the data of the longer flows: below the short ones'.
pub const LONG_DATA_PRIORITY: u64 = 2;

/// pHost's parameters as a scenario gives them: times in MTU wire times of the host link (the authors' unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhostConfig {
    pub free_tokens: u32,
    pub token_expiry_mtus: f64,
    pub window: u32,
    pub downgrade_mtus: f64,
    pub resend_mtus: f64,
    /// Flows of at most this many packets send their data one level above the longer flows' (the authors'
    /// simulator's optional third level, `capability_third_level` below `capability_prio_thresh`); 0: one
    /// data level, the paper's two levels in all.
    pub short_data_pkts: u32,
    /// Whether flows longer than `free_tokens` packets also send their first `free_tokens` packets free (the
    /// paper: every flow's first BDP), or only the flows that fit in them do, the longer ones waiting for their
    /// first token (the authors' simulator, `init_capa_size` @00b7557).
    pub free_for_long_flows: bool,
}

impl PhostConfig {
    /// The authors' defaults (py/run_experiments.py), scaled to the pFabric paper's fabric where they are
    /// counted in packets: free tokens one BDP (theirs 8 at 40 Gbps; 18 KB here, 12 packets), and a window a
    /// little longer than the token loop (RTS or token out, data back: theirs 8 against a loop of about 6.5
    /// packet times at 40 Gbps with cut-through; 16 against about 12.2 here, where a window of 12 downgrades
    /// flows whose data are still on their way: web search at 0.6, mean slowdown 1.86 against 1.40).
    pub const DEFAULT: PhostConfig = PhostConfig {
        free_tokens: 12,
        token_expiry_mtus: 1.5,
        window: 16,
        downgrade_mtus: 25.0,
        resend_mtus: 9.0,
        short_data_pkts: 0,
        free_for_long_flows: true,
    };

    /// In picoseconds, on hosts whose links run at `host_rate_bps`.
    pub fn params(&self, host_rate_bps: u64, format: crate::net::packet::PacketFormat) -> PhostParams {
        let mtu = crate::sim::time::serialization_ps(format.full_wire_bytes() as u64, host_rate_bps);
        let times = |m: f64| (m * mtu as f64).round() as Time;
        let header = crate::sim::time::serialization_ps(format.control_wire_bytes() as u64, host_rate_bps);
        PhostParams {
            token_wire_bytes: format.control_wire_bytes(),
            free_tokens: self.free_tokens,
            token_interval: mtu,
            grant_interval: mtu + header,
            token_expiry: times(self.token_expiry_mtus),
            window: self.window,
            downgrade_time: times(self.downgrade_mtus),
            resend_after: times(self.resend_mtus),
            short_data_pkts: self.short_data_pkts,
            free_for_long_flows: self.free_for_long_flows,
        }
    }
}

/// pHost's parameters, times in picoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhostParams {
    /// Packets a flow sends before any token (the paper: one BDP).
    pub free_tokens: u32,
    /// A token's wire bytes: headers alone.
    pub token_wire_bytes: u32,
    /// An MTU's wire time at the host link rate: the unit of the other times, and a sender's pace.
    pub token_interval: Time,
    /// Between two tokens of one receiver: an MTU's wire time plus a header's, so that the data the tokens call
    /// in, with the tokens and ACKs beside them, fit the link (the authors' 1500 + 40 bytes).
    pub grant_interval: Time,
    /// How long a token may be spent after the receiver sent it.
    pub token_expiry: Time,
    /// How far a flow's tokens may run ahead of the highest one its data have echoed before it is downgraded.
    pub window: u32,
    /// How long a downgraded flow gets no token, counted from its last one.
    pub downgrade_time: Time,
    /// After every packet is granted, how long after its last token the receiver grants the holes again.
    pub resend_after: Time,
    /// Flows of at most this many packets send data at `DATA_PRIORITY`, the others at `LONG_DATA_PRIORITY`
    /// (0: every flow at `DATA_PRIORITY`).
    pub short_data_pkts: u32,
    /// See [`PhostConfig::free_for_long_flows`].
    pub free_for_long_flows: bool,
}

impl PhostParams {
    /// How many of a flow's `npkts` packets go on its free tokens.
    pub fn free_count(&self, npkts: u32) -> u32 {
        if npkts > self.free_tokens && !self.free_for_long_flows {
            return 0;
        }
        npkts.min(self.free_tokens)
    }
}

/// Permission to send packet `seq` of `flow` until `expires` (its arrival at the sender plus `token_expiry`);
/// `index` numbers the flow's tokens from 0 (its free ones first), and the data packet echoes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub flow: u32,
    pub seq: u32,
    pub expires: Time,
    pub index: u32,
}

/// The free tokens of a flow of `npkts` packets opening at `now`: packets 0.., numbered 0.., each valid until the
/// free packets' wire time plus a token's lifetime has passed.
pub fn free_tokens(flow: u32, npkts: u32, now: Time, p: &PhostParams) -> impl Iterator<Item = Token> {
    let count = p.free_count(npkts);
    let expires = now + count as Time * p.token_interval + p.token_expiry;
    (0..count).map(move |i| Token { flow, seq: i, expires, index: i })
}

impl Sender {
    /// pHost: the RTS (its `ack` field announces the flow's packets). Its free packets go as its free tokens
    /// are spent ([`free_tokens`], held by the engine's token store).
    pub(super) fn phost_start(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        let mut rts = self.probe_packet(now, p);
        rts.priority = 0;
        rts.ack = self.sb.npkts;
        out.push(rts);
    }

    /// pHost: spend `token` (None if the flow no longer needs it). The packet's `ack` field echoes the token's
    /// number (its receiver's downgrade rule reads it).
    pub fn phost_send(&mut self, token: &Token, now: Time, p: &TransportParams) -> Option<Packet> {
        let seq = token.seq;
        if self.sb.all_acked() || seq >= self.sb.npkts {
            return None;
        }
        // The receiver grants a flow's packets in order the first time: one below `nxt` is a resend.
        let retransmit = seq < self.sb.nxt;
        if retransmit {
            self.retransmissions += 1;
        } else {
            self.sb.nxt = seq + 1;
        }
        let mut pkt = self.data_packet(seq, now, retransmit, p);
        let short = p.phost.short_data_pkts == 0 || self.sb.npkts <= p.phost.short_data_pkts;
        pkt.priority = if short { DATA_PRIORITY } else { LONG_DATA_PRIORITY };
        pkt.ack = token.index;
        Some(pkt)
    }

    /// Packets the sender has not seen acknowledged (what a token's remaining size is compared by).
    pub fn phost_remaining(&self) -> u32 {
        self.sb.npkts - self.sb.una
    }
}

/// The packet index an RTS carries no data for.
pub const RTS_SEQ: u32 = receiver::PROBE_SEQ;

/// One flow coming into the receiver.
#[derive(Clone, Debug)]
struct Incoming {
    flow: u32,
    /// The sending host, where its tokens go.
    src: u32,
    npkts: u32,
    got: BitSet,
    received: u32,
    /// Packets granted: the free ones at the start, then one per token.
    granted: BitSet,
    /// Every packet below it is received or granted (where the search for the next one to grant starts).
    cursor: u32,
    /// Tokens issued, its free ones included: the next token's number.
    issued: u32,
    /// One more than the highest token number its data have echoed, counted from its free tokens (its sender's
    /// own, which the window does not count).
    echoed: u32,
    last_token: Option<Time>,
    /// No token before this: the flow's free packets are still leaving its sender.
    first_grant_at: Time,
    started: Time,
    /// From a token leaving the receiver to its packet arriving there, on an idle path.
    token_loop: Time,
}

impl Incoming {
    fn remaining(&self) -> u32 {
        self.npkts - self.received
    }

    /// The first packet neither received nor granted, if any (found from the cursor, which it moves up to it).
    fn next_ungranted(&mut self) -> Option<u32> {
        while self.cursor < self.npkts && (self.got.get(self.cursor) || self.granted.get(self.cursor)) {
            self.cursor += 1;
        }
        (self.cursor < self.npkts).then_some(self.cursor)
    }

    /// Tokens issued beyond the window ahead of the highest echo: the flow is downgraded.
    fn downgraded(&self, p: &PhostParams) -> bool {
        self.issued - self.echoed > p.window
    }

    /// When this flow may next get a token (None: it waits for data, not for time).
    fn eligible_at(&mut self, p: &PhostParams) -> Option<Time> {
        if self.received == self.npkts {
            return None;
        }
        let last = self.last_token.unwrap_or(self.started);
        let mut at = self.first_grant_at;
        if self.downgraded(p) {
            at = at.max(last + p.downgrade_time);
        }
        if self.next_ungranted().is_none() {
            // Everything granted, something missing: the holes again, once the sender has had its chance.
            at = at.max(last + p.resend_after);
        }
        Some(at)
    }
}

/// What a receiving host grants: one token per packet time to its incoming flows, SRPT first.
#[derive(Clone, Debug)]
pub struct TokenScheduler {
    params: PhostParams,
    flows: Vec<Incoming>,
}

/// What the receiver does after a packet arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// Already held, or unknown to the scheduler.
    Old,
    New,
    /// The flow's first data packet: its first grant may be due now (see [`TokenScheduler::open`]).
    First,
    /// The flow's last missing packet: it leaves the scheduler.
    Completes,
}

impl TokenScheduler {
    pub fn new(params: PhostParams) -> Self {
        TokenScheduler { params, flows: Vec::new() }
    }

    pub fn active_flows(&self) -> usize {
        self.flows.len()
    }

    fn find(&self, flow: u32) -> Option<usize> {
        self.flows.iter().position(|f| f.flow == flow)
    }

    /// A flow's RTS (or, if it is lost, its first data packet) announces it: `npkts` packets from `src`, the
    /// first `free_tokens` of them already granted (its sender's free tokens), so no grant before their wire
    /// time has passed or the first of them has arrived. False if the flow was already open.
    /// `token_loop` is the flow's token loop on an idle path (a token's trip to the sender, its packet's back).
    pub fn open(&mut self, flow: u32, src: u32, npkts: u32, now: Time, token_loop: Time) -> bool {
        if self.find(flow).is_some() {
            return false;
        }
        let free = self.params.free_count(npkts);
        let mut granted = BitSet::with_len(npkts as usize);
        for i in 0..free {
            granted.set(i);
        }
        self.flows.push(Incoming {
            flow,
            src,
            npkts,
            got: BitSet::with_len(npkts as usize),
            received: 0,
            granted,
            cursor: 0,
            issued: free,
            echoed: free,
            last_token: None,
            first_grant_at: now + free as Time * self.params.token_interval,
            started: now,
            token_loop,
        });
        true
    }

    /// Data packet `seq` of `flow` arrived, spending the flow's token number `token`.
    pub fn on_data(&mut self, flow: u32, seq: u32, token: u32) -> Received {
        let Some(i) = self.find(flow) else { return Received::Old };
        let f = &mut self.flows[i];
        f.echoed = f.echoed.max(token.saturating_add(1).min(f.issued));
        if seq >= f.npkts || !f.got.set(seq) {
            return Received::Old;
        }
        f.received += 1;
        if f.received == f.npkts {
            self.flows.swap_remove(i);
            return Received::Completes;
        }
        if f.received == 1 && f.first_grant_at > f.started && f.npkts > self.params.free_tokens {
            f.first_grant_at = f.started;
            return Received::First;
        }
        Received::New
    }

    /// The token to send at `now`, and the host it goes to, if any flow may have one; the flow's state moves on
    /// as if it was sent. Its expiry is counted from `now`; the sender counts it again from the token's arrival.
    pub fn grant(&mut self, now: Time) -> Option<(Token, u32)> {
        let p = self.params;
        let mut best: Option<(usize, (u32, Time, u32))> = None;
        for (i, f) in self.flows.iter_mut().enumerate() {
            if f.eligible_at(&p).is_some_and(|t| t <= now) {
                let key = (f.remaining(), f.started, f.flow);
                if best.is_none_or(|(_, k)| key < k) {
                    best = Some((i, key));
                }
            }
        }
        let (best, _) = best?;
        let f = &mut self.flows[best];
        let seq = match f.next_ungranted() {
            Some(seq) => seq,
            None => {
                // Grant the holes again from the first.
                f.granted = f.got.clone();
                f.cursor = 0;
                f.next_ungranted().expect("an unfinished flow has a hole")
            }
        };
        if f.downgraded(&p) {
            // Its downgrade time is over: one token, which leaves it a window ahead again.
            f.echoed = f.issued - p.window;
        }
        f.granted.set(seq);
        f.last_token = Some(now);
        let index = f.issued;
        f.issued += 1;
        Some((Token { flow: f.flow, seq, expires: now + p.token_expiry, index }, f.src))
    }

    /// Whether flow `flow` is open here.
    pub fn is_open(&self, flow: u32) -> bool {
        self.find(flow).is_some()
    }

    /// Flow `flow`'s token loop as opened (0 if it is not here).
    pub fn token_loop(&self, flow: u32) -> Time {
        self.find(flow).map_or(0, |i| self.flows[i].token_loop)
    }

    /// Packets flow `flow` still misses (0 if it is not here).
    pub fn missing(&self, flow: u32) -> u32 {
        self.find(flow).map_or(0, |i| self.flows[i].remaining())
    }

    /// The earliest time after `now` at which some flow becomes eligible for a token, if none is now and one will
    /// be without new arrivals (a downgrade ending, a resend coming due).
    pub fn next_eligible(&mut self, now: Time) -> Option<Time> {
        let p = self.params;
        self.flows.iter_mut().filter_map(|f| f.eligible_at(&p)).map(|t| t.max(now)).min()
    }
}

/// The tokens a sending host holds, spent one per packet time: the flow with the least remaining first.
#[derive(Clone, Debug, Default)]
pub struct TokenStore {
    /// (flow's remaining packets when the token came, token).
    held: Vec<(u32, Token)>,
}

impl TokenStore {
    pub fn len(&self) -> usize {
        self.held.len()
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// A token arrived for a flow with `remaining` packets not yet acknowledged.
    pub fn add(&mut self, token: Token, remaining: u32) {
        self.held.push((remaining, token));
    }

    /// The token to spend at `now`: expired ones are dropped, then the least remaining (ties: earlier expiry,
    /// lower flow, lower packet) is taken.
    pub fn take(&mut self, now: Time) -> Option<Token> {
        self.held.retain(|(_, t)| t.expires > now);
        let best = self
            .held
            .iter()
            .enumerate()
            .min_by_key(|(_, (remaining, t))| (*remaining, t.expires, t.flow, t.seq))
            .map(|(i, _)| i)?;
        Some(self.held.swap_remove(best).1)
    }

    /// Drop every token of `flow` (it finished).
    pub fn forget(&mut self, flow: u32) {
        self.held.retain(|(_, t)| t.flow != flow);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: Time = 1_200_000; // 1500 bytes at 10 Gbps, ps

    fn params() -> PhostParams {
        PhostParams {
            free_tokens: 2,
            token_wire_bytes: 40,
            token_interval: MTU,
            grant_interval: MTU + 32_000,
            token_expiry: 3 * MTU / 2,
            window: 3,
            downgrade_time: 25 * MTU,
            resend_after: 9 * MTU,
            short_data_pkts: 0,
            free_for_long_flows: true,
        }
    }

    #[test]
    fn tokens_go_to_the_flow_with_the_fewest_packets_missing_after_its_free_ones() {
        let mut s = TokenScheduler::new(params());
        s.open(7, 1, 10, 0, 0);
        s.open(8, 2, 4, 0, 0);
        // Packets 0-1 of each are free: no grant before their wire time.
        assert!(s.grant(0).is_none());
        assert_eq!(s.next_eligible(0), Some(2 * MTU));
        let (t, to) = s.grant(2 * MTU).unwrap();
        assert_eq!((t.flow, t.seq, t.index, t.expires, to), (8, 2, 2, 2 * MTU + 3 * MTU / 2, 2));
        let (t, _) = s.grant(3 * MTU).unwrap();
        assert_eq!((t.flow, t.seq, t.index), (8, 3, 3));
        // Flow 8 has nothing left to grant until the resend timer: flow 7 gets the next token.
        let (t, _) = s.grant(4 * MTU).unwrap();
        assert_eq!((t.flow, t.seq, t.index), (7, 2, 2));
    }

    #[test]
    fn a_flows_first_data_packet_makes_its_first_grant_due() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 10, 0, 0);
        assert!(s.grant(MTU / 2).is_none());
        assert_eq!(s.on_data(1, 0, 0), Received::First);
        assert_eq!(s.grant(MTU / 2).map(|(t, _)| t.seq), Some(2));
        assert_eq!(s.on_data(1, 1, 1), Received::New);
    }

    #[test]
    fn the_free_tokens_number_the_flows_first_packets_and_expire_after_their_wire_time() {
        let p = params();
        let tokens: Vec<Token> = free_tokens(5, 10, 7, &p).collect();
        let expires = 7 + 2 * MTU + 3 * MTU / 2;
        assert_eq!(
            tokens,
            vec![Token { flow: 5, seq: 0, expires, index: 0 }, Token { flow: 5, seq: 1, expires, index: 1 }]
        );
        assert_eq!(free_tokens(5, 1, 0, &p).count(), 1);
    }

    #[test]
    fn under_the_authors_simulators_rule_only_flows_that_fit_in_the_free_tokens_get_them() {
        let p = PhostParams { free_for_long_flows: false, ..params() };
        assert_eq!(free_tokens(5, 2, 0, &p).count(), 2);
        assert_eq!(free_tokens(5, 3, 0, &p).count(), 0);
        // Its receiver grants such a flow from its RTS: nothing is free to wait for.
        let mut s = TokenScheduler::new(p);
        s.open(5, 1, 3, 0, 0);
        let (token, host) = s.grant(0).expect("a grant at the RTS");
        assert_eq!((token.flow, token.seq, token.index, host), (5, 0, 0, 1));
    }

    #[test]
    fn a_flow_completes_when_its_last_packet_arrives_and_leaves_the_scheduler() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 2, 0, 0);
        assert_eq!(s.on_data(1, 0, 0), Received::New);
        assert_eq!(s.on_data(1, 0, 0), Received::Old);
        assert_eq!(s.on_data(1, 1, 1), Received::Completes);
        assert_eq!(s.active_flows(), 0);
        assert_eq!(s.on_data(1, 1, 1), Received::Old);
        assert!(s.grant(0).is_none());
    }

    #[test]
    fn a_flow_whose_tokens_run_past_its_window_is_downgraded_to_one_token_per_downgrade_time() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 100, 0, 0);
        s.on_data(1, 0, 0); // its free tokens (0-1) are its sender's own: the window counts from token 2
        for k in 0..4 {
            assert_eq!(s.grant(k * MTU).unwrap().0.index, 2 + k as u32);
        }
        // Tokens 2-5 issued, none echoed: 4 ahead, over the window of 3.
        assert!(s.grant(4 * MTU).is_none());
        assert_eq!(s.next_eligible(4 * MTU), Some(3 * MTU + 25 * MTU));
        // After the downgrade time: one token, then the wait again.
        assert_eq!(s.grant(28 * MTU).unwrap().0.index, 6);
        assert!(s.grant(29 * MTU).is_none());
        assert_eq!(s.next_eligible(29 * MTU), Some(53 * MTU));
        // Its data catch up: tokens flow again at once.
        s.on_data(1, 6, 6);
        assert_eq!(s.grant(30 * MTU).unwrap().0.index, 7);
    }

    #[test]
    fn data_echoing_their_tokens_keep_a_flow_within_its_window() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 100, 0, 0);
        s.on_data(1, 0, 0);
        s.on_data(1, 1, 1);
        for k in 0..10 {
            let (t, _) = s.grant(k * MTU).unwrap();
            s.on_data(1, t.seq, t.index);
        }
    }

    #[test]
    fn holes_are_granted_again_after_the_resend_time() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 3, 0, 0);
        s.on_data(1, 0, 0);
        let (t, _) = s.grant(0).unwrap();
        assert_eq!(t.seq, 2);
        // Packets 1 (free) and 2 (granted) never arrive: no token until 9 MTU-times after the last.
        assert!(s.grant(MTU).is_none());
        assert_eq!(s.next_eligible(MTU), Some(9 * MTU));
        let (t, _) = s.grant(9 * MTU).unwrap();
        assert_eq!(t.seq, 1);
        let (t, _) = s.grant(10 * MTU).unwrap();
        assert_eq!(t.seq, 2);
    }

    #[test]
    fn a_flow_within_its_free_tokens_is_granted_its_holes_only_after_their_wire_time_and_the_resend_time() {
        let p = PhostParams { free_tokens: 12, ..params() };
        let mut s = TokenScheduler::new(p);
        s.open(1, 0, 12, 0, 0);
        assert_eq!(s.on_data(1, 0, 0), Received::New); // no grant to hurry: every packet is free
        assert_eq!(s.next_eligible(0), Some(12 * MTU));
        assert_eq!(s.grant(12 * MTU).map(|(t, _)| t.seq), Some(1));
    }

    #[test]
    fn the_sender_spends_the_shortest_flows_unexpired_token_first() {
        let mut store = TokenStore::default();
        store.add(Token { flow: 1, seq: 5, expires: 10, index: 5 }, 50);
        store.add(Token { flow: 2, seq: 0, expires: 3, index: 0 }, 2);
        store.add(Token { flow: 3, seq: 1, expires: 20, index: 1 }, 7);
        assert_eq!(store.take(5).map(|t| t.flow), Some(3)); // flow 2's token expired at 3
        assert_eq!(store.take(5).map(|t| t.flow), Some(1));
        assert!(store.take(5).is_none());
        store.add(Token { flow: 4, seq: 0, expires: 30, index: 0 }, 1);
        store.forget(4);
        assert!(store.is_empty());
    }
}
