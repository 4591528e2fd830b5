//! Homa in the engine: each host's grant scheduler (receiving) and outbox (sending), with two timers per host
//! (`EventKind::HostTick`): the next send once its NIC drains, and the next check for silent messages. The
//! decisions are `transport::homa`'s; here packets are made, sent and timed. A message's sender half is its
//! `Connection`'s `Sender` (its scoreboard, closed by the receiver's final ACK); its receiver half is the
//! generic `Receiver` and the receiving host's scheduler. Every piece of state is one host's, so a partitioned
//! run keeps each where its host runs: the sending half and the outbox at the sender, the receiving half
//! (`Simulation::receiving_half`) and the scheduler at the receiver.

use super::host_timers::HostTimers;
use super::Simulation;
use crate::config::ScenarioConfig;
use crate::metrics::lone_flow::{ack_return_ps, full_packet_trip_ps};
use crate::net::packet::{Packet, PacketKind};
use crate::net::topology::Topology;
use crate::sim::event::EventKind;
use crate::sim::rng::stream_seed;
use crate::sim::time::serialization_ps;
use crate::sim::time::Time;
use crate::transport::homa::{Grant, GrantScheduler, HomaParams, Outbox, Received, CONTROL_PRIORITY};
use crate::transport::receiver::Arrival;
use crate::workload::Arrivals;

/// `HostTick`'s `b`: which of a host's two timers fired.
const SEND: u32 = 0;
const CHECK: u32 = 1;

/// Every host's Homa state.
pub(super) struct HomaHosts {
    params: HomaParams,
    rx: Vec<GrantScheduler>,
    tx: Vec<Outbox>,
    timers: HostTimers,
    /// Grants made by the last decision, before they become packets.
    grants: Vec<Grant>,
}

/// How many of a Homa run's first messages its priority cutoffs are drawn from (a copy of the arrivals).
const SIZE_SAMPLE: usize = 100_000;

impl HomaHosts {
    /// The hosts of a run of `cfg` on `topo`: its parameters follow the fabric (RTTbytes from the grant loop
    /// over the longest path) and the workload (priority cutoffs from the first of its messages).
    pub(super) fn for_run(cfg: &ScenarioConfig, topo: &Topology, arrivals: &Arrivals) -> Box<Self> {
        Self::new(topo.hosts, Self::params_for_run(cfg, topo, arrivals))
    }

    /// The run's parameters: priority cutoffs from the workload's first messages (before any is drawn), the
    /// fabric's grant loop. A partitioned run finds them once and gives every block hosts with them.
    pub(super) fn params_for_run(cfg: &ScenarioConfig, topo: &Topology, arrivals: &Arrivals) -> HomaParams {
        let format = cfg.scheme.transport.format;
        let npkts: Vec<u32> = arrivals
            .first_sizes(SIZE_SAMPLE)
            .into_iter()
            .map(|b| format.packets_for(b).min(u32::MAX as u64) as u32)
            .collect();
        let far = topo.hosts - 1;
        let grant_loop = full_packet_trip_ps(topo, 0, far, format) + ack_return_ps(topo, 0, far, format);
        let packet_time = serialization_ps(format.full_wire_bytes() as u64, cfg.topology.links.host_rate_bps);
        let timer_seed = stream_seed(cfg.seed, "homa-timers");
        cfg.scheme.transport.homa.params(&npkts, grant_loop, packet_time, timer_seed)
    }

    pub(super) fn new(hosts: u32, params: HomaParams) -> Box<Self> {
        let n = hosts as usize;
        Box::new(HomaHosts {
            params,
            rx: vec![GrantScheduler::default(); n],
            tx: vec![Outbox::default(); n],
            timers: HostTimers::new(n),
            grants: Vec::new(),
        })
    }
}

impl Simulation {
    /// Make sure host `host`'s timer `which` fires at `at` at the latest.
    fn homa_arm(&mut self, host: u32, which: u32, at: Time) {
        if self.homa.as_mut().expect("a Homa run").timers.arm(host, which, at) {
            self.events.schedule_keyed(at, super::keys::host_tick(host, which), EventKind::HostTick, host, which);
        }
    }

    /// Host `host`'s timer `which` fired at `at` (stale if re-armed earlier or later since).
    pub(super) fn homa_tick(&mut self, host: u32, which: u32, at: Time) {
        if !self.homa.as_mut().expect("a Homa run").timers.fire(host, which, at) {
            return;
        }
        if which == SEND {
            self.homa_send(host);
        } else {
            self.homa_check(host);
        }
    }

