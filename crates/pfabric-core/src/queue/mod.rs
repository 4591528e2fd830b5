//! Port disciplines: what a port's queue admits, drops and sends next. One file per discipline; the closed set
//! dispatches through the [`Queue`] enum (no vtable per packet). The AIFO paper's rank-based schedulers (PIFO,
//! SP-PIFO, AIFO, PIEO) sit behind [`Ranked`], which pairs one with the port's rank function ([`rank`]).

pub mod afq;
pub mod aifo;
pub mod droptail;
pub mod heap_pifo;
pub mod pfabric;
pub mod pieo;
pub mod pifo;
pub mod prio_thresholds;
pub mod rank;
pub mod sppifo;
pub mod trimming;

use crate::net::packet::{Packet, PacketId, PacketPool};
use crate::sim::time::Time;

pub use afq::Afq;
pub use aifo::Aifo;
pub use droptail::DropTail;
pub use heap_pifo::HeapPifo;
pub use pfabric::PfabricQueue;
pub use pieo::Pieo;
pub use pifo::Pifo;
pub use prio_thresholds::PrioThresholds;
pub use rank::{RankKind, Ranker};
pub use sppifo::SpPifo;
pub use trimming::Trimming;

/// How to build the queue of every port of a run.
#[derive(Clone, Debug, PartialEq)]
pub enum QueueConfig {
    DropTail {
        limit_bytes: u64,
        mark_above_bytes: Option<u64>,
    },
    Pfabric {
        limit_bytes: u64,
    },
    PrioThresholds {
        thresholds: Vec<u64>,
        limit_bytes: u64,
        reserved_bytes: u64,
        /// PIAS: mark ECN above this many bytes at the port.
        mark_above_bytes: Option<u64>,
    },
    /// A rank-based scheduler (the AIFO paper's) fed by a rank function at the port.
    Ranked {
        scheduler: SchedulerConfig,
        rank: RankKind,
        /// Mark an arrival that finds at least this many bytes queued (the AIFO authors' ECN ports).
        mark_at_bytes: Option<u64>,
    },
    Afq {
        queues: usize,
        per_queue_pkts: usize,
        bytes_per_round: u64,
        mark_at_bytes: Option<u64>,
    },
    /// NDP's port: a data queue of `data_pkts` packets that trims what does not fit, and a header queue of
    /// `header_limit_bytes` served `header_ratio` to one (0: strict priority).
    Trimming {
        data_pkts: usize,
        header_limit_bytes: u64,
        header_ratio: u32,
    },
    /// PDQ's port: a DropTail FIFO, with the rate arbitration of `net::pdq_port` on the side.
    DropTailPdq {
        limit_bytes: u64,
        early_start: Time,
        expiry: Time,
    },
}

/// The rank-based schedulers and their sizes (in packets, as the AIFO authors' code counts them).
#[derive(Clone, Debug, PartialEq)]
pub enum SchedulerConfig {
    /// `heap`: the AIFO authors' Java heap (`heap_pifo.rs`) instead of the exact PIFO.
    Pifo {
        capacity_pkts: usize,
        heap: bool,
    },
    SpPifo {
        queues: usize,
        per_queue_pkts: usize,
    },
    Aifo {
        capacity_pkts: usize,
        window: usize,
        sample_every: u32,
        k: f64,
    },
    Pieo {
        capacity_pkts: usize,
    },
}

