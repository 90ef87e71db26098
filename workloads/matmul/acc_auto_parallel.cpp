// Twin of seed method 1 (acc_auto.cpp): `loop auto` on j in a `parallel` construct instead of
// `kernels` (i the construct's `loop gang`). Inside `kernels` GCC 12 hands `loop auto` nests to
// parloops, which leaves them on one gang; inside `parallel` it partitions every `auto` loop
// without a dependence test, as if it were `independent`. The seed's `auto` on k would make k
// a vector loop (acclab explain shows GCC's choice), its lanes racing on c[i][j] +=, so k is
// `seq` here: the one change besides the construct, and what `auto` cannot be trusted with.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

void multiply_auto_parallel(const Problem& p, const double* a, const double* b, double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc parallel loop gang copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  for (int i = 0; i < m; ++i) {
#pragma acc loop auto
    for (int j = 0; j < n; ++j) {
#pragma acc loop seq
      for (int q = 0; q < k; ++q) c[i * ldc + j] += a[i * lda + q] * b[q * ldb + j];
    }
  }
}

}  // namespace

std::unique_ptr<Instance> make_acc_auto_parallel(const Params& params) {
  return make_acc(params, multiply_auto_parallel);
}

}  // namespace acclab::matmul
