//! The event queue: events ordered by (time, key).
//!
//! The key makes ties deterministic, so a scenario and seed always replay the same way. The engine keys each event
//! by what it is (`schedule_keyed`: a packet's arrival by the instant and the port it left, a timer by its flow),
//! never by when it was scheduled, so that a partition of a partitioned run orders its events as the sequential
//! engine does; `schedule` keys events in the order they are scheduled (first scheduled, first run). Events are
//! small plain values: a kind tag and two 32-bit arguments whose meaning the kind gives; nothing is boxed, and
//! storage is reused, so scheduling does not allocate once the queue has grown to its working size. Pending events
//! stay few by design (one per packet on a wire, one timer per flow, one next arrival), which keeps the queue in
//! cache.

use super::time::Time;

/// What happens at an event. The arguments `a` and `b` are interpreted per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum EventKind {
    /// Packet `a`, sent by port `b`, finishes propagating and arrives at the port's far end.
    Arrive,
    /// The next flow of the workload starts.
    FlowArrival,
    /// Retransmission timer of flow `a`, due at the event's time unless superseded.
    Timer,
    /// End of a throughput sampling interval.
    Sample,
    /// Ideal mode: the first flow of schedule generation `a` completes.
    IdealCompletion,
    /// A partitioned run: packet `a`, handed over from another partition, arrives at node `b`.
    Handed,
    /// A receiver-driven host's timer: host `a`'s next grant (`b` = 0) or next granted send (`b` = 1).
    HostTick,
}

/// Every kind, indexed by its tag (the last entries pad the table to a power of two; no event carries them).
const KINDS: [EventKind; 8] = [
    EventKind::Arrive,
    EventKind::FlowArrival,
    EventKind::Timer,
    EventKind::Sample,
    EventKind::IdealCompletion,
    EventKind::Handed,
    EventKind::HostTick,
    EventKind::IdealCompletion,
];

/// An event in 24 bytes: the key and the kind share one word (key above, kind in the low three bits), so the
/// word orders events exactly as the key does.
#[derive(Clone, Copy, Debug)]
pub struct Event {
    pub time: Time,
    seq_kind: u64,
    pub a: u32,
    pub b: u32,
}

impl Event {
    #[inline(always)]
    fn new(time: Time, seq: u64, kind: EventKind, a: u32, b: u32) -> Self {
        Event { time, seq_kind: seq << 3 | kind as u64, a, b }
    }

    #[inline(always)]
    pub fn kind(&self) -> EventKind {
        KINDS[(self.seq_kind & 7) as usize]
    }

    /// What tells this event from every other of its queue (its key and kind; the engine never has two equal
    /// ones pending at one time).
    #[inline(always)]
    pub fn id(&self) -> u64 {
        self.seq_kind
    }

    /// Its key: among events at the same time, the lower runs first.
    pub fn seq(&self) -> u64 {
        self.seq_kind >> 3
    }

    #[inline(always)]
    fn before(&self, other: &Event) -> bool {
        self.key() < other.key()
    }

    /// (time, seq) as one number, which orders events.
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq_kind as u128
    }
}

/// Move a bucket's events into `run`, earliest first. A bucket holds a few events (4.2 on average in the
/// 2k-flow leaf-spine run) in no predictable order, where a branchy sort mispredicts about once per event
/// (cachegrind's branch model: a third of all mispredictions of a run). Up to
/// [`RANK_LANES`] events, each event's place is counted instead, without a branch: the number of events before
/// it. The count compares small keys in a fixed number of lanes (which the compiler turns into a few vector
/// compares): an event's offset in the bucket and its position in it; buckets of up to half as many events
/// (nine in ten on the leaf-spine) count in half the lanes, and a lone event is copied. A fuller bucket is
/// sorted by its offsets' two low bytes (`radix_by_offset`), and one too wide for them on (time, seq).
///
/// Both counting sorts are stable: events at the same time stay in push order, which is their key order for
/// events scheduled in turn. The engine's keys say what an event is, not when it was pushed, so `order_ties`
/// then puts events at equal times in key order (one pass over the run finds whether any need it: times
/// seldom tie).
fn fill_run_sorted(run: &mut Vec<Event>, scratch: &mut Scratch, bucket: &[Event], bucket_start: Time, shift: u32) {
    let n = bucket.len();
    run.clear();
    if n == 1 {
        // A quarter of the leaf-spine's buckets: nothing to order.
        run.push(bucket[0]);
        return;
    }
    if n <= RANK_LANES && shift <= RANK_MAX_SHIFT {
        // Nine buckets in ten of the leaf-spine's hold at most eight events: half the lanes, half the compares.
        if n <= RANK_LANES / 2 {
            rank_into::<{ RANK_LANES / 2 }>(run, bucket, bucket_start);
        } else {
            rank_into::<RANK_LANES>(run, bucket, bucket_start);
        }
        order_ties(run);
        return;
    }
    if shift <= RADIX_MAX_SHIFT {
        radix_by_offset(run, scratch, bucket, bucket_start, shift);
        order_ties(run);
        return;
    }
    run.extend_from_slice(bucket);
    run.sort_unstable_by_key(|e| e.key());
}

