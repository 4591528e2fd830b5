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
//! - Losses that nothing answers are found by timers, NDP's backstop (`rto`; each wait doubled while the
//!   silence lasts, and spread so that flows that lost together do not try again together):
//!   - at the sender, a flow with packets in flight that has had no answer (ACK, NACK or bounce) for its wait
//!     queues every packet not ACKed again and takes one turn: a lost header, ACK or NACK. A NACKed packet
//!     waiting for its pull is not in flight, so a flow waiting its turn at a busy receiver does not time out
//!     (as in htsim, whose timer runs over the packets sent and not answered);
//!   - at the receiver, an incomplete flow with no pull waiting that it has heard nothing of for its wait is
//!     pulled again: a lost pull, which would otherwise leave a sender with packets it may never send. A flow
//!     merely waiting its turn in the pacer's queue is not silent.
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
    /// The least retransmission timeout (the sender's estimate from its answers' round trips may be longer).
    pub rto: Time,
    /// Seeds the spread of the retransmission timers' waits.
    pub timer_seed: u64,
}

/// Most doublings of a flow's retransmission wait.
const MAX_BACKOFF: u32 = 6;

/// How many times the least timeout a receiver hears nothing of a flow with no pull waiting before it pulls
/// it again: long, as a pull is rarely lost (only a full header queue drops one) and a pull sent on a guess
/// lets one more packet into the fabric.
pub const SILENCE_FACTOR: u64 = 10;

impl NdpParams {
    /// The wait before a flow's `n`th retransmission in a row, from a `base` wait: doubled each time (at most
    /// [`MAX_BACKOFF`] times) and stretched by up to as much again, a fraction fixed by (`flow`, `n`) and the
    /// run's seed, so that the flows of an incast that lost their packets together do not send again together.
    pub fn backoff(&self, base: Time, flow: u32, n: u32) -> Time {
        let wait = base << n.min(MAX_BACKOFF);
        if n == 0 {
            return wait;
        }
        let spread = crate::sim::rng::unit_hash(self.timer_seed, (flow as u64) << 32 | n as u64);
        wait + (wait as f64 * spread) as Time
    }

    /// How long a receiver hears nothing of flow `flow`, with no pull waiting, before its `n`th pull again.
    pub fn silence(&self, flow: u32, n: u32) -> Time {
        self.backoff(self.rto * SILENCE_FACTOR, flow, n)
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
    /// Packets NACKed, bounced or given up on by the timer, to go before new ones: highest first, so that the
    /// lowest is popped first.
    resend: Vec<u32>,
    /// Copies sent and not answered (by an ACK, a NACK or a bounce) since its last timeout.
    in_flight: u32,
    /// When it last had an answer to a packet (or, sending with nothing in flight, last sent). Pulls do not
    /// count: a flow may be pulled on while a packet of it is lost.
    last_heard: Time,
    /// Timeouts since its last answer.
    retries: u32,
    /// Smoothed round trip of its packets' answers and its variation (RFC 6298), 0 before the first.
    srtt: Time,
    rttvar: Time,
}

impl Outbound {
    /// Its retransmission timeout: the smoothed round trip of its answers plus four times its variation (RFC
    /// 6298, as htsim's `NdpSrc` estimates it), at least the least timeout. Answers wait behind the headers
    /// of an incast (served ten to one data packet): a fixed timeout shorter than that wait would resend
    /// packets that are not lost.
    fn rto(&self, p: &NdpParams) -> Time {
        (self.srtt + 4 * self.rttvar).max(p.rto)
    }

    /// An answer came `sample` after the copy it answers was sent.
    fn rtt_sample(&mut self, sample: Time) {
        if self.srtt == 0 {
            (self.srtt, self.rttvar) = (sample.max(1), sample / 2);
        } else {
            self.rttvar = (3 * self.rttvar + self.srtt.abs_diff(sample)) / 4;
            self.srtt = (7 * self.srtt + sample) / 8;
        }
    }

