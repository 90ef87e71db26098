// acclab compare's statistics (core/compare_stats.hpp): the Mann-Whitney U test against p-values
// computed by SciPy 1.10 (scipy.stats.mannwhitneyu(b, a, alternative="two-sided"), its defaults:
// exact without ties where a sample has at most 8 values, else the normal approximation with tie
// and continuity corrections), the bootstrap interval, and the verdicts.
#include "core/compare_stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace acclab::stats {
namespace {

using Sample = std::vector<double>;

// Sample b's U and the two-sided p-value, with the method the test chose.
void expect_test(const Sample& a, const Sample& b, double u_second, double p_value, bool exact) {
  const MannWhitney test = mann_whitney_u(a, b);
  EXPECT_DOUBLE_EQ(test.u_second, u_second);
  EXPECT_NEAR(test.p_value, p_value, 1e-12 + 1e-9 * p_value);
  EXPECT_EQ(test.exact, exact);
}

TEST(MannWhitneyU, MatchesScipyOnItsDocumentationExample) {
  // SciPy's documentation: the ages of males and females (Conover's textbook example); U of the
  // males is 17, the exact two-sided p 1/9.
  const Sample males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  expect_test(males, females, 3, 0.1111111111111111, true);
  expect_test(females, males, 17, 0.1111111111111111, true);
}

TEST(MannWhitneyU, ExactForSmallSamplesWithoutTies) {
  // Complete separation of 5 against 5: 2 of the C(10,5) = 252 splits are as extreme.
  expect_test({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 25, 2.0 / 252, true);
  expect_test({1.5, 3.2, 7.7}, {2.1, 4.4, 5.0, 6.3, 8.8, 9.1, 10.2, 11.0}, 19, 0.19393939393939394,
              true);
  // 8 against 40: still exact (one sample has at most 8 values), the tail of a long
  // distribution.
  const Sample a = {1.102046, 0.872217, 1.020905, 0.971612, 0.977368, 0.98922, 0.899001, 0.988403};
  const Sample b = {1.016739, 1.22615,  1.071289, 1.042368, 1.045936, 1.026598, 1.007242, 1.04046,
                    1.084097, 1.048072, 1.107888, 1.05001,  1.061213, 1.137291, 1.087255, 1.034739,
                    1.050858, 1.087026, 1.156754, 1.046519, 1.047822, 1.110116, 1.015677, 1.045414,
                    1.104127, 1.089018, 1.064576, 1.093505, 0.918592, 1.111065, 1.012018, 0.976569,
                    1.073822, 1.095027, 1.037762, 1.00618,  1.061306, 1.057363, 1.13028,  1.09737};
  expect_test(a, b, 274, 0.00086781733940438166, true);
}

TEST(MannWhitneyU, ExactDistributionCountsEverySplit) {
  // m = 2, n = 2: U takes 0,1,2,2,3,4 over the 6 splits.
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(2, 2, 0), 1.0);
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(2, 2, 2), 4.0 / 6);
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(2, 2, 3), 2.0 / 6);
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(2, 2, 4), 1.0 / 6);
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(2, 2, 5), 0.0);
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(3, 7, 21), 1.0 / 120);  // C(10,3) = 120
  EXPECT_DOUBLE_EQ(exact_u_upper_tail(7, 3, 21), 1.0 / 120);  // symmetric in the sizes
}

TEST(MannWhitneyU, NormalApproximationWithTiesAndLargerSamples) {
  // Ties: the tie-corrected variance.
  expect_test({1, 2, 2, 3, 3, 3, 4, 5}, {3, 4, 4, 5, 5, 6, 7, 7, 8}, 64.5, 0.0063731338380858728,
              false);
  // 12 against 12 without ties: both samples above 8, so the normal approximation.
  expect_test({0.98, 1.01, 1.03, 0.99, 1.00, 1.02, 1.05, 0.97, 1.04, 1.06, 0.96, 1.07},
              {1.10, 1.21, 1.15, 1.18, 1.19, 1.22, 1.17, 1.09, 1.25, 1.12, 1.16, 1.20}, 144,
              3.6584553538971001e-05, false);
  expect_test({10.1, 10.5, 9.8, 10.2, 10.0, 9.9, 10.4, 10.3, 10.6, 9.7},
              {10.05, 10.45, 9.85, 10.25, 10.15, 9.95, 10.35, 10.55, 10.65, 9.75, 10.12}, 60,
              0.75133431255763361, false);
}

