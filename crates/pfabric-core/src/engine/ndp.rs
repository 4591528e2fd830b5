//! NDP in the engine: each host's outbox (sending) and pull pacer (receiving), with four timers per host
//! (`EventKind::HostTick`): the next send once its NIC drains, the next waiting pull, the next sender
//! timeout, and the next check for flows its receiver has heard nothing of. The decisions are `transport::ndp`'s; here packets are made, sent and timed. A
//! flow's sender half is its `Connection`'s `Sender` (its scoreboard, closed when every packet is ACKed); its
//! receiver half is the generic `Receiver` and the receiving host's pacer. The switches' part, trimming, is
//! `queue::trimming`. Every piece of host state is one host's, so a partitioned run keeps each where its host
//! runs (the receiving half: `Simulation::receiving_half`); a pull rides on an ACK or NACK in its `payload`,
//! not in the rate header a handover uses. A header returned to its sender turns at its port's switch at once,
//! which the partition of a port fed from afar (hosts apart) cannot do: NDP is never cut so
//! (`parallel::partitionable`; unset, its fabrics other than fat-trees are cut by racks).

use super::host_timers::HostTimers;
use super::Simulation;
use crate::config::ScenarioConfig;
use crate::metrics::lone_flow::{ack_return_ps, full_packet_trip_ps};
use crate::net::packet::{Packet, PacketId, PacketKind};
use crate::net::topology::Topology;
use crate::sim::event::EventKind;
use crate::sim::rng::stream_seed;
use crate::sim::time::{serialization_ps, Time};
use crate::transport::ndp::{NdpParams, Outbox, PullPacer};
use crate::transport::receiver::Arrival;

/// `HostTick`'s `b`: which of a host's four timers fired.
const SEND: u32 = 0;
const PACE: u32 = 1;
const TIMEOUT: u32 = 2;
const SILENCE: u32 = 3;

/// Every host's NDP state.
pub(super) struct NdpHosts {
    params: NdpParams,
    tx: Vec<Outbox>,
    rx: Vec<PullPacer>,
    timers: HostTimers<4>,
}

impl NdpHosts {
    /// The hosts of a run of `cfg` on `topo`: the first window covers the pull loop over the longest path.
    pub(super) fn for_run(cfg: &ScenarioConfig, topo: &Topology) -> Box<Self> {
        let format = cfg.scheme.transport.format;
        let far = topo.hosts - 1;
        let pull_loop = full_packet_trip_ps(topo, 0, far, format) + ack_return_ps(topo, 0, far, format);
        let packet_time = serialization_ps(format.full_wire_bytes() as u64, cfg.topology.links.host_rate_bps);
        let params = cfg.scheme.transport.ndp.params(pull_loop, packet_time, stream_seed(cfg.seed, "ndp-timers"));
        let n = topo.hosts as usize;
        Box::new(NdpHosts {
            params,
            tx: vec![Outbox::default(); n],
            rx: vec![PullPacer::default(); n],
            timers: HostTimers::new(n),
        })
    }
}

impl Simulation {
    fn ndp_arm(&mut self, host: u32, which: u32, at: Time) {
        if self.ndp.as_mut().expect("an NDP run").timers.arm(host, which, at) {
            self.events.schedule_keyed(at, super::keys::host_tick(host, which), EventKind::HostTick, host, which);
        }
    }

    /// Host `host`'s timer `which` fired at `at` (stale if re-armed since).
    pub(super) fn ndp_tick(&mut self, host: u32, which: u32, at: Time) {
        if !self.ndp.as_mut().expect("an NDP run").timers.fire(host, which, at) {
            return;
        }
        match which {
            SEND => self.ndp_send(host),
            PACE => self.ndp_pace(host),
            TIMEOUT => self.ndp_time_out(host),
            _ => self.ndp_pull_silent(host),
        }
    }

    /// A flow opens at its sender `src`: its first window may go.
    pub(super) fn ndp_open(&mut self, src: u32, flow: u32, npkts: u32) {
        let now = self.now;
        let ndp = self.ndp.as_mut().expect("an NDP run");
        ndp.tx[src as usize].open(&ndp.params, flow, npkts, now);
        self.ndp_arm(src, SEND, now);
    }

    /// Whether packet `seq` of `flow` is ACKed at its sender (true once the flow has closed).
    fn ndp_acked(&self, flow: u32, seq: u32) -> bool {
        let slot = self.slot_of[flow as usize];
        slot == super::NO_SLOT || self.conns[slot as usize].as_ref().unwrap().sender.sb.is_acked(seq)
    }

