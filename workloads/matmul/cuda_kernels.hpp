// matmul's hand-written CUDA kernel, as a plain function on device pointers. The launch goes to
// `stream` and is checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

#include "workloads/matmul/cuda_tiling.hpp"

namespace acclab::matmul::cuda {

struct Shape {
  int m, n, k, lda, ldb, ldc;
};

// C = A B, row-major, by FP64 tensor-core instructions on shared-memory tiles as `t` says.
void multiply_tiled(const Shape& s, const double* a, const double* b, double* c, const Tiling& t,
                    cudaStream_t stream);

}  // namespace acclab::matmul::cuda
