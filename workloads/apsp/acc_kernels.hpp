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
// array mapped to the current device), a snapshot buffer of `block` pivot rows and the pivot
// columns' history (host arrays too; only the snapshot's host copy is ever used).
struct Partition {
  int row_begin = 0, row_end = 0;
  float* rows = nullptr;      // (row_end - row_begin) x n
  float* snapshot = nullptr;  // block x n: row k as it was at step k, for the block's k
  float* history = nullptr;   // block x rows: [s][r] = d[row_begin + r][k] before step k = kb + s
  // With paths (null without): the rows' successors, and their history like `history`'s.
  std::int32_t* next = nullptr;          // (row_end - row_begin) x n
  std::int32_t* next_history = nullptr;  // block x rows: [s][r] = next[row_begin + r][kb + s]
};
// The number of NVIDIA GPUs OpenACC sees (0: regions run on the host).
int nvidia_devices();
// Makes `device` the calling thread's current device (nothing without a GPU).
void partition_select(int device);
// Selects `device`, copies the rows in and creates the snapshot and history there. Blocking.
void partition_enter(const Problem& p, const Partition& part, int device);
// Copies the host rows to the (current) device. Blocking.
void partition_upload(const Problem& p, const Partition& part);
// Copies the rows out (when copy_out) and releases the arrays on the current device.
void partition_exit(const Problem& p, const Partition& part, bool copy_out);
// The owner of pivot rows [k_begin, k_end): applies their steps to them in order, keeping each
// row as it was at its own step in the snapshot (device), then copies the snapshot into the
// host buffer `publish`. Blocking.
void partition_pivot_block(const Problem& p, const Partition& part, int k_begin, int k_end,
                           float* publish);
// Copies the published snapshot (host) into the partition's snapshot on the device. Blocking.
void partition_receive_snapshot(const Problem& p, const Partition& part, int k_begin, int k_end,
                                const float* published);
// Applies steps [k_begin, k_end) to the partition's rows outside [skip_begin, skip_end), each
// row through the steps in order with the snapshot's pivot rows. Blocking.
void partition_apply_block(const Problem& p, const Partition& part, int k_begin, int k_end,
                           int skip_begin, int skip_end);

}  // namespace acclab::apsp::acc
