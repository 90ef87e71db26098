// Beyond the seed, the step after cuda: temporal blocking. One pass through memory does several
// sweeps: a block loads its tile of the grid with one point of halo per sweep into shared
// memory, sweeps it there again and again (each sweep's valid region one point smaller), and
// stores only the last. DRAM carries each point in and out once per pass, so the
// one-sweep-per-pass limit (8 bytes a point a sweep) can be passed; the halos are read again by
// the neighbouring blocks, mostly from L2, and swept redundantly.
#include "kit/cuda_check.hpp"
#include "kit/cuda_profile.hpp"
#include "workloads/jacobi2d/cuda_kernels.hpp"

namespace acclab::jacobi2d::cuda {
namespace {

// A tile of 32 x 128 points out, 256 threads: a warp's lanes along a row, so that loads and
// stores are coalesced and shared memory free of bank conflicts.
constexpr int tile_rows = 32;
constexpr int tile_cols = 128;
constexpr int threads_x = 32;
constexpr int threads_y = 8;

__device__ __forceinline__ float jacobi_point(const Coefficients& c, float up, float down,
                                              float left, float right) {
  // The same expression, in the same order, as the one-sweep kernel (and the seed).
  return (c.c1f + c.wy2 * (up + down) + c.hx2 * (left + right)) * c.c2;
}

// `sweeps` sweeps of one tile. Two shared buffers of the tile and its halo (for 4 sweeps
// 40 x 136 floats each, 43.5 KB together), the sweeps alternating between them; a point keeps
// its coordinates in both, so a sweep reads its four neighbours at +-1 in the other buffer.
template <int sweeps>
__global__ void __launch_bounds__(threads_x* threads_y)
    temporal_kernel(Coefficients c, const float* __restrict__ in, float* __restrict__ out,
                    unsigned int* change) {
  constexpr int rows = tile_rows + 2 * sweeps, cols = tile_cols + 2 * sweeps;
  __shared__ float buffer[2][rows][cols];
  const int row0 = 1 + blockIdx.y * tile_rows - sweeps;  // the grid row of buffer row 0
  const int col0 = 1 + blockIdx.x * tile_cols - sweeps;
  const int tx = threadIdx.x, ty = threadIdx.y;

  // Points outside the grid are clamped to its edge: they only feed points outside the grid
  // or on its boundary, which are never swept nor stored.
  for (int r = ty; r < rows; r += threads_y) {
    const int gi = min(max(row0 + r, 0), c.rows - 1);
    for (int q = tx; q < cols; q += threads_x) {
      const int gj = min(max(col0 + q, 0), c.cols - 1);
      buffer[0][r][q] = __ldg(in + gi * c.cols + gj);
    }
  }
  __syncthreads();

  // Sweeps 1 .. sweeps-1 in shared memory; sweep s is valid s points in from the loaded edge.
  // Boundary points keep their value, as the sweeps never write them.
#pragma unroll
  for (int s = 1; s < sweeps; ++s) {
    const auto& from = buffer[(s - 1) % 2];
    auto& to = buffer[s % 2];
    for (int r = s + ty; r < rows - s; r += threads_y) {
      const int gi = row0 + r;
      for (int q = s + tx; q < cols - s; q += threads_x) {
        const int gj = col0 + q;
        const bool interior = gi >= 1 && gi < c.rows - 1 && gj >= 1 && gj < c.cols - 1;
        to[r][q] = interior ? jacobi_point(c, from[r - 1][q], from[r + 1][q], from[r][q - 1],
                                           from[r][q + 1])
                            : from[r][q];
      }
    }
    __syncthreads();
  }

  // The last sweep, stored; with `change`, the max-norm change of this sweep alone.
  const auto& from = buffer[(sweeps - 1) % 2];
  float max_change = 0.0f;
  for (int r = sweeps + ty; r < sweeps + tile_rows; r += threads_y) {
    const int gi = row0 + r;
    if (gi >= c.rows - 1) break;
    for (int q = sweeps + tx; q < sweeps + tile_cols; q += threads_x) {
      const int gj = col0 + q;
      if (gj >= c.cols - 1) break;
      const float v =
          jacobi_point(c, from[r - 1][q], from[r + 1][q], from[r][q - 1], from[r][q + 1]);
      out[gi * c.cols + gj] = v;
      if (change) max_change = fmaxf(max_change, fabsf(v - from[r][q]));
    }
  }
  if (change) {
    for (int offset = 16; offset > 0; offset /= 2) {
      max_change = fmaxf(max_change, __shfl_down_sync(0xffffffffu, max_change, offset));
    }
    if (tx == 0) atomicMax(change, __float_as_uint(max_change));
  }
}

template <int sweeps>
void launch(const Coefficients& c, const float* in, float* out, unsigned int* change,
            cudaStream_t stream) {
  const dim3 block(threads_x, threads_y);
  const dim3 grid((c.cols - 2 + tile_cols - 1) / tile_cols,
                  (c.rows - 2 + tile_rows - 1) / tile_rows);
  profile::CudaTimer timer(change ? "temporal_kernel (with check)" : "temporal_kernel", grid, block,
                           stream);
  temporal_kernel<sweeps><<<grid, block, 0, stream>>>(c, in, out, change);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

void several_sweeps(const Coefficients& c, int sweeps, const float* in, float* out,
                    unsigned int* change, cudaStream_t stream) {
  static_assert(most_sweeps_a_pass == 4, "several_sweeps instantiates 2, 3 and 4");
  switch (sweeps) {
    case 2:
      return launch<2>(c, in, out, change, stream);
    case 3:
      return launch<3>(c, in, out, change, stream);
    case 4:
      return launch<4>(c, in, out, change, stream);
    default:
      return sweep(c, in, out, change, stream);
  }
}

}  // namespace acclab::jacobi2d::cuda
