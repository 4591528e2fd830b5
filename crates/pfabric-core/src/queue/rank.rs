//! Rank computation for the programmable schedulers (PIFO, SP-PIFO, AIFO, PIEO), kept apart from the queues.
//!
//! PIFO (Sivaraman et al., SIGCOMM 2016) splits a scheduler into a *rank function*, run at enqueue, and a
//! queue that orders or admits by rank; the AIFO paper (SIGCOMM 2021, section 5.1) runs the same rank
//! functions on each of its queues. A [`Ranker`] is one port's rank function and the state it keeps:
//! - [`Ranker::Srpt`]: rank = the packet's `priority` field, which pFabric-style hosts set to the flow's
//!   remaining size (smaller is more urgent; ACKs carry 0).
//! - [`Ranker::Stfq`]: start-time fair queueing (Goyal et al., SIGCOMM 1996), as the PIFO paper writes it and
//!   the AIFO authors' code runs it: a per-port virtual time V (the start tag of the last packet dequeued) and
//!   a per-flow finish tag F; an arrival's rank is its start tag `max(V, F[flow])`, and `F[flow]` grows by the
//!   packet's wire bytes (every flow has weight 1).
//! - [`Ranker::Fifo`]: rank = arrival order, which turns any of the queues into a FIFO (a baseline).
//!
//! Where this departs from, or pins down, the AIFO authors' code:
//! - A dropped packet should not keep its flow's finish tag advanced: the authors subtract the packet's size
//!   from `F[flow]` on every drop, and [`Ranker::on_drop`] does the same. The queue's caller invokes it.
//! - V is set to the start tag of each dequeued packet, not to a running maximum, as the authors do: behind a
//!   FIFO (AIFO) or SP-PIFO's inversions it can step back.
//! - The per-flow map is bounded: a flow whose finish tag is <= V ranks exactly as an unknown flow (its start
//!   is V either way), so such flows are forgotten, in an amortized sweep when the map has doubled. This is
//!   exact while V does not step back; when V steps back below a forgotten flow's finish tag, that flow starts
//!   at the lower V instead of its old tag (a difference of at most the step). V moves only when a packet
//!   that started after V is served, so a port that only ever sees one-packet flows arriving to an empty
//!   queue keeps one entry per flow (each flow's tag is V + its size): the map stays exact there, not small.
//! - Every packet is ranked alike, ACKs included (they form their own flows at a port, as data and ACKs of one
//!   flow leave through different ports); under SRPT they carry 0 and so go first.

use std::collections::HashMap;

use crate::net::packet::Packet;

/// Which rank function a port runs: the plain, copyable choice a configuration names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RankKind {
    Srpt,
    Stfq,
    Fifo,
}

/// One port's rank function and its state.
#[derive(Clone, Debug)]
pub enum Ranker {
    /// Rank = the packet's priority number (remaining flow size).
    Srpt,
    /// Start-time fair queueing.
    Stfq(Stfq),
    /// Rank = arrival order at this port: the next rank to hand out.
    Fifo { next: u64 },
}

impl Ranker {
    pub fn new(kind: RankKind) -> Self {
        match kind {
            RankKind::Srpt => Ranker::Srpt,
            RankKind::Stfq => Ranker::Stfq(Stfq::new()),
            RankKind::Fifo => Ranker::Fifo { next: 0 },
        }
    }

    /// The rank of arrival `p` at this port (smaller is served first); updates the function's state.
    #[inline]
    pub fn rank(&mut self, p: &Packet) -> u64 {
        match self {
            Ranker::Srpt => p.priority,
            Ranker::Stfq(s) => s.rank(p.flow, p.wire),
            Ranker::Fifo { next } => {
                let r = *next;
                *next += 1;
                r
            }
        }
    }

    /// A packet of rank `rank` left the queue for the wire.
    #[inline]
    pub fn on_dequeue(&mut self, rank: u64) {
        if let Ranker::Stfq(s) = self {
            s.on_dequeue(rank);
        }
    }

