// The halo kernels of jacobi2d's mpi_cuda step (mpi_cuda_kernels.cu), queued on `stream`.
#pragma once

#include <cuda_runtime.h>

namespace acclab::jacobi2d::cuda {

// Which sides of a block have a neighbour (their halos are exchanged).
struct Sides {
  bool north, south, west, east;
};

// faces = the edges of the (rows + 2) x (cols + 2) block `grid`, in mpi_blocks.hpp's layout.
void pack_faces(const float* grid, float* faces, int rows, int cols, cudaStream_t stream);
// The halo ring of `grid` = faces, on the sides that have a neighbour.
void unpack_faces(float* grid, const float* faces, int rows, int cols, Sides sides,
                  cudaStream_t stream);

}  // namespace acclab::jacobi2d::cuda