TEST(MannWhitneyU, IdenticalSamplesGiveOne) {
  expect_test(Sample(6, 1.0), Sample(6, 1.0), 18, 1.0, false);  // every value tied
  const Sample times = {3.1, 2.9, 3.4, 3.0, 3.3, 2.8, 3.2, 3.5, 2.7, 3.6, 3.05, 2.95};
  Sample shuffled = times;
  std::reverse(shuffled.begin(), shuffled.end());
  // The same values in another order: U is exactly half the pairs.
  EXPECT_DOUBLE_EQ(mann_whitney_u(times, shuffled).p_value, 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u(times, shuffled).u_second, 72.0);
}

TEST(BootstrapRatio, ConstantSamplesGiveTheRatioItself) {
  const RatioInterval r = bootstrap_median_ratio(Sample(7, 2.0), Sample(5, 3.0));
  EXPECT_DOUBLE_EQ(r.ratio, 1.5);
  EXPECT_DOUBLE_EQ(r.low, 1.5);
  EXPECT_DOUBLE_EQ(r.high, 1.5);
}

TEST(BootstrapRatio, ReproducibleAndAroundTheRatio) {
  const Sample a = {1.00, 1.02, 0.98, 1.05, 0.97, 1.01, 1.03, 0.99, 1.04, 0.96, 1.00, 1.02};
  Sample b;
  for (double x : a) b.push_back(1.2 * x);
  std::rotate(b.begin(), b.begin() + 5, b.end());
  const RatioInterval first = bootstrap_median_ratio(a, b);
  const RatioInterval again = bootstrap_median_ratio(a, b);
  EXPECT_EQ(first.low, again.low);
  EXPECT_EQ(first.high, again.high);
  EXPECT_DOUBLE_EQ(first.ratio, 1.2);
  EXPECT_LT(first.low, 1.2);
  EXPECT_GT(first.high, 1.2);
  // The spread of the samples (about ±3 %) bounds the interval's.
  EXPECT_GT(first.low, 1.1);
  EXPECT_LT(first.high, 1.3);
  // Another seed: other draws, an interval close to the first (the medians of draws from 12
  // values take few distinct values, so the ends may even be equal).
  const RatioInterval other = bootstrap_median_ratio(a, b, kResamples, 7);
  EXPECT_NEAR(other.low, first.low, 0.02);
  EXPECT_NEAR(other.high, first.high, 0.02);
  // A wider confidence gives a wider interval from the same draws.
  const RatioInterval wide = bootstrap_median_ratio(a, b, kResamples, kSeed, 0.99);
  EXPECT_LE(wide.low, first.low);
  EXPECT_GE(wide.high, first.high);
}

TEST(BootstrapRatio, MedianAsTheRunnerComputesIt) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
}

TEST(CompareTimes, BelowFiveRepsOnEitherSideIsTooFewReps) {
  const Sample five = {1, 1.1, 0.9, 1.05, 0.95}, four = {2, 2.1, 1.9, 2.05};
  for (const auto& [a, b] : {std::pair{five, four}, std::pair{four, five}, std::pair{four, four}}) {
    const StepComparison c = compare_times(a, b);
    EXPECT_EQ(c.verdict, Verdict::too_few_reps);
    EXPECT_FALSE(c.interval.has_value());
    EXPECT_FALSE(c.p_value.has_value());
    EXPECT_GT(c.ratio, 0);  // the ratio of medians is still said
  }
  EXPECT_EQ(to_string(Verdict::too_few_reps), "too few reps");
}

TEST(CompareTimes, IdenticalSamplesAreTheSame) {
  const Sample times = {1.0, 1.3, 0.9, 1.1, 1.2, 0.95, 1.05};
  const StepComparison c = compare_times(times, times);
  EXPECT_EQ(c.verdict, Verdict::same);
  EXPECT_DOUBLE_EQ(c.ratio, 1.0);
  EXPECT_DOUBLE_EQ(*c.p_value, 1.0);
  ASSERT_TRUE(c.interval.has_value());
  EXPECT_LE(c.interval->low, 1.0);
  EXPECT_GE(c.interval->high, 1.0);
}

