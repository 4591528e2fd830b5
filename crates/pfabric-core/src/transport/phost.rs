//! pHost's two schedulers (Gao et al., "pHost: Distributed Near-Optimal Datacenter Transport Over Commodity
//! Network Fabric", CoNEXT 2015), as state machines a host drives: the receiver's [`TokenScheduler`], which
//! grants one packet per packet time to the flows coming in, and the sender's [`TokenStore`], which spends the
//! tokens it holds. Rules as the authors' simulator runs them (NetSys/simulator, the "Capability" flow and host:
//! `ext/capabilityflow.cpp`, `ext/capabilityhost.cpp`; docs/receiver-driven-notes.md):
//!
//! - A flow opens with an RTS and may send its first `free_tokens` packets at once, without tokens.
//! - The receiver sends one token per MTU wire time of its link, to the flow with the fewest packets not yet
//!   received (SRPT; ties to the earlier start, then the lower flow id). A token names the next packet not yet
//!   received and not yet granted, and expires `token_expiry` after it reaches the sender.
//! - A flow whose sender leaves more than `window` tokens unanswered (granted since its last data arrival) is
//!   downgraded: no tokens for `downgrade_time` after its last one, so a busy sender does not hold the
//!   receiver's link idle.
//! - Once every packet is granted but some never arrived, `resend_after` after the flow's last token the
//!   receiver grants the holes again (pHost has no sender timeout).
//! - The sender spends its unexpired tokens one per packet time, the flow with the least remaining first.
//!
//! The engine owns the timers and the packets; these types only decide.

use super::bitset::BitSet;
use super::{receiver, Sender, TransportParams};
use crate::net::packet::Packet;
use crate::sim::time::Time;

/// The priority number of pHost's data packets: below its control packets (RTS, tokens, ACKs: 0), all alike,
/// as the authors' simulator stamps them.
pub const DATA_PRIORITY: u64 = 1;

/// pHost's parameters as a scenario gives them: times in MTU wire times of the host link (the authors' unit).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhostConfig {
    pub free_tokens: u32,
    pub token_expiry_mtus: f64,
    pub window: u32,
    pub downgrade_mtus: f64,
    pub resend_mtus: f64,
}

impl PhostConfig {
    /// The authors' defaults (py/run_experiments.py), with their free tokens and window, one BDP each at their 40
    /// Gbps (8 packets), taken as one BDP on the pFabric paper's fabric (18 KB: 12 packets). (A window of 8 here
    /// downgrades flows whose first tokens are still on their way: mean slowdown 1.80 against 1.59, web search
    /// at 0.6.)
    pub const DEFAULT: PhostConfig =
        PhostConfig { free_tokens: 12, token_expiry_mtus: 1.5, window: 12, downgrade_mtus: 25.0, resend_mtus: 9.0 };

    /// In picoseconds, on hosts whose links run at `host_rate_bps`.
    pub fn params(&self, host_rate_bps: u64) -> PhostParams {
        let mtu = crate::sim::time::serialization_ps(
            crate::net::packet::wire_bytes(crate::net::packet::MSS_BYTES) as u64,
            host_rate_bps,
        );
        let times = |m: f64| (m * mtu as f64).round() as Time;
        PhostParams {
            free_tokens: self.free_tokens,
            token_interval: mtu,
            token_expiry: times(self.token_expiry_mtus),
            window: self.window,
            downgrade_time: times(self.downgrade_mtus),
            resend_after: times(self.resend_mtus),
        }
    }
}

/// pHost's parameters, times in picoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PhostParams {
    /// Packets a flow sends before any token (the paper: one BDP).
    pub free_tokens: u32,
    /// Between two tokens of one receiver: an MTU's wire time at its link rate.
    pub token_interval: Time,
    /// How long a token may be spent after the receiver sent it.
    pub token_expiry: Time,
    /// Tokens a flow may leave unanswered before it is downgraded.
    pub window: u32,
    /// How long a downgraded flow gets no token, counted from its last one.
    pub downgrade_time: Time,
    /// After every packet is granted, how long after its last token the receiver grants the holes again.
    pub resend_after: Time,
}

/// Permission to send packet `seq` of `flow` until `expires` (its arrival at the sender plus `token_expiry`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub flow: u32,
    pub seq: u32,
    pub expires: Time,
}

impl Sender {
    /// pHost: the RTS (its `ack` field announces the flow's packets), then the free packets at once.
    pub(super) fn phost_start(&mut self, now: Time, p: &TransportParams, out: &mut Vec<Packet>) {
        let mut rts = self.probe_packet(now, p);
        rts.priority = 0;
        rts.ack = self.sb.npkts;
        out.push(rts);
        for _ in 0..self.sb.npkts.min(p.phost.free_tokens) {
            let i = self.sb.send_new();
            let mut pkt = self.data_packet(i, now, false, p);
            pkt.priority = DATA_PRIORITY;
            out.push(pkt);
        }
    }