impl QueueConfig {
    pub fn build(&self) -> Queue {
        match *self {
            QueueConfig::DropTail { limit_bytes, mark_above_bytes } => {
                Queue::DropTail(DropTail::new(limit_bytes, mark_above_bytes))
            }
            QueueConfig::Pfabric { limit_bytes } => Queue::Pfabric(PfabricQueue::new(limit_bytes)),
            QueueConfig::PrioThresholds { ref thresholds, limit_bytes, reserved_bytes, mark_above_bytes } => {
                Queue::PrioThresholds(Box::new(PrioThresholds::new(
                    thresholds.clone(),
                    limit_bytes,
                    reserved_bytes,
                    mark_above_bytes,
                )))
            }
            QueueConfig::Ranked { ref scheduler, rank, mark_at_bytes } => {
                let scheduler = match *scheduler {
                    SchedulerConfig::Pifo { capacity_pkts, heap: false } => Scheduler::Pifo(Pifo::new(capacity_pkts)),
                    SchedulerConfig::Pifo { capacity_pkts, heap: true } => {
                        Scheduler::HeapPifo(HeapPifo::new(capacity_pkts))
                    }
                    SchedulerConfig::SpPifo { queues, per_queue_pkts } => {
                        Scheduler::SpPifo(SpPifo::new(queues, per_queue_pkts))
                    }
                    SchedulerConfig::Aifo { capacity_pkts, window, sample_every, k } => {
                        Scheduler::Aifo(Aifo::new(capacity_pkts, window, sample_every, k))
                    }
                    SchedulerConfig::Pieo { capacity_pkts } => Scheduler::Pieo(Pieo::new(capacity_pkts)),
                };
                let mark_at_bytes = mark_at_bytes.unwrap_or(u64::MAX);
                Queue::Ranked(Box::new(Ranked { ranker: Ranker::new(rank), scheduler, mark_at_bytes }))
            }
            QueueConfig::DropTailPdq { limit_bytes, .. } => Queue::DropTail(DropTail::new(limit_bytes, None)),
            QueueConfig::Trimming { data_pkts, header_limit_bytes, header_ratio } => {
                Queue::Trimming(Box::new(Trimming::new(data_pkts, header_limit_bytes, header_ratio)))
            }
            QueueConfig::Afq { queues, per_queue_pkts, bytes_per_round, mark_at_bytes } => {
                Queue::Afq(Box::new(MarkingAfq {
                    afq: Afq::new(queues, per_queue_pkts, bytes_per_round),
                    mark_at_bytes: mark_at_bytes.unwrap_or(u64::MAX),
                }))
            }
        }
    }
}

pub enum Queue {
    DropTail(DropTail),
    Pfabric(PfabricQueue),
    PrioThresholds(Box<PrioThresholds>),
    Ranked(Box<Ranked>),
    Afq(Box<MarkingAfq>),
    Trimming(Box<Trimming>),
}

/// AFQ and the ECN marking of its port (the AIFO authors' fair-queueing runs mark at every scheduler port).
pub struct MarkingAfq {
    pub afq: Afq,
    /// u64::MAX: never.
    pub mark_at_bytes: u64,
}

/// Mark packet `id` Congestion Experienced when it arrived to `queued` bytes at or above `mark_at` (as the
/// AIFO authors' ports do, counting the buffer before the arrival) and was admitted.
#[inline]
fn mark_if_congested(pool: &mut PacketPool, id: PacketId, dropped: Option<PacketId>, queued: u64, mark_at: u64) {
    if queued >= mark_at && dropped != Some(id) {
        pool.get_mut(id).ce = true;
    }
}

pub enum Scheduler {
    Pifo(Pifo),
    HeapPifo(HeapPifo),
    SpPifo(SpPifo),
    Aifo(Aifo),
    Pieo(Pieo),
}

/// A rank-based scheduler and the rank function that feeds it, kept apart as the AIFO paper frames them:
/// the port ranks an arrival (SRPT from the host's stamp, STFQ from its own virtual time, or arrival order),
/// the scheduler admits, drops and orders by rank.
pub struct Ranked {
    pub ranker: Ranker,
    pub scheduler: Scheduler,
    /// u64::MAX: never.
    pub mark_at_bytes: u64,
}

impl Ranked {
    /// An arrival that the idle port sends at once still passes the port's ingress, as every packet does in a
    /// switch's pipeline: the rank function ranks it (STFQ's finish tag of its flow grows), AIFO counts it
    /// toward its sampling period (and may sample it), SP-PIFO maps it to a queue and moves that queue's bound,
    /// and, leaving at once, it sets STFQ's virtual time as any departure does. An empty queue admits it under
    /// every discipline here, so nothing else changes.
    ///
    /// The AIFO authors' AIFO ports do the same (AIFOOutputPort.enqueue ranks and samples before the port looks
    /// at its queue); their PIFO and SP-PIFO ports rank only packets that wait (netx-repo/AIFO @333c214,
    /// OutputPort.push and potentialEnqueue send to an idle link first), which moves SP-PIFO's small-flow mean by
    /// under 1% in their figures (AIFO Figures 7 and 14 at their arrival rates).
    #[inline]
    fn pass_through(&mut self, p: &Packet) {
        let rank = self.ranker.rank(p);
        match &mut self.scheduler {
            Scheduler::Aifo(q) => q.pass_through(rank),
            Scheduler::SpPifo(q) => q.pass_through(rank),
            Scheduler::Pifo(_) | Scheduler::HeapPifo(_) | Scheduler::Pieo(_) => {}
        }
        self.ranker.on_dequeue(rank);
    }

    fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        let queued = self.bytes();
        let p = pool.get(id);
        let rank = self.ranker.rank(p);
        let wire = p.wire;
        let dropped = match &mut self.scheduler {
            Scheduler::Pifo(q) => q.enqueue(id, rank, wire),
            Scheduler::HeapPifo(q) => q.enqueue(id, rank, wire),
            Scheduler::SpPifo(q) => q.enqueue(id, rank, wire),
            Scheduler::Aifo(q) => q.enqueue(id, rank, wire),
            // WF2Q+ under STFQ ranks: rank by the virtual finish tag, eligible from the virtual start tag
            // (carried in PIEO's time field); otherwise eligible at once (see pieo.rs).
            Scheduler::Pieo(q) => match self.ranker {
                Ranker::Stfq(_) => q.enqueue_eligible_at(id, rank + wire as u64, wire, rank),
                _ => q.enqueue(id, rank, wire, now),
            },
        };
        if let Some(d) = dropped {
            self.ranker.on_drop(pool.get(d));
        }
        mark_if_congested(pool, id, dropped, queued, self.mark_at_bytes);
        dropped
    }

    fn dequeue(&mut self, pool: &PacketPool, now: Time) -> Option<(PacketId, u32)> {
        let (id, rank) = match &mut self.scheduler {
            Scheduler::Pifo(q) => q.dequeue(),
            Scheduler::HeapPifo(q) => q.dequeue(),
            Scheduler::SpPifo(q) => q.dequeue(),
            Scheduler::Aifo(q) => q.dequeue(),
            Scheduler::Pieo(q) => match &self.ranker {
                // The system virtual time: the last departure's start tag, or the smallest start tag waiting
                // if that is later; the start tag served becomes the ranker's virtual time.
                Ranker::Stfq(s) => {
                    let v = s.virtual_time().max(q.earliest_eligible()?);
                    q.dequeue_entry(v).map(|(id, _finish, start)| (id, start))
                }
                _ => q.dequeue(now),
            },
        }?;
        self.ranker.on_dequeue(rank);
        Some((id, pool.get(id).wire))
    }

    fn bytes(&self) -> u64 {
        match &self.scheduler {
            Scheduler::Pifo(q) => q.bytes(),
            Scheduler::HeapPifo(q) => q.bytes(),
            Scheduler::SpPifo(q) => q.bytes(),
            Scheduler::Aifo(q) => q.bytes(),
            Scheduler::Pieo(q) => q.bytes(),
        }
    }

    fn is_empty(&self) -> bool {
        match &self.scheduler {
            Scheduler::Pifo(q) => q.is_empty(),
            Scheduler::HeapPifo(q) => q.is_empty(),
            Scheduler::SpPifo(q) => q.is_empty(),
            Scheduler::Aifo(q) => q.is_empty(),
            Scheduler::Pieo(q) => q.is_empty(),
        }
    }
}

impl Queue {
    /// Packet `id` arrives at the idle, empty port, which sends it at once: the disciplines whose state every
    /// arrival moves (the rank-based ones: `Ranked::pass_through`) see it go by.
    #[inline(always)]
    pub fn pass_through(&mut self, id: PacketId, pool: &PacketPool) {
        if let Queue::Ranked(q) = self {
            q.pass_through(pool.get(id));
        }
    }

    /// Offer packet `id`; returns the packet dropped to make room, if any (the arrival or another).
    #[inline(always)]
    pub fn enqueue(&mut self, id: PacketId, pool: &mut PacketPool, now: Time) -> Option<PacketId> {
        match self {
            Queue::DropTail(q) => q.enqueue(id, pool),
            Queue::Pfabric(q) => q.enqueue(id, pool),
            Queue::PrioThresholds(q) => q.enqueue(id, pool),
            Queue::Ranked(q) => q.enqueue(id, pool, now),
            Queue::Afq(q) => {
                let queued = q.afq.bytes();
                let p = pool.get(id);
                let dropped = q.afq.enqueue(id, p.flow, p.wire);
                mark_if_congested(pool, id, dropped, queued, q.mark_at_bytes);
                dropped
            }
            Queue::Trimming(q) => q.enqueue(id, pool),
        }
    }

