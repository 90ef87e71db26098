// The 7-point step in CUDA, tuned for bandwidth: a 2D block of threads covers an (i, j) tile
// and marches along z through a chunk of planes, each thread keeping the cell below, itself
// and the cell above in registers, so each cell is loaded from memory once per step (plus one
// plane per chunk); the i and j neighbours come from the neighbouring threads' loads through
// L1. Chunks along z give enough blocks to fill the GPU on small grids.
#include "core/cuda_check.hpp"
#include "workloads/diffusion3d/cuda_kernels.hpp"

namespace acclab::diffusion3d::cuda {
namespace {

constexpr int tile_x = 32;
constexpr int tile_y = 8;
constexpr int planes_per_block = 16;

__global__ void step_kernel(Coefficients c, const float* __restrict__ f, float* __restrict__ fn) {
  const int i = blockIdx.x * tile_x + threadIdx.x;
  const int j = blockIdx.y * tile_y + threadIdx.y;
  if (i >= c.nx || j >= c.ny) return;
  const int plane = c.nx * c.ny;
  const int k_begin = blockIdx.z * planes_per_block;
  const int k_end = min(k_begin + planes_per_block, c.nz);
  // Zero-flux walls: a missing neighbour is the cell itself.
  const int di_plus = i == c.nx - 1 ? 0 : 1, di_minus = i == 0 ? 0 : 1;
  const int dj_plus = j == c.ny - 1 ? 0 : c.nx, dj_minus = j == 0 ? 0 : c.nx;
  const int column = j * c.nx + i;
  float centre = __ldg(f + k_begin * plane + column);
  float below = k_begin == 0 ? centre : __ldg(f + (k_begin - 1) * plane + column);
  for (int k = k_begin; k < k_end; ++k) {
    const int ix = k * plane + column;  // never past the last plane: no int overflow
    const float above = k == c.nz - 1 ? centre : __ldg(f + ix + plane);
    fn[ix] = c.cc * centre + c.ce * __ldg(f + ix + di_plus) + c.cw * __ldg(f + ix - di_minus) +
             c.cn * __ldg(f + ix + dj_plus) + c.cs * __ldg(f + ix - dj_minus) + c.ct * above +
             c.cb * below;
    below = centre;
    centre = above;
  }
}

}  // namespace

void step(const Coefficients& c, const float* f, float* fn, cudaStream_t stream) {
  const dim3 block(tile_x, tile_y);
  const dim3 grid((c.nx + tile_x - 1) / tile_x, (c.ny + tile_y - 1) / tile_y,
                  (c.nz + planes_per_block - 1) / planes_per_block);
  step_kernel<<<grid, block, 0, stream>>>(c, f, fn);
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::diffusion3d::cuda
