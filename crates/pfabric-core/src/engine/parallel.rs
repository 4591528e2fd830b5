//! The partitioned engine: the fabric cut into partitions (`net::partition`), run side by side on threads in
//! windows of the lookahead (issue "Scale"; DESIGN.md section 8). A thread runs a block of consecutive
//! partitions in one simulation (one event queue, packet pool and set of connections: events of different
//! partitions touch different state, so their interleaving changes nothing), with each partition's flow
//! arrivals, outboxes and cut ports kept apart.
//!
//! A window is `[start, start + lookahead)`. Within it each block runs its events; a packet that crosses a cut link
//! arrives at least one lookahead after it leaves, so in a later window. Among events at the same time the event
//! queue orders by each event's key, which says what the event is (a packet's arrival by the instant and the port
//! it left, in the fabric's own numbering; a timer by its flow: `engine::keys`), never when or where it was
//! scheduled: a partition runs its events in the order the sequential engine runs them, and every random route draw
//! comes from its switch's own stream, as there. A packet for a partition of the same block goes into its queue at
//! once; one for another block waits in its partition's outbox for that block. At the end of the window the
//! outboxes go to double-buffered mailboxes, one per origin partition and receiving block, each block reports when
//! its next event is due, and after one barrier every thread computes the same next window from the same reports.
//! The next window opens with each block taking in its mail.
//!
//! A busy port has no event for the moment its serializer frees (engine docs): it is brought up to date when
//! its packet arrives at the far end. For a cut link the far end is another partition, so the port's own
//! partition brings its cut ports up to date at the end of every window, and a cut port still holding packets
//! bounds the next window's start by the moment its serializer frees (so that what it sends then, handed over
//! at the end of that window, still arrives in a later one).
//!
//! Where hosts are apart from switches, a port down to a host belongs to the host's partition instead (fed from
//! afar: `Partitioning::fed_from_afar`), so that the switches' partition, which holds most of the work, sheds
//! the queueing there. The switch hands each packet over as it would queue it; the host's partition queues
//! the window's packets at the start of the next, each as of the moment it was sent, by origin and in the
//! order each origin sent them (within a block too, so that no thread count changes when they are queued).
//! Windows are then no longer than the port's propagation delay, and an arrival from such a port brings it up
//! to date one delay ago, not to now: the departure decided then comes before the window began, so every
//! packet queued before it is there.
//!
//! A fabric's top switches (a fat-tree's cores cut by pods, a leaf-spine's spines cut by racks) are shared out
//! among the partitions below them (`Partitioning::shared_out`): each of their ports belongs to the partition at
//! its far end, and a packet sent up to one is handed straight to its destination's partition, which routes it
//! there (one way down, no state read but the port's). A packet between two pods is handed over once, not twice
//! (on the k = 16 fat-tree, 10.9 M handovers instead of 20.4 M for 5,000 flows), and half as many cross between
//! threads. Not for NDP, whose switch sends a trimmed header back the way it came, by a port of another
//! partition.
//!
//! What a partition does depends only on its state, the window and its mail, never on which thread or block
//! runs it, nor on how the fabric is cut: every thread count and every partitioning gives the sequential
//! engine's results to the byte (tests/parallel.rs), but for a run stopped by its event budget, which stops
//! between windows. So one thread runs the sequential engine (`Simulation::new`), which needs no windows.
//!
//! What stays sequential, and why: the flow-level Ideal (one central scheduler over every flow), PDQ (its
//! per-flow rate state sits on the ports of the whole path), NDP with hosts apart (a header returned to its
//! sender turns at the port's switch at once, which a port fed from afar, run by its host's partition, cannot
//! do), throughput sampling and arrival logs (they read every tracked flow at one instant). A scenario that
//! asks for any of them runs on the sequential engine whatever `run.threads` says. The receiver-driven hosts
//! (pHost, Homa, NDP) otherwise run partitioned: each host's scheduler and store are its own, and a flow's
//! halves are those of the sender-driven schemes. Flows are drawn up front and their rows (ideal FCT, deadline) made before the
//! run; each partition starts the flows its hosts send. A flow whose receiver is in another partition has
//! there a receiving half, made when its first packet arrives and retired once it holds every packet: its
//! out-of-order count is noted then and its slot freed. Copies that arrive later are acknowledged as the half
//! would have acknowledged them (pHost's hosts, which acknowledge a flow's last packet once: never), and a
//! first transmission among them still counts as out of order; a copy for a flow closed at its sender, in the
//! sequential engine or with both halves in one partition, is answered the same way
//! (`Simulation::answer_closed_flow`). `peak_active_flows` and `peak_live_packets` are taken at every
//! microsecond (`metrics::peaks`): each block notes its counts at the instants it passes, and the sums are
//! made once every block has passed them.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use super::{port_state, Connection, Halves, Simulation, EVENT_BUDGET_BASE, LOCAL, NO_SLOT, ONE_PARTITION, SHARED};
use crate::config::ScenarioConfig;
use crate::metrics::{FlowRecord, RunCounters, UNFINISHED};
use crate::net::packet::{Packet, PacketId};
use crate::net::partition::Partitioning;
use crate::net::topology::Topology;
use crate::queue::QueueConfig;
use crate::sim::event::EventKind;
use crate::sim::time::Time;
use crate::transport::receiver::HANDSHAKE_ACK_SEQ;
use crate::transport::{Receiver, Sender};
use crate::workload::{Arrivals, FlowSpec};

/// Whether a scenario can run partitioned (see the module docs for what stays sequential).
pub(super) fn partitionable(cfg: &ScenarioConfig) -> bool {
    let needs_the_whole_fabric = cfg.scheme.flow_level
        || matches!(cfg.scheme.queue, QueueConfig::DropTailPdq { .. })
        || (cfg.measure.sample_interval.is_some() && cfg.measure.track_flows != 0)
        || cfg.measure.log_arrivals;
    // NDP returns a header to its sender from the port's switch at once, which a port fed from afar, run by its
    // host's partition, cannot.
    let returns_from_afar = cfg.scheme.transport.protocol == crate::transport::Protocol::Ndp
        && cfg.partition == crate::net::partition::PartitionKind::Hosts;
    !(needs_the_whole_fabric || returns_from_afar)
}

/// A packet crossing a cut link to another block: it arrives at `at` at the far end of port `port` (the fabric's
/// own id of the port it left; or, marked [`FED`], it is queued as of `at` at port `port`, fed from afar, by
/// this run's numbering). One cache line, so that taking a packet in moves one line between the cores (a packet
/// fills a line, aligned to one, and beside the time and port it took two): the time and port ride in the
/// packet's rate header (PDQ's), which no scheme that runs partitioned carries, and leave it empty again on
/// arrival.
#[derive(Clone, Copy)]
pub(super) struct Handover(Packet);

const _: () = assert!(std::mem::size_of::<Handover>() == 64);

impl Handover {
    /// Packet `p`, arriving at `at` from port `port`.
    fn new(at: Time, port: u32, p: &Packet) -> Handover {
        assert!(p.rate_bps == 0 && p.paused_by == 0, "a packet with a rate header crosses a cut link");
        Handover(Packet { rate_bps: at, paused_by: port, ..*p })
    }

    fn at(&self) -> Time {
        self.0.rate_bps
    }

    /// The port it left (by the fabric's own numbering), which with the instant keys its arrival among equal
    /// times.
    fn port(&self) -> u32 {
        self.0.paused_by
    }

    /// The packet, as it was sent.
    fn packet(&self) -> Packet {
        Packet { rate_bps: 0, paused_by: 0, ..self.0 }
    }

    /// Packet `p`, to be queued at port `port` (fed from afar) as it was at `at`.
    fn to_port(at: Time, port: u32, p: &Packet) -> Handover {
        debug_assert!(port & FED == 0);
        Handover::new(at, port | FED, p)
    }

    /// The port fed from afar where the packet is to be queued, if it is for one.
    fn fed_port(&self) -> Option<u32> {
        (self.port() & FED != 0).then_some(self.port() & !FED)
    }
}

/// The mark of a handover that names a port fed from afar, to queue its packet at, instead of a node.
const FED: u32 = 1 << 31;

/// What one partition holds besides the state its block shares: its flows' arrivals, its outboxes and its
/// cut ports. Everything here is kept per partition so that what a partition does, and the order it hands
/// packets over in, is the same whichever block (thread) runs it.
struct PartState {
    /// The flows this partition's hosts send, in start order, and their ids.
    arrivals: Arrivals,
    ids: Vec<u32>,
    next_id: usize,
    next_arrival: Option<FlowSpec>,
    /// Packets for each other block (by the block's index), sent in this window, and the blocks they are for.
    /// Per block, not per partition: a fabric cut into thousands of partitions (racks of a large leaf-spine)
    /// would otherwise keep a list per ordered pair of them, and the mailboxes and their scans as many.
    outbox: Vec<Vec<Handover>>,
    touched: Vec<u32>,
    /// Cut ports (by id) holding packets: a packet joined their queue since the last flush found them empty.
    cut_busy: Vec<u32>,
    /// Packets for ports fed from afar that partitions of this block run, sent in this window, in order: (the
    /// moment, the port, the packet, which stays in the block's pool).
    fed_out: Vec<(Time, u32, PacketId)>,
}

