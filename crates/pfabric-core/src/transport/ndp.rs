//! NDP's two host halves (Handley et al., "Re-architecting datacenter networks and stacks for low latency and
//! high performance", SIGCOMM 2017), as state machines a host drives: the sender's [`Outbox`] and the
//! receiver's [`PullPacer`]. Rules from the paper (section 3) and the authors' simulator (htsim, `ndp.cpp`:
//! `NdpSrc`, `NdpSink`, `NdpPullPacer`; docs/receiver-driven-notes.md):
//!
//! - A flow's first window goes at once, at line rate, with no handshake.
//! - Its receiver answers every packet: an ACK for data, a NACK for a header whose payload a switch trimmed.
//!   Each answer also asks the sender for one more packet, a PULL. Pulls leave the receiver no faster than
//!   one per full data packet's time on its link, so what they pull never exceeds that link.
//!   - When the pacer is free, the ACK or NACK carries the pull itself.
//!   - Otherwise the answer leaves at once without it, and the pull waits in the pacer's queue. The queue
//!     takes flows in turn (htsim's `FairPullQueue`): a receiver shares its link among its senders, which is
//!     processor sharing.
//!   - A flow whose last packet arrived has its waiting pulls dropped (`release_pulls`).
//! - Pulls are numbered per flow. A pull numbered n lets the sender send up to n packets beyond its first
//!   window, so a lost pull is made good by the next one.
//! - A sender sends one packet per pull: a packet NACKed before a new one. A pull it has no packet for is
//!   spent.
//! - Losses that nothing answers (a header dropped by a full header queue, a lost ACK or pull) are found by a
//!   retransmission timer, NDP's backstop. A flow that has packets out, none of them answered, and has heard
//!   nothing for `rto` queues every unanswered packet again and sends one of them. The answer restarts the
//!   pull clock.
//!
//! The engine owns the timers and the packets; these types only decide.

use crate::sim::time::Time;

/// NDP's parameters as a scenario gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpConfig {
    /// Packets a flow sends before any pull: its first window. 0: derived from the fabric, the packets that
    /// leave while a full packet crosses the longest path and its ACK (carrying a pull) comes back, so a flow
    /// alone never waits for a pull (13 on the pFabric paper's fabric).
    pub init_window_pkts: u32,
    /// How long a sender with unanswered packets hears nothing before it sends them again, microseconds.
    pub rto_us: f64,
}

impl NdpConfig {
    pub const DEFAULT: NdpConfig = NdpConfig { init_window_pkts: 0, rto_us: 1000.0 };

    /// The run's parameters, given the pull loop (a full packet's trip over the longest path and its ACK's
    /// back) and one full packet's time on the host link.
    pub fn params(&self, pull_loop: Time, packet_time: Time, timer_seed: u64) -> NdpParams {
        let init_window = if self.init_window_pkts != 0 {
            self.init_window_pkts
        } else {
            pull_loop.div_ceil(packet_time.max(1)).max(1) as u32
        };
        NdpParams {
            init_window,
            pull_spacing: packet_time.max(1),
            rto: crate::sim::time::ps_from_us(self.rto_us),
            timer_seed,
        }
    }
}

/// NDP's parameters for a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpParams {
    pub init_window: u32,
    /// The least time between two pulls of one receiver: a full data packet's time on its link.
    pub pull_spacing: Time,
    pub rto: Time,
    /// Seeds the spread of the retransmission timers' waits.
    pub timer_seed: u64,
}

/// Most doublings of a flow's retransmission wait.
const MAX_BACKOFF: u32 = 6;

impl NdpParams {
    /// The wait before a flow's `n`th retransmission in a row: doubled each time (at most [`MAX_BACKOFF`]
    /// times) and stretched by up to as much again, a fraction fixed by (`flow`, `n`) and the run's seed, so
    /// that the flows of an incast that lost their packets together do not send again together.
    pub fn rto_wait(&self, flow: u32, n: u32) -> Time {
        let wait = self.rto << n.min(MAX_BACKOFF);
        if n == 0 {
            return wait;
        }
        let spread = crate::sim::rng::unit_hash(self.timer_seed, (flow as u64) << 32 | n as u64);
        wait + (wait as f64 * spread) as Time
    }
}

/// A flow at its sender.
#[derive(Clone, Debug)]
struct Outbound {
    flow: u32,
    npkts: u32,
    /// The next packet never sent.
    next: u32,
    /// The highest pull number heard of.
    pulls: u32,
    /// Packets NACKed (or given up on by the timer), to go before new ones.
    resend: Vec<u32>,
    /// Packets sent and not answered yet (neither ACKed nor NACKed) since it last heard from its receiver.
    unanswered: u32,
    /// When it last heard from its receiver (or, sending into silence, last sent).
    last_heard: Time,
    /// Timeouts since it last heard from its receiver.
    retries: u32,
}

