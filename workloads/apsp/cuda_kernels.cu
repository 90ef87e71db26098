// Blocked Floyd-Warshall whose every update uses the values the serial loop uses, so that the
// result is bitwise the serial one (apsp.hpp). For each round of `pivot` steps K = [kb, kb+T):
//   A  the pivot tile K x K, one block, one step at a time: records H[r][s] = d[kb+r][kb+s]
//      and S[s][c] = d[kb+s][kb+c] as they were before step kb+s;
//   B  the pivot rows K x (columns outside K), a lane per column: with A's H, each column
//      steps its T values in order and records S[s][j] = d[kb+s][j] before step kb+s;
//   C  the pivot columns (rows outside K) x K, a warp per row, the same with A's S,
//      recording H[i][s] = d[i][kb+s] before step kb+s;
// A and B need only the pivot rows, C and D only S and the slab's own rows, so a GPU holding a
// slab of rows needs, per round, nothing from the others but S (cuda_blocked_multi).
//   D  everything else: d[i][j] = relax over s in order of H[i][s] + S[s][j], a (max, +)
//      product of an n x T and a T x n panel: 128 x 128 tiles, 8 x 8 elements per thread in
//      registers, the panels' slices in shared memory (RestShape: the slice, and the blocks a
//      multiprocessor its launch bounds ask for).
// H and S are exactly d[i][k] and d[k][j] after steps < k, the operands of serial step k.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "kit/cuda_check.hpp"
#include "workloads/apsp/cuda_kernels.hpp"

namespace acclab::apsp::cuda {
namespace {

constexpr int T = pivot;

// The serial loop's std::max / std::min as one instruction (FMNMX; the comparison and select
// took two, on the ALU pipe that bounded the tile kernel). They could differ for a NaN `now`,
// which the matrix never holds (a NaN sum, inf + -inf on an overflowing graph, can only be
// `through`, and both forms then keep `now`), and for -0 against +0, which initial_matrix keeps
// out of the matrix.
template <bool max_plus>
__device__ __forceinline__ float relax(float now, float through) {
  return max_plus ? fmaxf(now, through) : fminf(now, through);
}

template <bool max_plus>
__device__ __forceinline__ float none() {
  return max_plus ? -__int_as_float(0x7f800000) : __int_as_float(0x7f800000);
}

// A, B and C step 64 values through 64 dependent steps each; spread over a warp or a block, a
// step's latency is a shuffle or a barrier, where one thread stepping all 64 values runs the
// whole chain on a handful of blocks while the rest of the device waits.
constexpr unsigned all_lanes = 0xffffffffu;
constexpr int tile_warps = T / 2;  // A: a warp per two rows of the pivot tile

// A: the pivot tile in one block, warp w on rows 2w and 2w + 1, its lanes on columns c and
// c + 32. At step s the warp holding row s puts it in shared memory (S's step s); after a
// barrier each row takes its column s (H's) by a shuffle from the lane that holds it.
template <bool max_plus>
__global__ void __launch_bounds__(tile_warps * 32)
    pivot_tile(int n, int kb, int r0, float* d, float* history, float* snapshot) {
  __shared__ float snap[T][T];  // snap[s][c] = S[s][kb + c]
  __shared__ float hist[T][T];  // hist[s][r] = H[kb + r][s]
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32, rounds = min(T, n - kb);
  float x[2][2];  // x[q][half]: row 2w + q, column lane + 32 half
#pragma unroll
  for (int q = 0; q < 2; ++q) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 2 * w + q, c = lane + 32 * half;
      x[q][half] =
          r < rounds && c < rounds ? d[std::size_t(kb + r - r0) * n + kb + c] : none<max_plus>();
    }
  }
  for (int s = 0; s < rounds; ++s) {
    if (w == s / 2) {
      snap[s][lane] = s % 2 == 0 ? x[0][0] : x[1][0];
      snap[s][lane + 32] = s % 2 == 0 ? x[0][1] : x[1][1];
    }
    __syncthreads();
    const float v0 = snap[s][lane], v1 = snap[s][lane + 32];
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const float h = __shfl_sync(all_lanes, s < 32 ? x[q][0] : x[q][1], s % 32);
      if (lane == 0) hist[s][2 * w + q] = h;
      x[q][0] = relax<max_plus>(x[q][0], h + v0);
      x[q][1] = relax<max_plus>(x[q][1], h + v1);
    }
  }
  __syncthreads();  // hist
#pragma unroll
  for (int q = 0; q < 2; ++q) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 2 * w + q, c = lane + 32 * half;
      if (r < rounds && c < rounds) {
        d[std::size_t(kb + r - r0) * n + kb + c] = x[q][half];
        // Row r of these arrays, written along it: S's step r, and H's step r.
        snapshot[r * n + kb + c] = snap[r][c];
        history[r * n + kb + c] = hist[r][c];
      }
    }
  }
}

