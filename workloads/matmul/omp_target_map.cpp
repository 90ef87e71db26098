// Seed method 2 (acc_independent_seq) in OpenMP target form, moving its data as the seed's first
// build did: one `target teams distribute parallel for simd collapse(2)` over i and j, k
// sequential in each iteration, its map clauses taking A and B to the device and C there and
// back around every product, as the OpenACC steps' copyin/copy clauses do with data=copy. The
// step always maps (it has no data tuning): its bytes per product are data=copy's.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

// C += A B, A, B and C mapped by the region itself.
void multiply_mapped(const Problem& p, const double* a, const double* b, double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  // Each at least 1 (m, n, k >= 1): no empty section.
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
// clang-format off
#pragma omp target teams distribute parallel for simd collapse(2) \
    map(to: a[0:na], b[0:nb]) map(tofrom: c[0:nc])
  // clang-format on
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      for (int q = 0; q < k; ++q) c[i * ldc + j] += a[i * lda + q] * b[q * ldb + j];
    }
  }
}

class OmpTargetMap : public MatmulInstance {
 public:
  using MatmulInstance::MatmulInstance;
  void run() override { multiply_mapped(p_, a_.data(), b_.data(), c_.data()); }
  // The region's maps around an empty region.
  bool transfers_only() override {
    const double* a = a_.data();
    const double* b = b_.data();
    double* c = c_.data();
    const std::int64_t na = p_.a_size(), nb = p_.b_size(), nc = p_.c_size();
#pragma omp target data map(to : a [0:na], b [0:nb]) map(tofrom : c [0:nc])
    {}
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_map(const Params& params) {
  return std::make_unique<OmpTargetMap>(params);
}

}  // namespace acclab::matmul