/// Put the (at most `LANES`) events of `bucket` into `run` in (offset, position) order, each at the place
/// counted for it in `LANES` branch-free compares.
#[inline(always)]
fn rank_into<const LANES: usize>(run: &mut Vec<Event>, bucket: &[Event], bucket_start: Time) {
    debug_assert!(bucket.len() <= LANES && LANES <= RANK_LANES);
    // Offsets are below 2^shift <= 2^27, so keys stay below i32::MAX, the padding, which no key
    // exceeds: padding lanes never count.
    let mut keys = [i32::MAX; LANES];
    for (i, (k, e)) in keys.iter_mut().zip(bucket).enumerate() {
        *k = (((e.time - bucket_start) as i32) << RANK_POSITION_BITS) | i as i32;
    }
    run.resize(bucket.len(), Event { time: 0, seq_kind: 0, a: 0, b: 0 });
    for (e, &key) in bucket.iter().zip(&keys) {
        let place = keys.iter().map(|&k| (k < key) as u32).sum::<u32>();
        run[place as usize] = *e;
    }
}

/// `run` is in time order, and in push order among equal times: put each event that was pushed after an
/// equal-time event with a higher key before it (an insertion sort, which only moves events among their equals
/// and costs one compare per event when nothing is out of order).
#[inline(always)]
fn order_ties(run: &mut [Event]) {
    // Equal times are not rare (one in twenty neighbours on a k = 16 fat-tree), but a bucket's are nearly
    // always in key order already: one pass without branches finds whether any pair is out of order, before
    // the sort tests pairs one by one with branches on their times. (Inlined: a call for every bucket cost 2%
    // of a run's instructions.)
    let mut in_order = true;
    for pair in run.windows(2) {
        in_order &= !((pair[1].time == pair[0].time) & (pair[1].seq_kind < pair[0].seq_kind));
    }
    if !in_order {
        place_ties(run);
    }
}

/// The insertion sort of `order_ties`, for a run that needs it.
#[inline(never)]
fn place_ties(run: &mut [Event]) {
    for i in 1..run.len() {
        // (`run` is in time order: an event comes before the one ahead of it only at an equal time, and the
        // times, which nearly always differ, settle it in one compare of 64 bits.)
        if run[i].time == run[i - 1].time && run[i].seq_kind < run[i - 1].seq_kind {
            let e = run[i];
            let mut j = i - 1;
            while j > 0 && e.before(&run[j - 1]) {
                j -= 1;
            }
            run.copy_within(j..i, j + 1);
            run[j] = e;
        }
    }
}

/// The widest bucket whose offsets two 8-bit radix passes cover.
pub const RADIX_MAX_SHIFT: u32 = 16;
const RADIX_DIGITS_MAX: usize = 1 << (RADIX_MAX_SHIFT / 2);

/// What `radix_by_offset` works in, kept from bucket to bucket: the events between its two passes, and the
/// counts of a pass (cleared only as far as the pass's digits reach).
struct Scratch {
    events: Vec<Event>,
    counts: [u32; RADIX_DIGITS_MAX + 1],
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch { events: Vec::new(), counts: [0; RADIX_DIGITS_MAX + 1] }
    }
}

