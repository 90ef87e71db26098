// Problem definition, parameters and verification shared by every matmul variant.
#include "workloads/matmul/matmul.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <utility>

#include "core/compare.hpp"
#include "core/error.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::matmul {

namespace {

constexpr std::int64_t max_elements = (std::int64_t(1) << 31) - 1;
// The padding of A and B: a kernel that reads past a row's end gets NaN into C and fails.
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// A uniform double in [-1, 1) from 53 random bits: the same on every platform, unlike
// std::uniform_real_distribution.
double uniform(std::mt19937_64& rng) { return double(rng() >> 11) * 0x1p-52 - 1.0; }

// A matrix of `rows` x `cols` in rows of `ld`, the padding columns `pad`.
template <typename Value>
std::vector<double> matrix(int rows, int cols, int ld, double pad, Value&& value) {
  std::vector<double> x(static_cast<std::size_t>(std::int64_t(rows) * ld), pad);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) x[std::size_t(r) * ld + c] = value(r, c);
  }
  return x;
}

// Each parameter of the Problem, read here and nowhere else.
Problem parse_problem(const Params& params) {
  static const ProblemFields<Problem> fields = [] {
    ProblemFields<Problem> f;
    f.integer("m", &Problem::m_given).integer("n", &Problem::n_given);
    f.integer("k", &Problem::k_given).integer("lda", &Problem::lda_given);
    f.integer("ldb", &Problem::ldb_given).integer("ldc", &Problem::ldc_given);
    f.text("init", &Problem::init_name).integer("random_seed", &Problem::random_seed_given);
    f.text("data", &Problem::data_name).integer("one_gang_rows", &Problem::one_gang_rows_given);
    return f;
  }();
  Problem p;
  fields.fill(params, p);
  // Narrowed where validate refuses more (it names the values as given).
  const auto narrow = [](std::int64_t value) {
    return static_cast<int>(std::min<std::int64_t>(value, max_elements));
  };
  p.m = narrow(p.m_given);
  p.n = narrow(p.n_given);
  p.k = narrow(p.k_given);
  p.lda = p.lda_given ? narrow(*p.lda_given) : p.k;
  p.ldb = p.ldb_given ? narrow(*p.ldb_given) : p.n;
  p.ldc = p.ldc_given ? narrow(*p.ldc_given) : p.n;
  p.init = p.init_name == "random" ? Init::random : Init::seed;
  p.random_seed = static_cast<std::uint64_t>(p.random_seed_given);
  p.resident = p.data_name == "resident";
  if (p.one_gang_rows_given) p.one_gang_rows = narrow(*p.one_gang_rows_given);
  p.rows = p.m;
  return p;
}

}  // namespace

const Problem& problem_of(const Params& params) { return params.problem(parse_problem); }

Workload make_workload() {
  Workload w;
  w.name = "matmul";
  w.description = "seed matmul directives: C = A B in double, ladder of loop directives";
  w.params = {
      {.key = "m", .help = "rows of A and C", .presets = presets_of("1024", "65", "4096")},
      {.key = "n", .help = "columns of B and C", .presets = presets_of("1024", "47", "4096")},
      {.key = "k", .help = "columns of A, rows of B", .presets = presets_of("1024", "33", "4096")},
      {.key = "lda",
       .help = "optional: leading dimension of A (>= k)",
       .presets = same_in_all_presets("")},
      {.key = "ldb",
       .help = "optional: leading dimension of B (>= n)",
       .presets = same_in_all_presets("")},
      {.key = "ldc",
       .help = "optional: leading dimension of C (>= n)",
       .presets = same_in_all_presets("")},
      {.key = "init",
       .type = ParamType::text,
       .help = "seed: A[i][p] = i + p, B[p][j] = p - j (exact products); random: uniform [-1, 1)",
       .presets = same_in_all_presets("seed"),
       .choices = {"seed", "random"}},
      {.key = "random_seed",
       .help = "seed of init=random's generator (mt19937_64)",
       .presets = same_in_all_presets("1"),
       .minimum = 0},
      {.key = "data",
       .type = ParamType::text,
       .help = "GPU variants: resident keeps A, B, C on the device; copy moves them every run "
               "(not the omp_target_* steps: omp_target_map always moves them, the others "
               "keep them resident)",
       .presets = same_in_all_presets("resident"),
       .choices = {"resident", "copy"}},
      {.key = "one_gang_rows",
       .help = "optional, the seed steps GCC 12 runs on one gang only (acc_auto, "
               "acc_independent_reduction, acc_gang_vector, acc_tile, acc_collapse): compute "
               "only the first N rows of C (1 <= N <= m); unset: all m",
       .presets = same_in_all_presets("")},
  };
  w.validate = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t m = p.m_given, n = p.n_given, k = p.k_given;
    const std::int64_t lda = p.lda_given.value_or(k);
    const std::int64_t ldb = p.ldb_given.value_or(n);
    const std::int64_t ldc = p.ldc_given.value_or(n);
    if (lda < k) throw UsageError(fmt::format("--set lda={}: below k={}", lda, k));
    if (ldb < n) throw UsageError(fmt::format("--set ldb={}: below n={}", ldb, n));
    if (ldc < n) throw UsageError(fmt::format("--set ldc={}: below n={}", ldc, n));
    // Indices are 32-bit ints in the kernels.
    auto too_big = [](std::int64_t rows, std::int64_t ld) { return ld > max_elements / rows; };
    if (too_big(m, lda) || too_big(k, ldb) || too_big(m, ldc)) {
      throw UsageError(fmt::format(
          "--set m={} n={} k={}: a matrix of 2^31 elements or more (rows x leading dimension)", m,
          n, k));
    }
    if (p.one_gang_rows_given && *p.one_gang_rows_given > m) {
      throw UsageError(fmt::format("--set one_gang_rows={}: above m={} (the rows of C)",
                                   *p.one_gang_rows_given, m));
    }
  };
  // A, B and C, plus the reference product of init=random, plus what verify() holds at once:
  // the inputs generated again (reference_product, plain_product) and, on problems small
  // enough for check_reference, the plain product (two long double matrices) beside the
  // closed-form one.
  w.host_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    const double a = double(p.a_size()), b = double(p.b_size()), c = double(p.c_size());
    const double mn = double(p.m) * p.n;
    const bool random = p.init == Init::random;
    const bool checked = double(p.m) * p.n * p.k <= plain_check_limit;
    const double inputs_again = random || checked ? a + b : 0.0;
    const double plain = checked ? 2.0 * sizeof(long double) * mn + sizeof(double) * mn : 0.0;
    return sizeof(double) * (a + b + c + (random ? c : 0.0) + inputs_again) + plain;
  };
  w.device_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    return sizeof(double) * (double(p.a_size()) + double(p.b_size()) + double(p.c_size()));
  };
  return w;
}

