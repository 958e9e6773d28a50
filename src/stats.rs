//! Paired significance tests over posts: is the difference between two
//! retrievers (or two runs) on the same posts more than chance?
//!
//! The test is a paired randomisation (permutation) test, the one trec_eval
//! users know from IR evaluation: under the null hypothesis the two systems
//! are exchangeable on every post, so each resample swaps the two systems'
//! results on each post with probability ½ and recomputes the difference.
//! The two-sided p-value is the share of resamples whose difference is at
//! least as large (in absolute value) as the observed one, counting the
//! observed assignment itself: `(1 + hits) / (1 + resamples)`. It is never
//! 0, and it is 1 when the two systems agree on every post.
//!
//! Figures are ratios of sums (recall = Σ found / Σ needed, completeness =
//! Σ complete / Σ posts), so each post contributes a numerator and a
//! denominator per system, and the statistic is the difference of the two
//! ratios of sums. Randomness comes from a seeded SplitMix64 generator, so
//! the same inputs and seed always give the same p-value.

use serde::{Deserialize, Serialize};

/// Default number of resamples.
pub const DEFAULT_RESAMPLES: u32 = 10_000;
/// Default seed.
pub const DEFAULT_SEED: u64 = 1;

/// One post's contribution to a ratio, for system A and system B.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Pair {
    pub(crate) a: (f64, f64),
    pub(crate) b: (f64, f64),
}

impl Pair {
    /// A post scored 0/1 (complete or not) by both systems.
    pub(crate) fn flag(a: bool, b: bool) -> Pair {
        Pair {
            a: (f64::from(u8::from(a)), 1.0),
            b: (f64::from(u8::from(b)), 1.0),
        }
    }

    /// A post with `a` and `b` found of `needed` (recall).
    pub(crate) fn counts(a: usize, a_of: usize, b: usize, b_of: usize) -> Pair {
        Pair {
            a: (a as f64, a_of as f64),
            b: (b as f64, b_of as f64),
        }
    }
}

/// The outcome of a paired test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct TestResult {
    /// B's ratio minus A's; `None` when a denominator is 0.
    pub(crate) difference: Option<f64>,
    /// Two-sided p-value; `None` when there is no difference to test
    /// (a denominator is 0).
    pub(crate) p: Option<f64>,
    /// Posts compared.
    pub(crate) posts: usize,
    /// Posts on which the two systems differ.
    pub(crate) differing: usize,
    pub(crate) resamples: u32,
    pub(crate) seed: u64,
}

/// How the test was run, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TestSettings {
    pub(crate) method: &'static str,
    pub(crate) resamples: u32,
    pub(crate) seed: u64,
}

impl TestSettings {
    pub fn new(resamples: u32, seed: u64) -> TestSettings {
        TestSettings {
            method: "paired randomisation",
            resamples,
            seed,
        }
    }

    /// "paired randomisation test over posts, 10000 resamples, seed 1".
    pub(crate) fn describe(&self) -> String {
        format!(
            "{} test over posts, {} resamples, seed {}; p two-sided",
            self.method, self.resamples, self.seed
        )
    }
}

/// SplitMix64: small, fast, good enough to draw coin flips, and seeded.
#[derive(Debug, Clone)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub(crate) fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn ratio(num: f64, den: f64) -> Option<f64> {
    (den > 0.0).then(|| num / den)
}

