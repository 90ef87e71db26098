// Hand-written CUDA kernel of diffusion3d, as a plain function on device pointers. The launch
// goes to `stream` and is checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

namespace acclab::diffusion3d::cuda {

struct Coefficients {
  int nx, ny, nz;
  float cc, ce, cw, cn, cs, ct, cb;
};

void step(const Coefficients& c, const float* f, float* fn, cudaStream_t stream);

}  // namespace acclab::diffusion3d::cuda