/// A full bucket sorted by time offset with stable counting passes (low bits first): ties keep the push
/// order. On a large fabric a bucket holds hundreds of events (a k = 32 fat-tree keeps ~38,000 pending), where
/// a comparison sort took a tenth of the run.
///
/// The `shift` bits of the offsets are split evenly between the passes, and each pass clears and sums the
/// counts of its own digits only, in an array kept from bucket to bucket: a partitioned run's buckets are wide
/// and hold a few dozen events, where clearing two fresh arrays of 257 counts per bucket took a tenth of the
/// instructions. (Three or four narrower passes, chosen per bucket, measured slower.)
fn radix_by_offset(run: &mut Vec<Event>, scratch: &mut Scratch, bucket: &[Event], start: Time, shift: u32) {
    let offset = |e: &Event| (e.time - start) as usize;
    let Scratch { events: middle, counts } = scratch;
    let mut pass = |from: &[Event], to: &mut Vec<Event>, low: u32, bits: u32| {
        let digits = 1usize << bits;
        let mask = digits - 1;
        let at = &mut counts[..=digits];
        at.fill(0);
        for e in from {
            at[((offset(e) >> low) & mask) + 1] += 1;
        }
        for i in 1..digits {
            at[i] += at[i - 1];
        }
        to.clear();
        to.resize(from.len(), Event { time: 0, seq_kind: 0, a: 0, b: 0 });
        for e in from {
            let digit = (offset(e) >> low) & mask;
            to[at[digit] as usize] = *e;
            at[digit] += 1;
        }
    };
    if shift <= RADIX_MAX_SHIFT / 2 {
        pass(bucket, run, 0, shift.max(1));
    } else {
        let low = shift / 2;
        pass(bucket, middle, 0, low);
        pass(middle, run, low, shift - low);
    }
}

/// The most events a bucket may hold to be sorted by counting places (a power of two), the bits its position
/// takes in a key, and the widest bucket whose offsets fit the rest of an `i32`.
const RANK_LANES: usize = 16;
const RANK_POSITION_BITS: u32 = 4;
const RANK_MAX_SHIFT: u32 = 31 - RANK_POSITION_BITS;

/// Buckets of the calendar (a power of two). Fewer, wider buckets put more events in each (more to sort) and
/// fewer buckets to reach (less per-bucket work): 256 measured fastest against 64, 128 and 512 on the leaf-spine
/// (bench/RESULTS.md).
const SLOTS: usize = 256;
const WORDS: usize = SLOTS / 64;

/// The event queue: a calendar of buckets for the near future, the current bucket sorted, and a binary heap
/// for the rest.
///
/// Nearly every event of a packet network is due within a few microseconds (a serialization, a propagation);
/// those go to a calendar of [`SLOTS`] buckets of `2^shift` picoseconds each, with a bitmap of occupied
/// buckets, so scheduling is a push onto a bucket's list. When the queue reaches a bucket, it sorts that
/// bucket once, earliest first, into the *run*, and pops read the run in order: a pop is a read, and the
/// bitmap is searched once per bucket, not once per event. Buckets are a few nanoseconds wide, narrower than
/// almost any gap between an event and the events it schedules, so an event rarely lands in the run being
/// popped (it is then inserted in order). Events beyond the calendar's horizon (timers, the next flow arrival)
/// wait in a binary heap and move into the buckets as time comes within reach. The calendar relies on what
/// every discrete-event simulation guarantees: nothing is scheduled before the event being processed.
/// Ties are taken by key wherever the events wait, so the order is exactly (time, key).
/// Measured against a per-event timing wheel, binary and 4-ary heaps and a radix heap in bench/RESULTS.md.
pub struct EventQueue {
    /// The current bucket's events, sorted earliest first, from `run_next` on.
    run: Vec<Event>,
    /// Room for the first of a radix sort's two passes.
    scratch: Scratch,
    run_next: usize,
    /// The end of the current bucket: events before it belong in `run`.
    run_end: Time,
    /// A fixed array, so that indexing by a masked bucket number needs no bounds check.
    buckets: Box<[Vec<Event>; SLOTS]>,
    occupied: [u64; WORDS],
    /// Absolute bucket number (time >> shift) of the run: the buckets hold (cur, cur + SLOTS).
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

    /// A queue whose buckets are `2^shift` picoseconds wide.
    pub fn with_slot_width(shift: u32) -> Self {
        EventQueue {
            run: Vec::new(),
            scratch: Scratch::default(),
            run_next: 0,
            run_end: 0,
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            occupied: [0; WORDS],
            cur: 0,
            shift,
            far: FarHeap::default(),
            len: 0,
            next_seq: 0,
            peak: 0,
        }
    }

