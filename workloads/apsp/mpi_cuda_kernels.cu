// mpi_cuda's kernels: cuda_blocked's four (cuda_kernels.cu) on one rank's packed blocks
// (mpi_blocks.hpp), with the successors beside the distances where paths are kept. The rows and
// columns of a phase are local indices, the operands live in the panels and the diagonal's
// arrays that the ranks broadcast, a round may have fewer than `pivot` steps (the last, or a
// block under 64), and D relaxes a window of the blocks less the rows and columns it skips (the
// round's pivots, and lookahead's). The work is shaped as cuda_blocked's: A on one block, B a
// lane per column, C a warp per row, D in register tiles; every update uses the operands of its
// serial step, so the result is bitwise the serial loop's.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kit/cuda_check.hpp"
#include "workloads/apsp/cuda_kernels.hpp"

namespace acclab::apsp::cuda {
namespace {

constexpr int T = pivot;
constexpr unsigned all_lanes = 0xffffffffu;

// The serial loop's max / min (see cuda_kernels.cu: one instruction, the same bits on the values
// the matrix holds), and with paths the strict improvement that moves a successor (apsp.hpp).
template <bool max_plus>
__device__ __forceinline__ float relax(float now, float through) {
  return max_plus ? fmaxf(now, through) : fminf(now, through);
}
template <bool max_plus>
__device__ __forceinline__ bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}
template <bool max_plus>
__device__ __forceinline__ float none() {
  return max_plus ? -__int_as_float(0x7f800000) : __int_as_float(0x7f800000);
}
// One relaxation of x (and its successor) through `through` (successor nh).
template <bool max_plus, bool paths>
__device__ __forceinline__ void step(float& x, std::int32_t& next, float through, std::int32_t nh) {
  if constexpr (paths) {
    if (improves<max_plus>(x, through)) {
      x = through;
      next = nh;
    }
  } else {
    x = relax<max_plus>(x, through);
  }
}

// A: cuda_kernels.cu's pivot_tile on the m x m block at d (row stride ld): warp w on rows 2w and
// 2w + 1, its lanes on columns lane and lane + 32; row s goes through shared memory at step s,
// each row's column s by a shuffle.
constexpr int tile_warps = T / 2;
template <bool max_plus, bool paths>
__global__ void __launch_bounds__(tile_warps * 32)
    diagonal_tile(int m, int ld, float* d, std::int32_t* next, float* h_out, float* s_out,
                  std::int32_t* nh_out) {
  __shared__ float snap[T][T];                      // snap[s][c] = S[s][c]
  __shared__ float hist[T][T];                      // hist[s][r] = H[s][r]
  __shared__ std::int32_t nhist[paths ? T : 1][T];  // nhist[s][r] = NH[s][r]
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  float x[2][2];          // x[q][half]: row 2w + q, column lane + 32 half
  std::int32_t nx[2][2];  // their successors (paths)
#pragma unroll
  for (int q = 0; q < 2; ++q) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 2 * w + q, c = lane + 32 * half;
      const bool in = r < m && c < m;
      x[q][half] = in ? d[r * ld + c] : none<max_plus>();
      nx[q][half] = paths && in ? next[r * ld + c] : -1;
    }
  }
  for (int s = 0; s < m; ++s) {
    if (w == s / 2) {
      snap[s][lane] = s % 2 == 0 ? x[0][0] : x[1][0];
      snap[s][lane + 32] = s % 2 == 0 ? x[0][1] : x[1][1];
    }
    __syncthreads();
    const float v0 = snap[s][lane], v1 = snap[s][lane + 32];
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const float h = __shfl_sync(all_lanes, s < 32 ? x[q][0] : x[q][1], s % 32);
      std::int32_t nh = 0;
      if constexpr (paths) nh = __shfl_sync(all_lanes, s < 32 ? nx[q][0] : nx[q][1], s % 32);
      if (lane == 0) {
        hist[s][2 * w + q] = h;
        if constexpr (paths) nhist[s][2 * w + q] = nh;
      }
      step<max_plus, paths>(x[q][0], nx[q][0], h + v0, nh);
      step<max_plus, paths>(x[q][1], nx[q][1], h + v1, nh);
    }
  }
  __syncthreads();  // hist, nhist
