// Hand-written CUDA kernels of jacobi2d, as plain functions on device pointers. All launches
// go to `stream` and are checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace acclab::jacobi2d::cuda {

struct Coefficients {
  int rows, cols;
  float c1f, wy2, hx2, c2;
};

// One sweep from `in` to `out` over the interior. When `change` is non-null, the max-norm
// change of the sweep is combined into *change (as float bits: an atomic max on unsigned
// integers orders non-negative floats correctly); the caller zeroes it first.
void sweep(const Coefficients& c, const float* in, float* out, unsigned int* change,
           cudaStream_t stream);

// Two sweeps from `in` to `out` in one pass through memory (temporal blocking); `change`, when
// non-null, as for sweep() but of the second sweep alone.
void two_sweeps(const Coefficients& c, const float* in, float* out, unsigned int* change,
                cudaStream_t stream);

}  // namespace acclab::jacobi2d::cuda
