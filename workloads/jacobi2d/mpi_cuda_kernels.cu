// The halo kernels of jacobi2d's mpi_cuda step: a block's edges packed into one array (the
// face layout of mpi_blocks.hpp: first row, last row, first column, last column) and the
// neighbours' edges unpacked into its halo ring.
#include "kit/cuda_check.hpp"
#include "workloads/jacobi2d/mpi_cuda_kernels.hpp"

namespace acclab::jacobi2d::cuda {
namespace {

constexpr int threads = 256;

// Face element t's place in a (rows + 2) x (cols + 2) block: its edge point when `edge`, the
// halo point beyond that edge otherwise.
__device__ int face_point(int t, int rows, int cols, bool edge) {
  const int ld = cols + 2;
  if (t < cols) return (edge ? 1 : 0) * ld + 1 + t;
  if (t < 2 * cols) return (edge ? rows : rows + 1) * ld + 1 + (t - cols);
  if (t < 2 * cols + rows) return (t - 2 * cols + 1) * ld + (edge ? 1 : 0);
  return (t - 2 * cols - rows + 1) * ld + (edge ? cols : cols + 1);
}

__global__ void pack_kernel(const float* grid, float* faces, int rows, int cols) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < 2 * (rows + cols)) faces[t] = grid[face_point(t, rows, cols, true)];
}

__global__ void unpack_kernel(float* grid, const float* faces, int rows, int cols,
                              Sides sides) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= 2 * (rows + cols)) return;
  const bool has = t < cols                  ? sides.north
                   : t < 2 * cols            ? sides.south
                   : t < 2 * cols + rows     ? sides.west
                                             : sides.east;
  if (has) grid[face_point(t, rows, cols, false)] = faces[t];
}

}  // namespace

void pack_faces(const float* grid, float* faces, int rows, int cols, cudaStream_t stream) {
  const int n = 2 * (rows + cols);
  pack_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(grid, faces, rows, cols);
  CUDA_CHECK_LAUNCH();
}

void unpack_faces(float* grid, const float* faces, int rows, int cols, Sides sides,
                  cudaStream_t stream) {
  const int n = 2 * (rows + cols);
  unpack_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(grid, faces, rows, cols,
                                                                     sides);
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::jacobi2d::cuda
