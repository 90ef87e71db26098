// Seed method 2: the outer two loops asserted `independent`, the k loop sequential in each
// thread. (The seed also wrote `independent` on k, which is false: every k adds into the same
// c[i][j]. PGI made that loop a gang dimension and the seed's check never looked at this
// method's result. Here k is `seq`, as the seed's title says.)
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul::acc {

void multiply_independent_seq(const Problem& p, const double* a, const double* b, double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc kernels copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  {
#pragma acc loop independent
    for (int i = 0; i < m; ++i) {
#pragma acc loop independent
      for (int j = 0; j < n; ++j) {
#pragma acc loop seq
        for (int q = 0; q < k; ++q) c[i * ldc + j] += a[i * lda + q] * b[q * ldb + j];
      }
    }
  }
}

}  // namespace acclab::matmul::acc

namespace acclab::matmul {

std::unique_ptr<Instance> make_acc_independent_seq(const Params& params) {
  return make_acc(params, acc::multiply_independent_seq);
}

}  // namespace acclab::matmul