/// A block of consecutive partitions, run by one thread in one simulation: one event queue, packet pool and
/// set of connections for all of them (events of different partitions touch different state, so their
/// interleaving changes nothing), but per-partition arrivals, outboxes, cut ports and route draws.
pub(super) struct Block {
    /// The partition of each node, and the first partition of the block.
    part_of: Arc<[u32]>,
    first: u32,
    parts: Vec<PartState>,
    /// The block (thread) of each partition.
    block_of: Arc<[u32]>,
    /// The id in this run's numbering of each port of the fabric (by its own id, which a packet handed over
    /// between blocks carries: `Handover`).
    numbered_as: Arc<[u32]>,
    /// Every flow's row as it starts (made before the run).
    pub(super) records: Arc<[FlowRecord]>,
    /// A bit per partition of the block whose list of busy cut ports is not empty, and one per partition that
    /// handed packets to another block in this window: the window's end visits those alone (a visit to each
    /// partition, whose state lies on lines of its own, cost a tenth of the instructions of a window).
    busy_parts: PartSet,
    touched_parts: PartSet,
    /// The members of one of those sets, taken out to be visited (kept to reuse its storage).
    visiting: Vec<usize>,
    /// Which of the block's ports are listed as busy cut ports (a port's partition is in its state).
    cut_listed: Vec<bool>,
    /// The earliest arrival among the packets handed over to other blocks in this window, and the earliest
    /// effect of the packets sent to ports fed from afar (a lookahead after they were sent).
    min_sent: Time,
    /// The run's lookahead: how long after it is sent a packet for a port fed from afar can first matter.
    lookahead: Time,
    /// The partitions of the block with packets in `fed_out`, and the packets from other blocks' partitions
    /// for its ports fed from afar, with their origins, as taken in (by origin, each origin's in order).
    fed_parts: PartSet,
    fed_in: Vec<(u32, Handover)>,
    /// A window in which this block panics (tests of what a panic in a partition's thread does).
    #[cfg(test)]
    pub(super) panic_in: Option<u64>,
    /// The bits of the partitions that handed each other block packets in this window (`Exchange::sent`), and
    /// the copy of what was published for each window parity.
    sent_bits: Vec<u64>,
    published: Vec<u64>,
    /// The end of the window being run: everything handed over arrives at or after it.
    window_end: Time,
    /// What the block reported at the end of the last window.
    last_report: Report,
    /// (flow, finish) for flows whose receiver is here and completed.
    pub(super) finished: Vec<(u32, Time)>,
    /// (flow, retransmissions, timeouts, out-of-order; u32::MAX where the half is not here).
    pub(super) counts: Vec<(u32, u32, u32, u32)>,
    /// Flows closed here (both halves in one partition) that took a late first transmission since: one more
    /// out-of-order packet each, added to the counts noted at the close.
    pub(super) late_out_of_order: Vec<u32>,
    /// What the block noted for the run's peaks (`metrics::peaks`) since the last merge, and the packets it
    /// posted to other blocks and took in from them.
    pub(super) peak_notes: crate::metrics::peaks::BlockNotes,
    pub(super) posted: i64,
    pub(super) taken: i64,
}

/// A set of a block's partitions (by index within the block), visited in increasing order.
#[derive(Clone, Default)]
struct PartSet {
    words: Vec<u64>,
}

impl PartSet {
    fn new(parts: usize) -> Self {
        PartSet { words: vec![0; parts.div_ceil(64)] }
    }

    #[inline(always)]
    fn insert(&mut self, k: usize) {
        self.words[k / 64] |= 1 << (k % 64);
    }

    fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Remove the members, and put them in `members` in increasing order.
    fn take_into(&mut self, members: &mut Vec<usize>) {
        members.clear();
        for (i, word) in self.words.iter_mut().enumerate() {
            members.extend(set_bits(std::mem::take(word), i * 64));
        }
    }
}

/// The places of the bits set in `word`, lowest first, counted from `base` (word `i` of a bit set: `64 i`).
#[inline(always)]
fn set_bits(mut word: u64, base: usize) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (word != 0).then(|| {
            let at = base + word.trailing_zeros() as usize;
            word &= word - 1;
            at
        })
    })
}

impl Block {
    /// Whether a flow from `src` to `dst` runs between two partitions (a sending and a receiving half).
    #[inline]
    pub(super) fn between_partitions(&self, src: u32, dst: u32) -> bool {
        self.part_of[src as usize] != self.part_of[dst as usize]
    }

    /// The next flow id of the partition of host `src`.
    pub(super) fn next_flow_id(&mut self, src: u32) -> u32 {
        let part = &mut self.parts[(self.part_of[src as usize] - self.first) as usize];
        let id = part.ids[part.next_id];
        part.next_id += 1;
        id
    }

    /// The partition within the block of node `node`, given as `part` or [`SOME_PART`](super::SOME_PART)
    /// (then looked up; `None` for a node of no partition of the block's).
    #[inline(always)]
    pub(super) fn part_within(&self, node: u32, part: u32) -> Option<u32> {
        if part != super::SOME_PART {
            return Some(part);
        }
        let k = self.part_of.get(node as usize)?.wrapping_sub(self.first);
        ((k as usize) < self.parts.len()).then_some(k)
    }

    /// Note the counts of flow `id`'s receiving half, whose receiver is `receiver` (where the flow runs between
    /// partitions: its sending half's counts are noted apart).
    pub(super) fn note_receiving_half(&mut self, id: u32, receiver: &Receiver) {
        self.counts.push((id, u32::MAX, u32::MAX, receiver.out_of_order));
    }

    /// Note the counts of the halves of flow `id` that connection `conn` holds.
    pub(super) fn note_counts(&mut self, id: u32, conn: &Connection) {
        let rec = &self.records[id as usize];
        let within = !self.between_partitions(rec.src, rec.dst);
        let sends = !conn.receiver_only();
        let receives = conn.receiver_only() || within;
        let (r, t) = if sends { (conn.sender.retransmissions, conn.sender.timeouts) } else { (u32::MAX, u32::MAX) };
        self.counts.push((id, r, t, if receives { conn.receiver.out_of_order } else { u32::MAX }));
    }
}

impl Simulation {
    /// A packet leaves for partition `dest`: into the queue at once if the block holds `dest`, keyed by the port
    /// it left, as its arrival would be; into its partition's outbox for another block otherwise.
    #[inline(always)]
    pub(super) fn hand_over(&mut self, dest: u32, at: Time, from: u32, node: u32, id: PacketId) {
        self.counters.handovers += 1;
        let slot = self.slot(from);
        let block = self.block.as_mut().expect("only a partitioned run has cut links");
        // Up to a switch shared out: to the partition that runs its port towards the packet's destination.
        let dest = if dest == SHARED { block.part_of[self.pool.get(id).dst as usize] } else { dest };
        debug_assert!(at >= block.window_end, "a packet handed over at {at} arrives within its window");
        let origin = self.ports[slot].own_part as usize;
        // (Keyed among equal times by the instant and the port it left, as the sequential engine keys its
        // arrival.)
        let port = self.fabric_id_of[from as usize];
        if (dest.wrapping_sub(block.first) as usize) < block.parts.len() {
            self.events.schedule_keyed(at, super::keys::arrival(at, port), EventKind::Handed, id, node);
        } else {
            self.hand_to_another_block(dest, at, origin, port, id);
        }
    }

    /// A packet leaves for partition `dest` of another block: it waits in its partition's (`origin`, within
    /// the block) outbox for that block until the window ends.
    #[inline(never)]
    fn hand_to_another_block(&mut self, dest: u32, at: Time, origin: usize, port: u32, id: PacketId) {
        let handover = Handover::new(at, port, self.pool.get(id));
        self.post(dest, origin, handover, id, at);
    }

    /// Packet `id`, as `handover`, leaves the block's pool for the outbox of partition `origin` (within the
    /// block) for the block of partition `dest`; its effect there is due at `due` at the earliest.
    #[inline(always)]
    fn post(&mut self, dest: u32, origin: usize, handover: Handover, id: PacketId, due: Time) {
        self.pool.release(id);
        let block = self.block.as_mut().unwrap();
        block.posted += 1;
        let to = block.block_of[dest as usize];
        let part = &mut block.parts[origin];
        if part.outbox[to as usize].is_empty() {
            part.touched.push(to);
            block.touched_parts.insert(origin);
        }
        part.outbox[to as usize].push(handover);
        block.min_sent = block.min_sent.min(due);
    }

    /// A packet waits at cut port `port`: the port joins its partition's list of ports to bring up to date at
    /// the end of the window (what it owes then leaves at the moment its serializer frees).
    #[cold]
    pub(super) fn queued_at_cut_port(&mut self, port: u32) {
        let slot = self.slot(port);
        let block = self.block.as_mut().expect("only a partitioned run has cut links");
        if !block.cut_listed[slot] {
            block.cut_listed[slot] = true;
            let part = self.ports[slot].own_part as usize;
            block.parts[part].cut_busy.push(port);
            block.busy_parts.insert(part);
        }
    }