/// A data packet to send: packet `seq` of `flow`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ToSend {
    pub flow: u32,
    pub seq: u32,
    pub retransmit: bool,
}

/// The flows a sending host has to send, and the packets it may send: one per pull, in the order the pulls
/// came (each one a turn of its flow).
#[derive(Clone, Debug, Default)]
pub struct Outbox {
    flows: Vec<Outbound>,
    /// One entry per packet this host may send: the flow whose pull (or first window) allows it.
    turns: std::collections::VecDeque<u32>,
}

impl Outbox {
    fn find(&self, flow: u32) -> Option<usize> {
        self.flows.iter().position(|m| m.flow == flow)
    }

    /// A flow of `npkts` packets starts at `now`: its first window may go.
    pub fn open(&mut self, p: &NdpParams, flow: u32, npkts: u32, now: Time) {
        self.flows.push(Outbound {
            flow,
            npkts,
            next: 0,
            pulls: 0,
            resend: Vec::new(),
            unanswered: 0,
            last_heard: now,
            retries: 0,
        });
        self.turns.extend(std::iter::repeat_n(flow, npkts.min(p.init_window) as usize));
    }

    /// An ACK or NACK of `flow` arrived at `now`; a NACK names the packet to send again.
    pub fn on_answer(&mut self, flow: u32, nacked: Option<u32>, now: Time) {
        let Some(i) = self.find(flow) else { return };
        let m = &mut self.flows[i];
        m.last_heard = now;
        m.retries = 0;
        m.unanswered = m.unanswered.saturating_sub(1);
        if let Some(seq) = nacked {
            if seq < m.next && !m.resend.contains(&seq) {
                m.resend.push(seq);
            }
        }
    }

    /// Pull number `number` of `flow` arrived at `now`: one more turn for each pull not heard of before.
    pub fn on_pull(&mut self, flow: u32, number: u32, now: Time) {
        let Some(i) = self.find(flow) else { return };
        let m = &mut self.flows[i];
        m.last_heard = now;
        m.retries = 0;
        if number > m.pulls {
            let new = number - m.pulls;
            m.pulls = number;
            self.turns.extend(std::iter::repeat_n(flow, new as usize));
        }
    }

    /// The packet to send now, if any turn has one: the next turn's flow sends a NACKed packet before a new
    /// one; a turn whose flow has nothing to send (or has closed) is spent. `answered(flow, seq)` says whether
    /// a packet to send again has been ACKed since (its NACK then came from a trimmed copy).
    pub fn next(&mut self, now: Time, mut answered: impl FnMut(u32, u32) -> bool) -> Option<ToSend> {
        while let Some(flow) = self.turns.pop_front() {
            let Some(i) = self.find(flow) else { continue };
            let m = &mut self.flows[i];
            let mut pick = None;
            while let Some(seq) = m.resend.pop() {
                if !answered(flow, seq) {
                    pick = Some((seq, true));
                    break;
                }
            }
            if pick.is_none() && m.next < m.npkts {
                m.next += 1;
                pick = Some((m.next - 1, false));
            }
            let Some((seq, retransmit)) = pick else { continue };
            if m.unanswered == 0 {
                m.last_heard = now; // its silence counts from the first packet out unanswered
            }
            m.unanswered += 1;
            return Some(ToSend { flow, seq, retransmit });
        }
        None
    }

    /// Flows that have packets out unanswered and heard nothing for their wait: every packet they sent that
    /// `answered(flow, seq)` says is not ACKed goes again, and the flow gets one turn. Returns whether any did.
    pub fn time_out(&mut self, p: &NdpParams, now: Time, mut answered: impl FnMut(u32, u32) -> bool) -> bool {
        let mut any = false;
        for m in &mut self.flows {
            if m.unanswered == 0 || m.last_heard + p.rto_wait(m.flow, m.retries) > now {
                continue;
            }
            for seq in 0..m.next {
                if !answered(m.flow, seq) && !m.resend.contains(&seq) {
                    m.resend.push(seq);
                }
            }
            m.resend.sort_unstable_by(|a, b| b.cmp(a)); // the lowest goes first (popped from the end)
            m.unanswered = 0;
            m.retries += 1;
            m.last_heard = now;
            self.turns.push_back(m.flow);
            any = true;
        }
        any
    }

    /// When the next flow may time out, if any has packets out unanswered.
    pub fn next_timeout_at(&self, p: &NdpParams) -> Option<Time> {
        self.flows.iter().filter(|m| m.unanswered > 0).map(|m| m.last_heard + p.rto_wait(m.flow, m.retries)).min()
    }