    /// The sender's turn: once its NIC has nothing queued, the next packet a pull allows, and a look again
    /// when that packet has left.
    fn ndp_send(&mut self, host: u32) {
        let now = self.now;
        let nic = self.topo.nic_port(host);
        let drained = self.drains_at(nic);
        if drained > now {
            self.ndp_arm(host, SEND, drained);
            return;
        }
        let mut tx = std::mem::take(&mut self.ndp.as_mut().unwrap().tx[host as usize]);
        let next = tx.next(now, |flow, seq| self.ndp_acked(flow, seq));
        let more = tx.has_turns();
        self.ndp.as_mut().unwrap().tx[host as usize] = tx;
        let Some(next) = next else { return };
        let slot = self.slot_of[next.flow as usize];
        let conn = self.conns[slot as usize].as_mut().unwrap();
        let pkt = conn.sender.send_credited(next.seq, 0, next.retransmit, now, &self.transport);
        let mut out = std::mem::take(&mut self.out);
        out.extend(pkt);
        self.send_from_host(host, &mut out);
        self.out = out;
        if more {
            let drained = self.drains_at(nic);
            self.ndp_arm(host, SEND, drained);
        }
        let ndp = self.ndp.as_ref().unwrap();
        if let Some(at) = ndp.tx[host as usize].next_timeout_at(&ndp.params) {
            self.ndp_arm(host, TIMEOUT, at.max(now + 1));
        }
    }

    /// The receiver's pacer: the waiting pull due now, and the next one's time.
    fn ndp_pace(&mut self, host: u32) {
        let now = self.now;
        let ndp = self.ndp.as_mut().unwrap();
        let pull = ndp.rx[host as usize].release(&ndp.params, now);
        let next = ndp.rx[host as usize].next_release_at(&ndp.params);
        if let Some(pull) = pull {
            let wire = self.transport.format.control_wire_bytes();
            let mut out = std::mem::take(&mut self.out);
            out.push(Packet::header(PacketKind::Grant, pull.flow, pull.number, host, pull.to, now, wire));
            self.send_from_host(host, &mut out);
            self.out = out;
        }
        if let Some(at) = next {
            self.ndp_arm(host, PACE, at.max(now + 1));
        }
    }

    /// Flows silent past their timeout send again.
    fn ndp_time_out(&mut self, host: u32) {
        let now = self.now;
        let mut tx = std::mem::take(&mut self.ndp.as_mut().unwrap().tx[host as usize]);
        let params = self.ndp.as_ref().unwrap().params;
        let mut timed_out = Vec::new();
        tx.time_out(&params, now, |flow, seq| self.ndp_acked(flow, seq), &mut timed_out);
        let next = tx.next_timeout_at(&params);
        self.ndp.as_mut().unwrap().tx[host as usize] = tx;
        for &flow in &timed_out {
            let slot = self.slot_of[flow as usize];
            self.conns[slot as usize].as_mut().unwrap().sender.timeouts += 1;
        }
        if !timed_out.is_empty() {
            self.ndp_arm(host, SEND, now);
        }
        if let Some(at) = next {
            self.ndp_arm(host, TIMEOUT, at.max(now + 1));
        }
    }

    /// The receiver's incomplete flows it has heard nothing of, with no pull waiting: pulled again.
    fn ndp_pull_silent(&mut self, host: u32) {
        let now = self.now;
        let ndp = self.ndp.as_mut().unwrap();
        let rx = &mut ndp.rx[host as usize];
        let any = rx.pull_silent(&ndp.params, now);
        let next = rx.next_silence_at(&ndp.params);
        if any {
            let at = rx.next_release_at(&ndp.params).expect("a pull waits");
            self.ndp_arm(host, PACE, at.max(now));
        }
        if let Some(at) = next {
            self.ndp_arm(host, SILENCE, at.max(now + 1));
        }
    }

    /// A packet of `flow` from `src` arrived at `host`: the pull it asks for, if it may ride on the answer
    /// (otherwise it waits in the pacer, whose timer is armed).
    fn ndp_ask_pull(&mut self, host: u32, flow: u32, src: u32) -> u32 {
        let now = self.now;
        let ndp = self.ndp.as_mut().unwrap();
        // Heard of now: its silence would end one wait from now at the earliest (a check then finds the exact
        // next one, with no scan of the flows here).
        let check = now + ndp.params.silence(flow, 0);
        let rx = &mut ndp.rx[host as usize];
        let number = match rx.on_arrival(&ndp.params, flow, src, now) {
            Some(pull) => pull.number,
            None => {
                let at = rx.next_release_at(&ndp.params).expect("a pull waits");
                self.ndp_arm(host, PACE, at.max(now));
                0
            }
        };
        self.ndp_arm(host, SILENCE, check);
        number
    }