    /// Packet `id` is to be queued now at port `port`, down from switch `node` (of partition `part` within the
    /// block, or [`SOME_PART`](super::SOME_PART)) to a host of another partition, which runs the port
    /// (`Partitioning::fed_from_afar`): it is handed over, to be queued at the start of the next window as of
    /// now (`take_fed`), whether or not the host's partition is in this block, so that no thread count changes
    /// when it is queued.
    #[inline(never)]
    pub(super) fn feed_from_afar(&mut self, port: u32, id: PacketId, node: u32, part: u32) {
        self.counters.handovers += 1;
        let now = self.now;
        let dst = self.pool.get(id).dst;
        let block = self.block.as_mut().expect("only a partitioned run has ports fed from afar");
        let origin = block.part_within(node, part).expect("a switch of the block") as usize;
        let dest = block.part_of[dst as usize];
        let due = now + block.lookahead;
        if (dest.wrapping_sub(block.first) as usize) < block.parts.len() {
            block.parts[origin].fed_out.push((now, port, id));
            block.fed_parts.insert(origin);
            block.min_sent = block.min_sent.min(due);
        } else {
            let handover = Handover::to_port(now, port, self.pool.get(id));
            self.post(dest, origin, handover, id, due);
        }
    }

    /// Packet `id` arrives from port `from`, fed from afar: the port is brought up to date one propagation delay
    /// ago (what it sent then), not to now, since the packets queued there since this window began are not
    /// there yet (`Partitioning::fed_from_afar`).
    #[inline(never)]
    pub(super) fn arrive_from_afar(&mut self, id: PacketId, from: u32) {
        let slot = self.slot(from);
        let now = self.now;
        self.now = now - self.ports[slot].delay_ps;
        self.send_due(from);
        self.now = now;
        let ps = &self.ports[slot];
        let (node, part) = (ps.peer_node, ps.own_part);
        self.arrive_at(id, node, part);
    }

    /// Queue the packets sent to this block's ports fed from afar in the last window, each as of the moment it
    /// was sent: by origin partition, each origin's in the order it sent them (those from other blocks, taken
    /// in with the mail, in `fed_in`).
    fn take_fed(&mut self) {
        let block = self.block.as_mut().unwrap();
        let mut from_afar = std::mem::take(&mut block.fed_in);
        let mut visiting = std::mem::take(&mut block.visiting);
        block.fed_parts.take_into(&mut visiting);
        let first = block.first;
        let below = from_afar.partition_point(|&(o, _)| o < first);
        for &(_, h) in &from_afar[..below] {
            self.queue_fed(h);
        }
        for &k in &visiting {
            let mut sent = std::mem::take(&mut self.block.as_mut().unwrap().parts[k].fed_out);
            for (at, port, id) in sent.drain(..) {
                self.enqueue_as_of(at, port, id);
            }
            self.block.as_mut().unwrap().parts[k].fed_out = sent;
        }
        for &(_, h) in &from_afar[below..] {
            self.queue_fed(h);
        }
        from_afar.clear();
        let block = self.block.as_mut().unwrap();
        block.fed_in = from_afar;
        block.visiting = visiting;
    }

    /// Queue handed packet `h` at its port fed from afar, as of the moment it was sent.
    fn queue_fed(&mut self, h: Handover) {
        let port = h.fed_port().expect("a packet for a port fed from afar");
        let id = self.pool.alloc(h.packet());
        self.block.as_mut().unwrap().taken += 1;
        self.enqueue_as_of(h.at(), port, id);
    }

    /// Queue packet `id` at port `port` as of `at`, a moment of the last window (the port's own state has not
    /// moved past it: see the module docs).
    fn enqueue_as_of(&mut self, at: Time, port: u32, id: PacketId) {
        let now = self.now;
        self.now = at;
        let live = self.pool.live();
        self.enqueue(port, id);
        self.now = now;
        // A packet dropped there died at `at`, not now: the grid instants after `at` that the block noted it
        // alive at are corrected (`metrics::peaks`).
        let dropped = (live - self.pool.live()) as i64;
        if dropped > 0 {
            let (from, to) = (at / crate::metrics::peaks::GRID + 1, self.peak_grid.next_index());
            self.block.as_mut().unwrap().peak_notes.correct(from, to, dropped);
        }
    }

    /// The receiving half of flow `flow` (in connection slot `slot`) holds every packet: its counts are noted
    /// now and its slot freed, for the next flow's state (kept, the halves of every finished flow would
    /// spread the live ones over ever more memory: one thread took 1.24x the sequential engine's CPU on 20,000
    /// flows, 1.09x on 5,000), unless it shares its sending half's slot (`open_receiver`), which the sending
    /// half keeps. Its entry in `rx_slot_of` then names where its counts were noted, and copies that still
    /// arrive are answered from there (`answer_late_copy`), as in a block without the sending half.
    pub(super) fn retire_receiver(&mut self, flow: u32, slot: u32) {
        let conn = self.conns[slot as usize].as_ref().expect("a receiving half in its slot");
        let alone = conn.receiver_only();
        let block = self.block.as_mut().unwrap();
        let noted = block.counts.len();
        assert!(noted < (ONE_PARTITION & !RETIRED) as usize, "more counts than a retired entry can name");
        block.note_receiving_half(flow, &conn.receiver);
        self.rx_slot_of[flow as usize] = RETIRED | noted as u32;
        if alone {
            self.conns[slot as usize] = None;
            self.free_slots.push(slot);
        }
    }

    /// Flow `flow`'s receiver in connection slot `slot` has just completed: where it is a receiving half
    /// apart from its sender's (`Simulation::receiving_half`), it is retired (unless a test keeps them).
    #[inline(always)]
    pub(super) fn retire_if_half(&mut self, flow: u32, slot: u32, half: bool) {
        #[cfg(test)]
        let retire = !self.keep_receivers;
        #[cfg(not(test))]
        let retire = true;
        if half && retire {
            self.retire_receiver(flow, slot);
        }
    }

    /// Packet `id` (`pkt`) arrives for a flow whose receiving half here was retired, its counts noted at
    /// `noted`: answered as that half, which held every packet, would have. A data packet's index lies below
    /// the highest it had received (it had them all): a first transmission counts as out of order. Data and
    /// probes are old news, acknowledged with everything received; the handshake's final ACK is taken
    /// silently.
    #[cold]
    #[inline(never)]
    pub(super) fn answer_late_copy(&mut self, id: PacketId, pkt: Packet, noted: usize) {
        #[cfg(test)]
        {
            self.late_copies += 1;
        }
        if pkt.seq < HANDSHAKE_ACK_SEQ && !pkt.retransmit {
            self.block.as_mut().unwrap().counts[noted].3 += 1;
        }
        self.answer_copy(id, pkt);
    }

    /// A flow sent from another partition's host: its receiving half, made when its first packet arrives. Where
    /// the flow's sending half runs in this block, the receiving half is the receiver of the sending half's
    /// connection, which that half leaves unused and as new: a packet and its ACK then read the lines of one
    /// connection, as in the sequential engine, and the halves take one slot, not two. Where each half is
    /// kept changes nothing a half does.
    pub(super) fn open_receiver(&mut self, flow: u32) -> u32 {
        let sending = self.slot_of[flow as usize];
        if sending != NO_SLOT {
            self.rx_slot_of[flow as usize] = sending;
            return sending;
        }
        #[cfg(test)]
        {
            self.receivers_apart += 1;
        }
        let rec = self.block.as_ref().unwrap().records[flow as usize].clone();
        let sender = Sender::new(flow, rec.src, rec.dst, rec.size_bytes, rec.deadline, &self.transport);
        let receiver = Receiver::new(sender.sb.npkts, self.transport.three_way_handshake());
        self.open_connection(flow, Connection { receiver, halves: Halves::ReceiverOnly, sender })
    }

    /// Partition `part` (within the block) starts its next flow and schedules the one after.
    pub(super) fn partition_flow_arrival(&mut self, part: u32) {
        let p = part as usize;
        let block = self.block.as_mut().unwrap();
        let spec = block.parts[p].next_arrival.take().expect("a flow arrival event has its flow");
        block.parts[p].next_arrival = block.parts[p].arrivals.next_flow();
        let next = block.parts[p].next_arrival;
        self.start_flow(spec);
        if let Some(f) = next {
            let pstate = &self.block.as_ref().unwrap().parts[p];
            let key = super::keys::flow_start(pstate.ids[pstate.next_id]);
            self.events.schedule_keyed(f.start.max(self.now), key, EventKind::FlowArrival, part, 0);
        }
    }

    /// Run the block's events due before `end` (and, with a time limit, at or before it).
    fn run_window(&mut self, end: Time) {
        self.block.as_mut().unwrap().window_end = end;
        let limit = self.max_time.map_or(end, |l| end.min(l.saturating_add(1)));
        while let Some(ev) = self.events.pop_before(limit) {
            debug_assert!(ev.time >= self.now, "event at {} after {}", ev.time, self.now);
            self.now = ev.time;
            self.counters.events += 1;
            if self.peak_grid.passes(ev.time) {
                self.note_peaks_through(ev.time);
            }
            self.prefetch_next(&ev);
            self.dispatch::<true>(ev);
        }
        // The grid instants of the window after its last event: the counts stand (what is handed over or
        // flushed at its end is counted by its sender until taken in).
        if let Some(index) = self.peak_grid.note_before(limit) {
            self.note_peaks_from(index);
        }
    }

