//! A few timers per host (`N`), for the receiver-driven hosts (pHost, Homa, NDP): each armed at one time at
//! most, so a re-arm earlier schedules a new `HostTick` and the older one, when it fires, is recognized as
//! stale.

use crate::sim::time::Time;

pub(super) struct HostTimers<const N: usize = 2> {
    /// The pending tick of each host's timers, if armed.
    armed: Vec<[Option<Time>; N]>,
}

impl<const N: usize> HostTimers<N> {
    pub(super) fn new(hosts: usize) -> Self {
        HostTimers { armed: vec![[None; N]; hosts] }
    }

    /// Timer `which` of `host` to fire at `at` at the latest: whether a tick must be scheduled (false when it
    /// is already due then or sooner).
    pub(super) fn arm(&mut self, host: u32, which: u32, at: Time) -> bool {
        let slot = &mut self.armed[host as usize][which as usize];
        if slot.is_some_and(|t| t <= at) {
            return false;
        }
        *slot = Some(at);
        true
    }

    /// A tick of timer `which` of `host` for `at` fired: whether it is the armed one (it is then disarmed), not
    /// one superseded since.
    pub(super) fn fire(&mut self, host: u32, which: u32, at: Time) -> bool {
        let slot = &mut self.armed[host as usize][which as usize];
        if *slot != Some(at) {
            return false;
        }
        *slot = None;
        true
    }
}
