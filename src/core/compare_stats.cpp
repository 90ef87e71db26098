#include "core/compare_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "core/enum_names.hpp"

namespace acclab::stats {

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double exact_u_upper_tail(int m, int n, double u) {
  if (m > n) std::swap(m, n);  // the distribution is symmetric in the two sizes
  const int top = m * n;
  if (u <= 0) return 1;
  if (u > top) return 0;
  // The number of splits with U = k is the coefficient of q^k in the Gaussian binomial
  // [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). After step i the polynomial is
  // [n+i choose i]_q, whose coefficients are counts (non-negative integers): multiplying by
  // (1 - q^(n+i)) then dividing by (1 - q^i) never cancels large terms against each other.
  // long double: the counts pass 2^53 for the larger samples (C(1008, 8) > 10^19).
  std::vector<long double> count(static_cast<std::size_t>(top + m + 1), 0.0L);
  count[0] = 1;
  int degree = 0;
  for (int i = 1; i <= m; ++i) {
    const int shift = n + i;
    for (int k = degree + shift; k >= shift; --k) count[k] -= count[k - shift];
    degree += shift;
    for (int k = i; k <= degree; ++k) count[k] += count[k - i];
    degree -= i;
    // The quotient ends at `degree`; what the running sums left above it is zero in exact
    // arithmetic and must not reach the next step as a rounding residue.
    std::fill(count.begin() + degree + 1, count.begin() + degree + i + 1, 0.0L);
  }
  long double total = 0, tail = 0;
  const int from = static_cast<int>(std::ceil(u));
  for (int k = 0; k <= top; ++k) {
    total += count[k];
    if (k >= from) tail += count[k];
  }
  return static_cast<double>(tail / total);
}

MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  const std::size_t na = a.size(), nb = b.size(), n = na + nb;
  // Ranks of the pooled sample, ties given their mean rank.
  std::vector<std::pair<double, bool>> pooled;  // value, from b
  pooled.reserve(n);
  for (double x : a) pooled.emplace_back(x, false);
  for (double x : b) pooled.emplace_back(x, true);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& l, const auto& r) { return l.first < r.first; });
  double rank_sum_b = 0;
  double tie_term = 0;  // sum over groups of equal values of t^3 - t
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first;
    while (last + 1 < n && pooled[last + 1].first == pooled[first].first) ++last;
    const double mean_rank = 0.5 * double(first + last) + 1;
    const double t = double(last - first + 1);
    tie_term += t * t * t - t;
    for (std::size_t k = first; k <= last; ++k) {
      if (pooled[k].second) rank_sum_b += mean_rank;
    }
    first = last + 1;
  }
  MannWhitney result;
  result.u_second = rank_sum_b - double(nb) * double(nb + 1) / 2;
  const double pairs = double(na) * double(nb);
  // The two-sided p from the larger of the two U's: twice its upper tail.
  const double u_larger = std::max(result.u_second, pairs - result.u_second);
  result.exact = tie_term == 0 && std::min(na, nb) <= 8;
  if (result.exact) {
    result.p_value = 2 * exact_u_upper_tail(int(na), int(nb), u_larger);
  } else {
    const double nn = double(n);
    const double variance = pairs / 12 * ((nn + 1) - tie_term / (nn * (nn - 1)));
    if (!(variance > 0)) {
      result.p_value = 1;  // every value equal: nothing tells the samples apart
    } else {
      // The continuity correction: P(U >= u) of the discrete U read at u - 0.5.
      const double z = (u_larger - pairs / 2 - 0.5) / std::sqrt(variance);
      result.p_value = std::erfc(z / std::sqrt(2.0));  // 2 * (1 - Phi(z))
    }
  }
  result.p_value = std::clamp(result.p_value, 0.0, 1.0);
  return result;
}

namespace {

// The value at fraction `q` of the sorted `values`, interpolated between neighbours (the default
// of NumPy's percentile and R's quantile, type 7).
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * double(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (position - double(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

RatioInterval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b,
                                     int resamples, std::uint64_t seed, double confidence) {
  RatioInterval result;
  result.ratio = median({b.begin(), b.end()}) / median({a.begin(), a.end()});
  std::mt19937_64 draws(seed);
  std::vector<double> ratios, draw_a(a.size()), draw_b(b.size());
  ratios.reserve(static_cast<std::size_t>(resamples));
  // Modulo a sample size of a few thousand at most, the bias of `draws() % size` is below
  // 2^-50: nothing a 2000-draw interval could show.
  const auto redraw = [&](std::span<const double> from, std::vector<double>& into) {
    for (auto& x : into) x = from[draws() % from.size()];
  };
  for (int r = 0; r < resamples; ++r) {
    redraw(a, draw_a);
    redraw(b, draw_b);
    ratios.push_back(median(draw_b) / median(draw_a));
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  result.low = quantile(ratios, tail);
  result.high = quantile(ratios, 1 - tail);
  return result;
}

constexpr auto kVerdictNames = std::to_array<EnumName<Verdict>>({
    {Verdict::faster, "faster"},
    {Verdict::slower, "slower"},
    {Verdict::same, "same"},
    {Verdict::too_few_reps, "too few reps"},
    {Verdict::too_few_invocations, "too few invocations"},
});

std::string to_string(Verdict verdict) { return name_of(kVerdictNames, verdict); }

bool beyond_noise(double ratio, double noise_percent) {
  const double factor = 1 + noise_percent / 100;
  return ratio > factor || ratio * factor < 1;
}

StepComparison compare_times(std::span<const double> a, std::span<const double> b,
                             double noise_percent, double alpha, Verdict few) {
  StepComparison result;
  result.verdict = few;
  result.ratio = median({b.begin(), b.end()}) / median({a.begin(), a.end()});
  if (a.size() < std::size_t(kMinReps) || b.size() < std::size_t(kMinReps)) return result;
  result.interval = bootstrap_median_ratio(a, b);
  const MannWhitney test = mann_whitney_u(a, b);
  result.p_value = test.p_value;
  result.significant = test.p_value < alpha;
  // The direction the test found, which the ratio of medians follows but for odd samples: a
  // verdict needs the ratio beyond the threshold on the side the test found.
  const bool b_larger = test.u_second > double(a.size()) * double(b.size()) / 2;
  result.beyond_noise =
      beyond_noise(result.ratio, noise_percent) && (result.ratio > 1) == b_larger;
  if (result.significant && result.beyond_noise) {
    result.verdict = b_larger ? Verdict::slower : Verdict::faster;
  } else {
    result.verdict = Verdict::same;
  }
  return result;
}

}  // namespace acclab::stats