    /// A queue sized so that events up to `horizon` ahead (in picoseconds) go to the buckets, with buckets as
    /// narrow as that allows: the calendar reaches at least `SLOTS - 1` whole buckets past the current time.
    pub fn for_horizon(horizon: Time) -> Self {
        let per_slot = horizon.div_ceil(SLOTS as u64 - 1).max(1);
        Self::with_slot_width(64 - (per_slot - 1).leading_zeros())
    }

    /// Its buckets are `2^shift` picoseconds wide.
    pub fn shift(&self) -> u32 {
        self.shift
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
        self.buckets[slot].push(ev);
        self.occupied[slot / 64] |= 1u64 << (slot % 64);
    }

    #[inline(always)]
    fn place(&mut self, ev: Event) {
        if ev.time < self.run_end {
            self.insert_in_run(ev);
        } else if (ev.time >> self.shift) < self.cur + SLOTS as u64 {
            self.push_near(ev);
        } else {
            self.far.push(ev);
        }
    }

    /// An event due within the bucket being popped: into the run, in order.
    #[cold]
    fn insert_in_run(&mut self, ev: Event) {
        let waiting = &self.run[self.run_next..];
        let at = waiting.iter().rposition(|e| e.before(&ev)).map_or(0, |i| i + 1);
        self.run.insert(self.run_next + at, ev);
    }

    /// Schedule an event at `time`, which must not be earlier than the last event popped.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, kind: EventKind, a: u32, b: u32) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.schedule_keyed(time, seq, kind, a, b);
    }

    /// Schedule an event with a key of the caller's (below 2^61), which orders it among events at the same
    /// time, whenever it is pushed (the engine's keys: `engine::keys`).
    #[inline(always)]
    pub fn schedule_keyed(&mut self, time: Time, key: u64, kind: EventKind, a: u32, b: u32) {
        debug_assert!(time >> self.shift >= self.cur, "an event scheduled in the past");
        debug_assert!(key < 1 << 61, "a key of more than 61 bits");
        self.place(Event::new(time, key, kind, a, b));
        self.len += 1;
        self.peak = self.peak.max(self.len);
    }

    /// The key the next event scheduled in turn takes.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The first occupied bucket at or after absolute bucket `from`, among the next `SLOTS`, if any.
    #[inline]
    fn next_occupied(&self, from: u64) -> Option<u64> {
        let start = (from as usize) & (SLOTS - 1);
        let (w0, b0) = (start / 64, start % 64);
        // The rest of the first word, the other words in order, then the first word's start (wrapped).
        let first = self.occupied[w0] & (!0u64 << b0);
        if first != 0 {
            return Some(from + (first.trailing_zeros() as usize - b0) as u64);
        }
        for i in 1..=WORDS {
            let w = (w0 + i) % WORDS;
            let bits = if i == WORDS { self.occupied[w] & !(!0u64 << b0) } else { self.occupied[w] };
            if bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                let ahead = (slot + SLOTS - start) % SLOTS;
                return Some(from + ahead as u64);
            }
        }
        None
    }

    /// Move the far events that the calendar now reaches into its buckets.
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

    /// The run is spent: make the next occupied bucket (or the first far event's) the run.
    #[inline(never)]
    fn advance(&mut self) {
        // The run's own bucket number maps to the same slot as `cur + SLOTS`, which holds nothing: the search
        // from the bucket after the run sees only later buckets.
        let next = match self.next_occupied(self.run_end >> self.shift) {
            Some(next) => next,
            None => self.far.peek_time().expect("a pending event") >> self.shift,
        };
        self.cur = next;
        self.run_end = (next + 1) << self.shift;
        self.pull_from_far();
        let slot = next as usize & (SLOTS - 1);
        self.run_next = 0;
        fill_run_sorted(&mut self.run, &mut self.scratch, &self.buckets[slot], next << self.shift, self.shift);
        self.buckets[slot].clear();
        self.occupied[slot / 64] &= !(1u64 << (slot % 64));
    }

    /// The event after the next pop, if the current bucket holds it (so that its data can be fetched early).
    #[inline(always)]
    pub fn peek_after_pop(&self) -> Option<&Event> {
        self.peek_after_pop_nth(0)
    }

    /// The `n`-th event after the one `peek_after_pop` gives (0: that one), if the current bucket holds it: the
    /// engine fetches data further ahead, step by step, for what depends on it (the port a packet goes out of).
    #[inline(always)]
    pub fn peek_after_pop_nth(&self, n: usize) -> Option<&Event> {
        self.run.get(self.run_next + n)
    }

    /// The time of the next event, if any, without moving the calendar on (a partition asks it at the end of
    /// each window, before events from other partitions join its queue).
    pub fn next_time(&self) -> Option<Time> {
        if let Some(e) = self.run.get(self.run_next) {
            return Some(e.time);
        }
        if self.len == 0 {
            return None;
        }
        match self.next_occupied(self.run_end >> self.shift) {
            Some(b) => self.buckets[b as usize & (SLOTS - 1)].iter().map(|e| e.time).min(),
            None => self.far.peek_time(),
        }
    }

    /// The next event if it is due before `limit`. The calendar moves on only to a bucket that starts before
    /// `limit`, so events scheduled later at or after `limit` are never in its past.
    #[inline]
    pub fn pop_before(&mut self, limit: Time) -> Option<Event> {
        if self.run_next == self.run.len() {
            if self.len == 0 {
                return None;
            }
            let next_bucket = match self.next_occupied(self.run_end >> self.shift) {
                Some(b) => b,
                None => self.far.peek_time().expect("a pending event") >> self.shift,
            };
            if next_bucket << self.shift >= limit {
                return None;
            }
            self.advance();
        }
        let ev = self.run[self.run_next];
        if ev.time >= limit {
            return None;
        }
        self.len -= 1;
        self.run_next += 1;
        Some(ev)
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        if self.run_next == self.run.len() {
            if self.len == 0 {
                return None;
            }
            self.advance();
        }
        self.len -= 1;
        let ev = self.run[self.run_next];
        self.run_next += 1;
        Some(ev)
    }
}

