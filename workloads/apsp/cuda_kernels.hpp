// apsp's hand-written CUDA kernels, as plain functions on device pointers. Launches go to
// `stream` and are checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

namespace acclab::apsp::cuda {

inline constexpr int pivot = 64;  // pivot rows per round

// All n rounds of blocked Floyd-Warshall on d (n x n, row-major, in place). `history`
// (n x pivot floats) and `snapshot` (pivot x n floats) are scratch.
void floyd_warshall_blocked(int n, bool max_plus, float* d, float* history, float* snapshot,
                            cudaStream_t stream);

}  // namespace acclab::apsp::cuda
