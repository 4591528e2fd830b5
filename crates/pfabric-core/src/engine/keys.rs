//! What orders the events of one instant: each event's key (`EventQueue::schedule_keyed`), which says what the
//! event is, never when or where it was scheduled. Events at different nodes at one instant touch different
//! state, so only each node's order matters; keyed so, it is the same in the sequential engine and in any
//! partition of the partitioned engine, whichever block runs it and whenever a handed packet is pushed, and the
//! two engines give the same results (DESIGN.md sections 2 and 8).
//!
//! At one instant: packets' arrivals first, in an order drawn from the instant and the port each left; then flows'
//! timers, by flow; then flows' starts, by flow; then the receiver-driven hosts' timers, by host and timer; then
//! what only the sequential engine has (sampling, the flow-level ideal's completions). A key fits 61 bits: the
//! class in the top ones.

use crate::sim::time::Time;

const TIMER: u64 = 1 << 58;
const FLOW_START: u64 = 2 << 58;
const HOST_TICK: u64 = 3 << 58;
const SEQUENTIAL_ONLY: u64 = (3 << 58) | (1 << 57);

/// A packet's arrival at `at` from port `port`, by the fabric's own numbering (a partitioned run numbers its
/// ports anew: `Simulation::fabric_id_of`). Arrivals at one node at one instant go in an order drawn from the
/// instant and the ports, not by port: a fixed order would favour the same port at every tie, and an incast's
/// synchronized senders tie at every packet (NDP's small incasts finished 2.1-2.3% after the optimum with the
/// lowest port first, against 0.4-0.7% before the keys, in push order; bench/RESULTS.md, forty-third session).
/// The port's id, below the draw, keeps each key unique.
#[inline(always)]
pub(super) fn arrival(at: Time, port: u32) -> u64 {
    debug_assert!(port < 1 << PORT_BITS);
    // (Three multiplies, the last over both: its top bits depend on every bit of the instant and the port, through
    // carries, so no port keeps a place among the others. One multiply over both kept one: NDP's incast of 4
    // flows ended 2.1% after the optimum again. A full mix, splitmix64's, cost 4% of the leaf-spine's instructions.)
    let draw = (at.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (port as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9))
        .wrapping_mul(0x94D0_49BB_1331_11EB)
        >> 33;
    draw << PORT_BITS | port as u64
}

/// Port ids an arrival's key holds: as many as the largest fabric the configuration allows has (a leaf-spine of
/// 4,096 leaves, 4,096 hosts each and 4,096 spines: 2 x 4,096 x (4,096 + 4,096) = 2^26 ports; k = 64: 393,216).
const PORT_BITS: u32 = 26;

/// Flow `flow`'s retransmission (or pacing) timer.
#[inline(always)]
pub(super) fn timer(flow: u32) -> u64 {
    TIMER | flow as u64
}

/// Flow `flow`'s start (flow ids are given in start order, the same in both engines).
#[inline(always)]
pub(super) fn flow_start(flow: u32) -> u64 {
    FLOW_START | flow as u64
}

/// Host `host`'s timer `which` (NDP's has four, pHost's and Homa's two) of the receiver-driven schemes.
#[inline(always)]
pub(super) fn host_tick(host: u32, which: u32) -> u64 {
    debug_assert!(which < 4);
    HOST_TICK | (host as u64) << 2 | which as u64
}

/// The end of a throughput sampling interval (sequential only).
pub(super) const SAMPLE: u64 = SEQUENTIAL_ONLY;

/// The flow-level ideal's wake-up of schedule generation `generation` (sequential only).
pub(super) fn ideal_completion(generation: u32) -> u64 {
    SEQUENTIAL_ONLY | 1 | (generation as u64) << 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classes_come_in_order_and_fit_the_queues_61_bits() {
        let largest =
            [arrival(u64::MAX, (1 << PORT_BITS) - 1), timer(u32::MAX), flow_start(u32::MAX), host_tick(u32::MAX, 3)];
        let smallest = [timer(0), flow_start(0), host_tick(0, 0), SAMPLE];
        for (big, next) in largest.iter().zip(&smallest) {
            assert!(big < next, "{big:#x} {next:#x}");
        }
        assert!(ideal_completion(u32::MAX) < 1 << 61 && SAMPLE < ideal_completion(0));
    }
}
