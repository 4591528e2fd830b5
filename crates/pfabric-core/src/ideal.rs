//! Ideal: the pFabric paper's central scheduler (its Algorithm 1), at the flow level.
//!
//! At every flow arrival and departure, the scheduler orders the active flows by remaining size (earliest
//! arrival first among equals) and walks the list, admitting each flow whose source and destination are both
//! still free: a maximal schedule in SRPT order, each admitted flow at line rate, the rest paused. Between two
//! events nothing changes. On one bottleneck link this is exactly preemptive SRPT.
//!
//! Work is counted in integer picoseconds of transmission at the host rate, over the flow's wire bytes (the
//! same bytes the packet-level schemes send), so the schedule is exact. A flow's FCT is the time its last byte
//! is served plus the fixed latency of its path (its packet-level ideal FCT minus its transmission time): a flow
//! alone gets exactly its ideal FCT, and normalized FCTs compare with the packet-level schemes' on the same
//! flows. The paper simulated Ideal in MATLAB on the flow arrivals of its ns-2 runs; here it runs on the same
//! arrivals as any other scheme with the same scenario and seed.

use crate::metrics::FlowRecord;
use crate::net::packet::PacketFormat;
use crate::sim::time::{serialization_ps, Time};

struct Active {
    id: u32,
    src: u32,
    dst: u32,
    /// Transmission time left, in picoseconds at the host rate.
    remaining: Time,
}

/// The flow-level scheduler's state.
pub struct IdealScheduler {
    host_rate_bps: u64,
    format: PacketFormat,
    active: Vec<Active>,
    /// Flows admitted by the last schedule (indices into `active` are rebuilt at each event).
    running: Vec<bool>,
    src_busy: Vec<bool>,
    dst_busy: Vec<bool>,
    /// When the current schedule started.
    since: Time,
    /// Bytes of the flows it has served in full.
    served_bytes: u64,
}

impl IdealScheduler {
    pub fn new(hosts: u32, host_rate_bps: u64, format: PacketFormat) -> Self {
        IdealScheduler {
            host_rate_bps,
            format,
            active: Vec::new(),
            running: Vec::new(),
            src_busy: vec![false; hosts as usize],
            dst_busy: vec![false; hosts as usize],
            since: 0,
            served_bytes: 0,
        }
    }

    /// Transmission time of a flow's wire bytes at the host rate.
    pub fn work_ps(&self, size_bytes: u64) -> Time {
        serialization_ps(self.format.flow_wire_bytes(size_bytes), self.host_rate_bps)
    }

    pub fn active_flows(&self) -> usize {
        self.active.len()
    }

    /// Serve the running flows up to `now`; record and remove those that completed.
    pub fn advance(&mut self, now: Time, flows: &mut [FlowRecord]) -> u64 {
        let elapsed = now - self.since;
        self.since = now;
        let mut finished = 0;
        let mut i = 0;
        while i < self.active.len() {
            if self.running[i] {
                let a = &mut self.active[i];
                a.remaining -= elapsed.min(a.remaining);
                if a.remaining == 0 {
                    let rec = &mut flows[a.id as usize];
                    let latency = rec.ideal_fct - self.work_ps(rec.size_bytes).min(rec.ideal_fct);
                    rec.finish = now + latency;
                    self.served_bytes += rec.size_bytes;
                    finished += 1;
                    self.active.swap_remove(i);
                    self.running.swap_remove(i);
                    continue;
                }
            }
            i += 1;
        }
        finished
    }

    /// The flow-level goodput up to `now`: the bytes of the flows served in full, and the share of each active
    /// flow's bytes its schedule has served (the flow-level counterpart of the packet-level schemes'
    /// `data_bytes_received`; a byte counts when served, a path's latency before it arrives).
    pub fn served_bytes(&self, now: Time, flows: &[FlowRecord]) -> u64 {
        let elapsed = now.saturating_sub(self.since);
        let partial: u64 = self
            .active
            .iter()
            .zip(&self.running)
            .map(|(a, &run)| {
                let size = flows[a.id as usize].size_bytes;
                let work = self.work_ps(size).max(1);
                let left = if run { a.remaining.saturating_sub(elapsed) } else { a.remaining };
                (size as u128 * (work - left.min(work)) as u128 / work as u128) as u64
            })
            .sum();
        self.served_bytes + partial
    }

    pub fn add(&mut self, id: u32, src: u32, dst: u32, size_bytes: u64) {
        let remaining = self.work_ps(size_bytes);
        self.active.push(Active { id, src, dst, remaining });
        self.running.push(false);
    }

    /// Recompute the schedule; returns when the next running flow completes, if any runs.
    pub fn reschedule(&mut self) -> Option<Time> {
        self.active.sort_unstable_by_key(|a| (a.remaining, a.id));
        self.src_busy.iter_mut().for_each(|b| *b = false);
        self.dst_busy.iter_mut().for_each(|b| *b = false);
        let mut next: Option<Time> = None;
        for (a, run) in self.active.iter().zip(self.running.iter_mut()) {
            *run = !self.src_busy[a.src as usize] && !self.dst_busy[a.dst as usize];
            if *run {
                self.src_busy[a.src as usize] = true;
                self.dst_busy[a.dst as usize] = true;
                next = Some(next.map_or(a.remaining, |n| n.min(a.remaining)));
            }
        }
        next.map(|left| self.since + left)
    }
}
