// Twin of seed method 4 (acc_gang_vector.cpp): `gang(32)` on i and `vector(16)` on j as the
// seed wrote them, k a reduction, in a `parallel` construct instead of `kernels`, the one
// change. Inside `parallel` a gang clause may not name a count, so the seed's 32 gangs become
// the construct's num_gangs(32), and vector(16) its vector_length(16).
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

void multiply_gang_vector_parallel(const Problem& p, const double* a, const double* b,
                                   double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc parallel loop gang num_gangs(32) vector_length(16) copyin(a[0:na], b[0:nb]) \
    copy(c[0:nc])
  for (int i = 0; i < m; ++i) {
#pragma acc loop vector
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
#pragma acc loop reduction(+:sum)
      for (int q = 0; q < k; ++q) sum += a[i * lda + q] * b[q * ldb + j];
      c[i * ldc + j] = sum;
    }
  }
}

}  // namespace

std::unique_ptr<Instance> make_acc_gang_vector_parallel(const Params& params) {
  return make_acc(params, multiply_gang_vector_parallel);
}

}  // namespace acclab::matmul
