// The checks of an ICCG solution: ||b - A x|| / ||b|| at any scale (on norm2, which the solver
// uses too), the direct band Cholesky solve it is compared with, and the mesh's smallest
// eigenvalue that turns a residual bound into an error bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

double norm2(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v * v;
  // Squares below 2^-1022 (of entries below 2^-511) lose their bits; next to a sum of at least
  // 2^-600 what they lose is below 2^-1022 x n, far under the sum's own rounding.
  if (std::isfinite(sum) && sum >= 0x1p-600) return std::sqrt(sum);
  double largest = 0;
  for (double v : x) {
    if (std::isnan(v)) return v;
    largest = std::max(largest, std::abs(v));
  }
  if (largest == 0 || std::isinf(largest)) return largest;
  const int e = std::ilogb(largest);
  sum = 0;
  for (double v : x) {
    // Exact but where v was already negligible: the largest becomes [1, 2).
    const double scaled = std::ldexp(v, -e);
    sum += scaled * scaled;
  }
  return std::ldexp(std::sqrt(sum), e);
}

int scale_exponent(const std::vector<double>& v) {
  double largest = 0;
  for (double x : v) {
    if (!std::isfinite(x)) return 0;
    largest = std::max(largest, std::abs(x));
  }
  return largest == 0 ? 0 : std::ilogb(largest);
}

int matrix_scale_exponent(const Csr& a) {
  double largest = 0;
  for (const std::vector<double>* part : {&a.diagonal, &a.value}) {
    for (double x : *part) {
      if (!std::isfinite(x)) return 0;
      largest = std::max(largest, std::abs(x));
    }
  }
  return largest == 0 ? 0 : std::ilogb(largest);
}

namespace {

// v times 2^e, exactly where the result is normal: one multiplication by 2^e where that is a
// double (|e| <= 1000), else ldexp.
struct PowerOfTwo {
  int e;
  double factor = std::ldexp(1.0, std::clamp(e, -1000, 1000));
  double operator()(double v) const {
    return e >= -1000 && e <= 1000 ? v * factor : std::ldexp(v, e);
  }
};

}  // namespace

double true_relative_residual(const Csr& a, const std::vector<double>& b,
                              const std::vector<double>& x) {
  // A's, x's and b's largest magnitudes each scaled to [1, 2): every product of A and x is then
  // below 4 and a row's sum below 4 x its width. b - A x is taken at the larger of the two
  // scales (b's, A x's), where neither side overflows and what underflows on the smaller side is
  // below the other's rounding.
  const int ea = matrix_scale_exponent(a);
  const int ex = scale_exponent(x), eb = scale_exponent(b);
  const int e = std::max(ea + ex, eb);  // the scale of b - A x
  const PowerOfTwo down_a{-ea}, down_x{-ex}, ax_to_e{ea + ex - e}, b_to_e{-e}, b_to_eb{-eb};
  std::vector<double> r(static_cast<std::size_t>(a.n)), scaled_b(static_cast<std::size_t>(a.n));
  for (std::int64_t i = 0; i < a.n; ++i) {
    double ax = down_a(a.diagonal[i]) * down_x(x[i]);
    for (std::int64_t k = a.start[i]; k < a.start[i + 1]; ++k) {
      ax += down_a(a.value[k]) * down_x(x[a.column[k]]);
    }
    r[i] = b_to_e(b[i]) - ax_to_e(ax);
    scaled_b[i] = b_to_eb(b[i]);
  }
  const double rr = norm2(r), bb = norm2(scaled_b);
  if (std::isnan(rr) || std::isnan(bb)) return NAN;
  if (bb == 0) return rr == 0 ? 0.0 : HUGE_VAL;
  // ||r|| / ||b|| = (rr 2^e) / (bb 2^eb).
  return std::ldexp(rr / bb, e - eb);
}

std::int64_t bandwidth(const Csr& a) {
  std::int64_t band = 0;
  for (std::int64_t i = 0; i < a.n; ++i) {
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
      band = std::max(band, std::abs(a.column[e] - i));
    }
  }
  return band;
}

std::vector<double> reference_solve(const Csr& a, const std::vector<double>& b) {
  const std::int64_t n = a.n, band = bandwidth(a), width = band + 1;
  // Row i of L holds columns i - band .. i at offsets 0 .. band.
  std::vector<long double> l(static_cast<std::size_t>(n * width), 0.0L);
  const auto at = [&](std::int64_t i, std::int64_t j) -> long double& {
    return l[static_cast<std::size_t>(i * width + (j - i + band))];
  };
  for (std::int64_t i = 0; i < n; ++i) {
    at(i, i) = a.diagonal[i];
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
      if (a.column[e] < i) at(i, a.column[e]) += a.value[e];
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t first = std::max<std::int64_t>(0, i - band);
    for (std::int64_t j = first; j <= i; ++j) {
      long double sum = at(i, j);
      for (std::int64_t k = std::max(first, j - band); k < j; ++k) sum -= at(i, k) * at(j, k);
      if (j < i) {
        at(i, j) = sum / at(j, j);
      } else if (sum > 0) {
        at(i, i) = std::sqrt(sum);
      } else {
        return {};
      }
    }
  }
  std::vector<long double> y(b.begin(), b.end());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t k = std::max<std::int64_t>(0, i - band); k < i; ++k) y[i] -= at(i, k) * y[k];
    y[i] /= at(i, i);
  }
  for (std::int64_t i = n; i-- > 0;) {
    y[i] /= at(i, i);
    for (std::int64_t k = std::max<std::int64_t>(0, i - band); k < i; ++k) y[k] -= at(i, k) * y[i];
  }
  return std::vector<double>(y.begin(), y.end());
}

bool reference_solve_fits(std::int64_t rows, std::int64_t band) {
  return double(rows) * double(band) * double(band) / 2 <= 1e8;
}

double reference_solve_bytes(std::int64_t rows, std::int64_t band) {
  // The band of L and the solution, in long double, and the result in double.
  return double(rows) * ((double(band) + 2) * sizeof(long double) + sizeof(double));
}

double mesh_smallest_eigenvalue(int nz) {
  const double half_angle = M_PI / (4.0 * nz);
  return 4 * std::sin(half_angle) * std::sin(half_angle);
}

}  // namespace acclab::iccg