    /// Data reach their receiver: an ACK (carrying a pull, or with one queued) takes over the packet's slot.
    /// The flow's last packet drops its waiting pulls; a copy after it is ACKed again, asking for nothing.
    pub(super) fn ndp_receive(&mut self, id: PacketId, pkt: Packet) {
        let host = pkt.dst;
        self.counters.data_packets_delivered += 1;
        let (slot, half) = match self.receiving_half(pkt.flow) {
            Ok(found) => found,
            // A copy for a flow whose receiving half here was retired: ACKed again, asking for nothing.
            Err(noted) => return self.answer_late_copy(id, pkt, noted),
        };
        if slot == super::NO_SLOT {
            // A late copy for a closed flow: ACKed as a retired receiving half ACKs one.
            return self.answer_closed_flow(id, pkt);
        }
        let conn = self.conns[slot as usize].as_mut().unwrap();
        let was_complete = conn.receiver.is_complete();
        conn.receiver.note_order(pkt.seq, pkt.retransmit);
        let arrival = conn.receiver.on_packet(pkt.seq);
        let cum = conn.receiver.cum;
        self.counters.note_received(arrival.is_new_data(), pkt.payload);
        let pull = if arrival == Arrival::Completes || was_complete {
            if arrival == Arrival::Completes {
                self.ndp.as_mut().unwrap().rx[host as usize].complete(pkt.flow);
                if self.fct_end == crate::config::FctEnd::Delivered {
                    self.complete(pkt.flow);
                }
                self.retire_if_half(pkt.flow, slot, half);
            }
            0
        } else {
            self.ndp_ask_pull(host, pkt.flow, pkt.src)
        };
        let mut ack = super::ack_for(&pkt, cum, self.transport.format);
        ack.payload = pull;
        self.ndp_answer(id, ack);
    }

    /// A trimmed header reaches its receiver: a NACK asks for the packet again (with a pull, as an ACK).
    pub(super) fn ndp_trimmed(&mut self, id: PacketId, pkt: Packet) {
        let host = pkt.dst;
        self.counters.control_packets_delivered += 1;
        let slot = match self.receiving_half(pkt.flow) {
            Ok((slot, _)) => slot,
            Err(_) => super::NO_SLOT, // a retired receiving half: it holds every packet
        };
        if slot == super::NO_SLOT || self.conns[slot as usize].as_ref().unwrap().receiver.is_complete() {
            self.pool.release(id);
            return; // nothing more to ask for
        }
        let cum = self.conns[slot as usize].as_ref().unwrap().receiver.cum;
        let pull = self.ndp_ask_pull(host, pkt.flow, pkt.src);
        let mut nack = super::ack_for(&pkt, cum, self.transport.format);
        nack.kind = PacketKind::Nack;
        nack.payload = pull;
        self.ndp_answer(id, nack);
    }

    /// An ACK or NACK leaves its receiver in data packet `id`'s slot.
    fn ndp_answer(&mut self, id: PacketId, answer: Packet) {
        let port = self.topo.nic_port(answer.src);
        *self.pool.get_mut(id) = answer;
        self.counters.control_packets_sent += 1;
        self.enqueue(port, id);
    }

    /// An ACK, NACK or pull reaches its sender: the outbox hears it (and may send), then an ACK closes its
    /// packet at the flow's scoreboard as any ACK does.
    pub(super) fn ndp_sender_hears(&mut self, pkt: Packet) {
        let now = self.now;
        let host = pkt.dst;
        let tx = &mut self.ndp.as_mut().unwrap().tx[host as usize];
        match pkt.kind {
            PacketKind::Grant => {
                self.counters.control_packets_delivered += 1;
                tx.on_pull(pkt.flow, pkt.seq);
            }
            PacketKind::Nack => {
                self.counters.control_packets_delivered += 1;
                tx.on_answer(pkt.flow, Some(pkt.seq), pkt.sent_at, now);
            }
            PacketKind::Bounced => {
                self.counters.control_packets_delivered += 1;
                tx.on_bounce(pkt.flow, pkt.seq, pkt.sent_at, now);
            }
            _ => tx.on_answer(pkt.flow, None, pkt.sent_at, now),
        }
        if matches!(pkt.kind, PacketKind::Ack | PacketKind::Nack) && pkt.payload != 0 {
            tx.on_pull(pkt.flow, pkt.payload);
        }
        if tx.has_turns() {
            self.ndp_arm(host, SEND, now);
        }
        if pkt.kind == PacketKind::Ack {
            self.receive_ack(pkt); // counts it delivered
        }
    }

