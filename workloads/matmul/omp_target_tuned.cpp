// acc_tuned in OpenMP target form: A, B and C resident (omp_target_instance.cpp), and each
// iteration of the region a register block of 8 x 4 elements of C, so that one step of k loads 8
// elements of A and 4 of B for 32 multiply-adds instead of one of each for one. GCC's nvptx
// OpenMP runs an OpenMP thread as a warp and spreads simd iterations over its 32 lanes, so the
// innermost of the three loops, the one the lanes share, is the lane: the 32 lanes of a block
// row load the same elements of A (one broadcast) and consecutive columns of B (coalesced), their
// columns lane, lane + 32, lane + 64, lane + 96 of a group of 128. Row blocks run faster than
// column groups, so that the iterations running at one time share the same columns of B in cache
// (acc_tuned's gang order). Loads are clamped to the last row and column (no branch in the k
// loop), stores guarded. The region's shape is the tunings' (kit/omp_tuned.hpp): omp_construct,
// omp_simd, omp_teams/omp_threads, and omp_shape: rows (the default: collapse(2) over column
// groups and row blocks, a thread each, its 32 lanes an inner `omp simd` loop), collapse
// (collapse(3) over all three, which GCC 12 runs on one lane a warp), or flat (one flat loop
// over them, the indices divided out).
#include <string>

#include "kit/omp_tuned.hpp"
#include "workloads/matmul/omp_target_instance.hpp"

namespace acclab::matmul {
namespace {

constexpr int lanes = 32;             // the simd lanes of one OpenMP thread on nvptx (a warp)
constexpr int rows = 8, columns = 4;  // the register block of C an iteration computes
constexpr int group = lanes * columns;

#pragma omp declare target
// Rows ib * rows ... and columns g * group + lane + s * lanes (s < columns) of C = A B, the
// ones inside m x n stored. Always inlined: its blocks must stay in the region's registers.
[[gnu::always_inline]] inline void block_product(int m, int n, int k, int lda, int ldb, int ldc,
                                                 const double* a, const double* b, double* c, int g,
                                                 int ib, int lane) {
  int a_row[rows], b_col[columns];
#pragma GCC unroll 8
  for (int r = 0; r < rows; ++r) {
    const int i = ib * rows + r;
    a_row[r] = (i < m ? i : m - 1) * lda;
  }
#pragma GCC unroll 4
  for (int s = 0; s < columns; ++s) {
    const int j = g * group + s * lanes + lane;
    b_col[s] = j < n ? j : n - 1;
  }
  double sum[rows][columns] = {};
  for (int q = 0; q < k; ++q) {
    double bq[columns];
#pragma GCC unroll 4
    for (int s = 0; s < columns; ++s) bq[s] = b[q * ldb + b_col[s]];
#pragma GCC unroll 8
    for (int r = 0; r < rows; ++r) {
      const double aq = a[a_row[r] + q];
#pragma GCC unroll 4
      for (int s = 0; s < columns; ++s) sum[r][s] += aq * bq[s];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < rows; ++r) {
    const int i = ib * rows + r;
#pragma GCC unroll 4
    for (int s = 0; s < columns; ++s) {
      const int j = g * group + s * lanes + lane;
      if (i < m && j < n) c[i * ldc + j] = sum[r][s];
    }
  }
}
#pragma omp end declare target

void multiply_tuned(const OmpTuning& tuning, const std::string& shape, const Problem& p,
                    const double* a, const double* b, double* c) {
  // Scalars only in the region (firstprivate): a struct would be mapped tofrom every launch.
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();  // each >= 1
  const int row_blocks = (m + rows - 1) / rows;
  const int groups = (n + group - 1) / group;
  // The macro's arguments are directive clauses and a loop: left as written.
  // clang-format off
  if (shape == "rows") {
    ACCLAB_OMP_TUNED_OUTER(tuning, (collapse(2) map(alloc: a[0:na], b[0:nb], c[0:nc])),
        for (int g = 0; g < groups; ++g) {
          for (int ib = 0; ib < row_blocks; ++ib) {
            _Pragma("omp simd")
            for (int lane = 0; lane < lanes; ++lane) {
              block_product(m, n, k, lda, ldb, ldc, a, b, c, g, ib, lane);
            }
          }
        });
  } else if (shape == "collapse") {
    ACCLAB_OMP_TUNED(tuning, (collapse(3) map(alloc: a[0:na], b[0:nb], c[0:nc])),
        for (int g = 0; g < groups; ++g) {
          for (int ib = 0; ib < row_blocks; ++ib) {
            for (int lane = 0; lane < lanes; ++lane) {
              block_product(m, n, k, lda, ldb, ldc, a, b, c, g, ib, lane);
            }
          }
        });
  } else {
    // Below 2^31: about m n / columns iterations, and m n < 2^31 (validate).
    const int iterations = groups * row_blocks * lanes;
    ACCLAB_OMP_TUNED(tuning, (map(alloc: a[0:na], b[0:nb], c[0:nc])),
        for (int t = 0; t < iterations; ++t) {
          block_product(m, n, k, lda, ldb, ldc, a, b, c, t / lanes / row_blocks,
                        t / lanes % row_blocks, t % lanes);
        });
  }
  // clang-format on
}

}  // namespace

TuningSet omp_target_tuned_tuning_set() {
  return omp_tunings("omp_target_tuned", omp_target_shapes()).set();
}

std::unique_ptr<Instance> make_omp_target_tuned(const Params& params) {
  const OmpTuning tuning = omp_tunings("omp_target_tuned", omp_target_shapes()).read(params);
  const std::string shape = omp_shape_of(tuning, omp_target_shapes());
  return make_omp_resident(
      params, [tuning, shape](const Problem& p, const double* a, const double* b, double* c) {
        multiply_tuned(tuning, shape, p, a, b, c);
      });
}

}  // namespace acclab::matmul
