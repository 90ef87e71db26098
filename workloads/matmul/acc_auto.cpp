// Seed method 1: a `kernels` region with `loop auto` on all three loops, c[i][j] += a b as the
// seed writes it: the compiler decides what is parallel. (The seed's PGI made i and j gang and
// gang-vector and kept k sequential: 18.7 ms on its GPU.)
// GCC 12 runs this nest on one gang: with --set one_gang_rows=N it computes the first N rows of
// C only (p.rows; all m by default), so that the seed's ladder finishes in minutes.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul::acc {

void multiply_auto(const Problem& p, const double* a, const double* b, double* c) {
  const int rows = p.rows, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc kernels copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  {
#pragma acc loop auto
    for (int i = 0; i < rows; ++i) {
#pragma acc loop auto
      for (int j = 0; j < n; ++j) {
#pragma acc loop auto
        for (int q = 0; q < k; ++q) c[i * ldc + j] += a[i * lda + q] * b[q * ldb + j];
      }
    }
  }
}

}  // namespace acclab::matmul::acc

namespace acclab::matmul {

std::unique_ptr<Instance> make_acc_auto(const Params& params) {
  return make_acc(params, acc::multiply_auto, RowCap::one_gang_rows);
}

}  // namespace acclab::matmul
