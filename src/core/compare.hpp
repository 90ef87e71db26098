// The one NaN-aware comparison the verifications share: a NaN or an infinity in a result counts
// as an infinite difference, so that no bound can accept it (a plain `max` would skip a NaN,
// since every comparison with one is false).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace acclab {

struct Difference {
  double value = 0;         // the largest |a - b| so far; +inf once a NaN or an infinity is met
  std::int64_t index = -1;  // where it was found (-1: nothing larger than 0 yet)
  bool nan = false;         // a NaN was met (value is then +inf)

  // value, or NaN when a NaN was met: for the checks that report a NaN difference as NaN.
  double value_or_nan() const { return nan ? std::numeric_limits<double>::quiet_NaN() : value; }
};

// Folds the difference `diff` at `index` into `largest`. The first of equal differences keeps
// its index.
inline void fold_difference(Difference& largest, double diff, std::int64_t index) {
  if (!(diff <= largest.value)) {
    largest.value = std::isfinite(diff) ? diff : std::numeric_limits<double>::infinity();
    largest.index = index;
  }
  if (std::isnan(diff)) largest.nan = true;
}

// max |a[i] - b[i]| over i < n, each difference computed in double (in long double when a or b
// holds long double: a reference summed in long double is not rounded before the subtraction).
template <typename A, typename B>
Difference max_abs_difference(const A* a, const B* b, std::int64_t n) {
  using Wide = std::common_type_t<A, B, double>;
  Difference largest;
  for (std::int64_t i = 0; i < n; ++i) {
    fold_difference(largest, double(std::abs(Wide(a[i]) - Wide(b[i]))), i);
  }
  return largest;
}

}  // namespace acclab
