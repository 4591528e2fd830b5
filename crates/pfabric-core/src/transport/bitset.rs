//! A plain growable bit set over packet indices.

#[derive(Clone, Debug, Default)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn with_len(bits: usize) -> Self {
        BitSet { words: vec![0; bits.div_ceil(64)] }
    }

    /// Whether the set has no room (made with no length, or by `default`).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    #[inline]
    pub fn get(&self, i: u32) -> bool {
        self.words[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }

    /// Sets bit `i`; returns whether it was clear before.
    #[inline]
    pub fn set(&mut self, i: u32) -> bool {
        let w = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let was_clear = *w & mask == 0;
        *w |= mask;
        was_clear
    }

    /// Clears bit `i`; returns whether it was set before.
    #[inline]
    pub fn clear(&mut self, i: u32) -> bool {
        let w = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let was_set = *w & mask != 0;
        *w &= !mask;
        was_set
    }
}

/// 128 bits kept as two 8-byte words: a `u128`'s 16-byte alignment would round a small struct up and leave no
/// room beside it (the receiver's and the scoreboard's windows sit in their counters' line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bits128([u64; 2]);

impl Bits128 {
    #[inline(always)]
    pub fn get(self) -> u128 {
        u128::from(self.0[0]) | u128::from(self.0[1]) << 64
    }

    #[inline(always)]
    pub fn set(&mut self, bits: u128) {
        self.0 = [bits as u64, (bits >> 64) as u64];
    }
}