    /// Send what partition `part`'s cut ports owe by `at`; returns the earliest moment one still holding
    /// packets frees.
    fn flush_cut_ports(&mut self, part: usize, at: Time) -> Time {
        if self.block.as_ref().unwrap().parts[part].cut_busy.is_empty() {
            // No port of the partition holds packets: nothing to take, send or put back.
            return Time::MAX;
        }
        let now = self.now;
        self.now = at.max(now);
        let mut busy = std::mem::take(&mut self.block.as_mut().unwrap().parts[part].cut_busy);
        let mut next = Time::MAX;
        let mut i = 0;
        while i < busy.len() {
            let port = busy[i];
            self.send_due(port);
            let slot = self.slot(port);
            let ps = &self.ports[slot];
            if ps.queued_bytes != 0 {
                next = next.min(ps.busy_until);
                i += 1;
            } else {
                self.block.as_mut().unwrap().cut_listed[slot] = false;
                busy.swap_remove(i);
            }
        }
        // Sending queues nothing: no port joins the list meanwhile.
        let block = self.block.as_mut().unwrap();
        debug_assert!(block.parts[part].cut_busy.is_empty());
        block.parts[part].cut_busy = busy;
        self.now = now;
        next
    }
}

/// A partition's report at the end of a window.
#[derive(Clone, Copy, Default)]
struct Report {
    /// When its next event is due, or the earliest of the packets it handed over, or a cut port frees.
    next: Time,
    events: u64,
    /// The events its flows have earned (derived budget), without the base.
    budget: u64,
    flows_started: u64,
    flows_finished: u64,
    now: Time,
    /// Events it ran in the window (0 when it had nothing to do).
    window_events: u64,
}

/// The mailboxes the partitions share, and the barrier between windows (which carries the blocks' reports).
///
/// Access protocol (why the cells need no locks): in window `w`, the block holding partition `o` writes only
/// the cells `mail[w % 2][o][*]`, and block `s` only its words `sent[w % 2][s]`; at the start of window
/// `w + 1` block `t` reads those words and drains only the cells `mail[w % 2][*][t]`. Writes to a buffer
/// happen two windows apart, with a barrier between them and every read. A cell holds what one partition
/// sent one block (each packet names its node, and so its partition): storage and scans grow with
/// partitions times threads, not with the square of the partitions.
struct Exchange {
    parts: usize,
    blocks: usize,
    mail: Box<[UnsafeCell<Vec<Handover>>]>,
    /// The first partition of each block, and the number of partitions last.
    bounds: Box<[usize]>,
    /// `sent[w % 2][s]`: for each receiving block, `words` words of a bit per partition of block `s` (from its
    /// first) that handed it packets in window `w`. Written by block `s` alone, at the end of the window
    /// (so that no line is written by two cores, nor by a locked instruction), and read by the receivers
    /// after the barrier. Each block's words start a line.
    sent: Box<[Line]>,
    words: usize,
    lines: usize,
    barrier: WindowBarrier,
}

// Safety: the cells are accessed as the protocol above says, which the window loop follows.
unsafe impl Sync for Exchange {}

/// Eight words on a line of their own.
#[repr(align(64))]
#[derive(Default)]
struct Line([AtomicU64; 8]);

impl Exchange {
    /// For blocks of partitions from `bounds[t]` to `bounds[t + 1]`.
    fn new(bounds: &[usize]) -> Self {
        let threads = bounds.len() - 1;
        let parts = bounds[threads];
        let words = (0..threads).map(|t| (bounds[t + 1] - bounds[t]).div_ceil(64)).max().unwrap_or(0).max(1);
        let lines = (threads * words).div_ceil(8);
        Exchange {
            parts,
            blocks: threads,
            mail: (0..2 * parts * threads).map(|_| UnsafeCell::new(Vec::new())).collect(),
            bounds: bounds.into(),
            sent: (0..2 * threads * lines).map(|_| Line::default()).collect(),
            words,
            lines,
            barrier: WindowBarrier::new(threads),
        }
    }

    /// What partition `from` sent block `to` in window `w`. Safety: the caller is partition `from` in window
    /// `w` (writing) or block `to` at the start of `w + 1`.
    #[allow(clippy::mut_from_ref)]
    unsafe fn mail(&self, w: u64, from: usize, to: usize) -> &mut Vec<Handover> {
        &mut *self.mail[((w % 2) as usize * self.parts + from) * self.blocks + to].get()
    }

    /// Word `j` of block `from`'s origin bits for window `w` (word `j % words` of those for block
    /// `j / words`).
    fn sent(&self, w: u64, from: usize, j: usize) -> &AtomicU64 {
        &self.sent[((w % 2) as usize * self.blocks + from) * self.lines + j / 8].0[j % 8]
    }

    /// The other blocks' words of origin bits for block `to` in window `w`, each with the partition its first
    /// bit stands for. Safety of the reads: after the barrier that ends window `w`.
    fn words_to(&self, w: u64, to: usize) -> impl Iterator<Item = (u64, usize)> + '_ {
        (0..self.blocks).filter(move |&s| s != to).flat_map(move |s| {
            (0..self.words)
                .map(move |i| (self.sent(w, s, to * self.words + i).load(Ordering::Relaxed), self.bounds[s] + i * 64))
        })
    }

    /// The partitions of other blocks that handed block `to` packets in window `w`, in increasing order.
    fn mail_to(&self, w: u64, to: usize) -> impl Iterator<Item = usize> + '_ {
        self.words_to(w, to).flat_map(|(bits, base)| set_bits(bits, base))
    }

    /// Whether any other block handed block `to` packets in window `w`.
    fn has_mail(&self, w: u64, to: usize) -> bool {
        self.words_to(w, to).any(|(bits, _)| bits != 0)
    }

    /// Block `from` ends window `w`: the bits it set this window (`bits`, `words` per receiving block) stand
    /// for the window, in place of those it set two windows ago (`published`, its copy of them), and `bits`
    /// is cleared for the next. Only changed words are written.
    fn publish(&self, w: u64, from: usize, bits: &mut [u64], published: &mut [u64]) {
        let was = &mut published[(w % 2) as usize * bits.len()..][..bits.len()];
        for (j, (now, was)) in bits.iter_mut().zip(was).enumerate() {
            if *now != *was {
                self.sent(w, from, j).store(*now, Ordering::Relaxed);
                *was = *now;
            }
            *now = 0;
        }
    }
}

/// Threads meet here at the end of every window, each with its block's report. Each thread has a slot of its
/// own per window parity, where it writes its report and then the number of windows it has ended; a thread
/// waits until every slot of the window's parity says the window has ended. No thread writes a line another
/// writes: a shared counter, which every arrival changed with a locked instruction, moved its line between
/// the cores twice per window, and the reports a third time.
///
/// A waiter spins a while (windows are microseconds long and a sleep and wake-up cost more), then sleeps until
/// a thread that finds the window ended wakes it. It never yields: on a machine where anything else is
/// runnable, even at the lowest priority, a yield hands the core away for a whole time slice, per window (a
/// 4 s test took 102 s beside two `nice 19` processes). With more threads than cores it sleeps at once, as
/// the thread it waits for may be waiting for its core.
///
/// A thread that panics breaks the barrier off on its way out, so that the others stop waiting for a window
/// it will never end (they would wait forever, and the run hang where it should fail).
struct WindowBarrier {
    threads: usize,
    spins: u32,
    /// `slots[(w % 2) * threads + t]`: block `t`'s report of the last window of `w`'s parity it ended.
    slots: Box<[Slot]>,
    /// Waiters registered in `sleepers` and not yet taken from it (changed under its lock).
    asleep: AtomicUsize,
    sleepers: std::sync::Mutex<Vec<std::thread::Thread>>,
    /// Set by a thread that panicked: no window ends any more.
    broken: AtomicBool,
}

/// Breaks the barrier off if its thread unwinds (held by each thread while it runs its block).
struct BreakOnPanic<'a>(&'a WindowBarrier);

impl Drop for BreakOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.break_off();
        }
    }
}

/// One thread's report of a window, and how many windows it has ended (written after the report). Apart
/// from every other slot's lines, so that the line a waiter watches holds most of the report it reads next.
#[repr(C, align(128))]
struct Slot {
    report: UnsafeCell<Report>,
    ended: AtomicU64,
}

// Safety: a slot's report is written only by its thread, before its `ended` says so, and read by others only
// after (`arrive`, `reports`).
unsafe impl Sync for WindowBarrier {}

