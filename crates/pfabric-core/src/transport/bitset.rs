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
