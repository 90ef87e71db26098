// Twin of seed method 5 (acc_tile.cpp): `tile(32, 32)` on the i-j nest, k a reduction, in a
// `parallel` construct instead of `kernels` (the tiled nest the construct's `loop gang`). One
// change besides the construct: the nest runs over whole tiles (m and n rounded up to 32), the
// elements past the matrix skipped, because GCC 12 on the GPU miscomputes the elements of a
// partial tile (a tile that m or n does not fill: wrong sums, whatever the loops' other
// clauses; bench/experiments/gcc-openacc-partial-tiles/ reproduces it).
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

constexpr int tile = 32;  // the tile's edge, as the clause below says

void multiply_tile_parallel(const Problem& p, const double* a, const double* b, double* c) {
  const int m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const std::int64_t na = p.a_size(), nb = p.b_size(), nc = p.c_size();
  const int whole_m = (m + tile - 1) / tile * tile, whole_n = (n + tile - 1) / tile * tile;
#pragma acc parallel loop gang tile(32, 32) copyin(a[0:na], b[0:nb]) copy(c[0:nc])
  for (int i = 0; i < whole_m; ++i) {
    for (int j = 0; j < whole_n; ++j) {
      if (i < m && j < n) {
        double sum = 0.0;
#pragma acc loop reduction(+:sum)
        for (int q = 0; q < k; ++q) sum += a[i * lda + q] * b[q * ldb + j];
        c[i * ldc + j] = sum;
      }
    }
  }
}

}  // namespace

std::unique_ptr<Instance> make_acc_tile_parallel(const Params& params) {
  return make_acc(params, multiply_tile_parallel);
}

}  // namespace acclab::matmul
