// The statistics of acclab compare (docs/compare.md): is step B's time different from step A's,
// given each side's timed runs? A two-sided Mann-Whitney U test decides (it assumes no shape for
// the times, which are skewed by the machine's other work), and a bootstrap interval of the ratio
// of medians says by how much. Plain functions of two samples: no files, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace acclab::stats {

// The median of every time acclab reports (core/runner.cpp's too): the middle value, or the
// mean of the two middle values of an even count. `values` must not be empty.
double median(std::vector<double> values);

struct MannWhitney {
  // U of the second sample: the pairs (a, b) with b > a, plus half the pairs with b == a.
  // Above n_a * n_b / 2, b's values tend to be the larger.
  double u_second = 0;
  double p_value = 1;  // two-sided
  bool exact = false;  // from the exact distribution of U, or the normal approximation
};

// The two-sided Mann-Whitney U test of samples `a` and `b` (neither empty), computed as SciPy's
// mannwhitneyu(a, b, alternative="two-sided") with its defaults computes it, so that results can
// be checked against it: the exact distribution of U where there are no ties and one sample has
// at most 8 values; otherwise the normal approximation with the tie correction of the variance
// and a continuity correction of 0.5. Values that are all equal give p = 1.
MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b);

// P(U >= u) for U the Mann-Whitney statistic of samples of sizes m and n without ties, from the
// exact distribution (every split of the m + n ranks equally likely). Exposed for the tests.
double exact_u_upper_tail(int m, int n, double u);

struct RatioInterval {
  double ratio = 0;  // median(b) / median(a)
  double low = 0;    // the interval's ends, percentiles of the resampled ratios
  double high = 0;
};

// The ratio of medians median(b) / median(a) and its percentile bootstrap interval at
// `confidence`: `resamples` times, each sample is drawn again from itself with replacement, and
// the ratio of the medians of the draws is kept. The draws come from a 64-bit Mersenne twister
// started at `seed` and indices taken modulo the sample size (std::mt19937_64 is specified
// exactly by the standard; the standard's distributions are not), so the interval is the same
// on every machine and every run. Neither sample may be empty; the medians must be positive.
inline constexpr int kResamples = 2000;
inline constexpr double kConfidence = 0.95;
inline constexpr std::uint64_t kSeed = 20240607;
RatioInterval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b,
                                     int resamples = kResamples, std::uint64_t seed = kSeed,
                                     double confidence = kConfidence);

enum class Verdict { faster, slower, same, too_few_reps, too_few_invocations };

// "faster", "slower", "same", "too few reps", "too few invocations": the words of every report.
std::string to_string(Verdict verdict);

// Below this many timed runs (or invocations, where those are compared) on either side, no
// verdict and no interval. With 3 runs against 3 no ordering reaches p < 0.05 (the smallest
// two-sided p is 2/20); with 4 against 4 only a complete separation does (2/70), so one stray
// run decides. A bootstrap of so few values knows little more than the values themselves.
// Google Benchmark's compare.py refuses below 5 too.
inline constexpr int kMinReps = 5;
inline constexpr double kAlpha = 0.05;

// The practical threshold of a verdict, in percent: a significant difference of medians smaller
// than this is `same`. Two processes of one binary differ by more than the repetitions of one
// process do (threads and memory placed anew, clocks as they are), so the U test on one process's
// repetitions calls such moves changes; 5 % hides the common ones without hiding a change a user
// would act on (docs/compare.md gives the measurements). --noise sets another, and
// --invocations lets the test see the moves between processes.
inline constexpr double kNoisePercent = 5;

// Whether `ratio` (a time over a baseline's) differs from 1 by more than `noise_percent`, either
// way alike: above 1 + noise/100, or below its inverse (a speedup of more than 1 + noise/100).
bool beyond_noise(double ratio, double noise_percent);

struct StepComparison {
  double ratio = 0;                       // median(b) / median(a)
  std::optional<RatioInterval> interval;  // absent below kMinReps values on a side
  std::optional<double> p_value;          // absent below kMinReps values on a side
  Verdict verdict = Verdict::too_few_reps;
  // Where a p-value exists: p < alpha, and the ratio beyond the noise threshold.
  bool significant = false;
  bool beyond_noise = false;
};

// The comparison of one step's times `b` with its baseline times `a` (both positive, neither
// empty): the ratio of medians, and from kMinReps values on each side the interval and the
// verdict: `slower` or `faster` when the U test at `alpha` finds a difference (b's times tend to
// be the larger, or the smaller, as U says) AND the ratio of medians lies beyond
// `noise_percent` in that direction; `same` otherwise. `few` is the verdict below kMinReps
// values (too_few_invocations where `a` and `b` are invocations' medians).
StepComparison compare_times(std::span<const double> a, std::span<const double> b,
                             double noise_percent = kNoisePercent, double alpha = kAlpha,
                             Verdict few = Verdict::too_few_reps);

}  // namespace acclab::stats
