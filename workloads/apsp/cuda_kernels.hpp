// apsp's hand-written CUDA kernels, as plain functions on device pointers. Launches go to
// `stream` and are checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

namespace acclab::apsp::cuda {

inline constexpr int pivot = 64;  // pivot rows per round

// The rows [row_begin, row_end) of the n x n matrix held by one GPU (row row_begin at d[0]),
// with its scratch: `history` pivot x n floats (H[i][s] at s * n + i, i the global row: a
// step's values of consecutive rows are consecutive), `snapshot` pivot x n.
struct Slab {
  int row_begin, row_end;
  float* d;
  float* history;
  float* snapshot;
};

// Round kb on the slab holding pivot rows [kb, kb + pivot): steps them, filling the whole
// snapshot (the pivot rows as they were at their steps).
void pivot_round(int n, bool max_plus, int kb, const Slab& slab, cudaStream_t stream);
// Round kb on any slab whose snapshot holds round kb's: the slab's other rows.
void rest_round(int n, bool max_plus, int kb, const Slab& slab, cudaStream_t stream);

// All rounds of blocked Floyd-Warshall on d (n x n, row-major, in place), one GPU. `history`
// (n x pivot floats) and `snapshot` (pivot x n floats) are scratch.
void floyd_warshall_blocked(int n, bool max_plus, float* d, float* history, float* snapshot,
                            cudaStream_t stream);

}  // namespace acclab::apsp::cuda
