// multidevice's per-device work, in OpenACC; multidevice.cpp runs one OpenMP thread per
// partition of rows and calls these from it. Pivot rows travel as blocks: the owner of pivot
// rows [k_begin, k_end) applies their steps to them on one gang (workers over the rows, a
// barrier between steps), keeping each pivot row k as it was at its own step k (the snapshot).
// Every partition then applies the block's steps to its own rows, each row through the steps
// in order with the snapshot's rows as pivots: exactly the values the serial loop uses, so the
// result is bitwise the serial one (apsp.hpp), with one exchange per block instead of one per
// step (the seed's version sent nothing, and relaxed against stale pivot rows).
#include <openacc.h>

#include "workloads/apsp/acc_kernels.hpp"

namespace acclab::apsp::acc {
namespace {

template <bool max_plus>
void pivot_block(int n, int block, const Partition& part, int k_begin, int k_end) {
  float* rows = part.rows;
  float* snap = part.snapshot;
  const int r0 = part.row_begin;
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * n;
  const std::int64_t ns = std::int64_t(block) * n;
#pragma acc parallel num_gangs(1) num_workers(16) vector_length(32) present(rows[0:nl], snap[0:ns])
  {
    for (int k = k_begin; k < k_end; ++k) {
      const int s = k - k_begin;
#pragma acc loop worker vector
      for (int j = 0; j < n; ++j) snap[s * n + j] = rows[(k - r0) * n + j];
#pragma acc loop worker
      for (int r = k_begin - r0; r < k_end - r0; ++r) {
        const float rk = rows[r * n + k];
#pragma acc loop vector
        for (int j = 0; j < n; ++j) {
          const float through = rk + snap[s * n + j];
          const float now = rows[r * n + j];
          rows[r * n + j] =
              max_plus ? (now < through ? through : now) : (through < now ? through : now);
        }
      }
    }
  }
  const std::int64_t sent = std::int64_t(k_end - k_begin) * n;
#pragma acc update self(snap[0:sent])
}

template <bool max_plus>
void apply_block(int n, int block, const Partition& part, int k_begin, int k_end, int skip_begin,
                 int skip_end) {
  float* rows = part.rows;
  const float* snap = part.snapshot;
  const int r0 = part.row_begin, count = part.row_end - part.row_begin;
  const std::int64_t nl = std::int64_t(count) * n;
  const std::int64_t ns = std::int64_t(block) * n;
  const int skip_b = skip_begin - r0, skip_e = skip_end - r0;
#pragma acc parallel loop gang vector_length(256) present(rows[0:nl], snap[0:ns])
  for (int r = 0; r < count; ++r) {
    if (r >= skip_b && r < skip_e) continue;
    for (int k = k_begin; k < k_end; ++k) {
      const float rk = rows[r * n + k];
      const int s = k - k_begin;
#pragma acc loop vector
      for (int j = 0; j < n; ++j) {
        const float through = rk + snap[s * n + j];
        const float now = rows[r * n + j];
        rows[r * n + j] =
            max_plus ? (now < through ? through : now) : (through < now ? through : now);
      }
    }
  }
}

}  // namespace

int nvidia_devices() { return acc_get_num_devices(acc_device_nvidia); }

void partition_enter(const Problem& p, const Partition& part, int device) {
  if (acc_get_num_devices(acc_device_nvidia) > 0) acc_set_device_num(device, acc_device_nvidia);
  float* rows = part.rows;
  float* snap = part.snapshot;
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  const std::int64_t ns = std::int64_t(p.block) * p.n;
#pragma acc enter data copyin(rows[0:nl]) create(snap[0:ns])
}

void partition_select(int device) {
  if (acc_get_num_devices(acc_device_nvidia) > 0) acc_set_device_num(device, acc_device_nvidia);
}

void partition_upload(const Problem& p, const Partition& part) {
  float* rows = part.rows;
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
#pragma acc update device(rows[0:nl])
}

void partition_exit(const Problem& p, const Partition& part, bool copy_out) {
  float* rows = part.rows;
  float* snap = part.snapshot;
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  const std::int64_t ns = std::int64_t(p.block) * p.n;
  if (copy_out) {
#pragma acc update self(rows[0:nl])
  }
#pragma acc exit data delete(rows[0:nl], snap[0:ns])
}

void partition_pivot_block(const Problem& p, const Partition& part, int k_begin, int k_end) {
  if (p.semiring == Semiring::max_plus) {
    pivot_block<true>(p.n, p.block, part, k_begin, k_end);
  } else {
    pivot_block<false>(p.n, p.block, part, k_begin, k_end);
  }
}

void partition_receive_snapshot(const Problem& p, const Partition& part, int k_begin, int k_end) {
  float* snap = part.snapshot;
  const std::int64_t sent = std::int64_t(k_end - k_begin) * p.n;
#pragma acc update device(snap[0:sent])
}

void partition_apply_block(const Problem& p, const Partition& part, int k_begin, int k_end,
                           int skip_begin, int skip_end) {
  if (p.semiring == Semiring::max_plus) {
    apply_block<true>(p.n, p.block, part, k_begin, k_end, skip_begin, skip_end);
  } else {
    apply_block<false>(p.n, p.block, part, k_begin, k_end, skip_begin, skip_end);
  }
}

}  // namespace acclab::apsp::acc