#pragma unroll
  for (int q = 0; q < 2; ++q) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = 2 * w + q, c = lane + 32 * half;
      if (r < m && c < m) {
        d[r * ld + c] = x[q][half];
        // Row r of the operands, written along it: S's step r, and H's (NH's) step r.
        s_out[r * m + c] = snap[r][c];
        h_out[r * m + c] = hist[r][c];
        if constexpr (paths) {
          next[r * ld + c] = nx[q][half];
          nh_out[r * m + c] = nhist[r][c];
        }
      }
    }
  }
}

constexpr int warps = 8, rows_each_warp = T / warps;  // B and C: 256-thread blocks

// B: cuda_kernels.cu's pivot_rows on the m pivot rows at d (row stride ld, `cols` columns): a
// block per 32 columns, a lane per column, warp w holding rows 8w ... 8w + 7; row s goes through
// shared memory at step s (the row panel's step s for these columns).
template <bool max_plus, bool paths>
__global__ void __launch_bounds__(warps * 32)
    row_panel(int m, int cols, int ld, Range skip, float* d, std::int32_t* next, const float* h_in,
              const std::int32_t* nh_in, float* v_out) {
  __shared__ float h_kk[T][T + 1];  // h_kk[r][s] = H[s][r]; padded: stored down columns
  __shared__ std::int32_t nh_kk[paths ? T : 1][T + 1];
  __shared__ float snap[T][32];
  for (int e = threadIdx.x; e < T * T; e += blockDim.x) {
    const int a = e % T, b = e / T;  // consecutive threads, consecutive rows of H's step b
    const bool in = a < m && b < m;
    h_kk[a][b] = in ? h_in[b * m + a] : 0.0f;
    if constexpr (paths) nh_kk[a][b] = in ? nh_in[b * m + a] : -1;
  }
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32, first = w * rows_each_warp;
  const int j = blockIdx.x * 32 + lane;
  const bool active = j < cols && (j < skip.begin || j >= skip.end);
  float cur[rows_each_warp];
  std::int32_t succ[rows_each_warp];
#pragma unroll
  for (int q = 0; q < rows_each_warp; ++q) {
    const int r = first + q;
    const bool in = active && r < m;
    cur[q] = in ? d[r * ld + j] : 0.0f;
    succ[q] = paths && in ? next[r * ld + j] : -1;
  }
  __syncthreads();  // h_kk, nh_kk
  for (int s0 = 0; s0 < m; s0 += rows_each_warp) {
#pragma unroll
    for (int q0 = 0; q0 < rows_each_warp; ++q0) {
      const int s = s0 + q0;
      if (s >= m) break;  // the same for the whole block
      if (w == s0 / rows_each_warp) snap[s][lane] = cur[q0];
      __syncthreads();
      const float v = snap[s][lane];
#pragma unroll
      for (int q = 0; q < rows_each_warp; ++q) {
        std::int32_t nh = 0;
        if constexpr (paths) nh = nh_kk[first + q][s];
        step<max_plus, paths>(cur[q], succ[q], h_kk[first + q][s] + v, nh);
      }
    }
  }
  if (!active) return;
#pragma unroll
  for (int q = 0; q < rows_each_warp; ++q) {
    const int r = first + q;
    if (r < m) {
      v_out[r * cols + j] = snap[r][lane];
      d[r * ld + j] = cur[q];
      if constexpr (paths) next[r * ld + j] = succ[q];
    }
  }
}

