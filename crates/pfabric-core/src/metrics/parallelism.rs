//! How much of a run a conservative parallel engine could overlap: the input to the design of one (issue
//! "Scale"), measured on the sequential engine.
//!
//! The model. The fabric is cut into *racks* (an edge switch and its hosts); every other switch joins the least
//! loaded rack among its neighbours'. A thread owns a contiguous block of racks (a fat-tree numbers its edge switches pod by pod,
//! so a block is whole pods where the counts divide). Threads run in windows no longer than the lookahead: the
//! least time a packet takes to cross a cut link (propagation plus the serialization of the smallest packet),
//! so nothing a thread does in a window can reach another thread within the same window. A window then costs
//! the most events any thread has in it, plus one barrier.
//!
//! Each event is charged to the node where it happens: a packet's arrival to the node it arrives at, a flow's
//! start and its timer to its source host, the rest to rack 0. (Transmissions that fall due later run inside
//! other events, at the port's own node in both cases: the charge is the same.)
//!
//! Reported per thread count: windows with work, the events on the critical path (the sum over windows of
//! the busiest thread's events), and from them the speed-up bound `events / (critical + windows x barrier)`
//! for a barrier cost given in events.

use crate::net::partition::Partitioning;
use crate::net::topology::Topology;
use crate::sim::time::Time;

/// The thread counts the profile follows.
pub const THREADS: [usize; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

pub struct WindowProfile {
    /// Window length: the least time a packet takes to cross a cut link.
    pub lookahead: Time,
    /// Rack of each node.
    rack_of: Vec<u32>,
    pub racks: usize,
    /// The current window and its events per rack.
    window: u64,
    per_rack: Vec<u64>,
    /// Racks with events in the current window (so that closing a window costs what it holds, not all racks).
    touched: Vec<u32>,
    pub events: u64,
    /// Windows that held any event.
    pub windows: u64,
    /// Per entry of `THREADS`: the sum over windows of the busiest thread's events.
    pub critical: [u64; THREADS.len()],
    per_thread: Vec<u64>,
}

impl WindowProfile {
    pub fn new(topo: &Topology) -> Self {
        let Partitioning { part_of: rack_of, parts: racks, lookahead, .. } = Partitioning::racks(topo);
        WindowProfile {
            lookahead,
            rack_of,
            racks,
            window: 0,
            per_rack: vec![0; racks],
            touched: Vec::new(),
            events: 0,
            windows: 0,
            critical: [0; THREADS.len()],
            per_thread: vec![0; *THREADS.last().unwrap()],
        }
    }

    /// An event at `time` at `node` (None: charged to rack 0).
    #[inline]
    pub fn record(&mut self, time: Time, node: Option<u32>) {
        let window = time / self.lookahead;
        if window != self.window {
            self.close_window();
            self.window = window;
        }
        let rack = node.map_or(0, |n| self.rack_of[n as usize]) as usize;
        if self.per_rack[rack] == 0 {
            self.touched.push(rack as u32);
        }
        self.per_rack[rack] += 1;
        self.events += 1;
    }

    /// Fold the current window into the totals.
    pub fn close_window(&mut self) {
        if self.touched.is_empty() {
            return;
        }
        self.windows += 1;
        for (i, &threads) in THREADS.iter().enumerate() {
            let threads = threads.min(self.racks);
            self.per_thread[..threads].iter_mut().for_each(|x| *x = 0);
            for &rack in &self.touched {
                // Contiguous blocks of racks per thread.
                let t = rack as usize * threads / self.racks;
                self.per_thread[t] += self.per_rack[rack as usize];
            }
            self.critical[i] += self.per_thread[..threads].iter().max().copied().unwrap_or(0);
        }
        for &rack in &self.touched {
            self.per_rack[rack as usize] = 0;
        }
        self.touched.clear();
    }

    /// The speed-up bound at `THREADS[i]` threads for a barrier costing `barrier_events` events.
    pub fn speedup(&self, i: usize, barrier_events: f64) -> f64 {
        self.events as f64 / (self.critical[i] as f64 + self.windows as f64 * barrier_events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::{fat_tree, LinkParams};

    fn links() -> LinkParams {
        LinkParams::PAPER
    }

    #[test]
    fn racks_and_lookahead_of_a_fat_tree() {
        let t = fat_tree(4, links());
        let p = WindowProfile::new(&t);
        assert_eq!(p.racks, 8);
        // A 40-byte packet at 40 Gbps (8 ns) plus 200 ns of propagation.
        assert_eq!(p.lookahead, 200_000 + 8_000);
    }

    #[test]
    fn the_critical_path_is_the_busiest_thread_of_each_window() {
        let t = fat_tree(4, links());
        let mut p = WindowProfile::new(&t);
        let w = p.lookahead;
        // Window 0: 3 events in rack 0 (hosts 0-1), 1 in rack 7 (hosts 14-15). Window 2: 2 in rack 4.
        for node in [0, 1, 0, 15] {
            p.record(10, Some(node));
        }
        p.record(2 * w, Some(8));
        p.record(2 * w + 1, Some(9));
        p.close_window();
        assert_eq!((p.events, p.windows), (6, 2));
        // One thread: 4 + 2; two threads (racks 0-3, 4-7): 3 + 2; eight or more: 3 + 2 as well.
        assert_eq!(p.critical[0], 6);
        assert_eq!(p.critical[1], 5);
        assert_eq!(p.critical[3], 5);
        assert!((p.speedup(1, 0.0) - 1.2).abs() < 1e-12);
    }
}