    /// Whether a turn is waiting.
    pub fn has_turns(&self) -> bool {
        !self.turns.is_empty()
    }

    /// Flow `flow` is acknowledged in full: it leaves (its turns left are spent when reached).
    pub fn forget(&mut self, flow: u32) {
        if let Some(i) = self.find(flow) {
            self.flows.swap_remove(i);
        }
    }
}

/// A flow at its receiver's pacer.
#[derive(Clone, Copy, Debug)]
struct Inbound {
    flow: u32,
    src: u32,
    /// Pulls sent so far (the number the last one carried).
    pulled: u32,
    /// Pulls waiting in the queue.
    waiting: u32,
}

/// A pull leaving a receiver: pull number `number` of `flow`, to its sender `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pull {
    pub flow: u32,
    pub to: u32,
    pub number: u32,
}

/// A receiving host's pull pacer: at most one pull per `pull_spacing`, the waiting ones taken a flow at a
/// time in turn.
#[derive(Clone, Debug, Default)]
pub struct PullPacer {
    flows: Vec<Inbound>,
    /// Flows with pulls waiting, in turn order (each at most once).
    queue: std::collections::VecDeque<u32>,
    /// When the last pull left; None before the first.
    last: Option<Time>,
}

impl PullPacer {
    fn find(&self, flow: u32) -> Option<usize> {
        self.flows.iter().position(|f| f.flow == flow)
    }

    fn free_at(&self, p: &NdpParams) -> Time {
        self.last.map_or(0, |t| t + p.pull_spacing)
    }

    /// A packet of `flow` (from `src`) arrived at `now` and its answer leaves: the pull it asks for goes with
    /// the answer (returned) when the pacer is free and nothing waits, or else waits its turn.
    pub fn on_arrival(&mut self, p: &NdpParams, flow: u32, src: u32, now: Time) -> Option<Pull> {
        let i = match self.find(flow) {
            Some(i) => i,
            None => {
                self.flows.push(Inbound { flow, src, pulled: 0, waiting: 0 });
                self.flows.len() - 1
            }
        };
        if self.queue.is_empty() && self.free_at(p) <= now {
            let f = &mut self.flows[i];
            f.pulled += 1;
            self.last = Some(now);
            return Some(Pull { flow, to: f.src, number: f.pulled });
        }
        let f = &mut self.flows[i];
        f.waiting += 1;
        if f.waiting == 1 {
            self.queue.push_back(flow);
        }
        None
    }

    /// The waiting pull due now, if the pacer is free: the next flow's in turn (which goes to the back of the
    /// queue if it has more waiting).
    pub fn release(&mut self, p: &NdpParams, now: Time) -> Option<Pull> {
        if self.free_at(p) > now {
            return None;
        }
        let flow = self.queue.pop_front()?;
        let i = self.find(flow).expect("a queued flow is known");
        let f = &mut self.flows[i];
        f.waiting -= 1;
        f.pulled += 1;
        if f.waiting > 0 {
            self.queue.push_back(flow);
        }
        self.last = Some(now);
        Some(Pull { flow, to: f.src, number: f.pulled })
    }

    /// When the next waiting pull may leave, if one waits.
    pub fn next_release_at(&self, p: &NdpParams) -> Option<Time> {
        (!self.queue.is_empty()).then(|| self.free_at(p))
    }

