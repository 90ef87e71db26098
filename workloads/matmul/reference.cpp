// The seed's OpenMP comparison (`openmp`), the reference product that init=random is checked
// against (plain loops over OpenMP threads, in double, never tuned for speed), and the plain
// triple loop that checks the references themselves on small problems.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/compare.hpp"
#include "core/reference_memo.hpp"
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {

const std::vector<double>& reference_product(const Problem& p) {
  using Key = std::tuple<int, int, int, int, int, Init, std::uint64_t>;
  static ReferenceMemo<Key, std::vector<double>> memo("matmul");
  return memo.get(Key{p.m, p.n, p.k, p.lda, p.ldb, p.init, p.random_seed}, [&] {
    const std::vector<double> a = matrix_a(p), b = matrix_b(p);
    std::vector<double> r(static_cast<std::size_t>(std::int64_t(p.m) * p.n), 0.0);
    // i-q-j loops, blocked over q and j so that a block of B stays in cache while every row of
    // A passes over it; each r[i][j] is summed in q order.
    constexpr int block = 256;
    for (int q0 = 0; q0 < p.k; q0 += block) {
      const int q1 = std::min(p.k, q0 + block);
      for (int j0 = 0; j0 < p.n; j0 += block) {
        const int j1 = std::min(p.n, j0 + block);
#pragma omp parallel for schedule(static)
        for (int i = 0; i < p.m; ++i) {
          double* ri = r.data() + std::int64_t(i) * p.n;
          for (int q = q0; q < q1; ++q) {
            const double aiq = a[std::int64_t(i) * p.lda + q];
            const double* bq = b.data() + std::int64_t(q) * p.ldb;
            for (int j = j0; j < j1; ++j) ri[j] += aiq * bq[j];
          }
        }
      }
    }
    return r;
  });
}

PlainProduct plain_product(const Problem& p) {
  const std::vector<double> a = matrix_a(p), b = matrix_b(p);
  PlainProduct r;
  r.value.resize(std::size_t(std::int64_t(p.m) * p.n));
  r.magnitude.resize(r.value.size());
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      long double sum = 0, magnitude = 0;
      for (int q = 0; q < p.k; ++q) {
        const long double term =
            (long double)a[std::int64_t(i) * p.lda + q] * b[std::int64_t(q) * p.ldb + j];
        sum += term;
        magnitude += std::fabs(term);
      }
      r.value[std::size_t(i) * p.n + j] = sum;
      r.magnitude[std::size_t(i) * p.n + j] = magnitude;
    }
  }
  return r;
}

std::vector<double> seed_matrix(const Problem& p) {
  std::vector<double> r(std::size_t(std::int64_t(p.m) * p.n));
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) r[std::size_t(i) * p.n + j] = seed_product(p, i, j);
  }
  return r;
}

ReferenceCheck check_reference(const Problem& p, const std::vector<double>& reference) {
  const PlainProduct plain = plain_product(p);
  const double eps = std::numeric_limits<double>::epsilon();
  const double gamma_k = double(p.k) * eps / (1 - double(p.k) * eps);
  // The seed's integer products are exact in both (sums below 2^53 < 2^64, long double's
  // significand); otherwise the reference carries up to gamma_k sum|a||b| per element and the
  // long double sum a 2^11 times smaller share, covered by rounding the bound up by that.
  const bool exact = p.init == Init::seed && seed_products_exact(p);
  ReferenceCheck check;
  double largest_magnitude = 0;
  for (std::size_t e = 0; e < plain.magnitude.size(); ++e) {
    largest_magnitude = std::max(largest_magnitude, double(plain.magnitude[e]));
  }
  const Difference largest =
      max_abs_difference(reference.data(), plain.value.data(), std::int64_t(plain.value.size()));
  check.difference = largest.value;
  const std::int64_t wi = largest.index < 0 ? 0 : largest.index / p.n;
  const std::int64_t wj = largest.index < 0 ? 0 : largest.index % p.n;
  check.tolerance = exact ? 0.0 : gamma_k * (1 + 0x1p-11) * largest_magnitude;
  check.ok = check.difference <= check.tolerance;
  check.detail = fmt::format(
      "the {} reference against the plain triple loop: max difference {:.3g} "
      "at ({}, {}) {} {:.3g}",
      p.init == Init::seed ? "closed-form" : "blocked", check.difference, wi, wj,
      check.ok ? "<=" : ">", check.tolerance);
  return check;
}

namespace {

// The seed's OpenMP loop as written: rows over threads, c[i][j] += a[i][k] b[k][j] with k
// innermost (a column of B per element, strided).
class Openmp : public MatmulInstance {
 public:
  using MatmulInstance::MatmulInstance;
  void run() override {
    const int m = p_.m, n = p_.n, k = p_.k, lda = p_.lda, ldb = p_.ldb, ldc = p_.ldc;
    const double* a = a_.data();
    const double* b = b_.data();
    double* c = c_.data();
#pragma omp parallel for
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        for (int q = 0; q < k; ++q) c[i * ldc + j] += a[i * lda + q] * b[q * ldb + j];
      }
    }
  }
};

}  // namespace

std::unique_ptr<Instance> make_openmp(const Params& params) {
  return std::make_unique<Openmp>(params);
}

}  // namespace acclab::matmul
