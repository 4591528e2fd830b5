//! The ideal flow completion time: a flow alone in the idle fabric, on its path.
//!
//! Store and forward: a packet is received whole at each hop before it is forwarded. With the window never
//! binding, packets leave the source back to back, and the last packet's arrival at the destination is a
//! longest path through the (hop x packet) grid of serialization times (a classic tandem-queue result). With all
//! packets full but the last, that longest path stays on the first packet until some hop, moves along the
//! slowest hop so far over the full packets, and finishes with the last packet:
//!
//! ```text
//! T(n) = props + max over m of [ sum_{k<=m} s_k(full) + (n - 2) * max_{k<=m} s_k(full) + sum_{k>=m} s_k(last) ]
//! ```
//! for n >= 2 packets, and `props + sum_k s_k(last)` for one packet. It is exactly what the engine produces for
//! a lone flow whose window covers the path (tested to the picosecond), and it is the denominator of the
//! normalized FCT.

use crate::net::packet::PacketFormat;
use crate::sim::time::{serialization_ps, Time};

/// One hop of a path: the rate and propagation delay of the link a packet crosses.
#[derive(Clone, Copy, Debug)]
pub struct Hop {
    pub rate_bps: u64,
    pub delay_ps: Time,
}

/// Ideal FCT in picoseconds of a flow of `size_bytes` over `hops`, from its first packet entering the source
/// NIC to its last byte arriving at the destination host, in packets of `format`.
pub fn ideal_fct_ps(size_bytes: u64, hops: &[Hop], format: PacketFormat) -> Time {
    let n = format.packets_for(size_bytes);
    let last_payload = format.payload_of(size_bytes, n as u32, n as u32 - 1);
    let props: Time = hops.iter().map(|h| h.delay_ps).sum();
    let s_full = |h: &Hop| serialization_ps(format.full_wire_bytes() as u64, h.rate_bps);
    let s_last = |h: &Hop| serialization_ps(format.wire_bytes(last_payload) as u64, h.rate_bps);
    if n == 1 {
        return props + hops.iter().map(s_last).sum::<Time>();
    }
    let mut best = 0;
    let mut prefix_full = 0;
    let mut slowest = 0;
    for m in 0..hops.len() {
        prefix_full += s_full(&hops[m]);
        slowest = slowest.max(s_full(&hops[m]));
        let suffix_last: Time = hops[m..].iter().map(s_last).sum();
        best = best.max(prefix_full + (n - 2) * slowest + suffix_last);
    }
    props + best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: simulate store-and-forward packet by packet.
    fn by_recursion(size_bytes: u64, hops: &[Hop], f: PacketFormat) -> Time {
        let (mss, header) = (f.mss_bytes as usize, f.header_bytes as u64);
        let n = size_bytes.div_ceil(mss as u64).max(1) as usize;
        let mut free_at = vec![0; hops.len()];
        let mut arrival = 0;
        for i in 0..n {
            let payload = if i + 1 == n { size_bytes as usize - (n - 1) * mss } else { mss };
            let mut t = 0; // ready at the source at time 0
            for (k, h) in hops.iter().enumerate() {
                let start = t.max(free_at[k]);
                let done = start + serialization_ps(payload as u64 + header, h.rate_bps);
                free_at[k] = done;
                t = done + h.delay_ps;
            }
            arrival = t;
        }
        arrival
    }

    #[test]
    fn closed_form_matches_packet_by_packet() {
        let g = 1_000_000_000;
        let paths = [
            vec![
                Hop { rate_bps: 10 * g, delay_ps: 2_700_000 },
                Hop { rate_bps: 40 * g, delay_ps: 200_000 },
                Hop { rate_bps: 40 * g, delay_ps: 200_000 },
                Hop { rate_bps: 10 * g, delay_ps: 2_700_000 },
            ],
            vec![
                Hop { rate_bps: 40 * g, delay_ps: 1 },
                Hop { rate_bps: 10 * g, delay_ps: 5 },
                Hop { rate_bps: 25 * g, delay_ps: 7 },
            ],
            vec![Hop { rate_bps: g / 10, delay_ps: 6_000_000 }],
        ];
        // The default packets, and the AIFO authors' netbench packets (1380 payload bytes, 120 of headers).
        let netbench = PacketFormat { mss_bytes: 1380, header_bytes: 120 };
        for f in [PacketFormat::DEFAULT, netbench] {
            for path in &paths {
                for size in [1, 100, 1380, 1381, 1460, 1461, 2760, 2920, 5000, 17_520, 100_000, 1_000_001] {
                    assert_eq!(ideal_fct_ps(size, path, f), by_recursion(size, path, f), "size {size}, {f:?}");
                }
            }
        }
    }

    #[test]
    fn one_packet_on_the_paper_fabric_is_about_7_us() {
        let g = 1_000_000_000;
        let path = [
            Hop { rate_bps: 10 * g, delay_ps: 2_700_000 },
            Hop { rate_bps: 40 * g, delay_ps: 200_000 },
            Hop { rate_bps: 40 * g, delay_ps: 200_000 },
            Hop { rate_bps: 10 * g, delay_ps: 2_700_000 },
        ];
        // 2 x 1.2 us + 2 x 0.3 us serialization + 5.8 us propagation and host delay.
        assert_eq!(ideal_fct_ps(1460, &path, PacketFormat::DEFAULT), 8_800_000);
    }
}