std::vector<double> matrix_a(const Problem& p) {
  if (p.init == Init::seed) {
    return matrix(p.m, p.k, p.lda, nan, [](int i, int q) { return double(i + q); });
  }
  std::mt19937_64 rng(p.random_seed);
  return matrix(p.m, p.k, p.lda, nan, [&](int, int) { return uniform(rng); });
}

std::vector<double> matrix_b(const Problem& p) {
  if (p.init == Init::seed) {
    return matrix(p.k, p.n, p.ldb, nan, [](int q, int j) { return double(q - j); });
  }
  std::mt19937_64 rng(p.random_seed ^ 0x9e3779b97f4a7c15ULL);  // a stream apart from A's
  return matrix(p.k, p.n, p.ldb, nan, [&](int, int) { return uniform(rng); });
}

double seed_product(const Problem& p, int i, int j) {
  const __int128 k = p.k, s1 = k * (k - 1) / 2, s2 = (k - 1) * k * (2 * k - 1) / 6;
  return static_cast<double>(__int128(i - j) * s1 + s2 - __int128(i) * j * k);
}

bool seed_products_exact(const Problem& p) {
  // Every term |(i + q)(q - j)| <= (m + k)(k + n); k of them.
  const long double bound = (long double)p.k * ((long double)p.m + p.k) * ((long double)p.k + p.n);
  return bound < 0x1p53L;
}

MatmulInstance::MatmulInstance(const Params& params, RowCap cap) : p_(problem_of(params)) {
  if (cap == RowCap::one_gang_rows && p_.one_gang_rows > 0) {
    p_.rows = std::min(p_.one_gang_rows, p_.m);
    p_.rows_capped = true;
  }
}

void MatmulInstance::setup() {
  a_ = matrix_a(p_);
  b_ = matrix_b(p_);
  c_ = matrix(p_.m, p_.n, p_.ldc, c_padding_value, [](int, int) { return 0.0; });
}

void MatmulInstance::reset() {
  for (int i = 0; i < p_.m; ++i) {
    std::memset(c_.data() + std::int64_t(i) * p_.ldc, 0, sizeof(double) * p_.n);
  }
}

