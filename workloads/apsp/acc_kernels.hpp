// The OpenACC kernels of apsp, as plain functions (defined in -fopenacc sources, called from
// the variants' host code, OpenMP threads included).
#pragma once

#include <cstdint>

#include "workloads/apsp/apsp.hpp"

namespace acclab::apsp::acc {

// One step k over all rows of d (n x n), d present on the current device. Blocking.
void relax_present(const Problem& p, float* d, int k);
// The same keeping the successors `next` (n x n, also present): apsp.hpp's rule. Blocking.
void relax_present_paths(const Problem& p, float* d, std::int32_t* next, int k);
// The same on a device pointer (managed memory), d passed through `deviceptr`. Blocking.
void relax_deviceptr(const Problem& p, float* d, int k);

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

}  // namespace acclab::apsp::acc
