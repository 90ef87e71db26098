// Hand-written CUDA kernel of diffusion3d, as a plain function on device pointers. The launch
// goes to `stream` and is checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

namespace acclab::diffusion3d::cuda {

// The nx x ny x nz cells stepped, in a field whose rows are `pitch` floats apart and planes
// `plane` apart, cell (0, 0, 0) at `base` (0, 0 and 0: the whole grid, packed). A side whose bit
// is in `open` (Open) reads its missing neighbours across it, from the field's cells beyond the
// box (an MPI rank's shell); the other sides are the domain's zero-flux walls.
struct Coefficients {
  int nx, ny, nz;
  float cc, ce, cw, cn, cs, ct, cb;
  int pitch = 0, plane = 0, base = 0;
  unsigned open = 0;
};
// The coefficients of problem `p` (diffusion3d's Problem) over a box of nx x ny x nz cells.
template <typename P>
Coefficients coefficients_of(const P& p, int nx, int ny, int nz) {
  return {nx, ny, nz, p.cc, p.ce, p.cw, p.cn, p.cs, p.ct, p.cb};
}

enum Open : unsigned {
  open_west = 1,
  open_east = 2,
  open_south = 4,
  open_north = 8,
  open_below = 16,
  open_above = 32
};

// The thread block's shape: 32 x tile_y threads over an (i, j) tile, each marching along z
// through `planes` planes (0: all nz planes in one chunk). Only the values of the workload's
// cuda_planes and cuda_tile_y parameters are compiled; step() throws std::invalid_argument for
// any other.
// With x4, nx, pitch and base multiples of 4, each thread computes four consecutive cells along x
// through float4 loads and stores (the tile then covers 128 x tile_y cells). With dependent_launch
// (devices of compute capability 9.0 and up) each step is launched as a programmatic dependent of
// the one before, so that its launch overlaps that step's tail.
struct BlockShape {
  int planes = 4;
  int tile_y = 4;
  bool x4 = true;
  bool dependent_launch = false;
};

// Whether the current device has programmatic dependent launch (compute capability 9.0 and up).
bool dependent_launch_available();

void step(const Coefficients& c, const BlockShape& shape, const float* f, float* fn,
          cudaStream_t stream);

}  // namespace acclab::diffusion3d::cuda
