//! The run's peaks (`peak_active_flows`, `peak_live_packets`), taken at every multiple of [`GRID`]: the flows
//! open and the packets alive at each such instant, after every event before it.
//!
//! A grid, not every event, so that a partitioned run finds the same peaks as the sequential engine: its
//! partitions reach a given instant at different moments of the computation, so each notes its own counts at
//! every grid instant it passes, and the sums over partitions are taken once every partition has passed it
//! (`PeakMerge`). A packet on its way between two blocks is counted by the block that posted it until the
//! receiving block takes it in (`Simulation::posted` and `taken`).

use crate::sim::time::Time;

/// One microsecond, in picoseconds: about one packet's serialization at the paper's host rate.
pub const GRID: Time = 1_000_000;

/// The next grid instant a run (or a block of partitions) has not noted its counts at.
#[derive(Clone, Copy, Debug, Default)]
pub struct PeakGrid {
    next: Time,
}

impl PeakGrid {
    /// Whether something due at `t` passes a grid instant not yet noted (the counts are to be noted first).
    #[inline(always)]
    pub fn passes(&self, t: Time) -> bool {
        t >= self.next
    }

    /// The index of the first grid instant not yet noted.
    pub fn next_index(&self) -> u64 {
        self.next / GRID
    }

    /// The counts are noted for every grid instant up to `t` (inclusive); returns the first of them (its index).
    #[inline]
    pub fn note_through(&mut self, t: Time) -> u64 {
        let first = self.next / GRID;
        self.next = (t / GRID + 1) * GRID;
        first
    }

    /// The counts are noted for every grid instant before `t`, if any is not yet: the first of them (its index).
    #[inline]
    pub fn note_before(&mut self, t: Time) -> Option<u64> {
        (t > self.next).then(|| self.note_through(t - 1))
    }
}

/// What a block of partitions noted at grid instants: from instant `index` on (until its next entry; a later entry
/// for the same instant replaces it), its open flows and its packets alive (those it holds, plus those it posted to
/// other blocks, less those it took in from them: a packet on its way is counted once, by its sender, and the sum
/// over blocks is exact).
#[derive(Clone, Copy, Debug)]
struct BlockCounts {
    index: u64,
    active_flows: u64,
    live_packets: i64,
}

/// What one block noted since its notes were last merged: its counts at grid instants, and corrections
/// (`(index, packets)`: from grid instant `index` on, the packets alive it noted are off by that many, a
/// packet queued at a port fed from afar, and dropped there, as of a moment before instants it was noted
/// alive at).
#[derive(Clone, Debug, Default)]
pub struct BlockNotes {
    counts: Vec<BlockCounts>,
    fixes: Vec<(u64, i64)>,
    /// The counts last noted: a note that repeats them is left out.
    last: (u64, i64),
}

impl BlockNotes {
    /// The block's counts from grid instant `index` on (until its next note).
    pub fn note(&mut self, index: u64, active_flows: u64, live_packets: i64) {
        if (active_flows, live_packets) != self.last {
            self.last = (active_flows, live_packets);
            self.counts.push(BlockCounts { index, active_flows, live_packets });
        }
    }

    /// `packets` fewer packets alive than noted at the instants from index `from` to `to` (exclusive).
    pub fn correct(&mut self, from: u64, to: u64, packets: i64) {
        if from < to {
            self.fixes.push((from, -packets));
            self.fixes.push((to, packets));
        }
    }
}

/// The sums over blocks at each grid instant, and their peaks, taken as the blocks' notes come in.
#[derive(Clone, Debug, Default)]
pub struct PeakMerge {
    /// Each block's counts as of its last note merged, and the corrections in force.
    current: Vec<(u64, i64)>,
    correction: i64,
    pub peak_active_flows: u64,
    pub peak_live_packets: u64,
}

impl PeakMerge {
    pub fn new(blocks: usize) -> Self {
        PeakMerge { current: vec![(0, 0); blocks], correction: 0, peak_active_flows: 0, peak_live_packets: 0 }
    }