    /// The packet the last enqueue trimmed (NDP's port) and the payload bytes it lost, once.
    #[inline]
    pub fn take_trimmed(&mut self) -> Option<(PacketId, u32)> {
        match self {
            Queue::Trimming(q) => q.take_trimmed(),
            _ => None,
        }
    }

    /// The next packet to send and its wire size.
    #[inline]
    pub fn dequeue(&mut self, pool: &PacketPool, now: Time) -> Option<(PacketId, u32)> {
        match self {
            Queue::DropTail(q) => q.dequeue(),
            Queue::Pfabric(q) => q.dequeue(),
            Queue::PrioThresholds(q) => q.dequeue(),
            Queue::Ranked(q) => q.dequeue(pool, now),
            Queue::Afq(q) => q.afq.dequeue().map(|(id, _)| (id, pool.get(id).wire)),
            Queue::Trimming(q) => q.dequeue(),
        }
    }

    #[inline]
    pub fn bytes(&self) -> u64 {
        match self {
            Queue::DropTail(q) => q.bytes(),
            Queue::Pfabric(q) => q.bytes(),
            Queue::PrioThresholds(q) => q.bytes(),
            Queue::Ranked(q) => q.bytes(),
            Queue::Afq(q) => q.afq.bytes(),
            Queue::Trimming(q) => q.bytes(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        match self {
            Queue::DropTail(q) => q.is_empty(),
            Queue::Pfabric(q) => q.is_empty(),
            Queue::PrioThresholds(q) => q.is_empty(),
            Queue::Ranked(q) => q.is_empty(),
            Queue::Afq(q) => q.afq.is_empty(),
            Queue::Trimming(q) => q.is_empty(),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use crate::net::packet::{Packet, PacketKind, MSS_BYTES};

    /// A full data packet of `flow` with index `seq` and the given priority number.
    pub fn data_packet(flow: u32, seq: u32, priority: u64) -> Packet {
        Packet {
            priority,
            payload: MSS_BYTES,
            wire: MSS_BYTES + 40,
            ..Packet::header(PacketKind::Data, flow, seq, 0, 1, 0, 40)
        }
    }
}

#[cfg(test)]
mod pieo_fair_queueing {
    use super::testing::data_packet;
    use super::*;
    use crate::net::packet::PacketPool;

    fn ranked(scheduler: SchedulerConfig) -> Queue {
        QueueConfig::Ranked { scheduler, rank: RankKind::Stfq, mark_at_bytes: None }.build()
    }

    /// Flow 1's full packet arrives, then flow 2's short one: both start at virtual time 0. STFQ (PIFO) serves
    /// the earliest start, first come among equals; WF2Q+ (PIEO) serves the earliest finish among those that
    /// may start, the short packet.
    #[test]
    fn pieo_runs_wf2q_plus_and_tells_mixed_sizes_apart_from_pifo() {
        let mut pool = PacketPool::new();
        let mut short = data_packet(2, 0, 0);
        short.payload = 60;
        short.wire = 100;
        let a = pool.alloc(data_packet(1, 0, 0));
        let b = pool.alloc(short);
        let c = pool.alloc(data_packet(1, 1, 0));
        let order = |mut q: Queue, pool: &mut PacketPool| {
            for id in [a, c, b] {
                assert_eq!(q.enqueue(id, pool, 0), None);
            }
            std::iter::from_fn(|| q.dequeue(pool, 0).map(|(id, _)| id)).collect::<Vec<_>>()
        };
        assert_eq!(order(ranked(SchedulerConfig::Pifo { capacity_pkts: 8, heap: false }), &mut pool), [a, b, c]);
        assert_eq!(order(ranked(SchedulerConfig::Pieo { capacity_pkts: 8 }), &mut pool), [b, a, c]);
    }

    /// Among the packets that may start (start tag <= V), the earliest finish goes first: flow 2's short
    /// one before flow 1's first. Flow 1's second packet starts at 1500, beyond V, and waits until nothing
    /// that may start is left; V then moves up to its start.
    #[test]
    fn a_packet_waits_for_the_system_virtual_time_to_reach_its_start() {
        let mut pool = PacketPool::new();
        let mut q = ranked(SchedulerConfig::Pieo { capacity_pkts: 8 });
        let a = pool.alloc(data_packet(1, 0, 0)); // start 0, finish 1500
        let b = pool.alloc(data_packet(1, 1, 0)); // start 1500, finish 3000
        let mut small = data_packet(2, 0, 0);
        small.wire = 1000;
        small.payload = 960;
        let c = pool.alloc(small); // start 0, finish 1000
        for id in [a, b, c] {
            q.enqueue(id, &mut pool, 0);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.dequeue(&pool, 0).map(|(id, _)| id)).collect();
        assert_eq!(order, [c, a, b]);
    }
}

#[cfg(test)]
mod idle_port_arrivals {
    use super::testing::data_packet;
    use super::*;

    fn ranked(scheduler: SchedulerConfig, rank: RankKind) -> Queue {
        QueueConfig::Ranked { scheduler, rank, mark_at_bytes: None }.build()
    }

    fn pass(q: &mut Queue, pool: &mut PacketPool, p: Packet) {
        let id = pool.alloc(p);
        q.pass_through(id, pool);
        pool.release(id);
    }

    /// AIFO samples arrivals that an idle port sends at once, as its pipeline sees every packet (the authors'
    /// AIFOOutputPort samples before the port looks at its queue): three rank-0 packets go by, and the window
    /// holds them; the queue stays empty.
    #[test]
    fn aifo_samples_what_the_idle_port_sends_at_once() {
        let mut pool = PacketPool::new();
        let config = SchedulerConfig::Aifo { capacity_pkts: 20, window: 4, sample_every: 1, k: 0.1 };
        let mut q = ranked(config, RankKind::Srpt);
        for seq in 0..3 {
            pass(&mut q, &mut pool, data_packet(1, seq, 0));
        }
        let Queue::Ranked(r) = &q else { unreachable!() };
        let Scheduler::Aifo(a) = &r.scheduler else { unreachable!() };
        assert_eq!(a.window(), [0, 0, 0]);
        assert!(a.is_empty());
    }

    /// SP-PIFO maps an idle port's arrival and moves that queue's bound (push-up), as an admitted arrival does.
    #[test]
    fn sp_pifo_bounds_move_with_what_the_idle_port_sends() {
        let mut pool = PacketPool::new();
        let mut q = ranked(SchedulerConfig::SpPifo { queues: 4, per_queue_pkts: 10 }, RankKind::Srpt);
        pass(&mut q, &mut pool, data_packet(1, 0, 500));
        let Queue::Ranked(r) = &q else { unreachable!() };
        let Scheduler::SpPifo(s) = &r.scheduler else { unreachable!() };
        assert_eq!(s.bounds(), [0, 0, 0, 500]);
        assert!(s.is_empty());
    }

    /// STFQ counts what an idle port sent: flow 1 sent two packets straight through, so its next packet starts
    /// at its finish tag (2 x 1500), after flow 2's first, which starts at the virtual time the last departure
    /// left (1500: the start tag of flow 1's second packet).
    #[test]
    fn stfq_tags_and_virtual_time_count_what_the_idle_port_sent() {
        let mut pool = PacketPool::new();
        let mut q = ranked(SchedulerConfig::Pifo { capacity_pkts: 8, heap: false }, RankKind::Stfq);
        pass(&mut q, &mut pool, data_packet(1, 0, 0));
        pass(&mut q, &mut pool, data_packet(1, 1, 0));
        let a = pool.alloc(data_packet(1, 2, 0));
        let b = pool.alloc(data_packet(2, 0, 0));
        assert_eq!(q.enqueue(a, &mut pool, 0), None);
        assert_eq!(q.enqueue(b, &mut pool, 0), None);
        let served: Vec<_> = std::iter::from_fn(|| q.dequeue(&pool, 0).map(|(id, _)| id)).collect();
        assert_eq!(served, [b, a]);
    }
}
