// Seed method 4: the shape given by hand, `gang(32)` on i and `vector(16)` on j (as the seed's,
// inside `kernels`, where a gang clause may name the number of gangs), the k loop a reduction.
// GCC 12 runs this nest on one gang: with --set one_gang_rows=N it computes the first N rows of
// C only (p.rows; all m by default), so that the seed's ladder finishes in minutes.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul::acc {

void multiply_gang_vector(const Problem& p, const double* a, const double* b, double* c) {
  const int rows = p.rows, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc kernels copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  {
#pragma acc loop gang(32)
    for (int i = 0; i < rows; ++i) {
#pragma acc loop vector(16)
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

std::unique_ptr<Instance> make_acc_gang_vector(const Params& params) {
  return make_acc(params, acc::multiply_gang_vector, RowCap::one_gang_rows);
}

}  // namespace acclab::matmul
