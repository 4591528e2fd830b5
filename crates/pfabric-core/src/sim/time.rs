//! Simulated time: an integer count of picoseconds.
//!
//! Integers make event ordering exact and results identical on every machine; a `u64` of picoseconds covers
//! 213 days of simulated time, far beyond any run. Conversions from the user's units (seconds, microseconds,
//! Gbps) happen once, when a scenario is built, and round to the nearest picosecond.

/// A point in simulated time or a duration, in picoseconds.
pub type Time = u64;

pub const PS_PER_US: u64 = 1_000_000;
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// Microseconds (finite, >= 0) to picoseconds, rounded to the nearest.
pub fn ps_from_us(us: f64) -> Time {
    (us * PS_PER_US as f64).round() as Time
}

/// Seconds (finite, >= 0) to picoseconds, rounded to the nearest.
pub fn ps_from_s(s: f64) -> Time {
    (s * PS_PER_S as f64).round() as Time
}

pub fn s_from_ps(t: Time) -> f64 {
    t as f64 / PS_PER_S as f64
}

/// A link rate in bits per second, rounded from Gbps.
pub fn bps_from_gbps(gbps: f64) -> u64 {
    (gbps * 1e9).round() as u64
}

/// Time to serialize `bytes` onto a link of `rate_bps`, rounded up to a whole picosecond so that a link is
/// never faster than its rate.
#[inline]
pub fn serialization_ps(bytes: u64, rate_bps: u64) -> Time {
    // 64-bit arithmetic (a 128-bit division is a slow library call) while it cannot overflow: any packet.
    if bytes < (1 << 20) {
        (bytes * 8 * PS_PER_S).div_ceil(rate_bps)
    } else {
        (bytes as u128 * 8 * PS_PER_S as u128).div_ceil(rate_bps as u128) as Time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_of_a_full_packet_at_10g_is_1_2_us() {
        assert_eq!(serialization_ps(1500, bps_from_gbps(10.0)), 1_200_000);
        assert_eq!(serialization_ps(40, bps_from_gbps(40.0)), 8_000);
    }

    #[test]
    fn serialization_rounds_up() {
        // 1 byte at 3 bps = 8/3 s, not representable exactly.
        assert_eq!(serialization_ps(1, 3), 2_666_666_666_667);
    }
}