constexpr int warps = 8, rows_each_warp = T / warps;  // B and C: 256-thread blocks

// B: a block per 32 columns outside K of the pivot rows (on the slab that holds them), a lane
// per column, warp w holding rows w * 8 ... w * 8 + 7 of it. At step s the warp holding row s
// puts it in shared memory (S[s] for these columns), and after a barrier every row takes it.
template <bool max_plus>
__global__ void __launch_bounds__(warps * 32)
    pivot_rows(int n, int kb, int r0, float* d, const float* history, float* snapshot) {
  __shared__ float h_kk[T][T + 1];  // h_kk[r][s] = H[kb + r][s]; padded: stored down columns
  __shared__ float snap[T][32];
  const int rounds = min(T, n - kb);
  for (int e = threadIdx.x; e < T * T; e += blockDim.x) {
    const int a = e % T, b = e / T;  // consecutive threads, consecutive rows of H's step b
    h_kk[a][b] = a < rounds && b < rounds ? history[b * n + kb + a] : 0.0f;
  }
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32, first = w * rows_each_warp;
  const int j = blockIdx.x * 32 + lane;
  const bool active = j < n && (j < kb || j >= kb + T);
  float cur[rows_each_warp];
#pragma unroll
  for (int q = 0; q < rows_each_warp; ++q) {
    const int r = first + q;
    cur[q] = active && r < rounds ? d[std::size_t(kb + r - r0) * n + j] : 0.0f;
  }
  __syncthreads();  // h_kk
  for (int s0 = 0; s0 < rounds; s0 += rows_each_warp) {
#pragma unroll
    for (int q0 = 0; q0 < rows_each_warp; ++q0) {
      const int s = s0 + q0;
      if (s >= rounds) break;  // the same for the whole block
      if (w == s0 / rows_each_warp) snap[s][lane] = cur[q0];
      __syncthreads();
      const float v = snap[s][lane];
#pragma unroll
      for (int q = 0; q < rows_each_warp; ++q) {
        cur[q] = relax<max_plus>(cur[q], h_kk[first + q][s] + v);
      }
    }
  }
  if (!active) return;
#pragma unroll
  for (int q = 0; q < rows_each_warp; ++q) {
    const int r = first + q;
    if (r < rounds) {
      snapshot[r * n + j] = snap[r][lane];
      d[std::size_t(kb + r - r0) * n + j] = cur[q];
    }
  }
}