TEST(CompareTimes, ASlowdownBeyondTheNoiseIsSlowerAndASpeedupFaster) {
  const Sample a = {1.00, 1.02, 0.98, 1.05, 0.97, 1.01, 1.03, 0.99, 1.04, 0.96, 1.00, 1.02};
  Sample slow, quick;
  for (double x : a) {
    slow.push_back(1.2 * x);
    quick.push_back(0.8 * x);
  }
  const StepComparison slower = compare_times(a, slow);
  EXPECT_EQ(slower.verdict, Verdict::slower);
  EXPECT_DOUBLE_EQ(slower.ratio, 1.2);
  EXPECT_LT(*slower.p_value, kAlpha);
  const StepComparison faster = compare_times(a, quick);
  EXPECT_EQ(faster.verdict, Verdict::faster);
  EXPECT_DOUBLE_EQ(faster.ratio, 0.8);
  EXPECT_EQ(to_string(Verdict::slower), "slower");
  EXPECT_EQ(to_string(Verdict::faster), "faster");
  EXPECT_EQ(to_string(Verdict::same), "same");
}

TEST(CompareTimes, ADifferenceWithinTheNoiseIsTheSame) {
  // Overlapping samples (SciPy: p = 0.75).
  const StepComparison c = compare_times(
      Sample{10.1, 10.5, 9.8, 10.2, 10.0, 9.9, 10.4, 10.3, 10.6, 9.7},
      Sample{10.05, 10.45, 9.85, 10.25, 10.15, 9.95, 10.35, 10.55, 10.65, 9.75, 10.12});
  EXPECT_EQ(c.verdict, Verdict::same);
}

// A difference the test finds (every run of B 3 % longer, p far below 0.05) but smaller than the
// practical threshold is `same`; beyond it, or with a lower threshold, it is a verdict.
TEST(CompareTimes, ASignificantDifferenceWithinTheNoiseThresholdIsTheSame) {
  const Sample a = {1.000, 1.002, 0.998, 1.001, 0.999, 1.003, 0.997, 1.0005, 0.9995, 1.0};
  Sample b3, b10, quick10;
  for (double x : a) {
    b3.push_back(1.03 * x);
    b10.push_back(1.10 * x);
    quick10.push_back(x / 1.10);
  }
  const StepComparison three = compare_times(a, b3);  // the default threshold, 5 %
  EXPECT_LT(*three.p_value, 0.001);
  EXPECT_TRUE(three.significant);
  EXPECT_FALSE(three.beyond_noise);
  EXPECT_EQ(three.verdict, Verdict::same);
  ASSERT_TRUE(three.interval.has_value());
  EXPECT_GT(three.interval->low, 1.0);  // the interval still says 3 %
  EXPECT_EQ(compare_times(a, b3, 2.0).verdict, Verdict::slower);
  EXPECT_EQ(compare_times(a, b3, 0.0).verdict, Verdict::slower);
  EXPECT_EQ(compare_times(a, b10).verdict, Verdict::slower);
  EXPECT_EQ(compare_times(a, b10, 12.0).verdict, Verdict::same);
  EXPECT_EQ(compare_times(a, quick10).verdict, Verdict::faster);
  EXPECT_EQ(compare_times(b3, a).verdict, Verdict::same);
  EXPECT_EQ(compare_times(b3, a, 2.0).verdict, Verdict::faster);
}

TEST(CompareTimes, TheThresholdIsTheSameBothWays) {
  EXPECT_FALSE(beyond_noise(1.05, 5));
  EXPECT_TRUE(beyond_noise(1.0501, 5));
  EXPECT_FALSE(beyond_noise(1 / 1.05, 5));
  EXPECT_TRUE(beyond_noise(1 / 1.0501, 5));
  EXPECT_FALSE(beyond_noise(0.96, 5));  // a speedup of 1.042
  EXPECT_TRUE(beyond_noise(1.001, 0));
  EXPECT_FALSE(beyond_noise(1.0, 0));
}

TEST(CompareTimes, TooFewInvocationsIsItsOwnVerdict) {
  const Sample four = {1, 1.1, 0.9, 1.05};
  const StepComparison c = compare_times(four, four, kNoisePercent, kAlpha,
                                         Verdict::too_few_invocations);
  EXPECT_EQ(c.verdict, Verdict::too_few_invocations);
  EXPECT_EQ(to_string(c.verdict), "too few invocations");
  EXPECT_FALSE(c.p_value.has_value());
}

}  // namespace
}  // namespace acclab::stats
