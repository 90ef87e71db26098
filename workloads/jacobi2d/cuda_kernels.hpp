// Hand-written CUDA kernels of jacobi2d, as plain functions on device pointers. All launches
// go to `stream` and are checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
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

// Both working grids = the initial one (`count` floats each), on `stream`, waited for; the
// copies timed into the --profile report. The reset of every CUDA step of jacobi2d.
void restore_grids(const float* initial, float* u0, float* u1, std::size_t count,
                   cudaStream_t stream);

// The most sweeps several_sweeps does in one pass.
inline constexpr int most_sweeps_a_pass = 4;

// `sweeps` sweeps (1 to most_sweeps_a_pass) from `in` to `out` in one pass through memory
// (temporal blocking); `change`, when non-null, as for sweep() but of the last sweep alone.
void several_sweeps(const Coefficients& c, int sweeps, const float* in, float* out,
                    unsigned int* change, cudaStream_t stream);

}  // namespace acclab::jacobi2d::cuda