impl WindowBarrier {
    fn new(threads: usize) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let spins = if threads <= cores { 2_000 } else { 0 };
        WindowBarrier {
            threads,
            spins,
            slots: (0..2 * threads)
                .map(|_| Slot { report: UnsafeCell::new(Report::default()), ended: AtomicU64::new(0) })
                .collect(),
            asleep: AtomicUsize::new(0),
            sleepers: std::sync::Mutex::new(Vec::with_capacity(threads)),
            broken: AtomicBool::new(false),
        }
    }

    /// No window ends any more: every waiter, asleep or not, returns (its `arrive` says so).
    #[cold]
    fn break_off(&self) {
        self.broken.store(true, Ordering::SeqCst);
        self.wake_sleepers();
    }

    fn wake_sleepers(&self) {
        let sleepers = {
            let mut list = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
            self.asleep.fetch_sub(list.len(), Ordering::SeqCst);
            std::mem::take(&mut *list)
        };
        for thread in sleepers {
            thread.unpark();
        }
    }

    /// The slots of window `w`'s parity, one per thread.
    fn parity(&self, w: u64) -> &[Slot] {
        let b = (w % 2) as usize * self.threads;
        &self.slots[b..b + self.threads]
    }

    /// Whether every thread has ended window `w`.
    fn ended(&self, w: u64) -> bool {
        self.parity(w).iter().all(|slot| slot.ended.load(Ordering::SeqCst) > w)
    }

    /// Block `t` ends window `w` with `report`; returns once every block has (true), or once another thread
    /// has broken the barrier off (false). Safety: called by block `t`'s thread alone, every thread for every
    /// window in turn.
    #[must_use]
    unsafe fn arrive(&self, w: u64, t: usize, report: Report) -> bool {
        let slot = &self.parity(w)[t];
        // Nobody reads this slot now: its last report (window w - 2) was read before window w - 1 ended.
        *slot.report.get() = report;
        // Sequentially consistent with the sleepers' count, so that of a waiter going to sleep and the last
        // thread to arrive, one sees the other.
        slot.ended.store(w + 1, Ordering::SeqCst);
        if self.threads == 1 {
            return true;
        }
        if self.ended(w) {
            if self.asleep.load(Ordering::SeqCst) != 0 {
                self.wake_sleepers();
            }
            return true;
        }
        let mut spins = self.spins;
        for other in self.parity(w) {
            while other.ended.load(Ordering::Acquire) <= w {
                if spins == 0 || self.broken.load(Ordering::Relaxed) {
                    return self.sleep_until_ended(w);
                }
                spins -= 1;
                std::hint::spin_loop();
            }
        }
        true
    }

    /// Registered, then asleep until woken. A wake-up may be meant for nobody here (an unpark's token left
    /// from an earlier window, or a list taken before this thread registered again): it registers again until
    /// the window has ended.
    #[cold]
    fn sleep_until_ended(&self, w: u64) -> bool {
        loop {
            {
                let mut sleepers = self.sleepers.lock().unwrap_or_else(|e| e.into_inner());
                self.asleep.fetch_add(1, Ordering::SeqCst);
                // (Broken off before this thread registered, the list was already taken.)
                if self.ended(w) || self.broken.load(Ordering::SeqCst) {
                    self.asleep.fetch_sub(1, Ordering::SeqCst);
                    return self.ended(w);
                }
                sleepers.push(std::thread::current());
            }
            std::thread::park();
            if self.broken.load(Ordering::SeqCst) {
                // (The window may have ended before the barrier broke off: say so, as the others do.)
                return self.ended(w);
            }
            if self.ended(w) {
                return true;
            }
        }
    }

    /// The blocks' reports of window `w`. Safety: called after `arrive(w, ..)` returned and before the caller
    /// arrives at window `w + 1`.
    unsafe fn reports(&self, w: u64) -> impl Iterator<Item = Report> + '_ {
        self.parity(w).iter().map(|slot| *slot.report.get())
    }
}

/// Where the windows stand: the same on every thread, computed from the same reports.
#[derive(Clone, Copy)]
struct Windows {
    /// The window being run (its mail buffer is `w % 2`) and its bounds.
    w: u64,
    start: Time,
    end: Time,
    /// The start of the window run last.
    ran_from: Time,
    lookahead: Time,
    max_time: Option<Time>,
    base_budget: u64,
    /// Events of every partition when the current step began, and the step's allowance.
    step_from: u64,
    step_events: u64,
    done: bool,
    cut_short: bool,
    out_of_budget: bool,
    /// Sums over partitions at the last window's end.
    totals: Report,
    last_now: Time,
    /// The sum over windows of the busiest block's events: the run's critical path (it depends on the
    /// blocks, so on the thread count, unlike every result).
    critical_events: u64,
}

impl Windows {
    /// The last moment of the window (or the time limit, if earlier): cut ports are brought up to date through
    /// it at the window's end.
    fn last_moment(&self) -> Time {
        self.max_time.map_or(self.end - 1, |l| l.min(self.end - 1))
    }

    /// Fold window `w`'s reports in and open the next window, or end the run or the step.
    fn next(&mut self, reports: impl Iterator<Item = Report>) -> bool {
        let mut t = Report { next: Time::MAX, ..Report::default() };
        for r in reports {
            t.next = t.next.min(r.next);
            t.events += r.events;
            t.budget += r.budget;
            t.flows_started += r.flows_started;
            t.flows_finished += r.flows_finished;
            t.now = t.now.max(r.now);
            t.window_events = t.window_events.max(r.window_events);
        }
        self.critical_events += t.window_events;
        self.totals = t;
        self.last_now = t.now;
        self.w += 1;
        if t.next == Time::MAX {
            self.done = true;
        } else if self.max_time.is_some_and(|l| t.next > l) {
            self.done = true;
            self.cut_short = true;
        } else if t.events >= self.base_budget.saturating_add(t.budget) {
            self.done = true;
            self.cut_short = true;
            self.out_of_budget = true;
        } else {
            self.ran_from = self.start;
            self.start = t.next;
            self.end = t.next.saturating_add(self.lookahead);
        }
        self.done || t.events >= self.step_from.saturating_add(self.step_events)
    }
}

/// The message a panic was raised with, where it is text.
pub(super) fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned())
}

/// The mark of a retired receiving half in `rx_slot_of` (`Simulation::retire_receiver`), above every
/// connection slot; below it, the index of the half's counts in its block's `counts`.
pub(super) const RETIRED: u32 = 1 << 31;

/// Where a retired receiving half's counts were noted, if `rx` (an entry of `rx_slot_of`) marks one.
#[inline(always)]
pub(super) fn retired(rx: u32) -> Option<usize> {
    (RETIRED..ONE_PARTITION).contains(&rx).then_some((rx & !RETIRED) as usize)
}

/// A partitioned run: its partitions and where its windows stand. Held by the simulation that gathers the
/// results.
pub(super) struct Partitioned {
    /// One simulation per thread, each running a block of consecutive partitions.
    blocks: Vec<Simulation>,
    parts: usize,
    /// The fabric's own id of each port as the partitions number them.
    old_of: Arc<[u32]>,
    exchange: Exchange,
    windows: Windows,
    /// The sums of the blocks' counts at grid instants, merged after each step (`metrics::peaks`).
    peaks: crate::metrics::peaks::PeakMerge,
}

impl Partitioned {
    /// Merge what the blocks noted for the run's peaks, at grid instants up to index `last`: at the end of a
    /// step every block has passed every instant it noted.
    fn merge_peaks(&mut self, below: u64, last: u64) {
        let mut notes: Vec<_> = self.blocks.iter_mut().map(|b| &mut b.block.as_mut().unwrap().peak_notes).collect();
        self.peaks.merge(&mut notes, below, last);
    }

    /// Each block's simulation (tests: to switch on its prefetching, which changes no result).
    #[cfg(test)]
    pub(super) fn blocks_mut(&mut self) -> &mut [Simulation] {
        &mut self.blocks
    }

