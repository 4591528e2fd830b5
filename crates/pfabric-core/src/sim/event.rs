//! The event queue: events ordered by (time, insertion sequence).
//!
//! The sequence number makes ties deterministic (first scheduled, first run), so a scenario and seed always
//! replay the same way. Events are 24-byte plain values: a kind tag and two 32-bit arguments whose meaning
//! the kind gives; nothing is boxed, and the heap's storage is reused, so scheduling does not allocate once the
//! heap has grown to its working size. Pending events stay few by design (one per packet on a wire, one per
//! busy port, one timer per flow, one next arrival), which keeps the heap in cache.

use super::time::Time;

/// What happens at an event. The arguments `a` and `b` are interpreted per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// Packet `a` finishes propagating and arrives at node `b`.
    Arrive,
    /// Port `a` finished serializing its packet and may start the next one.
    PortFree,
    /// The next flow of the workload starts.
    FlowArrival,
    /// Retransmission timer of flow `a`, due at the event's time unless superseded.
    Timer,
    /// End of a throughput sampling interval.
    Sample,
}

#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: Time,
    pub seq: u64,
    pub kind: EventKind,
    pub a: u32,
    pub b: u32,
}

impl Event {
    #[inline(always)]
    fn before(&self, other: &Event) -> bool {
        (self.time, self.seq) < (other.time, other.seq)
    }
}

/// A radix heap (Ahuja, Mehlhorn, Orlin and Tarjan) on event times, with ties taken in insertion order.
///
/// It relies on what every discrete-event simulation guarantees: nothing is scheduled before the event being
/// processed, so popped times never decrease. An event waits in the bucket named by the highest bit in which its
/// time differs from the last time popped (bucket 0: the same time). A pop takes the earliest event of the lowest
/// non-empty bucket; when that bucket is not bucket 0, its other events move to lower buckets. An event moves a
/// few times at most, each move a sequential push, instead of a binary heap's unpredictable compare-and-branch
/// per level: on the leaf-spine benchmark it measured about twice as fast (bench/RESULTS.md). Events of equal
/// time always share a bucket, and a pop picks the smallest (time, seq) there, so ties stay first-in first-out.
pub struct EventQueue {
    /// `buckets[0]`: events at the last popped time; `buckets[i]`: highest differing bit i - 1.
    buckets: Vec<Vec<Event>>,
    /// Bit i - 1 set when bucket i (1..=64) is non-empty.
    nonempty: u64,
    last: Time,
    len: usize,
    next_seq: u64,
    peak: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            buckets: (0..65).map(|_| Vec::new()).collect(),
            nonempty: 0,
            last: 0,
            len: 0,
            next_seq: 0,
            peak: 0,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// The most events ever pending at once.
    pub fn peak_len(&self) -> usize {
        self.peak
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn push_to_bucket(&mut self, ev: Event) {
        let b = (64 - (ev.time ^ self.last).leading_zeros()) as usize;
        self.buckets[b].push(ev);
        if b > 0 {
            self.nonempty |= 1u64 << (b - 1);
        }
    }

    /// Schedule an event at `time`, which must not be earlier than the last event popped.
    #[inline]
    pub fn schedule(&mut self, time: Time, kind: EventKind, a: u32, b: u32) {
        debug_assert!(time >= self.last, "an event scheduled in the past");
        let ev = Event { time, seq: self.next_seq, kind, a, b };
        self.next_seq += 1;
        self.push_to_bucket(ev);
        self.len += 1;
        self.peak = self.peak.max(self.len);
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        if !self.buckets[0].is_empty() {
            return Some(take_earliest(&mut self.buckets[0]));
        }
        let b = self.nonempty.trailing_zeros() as usize + 1;
        self.nonempty &= !(1u64 << (b - 1));
        let mut events = std::mem::take(&mut self.buckets[b]);
        let ev = take_earliest(&mut events);
        self.last = ev.time;
        for e in events.drain(..) {
            self.push_to_bucket(e);
        }
        // Hand the emptied vector's capacity back to its bucket.
        self.buckets[b] = events;
        Some(ev)
    }
}

/// Remove and return the earliest (time, seq) event of a non-empty list.
#[inline(always)]
fn take_earliest(events: &mut Vec<Event>) -> Event {
    let mut best = 0;
    for i in 1..events.len() {
        if events[i].before(&events[best]) {
            best = i;
        }
    }
    events.swap_remove(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(5, EventKind::Timer, 0, 0);
        q.schedule(3, EventKind::Timer, 1, 0);
        q.schedule(5, EventKind::Timer, 2, 0);
        q.schedule(1, EventKind::Timer, 3, 0);
        q.schedule(3, EventKind::Timer, 4, 0);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|e| e.a).collect();
        assert_eq!(order, vec![3, 1, 4, 0, 2]);
    }

    #[test]
    fn matches_an_ordered_set_on_a_random_hold_model() {
        // Events scheduled at or after the current time (as in any simulation), with many ties.
        let mut rng = crate::sim::rng::Rng::new(7);
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut now = 0;
        for i in 0..50_000u32 {
            let t = now + rng.below(if i % 2 == 0 { 8 } else { 1 << 40 });
            q.schedule(t, EventKind::Arrive, i, 0);
            reference.insert((t, i as u64, i));
            if i % 3 != 0 {
                let e = q.pop().unwrap();
                let first = reference.pop_first().unwrap();
                assert_eq!((e.time, e.seq, e.a), first);
                now = e.time;
            }
        }
        while let Some(e) = q.pop() {
            assert_eq!((e.time, e.seq, e.a), reference.pop_first().unwrap());
        }
        assert!(reference.is_empty() && q.is_empty());
    }
}