/// The far part of the queue: a binary min-heap on (time, seq). It holds few events (timers, the next
/// arrival), and unlike the calendar it takes any time at all, however far ahead.
#[derive(Default)]
struct FarHeap {
    heap: std::collections::BinaryHeap<Later>,
}

/// An event ordered so that the max-heap `BinaryHeap` yields the earliest (time, seq) first.
struct Later(Event);

impl PartialEq for Later {
    fn eq(&self, other: &Self) -> bool {
        self.0.key() == other.0.key()
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
        other.0.key().cmp(&self.0.key())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calendar_reaches_its_horizon_with_the_narrowest_buckets() {
        for horizon in [1, 1000, 1_320_000, 2_047_000, 2_047_001, 5_000_000, 1 << 40] {
            let q = EventQueue::for_horizon(horizon);
            assert!((SLOTS as u64 - 1) << q.shift >= horizon, "{horizon}");
            assert!(q.shift == 0 || (SLOTS as u64 - 1) << (q.shift - 1) < horizon, "{horizon}");
        }
    }

    #[test]
    fn an_event_is_24_bytes_and_keeps_its_kind_and_sequence() {
        assert_eq!(std::mem::size_of::<Event>(), 24);
        for (tag, &kind) in KINDS.iter().enumerate().take(6) {
            assert_eq!(kind as usize, tag);
            let e = Event::new(5, (1 << 60) + 123, kind, 1, 2);
            assert_eq!((e.kind(), e.seq(), e.a, e.b), (kind, (1 << 60) + 123, 1, 2));
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
    fn full_buckets_pop_in_time_then_insertion_order() {
        // 500 events in each of a few buckets, with ties: the radix path (buckets up to 2^16 ps wide, pushed in
        // order; one pass up to 2^8 ps, two passes splitting the bits evenly, odd widths too), and the
        // comparison sort (wider buckets).
        for shift in [1, 6, 9, 12, 13, 16, 20] {
            let mut rng = crate::sim::rng::Rng::new(3);
            let mut q = EventQueue::with_slot_width(shift);
            let mut reference = Vec::new();
            for i in 0..2_000u32 {
                let t = rng.below(4 << shift) / 7 * 7;
                q.schedule(t, EventKind::Arrive, i, 0);
                reference.push((t, i));
            }
            reference.sort();
            let popped: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop()).map(|e| (e.time, e.a)).collect();
            assert_eq!(popped, reference, "buckets of 2^{shift} ps");
        }
    }

    #[test]
    fn matches_an_ordered_set_on_a_random_hold_model() {
        // Buckets of 8 ps: the random gaps land in the bucket being popped, in later buckets and far beyond.
        hold_model_matches_an_ordered_set(3, [8, 20_000, 1 << 40]);
        // Wide buckets, and buckets holding more events than the branch-free sort takes.
        hold_model_matches_an_ordered_set(30, [1 << 20, 1 << 34, 1 << 45]);
        hold_model_matches_an_ordered_set(10, [16, 1 << 10, 1 << 13]);
    }

    #[test]
    fn events_keyed_out_of_turn_pop_in_time_then_key_order() {
        // As the engine keys them (by what they are): some events take keys far above the ones scheduled after
        // them, so buckets are not pushed in key order. Bucket widths reach the
        // counted places (a few events per bucket), the radix passes and the comparison sort; times tie often.
        for shift in [1, 6, 13, 16, 20] {
            let mut rng = crate::sim::rng::Rng::new(11);
            let mut q = EventQueue::with_slot_width(shift);
            let mut reference = std::collections::BTreeSet::new();
            let mut now = 0;
            for i in 0..20_000u64 {
                let t = now + rng.below(6 << shift) / 5 * 5;
                if rng.below(3) == 0 {
                    let seq = (1 << 40) + rng.below(1 << 20) * 64 + i % 64;
                    q.schedule_keyed(t, seq, EventKind::Handed, i as u32, 0);
                    reference.insert((t, seq, i as u32));
                } else {
                    let seq = q.next_seq();
                    q.schedule(t, EventKind::Arrive, i as u32, 0);
                    reference.insert((t, seq, i as u32));
                }
                if i % 4 == 0 {
                    let e = q.pop().unwrap();
                    assert_eq!((e.time, e.seq(), e.a), reference.pop_first().unwrap(), "buckets of 2^{shift} ps");
                    now = e.time;
                }
            }
            while let Some(e) = q.pop() {
                assert_eq!((e.time, e.seq(), e.a), reference.pop_first().unwrap(), "buckets of 2^{shift} ps");
            }
            assert!(reference.is_empty());
        }
    }

    #[test]
    fn a_bucket_of_each_size_pops_in_time_then_sequence_order() {
        // One bucket at a time holding 1 to 18 events: a lone event, the eight lanes, the sixteen and the radix
        // passes; offsets tie often, and some events are numbered out of turn.
        let mut rng = crate::sim::rng::Rng::new(5);
        for n in 1..=18u64 {
            for round in 0..200 {
                let mut q = EventQueue::with_slot_width(13);
                let start = (round + 1) << 13;
                let mut reference = Vec::new();
                for i in 0..n {
                    let t = start + rng.below(4) * 1_000;
                    // In turn (the position), or out of turn: above every number in turn, in no order.
                    let seq = if rng.below(3) == 0 { (1 << 40) + rng.below(1 << 20) * 32 + i } else { i };
                    q.schedule_keyed(t, seq, EventKind::Arrive, i as u32, 0);
                    reference.push((t, seq, i as u32));
                }
                reference.sort();
                let popped: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.time, e.seq(), e.a)).collect();
                assert_eq!(popped, reference, "a bucket of {n} events");
            }
        }
    }

    /// Events scheduled at or after the current time (as in any simulation), with many ties, popped in the
    /// order of an ordered set of (time, seq).
    fn hold_model_matches_an_ordered_set(shift: u32, gaps: [u64; 3]) {
        let mut rng = crate::sim::rng::Rng::new(7);
        let mut q = EventQueue::with_slot_width(shift);
        let mut reference = std::collections::BTreeSet::new();
        let mut now = 0;
        for i in 0..50_000u32 {
            let t = now + rng.below(gaps[i as usize % 3]);
            q.schedule(t, EventKind::Arrive, i, 0);
            reference.insert((t, i as u64, i));
            if i % 5 < 3 {
                let e = q.pop().unwrap();
                let first = reference.pop_first().unwrap();
                assert_eq!((e.time, e.seq(), e.a), first);
                now = e.time;
            }
        }
        while let Some(e) = q.pop() {
            assert_eq!((e.time, e.seq(), e.a), reference.pop_first().unwrap());
        }
        assert!(reference.is_empty() && q.is_empty());
    }
}