    /// A message opens at its sender `src`: its unscheduled packets may go at once.
    pub(super) fn homa_open(&mut self, src: u32, flow: u32, npkts: u32) {
        let now = self.now;
        let homa = self.homa.as_mut().expect("a Homa run");
        homa.tx[src as usize].open(&homa.params, flow, npkts, now);
        self.homa_arm(src, SEND, now);
    }

    /// The sender's turn: once its NIC has nothing queued, the best packet it may send, and a look again when
    /// that packet has left if another may follow it (else a grant, a RESEND, a new message or a retry arms the
    /// next look: a look that would find nothing is never scheduled).
    fn homa_send(&mut self, host: u32) {
        let now = self.now;
        let nic = self.topo.nic_port(host);
        let drained = self.drains_at(nic);
        if drained > now {
            self.homa_arm(host, SEND, drained);
            return;
        }
        loop {
            let homa = self.homa.as_mut().unwrap();
            let Some(next) = homa.tx[host as usize].next(&homa.params, now) else { return };
            let slot = self.slot_of[next.flow as usize];
            if slot == super::NO_SLOT {
                continue; // acknowledged meanwhile
            }
            let conn = self.conns[slot as usize].as_mut().unwrap();
            let Some(pkt) = conn.sender.send_credited(next.seq, next.priority, next.retransmit, now, &self.transport)
            else {
                continue;
            };
            let mut out = std::mem::take(&mut self.out);
            out.push(pkt);
            self.send_from_host(host, &mut out);
            self.out = out;
            if next.more {
                let drained = self.drains_at(nic);
                self.homa_arm(host, SEND, drained);
            }
            if next.waits {
                let retry = now + self.homa.as_ref().unwrap().params.sender_retry();
                self.homa_arm(host, CHECK, retry);
            }
            return;
        }
    }

    /// Silent messages: the receiver's RESENDs and the sender's first packets again; then the next check.
    fn homa_check(&mut self, host: u32) {
        let now = self.now;
        let homa = self.homa.as_mut().unwrap();
        let retried = homa.tx[host as usize].retry_silent(&homa.params, now);
        let mut grants = std::mem::take(&mut homa.grants);
        grants.clear();
        homa.rx[host as usize].resends(&homa.params, now, &mut grants);
        let next =
            [homa.tx[host as usize].next_retry_at(&homa.params), homa.rx[host as usize].next_resend_at(&homa.params)]
                .into_iter()
                .flatten()
                .min();
        self.send_grants(host, &grants);
        self.homa.as_mut().unwrap().grants = grants;
        if retried {
            self.homa_arm(host, SEND, now);
        }
        if let Some(at) = next {
            self.homa_arm(host, CHECK, at.max(now + 1));
        }
    }

    /// `grants` leave host `host`, ahead of its data.
    fn send_grants(&mut self, host: u32, grants: &[Grant]) {
        if grants.is_empty() {
            return;
        }
        let wire = self.transport.format.control_wire_bytes();
        let mut out = std::mem::take(&mut self.out);
        for g in grants {
            out.push(grant_packet(g, host, self.now, wire));
        }
        self.send_from_host(host, &mut out);
        self.out = out;
    }

    /// A grant (or RESEND) reaches its sender.
    pub(super) fn homa_grant_arrives(&mut self, pkt: Packet) {
        self.counters.control_packets_delivered += 1;
        let grant = Grant {
            flow: pkt.flow,
            to: pkt.dst,
            offset: pkt.seq,
            priority: pkt.ack as u64,
            resend: pkt.retransmit.then_some(pkt.payload),
        };
        let now = self.now;
        let homa = self.homa.as_mut().unwrap();
        homa.tx[pkt.dst as usize].on_grant(&grant, now);
        self.homa_arm(pkt.dst, SEND, now);
    }