    /// Packet `p`, ranked by this function, was dropped (the arrival, or a queued packet pushed out): give back
    /// the share of virtual time it had claimed for its flow.
    #[inline]
    pub fn on_drop(&mut self, p: &Packet) {
        if let Ranker::Stfq(s) = self {
            s.on_drop(p.flow, p.wire);
        }
    }
}

/// Start-time fair queueing state: virtual time and per-flow finish tags, in wire bytes.
#[derive(Clone, Debug, Default)]
pub struct Stfq {
    /// V: the start tag of the last packet dequeued.
    virtual_time: u64,
    finish: FlowTags,
}

impl Stfq {
    pub fn new() -> Self {
        Self::default()
    }

    /// Start tag of an arrival of `flow` carrying `wire` bytes; the flow's finish tag moves past it.
    #[inline]
    pub fn rank(&mut self, flow: u32, wire: u32) -> u64 {
        let start = self.finish.get(flow).map_or(self.virtual_time, |f| f.max(self.virtual_time));
        self.finish.set(flow, start + wire as u64, self.virtual_time);
        start
    }

    #[inline]
    pub fn on_dequeue(&mut self, start: u64) {
        self.virtual_time = start;
    }

    #[inline]
    pub fn on_drop(&mut self, flow: u32, wire: u32) {
        self.finish.rewind(flow, wire as u64);
    }

    pub fn virtual_time(&self) -> u64 {
        self.virtual_time
    }

    /// Flows whose finish tag is remembered.
    pub fn flows(&self) -> usize {
        self.finish.len()
    }
}

/// A per-flow tag (a finish tag, a bid) that counts only while above a floor that the owner raises: tags at
/// or below the floor are forgotten, since the owner treats a missing flow as one at the floor. Sweeps run
/// when the map has doubled since the last one, so their cost is amortized O(1) per insertion; a sweep's
/// outcome does not depend on the map's iteration order, which keeps runs deterministic.
#[derive(Clone, Debug)]
pub(crate) struct FlowTags {
    tags: HashMap<u32, u64>,
    /// Sweep when the map grows past this many flows.
    sweep_above: usize,
}

impl Default for FlowTags {
    fn default() -> Self {
        FlowTags { tags: HashMap::new(), sweep_above: FlowTags::MIN_SWEEP }
    }
}

impl FlowTags {
    /// Below this many flows, never sweep: a small map costs nothing.
    const MIN_SWEEP: usize = 64;

    #[inline]
    pub(crate) fn get(&self, flow: u32) -> Option<u64> {
        self.tags.get(&flow).copied()
    }

    /// Record `tag` for `flow`; forget the flows at or below `floor` if the map has doubled.
    #[inline]
    pub(crate) fn set(&mut self, flow: u32, tag: u64, floor: u64) {
        self.tags.insert(flow, tag);
        if self.tags.len() > self.sweep_above {
            self.tags.retain(|_, &mut t| t > floor);
            self.sweep_above = (2 * self.tags.len()).max(Self::MIN_SWEEP);
        }
    }

