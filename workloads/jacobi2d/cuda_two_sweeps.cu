// Beyond the seed, the step after cuda: temporal blocking. One pass through memory does two
// sweeps: a block loads its tile of the grid with two points of halo into shared memory, sweeps
// it once into a second shared tile (one point of halo left), and sweeps that again into the
// output. DRAM carries each point in and out once per two sweeps, so the one-sweep-per-pass
// limit (8 bytes a point a sweep) can be passed; the halos are read again by the neighbouring
// blocks, mostly from L2.
#include "core/cuda_check.hpp"
#include "core/cuda_profile.hpp"
#include "workloads/jacobi2d/cuda_kernels.hpp"

namespace acclab::jacobi2d::cuda {
namespace {

// A tile of 32 x 128 points out; with halos 36 x 132 floats in and 34 x 130 between the
// sweeps: 36 KiB of shared memory, six blocks a multiprocessor. 256 threads, a warp's lanes
// along a row so that loads and stores are coalesced and shared memory free of bank conflicts.
constexpr int tile_rows = 32;
constexpr int tile_cols = 128;
constexpr int threads_x = 32;
constexpr int threads_y = 8;
constexpr int halo = 2;  // sweeps a pass

__device__ __forceinline__ float jacobi_point(const Coefficients& c, float up, float down,
                                              float left, float right) {
  // The same expression, in the same order, as the one-sweep kernel (and the seed).
  return (c.c1f + c.wy2 * (up + down) + c.hx2 * (left + right)) * c.c2;
}

__global__ void __launch_bounds__(threads_x* threads_y)
    two_sweeps_kernel(Coefficients c, const float* __restrict__ in, float* __restrict__ out,
                      unsigned int* change) {
  __shared__ float first[tile_rows + 2 * halo][tile_cols + 2 * halo];
  __shared__ float second[tile_rows + 2][tile_cols + 2];
  const int row0 = 1 + blockIdx.y * tile_rows;  // the tile's first output row
  const int col0 = 1 + blockIdx.x * tile_cols;
  const int tx = threadIdx.x, ty = threadIdx.y;

  // The input tile, rows row0-2 .. row0+tile_rows+1; points outside the grid are clamped to its
  // edge (they only feed results that are never stored).
  for (int r = ty; r < tile_rows + 2 * halo; r += threads_y) {
    const int gi = min(max(row0 - halo + r, 0), c.rows - 1);
    for (int q = tx; q < tile_cols + 2 * halo; q += threads_x) {
      const int gj = min(max(col0 - halo + q, 0), c.cols - 1);
      first[r][q] = __ldg(in + gi * c.cols + gj);
    }
  }
  __syncthreads();

  // The first sweep over the tile and one point around it. Boundary points keep their value,
  // as the sweeps never write them.
  for (int r = ty; r < tile_rows + 2; r += threads_y) {
    const int gi = row0 - 1 + r;
    for (int q = tx; q < tile_cols + 2; q += threads_x) {
      const int gj = col0 - 1 + q;
      const bool interior = gi >= 1 && gi < c.rows - 1 && gj >= 1 && gj < c.cols - 1;
      second[r][q] = interior ? jacobi_point(c, first[r][q + 1], first[r + 2][q + 1],
                                             first[r + 1][q], first[r + 1][q + 2])
                              : first[r + 1][q + 1];
    }
  }
  __syncthreads();

  // The second sweep, stored; with `change`, the max-norm change of this sweep alone.
  float max_change = 0.0f;
  for (int r = ty; r < tile_rows; r += threads_y) {
    const int gi = row0 + r;
    if (gi >= c.rows - 1) break;
    for (int q = tx; q < tile_cols; q += threads_x) {
      const int gj = col0 + q;
      if (gj >= c.cols - 1) break;
      const float v = jacobi_point(c, second[r][q + 1], second[r + 2][q + 1], second[r + 1][q],
                                   second[r + 1][q + 2]);
      out[gi * c.cols + gj] = v;
      if (change) max_change = fmaxf(max_change, fabsf(v - second[r + 1][q + 1]));
    }
  }
  if (change) {
    for (int offset = 16; offset > 0; offset /= 2) {
      max_change = fmaxf(max_change, __shfl_down_sync(0xffffffffu, max_change, offset));
    }
    if (tx == 0) atomicMax(change, __float_as_uint(max_change));
  }
}

}  // namespace

void two_sweeps(const Coefficients& c, const float* in, float* out, unsigned int* change,
                cudaStream_t stream) {
  const dim3 block(threads_x, threads_y);
  const dim3 grid((c.cols - 2 + tile_cols - 1) / tile_cols,
                  (c.rows - 2 + tile_rows - 1) / tile_rows);
  profile::CudaTimer timer(change ? "two_sweeps_kernel (with check)" : "two_sweeps_kernel", grid,
                           block, stream);
  two_sweeps_kernel<<<grid, block, 0, stream>>>(c, in, out, change);
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::jacobi2d::cuda
