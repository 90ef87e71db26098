// apsp's hand-written CUDA kernels, as plain functions on device pointers. Launches go to
// `stream` and are checked; nothing here waits for the device.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

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
// The shape of D, the kernel that relaxes all but the pivot rows and columns (cuda_blocked's
// tunings cuda_slice and cuda_min_blocks): the steps of H and S it stages in shared memory at a
// time (8, 16 or 32: a divisor of the pivot, and at 32 its two slices fill 32 KiB of the 48 a
// block may have statically), and the blocks a multiprocessor its __launch_bounds__ promise (1,
// 2 or 3: registers a thread at most 255, 128 or 85, its 64 accumulators spilling below about
// 100).
struct RestShape {
  int slice = 32;
  int min_blocks = 2;
};

// Round kb on any slab whose snapshot holds round kb's: the slab's other rows.
void rest_round(int n, bool max_plus, int kb, const Slab& slab, cudaStream_t stream,
                RestShape shape = {});

// All rounds of blocked Floyd-Warshall on d (n x n, row-major, in place), one GPU. `history`
// (n x pivot floats) and `snapshot` (pivot x n floats) are scratch.
void floyd_warshall_blocked(int n, bool max_plus, float* d, float* history, float* snapshot,
                            cudaStream_t stream, RestShape shape = {});

// mpi_cuda's phases (mpi_blocks.hpp) on one rank's blocks, packed `rows` x `cols` row-major
// (the row stride is `cols`), with the successors beside them (global vertex numbers) when
// `next` is not null. A round has m <= pivot steps. mpi_cuda_kernels.cu; launches as above.
struct LocalBlocks {
  float* d;
  std::int32_t* next;
  int rows, cols;
};
// Local indices [begin, end); begin >= end: none.
struct Range {
  int begin, end;
};
// The diagonal block's operands, m x m each: H[s][r] at h[s * m + r] (its column s before step
// s), S[s][c] at s[s * m + c] (its row s before step s), NH[s][r] at nh[s * m + r] (paths).
struct DiagonalOperands {
  float* h;
  float* s;
  std::int32_t* nh;
};
// One slot of the panels: the row panel V[s][j] at v[s * cols + j] (pivot row s before its
// step, local column j), the column panel H[s][i] at h[s * rows + i] (pivot column s of local
// row i before that step) and its successors NH[s][i] at nh[s * rows + i] (paths).
struct PanelSlot {
  float* v;
  float* h;
  std::int32_t* nh;
};

// A: the diagonal block at local row r0, column c0 through its m steps; H, S (and NH) out.
void local_diagonal(bool max_plus, const LocalBlocks& b, int m, int r0, int c0,
                    const DiagonalOperands& out, cudaStream_t stream);
// B: the pivot rows [r0, r0 + m) on every local column outside `skip` (A's), with A's H (and
// NH); the row panel out.
void local_row_panel(bool max_plus, const LocalBlocks& b, int m, int r0, Range skip,
                     const DiagonalOperands& in, const PanelSlot& out, cudaStream_t stream);
// C: the pivot columns [c0, c0 + m) of every local row outside `skip` (A's and B's), with A's
// S; the column panel (and its successors) out.
void local_column_panel(bool max_plus, const LocalBlocks& b, int m, int c0, Range skip,
                        const DiagonalOperands& in, const PanelSlot& out, cudaStream_t stream);
// D: local rows `rows` less `skip_rows` by columns `cols` less `skip_cols`, each element
// relaxed with H[s][i] + V[s][j] for s in order (the successor NH[s][i] with it).
void local_relax(bool max_plus, const LocalBlocks& b, int m, Range rows, Range skip_rows,
                 Range cols, Range skip_cols, const PanelSlot& in, cudaStream_t stream);

}  // namespace acclab::apsp::cuda