    /// Merge the blocks' notes and corrections for the instants before index `below`, which no later note or
    /// correction can touch, dropping any after index `last` (the run ended before them). What is merged is
    /// taken out of the blocks' notes.
    pub fn merge(&mut self, notes: &mut [&mut BlockNotes], below: u64, last: u64) {
        // (index, block, flows, packets)
        let mut all: Vec<(u64, usize, u64, i64)> = Vec::new();
        let mut fixes: Vec<(u64, i64)> = Vec::new();
        for (b, block) in notes.iter_mut().enumerate() {
            let list = &mut block.counts;
            let taken = list.partition_point(|c| c.index < below);
            all.extend(
                list.drain(..taken).filter(|c| c.index <= last).map(|c| (c.index, b, c.active_flows, c.live_packets)),
            );
            let corrections = &mut block.fixes;
            corrections.sort_unstable();
            let taken = corrections.partition_point(|c| c.0 < below);
            fixes.extend(corrections.drain(..taken).filter(|c| c.0 <= last));
        }
        // (Stable: a block's later note for an instant replaces its earlier one.)
        all.sort_by_key(|&(index, b, _, _)| (index, b));
        fixes.sort_unstable();
        let (mut i, mut j) = (0, 0);
        // The sums change only at a noted or corrected instant, once every entry for it is in.
        while i < all.len() || j < fixes.len() {
            let index = all.get(i).map_or(u64::MAX, |e| e.0).min(fixes.get(j).map_or(u64::MAX, |f| f.0));
            while i < all.len() && all[i].0 == index {
                let (_, b, flows, packets) = all[i];
                self.current[b] = (flows, packets);
                i += 1;
            }
            while j < fixes.len() && fixes[j].0 == index {
                self.correction += fixes[j].1;
                j += 1;
            }
            let flows: u64 = self.current.iter().map(|c| c.0).sum();
            let packets: i64 = self.current.iter().map(|c| c.1).sum::<i64>() + self.correction;
            self.peak_active_flows = self.peak_active_flows.max(flows);
            self.peak_live_packets = self.peak_live_packets.max(packets.max(0) as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_notes_each_instant_once() {
        let mut g = PeakGrid::default();
        assert!(g.passes(0));
        assert_eq!(g.note_through(0), 0);
        assert!(!g.passes(GRID - 1));
        assert!(g.passes(GRID));
        assert_eq!(g.note_through(3 * GRID + 5), 1);
        assert_eq!(g.note_before(4 * GRID), None);
        assert_eq!(g.note_before(4 * GRID + 1), Some(4));
        assert!(!g.passes(4 * GRID + 1));
    }

    #[test]
    fn the_sums_hold_each_blocks_counts_until_its_next_note() {
        let mut m = PeakMerge::new(2);
        let (mut a, mut b) = (BlockNotes::default(), BlockNotes::default());
        a.note(0, 1, 5);
        a.note(1, 1, 5); // the same counts: left out
        a.note(3, 0, -2);
        b.note(1, 2, 4);
        b.note(4, 0, 9);
        b.correct(1, 2, 1);
        b.correct(3, 3, 1); // an empty span: nothing
                            // Up to instant 1 first, then the rest.
        m.merge(&mut [&mut a, &mut b], 2, u64::MAX);
        assert_eq!((a.counts.len(), b.counts.len(), b.fixes.len()), (1, 1, 1));
        m.merge(&mut [&mut a, &mut b], u64::MAX, u64::MAX);
        // Instants 0: (1, 5); 1: (3, 9 - 1); 2: (3, 9); 3: (2, 2); 4: (0, 7).
        assert_eq!((m.peak_active_flows, m.peak_live_packets), (3, 9));
        assert!(a.counts.is_empty() && b.counts.is_empty() && b.fixes.is_empty());
        let mut late = BlockNotes::default();
        late.note(9, 7, 70);
        m.merge(&mut [&mut late, &mut BlockNotes::default()], u64::MAX, 8);
        assert_eq!((m.peak_active_flows, m.peak_live_packets), (3, 9), "after the run's end");
    }
}
