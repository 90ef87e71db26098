// The OpenACC kernels of apsp, as plain functions (defined in -fopenacc sources, called from
// the variants' host code, OpenMP threads included); and, for the -fopenacc sources alone, the
// arithmetic their kernels share (acc_multidevice.cpp, mpi_acc.cpp), inlined into them.
#pragma once

#include <cstdint>

#include "workloads/apsp/apsp.hpp"
#ifdef _OPENACC
#include <openacc.h>
#endif

namespace acclab::apsp::acc {

// The columns a lane of the three kernels below relaxes an iteration in a run with `params`:
// columns_per_lane of managed's and optimize's knob unroll (acc_managed_optimize.cpp declares
// it) and n.
int lane_columns(const Params& params);

// One step k over all rows of d (n x n), d present on the current device, each lane relaxing
// `columns` columns of its row an iteration (16, 8, 4, 2 or 1). Blocking.
void relax_present(const Problem& p, int columns, float* d, int k);
// The same keeping the successors `next` (n x n, also present): apsp.hpp's rule. Blocking.
void relax_present_paths(const Problem& p, int columns, float* d, std::int32_t* next, int k);
// The same on a device pointer (managed memory), d passed through `deviceptr`. Blocking.
void relax_deviceptr(const Problem& p, int columns, float* d, int k);

// One partition of multidevice: rows [row_begin, row_end) of the matrix in `rows` (a host
// array mapped to the current device), two snapshot slots of `block` pivot rows (rounds
// alternate between them, so that the next round's pivot rows can be computed while this
// round's are still being applied) and the pivot columns' history (host arrays too; only the
// snapshot's host copy in multidevice.cpp ever crosses partitions).
struct Partition {
  int row_begin = 0, row_end = 0;
  // The GPU it runs on, and its two async queues: numbered per partition, so that partitions
  // sharing a GPU (share_gpus=1) keep apart.
  int device = 0, compute_queue = 1, transfer_queue = 2;
  float* rows = nullptr;      // (row_end - row_begin) x n
  float* snapshot = nullptr;  // 2 x block x n: [slot][s][j] = row kb + s as it was at its step
  float* history = nullptr;   // block x rows: [s][r] = d[row_begin + r][k] before step k = kb + s
  // With paths (null without): the rows' successors, and their history like `history`'s.
  std::int32_t* next = nullptr;          // (row_end - row_begin) x n
  std::int32_t* next_history = nullptr;  // block x rows: [s][r] = next[row_begin + r][kb + s]
};
// A pivot block: rows [begin, end) and the snapshot slot that holds them as of their steps.
struct Pivots {
  int begin = 0, end = 0, slot = 0;
};
// Global rows [begin, end) of a partition, less [skip_begin, skip_end).
struct RowRange {
  int begin = 0, end = 0, skip_begin = 0, skip_end = 0;
};

// The number of NVIDIA GPUs OpenACC sees (0: regions run on the host).
int nvidia_devices();
// Makes the partition's GPU the calling thread's current device (nothing without a GPU).
void partition_select(const Partition& part);
// Selects the partition's GPU, copies the rows in and creates the snapshot and history there;
// nothing for a partition without rows (its sections would be empty). Blocking.
void partition_enter(const Problem& p, const Partition& part);
// Copies the host rows to the (current) device. Blocking.
void partition_upload(const Problem& p, const Partition& part);
// Copies the rows out (when copy_out) and releases the arrays on the current device. Blocking.
void partition_exit(const Problem& p, const Partition& part, bool copy_out);

// The rest run on the partition's two async queues and return at once: the compute
// queue runs the kernels in the order they were asked for, the transfer queue the snapshot's
// copies to and from the host, each ordered after the compute queue's earlier work.
//
// The owner of the pivot rows: applies their steps to them in order, keeping each row as it
// was at its own step in the snapshot's slot; then, when `publish` is not null, copies the
// snapshot into the host buffer `publish` (done at partition_wait_transfers).
void partition_pivot_block(const Problem& p, const Partition& part, Pivots pivots, float* publish);
// Copies the published snapshot (host; read until partition_wait_transfers) into the
// partition's slot; the compute queue's later kernels wait for it.
void partition_receive_snapshot(const Problem& p, const Partition& part, Pivots pivots,
                                const float* published);
// Applies the pivots' steps to the partition's rows in `rows`, each row through the steps in
// order with the snapshot's pivot rows: C, which records the rows' history (H) on the pivot
// columns, then D, which relaxes the rest of each row with it; `phases` runs one of them.
enum class Phases { columns, tiles, both };
void partition_apply_block(const Problem& p, const Partition& part, Pivots pivots, RowRange rows,
                           Phases phases = Phases::both);
// Waits for the transfer queue: the last published snapshot is in the host buffer, the last
// received one has left it.
void partition_wait_transfers(const Partition& part);
// Waits for both queues.
void partition_wait(const Partition& part);

#ifdef _OPENACC
// The serial loop's std::max / std::min. (fmaxf would be one instruction, max.f32, but GCC 12
// expands it only under -ffinite-math-only and otherwise calls a libm the offload link lacks.)
#pragma acc routine seq
template <bool max_plus>
inline float relax(float now, float through) {
  return max_plus ? (now < through ? through : now) : (through < now ? through : now);
}

// Whether `through` replaces `now`: exactly when relax takes it (the successor rule, apsp.hpp).
#pragma acc routine seq
template <bool max_plus>
inline bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}

