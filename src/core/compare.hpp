// The one NaN-aware comparison the verifications share: a NaN or an infinity in a result counts
// as an infinite difference, so that no bound can accept it (a plain `max` would skip a NaN,
// since every comparison with one is false).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace acclab {

struct Difference {
  double value = 0;         // the largest |a - b| so far; +inf once a NaN or an infinity is met
  std::int64_t index = -1;  // where it was found
};

// Folds the difference `diff` at `index` into `largest`.
inline void fold_difference(Difference& largest, double diff, std::int64_t index) {
  if (!(diff <= largest.value)) {
    largest.value = std::isfinite(diff) ? diff : std::numeric_limits<double>::infinity();
    largest.index = index;
  }
}

// max |a[i] - b[i]| over i < n, computed in double.
template <typename A, typename B>
Difference max_abs_difference(const A* a, const B* b, std::int64_t n) {
  Difference largest;
  for (std::int64_t i = 0; i < n; ++i) {
    fold_difference(largest, std::abs(double(a[i]) - double(b[i])), i);
  }
  return largest;
}

}  // namespace acclab
