// Twin of seed method 4 (acc_gang_vector.cpp): 32 gangs on i and vector lanes on j as the seed
// wrote them, in a `parallel` construct instead of `kernels`, the one change, with what
// `parallel` and GCC require of it: a gang clause there may not name a count, so the seed's
// gang(32) becomes the construct's num_gangs(32); GCC's nvptx vectors are whole warps (it would
// use vector_length(32) and warn that it ignores 16), so vector(16) becomes vector_length(32);
// inside the vector loop no level of parallelism is left for k, whose reduction runs `seq` in
// each lane.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

void multiply_gang_vector_parallel(const Problem& p, const double* a, const double* b,
                                   double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
#pragma acc parallel loop gang num_gangs(32) vector_length(32) copyin(a[0:na], b[0:nb]) \
    copy(c[0:nc])
  for (int i = 0; i < m; ++i) {
#pragma acc loop vector
    for (int j = 0; j < n; ++j) {
      double sum = 0.0;
#pragma acc loop seq reduction(+:sum)
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