    /// The simulation of a partitioned run of `cfg`: it holds the partitions, runs them with `step`, and when
    /// they are done gathers their results into itself.
    pub(super) fn simulation(cfg: ScenarioConfig, topo: Arc<Topology>) -> Simulation {
        // NDP's switches send a trimmed header back the way it came, at once: a shared-out switch's port back
        // belongs to another partition.
        let shares = cfg.scheme.transport.protocol != crate::transport::Protocol::Ndp;
        let cut = Partitioning::of(cfg.partition, &topo);
        let cut = if shares { cut.shared_out(&topo) } else { cut };
        let cut = cut.with_smallest_packet(&topo, cfg.topology.format.control_wire_bytes());
        let parts = cut.parts;
        let threads = match cfg.threads.unwrap_or(1) {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n as usize,
        }
        .clamp(1, parts);
        let longest_path = (1..topo.hosts).map(|d| topo.path_ports(0, d).len() as u64).max().unwrap_or(1);
        let mut outer = Simulation::base(&cfg, topo.clone(), Vec::new(), longest_path);

        // Every flow, drawn up front, and its row (ideal FCT and deadline as the sequential engine makes them).
        let mut arrivals = cfg.workload.clone().into_arrivals(&topo, &cfg.topology, cfg.seed);
        // Homa's priority cutoffs come from the first flows, as sequentially: found before any is drawn.
        let homa = (cfg.scheme.transport.protocol == crate::transport::Protocol::Homa)
            .then(|| super::homa::HomaHosts::params_for_run(&cfg, &topo, &arrivals));
        let mut specs = Vec::new();
        while let Some(f) = arrivals.next_flow() {
            specs.push(f);
        }
        let records: Vec<FlowRecord> = specs
            .iter()
            .enumerate()
            .map(|(id, f)| {
                let ideal_fct = outer.lone_flow.fct(&topo, id as u32, f.src, f.dst, f.size_bytes);
                FlowRecord::starting(f, f.start, ideal_fct)
            })
            .collect();
        outer.flows_total = Some(records.len() as u64);
        let shared_records: Arc<[FlowRecord]> = records.clone().into();
        outer.flows = records;

        // The fabric's ports renumbered in partition order, each partition's in one block: first the ports fed
        // from afar that it runs (a switch's run of ports down stays one, in order), then its nodes', node by
        // node.
        let part_of: Arc<[u32]> = cut.part_of.clone().into();
        let owner: Vec<u32> = topo.ports.iter().map(|p| cut.owner(&topo, p)).collect();
        let mut order: Vec<u32> = (0..topo.ports.len() as u32).collect();
        order.sort_by_key(|&p| {
            let spec = &topo.ports[p as usize];
            (owner[p as usize], !cut.fed_from_afar(&topo, spec), spec.node, p)
        });
        let (numbered, old_of) = topo.ports_renumbered(&order);
        let numbered = Arc::new(numbered);
        let old_of: Arc<[u32]> = Arc::from(old_of);
        let mut numbered_as = vec![0u32; old_of.len()];
        for (new, &old) in old_of.iter().enumerate() {
            numbered_as[old as usize] = new as u32;
        }
        let numbered_as: Arc<[u32]> = Arc::from(numbered_as);
        let mut block = vec![0u32; parts + 1];
        for &old in old_of.iter() {
            block[owner[old as usize] as usize + 1] += 1;
        }
        for p in 0..parts {
            block[p + 1] += block[p];
        }
        let loss_bins = cfg.measure.loss_priority_edges.len() + 1;
        let mut sims = Vec::with_capacity(threads);
        // Thread t runs a block of consecutive partitions, cut where their work, as the traffic they can
        // carry, divides most evenly: one simulation each. Which thread runs a partition changes no result.
        // A port weighs its rate, and a host its link's rate again (its transport sends and takes in every
        // packet of the link). (By port counts, a leaf-spine cut hosts apart put the switches and a third of the
        // racks on one thread once the ports down to the hosts were the hosts': the switches' 72 fabric ports
        // at 40 Gbps carry as much as the hosts' 288 at 10 Gbps. By rates and hosts, a rack joins the switches:
        // measured the more even split, bench/RESULTS.md, thirty-fifth session.)
        let mut capacity = vec![0u64; parts + 1];
        for (spec, &here) in topo.ports.iter().zip(&owner) {
            let host = spec.node < topo.hosts;
            capacity[here as usize + 1] += spec.rate_bps / 1_000_000 * (1 + host as u64);
        }
        for p in 0..parts {
            capacity[p + 1] += capacity[p];
        }
        let bounds = balanced_blocks(&capacity, threads);
        let exchange = Exchange::new(&bounds);
        let block_of: Arc<[u32]> =
            (0..threads).flat_map(|t| std::iter::repeat_n(t as u32, bounds[t + 1] - bounds[t])).collect();
        // Each partition's flows (those its hosts send), in start order: one pass over the flows, not one per
        // partition (a fabric cut into thousands of partitions runs a million flows).
        let mut sent_by: Vec<Vec<usize>> = vec![Vec::new(); parts];
        for (i, f) in specs.iter().enumerate() {
            sent_by[part_of[f.src as usize] as usize].push(i);
        }
        for t in 0..threads {
            let (p0, p1) = (bounds[t], bounds[t + 1]);
            let ports: Vec<u32> = (block[p0]..block[p1]).collect();
            let states = crate::sim::collect_on_huge_pages(ports.iter().map(|&i| {
                let spec = &numbered.ports[i as usize];
                let mut ps = port_state(old_of[i as usize] as usize, spec, &cfg.scheme.queue, loss_bins);
                let (here, peer) = (owner[old_of[i as usize] as usize], part_of[spec.peer_node as usize]);
                ps.peer_part = if cut.is_shared(spec.peer_node) {
                    SHARED
                } else if peer == here {
                    LOCAL
                } else {
                    peer
                };
                ps.own_part = here - p0 as u32;
                ps
            }));
            let mut sim = Simulation::base(&cfg, numbered.clone(), states, longest_path);
            sim.fabric_id_of = old_of.clone();
            sim.homa = homa.as_ref().map(|params| super::homa::HomaHosts::new(topo.hosts, params.clone()));
            // A block sees a fraction of the events: buckets as wide as its share needs to hold a few each (no
            // wider than the bucket sort's radix passes reach). The width changes no result.
            let widen = (usize::BITS - threads.saturating_sub(1).leading_zeros()).min(6);
            let shift = super::event_horizon_shift(&numbered);
            let widened = (shift + widen).min(shift.max(crate::sim::event::RADIX_MAX_SHIFT));
            sim.events = crate::sim::event::EventQueue::with_slot_width(widened);
            // A block's budget counts its flows' allowances only (none when `run.max_events` is set): the base
            // counts once, for the whole run.
            sim.event_budget = 0;
            sim.port_base = block[p0];
            if cut.hosts_own_downlinks && parts > 1 {
                // (Every switch is in partition 0, so no switch's own port lies at or after it.)
                assert!((topo.hosts..topo.nodes).all(|s| part_of[s as usize] == 0));
                sim.fed_from = block[1];
            }
            sim.slot_of = vec![NO_SLOT; specs.len()];
            sim.rx_slot_of = specs
                .iter()
                .map(|f| if part_of[f.src as usize] == part_of[f.dst as usize] { ONE_PARTITION } else { NO_SLOT })
                .collect();
            let mut states = Vec::with_capacity(p1 - p0);
            for mine in sent_by[p0..p1].iter_mut().map(std::mem::take) {
                let mut arrivals = Arrivals::List { flows: mine.iter().map(|&i| specs[i]).collect(), next: 0 };
                states.push(PartState {
                    next_arrival: arrivals.next_flow(),
                    arrivals,
                    ids: mine.iter().map(|&i| i as u32).collect(),
                    next_id: 0,
                    outbox: vec![Vec::new(); threads],
                    touched: Vec::new(),
                    cut_busy: Vec::new(),
                    fed_out: Vec::new(),
                });
            }
            // Each partition's first flow, scheduled partition by partition.
            for (k, part) in states.iter().enumerate() {
                if let Some(f) = part.next_arrival {
                    let key = super::keys::flow_start(part.ids[0]);
                    sim.events.schedule_keyed(f.start, key, EventKind::FlowArrival, k as u32, 0);
                }
            }
            sim.block = Some(Box::new(Block {
                part_of: part_of.clone(),
                first: p0 as u32,
                parts: states,
                block_of: block_of.clone(),
                numbered_as: numbered_as.clone(),
                records: shared_records.clone(),
                busy_parts: PartSet::new(p1 - p0),
                touched_parts: PartSet::new(p1 - p0),
                visiting: Vec::new(),
                cut_listed: vec![false; ports.len()],
                min_sent: Time::MAX,
                lookahead: cut.lookahead,
                fed_parts: PartSet::new(p1 - p0),
                fed_in: Vec::new(),
                #[cfg(test)]
                panic_in: None,
                sent_bits: vec![0; threads * exchange.words],
                published: vec![0; 2 * threads * exchange.words],
                window_end: 0,
                last_report: Report { next: 0, ..Report::default() },
                finished: Vec::new(),
                counts: Vec::new(),
                late_out_of_order: Vec::new(),
                peak_notes: Default::default(),
                posted: 0,
                taken: 0,
            }));
            sims.push(sim);
        }
        let first = sims.iter().filter_map(|s| s.events.next_time()).min();
        let windows = Windows {
            w: 0,
            start: first.unwrap_or(0),
            end: first.unwrap_or(0).saturating_add(cut.lookahead),
            ran_from: 0,
            lookahead: cut.lookahead,
            max_time: cfg.max_sim_time,
            base_budget: cfg.max_events.unwrap_or(EVENT_BUDGET_BASE),
            step_from: 0,
            step_events: 0,
            done: first.is_none_or(|t| cfg.max_sim_time.is_some_and(|l| t > l)),
            cut_short: first.is_some_and(|t| cfg.max_sim_time.is_some_and(|l| t > l)),
            out_of_budget: false,
            totals: Report::default(),
            last_now: 0,
            critical_events: 0,
        };
        let peaks = crate::metrics::peaks::PeakMerge::new(sims.len());
        outer.partitioned = Some(Box::new(Partitioned { blocks: sims, parts, old_of, exchange, windows, peaks }));
        if windows.done {
            Self::finish(&mut outer);
        }
        outer
    }

    /// The partitions of a run, for the run statistics.
    pub(super) fn count(&self) -> usize {
        self.parts
    }

    /// Run windows until `max_events` more events have run or the run is over (then gather the results into
    /// `sim`). Returns whether the run is over.
    pub(super) fn step(sim: &mut Simulation, max_events: u64) -> bool {
        let Some(run) = sim.partitioned.as_mut() else { return true };
        if run.windows.done {
            return true;
        }
        assert!(
            !run.exchange.barrier.broken.load(Ordering::SeqCst),
            "a partitioned run cannot go on after one of its threads panicked"
        );
        run.windows.step_from = run.windows.totals.events;
        run.windows.step_events = max_events;
        let exchange = &run.exchange;
        let windows = run.windows;
        let result = match run.blocks.as_mut_slice() {
            [only] => run_block(only, 0, exchange, windows),
            [first, rest @ ..] => std::thread::scope(|scope| {
                // A thread the system refuses to start panics here, with the others already waiting at the
                // first window's end: they are let go, as from any panic.
                let _breaks = BreakOnPanic(&exchange.barrier);
                let handles: Vec<_> = rest
                    .iter_mut()
                    .enumerate()
                    .map(|(i, block)| scope.spawn(move || run_block(block, i + 1, exchange, windows)))
                    .collect();
                let mine = run_block(first, 0, exchange, windows);
                for h in handles {
                    if let Err(panic) = h.join() {
                        // Raised again here, where the caller's panic handling (the Python module's) sees it.
                        let what = panic_message(&*panic).unwrap_or_else(|| "a panic".into());
                        panic!("a partition's thread: {what}");
                    }
                }
                mine
            }),
            [] => unreachable!("at least one block"),
        };
        run.windows = result;
        if !result.done {
            // (A packet queued as of a moment of the last window run, at a port fed from afar, can still
            // correct the instants after that window's start.)
            run.merge_peaks(result.ran_from / crate::metrics::peaks::GRID + 1, u64::MAX);
        }
        let t = result.totals;
        sim.now = result.start.min(result.last_now.max(sim.now));
        sim.counters.events = t.events;
        sim.counters.flows_started = t.flows_started;
        sim.counters.flows_finished = t.flows_finished;
        if result.done {
            Self::finish(sim);
            return true;
        }
        false
    }

