// The seed's dense matrix multiply, C = A B in double: A is m x k, B is k x n, C is m x n, all
// row-major with leading dimensions lda, ldb, ldc (elements between the starts of two rows).
// The seed's inputs A[i][p] = i + p and B[p][j] = p - j (init=seed) have integer products, so
// the result is checked exactly; init=random is checked against an independent product by a
// relative Frobenius-norm bound.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::matmul {

// The loop nests omp_target_tuned runs (omp_shape), the default first.
inline const std::vector<OmpShape>& omp_target_shapes() {
  static const std::vector<OmpShape> shapes = {
      {"rows",
       "collapse(2) over column groups and row blocks, a thread each, its lanes an inner "
       "omp simd",
       true},
      {"collapse", "collapse(3) over column groups, row blocks and lanes"},
      {"flat", "one flat loop over them, the indices divided out"}};
  return shapes;
}

enum class Init { seed, random };

// The parameters of one run, read once (problem_of) and the values derived from them.
struct Problem {
  // The parameters as given (validate names them so), before they are narrowed below.
  std::int64_t m_given = 0, n_given = 0, k_given = 0;
  std::optional<std::int64_t> lda_given, ldb_given, ldc_given, one_gang_rows_given;
  std::int64_t random_seed_given = 1;
  std::string init_name, data_name;

  // int: every index of the three matrices is below 2^31 (validate checks it), which keeps the
  // GPU kernels' index arithmetic 32-bit.
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  Init init = Init::seed;
  std::uint64_t random_seed = 1;
  // data=resident: A, B and C stay on the device across runs (the seed's "after"); data=copy:
  // every run copies A, B and C in and C out (the seed's "before").
  bool resident = true;
  // --set one_gang_rows=N (0: unset): the five seed steps GCC 12 runs on one gang compute only
  // the first N rows of C, so that the seed's ladder finishes in minutes.
  int one_gang_rows = 0;
  // The rows of C the step computes, from 0: m, or one_gang_rows where the step honours the cap
  // and the user set it (MatmulInstance sets both). verify() checks these rows and that the
  // others stay zero.
  int rows = 0;
  bool rows_capped = false;

  std::int64_t a_size() const { return std::int64_t(m) * lda; }
  std::int64_t b_size() const { return std::int64_t(k) * ldb; }
  std::int64_t c_size() const { return std::int64_t(m) * ldc; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};
// The problem of these values, parsed at the first call and kept with them (Params::problem).
const Problem& problem_of(const Params& params);

Workload make_workload();

// The inputs of `p` (padding columns beyond k and n hold NaN: reading them spoils C).
std::vector<double> matrix_a(const Problem& p);
std::vector<double> matrix_b(const Problem& p);

// The exact C[i][j] of the seed's inputs: sum over q < k of (i + q)(q - j)
// = (i - j) k(k-1)/2 + (k-1)k(2k-1)/6 - i j k, rounded once to double.
double seed_product(const Problem& p, int i, int j);
// Whether every partial sum of the seed's products is an integer below 2^53, so that any order of
// summation gives the exact value (else verification allows rounding).
bool seed_products_exact(const Problem& p);

// C = A B by the plain i-k-j loops over OpenMP threads, in double: the independent reference
// for init=random. Cached for the last problem asked.
const std::vector<double>& reference_product(const Problem& p);

// The references themselves checked: the plain i-j-q triple loop in long double from the
// problem's inputs (value), with sum |a||b| (magnitude) for the rounding bound. verify() runs it
// where m n k <= plain_check_limit, so that a wrong closed form or a wrong blocked reference
// cannot pass every variant.
struct PlainProduct {
  std::vector<long double> value, magnitude;  // m x n, row-major, rows of n
};
PlainProduct plain_product(const Problem& p);
inline constexpr double plain_check_limit = 1 << 24;  // multiply-adds: tens of ms
struct ReferenceCheck {
  bool ok = false;
  double difference = 0;  // the largest |reference - plain| (+inf for a NaN)
  double tolerance = 0;   // 0 where the seed's products are exact, else gamma_k max sum|a||b|
  std::string detail;
};
// `reference` (m x n, rows of n: seed_matrix or reference_product) against plain_product.
ReferenceCheck check_reference(const Problem& p, const std::vector<double>& reference);
// seed_product of every element, m x n in rows of n.
std::vector<double> seed_matrix(const Problem& p);

// What the padding columns of C (j >= n) hold; no variant may write them.
inline constexpr double c_padding_value = -7.25;

// Whether a step computes only the first one_gang_rows rows of C when the user sets it: the five
// seed steps that GCC 12 runs on one gang do (ladder.json names the parameter among their
// tunings); every other step computes all of C whatever the parameter says.
enum class RowCap { none, one_gang_rows };

// Host matrices, the result and its verification, shared by every variant.
class MatmulInstance : public Instance {
 public:
  explicit MatmulInstance(const Params& params, RowCap cap = RowCap::none);
  void setup() override;
  // Zeroes C (m x n), so a variant that leaves an element unwritten fails verification, and
  // those that accumulate into C (the seed's `c[i][j] +=`) start from zero.
  void reset() override;
  // init=seed: every element equal to the exact product (or within k eps sum|a||b| where the
  // sums exceed 2^53); init=random: ||C - R||_F <= 2 gamma_k ||A||_F ||B||_F against the
  // reference R. Both: the padding of C untouched, and (where m n k <= plain_check_limit) the
  // reference itself against plain_product. outputs: tolerance and difference of the primary
  // check (max |C - exact| for seed, ||C - R||_F for random). A capped step (rows_capped) is
  // checked on its rows only, the others must still be zero (the cap was honoured); outputs
  // then add rows_computed and computed_fraction (rows / m), and the detail names the cap.
  Verification verify() override;
  void corrupt_result() override;

 protected:
  Problem p_;
  std::vector<double> a_, b_, c_;
};

// Each kernel computes C = A B (or C += A B on a zeroed C) for row-major A, B, C with the
// problem's leading dimensions. The OpenACC kernels name A, B and C in copyin/copy clauses, which
// move them when they are not already present on the device (data=copy) and do nothing when the
// instance holds them there (data=resident). A step with knobs of its own binds their values
// into its kernel (acc_tuned's block).
using AccKernel =
    std::function<void(const Problem& p, const double* a, const double* b, double* c)>;

// The instance of every OpenACC step: the step's file holds its kernel and its factory. The
// kernel computes the first p.rows rows of C (all m unless `cap` lets one_gang_rows cut them).
std::unique_ptr<Instance> make_acc(const Params& params, AccKernel kernel,
                                   RowCap cap = RowCap::none);

// The rows of ladder.json built into this binary (generated from the table).
std::vector<LadderRow> ladder();

void register_variants(Registry& registry);

}  // namespace acclab::matmul
