// Twin of seed method 3 (acc_independent_reduction.cpp): i and j `independent`, k a
// `reduction(+:sum)` into a scalar, in a `parallel` construct instead of `kernels` (i the
// construct's `loop gang independent`), the one change.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

void multiply_independent_reduction_parallel(const Problem& p, const double* a, const double* b,
                                             double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc parallel loop gang independent copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  for (int i = 0; i < m; ++i) {
#pragma acc loop independent
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
#pragma acc loop reduction(+:sum)
      for (int q = 0; q < k; ++q) sum += a[i * lda + q] * b[q * ldb + j];
      c[i * ldc + j] = sum;
    }
  }
}

}  // namespace

std::unique_ptr<Instance> make_acc_independent_reduction_parallel(const Params& params) {
  return make_acc(params, multiply_independent_reduction_parallel);
}

}  // namespace acclab::matmul