/// The paired randomisation test of B against A over `pairs`.
pub(crate) fn paired_test(pairs: &[Pair], resamples: u32, seed: u64) -> TestResult {
    let sum = |f: &dyn Fn(&Pair) -> f64| pairs.iter().map(f).sum::<f64>();
    let (an, ad) = (sum(&|p| p.a.0), sum(&|p| p.a.1));
    let (bn, bd) = (sum(&|p| p.b.0), sum(&|p| p.b.1));
    let differing = pairs.iter().filter(|p| p.a != p.b).count();
    let observed = match (ratio(bn, bd), ratio(an, ad)) {
        (Some(b), Some(a)) => b - a,
        _ => {
            return TestResult {
                difference: None,
                p: None,
                posts: pairs.len(),
                differing,
                resamples,
                seed,
            }
        }
    };
    // Only posts where the systems differ change anything when swapped.
    let swappable: Vec<&Pair> = pairs.iter().filter(|p| p.a != p.b).collect();
    let eps = 1e-12 * observed.abs().max(1.0);
    let mut rng = SplitMix64::new(seed);
    let mut hits: u64 = 0;
    for _ in 0..resamples {
        let (mut an, mut ad, mut bn, mut bd) = (an, ad, bn, bd);
        let mut bits = 0u64;
        for (i, p) in swappable.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            if bits & 1 == 1 {
                // Swap A and B on this post.
                an += p.b.0 - p.a.0;
                ad += p.b.1 - p.a.1;
                bn += p.a.0 - p.b.0;
                bd += p.a.1 - p.b.1;
            }
            bits >>= 1;
        }
        let stat = match (ratio(bn, bd), ratio(an, ad)) {
            (Some(b), Some(a)) => b - a,
            _ => 0.0,
        };
        if stat.abs() >= observed.abs() - eps {
            hits += 1;
        }
    }
    TestResult {
        difference: Some(observed),
        p: Some((1 + hits) as f64 / (1 + u64::from(resamples)) as f64),
        posts: pairs.len(),
        differing,
        resamples,
        seed,
    }
}

/// A p-value for a table: `0.0001`, `0.031`, `1.000`.
pub(crate) fn format_p(p: Option<f64>) -> String {
    match p {
        None => "–".to_string(),
        Some(p) if p < 0.001 => format!("{p:.4}"),
        Some(p) => format!("{p:.3}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_large_difference_is_significant() {
        // B completes 20 posts that A misses; 10 posts agree.
        let mut pairs = vec![Pair::flag(false, true); 20];
        pairs.extend(vec![Pair::flag(true, true); 10]);
        let r = paired_test(&pairs, 10_000, 7);
        assert!((r.difference.unwrap() - 20.0 / 30.0).abs() < 1e-12);
        assert!(r.p.unwrap() < 0.05, "{r:?}");
        assert!(r.p.unwrap() < 0.001, "{r:?}");
        assert_eq!(r.differing, 20);
    }

    #[test]
    fn identical_systems_give_p_one() {
        let pairs: Vec<Pair> = (0..30)
            .map(|i| Pair::flag(i % 3 == 0, i % 3 == 0))
            .collect();
        let r = paired_test(&pairs, 10_000, 7);
        assert_eq!(r.difference, Some(0.0));
        assert_eq!(r.p, Some(1.0));
    }

    #[test]
    fn a_small_mixed_difference_is_not_significant() {
        // 6 posts better, 4 worse, 20 the same: p well above 0.2.
        let mut pairs = vec![Pair::flag(false, true); 6];
        pairs.extend(vec![Pair::flag(true, false); 4]);
        pairs.extend(vec![Pair::flag(true, true); 20]);
        let r = paired_test(&pairs, 10_000, 3);
        assert!(r.p.unwrap() > 0.2, "{r:?}");
    }

    #[test]
    fn the_same_seed_gives_the_same_p_and_the_exact_value_is_approached() {
        // 5 posts all in B's favour: exact two-sided p = 2 / 32 = 0.0625.
        let mut pairs = vec![Pair::counts(0, 1, 1, 1); 5];
        pairs.push(Pair::counts(1, 2, 1, 2));
        let r1 = paired_test(&pairs, 20_000, 11);
        let r2 = paired_test(&pairs, 20_000, 11);
        assert_eq!(r1, r2);
        assert!((r1.p.unwrap() - 0.0625).abs() < 0.01, "{r1:?}");
    }

    #[test]
    fn nothing_to_compare_has_no_p() {
        let r = paired_test(&[Pair::counts(0, 0, 0, 0)], 100, 1);
        assert_eq!((r.difference, r.p), (None, None));
    }

    #[test]
    fn p_values_format() {
        assert_eq!(format_p(Some(0.00009999)), "0.0001");
        assert_eq!(format_p(Some(0.5)), "0.500");
        assert_eq!(format_p(None), "–");
    }
}
