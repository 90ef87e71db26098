// Hand-written CUDA kernel of diffusion3d, as a plain function on device pointers. The launch
// goes to `stream` and is checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

namespace acclab::diffusion3d::cuda {

struct Coefficients {
  int nx, ny, nz;
  float cc, ce, cw, cn, cs, ct, cb;
};

// The thread block's shape: 32 x tile_y threads over an (i, j) tile, each marching along z
// through `planes` planes (0: all nz planes in one chunk). Only the values of the workload's
// cuda_planes and cuda_tile_y parameters are compiled; step() throws std::invalid_argument for
// any other.
// With x4 and nx a multiple of 4, each thread computes four consecutive cells along x through
// float4 loads and stores (the tile then covers 128 x tile_y cells).
// With dependent_launch (devices of compute capability 9.0 and up) each step is launched as a
// programmatic dependent of the one before, so that its launch overlaps that step's tail.
struct BlockShape {
  int planes = 4;
  int tile_y = 4;
  bool x4 = true;
  bool dependent_launch = false;
};

void step(const Coefficients& c, const BlockShape& shape, const float* f, float* fn,
          cudaStream_t stream);

}  // namespace acclab::diffusion3d::cuda
