// Seed method 6: `collapse(2) independent` on the i-j nest, one flat parallel loop over the
// m n elements of C; the k loop a reduction.
// GCC 12 runs this nest on one gang: with --set one_gang_rows=N it computes the first N rows of
// C only (p.rows; all m by default), so that the seed's ladder finishes in minutes.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul::acc {

void multiply_collapse(const Problem& p, const double* a, const double* b, double* c) {
  const int rows = p.rows, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc kernels copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  {
#pragma acc loop collapse(2) independent
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = 0.0;
#pragma acc loop reduction(+:sum)
        for (int q = 0; q < k; ++q) sum += a[i * lda + q] * b[q * ldb + j];
        c[i * ldc + j] = sum;
      }
    }
  }
}

}  // namespace acclab::matmul::acc

namespace acclab::matmul {

std::unique_ptr<Instance> make_acc_collapse(const Params& params) {
  return make_acc(params, acc::multiply_collapse, RowCap::one_gang_rows);
}

}  // namespace acclab::matmul
