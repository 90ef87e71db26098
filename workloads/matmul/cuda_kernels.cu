// C = A B on FP64 tensor cores. A block computes a block_m x block_n tile of C; each k step
// stages a block_k slice of A and of B in shared memory, padded so that the fragment loads below
// are free of bank conflicts. Each warp owns a warp_m x warp_n piece of the tile as
// accumulators of one FP64 MMA shape (mma.sync .f64, the instructions cuBLAS's DGEMM also runs
// on: Hopper has no FP64 wgmma): m8n8k4 (Ampere's DMMA: each lane
// holds one element of A's 8x4 fragment, one of B's 4x8 and two of the 8x8 result), or
// Hopper's m16n8k4, m16n8k8 and m16n8k16 (PTX ISA 7.8, sm_90), whose fragments stack the same
// lane pattern: A's element (group + 8 r, in_group + 4 c) is register 2c + r, B's
// (in_group + 4 c, group) register c, C's rows group and group + 8. The slices go
// from global to shared memory by cp.async, `stages` of them in flight, so that the copies of
// later slices overlap the multiplication of the current one without passing through registers
// (cuBLAS pipelines its copies the same way). Edges: out-of-range elements are loaded as zeros
// and never stored, so any m, n, k and leading dimension works.
// m16n8k4 on 64 x 64 tiles of 4 warps, 3 slices of 16 in flight, is the default: the fastest
// on the H200 (bench/results/h200/matmul/NOTES.md).
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "kit/cuda_check.hpp"
#include "workloads/matmul/cuda_kernels.hpp"

namespace acclab::matmul::cuda {
namespace {

constexpr int pad = 4;  // doubles added to each shared row: lanes 0-15 of a fragment load hit
                        // 16 distinct bank pairs, and rows stay 16-byte aligned

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

// cp.async copies global memory straight into shared memory, without registers: `bytes` of
// the `size` at `from` are copied and the rest zero-filled, which is how the edges load zeros.
template <int size>
__device__ __forceinline__ void copy_async(double* to, const double* from, int bytes) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  if constexpr (size == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared), "l"(from),
                 "r"(bytes));
  } else {
    static_assert(size == 8);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" ::"r"(shared), "l"(from),
                 "r"(bytes));
  }
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;"); }
template <int pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;" ::"n"(pending));
}

template <int block_m, int block_n, int block_k>
constexpr int stage_doubles = block_m * (block_k + pad) + block_k * (block_n + pad);

// `stages` slices in flight: slice t + stages - 1 is copied while slice t is multiplied, and one
// barrier a slice both publishes slice t and frees the buffer that slice t + stages - 1 reuses.
// A is kept row-major in shared memory (cp.async cannot transpose); with rows of block_k + pad
// doubles a fragment's half-warp still reads 16 distinct bank pairs. `pairs`: copies of 16
// bytes (two doubles; needs even leading dimensions and 16-byte aligned matrices), else of 8.
template <int block_m, int block_n, int warps_m, int warps_n, int mma_m, int mma_k, int block_k,
          int stages, bool pairs>