    /// pHost: spend a token on packet `seq` (None if the flow no longer needs it).
    pub fn phost_send(&mut self, seq: u32, now: Time, p: &TransportParams) -> Option<Packet> {
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
        pkt.priority = DATA_PRIORITY;
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
    /// Tokens sent since the flow's last data arrival.
    unanswered: u32,
    last_token: Option<Time>,
    /// No token before this (a downgraded flow).
    blocked_until: Time,
    started: Time,
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

    /// When this flow may next get a token (None: it waits for data, not for time).
    fn eligible_at(&mut self, p: &PhostParams) -> Option<Time> {
        if self.received == self.npkts {
            return None;
        }
        if self.next_ungranted().is_some() {
            return Some(self.blocked_until);
        }
        // Everything granted, something missing: the holes again, once the sender has had its chance.
        let last = self.last_token.unwrap_or(self.started);
        Some(self.blocked_until.max(last + p.resend_after))
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
    /// first `free_tokens` of them already granted.
    pub fn open(&mut self, flow: u32, src: u32, npkts: u32, now: Time) {
        if self.find(flow).is_some() {
            return;
        }
        let mut granted = BitSet::with_len(npkts as usize);
        for i in 0..npkts.min(self.params.free_tokens) {
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
            unanswered: 0,
            last_token: None,
            blocked_until: now,
            started: now,
        });
    }

    /// Data packet `seq` of `flow` arrived.
    pub fn on_data(&mut self, flow: u32, seq: u32) -> Received {
        let Some(i) = self.find(flow) else { return Received::Old };
        let f = &mut self.flows[i];
        if seq >= f.npkts || !f.got.set(seq) {
            return Received::Old;
        }
        f.received += 1;
        f.unanswered = 0;
        if f.received == f.npkts {
            self.flows.swap_remove(i);
            Received::Completes
        } else {
            Received::New
        }
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
        f.granted.set(seq);
        f.last_token = Some(now);
        f.unanswered += 1;
        if f.unanswered > p.window {
            f.blocked_until = now + p.downgrade_time;
            f.unanswered = 0;
        }
        Some((Token { flow: f.flow, seq, expires: now + p.token_expiry }, f.src))
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
            token_interval: MTU,
            token_expiry: 3 * MTU / 2,
            window: 3,
            downgrade_time: 25 * MTU,
            resend_after: 9 * MTU,
        }
    }

    #[test]
    fn tokens_go_to_the_flow_with_the_fewest_packets_missing_after_its_free_ones() {
        let mut s = TokenScheduler::new(params());
        s.open(7, 1, 10, 0);
        s.open(8, 2, 4, 0);
        let (t, to) = s.grant(0).unwrap();
        assert_eq!((t.flow, t.seq, t.expires, to), (8, 2, 3 * MTU / 2, 2)); // packets 0-1 were free
        let (t, _) = s.grant(MTU).unwrap();
        assert_eq!((t.flow, t.seq), (8, 3));
        // Flow 8 has nothing left to grant until the resend timer: flow 7 gets the next token.
        let (t, _) = s.grant(2 * MTU).unwrap();
        assert_eq!((t.flow, t.seq), (7, 2));
    }

    #[test]
    fn a_flow_completes_when_its_last_packet_arrives_and_leaves_the_scheduler() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 2, 0);
        assert_eq!(s.on_data(1, 0), Received::New);
        assert_eq!(s.on_data(1, 0), Received::Old);
        assert_eq!(s.on_data(1, 1), Received::Completes);
        assert_eq!(s.active_flows(), 0);
        assert_eq!(s.on_data(1, 1), Received::Old);
        assert!(s.grant(0).is_none());
    }

    #[test]
    fn a_sender_that_leaves_more_than_a_window_unanswered_is_downgraded() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 100, 0);
        for k in 0..4 {
            assert_eq!(s.grant(k * MTU).unwrap().0.flow, 1);
        }
        // The fourth token exceeded the window of 3: nothing until 25 MTU-times after it.
        assert!(s.grant(4 * MTU).is_none());
        assert_eq!(s.next_eligible(4 * MTU), Some(3 * MTU + 25 * MTU));
        assert!(s.grant(28 * MTU).is_some());
    }

    #[test]
    fn data_arriving_keeps_a_flow_within_its_window() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 100, 0);
        for k in 0..10 {
            let (t, _) = s.grant(k * MTU).unwrap();
            s.on_data(1, t.seq);
        }
    }

    #[test]
    fn holes_are_granted_again_after_the_resend_time() {
        let mut s = TokenScheduler::new(params());
        s.open(1, 0, 3, 0);
        s.on_data(1, 0);
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
    fn the_sender_spends_the_shortest_flows_unexpired_token_first() {
        let mut store = TokenStore::default();
        store.add(Token { flow: 1, seq: 5, expires: 10 }, 50);
        store.add(Token { flow: 2, seq: 0, expires: 3 }, 2);
        store.add(Token { flow: 3, seq: 1, expires: 20 }, 7);
        assert_eq!(store.take(5).map(|t| t.flow), Some(3)); // flow 2's token expired at 3
        assert_eq!(store.take(5).map(|t| t.flow), Some(1));
        assert!(store.take(5).is_none());
        store.add(Token { flow: 4, seq: 0, expires: 30 }, 1);
        store.forget(4);
        assert!(store.is_empty());
    }
}
