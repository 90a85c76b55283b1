//! The source of the generator's choices: the [`Entropy`] trait, and its
//! two implementations, a seeded [`SmallRng`] and the bytes of a fuzzer
//! ([`Unstructured`]).

use arbitrary::{Arbitrary, Unstructured};
use rand::rngs::SmallRng;
use rand::Rng;

/// A source of choices for the generator.
///
/// Every choice the generator makes goes through [`Entropy::below`] and
/// [`Entropy::bits`]. A finite source that is used up answers 0, and the
/// provided methods map 0 to the simplest option (no, the lower bound, the
/// first option), so every source yields a valid program.
pub trait Entropy {
    /// A number in `0..n`; 0 when `n <= 1` or when the source is used up.
    fn below(&mut self, n: u64) -> u64;

    /// 64 bits; 0 when the source is used up.
    fn bits(&mut self) -> u64;

    /// True with the given probability in percent. A used-up source says no
    /// (unless `percent >= 100`).
    fn chance(&mut self, percent: u64) -> bool {
        percent >= 100 || self.below(100) >= 100 - percent
    }

    /// A number in `lo..=hi` (`lo` when the source is used up).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            lo
        } else {
            lo + self.below(hi - lo + 1)
        }
    }

    /// An index into `weights`, drawn in proportion to them; the first
    /// non-zero weight when the source is used up. All weights 0 gives 0.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        if total == 0 {
            return 0;
        }
        let mut r = self.below(total);
        for (i, &w) in weights.iter().enumerate() {
            if r < u64::from(w) {
                return i;
            }
            r -= u64::from(w);
        }
        weights.len() - 1
    }
}

impl Entropy for SmallRng {
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            0
        } else {
            self.gen_range(0..n)
        }
    }

    fn bits(&mut self) -> u64 {
        self.gen()
    }
}

impl Entropy for Unstructured<'_> {
    fn below(&mut self, n: u64) -> u64 {
        if n <= 1 {
            0
        } else {
            self.int_in_range(0..=n - 1).unwrap_or(0)
        }
    }

    fn bits(&mut self) -> u64 {
        u64::arbitrary(self).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_used_up_source_answers_the_simplest_option() {
        let mut u = Unstructured::new(&[]);
        assert_eq!(u.below(10), 0);
        assert!(!u.chance(99));
        assert!(u.chance(100));
        assert_eq!(u.range(3, 9), 3);
        assert_eq!(u.weighted(&[0, 5, 7]), 1);
    }

    #[test]
    fn weighted_follows_the_weights() {
        let mut rng = SmallRng::seed_from_u64(1);
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[rng.weighted(&[1, 0, 2])] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!(counts[2] > counts[0] * 3 / 2, "{counts:?}");
    }
}