    /// Data reach their receiver: the scheduler learns of them and grants; the message's last packet is ACKed
    /// (the ACK that closes it at its sender), and so is any copy that arrives after it (that ACK may be lost).
    pub(super) fn homa_receive(&mut self, id: crate::net::packet::PacketId, pkt: Packet) {
        let node = pkt.dst;
        self.counters.data_packets_delivered += 1;
        let (slot, half) = match self.receiving_half(pkt.flow) {
            Ok(found) => found,
            // A copy for a message whose receiving half here was retired: ACKed as that half would.
            Err(noted) => return self.answer_late_copy(id, pkt, noted),
        };
        if slot == super::NO_SLOT {
            // A late copy for a closed message: ACKed as a retired receiving half ACKs one.
            return self.answer_closed_flow(id, pkt);
        }
        let now = self.now;
        let conn = self.conns[slot as usize].as_mut().unwrap();
        if conn.receiver.is_complete() {
            let cum = conn.receiver.cum;
            self.homa_ack(id, &pkt, cum);
            return;
        }
        let npkts = conn.sender.sb.npkts;
        let homa = self.homa.as_mut().unwrap();
        let rx = &mut homa.rx[node as usize];
        let decided = rx.on_data(&homa.params, pkt.flow, pkt.src, npkts, pkt.seq, now);
        let mut grants = std::mem::take(&mut homa.grants);
        grants.clear();
        // Only a packet of a message that needs grants, or a completion (a slot frees), changes the ranking.
        if decided == Received::Completes || (decided == Received::New && npkts > homa.params.rtt_pkts) {
            rx.grants(&homa.params, now, &mut grants);
        }
        // An arrival only delays its message's next RESEND, and a new message's comes a full wait from now: a
        // check at that time at the latest (a check finds the exact next one) needs no scan of the messages.
        let check = now + homa.params.resend_after;
        self.send_grants(node, &grants);
        self.homa.as_mut().unwrap().grants = grants;
        if decided != Received::Completes {
            self.homa_arm(node, CHECK, check);
        }
        let conn = self.conns[slot as usize].as_mut().unwrap();
        conn.receiver.note_order(pkt.seq, pkt.retransmit);
        let arrival = conn.receiver.on_packet(pkt.seq);
        let cum = conn.receiver.cum;
        self.counters.note_received(arrival.is_new_data(), pkt.payload);
        if arrival != Arrival::Completes {
            self.pool.release(id);
            return;
        }
        if self.fct_end == crate::config::FctEnd::Delivered {
            self.complete(pkt.flow);
        }
        self.retire_if_half(pkt.flow, slot, half);
        self.homa_ack(id, &pkt, cum);
    }

    /// The ACK of a complete message (everything below `cum` received) takes over data packet `id`'s slot and
    /// leaves.
    fn homa_ack(&mut self, id: crate::net::packet::PacketId, pkt: &Packet, cum: u32) {
        let ack = super::ack_for(pkt, cum, self.transport.format);
        *self.pool.get_mut(id) = ack;
        self.counters.control_packets_sent += 1;
        let port = self.topo.nic_port(pkt.dst);
        self.enqueue(port, id);
    }

    /// The message closed at its sender: it leaves the outbox.
    pub(super) fn homa_forget(&mut self, host: u32, flow: u32) {
        if let Some(homa) = self.homa.as_mut() {
            homa.tx[host as usize].forget(flow);
        }
    }
}

