//! The one small seeded generator (xorshift64) behind generated samples and the property tests: deterministic
//! across platforms, no dependency. Not for anything that needs statistical quality or secrecy.

/// Xorshift64. A zero seed stays zero: seed with any other value.
#[derive(Clone, Debug)]
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform-ish in `0..n` (0 when `n` is 0; a draw is taken either way, so sequences do not shift).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// In `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// Around `mean` (within +-25%), at least 1.
    pub fn around(&mut self, mean: u64) -> u64 {
        let spread = mean / 2;
        (mean - mean / 4 + if spread > 0 { self.next() % spread } else { 0 }).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::XorShift;

    #[test]
    fn deterministic_and_in_range() {
        let (mut a, mut b) = (XorShift(7), XorShift(7));
        for _ in 0..1000 {
            assert_eq!(a.next(), b.next());
        }
        for _ in 0..1000 {
            assert!(a.below(10) < 10);
            let r = a.range(3, 5);
            assert!((3..=5).contains(&r));
            let m = a.around(100);
            assert!((75..=125).contains(&m));
        }
        assert_eq!(a.below(0), 0);
    }
}