    /// The run is over: bring every block to its end, and gather their results into `sim`.
    fn finish(sim: &mut Simulation) {
        let mut run = sim.partitioned.take().unwrap();
        let w = run.windows;
        let end_time = match w.max_time {
            Some(limit) if w.cut_short && !w.out_of_budget => limit,
            // Stopped by its event budget, between windows: every event before the last window's end has run,
            // and its cut ports were brought up to date through the window's last moment, which may lie past
            // the last event (ending there, a port's queue was averaged over a negative span).
            _ if w.out_of_budget => w.last_moment(),
            _ => w.last_now,
        };
        // The grid instants up to the end that a block has not passed (a run cut short at its time limit): its
        // counts as they stand.
        for block in run.blocks.iter_mut() {
            if block.peak_grid.passes(end_time) {
                block.note_peaks_through(end_time);
            }
        }
        run.merge_peaks(u64::MAX, end_time / crate::metrics::peaks::GRID);
        let topo = sim.topo.clone();
        let mut ports: Vec<Option<super::PortState>> = (0..topo.ports.len()).map(|_| None).collect();
        let mut counters = RunCounters::default();
        let mut parked = 0;
        let mut budget = 0u64;
        if w.cut_short {
            // What was sent to ports fed from afar in the last window was sent by the end: it is queued, as of
            // then, before the ports send what is due.
            for (t, sim_block) in run.blocks.iter_mut().enumerate() {
                let mut fed_in = std::mem::take(&mut sim_block.block.as_mut().unwrap().fed_in);
                for o in 0..run.parts {
                    // Safety: every thread has joined.
                    let cell = unsafe { run.exchange.mail(w.w + 1, o, t) };
                    fed_in.extend(cell.iter().filter(|h| h.fed_port().is_some()).map(|&h| (o as u32, h)));
                    cell.retain(|h| h.fed_port().is_none());
                }
                sim_block.block.as_mut().unwrap().fed_in = fed_in;
                sim_block.take_fed();
            }
        }
        for o in 0..run.parts {
            for d in 0..run.blocks.len() {
                for b in 0..2u64 {
                    // Safety: every thread has joined.
                    parked += unsafe { run.exchange.mail(b, o, d).len() };
                }
            }
        }
        for sim_block in run.blocks.iter_mut() {
            if w.cut_short {
                sim_block.block.as_mut().unwrap().window_end = 0; // what is due by the cut leaves; nothing arrives
                sim_block.now = end_time;
                sim_block.send_all_due();
            }
            sim_block.finish_records();
            counters.add(&sim_block.counters);
            #[cfg(test)]
            {
                sim.spray_guesses.0 += sim_block.spray_guesses.0;
                sim.spray_guesses.1 += sim_block.spray_guesses.1;
                sim.late_copies += sim_block.late_copies;
                sim.receivers_apart += sim_block.receivers_apart;
            }
            budget = budget.saturating_add(sim_block.event_budget);
            parked += sim_block.pool.live();
            for (i, x) in sim.loss.offered.iter_mut().zip(&sim_block.loss.offered) {
                *i += x;
            }
            for (i, x) in sim.loss.dropped.iter_mut().zip(&sim_block.loss.dropped) {
                *i += x;
            }
            let block = sim_block.block.take().unwrap();
            parked += block.parts.iter().flat_map(|p| &p.outbox).map(Vec::len).sum::<usize>();
            // (Packets for ports fed from afar within a block are in its pool.)
            parked += block.fed_in.len();
            for &(flow, finish) in &block.finished {
                sim.flows[flow as usize].finish = finish;
            }
            for &(flow, retx, timeouts, ooo) in &block.counts {
                let rec = &mut sim.flows[flow as usize];
                if retx != u32::MAX {
                    rec.retransmissions = retx;
                    rec.timeouts = timeouts;
                }
                if ooo != u32::MAX {
                    rec.out_of_order = ooo;
                }
            }
            for &flow in &block.late_out_of_order {
                sim.flows[flow as usize].out_of_order += 1;
            }
            #[cfg(test)]
            sim.port_log.append(&mut sim_block.port_log);
            let base = sim_block.port_base;
            for (k, ps) in std::mem::take(&mut sim_block.ports).into_iter().enumerate() {
                ports[run.old_of[base as usize + k] as usize] = Some(ps);
            }
        }
        // A run cut short started the flows due before its last window ended: the first ones (flows are
        // numbered in start order), and only those have rows, as in a sequential run.
        debug_assert!(sim.flows[counters.flows_started as usize..].iter().all(|f| f.finish == UNFINISHED));
        sim.flows.truncate(counters.flows_started as usize);
        counters.peak_active_flows = run.peaks.peak_active_flows;
        counters.peak_live_packets = run.peaks.peak_live_packets;
        sim.counters = counters;
        sim.ports = ports.into_iter().map(|p| p.expect("every port in one partition")).collect();
        sim.now = end_time;
        sim.cut_short = w.cut_short;
        sim.out_of_budget = w.out_of_budget;
        if sim.budget_derived {
            sim.event_budget = w.base_budget.saturating_add(budget);
        }
        sim.parked_packets = parked;
        sim.partitions = run.count();
        sim.windows = w.w;
        sim.critical_events = w.critical_events;
    }
}

/// Where `threads` blocks of consecutive partitions start (and the last ends), given the partitions' weights
/// summed before each (`before`, one more entry than partitions): each block holds at least one partition,
/// and the blocks' weights are as even as consecutive cuts allow.
fn balanced_blocks(before: &[u64], threads: usize) -> Vec<usize> {
    let parts = before.len() - 1;
    let total = before[parts] as f64;
    let mut bounds = vec![0];
    for t in 1..threads {
        let goal = total * t as f64 / threads as f64;
        let lo = bounds[t - 1] + 1;
        let hi = parts - (threads - t);
        // The cut at or after `lo` whose weight before it is nearest the goal.
        let cut = (lo..=hi)
            .min_by(|&a, &b| {
                let da = (before[a] as f64 - goal).abs();
                let db = (before[b] as f64 - goal).abs();
                da.total_cmp(&db)
            })
            .unwrap_or(lo);
        bounds.push(cut);
    }
    bounds.push(parts);
    bounds
}

/// Run block `t` (the simulation of a thread's partitions) window after window until the run or the step is
/// over; every thread runs this on its own block, and all decide the same.
fn run_block(sim: &mut Simulation, t: usize, ex: &Exchange, mut windows: Windows) -> Windows {
    let _breaks = BreakOnPanic(&ex.barrier);
    let first = sim.block.as_ref().unwrap().first as usize;
    loop {
        let w = windows.w;
        #[cfg(test)]
        if sim.block.as_ref().unwrap().panic_in == Some(w) {
            panic!("block {t} fails in window {w} (on purpose)");
        }
        // (Mail comes only from other blocks.)
        let mail = ex.blocks > 1 && ex.has_mail(w + 1, t);
        let last = sim.block.as_ref().unwrap().last_report;
        if !mail && last.next >= windows.end {
            // Nothing due here in this window and nothing arrived: the report stands, and so do the counts, until
            // the block's next event: noted now for the grid instants from the next one on (noted again if the
            // block's counts change before it).
            sim.note_peaks_from(sim.peak_grid.next_index());
            let report = Report { window_events: 0, ..last };
            let block = sim.block.as_mut().unwrap();
            block.last_report = report;
            // (What it sent two windows ago no longer stands.)
            ex.publish(w, t, &mut block.sent_bits, &mut block.published);
        } else {
            if mail {
                // The mail was written on another core: ask for all of it before taking any in, so that the
                // transfers of its lines overlap (each one read when needed waited for the other core: a fifth
                // of the window's own work with two threads).
                for o in ex.mail_to(w + 1, t) {
                    // Safety: block t, at the start of window w, reads column t of buffer w - 1.
                    for h in unsafe { ex.mail(w + 1, o, t) }.iter() {
                        crate::sim::prefetch(h);
                    }
                }
                // Take in the mail of the last window from other blocks (their packets copied into this
                // block's pool), origin by origin: each packet's event is ordered among equal times by the port
                // it left (its key), wherever it is pushed.
                for o in ex.mail_to(w + 1, t) {
                    // Safety: block t, at the start of window w, drains column t of buffer w - 1.
                    let cell = unsafe { ex.mail(w + 1, o, t) };
                    for h in cell.drain(..) {
                        if h.fed_port().is_some() {
                            sim.block.as_mut().unwrap().fed_in.push((o as u32, h));
                            continue;
                        }
                        debug_assert!(h.at() >= windows.start);
                        let id = sim.pool.alloc(h.packet());
                        let block = sim.block.as_mut().unwrap();
                        block.taken += 1;
                        let port = h.port();
                        let node = sim.topo.ports[block.numbered_as[port as usize] as usize].peer_node;
                        sim.events.schedule_keyed(
                            h.at(),
                            super::keys::arrival(h.at(), port),
                            EventKind::Handed,
                            id,
                            node,
                        );
                    }
                }
            }
            let block = sim.block.as_mut().unwrap();
            if !block.fed_parts.is_empty() || !block.fed_in.is_empty() {
                sim.take_fed();
            }
            sim.run_window(windows.end);
            let flush_at = windows.last_moment();
            let mut cut_free = Time::MAX;
            let block = sim.block.as_mut().unwrap();
            let mut visiting = std::mem::take(&mut block.visiting);
            block.busy_parts.take_into(&mut visiting);
            for &k in &visiting {
                cut_free = cut_free.min(sim.flush_cut_ports(k, flush_at));
                // (Flushing lists no port: a partition whose ports still hold packets stays listed.)
                let block = sim.block.as_mut().unwrap();
                if !block.parts[k].cut_busy.is_empty() {
                    block.busy_parts.insert(k);
                }
            }
            let block = sim.block.as_mut().unwrap();
            block.touched_parts.take_into(&mut visiting);
            for &k in &visiting {
                let p = first + k;
                let part = &mut block.parts[k];
                for d in part.touched.drain(..) {
                    // Safety: partition p, in window w, writes row p of buffer w.
                    let cell = unsafe { ex.mail(w, p, d as usize) };
                    debug_assert!(cell.is_empty(), "drained a window ago");
                    std::mem::swap(cell, &mut part.outbox[d as usize]);
                    block.sent_bits[d as usize * ex.words + k / 64] |= 1 << (k % 64);
                }
            }
            block.visiting = visiting;
            ex.publish(w, t, &mut block.sent_bits, &mut block.published);
            let sent = std::mem::replace(&mut block.min_sent, Time::MAX);
            let next = sim.events.next_time().unwrap_or(Time::MAX).min(sent).min(cut_free);
            let report = Report {
                next,
                events: sim.counters.events,
                budget: sim.event_budget,
                flows_started: sim.counters.flows_started,
                flows_finished: sim.counters.flows_finished,
                now: sim.now,
                window_events: sim.counters.events - last.events,
            };
            sim.block.as_mut().unwrap().last_report = report;
        }
        let report = sim.block.as_ref().unwrap().last_report;
        // Safety: block t's thread, window after window; the reports are read before it arrives at the next.
        if !unsafe { ex.barrier.arrive(w, t, report) } {
            // Another block's thread panicked; `step` reports its panic.
            return windows;
        }
        if windows.next(unsafe { ex.barrier.reports(w) }) {
            // Every thread leaves here after the same window; the next step starts after all have joined.
            return windows;
        }
    }
}