    /// Flow `flow` has every packet: its waiting pulls are dropped and it leaves.
    pub fn complete(&mut self, flow: u32) {
        if let Some(i) = self.find(flow) {
            self.flows.swap_remove(i);
            self.queue.retain(|&f| f != flow);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(init_window: u32) -> NdpParams {
        NdpParams { init_window, pull_spacing: 10, rto: 1_000, timer_seed: 3 }
    }

    #[test]
    fn the_first_window_is_derived_from_the_pull_loop() {
        let p = NdpConfig::DEFAULT.params(14_600_000, 1_200_000, 0);
        assert_eq!((p.init_window, p.pull_spacing), (13, 1_200_000));
        let p = NdpConfig { init_window_pkts: 23, ..NdpConfig::DEFAULT }.params(14_600_000, 1_200_000, 0);
        assert_eq!(p.init_window, 23);
    }

    #[test]
    fn a_flow_sends_its_first_window_then_one_packet_per_pull() {
        let p = params(3);
        let mut o = Outbox::default();
        o.open(&p, 7, 10, 0);
        let sent: Vec<u32> = std::iter::from_fn(|| o.next(0, |_, _| false)).map(|t| t.seq).collect();
        assert_eq!(sent, [0, 1, 2]);
        o.on_pull(7, 2, 5);
        o.on_pull(7, 1, 5); // overtaken by the later pull: nothing new
        let sent: Vec<u32> = std::iter::from_fn(|| o.next(5, |_, _| false)).map(|t| t.seq).collect();
        assert_eq!(sent, [3, 4]);
    }

    #[test]
    fn a_nacked_packet_goes_before_new_ones_unless_acked_since() {
        let p = params(3);
        let mut o = Outbox::default();
        o.open(&p, 1, 10, 0);
        while o.next(0, |_, _| false).is_some() {}
        o.on_answer(1, Some(1), 1);
        o.on_answer(1, Some(2), 1);
        o.on_pull(1, 3, 1);
        let acked = |_: u32, seq: u32| seq == 2;
        let sent: Vec<(u32, bool)> = std::iter::from_fn(|| o.next(1, acked)).map(|t| (t.seq, t.retransmit)).collect();
        assert_eq!(sent, [(1, true), (3, false), (4, false)]);
    }

    #[test]
    fn a_pull_with_nothing_to_send_is_spent() {
        let p = params(2);
        let mut o = Outbox::default();
        o.open(&p, 1, 2, 0);
        o.open(&p, 2, 5, 0);
        o.on_pull(1, 2, 0); // flow 1 has sent its two packets by the time these turns come
        let sent: Vec<(u32, u32)> = std::iter::from_fn(|| o.next(0, |_, _| false)).map(|t| (t.flow, t.seq)).collect();
        assert_eq!(sent, [(1, 0), (1, 1), (2, 0), (2, 1)]);
    }

    #[test]
    fn silence_with_packets_out_resends_every_unacked_one_after_the_timeout() {
        let p = params(4);
        let mut o = Outbox::default();
        o.open(&p, 1, 4, 0);
        while o.next(0, |_, _| false).is_some() {}
        assert_eq!(o.next_timeout_at(&p), Some(1_000));
        assert!(!o.time_out(&p, 999, |_, _| false));
        let acked = |_: u32, seq: u32| seq == 0 || seq == 2;
        assert!(o.time_out(&p, 1_000, acked));
        let sent: Vec<u32> = std::iter::from_fn(|| o.next(1_000, acked)).map(|t| t.seq).collect();
        assert_eq!(sent, [1], "one turn: the answer restarts the pull clock");
        // Still silent: the next wait is doubled (and spread by up to as much again).
        let next = o.next_timeout_at(&p).unwrap();
        assert!((1_000 + 2_000..=1_000 + 4_000).contains(&next), "{next}");
        // Heard from: a pull, and the wait is back to its base.
        o.on_pull(1, 1, 1_100);
        assert_eq!(o.next(1_100, acked).map(|t| t.seq), Some(3));
        assert_eq!(o.next_timeout_at(&p), Some(1_100 + 1_000));
    }

    #[test]
    fn the_pacer_lets_a_pull_ride_on_the_answer_when_free_and_queues_it_otherwise() {
        let p = params(1);
        let mut r = PullPacer::default();
        assert_eq!(r.on_arrival(&p, 1, 9, 0), Some(Pull { flow: 1, to: 9, number: 1 }));
        assert_eq!(r.on_arrival(&p, 1, 9, 4), None);
        assert_eq!(r.next_release_at(&p), Some(10));
        assert_eq!(r.release(&p, 9), None);
        assert_eq!(r.release(&p, 10), Some(Pull { flow: 1, to: 9, number: 2 }));
        assert_eq!(r.next_release_at(&p), None);
        // Free again 10 after the last pull.
        assert_eq!(r.on_arrival(&p, 1, 9, 20), Some(Pull { flow: 1, to: 9, number: 3 }));
    }

    #[test]
    fn waiting_pulls_are_taken_a_flow_at_a_time_in_turn() {
        let p = params(1);
        let mut r = PullPacer::default();
        r.on_arrival(&p, 1, 11, 0);
        for (flow, src) in [(1, 11), (1, 11), (1, 11), (2, 12), (3, 13)] {
            assert_eq!(r.on_arrival(&p, flow, src, 1), None);
        }
        let order: Vec<(u32, u32)> =
            (1..=5).map(|k| r.release(&p, 10 * k)).map(|x| x.map(|x| (x.flow, x.number)).unwrap()).collect();
        assert_eq!(order, [(1, 2), (2, 1), (3, 1), (1, 3), (1, 4)]);
    }

    #[test]
    fn a_complete_flow_drops_its_waiting_pulls() {
        let p = params(1);
        let mut r = PullPacer::default();
        r.on_arrival(&p, 1, 11, 0);
        r.on_arrival(&p, 1, 11, 1);
        r.on_arrival(&p, 2, 12, 1);
        r.complete(1);
        assert_eq!(r.release(&p, 10).map(|x| x.flow), Some(2));
        assert_eq!(r.release(&p, 20), None);
    }
}