// C: cuda_kernels.cu's pivot_columns on the m pivot columns at d (row stride ld, `rows` rows): a
// warp per row outside `skip`, its lanes on columns lane and lane + 32; step s takes the row's
// column s from the lane that holds it. H (and NH) go out through shared memory, a block's 8
// rows of a step together.
template <bool max_plus, bool paths>
__global__ void __launch_bounds__(warps * 32)
    column_panel(int m, int rows, int ld, Range skip, float* d, std::int32_t* next,
                 const float* s_in, float* h_out, std::int32_t* nh_out) {
  __shared__ float s_kk[T][T];  // s_kk[s][c] = S[s][c]
  __shared__ float h_rows[T][warps];
  __shared__ std::int32_t nh_rows[paths ? T : 1][warps];
  for (int e = threadIdx.x; e < T * T; e += blockDim.x) {
    const int a = e / T, b = e % T;
    s_kk[a][b] = a < m && b < m ? s_in[a * m + b] : 0.0f;
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const int i = blockIdx.x * warps + w;
  const bool active = i < rows && (i < skip.begin || i >= skip.end);
  if (active) {  // the same for the whole warp: its shuffles see every lane
    float* row = d + std::size_t(i) * ld;
    std::int32_t* next_row = paths ? next + std::size_t(i) * ld : nullptr;
    float low = lane < m ? row[lane] : 0.0f;
    float high = lane + 32 < m ? row[lane + 32] : 0.0f;
    std::int32_t next_low = -1, next_high = -1;
    if constexpr (paths) {
      if (lane < m) next_low = next_row[lane];
      if (lane + 32 < m) next_high = next_row[lane + 32];
    }
    for (int s = 0; s < m; ++s) {
      const float h = __shfl_sync(all_lanes, s < 32 ? low : high, s % 32);
      std::int32_t nh = 0;
      if constexpr (paths) nh = __shfl_sync(all_lanes, s < 32 ? next_low : next_high, s % 32);
      if (lane == 0) {
        h_rows[s][w] = h;
        if constexpr (paths) nh_rows[s][w] = nh;
      }
      step<max_plus, paths>(low, next_low, h + s_kk[s][lane], nh);
      step<max_plus, paths>(high, next_high, h + s_kk[s][lane + 32], nh);
    }
    if (lane < m) row[lane] = low;
    if (lane + 32 < m) row[lane + 32] = high;
    if constexpr (paths) {
      if (lane < m) next_row[lane] = next_low;
      if (lane + 32 < m) next_row[lane + 32] = next_high;
    }
  }
  __syncthreads();  // h_rows, nh_rows
  for (int e = threadIdx.x; e < T * warps; e += blockDim.x) {
    const int s = e / warps, x = e % warps, r = blockIdx.x * warps + x;
    if (s < m && r < rows && (r < skip.begin || r >= skip.end)) {
      h_out[s * rows + r] = h_rows[s][x];
      if constexpr (paths) nh_out[s * rows + r] = nh_rows[s][x];
    }
  }
}

// Whether [lo, hi) and `r` do not meet.
__device__ __forceinline__ bool apart(Range r, int lo, int hi) {
  return r.begin >= r.end || r.end <= lo || r.begin >= hi;
}

constexpr int side = 16;   // D: 16 x 16 threads
constexpr int slice = 32;  // steps of H and S staged in shared memory at a time

// D: cuda_kernels.cu's rest on a window: a block per tile of side * per_thread rows and
// columns, each thread per_thread x per_thread elements in registers (8 x 8; 4 x 4 with their
// successors as well), the panels' slices in shared memory. A tile inside the window, clear of
// the skipped rows and columns, on 16-byte lines and of whole slices loads and stores without
// tests, 16 bytes at a time: `lines` says the blocks and the row panel (their arrays and row
// stride) allow it, `h_lines` the column panel.
template <bool max_plus, bool paths>
__global__ void __launch_bounds__(side* side, 2)
    relax_window(int m, int ld, int h_ld, int v_ld, Range rows_w, Range skip_r, Range cols_w,
                 Range skip_c, bool lines, bool h_lines, float* __restrict__ d,
                 std::int32_t* __restrict__ next, const float* __restrict__ h_panel,
                 const float* __restrict__ v_panel, const std::int32_t* __restrict__ nh_panel) {
  constexpr int per_thread = paths ? 4 : 8, tile = side * per_thread, halves = per_thread / 4;
  __shared__ __align__(16) float hs[slice][tile];  // hs[s][row]: H transposed
  __shared__ __align__(16) float ss[slice][tile];  // ss[s][col]
  __shared__ __align__(16) std::int32_t ns[paths ? slice : 1][paths ? tile : 4];
  const int i0 = rows_w.begin + blockIdx.y * tile, j0 = cols_w.begin + blockIdx.x * tile;
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * side + tx;
  // Rows ty*4 + {0..3} (and tile/2 + ty*4 + {0..3}); columns likewise: 16-byte loads from shared.
  int rows[per_thread], cols[per_thread];
#pragma unroll
  for (int a = 0; a < per_thread; ++a) {
    rows[a] = i0 + (a / 4) * (tile / 2) + ty * 4 + a % 4;
    cols[a] = j0 + (a / 4) * (tile / 2) + tx * 4 + a % 4;
  }
  const bool clear = lines && j0 % 4 == 0 && m % slice == 0 && i0 + tile <= rows_w.end &&
                     j0 + tile <= cols_w.end && apart(skip_r, i0, i0 + tile) &&
                     apart(skip_c, j0, j0 + tile);
  const bool h_vector = clear && h_lines && i0 % 4 == 0;  // H's slices 16 bytes at a time
  // Row offsets in 64 bits (a rank's blocks may pass 2^31 elements), each computed where it is
  // used, as cuda_kernels.cu's rest does.
  float acc[per_thread][per_thread];
  std::int32_t succ[paths ? per_thread : 1][paths ? per_thread : 1];
  if (clear) {
#pragma unroll
    for (int a = 0; a < per_thread; ++a) {
#pragma unroll
      for (int half = 0; half < halves; ++half) {
        const std::int64_t at = std::int64_t(rows[a]) * ld + j0 + half * (tile / 2) + tx * 4;
        const float4 x = *reinterpret_cast<const float4*>(d + at);
        acc[a][4 * half] = x.x, acc[a][4 * half + 1] = x.y;
        acc[a][4 * half + 2] = x.z, acc[a][4 * half + 3] = x.w;
        if constexpr (paths) {
          const int4 y = *reinterpret_cast<const int4*>(next + at);
          succ[a][4 * half] = y.x, succ[a][4 * half + 1] = y.y;
          succ[a][4 * half + 2] = y.z, succ[a][4 * half + 3] = y.w;
        }
      }
    }
  } else {
#pragma unroll
    for (int a = 0; a < per_thread; ++a) {
#pragma unroll
      for (int b = 0; b < per_thread; ++b) {
        const bool in = rows[a] < rows_w.end && cols[b] < cols_w.end;
        acc[a][b] = in ? d[std::int64_t(rows[a]) * ld + cols[b]] : 0.0f;
        if constexpr (paths) succ[a][b] = in ? next[std::int64_t(rows[a]) * ld + cols[b]] : -1;
      }
    }
  }
  for (int s0 = 0; s0 < m; s0 += slice) {
    __syncthreads();  // the previous slice is no longer read
    if (clear) {
      for (int e = t; e < slice * tile / 4; e += side * side) {
        const int s = e / (tile / 4), x = e % (tile / 4) * 4, k = s0 + s;
        *reinterpret_cast<float4*>(&ss[s][x]) =
            *reinterpret_cast<const float4*>(&v_panel[k * v_ld + j0 + x]);
        if (h_vector) {
          *reinterpret_cast<float4*>(&hs[s][x]) =
              *reinterpret_cast<const float4*>(&h_panel[k * h_ld + i0 + x]);
          if constexpr (paths) {
            *reinterpret_cast<int4*>(&ns[s][x]) =
                *reinterpret_cast<const int4*>(&nh_panel[k * h_ld + i0 + x]);
          }
        } else {
#pragma unroll
          for (int y = 0; y < 4; ++y) {
            hs[s][x + y] = h_panel[k * h_ld + i0 + x + y];
            if constexpr (paths) ns[s][x + y] = nh_panel[k * h_ld + i0 + x + y];
          }
        }
      }
    } else {
      for (int e = t; e < slice * tile; e += side * side) {
        const int s = e / tile, x = e % tile, k = s0 + s;
        const int i = i0 + x, j = j0 + x;
        const bool row_in = k < m && i < rows_w.end;
        hs[s][x] = row_in ? h_panel[k * h_ld + i] : none<max_plus>();
        ss[s][x] = k < m && j < cols_w.end ? v_panel[k * v_ld + j] : none<max_plus>();
        if constexpr (paths) ns[s][x] = row_in ? nh_panel[k * h_ld + i] : -1;
      }
    }
    __syncthreads();
    // Past the round's last step (m not a whole number of slices) H and S are none(): the sum
    // is none() too, which changes no element (max, min; improves is strict).
#pragma unroll 4
    for (int s = 0; s < slice; ++s) {
      float h[per_thread], v[per_thread];
      std::int32_t nh[paths ? per_thread : 1];
#pragma unroll
      for (int half = 0; half < halves; ++half) {
        const float4 hq = *reinterpret_cast<const float4*>(&hs[s][half * (tile / 2) + ty * 4]);
        const float4 vq = *reinterpret_cast<const float4*>(&ss[s][half * (tile / 2) + tx * 4]);
        h[4 * half] = hq.x, h[4 * half + 1] = hq.y, h[4 * half + 2] = hq.z, h[4 * half + 3] = hq.w;
        v[4 * half] = vq.x, v[4 * half + 1] = vq.y, v[4 * half + 2] = vq.z, v[4 * half + 3] = vq.w;
        if constexpr (paths) {
          const int4 nq = *reinterpret_cast<const int4*>(&ns[s][half * (tile / 2) + ty * 4]);
          nh[4 * half] = nq.x, nh[4 * half + 1] = nq.y, nh[4 * half + 2] = nq.z;
          nh[4 * half + 3] = nq.w;
        }
      }
#pragma unroll
      for (int a = 0; a < per_thread; ++a) {
#pragma unroll
        for (int b = 0; b < per_thread; ++b) {
          if constexpr (paths) {
            step<max_plus, true>(acc[a][b], succ[a][b], h[a] + v[b], nh[a]);
          } else {
            acc[a][b] = relax<max_plus>(acc[a][b], h[a] + v[b]);
          }
        }
      }
    }
  }
  if (clear) {
#pragma unroll
    for (int a = 0; a < per_thread; ++a) {
#pragma unroll
      for (int half = 0; half < halves; ++half) {
        const std::int64_t at = std::int64_t(rows[a]) * ld + j0 + half * (tile / 2) + tx * 4;
        *reinterpret_cast<float4*>(d + at) = make_float4(
            acc[a][4 * half], acc[a][4 * half + 1], acc[a][4 * half + 2], acc[a][4 * half + 3]);
        if constexpr (paths) {
          *reinterpret_cast<int4*>(next + at) =
              make_int4(succ[a][4 * half], succ[a][4 * half + 1], succ[a][4 * half + 2],
                        succ[a][4 * half + 3]);
        }
      }
    }
    return;
  }
#pragma unroll
  for (int a = 0; a < per_thread; ++a) {
    const bool row_ok = rows[a] < rows_w.end && (rows[a] < skip_r.begin || rows[a] >= skip_r.end);
#pragma unroll
    for (int b = 0; b < per_thread; ++b) {
      if (row_ok && cols[b] < cols_w.end && (cols[b] < skip_c.begin || cols[b] >= skip_c.end)) {
        d[std::int64_t(rows[a]) * ld + cols[b]] = acc[a][b];
        if constexpr (paths) next[std::int64_t(rows[a]) * ld + cols[b]] = succ[a][b];
      }
    }
  }
}

// The kernels above for the run's semiring and paths.
// (`launch` takes std::true_type / std::false_type for each: CUDA is compiled as C++17.)
template <class Launch>
void dispatch(bool max_plus, bool paths, Launch&& launch) {
  using yes = std::true_type;
  using no = std::false_type;
  if (max_plus && paths) launch(yes{}, yes{});
  if (max_plus && !paths) launch(yes{}, no{});
  if (!max_plus && paths) launch(no{}, yes{});
  if (!max_plus && !paths) launch(no{}, no{});
}

bool on_lines(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

}  // namespace

void local_diagonal(bool max_plus, const LocalBlocks& b, int m, int r0, int c0,
                    const DiagonalOperands& out, cudaStream_t stream) {
  const std::size_t at = std::size_t(r0) * b.cols + c0;
  float* d = b.d + at;
  std::int32_t* next = b.next ? b.next + at : nullptr;
  dispatch(max_plus, b.next != nullptr, [&](auto mp, auto paths) {
    diagonal_tile<decltype(mp)::value, decltype(paths)::value>
        <<<1, tile_warps * 32, 0, stream>>>(m, b.cols, d, next, out.h, out.s, out.nh);
  });
  CUDA_CHECK_LAUNCH();
}

void local_row_panel(bool max_plus, const LocalBlocks& b, int m, int r0, Range skip,
                     const DiagonalOperands& in, const PanelSlot& out, cudaStream_t stream) {
  const std::size_t at = std::size_t(r0) * b.cols;
  float* d = b.d + at;
  std::int32_t* next = b.next ? b.next + at : nullptr;
  dispatch(max_plus, b.next != nullptr, [&](auto mp, auto paths) {
    row_panel<decltype(mp)::value, decltype(paths)::value>
        <<<(b.cols + 31) / 32, warps * 32, 0, stream>>>(m, b.cols, b.cols, skip, d, next, in.h,
                                                        in.nh, out.v);
  });
  CUDA_CHECK_LAUNCH();
}

void local_column_panel(bool max_plus, const LocalBlocks& b, int m, int c0, Range skip,
                        const DiagonalOperands& in, const PanelSlot& out, cudaStream_t stream) {
  float* d = b.d + c0;
  std::int32_t* next = b.next ? b.next + c0 : nullptr;
  dispatch(max_plus, b.next != nullptr, [&](auto mp, auto paths) {
    column_panel<decltype(mp)::value, decltype(paths)::value>
        <<<(b.rows + warps - 1) / warps, warps * 32, 0, stream>>>(m, b.rows, b.cols, skip, d, next,
                                                                  in.s, out.h, out.nh);
  });
  CUDA_CHECK_LAUNCH();
}

void local_relax(bool max_plus, const LocalBlocks& b, int m, Range rows, Range skip_rows,
                 Range cols, Range skip_cols, const PanelSlot& in, cudaStream_t stream) {
  if (rows.begin >= rows.end || cols.begin >= cols.end) return;
  const bool paths = b.next != nullptr;
  // The strides and the arrays on 16-byte lines (the tiles' own offsets are the kernel's test).
  const bool lines =
      b.cols % 4 == 0 && on_lines(b.d) && on_lines(in.v) && (!paths || on_lines(b.next));
  const bool h_lines = b.rows % 4 == 0 && on_lines(in.h) && (!paths || on_lines(in.nh));
  dispatch(max_plus, paths, [&](auto mp, auto with_paths) {
    constexpr bool keep = decltype(with_paths)::value;
    constexpr int tile = side * (keep ? 4 : 8);
    const dim3 grid((cols.end - cols.begin + tile - 1) / tile,
                    (rows.end - rows.begin + tile - 1) / tile);
    relax_window<decltype(mp)::value, keep><<<grid, dim3(side, side), 0, stream>>>(
        m, b.cols, b.rows, b.cols, rows, skip_rows, cols, skip_cols, lines, h_lines, b.d, b.next,
        in.h, in.v, in.nh);
  });
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::apsp::cuda