    /// Trimmed header `id` found port `port`'s header queue full: it goes back to its sender from the port's
    /// switch (return-to-sender, NDP section 3.1), which sends the packet again.
    pub(super) fn ndp_return_to_sender(&mut self, port: u32, id: PacketId) {
        self.counters.headers_returned += 1;
        let p = self.pool.get_mut(id);
        (p.src, p.dst, p.kind) = (p.dst, p.src, PacketKind::Bounced);
        let node = self.topo.ports[port as usize].node;
        self.arrive_at(id, node, super::SOME_PART);
    }

    /// The flow closed at its sender: it leaves the outbox.
    pub(super) fn ndp_forget(&mut self, host: u32, flow: u32) {
        if let Some(ndp) = self.ndp.as_mut() {
            ndp.tx[host as usize].forget(flow);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::test_support::{conserved, run, trace};

    /// Two flows into one host, started together: the receiver pulls them in turn, so they share its link and
    /// finish close together, both near the time the link needs for both.
    #[test]
    fn a_receiver_shares_its_link_between_two_flows() {
        let json = format!(
            r#"{{"scheme": {{"name": "ndp"}}, "workload": {}}}"#,
            trace(&[(0.0, 1, 0, 300 * 1460), (0.0, 2, 0, 300 * 1460)])
        );
        let sim = run(&json);
        let f = sim.flows();
        let both = 600.0 * 1500.0 * 8.0 / 10e9 * 1e12;
        for flow in f {
            assert!((flow.finish as f64) < 1.05 * both + 20e6, "finish {} ps, both take {both}", flow.finish);
            assert!((flow.finish as f64) > 0.9 * both, "finish {} ps: not shared", flow.finish);
        }
        conserved(&sim);
    }

    /// An incast of 40 senders (a first window of 13 packets each, into data queues of 8): the switch trims
    /// what does not fit, the receiver asks for it again, and every flow finishes near the link's time for
    /// all of them, with no timeout.
    #[test]
    fn an_incast_trims_instead_of_dropping_and_finishes_near_the_link_time() {
        let flows: Vec<(f64, u32, u32, u64)> = (1..=40).map(|s| (0.0, s, 0, 100 * 1460)).collect();
        let json = format!(r#"{{"scheme": {{"name": "ndp"}}, "workload": {}}}"#, trace(&flows));
        let sim = run(&json);
        let c = sim.counters();
        assert_eq!(c.flows_finished, 40);
        assert!(c.data_packets_trimmed > 100, "the test needs trimming: {}", c.data_packets_trimmed);
        assert_eq!(c.control_packets_dropped, 0);
        let last = sim.flows().iter().map(|f| f.finish).max().unwrap();
        let best = 40.0 * 100.0 * 1500.0 * 8.0 / 10e9 * 1e12;
        assert!((last as f64) < 1.1 * best + 50e6, "last finish {last} ps, best {best}");
        assert!(sim.flows().iter().all(|f| f.timeouts == 0));
        conserved(&sim);
    }

    /// Headers returned and lost too: ports of one data packet and one header, 30 senders. Returned headers
    /// are sent again on pulls, lost ones after the timeout, and every flow completes.
    #[test]
    fn returned_and_lost_headers_are_recovered() {
        let flows: Vec<(f64, u32, u32, u64)> = (1..=30).map(|s| (0.0, s, 0, 20 * 1460)).collect();
        let json = format!(
            r#"{{"scheme": {{"name": "ndp", "data_pkts": 1, "header_queue_bytes": 40}}, "workload": {}}}"#,
            trace(&flows)
        );
        let sim = run(&json);
        let c = sim.counters();
        assert!(c.control_packets_dropped > 0, "the test needs lost headers");
        assert!(sim.flows().iter().any(|f| f.timeouts > 0), "the test needs timeouts");
        assert_eq!(c.flows_finished, 30);
        conserved(&sim);
    }
}