#[cfg(test)]
mod barrier_tests {
    use super::{Report, WindowBarrier};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Every thread passes each window only after all have reached it, with every thread's report of it, and
    /// none sleeps through its window's end: with more threads than cores (waiters sleep at once) and with
    /// spinning ones.
    #[test]
    fn no_thread_passes_early_and_none_sleeps_through_a_release() {
        // A thread asleep through its release would hang the test: fail it instead, after a generous deadline.
        let finished = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watched = finished.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(120));
            if !watched.load(Ordering::Acquire) {
                eprintln!("barrier_tests: a thread slept through a release (no progress in 120 s)");
                std::process::abort();
            }
        });
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for threads in [2, cores + 2] {
            let barrier = WindowBarrier::new(threads);
            let arrived = AtomicUsize::new(0);
            const WINDOWS: usize = 20_000;
            std::thread::scope(|s| {
                for t in 0..threads {
                    let (barrier, arrived) = (&barrier, &arrived);
                    s.spawn(move || {
                        for w in 0..WINDOWS {
                            arrived.fetch_add(1, Ordering::AcqRel);
                            if (w + t) % 7 == 0 {
                                std::thread::yield_now(); // arrive late now and then
                            }
                            let report = Report { events: (w * threads + t) as u64, ..Report::default() };
                            // Safety: each thread arrives for itself, at every window in turn.
                            assert!(unsafe { barrier.arrive(2 * w as u64, t, report) }, "never broken off");
                            // Every thread has arrived at window w, and none can arrive at the next before
                            // this one reaches the second barrier; every thread's report is there.
                            assert_eq!(arrived.load(Ordering::Acquire), (w + 1) * threads, "window {w}");
                            let events: Vec<u64> = unsafe { barrier.reports(2 * w as u64) }.map(|r| r.events).collect();
                            let expected: Vec<u64> = (0..threads).map(|u| (w * threads + u) as u64).collect();
                            assert_eq!(events, expected, "window {w}");
                            assert!(unsafe { barrier.arrive(2 * w as u64 + 1, t, Report::default()) });
                        }
                    });
                }
            });
            assert_eq!(arrived.into_inner(), WINDOWS * threads);
        }
        finished.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod broken_barrier_tests {
    use super::{BreakOnPanic, Report, WindowBarrier};
    use std::panic::AssertUnwindSafe;

    /// A thread that panics breaks the barrier off: the others, spinning or asleep, return from the window it
    /// never ends (`arrive` says false) instead of waiting forever, and a run fails where it would hang.
    #[test]
    fn a_thread_that_panics_lets_the_others_go() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for threads in [2, 3, cores + 2] {
                let barrier = WindowBarrier::new(threads);
                let ended: Vec<Option<u64>> = std::thread::scope(|s| {
                    let handles: Vec<_> = (0..threads)
                        .map(|t| {
                            let barrier = &barrier;
                            s.spawn(move || {
                                std::panic::catch_unwind(AssertUnwindSafe(|| {
                                    let _breaks = BreakOnPanic(barrier);
                                    for w in 0..100u64 {
                                        if t == 1 && w == 50 {
                                            panic!("block 1 fails in window 50 (on purpose)");
                                        }
                                        // Safety: each thread arrives for itself, at every window in turn.
                                        if !unsafe { barrier.arrive(w, t, Report::default()) } {
                                            return w;
                                        }
                                    }
                                    100
                                }))
                                .ok()
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().unwrap()).collect()
                });
                tx.send((threads, ended)).unwrap();
            }
        });
        for threads in [2, 3, cores + 2] {
            // (A thread still waiting for the one that panicked would hang the test: fail it instead.)
            let got = rx.recv_timeout(std::time::Duration::from_secs(120));
            let ended = got.expect("threads still waiting for one that panicked");
            // Every thread but the one that panicked returns from window 50, where it stopped.
            let expected: Vec<Option<u64>> = (0..threads).map(|t| (t != 1).then_some(50)).collect();
            assert_eq!(ended, (threads, expected));
        }
    }
}

#[cfg(test)]
mod exchange_tests {
    use super::Exchange;

    /// The mailboxes grow with partitions times threads (a cell per partition and block, a bit per origin
    /// and receiving block), not with the square of the partitions: a 4,096-leaf fabric cut by racks kept 1.3 GB of
    /// them, and scanned 133,000 words of origin bits per window.
    #[test]
    fn mailboxes_grow_with_partitions_times_threads() {
        for (parts, threads) in [(1, 1), (16, 2), (4097, 2), (2048, 3), (4096, 64)] {
            let bounds: Vec<usize> = (0..=threads).map(|t| parts * t / threads).collect();
            let ex = Exchange::new(&bounds);
            assert_eq!(ex.mail.len(), 2 * parts * threads);
            // Each block's bits for each receiving block, on lines of their own per block.
            let per_block = parts.div_ceil(threads).div_ceil(64);
            assert_eq!(ex.words, per_block);
            assert_eq!(ex.sent.len(), 2 * threads * (threads * per_block).div_ceil(8));
            assert!(ex.sent.len() * 8 <= 2 * threads * (parts.div_ceil(64) + threads + 8));
        }
    }
}

#[cfg(test)]
mod part_set_tests {
    use super::PartSet;

    /// A window's end visits the listed partitions in increasing order, over several words, and the list is
    /// empty afterwards (what is listed again during the visit stays).
    #[test]
    fn members_come_out_in_increasing_order_and_once() {
        let mut set = PartSet::new(200);
        for k in [130, 3, 64, 199, 3, 0, 63] {
            set.insert(k);
        }
        let mut members = vec![7];
        set.take_into(&mut members);
        assert_eq!(members, vec![0, 3, 63, 64, 130, 199]);
        set.take_into(&mut members);
        assert!(members.is_empty());
        set.insert(64);
        set.take_into(&mut members);
        assert_eq!(members, vec![64]);
    }
}

#[cfg(test)]
mod handover_tests {
    use super::Handover;
    use crate::net::packet::{Packet, PacketKind};

    #[test]
    fn a_handed_packet_arrives_as_it_was_sent_with_its_time_and_port() {
        let sent = Packet {
            priority: 123_456_789_012,
            sent_at: 987_654_321_098,
            flow: 7,
            seq: 11,
            ack: 13,
            src: 17,
            dst: 19,
            payload: 1460,
            wire: 1500,
            kind: PacketKind::Ack,
            ce: true,
            ece: true,
            retransmit: true,
            loss_bin: 5,
            rate_bps: 0,
            paused_by: 0,
        };
        let h = Handover::new(u64::MAX - 1, u32::MAX - 1, &sent);
        assert_eq!((h.at(), h.port()), (u64::MAX - 1, u32::MAX - 1));
        assert_eq!(format!("{:?}", h.packet()), format!("{sent:?}"));
    }

    #[test]
    #[should_panic(expected = "a packet with a rate header crosses a cut link")]
    fn a_packet_with_a_rate_header_is_refused() {
        let mut p = Packet::header(PacketKind::Grant, 1, 2, 3, 4, 5, 40);
        p.rate_bps = 1;
        let _ = Handover::new(10, 0, &p);
    }
}