    /// Packet `seq` is to go again (once, however often it is asked for).
    fn send_again(&mut self, seq: u32) {
        if let Err(at) = self.resend.binary_search_by(|probe| seq.cmp(probe)) {
            self.resend.insert(at, seq);
        }
    }
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
            in_flight: 0,
            last_heard: now,
            retries: 0,
            srtt: 0,
            rttvar: 0,
        });
        self.turns.extend(std::iter::repeat_n(flow, npkts.min(p.init_window) as usize));
    }

    /// An answer to a packet of `flow` sent at `sent_at` arrived at `now`: an ACK, or a NACK (or a bounce)
    /// naming the packet to send again.
    pub fn on_answer(&mut self, flow: u32, nacked: Option<u32>, sent_at: Time, now: Time) {
        let Some(i) = self.find(flow) else { return };
        let m = &mut self.flows[i];
        m.rtt_sample(now.saturating_sub(sent_at));
        m.last_heard = now;
        m.retries = 0;
        m.in_flight = m.in_flight.saturating_sub(1);
        if let Some(seq) = nacked {
            if seq < m.next {
                m.send_again(seq);
            }
        }
    }

    /// Packet `seq` of `flow` came back from a switch whose header queue was full: it goes again on the next
    /// pull (htsim's `processRTS`, which swallows the bounce so as not to feed the incast), or at once if it is
    /// the flow's only packet out and no turn waits for the flow (no pull may come: its receiver may not know
    /// of it).
    pub fn on_bounce(&mut self, flow: u32, seq: u32, sent_at: Time, now: Time) {
        self.on_answer(flow, Some(seq), sent_at, now);
        let Some(i) = self.find(flow) else { return };
        if self.flows[i].in_flight == 0 && !self.turns.contains(&flow) {
            self.turns.push_back(flow);
        }
    }

    /// Pull number `number` of `flow` arrived at `now`: one more turn for each pull not heard of before.
    pub fn on_pull(&mut self, flow: u32, number: u32) {
        let Some(i) = self.find(flow) else { return };
        let m = &mut self.flows[i];
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
            if m.in_flight == 0 {
                m.last_heard = now; // its silence counts from its first packet out unanswered
            }
            m.in_flight += 1;
            return Some(ToSend { flow, seq, retransmit });
        }
        None
    }

    /// Flows with packets in flight that had no answer for their wait: every packet not ACKed (`answered(flow,
    /// seq)` says which are) goes again, and the flow gets one turn. Adds the flows that timed out to `out`.
    pub fn time_out(
        &mut self,
        p: &NdpParams,
        now: Time,
        mut answered: impl FnMut(u32, u32) -> bool,
        out: &mut Vec<u32>,
    ) {
        for m in &mut self.flows {
            if m.in_flight == 0 || m.last_heard + p.backoff(m.rto(p), m.flow, m.retries) > now {
                continue;
            }
            for seq in 0..m.next {
                if !answered(m.flow, seq) {
                    m.send_again(seq);
                }
            }
            m.in_flight = 0;
            m.retries += 1;
            m.last_heard = now;
            self.turns.push_back(m.flow);
            out.push(m.flow);
        }
    }

    /// When the next flow may time out, if any has packets in flight.
    pub fn next_timeout_at(&self, p: &NdpParams) -> Option<Time> {
        self.flows
            .iter()
            .filter(|m| m.in_flight > 0)
            .map(|m| m.last_heard + p.backoff(m.rto(p), m.flow, m.retries))
            .min()
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
    /// When it last heard of the flow or last pulled it.
    last_heard: Time,
    /// Pulls again since it last heard of the flow.
    retries: u32,
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
                self.flows.push(Inbound { flow, src, pulled: 0, waiting: 0, last_heard: now, retries: 0 });
                self.flows.len() - 1
            }
        };
        (self.flows[i].last_heard, self.flows[i].retries) = (now, 0);
        if self.queue.is_empty() && self.free_at(p) <= now {
            let f = &mut self.flows[i];
            f.pulled += 1;
            self.last = Some(now);
            return Some(Pull { flow, to: f.src, number: f.pulled });
        }
        self.wait_turn(i);
        None
    }

    /// One more pull waits for flow `self.flows[i]`.
    fn wait_turn(&mut self, i: usize) {
        let f = &mut self.flows[i];
        f.waiting += 1;
        if f.waiting == 1 {
            self.queue.push_back(f.flow);
        }
    }

    /// Flows with no pull waiting that it heard nothing of for their wait: one pull each waits its turn
    /// (queued: the caller sees when by `next_release_at`). Returns whether any did.
    pub fn pull_silent(&mut self, p: &NdpParams, now: Time) -> bool {
        let mut any = false;
        for i in 0..self.flows.len() {
            let f = &mut self.flows[i];
            if f.waiting > 0 || f.last_heard + p.silence(f.flow, f.retries) > now {
                continue;
            }
            (f.last_heard, f.retries) = (now, f.retries + 1);
            self.wait_turn(i);
            any = true;
        }
        any
    }

    /// When the next flow with no pull waiting may be pulled again.
    pub fn next_silence_at(&self, p: &NdpParams) -> Option<Time> {
        self.flows.iter().filter(|f| f.waiting == 0).map(|f| f.last_heard + p.silence(f.flow, f.retries)).min()
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
        f.last_heard = now; // its answer is due from now
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
        o.on_pull(7, 2);
        o.on_pull(7, 1); // overtaken by the later pull: nothing new
        let sent: Vec<u32> = std::iter::from_fn(|| o.next(5, |_, _| false)).map(|t| t.seq).collect();
        assert_eq!(sent, [3, 4]);
    }

    #[test]
    fn a_nacked_packet_goes_before_new_ones_unless_acked_since() {
        let p = params(3);
        let mut o = Outbox::default();
        o.open(&p, 1, 10, 0);
        while o.next(0, |_, _| false).is_some() {}
        o.on_answer(1, Some(1), 0, 1);
        o.on_answer(1, Some(2), 0, 1);
        o.on_pull(1, 3);
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
        o.on_pull(1, 2); // flow 1 has sent its two packets by the time these turns come
        let sent: Vec<(u32, u32)> = std::iter::from_fn(|| o.next(0, |_, _| false)).map(|t| (t.flow, t.seq)).collect();
        assert_eq!(sent, [(1, 0), (1, 1), (2, 0), (2, 1)]);
    }

    #[test]
    fn silence_with_packets_in_flight_resends_every_unacked_one_after_the_timeout() {
        let p = params(4);
        let mut o = Outbox::default();
        o.open(&p, 1, 6, 0);
        while o.next(0, |_, _| false).is_some() {}
        assert_eq!(o.next_timeout_at(&p), Some(1_000));
        o.on_answer(1, None, 0, 10); // packet 0 ACKed; 1, 2 and 3 lost
        let mut out = Vec::new();
        o.time_out(&p, 1_009, |_, _| false, &mut out);
        assert!(out.is_empty());
        let acked = |_: u32, seq: u32| seq == 0;
        o.time_out(&p, 1_010, acked, &mut out);
        assert_eq!(out, [1]);
        let sent: Vec<u32> = std::iter::from_fn(|| o.next(1_010, acked)).map(|t| t.seq).collect();
        assert_eq!(sent, [1], "one turn: its answer restarts the pull clock");
        // No answer still: the next wait is doubled (and spread by up to as much again); pulls do not count.
        o.on_pull(1, 1);
        assert_eq!(o.next(1_020, acked).map(|t| t.seq), Some(2));
        let next = o.next_timeout_at(&p).unwrap();
        assert!((1_010 + 2_000..=1_010 + 4_000).contains(&next), "{next}");
        // An answer: the wait is back to its base, from then.
        o.on_answer(1, None, 1_090, 1_100);
        assert_eq!(o.next_timeout_at(&p), Some(1_100 + 1_000));
    }

    #[test]
    fn a_flow_with_nothing_in_flight_waits_for_pulls_without_timing_out() {
        let p = params(2);
        let mut o = Outbox::default();
        o.open(&p, 1, 10, 0);
        while o.next(0, |_, _| false).is_some() {}
        o.on_answer(1, None, 0, 5);
        o.on_answer(1, Some(1), 0, 6); // NACKed: waits for a pull, not in flight
        assert_eq!(o.next_timeout_at(&p), None);
    }

    #[test]
    fn a_bounced_packet_waits_for_a_pull_unless_nothing_else_is_in_flight() {
        let p = params(3);
        let mut o = Outbox::default();
        o.open(&p, 1, 10, 0);
        while o.next(0, |_, _| false).is_some() {}
        o.on_bounce(1, 0, 0, 5);
        o.on_bounce(1, 1, 0, 5);
        assert!(!o.has_turns(), "packet 2 is still out: its answer brings a pull");
        o.on_bounce(1, 2, 0, 6);
        assert_eq!(o.next(6, |_, _| false).map(|t| (t.seq, t.retransmit)), Some((0, true)));
    }

    #[test]
    fn a_receiver_pulls_again_a_flow_it_heard_nothing_of_unless_a_pull_waits() {
        let p = params(1);
        let mut r = PullPacer::default();
        r.on_arrival(&p, 1, 11, 0); // its pull rides on the ACK, and is lost
        r.on_arrival(&p, 2, 12, 1); // its pull waits
        assert_eq!(r.next_silence_at(&p), Some(10_000), "flow 2 waits its turn: not silent");
        assert!(!r.pull_silent(&p, 9_999));
        assert!(r.pull_silent(&p, 10_000));
        let order: Vec<(u32, u32)> =
            [10_000, 10_010].iter().filter_map(|&t| r.release(&p, t)).map(|x| (x.flow, x.number)).collect();
        assert_eq!(order, [(2, 1), (1, 2)]);
        // Silence counts from the last pull sent: flow 2's at 10,000 (flow 1's, at 10,010, waits twice as long).
        assert_eq!(r.next_silence_at(&p), Some(20_000));
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