// C: a warp per row i in [r0, r1) outside K, its lanes on columns kb + lane and kb + 32 + lane;
// step s takes the row's value in column kb + s from the lane that holds it. H goes out
// through shared memory, a block's 8 rows of a step together.
template <bool max_plus>
__global__ void __launch_bounds__(warps * 32)
    pivot_columns(int n, int kb, int r0, int r1, float* d, float* history, const float* snapshot) {
  __shared__ float s_kk[T][T];  // s_kk[s][c] = S[s][kb + c]
  __shared__ float h_out[T][warps];
  const int rounds = min(T, n - kb);
  for (int e = threadIdx.x; e < T * T; e += blockDim.x) {
    const int a = e / T, b = e % T;
    s_kk[a][b] = a < rounds && b < rounds ? snapshot[a * n + kb + b] : 0.0f;
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int i = r0 + blockIdx.x * warps + w;
  const bool active = i < r1 && (i < kb || i >= kb + T);
  if (active) {
    float* row = d + std::size_t(i - r0) * n + kb;
    float low = lane < rounds ? row[lane] : 0.0f;
    float high = lane + 32 < rounds ? row[lane + 32] : 0.0f;
    for (int s = 0; s < rounds; ++s) {
      const float h = __shfl_sync(all_lanes, s < 32 ? low : high, s % 32);
      if (lane == 0) h_out[s][w] = h;
      low = relax<max_plus>(low, h + s_kk[s][lane]);
      high = relax<max_plus>(high, h + s_kk[s][lane + 32]);
    }
    if (lane < rounds) row[lane] = low;
    if (lane + 32 < rounds) row[lane + 32] = high;
  }
  __syncthreads();  // h_out
  for (int e = threadIdx.x; e < T * warps; e += blockDim.x) {
    const int s = e / warps, x = e % warps, row = r0 + blockIdx.x * warps + x;
    if (s < rounds && row < r1 && (row < kb || row >= kb + T)) history[s * n + row] = h_out[s][x];
  }
}

constexpr int tile = 128, per_thread = 8, side = tile / per_thread;  // 16 x 16 threads

// D: one 128 x 128 tile of d per block; H's rows and S's columns of the tile in shared memory,
// `slice` steps at a time (a divisor of T), at least `min_blocks` blocks a multiprocessor.
template <bool max_plus, int slice, int min_blocks>
__global__ void __launch_bounds__(side* side, min_blocks)
    rest(int n, int kb, int r0, int r1, float* __restrict__ d, const float* __restrict__ history,
         const float* __restrict__ snapshot) {
  static_assert(T % slice == 0);
  __shared__ __align__(16) float hs[slice][tile];  // hs[s][row]: H transposed
  __shared__ __align__(16) float ss[slice][tile];  // ss[s][col]
  const int i0 = r0 + blockIdx.y * tile, j0 = blockIdx.x * tile;
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * side + tx;
  const int rounds = min(T, n - kb);
  // Rows ty*4 + {0..3} and 64 + ty*4 + {0..3}; columns likewise: float4 loads from shared.
  int rows[per_thread], cols[per_thread];
#pragma unroll
  for (int a = 0; a < per_thread; ++a) {
    rows[a] = i0 + (a / 4) * (tile / 2) + ty * 4 + a % 4;
    cols[a] = j0 + (a / 4) * (tile / 2) + tx * 4 + a % 4;
  }
  // Most tiles lie inside the slab, clear of the pivot rows and columns: with rows of a multiple
  // of 4 floats and a whole round, their loads and stores need no tests and go 16 bytes at a
  // time (otherwise the tests and addresses are a fifth of the instructions:
  // bench/results/h200/apsp/NOTES.md).
  const bool clear = i0 + tile <= r1 && j0 + tile <= n && n % 4 == 0 && rounds == T &&
                     (kb + T <= i0 || kb >= i0 + tile) && (kb + T <= j0 || kb >= j0 + tile);
  // Row offsets in 64 bits (the slab may pass 2^31 elements: apsp.hpp's wide_steps), each
  // computed where it is used: a tile's corner kept as a 64-bit pointer spills across the loop.
  float acc[per_thread][per_thread];
  if (clear) {
#pragma unroll
    for (int a = 0; a < per_thread; ++a) {
      const float* row = d + std::int64_t(rows[a] - r0) * n + j0 + tx * 4;
      const float4 low = *reinterpret_cast<const float4*>(row);
      const float4 high = *reinterpret_cast<const float4*>(row + tile / 2);
      acc[a][0] = low.x, acc[a][1] = low.y, acc[a][2] = low.z, acc[a][3] = low.w;
      acc[a][4] = high.x, acc[a][5] = high.y, acc[a][6] = high.z, acc[a][7] = high.w;
    }
  } else {
#pragma unroll
    for (int a = 0; a < per_thread; ++a) {
#pragma unroll
      for (int b = 0; b < per_thread; ++b) {
        acc[a][b] =
            rows[a] < r1 && cols[b] < n ? d[std::int64_t(rows[a] - r0) * n + cols[b]] : 0.0f;
      }
    }
  }
  for (int s0 = 0; s0 < T; s0 += slice) {
    __syncthreads();  // the previous slice is no longer read
    if (clear) {
      for (int e = t; e < slice * tile / 4; e += side * side) {
        const int s = e / (tile / 4), x = e % (tile / 4) * 4, k = s0 + s;
        *reinterpret_cast<float4*>(&hs[s][x]) =
            *reinterpret_cast<const float4*>(&history[k * n + i0 + x]);
        *reinterpret_cast<float4*>(&ss[s][x]) =
            *reinterpret_cast<const float4*>(&snapshot[k * n + j0 + x]);
      }
    } else {
      for (int e = t; e < slice * tile; e += side * side) {
        const int s = e / tile, x = e % tile, k = s0 + s;
        const int i = i0 + x, j = j0 + x;
        hs[s][x] = k < rounds && i < r1 ? history[k * n + i] : none<max_plus>();
        ss[s][x] = k < rounds && j < n ? snapshot[k * n + j] : none<max_plus>();
      }
    }
    __syncthreads();
#pragma unroll 4
    for (int s = 0; s < slice; ++s) {
      const float4 h0 = *reinterpret_cast<const float4*>(&hs[s][ty * 4]);
      const float4 h1 = *reinterpret_cast<const float4*>(&hs[s][tile / 2 + ty * 4]);
      const float4 v0 = *reinterpret_cast<const float4*>(&ss[s][tx * 4]);
      const float4 v1 = *reinterpret_cast<const float4*>(&ss[s][tile / 2 + tx * 4]);
      const float h[per_thread] = {h0.x, h0.y, h0.z, h0.w, h1.x, h1.y, h1.z, h1.w};
      const float v[per_thread] = {v0.x, v0.y, v0.z, v0.w, v1.x, v1.y, v1.z, v1.w};
#pragma unroll
      for (int a = 0; a < per_thread; ++a) {
#pragma unroll
        for (int b = 0; b < per_thread; ++b) acc[a][b] = relax<max_plus>(acc[a][b], h[a] + v[b]);
      }
    }
  }
  if (clear) {
#pragma unroll
    for (int a = 0; a < per_thread; ++a) {
      float* row = d + std::int64_t(rows[a] - r0) * n + j0 + tx * 4;
      *reinterpret_cast<float4*>(row) = make_float4(acc[a][0], acc[a][1], acc[a][2], acc[a][3]);
      *reinterpret_cast<float4*>(row + tile / 2) =
          make_float4(acc[a][4], acc[a][5], acc[a][6], acc[a][7]);
    }
    return;
  }
#pragma unroll
  for (int a = 0; a < per_thread; ++a) {
    const bool row_ok = rows[a] < r1 && (rows[a] < kb || rows[a] >= kb + T);
#pragma unroll
    for (int b = 0; b < per_thread; ++b) {
      if (row_ok && cols[b] < n && (cols[b] < kb || cols[b] >= kb + T)) {
        d[std::int64_t(rows[a] - r0) * n + cols[b]] = acc[a][b];
      }
    }
  }
}

template <bool max_plus>
void pivot_round(int n, int kb, const Slab& slab, cudaStream_t stream) {
  pivot_tile<max_plus><<<1, tile_warps * 32, 0, stream>>>(n, kb, slab.row_begin, slab.d,
                                                          slab.history, slab.snapshot);
  CUDA_CHECK_LAUNCH();
  pivot_rows<max_plus><<<(n + 31) / 32, warps * 32, 0, stream>>>(n, kb, slab.row_begin, slab.d,
                                                                 slab.history, slab.snapshot);
  CUDA_CHECK_LAUNCH();
}

template <bool max_plus, int slice, int min_blocks>
void launch_rest(int n, int kb, const Slab& slab, int rows, cudaStream_t stream) {
  const dim3 grid((n + tile - 1) / tile, (rows + tile - 1) / tile);
  rest<max_plus, slice, min_blocks><<<grid, dim3(side, side), 0, stream>>>(
      n, kb, slab.row_begin, slab.row_end, slab.d, slab.history, slab.snapshot);
  CUDA_CHECK_LAUNCH();
}

// The instantiation for shape.min_blocks (1, 2 or 3; the step's check refused the others).
template <bool max_plus, int slice>
void launch_rest_with(int n, int kb, const Slab& slab, int rows, cudaStream_t stream,
                      int min_blocks) {
  switch (min_blocks) {
    case 1:
      return launch_rest<max_plus, slice, 1>(n, kb, slab, rows, stream);
    case 3:
      return launch_rest<max_plus, slice, 3>(n, kb, slab, rows, stream);
    default:
      return launch_rest<max_plus, slice, 2>(n, kb, slab, rows, stream);
  }
}

template <bool max_plus>
void rest_round(int n, int kb, const Slab& slab, cudaStream_t stream, RestShape shape) {
  const int rows = slab.row_end - slab.row_begin;
  if (rows <= 0) return;
  pivot_columns<max_plus><<<(rows + warps - 1) / warps, warps * 32, 0, stream>>>(
      n, kb, slab.row_begin, slab.row_end, slab.d, slab.history, slab.snapshot);
  CUDA_CHECK_LAUNCH();
  switch (shape.slice) {
    case 8:
      return launch_rest_with<max_plus, 8>(n, kb, slab, rows, stream, shape.min_blocks);
    case 16:
      return launch_rest_with<max_plus, 16>(n, kb, slab, rows, stream, shape.min_blocks);
    default:
      return launch_rest_with<max_plus, 32>(n, kb, slab, rows, stream, shape.min_blocks);
  }
}

}  // namespace

void pivot_round(int n, bool max_plus, int kb, const Slab& slab, cudaStream_t stream) {
  if (max_plus) {
    pivot_round<true>(n, kb, slab, stream);
  } else {
    pivot_round<false>(n, kb, slab, stream);
  }
}

void rest_round(int n, bool max_plus, int kb, const Slab& slab, cudaStream_t stream,
                RestShape shape) {
  if (max_plus) {
    rest_round<true>(n, kb, slab, stream, shape);
  } else {
    rest_round<false>(n, kb, slab, stream, shape);
  }
}

void floyd_warshall_blocked(int n, bool max_plus, float* d, float* history, float* snapshot,
                            cudaStream_t stream, RestShape shape) {
  const Slab whole{0, n, d, history, snapshot};
  for (int kb = 0; kb < n; kb += pivot) {
    pivot_round(n, max_plus, kb, whole, stream);
    rest_round(n, max_plus, kb, whole, stream, shape);
  }
}

}  // namespace acclab::apsp::cuda
