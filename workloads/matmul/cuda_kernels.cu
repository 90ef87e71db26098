// C = A B on FP64 tensor cores. A block computes a block_m x block_n tile of C; each k step
// stages a block_k slice of A (stored transposed, k-major) and of B in shared memory, padded so
// that the fragment loads below are free of bank conflicts. Each warp owns a warp_m x warp_n
// piece of the tile as accumulators of one FP64 MMA shape (mma.sync .f64, the instructions
// cuBLAS's DGEMM also runs on: Hopper has no FP64 wgmma): m8n8k4 (Ampere's DMMA: each lane
// holds one element of A's 8x4 fragment, one of B's 4x8 and two of the 8x8 result), or
// Hopper's m16n8k4, m16n8k8 and m16n8k16 (PTX ISA 7.8, sm_90), whose fragments stack the same
// lane pattern: A's element (group + 8 r, in_group + 4 c) is register 2c + r, B's
// (in_group + 4 c, group) register c, C's rows group and group + 8. The next slice is loaded
// from global memory into registers while the current one is multiplied. Edges: out-of-range
// elements are loaded as zeros and never stored, so any m, n, k and leading dimension works.
// m16n8k4 on 128 x 128 tiles is the default: the fastest shape on the H200, where the larger
// k8 and k16 shapes spill registers and gain nothing (bench/results/h200/matmul/NOTES.md).
#include <algorithm>

#include "core/cuda_check.hpp"
#include "workloads/matmul/cuda_kernels.hpp"

namespace acclab::matmul::cuda {
namespace {

constexpr int block_k = 16;
constexpr int pad = 4;  // doubles added to each shared row: lanes 0-15 of a fragment load hit
                        // 16 distinct bank pairs

// d += a b for one MMA shape: a holds mma_m * mma_k / 32 doubles, b mma_k / 4, d mma_m / 4.
template <int mma_m, int mma_k>
__device__ __forceinline__ void mma(double* d, const double* a, const double* b) {
  if constexpr (mma_m == 8 && mma_k == 4) {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a[0]), "d"(b[0]));
  } else if constexpr (mma_m == 16 && mma_k == 4) {
    asm volatile(
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  } else if constexpr (mma_m == 16 && mma_k == 8) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else {
    static_assert(mma_m == 16 && mma_k == 16);
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
          "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
  }
}

template <int block_m, int block_n, int warps_m, int warps_n, int mma_m, int mma_k>
__global__ void __launch_bounds__(32 * warps_m* warps_n)
    tiled_kernel(Shape s, const double* __restrict__ a, const double* __restrict__ b,
                 double* __restrict__ c, int first_column_block) {
  constexpr int threads = 32 * warps_m * warps_n;
  constexpr int warp_m = block_m / warps_m, warp_n = block_n / warps_n;
  constexpr int tiles_m = warp_m / mma_m, tiles_n = warp_n / 8;
  constexpr int a_regs = mma_m * mma_k / 32, b_regs = mma_k / 4, d_regs = mma_m / 4;
  constexpr int loads_a = block_m * block_k / threads, loads_b = block_k * block_n / threads;
  static_assert(loads_a * threads == block_m * block_k && loads_b * threads == block_k * block_n);
  static_assert(block_k % mma_k == 0 && warp_m % mma_m == 0);

  __shared__ double as[block_k][block_m + pad];  // A's slice, transposed: as[q][i]
  __shared__ double bs[block_k][block_n + pad];

  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int group = lane / 4, in_group = lane % 4;  // the fragment coordinates
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

  double acc[tiles_m][tiles_n][d_regs] = {};
  load(0);
  for (int k0 = 0; k0 < s.k; k0 += block_k) {
    stage();
    __syncthreads();
    if (k0 + block_k < s.k) load(k0 + block_k);
#pragma unroll
    for (int kk = 0; kk < block_k; kk += mma_k) {
      double fa[tiles_m][a_regs], fb[tiles_n][b_regs];
#pragma unroll
      for (int x = 0; x < tiles_m; ++x) {
#pragma unroll
        for (int r = 0; r < a_regs; ++r) {
          fa[x][r] = as[kk + in_group + 4 * (r / 2)][wm0 + x * mma_m + group + 8 * (r % 2)];
        }
      }
#pragma unroll
      for (int y = 0; y < tiles_n; ++y) {
#pragma unroll
        for (int r = 0; r < b_regs; ++r) fb[y][r] = bs[kk + in_group + 4 * r][wn0 + y * 8 + group];
      }
#pragma unroll
      for (int x = 0; x < tiles_m; ++x) {
#pragma unroll
        for (int y = 0; y < tiles_n; ++y) mma<mma_m, mma_k>(acc[x][y], fa[x], fb[y]);
      }
    }
    __syncthreads();
  }

#pragma unroll
  for (int x = 0; x < tiles_m; ++x) {
#pragma unroll
    for (int h = 0; h < d_regs / 2; ++h) {
      const int i = m0 + wm0 + x * mma_m + group + 8 * h;
      if (i >= s.m) continue;
#pragma unroll
      for (int y = 0; y < tiles_n; ++y) {
        const int j = n0 + wn0 + y * 8 + in_group * 2;
        if (j < s.n) c[i * s.ldc + j] = acc[x][y][2 * h];
        if (j + 1 < s.n) c[i * s.ldc + j + 1] = acc[x][y][2 * h + 1];
      }
    }
  }
}

template <int block_m, int block_n, int warps_m, int warps_n, int mma_m, int mma_k>
void launch(const Shape& s, const double* a, const double* b, double* c, cudaStream_t stream) {
  // Row blocks along x (up to 2^31 - 1 of them), column blocks along y in launches of at most
  // 65535.
  const int row_blocks = (s.m + block_m - 1) / block_m;
  const int column_blocks = (s.n + block_n - 1) / block_n;
  for (int first = 0; first < column_blocks; first += 65535) {
    const dim3 grid(row_blocks, std::min(65535, column_blocks - first));
    tiled_kernel<block_m, block_n, warps_m, warps_n, mma_m, mma_k>
        <<<grid, 32 * warps_m * warps_n, 0, stream>>>(s, a, b, c, first);
    CUDA_CHECK_LAUNCH();
  }
}

template <int mma_m, int mma_k>
void launch_tile(const Shape& s, const double* a, const double* b, double* c, int tile,
                 cudaStream_t stream) {
  if (tile == 64) {
    launch<64, 64, 2, 2, mma_m, mma_k>(s, a, b, c, stream);  // warps of 32 x 32
  } else {
    launch<128, 128, 2, 4, mma_m, mma_k>(s, a, b, c, stream);  // warps of 64 x 32
  }
}

}  // namespace

void multiply_tiled(const Shape& s, const double* a, const double* b, double* c, int tile,
                    Mma shape, cudaStream_t stream) {
  switch (shape) {
    case Mma::m8n8k4: launch_tile<8, 4>(s, a, b, c, tile, stream); break;
    case Mma::m16n8k4: launch_tile<16, 4>(s, a, b, c, tile, stream); break;
    case Mma::m16n8k8: launch_tile<16, 8>(s, a, b, c, tile, stream); break;
    case Mma::m16n8k16: launch_tile<16, 16>(s, a, b, c, tile, stream); break;
  }
}

}  // namespace acclab::matmul::cuda
