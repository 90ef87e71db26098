// C = A B on FP64 tensor cores. A block computes a block_m x block_n tile of C; each k step
// stages a block_k slice of A (stored transposed, k-major) and of B in shared memory, padded so
// that the fragment loads below are free of bank conflicts. Each warp owns a warp_m x warp_n
// piece of the tile as (warp_m/8) x (warp_n/8) accumulators of the 8x8x4 DMMA instruction
// (mma.sync m8n8k4 .f64: each lane holds one element of A's 8x4 fragment, one of B's 4x8 and
// two of the 8x8 result). The next slice is loaded from global memory into registers while
// the current one is multiplied. Edges: out-of-range elements are loaded as zeros and never
// stored, so any m, n, k and leading dimension works.
#include <algorithm>

#include "core/cuda_check.hpp"
#include "workloads/matmul/cuda_kernels.hpp"

namespace acclab::matmul::cuda {
namespace {

constexpr int block_k = 16;
constexpr int pad = 4;  // doubles added to each shared row: lanes 0-15 of a fragment load hit
                        // 16 distinct bank pairs

__device__ __forceinline__ void dmma(double& c0, double& c1, double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(c0), "+d"(c1)
               : "d"(a), "d"(b));
}

template <int block_m, int block_n, int warps_m, int warps_n>
__global__ void __launch_bounds__(32 * warps_m* warps_n)
    tiled_kernel(Shape s, const double* __restrict__ a, const double* __restrict__ b,
                 double* __restrict__ c, int first_column_block) {
  constexpr int threads = 32 * warps_m * warps_n;
  constexpr int warp_m = block_m / warps_m, warp_n = block_n / warps_n;
  constexpr int tiles_m = warp_m / 8, tiles_n = warp_n / 8;
  constexpr int loads_a = block_m * block_k / threads, loads_b = block_k * block_n / threads;
  static_assert(loads_a * threads == block_m * block_k && loads_b * threads == block_k * block_n);

  __shared__ double as[block_k][block_m + pad];  // A's slice, transposed: as[q][i]
  __shared__ double bs[block_k][block_n + pad];

  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int group = lane / 4, in_group = lane % 4;  // the DMMA fragment coordinates
  const int m0 = blockIdx.x * block_m, n0 = (first_column_block + blockIdx.y) * block_n;
  const int wm0 = (warp / warps_n) * warp_m, wn0 = (warp % warps_n) * warp_n;

  double ra[loads_a], rb[loads_b];
  auto load = [&](int k0) {
#pragma unroll
    for (int l = 0; l < loads_a; ++l) {
      const int e = t + l * threads, i = m0 + e / block_k, q = k0 + e % block_k;
      ra[l] = i < s.m && q < s.k ? a[i * s.lda + q] : 0.0;
    }
#pragma unroll
    for (int l = 0; l < loads_b; ++l) {
      const int e = t + l * threads, q = k0 + e / block_n, j = n0 + e % block_n;
      rb[l] = q < s.k && j < s.n ? b[q * s.ldb + j] : 0.0;
    }
  };
  auto stage = [&] {
#pragma unroll
    for (int l = 0; l < loads_a; ++l) {
      const int e = t + l * threads;
      as[e % block_k][e / block_k] = ra[l];
    }
#pragma unroll
    for (int l = 0; l < loads_b; ++l) {
      const int e = t + l * threads;
      bs[e / block_n][e % block_n] = rb[l];
    }
  };

  double acc[tiles_m][tiles_n][2] = {};
  load(0);
  for (int k0 = 0; k0 < s.k; k0 += block_k) {
    stage();
    __syncthreads();
    if (k0 + block_k < s.k) load(k0 + block_k);
#pragma unroll
    for (int kk = 0; kk < block_k; kk += 4) {
      double fa[tiles_m], fb[tiles_n];
#pragma unroll
      for (int x = 0; x < tiles_m; ++x) fa[x] = as[kk + in_group][wm0 + x * 8 + group];
#pragma unroll
      for (int y = 0; y < tiles_n; ++y) fb[y] = bs[kk + in_group][wn0 + y * 8 + group];
#pragma unroll
      for (int x = 0; x < tiles_m; ++x) {
#pragma unroll
        for (int y = 0; y < tiles_n; ++y) dmma(acc[x][y][0], acc[x][y][1], fa[x], fb[y]);
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int x = 0; x < tiles_m; ++x) {
    const int i = m0 + wm0 + x * 8 + group;
    if (i >= s.m) continue;
#pragma unroll
    for (int y = 0; y < tiles_n; ++y) {
      const int j = n0 + wn0 + y * 8 + in_group * 2;
      if (j < s.n) c[i * s.ldc + j] = acc[x][y][0];
      if (j + 1 < s.n) c[i * s.ldc + j + 1] = acc[x][y][1];
    }
  }
}

template <int block_m, int block_n, int warps_m, int warps_n>
void launch(const Shape& s, const double* a, const double* b, double* c, cudaStream_t stream) {
  // Row blocks along x (up to 2^31 - 1 of them), column blocks along y in launches of at most
  // 65535.
  const int row_blocks = (s.m + block_m - 1) / block_m;
  const int column_blocks = (s.n + block_n - 1) / block_n;
  for (int first = 0; first < column_blocks; first += 65535) {
    const dim3 grid(row_blocks, std::min(65535, column_blocks - first));
    tiled_kernel<block_m, block_n, warps_m, warps_n>
        <<<grid, 32 * warps_m * warps_n, 0, stream>>>(s, a, b, c, first);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void multiply_tiled(const Shape& s, const double* a, const double* b, double* c, int tile,
                    cudaStream_t stream) {
  if (tile == 64) {
    launch<64, 64, 2, 2>(s, a, b, c, stream);  // warps of 32 x 32: 16 accumulators
  } else {
    launch<128, 128, 2, 4>(s, a, b, c, stream);  // warps of 64 x 32: 32 accumulators
  }
}

}  // namespace acclab::matmul::cuda
