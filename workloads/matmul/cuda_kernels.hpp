// matmul's hand-written CUDA kernel, as a plain function on device pointers. The launch goes to
// `stream` and is checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

namespace acclab::matmul::cuda {

struct Shape {
  int m, n, k, lda, ldb, ldc;
};

// The FP64 MMA instruction shape (mma.sync ... .f64); all but m8n8k4 need sm_90.
enum class Mma { m8n8k4, m16n8k4, m16n8k8, m16n8k16 };

// C = A B, row-major, by FP64 tensor-core instructions of `shape` on shared-memory tiles of
// tile x tile elements of C (tile 64 or 128).
void multiply_tiled(const Shape& s, const double* a, const double* b, double* c, int tile,
                    Mma shape, cudaStream_t stream);

}  // namespace acclab::matmul::cuda
