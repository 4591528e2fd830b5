//! Seeded random streams.
//!
//! Every random choice draws from a named stream whose seed is derived from the scenario seed and the stream's
//! name, so adding a draw to one stream (say, packet spraying) never shifts another (flow sizes, arrival times).
//! The generator is xoshiro256++ seeded through SplitMix64, implemented here so that results depend on no
//! crate version: the same scenario and seed give the same numbers on any machine, forever.

#[derive(Clone)]
pub struct Rng {
    s: [u64; 4],
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a, to turn a stream name into 64 bits.
fn name_hash(name: &str) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

/// A number uniform in [0, 1) that depends only on (`seed`, `key`): for draws that need no stream order (a
/// packet's send jitter, keyed by its flow and index).
pub fn unit_hash(seed: u64, key: u64) -> f64 {
    let mut st = seed ^ key.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    (splitmix64(&mut st) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The seed of the stream called `name` of a scenario seeded with `seed`.
pub fn stream_seed(seed: u64, name: &str) -> u64 {
    seed ^ name_hash(name).rotate_left(17)
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        let mut st = seed;
        let s = [splitmix64(&mut st), splitmix64(&mut st), splitmix64(&mut st), splitmix64(&mut st)];
        Rng { s }
    }

    /// The stream called `name` of the scenario seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Self {
        Rng::new(stream_seed(seed, name))
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = (self.s[0].wrapping_add(self.s[3])).rotate_left(23).wrapping_add(self.s[0]);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1), 53 bits.
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1]: safe under a logarithm.
    #[inline]
    pub fn uniform_open0(&mut self) -> f64 {
        1.0 - self.uniform()
    }

    /// Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method).
    /// (Inlined where a switch sprays, on every such hop; the rare draw that may be rejected is not.)
    #[inline(always)]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let m = (self.next_u64() as u128) * (n as u128);
        if (m as u64) < n {
            return self.below_after(m, n);
        }
        (m >> 64) as u64
    }

    /// `below(n)` once its first draw gave `m`, whose low half is below `n`: rejected if under the threshold.
    #[cold]
    #[inline(never)]
    fn below_after(&mut self, mut m: u128, n: u64) -> u64 {
        let threshold = n.wrapping_neg() % n;
        while (m as u64) < threshold {
            m = (self.next_u64() as u128) * (n as u128);
        }
        (m >> 64) as u64
    }

    /// What `below(n)` will most likely return after `skip` more draws, without drawing: a guess for prefetching
    /// (exact unless a draw is rejected, about n in 2^64 of them).
    #[inline(always)]
    pub fn peek_below(&self, n: u64, skip: usize) -> u64 {
        let mut ahead = self.clone();
        for _ in 0..skip {
            ahead.next_u64();
        }
        ((ahead.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Exponential with the given mean.
    #[inline]
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * self.uniform_open0().ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Rng::stream(1, "sizes").next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(Rng::stream(1, "sizes").next_u64(), Rng::stream(1, "arrivals").next_u64());
        assert_ne!(Rng::stream(1, "sizes").next_u64(), Rng::stream(2, "sizes").next_u64());
    }

    #[test]
    fn peek_below_guesses_the_draw_after_skipped_ones() {
        let mut r = Rng::new(7);
        for n in [2u64, 16, 32, 1000] {
            let (now, after_one) = (r.peek_below(n, 0), r.peek_below(n, 1));
            assert_eq!(now, r.below(n));
            assert_eq!(after_one, r.below(n));
        }
    }

    #[test]
    fn below_is_uniform_enough() {
        let mut r = Rng::new(3);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.below(6) as usize] += 1;
        }
        for c in counts {
            assert!((9_500..10_500).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn exponential_mean() {
        let mut r = Rng::new(5);
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((m - 2.0).abs() < 0.02, "{m}");
    }
}
