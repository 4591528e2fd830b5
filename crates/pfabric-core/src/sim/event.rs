//! The event queue: events ordered by (time, insertion sequence).
//!
//! The sequence number makes ties deterministic (first scheduled, first run), so a scenario and seed always
//! replay the same way. Events are small plain values: a kind tag and two 32-bit arguments whose meaning the
//! kind gives; nothing is boxed, and storage is reused, so scheduling does not allocate once the queue has
//! grown to its working size. Pending events stay few by design (one per packet on a wire, one per busy port,
//! one timer per flow, one next arrival), which keeps the queue in cache.

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
    /// Ideal mode: the first flow of schedule generation `a` completes.
    IdealCompletion,
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

/// Slots of the timing wheel (a power of two).
const SLOTS: usize = 2048;
const WORDS: usize = SLOTS / 64;

/// The event queue: a timing wheel for the near future in front of a binary heap for the rest.
///
/// Nearly every event of a packet network is due within a few microseconds (a serialization, a propagation);
/// those go to a wheel of [`SLOTS`] slots of `2^shift` picoseconds each, with a bitmap of occupied slots, so
/// scheduling is a push and a pop is a short scan of one slot. Events beyond the wheel's horizon (timers, the
/// next flow arrival) wait in a binary heap and move into the wheel as time comes within reach. The wheel
/// relies on what every discrete-event simulation guarantees: nothing is scheduled before the event being
/// processed.
/// Ties are taken by insertion sequence wherever the events wait, so the order is exactly (time, seq).
/// Measured against a binary heap, a 4-ary heap and the radix heap alone in bench/RESULTS.md.
pub struct EventQueue {
    /// A fixed array, so that indexing by a masked slot number needs no bounds check.
    wheel: Box<[Vec<Event>; SLOTS]>,
    occupied: [u64; WORDS],
    /// Absolute slot number (time >> shift) of the last event popped: the wheel covers [cur, cur + SLOTS).
    cur: u64,
    shift: u32,
    far: FarHeap,
    len: usize,
    next_seq: u64,
    peak: usize,
}

impl Default for EventQueue {
    fn default() -> Self {
        Self::with_slot_width(13)
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// A queue whose wheel slots are `2^shift` picoseconds wide.
    pub fn with_slot_width(shift: u32) -> Self {
        EventQueue {
            wheel: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: [0; WORDS],
            cur: 0,
            shift,
            far: FarHeap::default(),
            len: 0,
            next_seq: 0,
            peak: 0,
        }
    }

    /// A queue sized so that events up to `horizon` ahead (in picoseconds) go to the wheel, with slots as
    /// narrow as that allows (fewer events share a slot): the wheel reaches at least `SLOTS - 1` whole slots
    /// past the current time.
    pub fn for_horizon(horizon: Time) -> Self {
        let per_slot = horizon.div_ceil(SLOTS as u64 - 1).max(1);
        Self::with_slot_width(64 - (per_slot - 1).leading_zeros())
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
    fn push_near(&mut self, ev: Event) {
        let slot = (ev.time >> self.shift) as usize & (SLOTS - 1);
        self.wheel[slot].push(ev);
        self.occupied[slot / 64] |= 1u64 << (slot % 64);
    }

    #[inline(always)]
    fn place(&mut self, ev: Event) {
        if (ev.time >> self.shift) < self.cur + SLOTS as u64 {
            self.push_near(ev);
        } else {
            self.far.push(ev);
        }
    }

    /// Schedule an event at `time`, which must not be earlier than the last event popped.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, kind: EventKind, a: u32, b: u32) {
        debug_assert!(time >> self.shift >= self.cur, "an event scheduled in the past");
        let ev = Event { time, seq: self.next_seq, kind, a, b };
        self.next_seq += 1;
        self.place(ev);
        self.len += 1;
        self.peak = self.peak.max(self.len);
    }

    /// The next occupied slot at or after the current one, as an absolute slot number, if any.
    #[inline]
    fn next_occupied(&self) -> Option<u64> {
        let start = (self.cur as usize) & (SLOTS - 1);
        let (w0, b0) = (start / 64, start % 64);
        // The rest of the current word, the other words in order, then the current word's start (wrapped).
        let first = self.occupied[w0] & (!0u64 << b0);
        if first != 0 {
            return Some(self.cur + (first.trailing_zeros() as usize - b0) as u64);
        }
        for i in 1..=WORDS {
            let w = (w0 + i) % WORDS;
            let bits = if i == WORDS { self.occupied[w] & !(!0u64 << b0) } else { self.occupied[w] };
            if bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                let ahead = (slot + SLOTS - start) % SLOTS;
                return Some(self.cur + ahead as u64);
            }
        }
        None
    }