__global__ void __launch_bounds__(32 * warps_m* warps_n)
    tiled_kernel(Shape s, const double* __restrict__ a, const double* __restrict__ b,
                 double* __restrict__ c, int first_column_block) {
  constexpr int threads = 32 * warps_m * warps_n;
  constexpr int warp_m = block_m / warps_m, warp_n = block_n / warps_n;
  constexpr int tiles_m = warp_m / mma_m, tiles_n = warp_n / 8;
  constexpr int a_regs = mma_m * mma_k / 32, b_regs = mma_k / 4, d_regs = mma_m / 4;
  constexpr int width = pairs ? 2 : 1;  // doubles a copy
  constexpr int copies_a = block_m * block_k / width / threads;
  constexpr int copies_b = block_k * block_n / width / threads;
  constexpr int a_row = block_k + pad, b_row = block_n + pad;
  static_assert(copies_a * width * threads == block_m * block_k &&
                copies_b * width * threads == block_k * block_n);
  static_assert(block_k % mma_k == 0 && warp_m % mma_m == 0 && stages >= 2);

  extern __shared__ double shared[];  // stages x (A's slice as[i][q], then B's bs[q][j])
  auto as = [&](int stage) { return shared + stage * stage_doubles<block_m, block_n, block_k>; };
  auto bs = [&](int stage) { return as(stage) + block_m * a_row; };

  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int group = lane / 4, in_group = lane % 4;  // the fragment coordinates
  const int m0 = blockIdx.x * block_m, n0 = (first_column_block + blockIdx.y) * block_n;
  const int wm0 = (warp / warps_n) * warp_m, wn0 = (warp % warps_n) * warp_n;

  // Queues the copies of slice k0 into `stage`; out-of-range doubles are zero-filled.
  auto load = [&](int stage, int k0) {
    double* const to_a = as(stage);
#pragma unroll
    for (int l = 0; l < copies_a; ++l) {
      const int e = (t + l * threads) * width, row = e / block_k, q = e % block_k;
      const int i = m0 + row, kq = k0 + q;
      const int valid = i < s.m ? max(0, min(width, s.k - kq)) : 0;
      copy_async<8 * width>(to_a + row * a_row + q, valid ? a + i * s.lda + kq : a, 8 * valid);
    }
    double* const to_b = bs(stage);
#pragma unroll
    for (int l = 0; l < copies_b; ++l) {
      const int e = (t + l * threads) * width, q = e / block_n, col = e % block_n;
      const int kq = k0 + q, j = n0 + col;
      const int valid = kq < s.k ? max(0, min(width, s.n - j)) : 0;
      copy_async<8 * width>(to_b + q * b_row + col, valid ? b + kq * s.ldb + j : b, 8 * valid);
    }
  };

  double acc[tiles_m][tiles_n][d_regs] = {};
  const int slices = (s.k + block_k - 1) / block_k;
#pragma unroll
  for (int st = 0; st < stages - 1; ++st) {
    if (st < slices) load(st, st * block_k);
    commit_copies();  // a group even when empty, so that the waits below count slices
  }
  for (int slice = 0; slice < slices; ++slice) {
    wait_copies<stages - 2>();  // this thread's copies of `slice` have landed
    __syncthreads();            // everyone's have, and `slice - 1`'s buffer is free
    const int next = slice + stages - 1;
    if (next < slices) load(next % stages, next * block_k);
    commit_copies();
    const double* const sa = as(slice % stages);
    const double* const sb = bs(slice % stages);
#pragma unroll
    for (int kk = 0; kk < block_k; kk += mma_k) {
      double fa[tiles_m][a_regs], fb[tiles_n][b_regs];
#pragma unroll
      for (int x = 0; x < tiles_m; ++x) {
#pragma unroll
        for (int r = 0; r < a_regs; ++r) {
          fa[x][r] = sa[(wm0 + x * mma_m + group + 8 * (r % 2)) * a_row + kk + in_group +
                        4 * (r / 2)];
        }
      }
#pragma unroll
      for (int y = 0; y < tiles_n; ++y) {
#pragma unroll
        for (int r = 0; r < b_regs; ++r) {
          fb[y][r] = sb[(kk + in_group + 4 * r) * b_row + wn0 + y * 8 + group];
        }
      }
#pragma unroll
      for (int x = 0; x < tiles_m; ++x) {
#pragma unroll
        for (int y = 0; y < tiles_n; ++y) mma<mma_m, mma_k>(acc[x][y], fa[x], fb[y]);
      }
    }
  }
  wait_copies<0>();  // no copy may still be writing shared memory when the block exits

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

template <int value>
using Int = std::integral_constant<int, value>;

// Calls f(Int<v>{}) for the v among `choices` that equals `value` (validated before: none is an
// error of the caller).
template <int... choices, class F>
void dispatch(int value, const char* what, F&& f) {
  if (!((value == choices && (f(Int<choices>{}), true)) || ...)) {
    throw std::invalid_argument(fmt::format("matmul cuda_tiled: {} {} not built", what, value));
  }
}

template <int block_m, int block_n, int warps_m, int warps_n, int mma_m, int mma_k, int block_k,
          int stages, bool pairs>
void launch(const Shape& s, const double* a, const double* b, double* c, cudaStream_t stream) {
  const auto kernel =
      tiled_kernel<block_m, block_n, warps_m, warps_n, mma_m, mma_k, block_k, stages, pairs>;
  constexpr int bytes = stages * stage_doubles<block_m, block_n, block_k> * int(sizeof(double));
  static_assert(bytes == shared_bytes(Tiling{block_m, warps_m * warps_n, Mma{}, block_k, stages}));
  // Above 48 KB a kernel must ask for its dynamic shared memory; once per kernel.
  static const bool allowed = [&] {
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)allowed;
  // Row blocks along x (up to 2^31 - 1 of them), column blocks along y in launches of at most
  // 65535.
  const int row_blocks = (s.m + block_m - 1) / block_m;
  const int column_blocks = (s.n + block_n - 1) / block_n;
  for (int first = 0; first < column_blocks; first += 65535) {
    const dim3 grid(row_blocks, std::min(65535, column_blocks - first));
    kernel<<<grid, 32 * warps_m * warps_n, bytes, stream>>>(s, a, b, c, first);
    CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void multiply_tiled(const Shape& s, const double* a, const double* b, double* c, const Tiling& t,
                    cudaStream_t stream) {
  const auto aligned = [](const double* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool pairs = s.lda % 2 == 0 && s.ldb % 2 == 0 && aligned(a) && aligned(b);
  dispatch<0, 1, 2, 3>(int(t.shape), "MMA shape", [&](auto shape) {
    constexpr int mma_m = shape == int(Mma::m8n8k4) ? 8 : 16;
    constexpr int mma_k = shape == int(Mma::m16n8k8) ? 8 : shape == int(Mma::m16n8k16) ? 16 : 4;
    dispatch<64, 128>(t.tile, "tile", [&](auto tile) {
      dispatch<4, 8, 16>(t.warps, "warps", [&](auto warps) {
        constexpr int warps_m = warps == 16 ? 4 : 2, warps_n = warps / warps_m;
        if constexpr (!(tile == 128 && warps == 4)) {  // 128 doubles of C a lane: refused
          dispatch<16, 32>(t.slice, "slice", [&](auto slice) {
            dispatch<2, 3, 4>(t.stages, "stages", [&](auto stages) {
              if (pairs) {
                launch<tile, tile, warps_m, warps_n, mma_m, mma_k, slice, stages, true>(s, a, b, c,
                                                                                      stream);
              } else {
                launch<tile, tile, warps_m, warps_n, mma_m, mma_k, slice, stages, false>(s, a, b,
                                                                                       c, stream);
              }
            });
          });
        } else {
          throw std::invalid_argument("matmul cuda_tiled: 4 warps on 128-wide tiles not built");
        }
      });
    });
  });
}

}  // namespace acclab::matmul::cuda