/// A grant on the wire: header-size, at the control level; `seq` carries the offset, `ack` the level its
/// packets go at, and a RESEND sets `retransmit` with the packet asked for in `payload` (a grant carries no data;
/// its rate header stays empty, which a partitioned run's handover needs).
fn grant_packet(g: &Grant, from: u32, now: Time, wire: u32) -> Packet {
    Packet {
        priority: CONTROL_PRIORITY,
        ack: g.priority as u32,
        retransmit: g.resend.is_some(),
        payload: g.resend.unwrap_or(0),
        ..Packet::header(PacketKind::Grant, g.flow, g.offset, from, g.to, now, wire)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::test_support::{conserved, run, trace};

    /// The receiver grants the shortest message first: of two messages into one host, started together, the
    /// shorter finishes as if alone and the longer right after it (the bottleneck never idles).
    #[test]
    fn a_receiver_serves_the_shorter_of_two_messages_first() {
        let json = format!(
            r#"{{"scheme": {{"name": "homa", "overcommit": 1}}, "workload": {}}}"#,
            trace(&[(0.0, 1, 0, 400 * 1460), (0.0, 2, 0, 100 * 1460)])
        );
        let sim = run(&json);
        let f = sim.flows();
        let short = f[1].finish - f[1].start;
        assert!((short as f64) < 1.15 * f[1].ideal_fct as f64, "short {short} against {}", f[1].ideal_fct);
        let both = 500.0 * 1500.0 * 8.0 / 10e9 * 1e12;
        assert!((f[0].finish as f64) < 1.05 * both + 20e6, "long ends at {} ps, both take {both}", f[0].finish);
        conserved(&sim);
    }

    #[test]
    fn incast_finishes_every_flow_near_the_receivers_link_time() {
        let flows: Vec<(f64, u32, u32, u64)> = (1..=20).map(|s| (0.0, s, 0, 200_000)).collect();
        let json = format!(r#"{{"scheme": {{"name": "homa"}}, "workload": {}}}"#, trace(&flows));
        let sim = run(&json);
        let c = sim.counters();
        assert_eq!(c.flows_finished, 20);
        let last = sim.flows().iter().map(|f| f.finish).max().unwrap();
        let best = 20.0 * 137.0 * 1500.0 * 8.0 / 10e9 * 1e12;
        assert!((last as f64) < 1.05 * best + 50e6, "last finish {last} ps, best {best}");
        conserved(&sim);
    }

    /// Losses are recovered: with a buffer of four packets per port, a 40-sender incast drops packets, and
    /// every message still completes (RESENDs and the senders' retries).
    #[test]
    fn an_incast_that_overflows_small_buffers_still_completes() {
        let flows: Vec<(f64, u32, u32, u64)> = (1..=40).map(|s| (0.0, s, 0, 30 * 1460)).collect();
        let json = format!(r#"{{"scheme": {{"name": "homa", "queue_bytes": 6000}}, "workload": {}}}"#, trace(&flows));
        let sim = run(&json);
        let c = sim.counters();
        assert!(c.data_packets_dropped > 0, "the test needs losses");
        assert_eq!(c.flows_finished, 40);
        conserved(&sim);
    }

    /// Regression: 199 one-packet messages into one host through ports of two packets. Their senders, hearing
    /// nothing, tried again all together, lost together again and doubled their waits to seconds (the last
    /// finished after 9 s); spread by the timers' jitter, they are all through within 20 ms (with RESENDs after
    /// 100 us, the senders' retries after 1 ms: the default's tenth, the scale this was found at).
    #[test]
    fn messages_lost_together_do_not_retry_together() {
        let flows: Vec<(f64, u32, u32, u64)> = (1..200).map(|s| (0.0, s, 0, 1460)).collect();
        let json = format!(
            r#"{{"topology": {{"kind": "star", "hosts": 200}}, "scheme": {{"name": "homa", "queue_bytes": 3000,
                "resend_us": 100}}, "workload": {}}}"#,
            trace(&flows)
        );
        let sim = run(&json);
        assert_eq!(sim.counters().flows_finished, 199);
        assert!(sim.counters().data_packets_dropped > 100, "the test needs the losses");
        let last = sim.flows().iter().map(|f| f.finish).max().unwrap();
        assert!(last < 20_000_000_000, "last finish {last} ps");
        conserved(&sim);
    }

    /// Web search at 60% load on the paper's fabric: every flow finishes, none below its ideal, every packet
    /// delivered or dropped, and Homa's mean slowdown within 1.1x of pFabric's (both approximate SRPT).
    #[test]
    fn web_search_at_load_0_6_finishes_every_flow_near_pfabric() {
        let mean = |scheme: &str| {
            let json = format!(
                r#"{{"seed": 1, "scheme": {{"name": "{scheme}"}}, "workload": {{"load": 0.6, "flows": 2000,
                    "cdf": {{"size_bytes": [8760, 8760, 18980, 29200, 58400, 87600, 116800, 146000, 292000, 1460000, 2920000, 4380000, 29200000],
                             "cdf": [0, 0.15, 0.2, 0.3, 0.4, 0.53, 0.6, 0.7, 0.8, 0.9, 0.97, 0.98, 1.0]}}}}}}"#
            );
            let sim = run(&json);
            let flows = sim.flows();
            assert!(flows.iter().all(|f| f.finish != crate::metrics::UNFINISHED), "{scheme}: unfinished flows");
            assert!(flows.iter().all(|f| f.finish - f.start >= f.ideal_fct), "{scheme}: a flow beat its ideal");
            conserved(&sim);
            flows.iter().map(|f| (f.finish - f.start) as f64 / f.ideal_fct as f64).sum::<f64>() / flows.len() as f64
        };
        let (homa, pfabric) = (mean("homa"), mean("pfabric"));
        assert!(homa < 1.1 * pfabric, "Homa {homa:.3}, pFabric {pfabric:.3}");
    }
}