    /// Move `flow`'s tag back by `by` (a flow already forgotten stays forgotten).
    #[inline]
    pub(crate) fn rewind(&mut self, flow: u32, by: u64) {
        if let Some(t) = self.tags.get_mut(&flow) {
            *t = t.saturating_sub(by);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.tags.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketKind;
    use crate::queue::testing::data_packet;

    #[test]
    fn srpt_ranks_by_the_priority_field() {
        let mut r = Ranker::new(RankKind::Srpt);
        assert_eq!(r.rank(&data_packet(1, 0, 4380)), 4380);
        let mut ack = data_packet(1, 0, 0);
        ack.kind = PacketKind::Ack;
        assert_eq!(r.rank(&ack), 0);
    }

    #[test]
    fn fifo_ranks_by_arrival_order() {
        let mut r = Ranker::new(RankKind::Fifo);
        let ranks: Vec<u64> = [900, 5, 70].iter().map(|&p| r.rank(&data_packet(p as u32, 0, p))).collect();
        assert_eq!(ranks, [0, 1, 2]);
    }

    #[test]
    fn stfq_alternates_two_backlogged_flows_of_equal_packets() {
        // Two flows dump three 1500 B packets each; served in rank order (a PIFO), they alternate.
        use crate::net::packet::PacketPool;
        use crate::queue::pifo::Pifo;
        let mut pool = PacketPool::new();
        let mut r = Ranker::new(RankKind::Stfq);
        let mut q = Pifo::new(80);
        for flow in [1, 2] {
            for seq in 0..3 {
                let id = pool.alloc(data_packet(flow, seq, 0));
                let rank = r.rank(pool.get(id));
                assert_eq!(rank, 1500 * seq as u64, "flow {flow} packet {seq}");
                assert_eq!(q.enqueue(id, rank, 1500), None);
            }
        }
        let mut order = Vec::new();
        while let Some((id, rank)) = q.dequeue() {
            r.on_dequeue(rank);
            order.push(pool.get(id).flow);
        }
        assert_eq!(order, [1, 2, 1, 2, 1, 2]);
    }

    #[test]
    fn stfq_starts_a_new_flow_at_virtual_time_without_credit() {
        let mut s = Stfq::new();
        assert_eq!(s.rank(1, 1500), 0);
        assert_eq!(s.rank(1, 1500), 1500);
        assert_eq!(s.rank(1, 1500), 3000);
        s.on_dequeue(0);
        s.on_dequeue(1500);
        // Flow 2 was idle: it starts at V = 1500, not at 0, so it cannot burst ahead on saved-up credit.
        assert_eq!(s.rank(2, 1500), 1500);
        // Flow 1 is still backlogged: its own finish tag, 4500, is past V.
        assert_eq!(s.rank(1, 1500), 4500);
        assert_eq!(s.virtual_time(), 1500);
    }

    #[test]
    fn stfq_drop_gives_back_the_flows_virtual_time() {
        let mut r = Ranker::new(RankKind::Stfq);
        let p = data_packet(7, 0, 0);
        assert_eq!(r.rank(&p), 0);
        assert_eq!(r.rank(&p), 1500);
        r.on_drop(&p); // the second was dropped: the next takes its place
        assert_eq!(r.rank(&p), 1500);
    }

    #[test]
    fn stfq_forgets_flows_behind_virtual_time() {
        let mut s = Stfq::new();
        // Many two-packet flows, one after another; V passes each of them as the port drains.
        for flow in 0..10_000u32 {
            let first = s.rank(flow, 1500);
            let second = s.rank(flow, 1500);
            s.on_dequeue(first);
            s.on_dequeue(second);
        }
        assert!(s.flows() <= 2 * FlowTags::MIN_SWEEP, "map holds {} flows", s.flows());
        // A flow still ahead of V is never forgotten.
        let mut s = Stfq::new();
        for _ in 0..10 {
            s.rank(0, 1500);
        }
        for flow in 1..10_000u32 {
            s.rank(flow, 1500);
        }
        assert_eq!(s.rank(0, 1500), 15_000);
    }

    #[test]
    fn forgetting_does_not_change_ranks_while_v_only_grows() {
        // The same arrivals and departures, with the sweep and with a map that never forgets.
        use crate::sim::rng::Rng;
        let mut rng = Rng::new(3);
        let mut s = Stfq::new();
        let mut full: HashMap<u32, u64> = HashMap::new();
        let mut v = 0u64;
        let mut pending = std::collections::BTreeSet::new();
        for _ in 0..20_000 {
            if rng.below(2) == 0 || pending.is_empty() {
                let flow = rng.below(500) as u32;
                let wire = 40 + rng.below(1461) as u32;
                let start = full.get(&flow).map_or(v, |&f| f.max(v));
                full.insert(flow, start + wire as u64);
                assert_eq!(s.rank(flow, wire), start);
                pending.insert((start, flow, wire));
            } else {
                // Serve the smallest start tag, as a PIFO would: V never steps back.
                let first = *pending.iter().next().unwrap();
                pending.remove(&first);
                v = first.0;
                s.on_dequeue(v);
            }
        }
    }
}