Verification MatmulInstance::verify() {
  Verification v;
  std::int64_t padding_written = 0;
  for (int i = 0; i < p_.m; ++i) {
    for (int j = p_.n; j < p_.ldc; ++j) {
      padding_written += c_[std::int64_t(i) * p_.ldc + j] != c_padding_value;
    }
  }
  const double eps = std::numeric_limits<double>::epsilon();
  const double gamma_k = double(p_.k) * eps / (1 - double(p_.k) * eps);
  if (p_.init == Init::seed) {
    // Off the exact range, each element may carry gamma_k sum |a||b| <= gamma_k k (m+k)(k+n).
    const bool exact = seed_products_exact(p_);
    const double bound =
        exact ? 0.0 : gamma_k * double(p_.k) * (double(p_.m) + p_.k) * (double(p_.k) + p_.n);
    Difference largest;  // indexed i n + j
    for (int i = 0; i < p_.rows; ++i) {
      for (int j = 0; j < p_.n; ++j) {
        const double diff = std::abs(c_[std::int64_t(i) * p_.ldc + j] - seed_product(p_, i, j));
        fold_difference(largest, diff, std::int64_t(i) * p_.n + j);
      }
    }
    const double max_diff = largest.value;
    const std::int64_t wi = largest.index < 0 ? 0 : largest.index / p_.n;
    const std::int64_t wj = largest.index < 0 ? 0 : largest.index % p_.n;
    v.ok = max_diff <= bound;
    v.outputs["max_abs_error"] = max_diff;
    v.outputs["tolerance"] = bound;
    v.outputs["difference"] = max_diff;
    v.detail = exact ? fmt::format("max |C - exact| = {:.3g} at ({}, {}) {} 0 (integer products)",
                                   max_diff, wi, wj, v.ok ? "==" : ">")
                     : fmt::format(
                           "max |C - exact| = {:.3g} at ({}, {}) {} gamma_k k(m+k)(k+n) = "
                           "{:.3g}",
                           max_diff, wi, wj, v.ok ? "<=" : ">", bound);
  } else {
    const auto& r = reference_product(p_);
    auto frobenius = [](const std::vector<double>& x, int rows, int cols, int ld) {
      double sum = 0;
      for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j)
          sum += x[std::int64_t(i) * ld + j] * x[std::int64_t(i) * ld + j];
      }
      return std::sqrt(sum);
    };
    double diff2 = 0;
    for (int i = 0; i < p_.rows; ++i) {
      for (int j = 0; j < p_.n; ++j) {
        const double d = c_[std::int64_t(i) * p_.ldc + j] - r[std::int64_t(i) * p_.n + j];
        diff2 += d * d;
      }
    }
    const double diff = std::sqrt(diff2);
    const double norm_ab = frobenius(a_, p_.rows, p_.k, p_.lda) * frobenius(b_, p_.k, p_.n, p_.ldb);
    // Both C and R are within gamma_k |A||B| of the exact product, elementwise, and
    // || |A||B| ||_F <= ||A||_F ||B||_F (A: the rows computed).
    const double bound = 2 * gamma_k * norm_ab;
    v.ok = diff <= bound;  // false for a NaN
    const double relative = norm_ab > 0 ? diff / norm_ab : diff;
    v.outputs["relative_error"] = relative;
    v.outputs["tolerance"] = bound;
    v.outputs["difference"] = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff;
    v.detail = fmt::format("||C - R||_F / (||A||_F ||B||_F) = {:.3g} {} 2 gamma_k = {:.3g}",
                           relative, v.ok ? "<=" : ">", 2 * gamma_k);
  }
  if (double(p_.m) * p_.n * p_.k <= plain_check_limit) {
    const ReferenceCheck reference =
        check_reference(p_, p_.init == Init::seed ? seed_matrix(p_) : reference_product(p_));
    v.outputs["reference_difference"] = reference.difference;
    v.outputs["reference_tolerance"] = reference.tolerance;
    if (!reference.ok) {
      v.ok = false;
      v.detail += "; " + reference.detail;
    }
  }
  if (padding_written > 0) {
    v.ok = false;
    v.detail += fmt::format("; {} padding elements of C (columns >= n) written", padding_written);
  }
  if (p_.rows_capped) {
    // The rows past the cap are not part of the result: reset() zeroed them, and a step that
    // wrote them did not honour the cap (its time would be for more than the rows reported).
    std::int64_t uncomputed_written = 0;
    for (int i = p_.rows; i < p_.m; ++i) {
      for (int j = 0; j < p_.n; ++j) uncomputed_written += c_[std::int64_t(i) * p_.ldc + j] != 0.0;
    }
    v.outputs["rows_computed"] = p_.rows;
    v.outputs["computed_fraction"] = double(p_.rows) / double(p_.m);
    v.detail += fmt::format("; rows 0 to {} of {} computed and checked (--set one_gang_rows={})",
                            p_.rows - 1, p_.m, p_.one_gang_rows);
    if (p_.rows < p_.m) v.detail += fmt::format(", the other {} not computed", p_.m - p_.rows);
    if (uncomputed_written > 0) {
      v.ok = false;
      v.detail += fmt::format("; {} elements of the rows not computed written", uncomputed_written);
    }
  }
  return v;
}

void MatmulInstance::corrupt_result() { c_[std::int64_t(p_.rows / 2) * p_.ldc + p_.n / 2] += 1.0; }

}  // namespace acclab::matmul