// Element c of a row relaxed with `through`; with paths its successor next_row[c] becomes nh
// where that strictly improves the element (next_row is not read without paths).
#pragma acc routine seq
template <bool max_plus, bool paths>
inline void relax_at(float* row, std::int32_t* next_row, int c, float through, std::int32_t nh) {
  if constexpr (paths) {
    if (improves<max_plus>(row[c], through)) {
      row[c] = through;
      next_row[c] = nh;
    }
  } else {
    row[c] = relax<max_plus>(row[c], through);
  }
}

// The device address of a successor array (deviceptr in the kernels), null without paths.
template <bool paths>
std::int32_t* on_device(std::int32_t* host) {
  return paths ? static_cast<std::int32_t*>(acc_deviceptr(host)) : nullptr;
}

// D for one lane of a register tile: the 4 x 4 elements (i[a], j[b]) of d (rows ld apart, and
// with paths their successors in next) through steps 0 .. m - 1 in order, with
// H[s][i] = h[s h_stride + i], S[s][j] = v[s v_stride + j] and NH[s][i] = nh[s h_stride + i];
// stored where store_row[a] and store_column[b]. The loads of `lane_steps` steps are issued
// before their relaxations: a lane has 8 loads a step (12 with paths) times lane_steps in
// flight where it waited out each step's, and at 25 % occupancy nothing else hides them
// (bench/results/h200/apsp/NOTES.md). Past the last step the last is loaded again: relaxing
// with it twice changes nothing (max and min are idempotent; improves is strict). Always
// inlined, so that the tile stays in registers.
constexpr int lane_steps = 4;
#pragma acc routine seq
template <bool max_plus, bool paths>
[[gnu::always_inline]] inline void relax_lane_tile(float* d, std::int32_t* next, std::int64_t ld,
                                                   const int (&i)[4], const int (&j)[4],
                                                   const bool (&store_row)[4],
                                                   const bool (&store_column)[4], const float* h,
                                                   const std::int32_t* nh, std::int64_t h_stride,
                                                   const float* v, std::int64_t v_stride, int m) {
  float acc[4][4];
  std::int32_t succ[4][4];  // with paths: the elements' successors
#pragma GCC unroll 4
  for (int a = 0; a < 4; ++a) {
#pragma GCC unroll 4
    for (int b = 0; b < 4; ++b) {
      acc[a][b] = d[std::int64_t(i[a]) * ld + j[b]];
      if constexpr (paths) succ[a][b] = next[std::int64_t(i[a]) * ld + j[b]];
    }
  }
  // The lane's rows of H and columns of S at step 0; step s is s * h_stride (s * v_stride) on,
  // one offset for all four (GCC recomputed each load's address from s).
  const float* h_of[4];
  const float* v_of[4];
  const std::int32_t* nh_of[4];
#pragma GCC unroll 4
  for (int a = 0; a < 4; ++a) {
    h_of[a] = h + i[a];
    v_of[a] = v + j[a];
    if constexpr (paths) nh_of[a] = nh + i[a];
  }
  for (int s0 = 0; s0 < m; s0 += lane_steps) {
    float hs[lane_steps][4], vs[lane_steps][4];
    std::int32_t nhs[lane_steps][4];
#pragma GCC unroll 4
    for (int t = 0; t < lane_steps; ++t) {
      const int s = s0 + t < m ? s0 + t : m - 1;
      const std::int64_t h_step = std::int64_t(s) * h_stride, v_step = std::int64_t(s) * v_stride;
#pragma GCC unroll 4
      for (int a = 0; a < 4; ++a) {
        hs[t][a] = h_of[a][h_step];
        vs[t][a] = v_of[a][v_step];
        if constexpr (paths) nhs[t][a] = nh_of[a][h_step];
      }
    }
#pragma GCC unroll 4
    for (int t = 0; t < lane_steps; ++t) {
#pragma GCC unroll 4
      for (int a = 0; a < 4; ++a) {
#pragma GCC unroll 4
        for (int b = 0; b < 4; ++b) {
          if constexpr (paths) {
            const float through = hs[t][a] + vs[t][b];
            if (improves<max_plus>(acc[a][b], through)) {
              acc[a][b] = through;
              succ[a][b] = nhs[t][a];
            }
          } else {
            acc[a][b] = relax<max_plus>(acc[a][b], hs[t][a] + vs[t][b]);
          }
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int a = 0; a < 4; ++a) {
#pragma GCC unroll 4
    for (int b = 0; b < 4; ++b) {
      if (store_row[a] && store_column[b]) {
        d[std::int64_t(i[a]) * ld + j[b]] = acc[a][b];
        if constexpr (paths) next[std::int64_t(i[a]) * ld + j[b]] = succ[a][b];
      }
    }
  }
}
#endif  // _OPENACC

}  // namespace acclab::apsp::acc