    /// Move the far events that the wheel now reaches into it.
    #[inline]
    fn pull_from_far(&mut self) {
        let reach = (self.cur + SLOTS as u64) << self.shift;
        while let Some(t) = self.far.peek_time() {
            if t >= reach {
                break;
            }
            let ev = self.far.pop().unwrap();
            self.push_near(ev);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        if self.len == 0 {
            return None;
        }
        // The bitmap finds the next occupied slot from the current one on (asking whether the current slot
        // is still occupied first was a branch mispredicted on a third of the pops).
        loop {
            match self.next_occupied() {
                Some(next) => {
                    // Unconditionally: whether the wheel moved on is as unpredictable as the slot check was,
                    // and a far heap with nothing in reach answers at its first peek.
                    self.cur = next;
                    self.pull_from_far();
                    let slot = (self.cur as usize) & (SLOTS - 1);
                    let ev = take_earliest(&mut self.wheel[slot]);
                    if self.wheel[slot].is_empty() {
                        self.occupied[slot / 64] &= !(1u64 << (slot % 64));
                    }
                    self.len -= 1;
                    return Some(ev);
                }
                None => {
                    // Only far events are left: jump to the first of them.
                    self.cur = self.far.peek_time().expect("a pending event") >> self.shift;
                    self.pull_from_far();
                }
            }
        }
    }
}

/// The far part of the queue: a binary min-heap on (time, seq). It holds few events (timers, the next
/// arrival), and unlike the wheel it takes any time at all, however far ahead.
#[derive(Default)]
struct FarHeap {
    heap: std::collections::BinaryHeap<Later>,
}

/// An event ordered so that the max-heap `BinaryHeap` yields the earliest (time, seq) first.
struct Later(Event);

impl PartialEq for Later {
    fn eq(&self, other: &Self) -> bool {
        (self.0.time, self.0.seq) == (other.0.time, other.0.seq)
    }
}

impl Eq for Later {}

impl PartialOrd for Later {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Later {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.0.time, other.0.seq).cmp(&(self.0.time, self.0.seq))
    }
}

impl FarHeap {
    fn push(&mut self, ev: Event) {
        self.heap.push(Later(ev));
    }

    fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.0.time)
    }

    fn pop(&mut self) -> Option<Event> {
        self.heap.pop().map(|e| e.0)
    }
}

/// Remove and return the earliest (time, seq) event of a non-empty list.
#[inline(always)]
fn take_earliest(events: &mut Vec<Event>) -> Event {
    let mut best = 0;
    for i in 1..events.len() {
        best = std::hint::select_unpredictable(events[i].before(&events[best]), i, best);
    }
    events.swap_remove(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wheel_reaches_its_horizon_with_the_narrowest_slots() {
        for horizon in [1, 1000, 1_320_000, 2_047_000, 2_047_001, 5_000_000, 1 << 40] {
            let q = EventQueue::for_horizon(horizon);
            assert!((SLOTS as u64 - 1) << q.shift >= horizon, "{horizon}");
            assert!(q.shift == 0 || (SLOTS as u64 - 1) << (q.shift - 1) < horizon, "{horizon}");
        }
    }

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
        // Slots of 8 ps: the random gaps below land both in the wheel and far beyond it.
        let mut q = EventQueue::with_slot_width(3);
        let mut reference = std::collections::BTreeSet::new();
        let mut now = 0;
        for i in 0..50_000u32 {
            let t = now + rng.below([8, 20_000, 1 << 40][i as usize % 3]);
            q.schedule(t, EventKind::Arrive, i, 0);
            reference.insert((t, i as u64, i));
            if i % 5 < 3 {
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
