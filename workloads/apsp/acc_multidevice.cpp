// multidevice's per-device work, in OpenACC; multidevice.cpp runs one OpenMP thread per
// partition of rows and calls these from it. Pivot rows travel as blocks of m <= `block` rows
// K = [kb, kb + m), in the phases of cuda_kernels.cu, written as directives:
//   A  (owner) the pivot tile K x K on one gang, step by step, recording H[s][r] = d[kb+r][kb+s]
//      and the snapshot S[s][kb+c] = d[kb+s][kb+c] as they were before step kb+s;
//   B  (owner) the pivot rows on every other column j, step by step with A's H, recording
//      S[s][j] before each step;
// the snapshot goes to the other partitions; then on every partition's rows outside K:
//   C  the columns K, a worker per row, recording H[s][i] = d[i][kb+s] before step kb+s;
//   D  every other element relaxed with H[s][i] + S[s][j] for s in order: a (max, +) product
//      of the rows' H and S, 4 x 4 elements a lane in registers.
// With paths each phase also records NH[s][i] = next[i][kb+s] beside H and sets next[i][j] to
// it wherever step kb+s strictly improves d[i][j]: row i's own successor, so nothing but S
// crosses partitions.
// H and S are d[i][k] and d[k][j] after the steps before k, the operands of serial step k, so
// the result is bitwise the serial one (apsp.hpp), with one exchange per block instead of one
// per step (the seed's version sent nothing, and relaxed against stale pivot rows).
// Everything runs on two async queues per partition (compute and transfer), so that the
// snapshot's copies overlap the kernels; multidevice.cpp orders them.
#include <openacc.h>

#include "kit/acc_data.hpp"
#include "workloads/apsp/acc_kernels.hpp"

namespace acclab::apsp::acc {
namespace {

// The host address of a snapshot slot (mapped to the device by partition_enter).
float* snapshot_slot(int n, int block, const Partition& part, int slot) {
  return part.snapshot + std::int64_t(slot) * block * n;
}

// With paths the successors travel beside the distances: `next` (the rows' successors) and
// `next_history` (NH[s][r] = next[r][kb+s] before step kb+s), passed to the kernels as device
// addresses (on_device: deviceptr), null without paths.
template <bool max_plus, bool paths>
void pivot_block(int n, int block, const Partition& part, Pivots pivots) {
  const int kb = pivots.begin, ke = pivots.end, queue = part.compute_queue;
  float* rows = part.rows;
  float* snap = snapshot_slot(n, block, part, pivots.slot);
  float* hist = part.history;
  std::int32_t* next = on_device<paths>(part.next);
  std::int32_t* next_hist = on_device<paths>(part.next_history);
  const int r0 = part.row_begin, count = part.row_end - part.row_begin, m = ke - kb;
  const int top = kb - r0;  // the pivot rows' first local row
  const std::int64_t nl = std::int64_t(count) * n;
  const std::int64_t ns = std::int64_t(block) * n;
  const std::int64_t nh = std::int64_t(block) * count;
  // A: workers over the tile's rows; the end of a worker loop is a barrier between steps.
#pragma acc parallel num_gangs(1) num_workers(16) vector_length(32) \
    present(rows [0:nl], snap [0:ns], hist [0:nh]) deviceptr(next, next_hist) async(queue)
  {
    for (int s = 0; s < m; ++s) {
      const int k = kb + s;
#pragma acc loop worker vector
      for (int c = 0; c < m; ++c) snap[s * n + kb + c] = rows[std::int64_t(k - r0) * n + kb + c];
#pragma acc loop worker
      for (int r = 0; r < m; ++r) {
        float* row = &rows[std::int64_t(top + r) * n + kb];
        const float rk = row[s];
        hist[s * count + top + r] = rk;
        std::int32_t* next_row = nullptr;
        std::int32_t nk = 0;
        if constexpr (paths) {
          next_row = &next[std::int64_t(top + r) * n + kb];
          nk = next_row[s];
          next_hist[s * count + top + r] = nk;
        }
#pragma acc loop vector
        for (int c = 0; c < m; ++c) {
          relax_at<max_plus, paths>(row, next_row, c, rk + snap[s * n + kb + c], nk);
        }
      }
    }
  }
  // B: a lane per column outside K, stepping its m pivot values in order (through L1). Gangs
  // of one warp, so that the n columns spread over every multiprocessor (128-lane gangs, or a
  // gang per 32 columns with workers over the rows and a barrier per step, leave most of them
  // idle: bench/results/h200/apsp/NOTES.md).
#pragma acc parallel loop gang vector vector_length(32) \
    present(rows [0:nl], snap [0:ns], hist [0:nh]) deviceptr(next, next_hist) async(queue)
  for (int j = 0; j < n; ++j) {
    if (j >= kb && j < ke) continue;
    for (int s = 0; s < m; ++s) {
      const float v = rows[std::int64_t(top + s) * n + j];
      snap[std::int64_t(s) * n + j] = v;
      for (int r = 0; r < m; ++r) {
        float* x = &rows[std::int64_t(top + r) * n + j];
        const float through = hist[std::int64_t(s) * count + top + r] + v;
        if constexpr (paths) {
          if (improves<max_plus>(*x, through)) {
            *x = through;
            next[std::int64_t(top + r) * n + j] = next_hist[std::int64_t(s) * count + top + r];
          }
        } else {
          *x = relax<max_plus>(*x, through);
        }
      }
    }
  }
}

template <bool max_plus, bool paths>
void apply_block(int n, int block, const Partition& part, Pivots pivots, RowRange range,
                 Phases phases) {
  const int kb = pivots.begin, ke = pivots.end, queue = part.compute_queue;
  float* rows = part.rows;
  const float* snap = snapshot_slot(n, block, part, pivots.slot);
  float* hist = part.history;
  std::int32_t* next = on_device<paths>(part.next);
  std::int32_t* next_hist = on_device<paths>(part.next_history);
  const int r0 = part.row_begin, count = part.row_end - part.row_begin, m = ke - kb;
  const std::int64_t nl = std::int64_t(count) * n;
  const std::int64_t ns = std::int64_t(block) * n;
  const std::int64_t nh = std::int64_t(block) * count;
  // Local rows [first, last) less [skip_b, skip_e).
  const int first = range.begin - r0, last = range.end - r0;
  const int skip_b = range.skip_begin - r0, skip_e = range.skip_end - r0;
  if (first >= last || (skip_b <= first && skip_e >= last)) return;  // no row to relax
  if (phases != Phases::tiles) {
    // C: a worker per row, its lanes over the columns K; each step reads the row's value in
    // column kb + s after the lanes' previous step (a warp barrier ends each vector loop).
#pragma acc parallel loop gang worker num_workers(4) vector_length(32) \
    present(rows [0:nl], snap [0:ns], hist [0:nh]) deviceptr(next, next_hist) async(queue)
    for (int r = first; r < last; ++r) {
      if (r >= skip_b && r < skip_e) continue;
      float* row = &rows[std::int64_t(r) * n + kb];
      std::int32_t* next_row = nullptr;
      if constexpr (paths) next_row = &next[std::int64_t(r) * n + kb];
      for (int s = 0; s < m; ++s) {
        const float h = row[s];
        hist[std::int64_t(s) * count + r] = h;
        std::int32_t nh = 0;
        if constexpr (paths) nh = next_hist[std::int64_t(s) * count + r] = next_row[s];
#pragma acc loop vector
        for (int c = 0; c < m; ++c) {
          relax_at<max_plus, paths>(row, next_row, c, h + snap[std::int64_t(s) * n + kb + c], nh);
        }
      }
    }
  }
  if (phases == Phases::columns) return;
  // D: a gang per tile of 16 rows x 128 columns, each lane 4 x 4 elements in registers (rows
  // 4 apart, columns 32 apart: a warp's loads of S are coalesced, its loads of H one address;
  // relax_lane_tile). H and S come through L1: the tile's 64 x 128 slice of S is 32 KB. Rows
  // and columns past the end read the last one and are not stored; nor are the columns K (C's)
  // and the skipped rows.
  constexpr int tile_rows = 16, tile_cols = 128, lanes = 128;
  const int row_tiles = (last - first + tile_rows - 1) / tile_rows;
  const int column_tiles = (n + tile_cols - 1) / tile_cols;
#pragma acc parallel loop gang collapse(2) vector_length(lanes) \
    present(rows [0:nl], snap [0:ns], hist [0:nh]) deviceptr(next, next_hist) async(queue)
  for (int tr = 0; tr < row_tiles; ++tr) {
    for (int tc = 0; tc < column_tiles; ++tc) {
#pragma acc loop vector
      for (int lane = 0; lane < lanes; ++lane) {
        int i[4], j[4];
        bool store_row[4], store_column[4];
#pragma GCC unroll 4
        for (int a = 0; a < 4; ++a) {
          const int r = first + tr * tile_rows + lane / 32 + 4 * a;
          i[a] = r < last ? r : last - 1;  // (no std::min in kernels: a -O0 build calls it)
          store_row[a] = r < last && (r < skip_b || r >= skip_e);
          const int c = tc * tile_cols + lane % 32 + 32 * a;
          j[a] = c < n ? c : n - 1;
          store_column[a] = c < n && (c < kb || c >= ke);
        }
        relax_lane_tile<max_plus, paths>(rows, next, n, i, j, store_row, store_column, hist,
                                         next_hist, count, snap, n, m);
      }
    }
  }
}

}  // namespace

int nvidia_devices() { return acc_get_num_devices(acc_device_nvidia); }

void partition_enter(const Problem& p, const Partition& part) {
  partition_select(part);
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  // A partition without rows (more devices than blocks) keeps nothing on its device: it runs
  // no kernel, and its empty sections could not be entered anyway (kit/acc_data.hpp).
  const std::int64_t ns = nl > 0 ? 2 * std::int64_t(p.block) * p.n : 0;  // both slots
  const std::int64_t nh = std::int64_t(p.block) * (part.row_end - part.row_begin);
  acc_enter_copyin(part.rows, nl);
  acc_enter_create(part.snapshot, ns);
  acc_enter_create(part.history, nh);
  if (p.paths) {
    acc_enter_copyin(part.next, nl);
    acc_enter_create(part.next_history, nh);
  }
}

void partition_select(const Partition& part) {
  if (acc_get_num_devices(acc_device_nvidia) > 0) {
    acc_set_device_num(part.device, acc_device_nvidia);
  }
}

void partition_upload(const Problem& p, const Partition& part) {
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  acc_update_to_device(part.rows, nl);
  if (p.paths) acc_update_to_device(part.next, nl);
}

void partition_exit(const Problem& p, const Partition& part, bool copy_out) {
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  const std::int64_t ns = nl > 0 ? 2 * std::int64_t(p.block) * p.n : 0;  // as partition_enter
  const std::int64_t nh = std::int64_t(p.block) * (part.row_end - part.row_begin);
  // A partition without rows queued nothing, and its thread may have no device to wait on
  // (libgomp: "no device active").
  if (nl > 0) partition_wait(part);
  if (copy_out) acc_update_host(part.rows, nl);
  acc_exit_delete(part.rows, nl);
  acc_exit_delete(part.snapshot, ns);
  acc_exit_delete(part.history, nh);
  if (p.paths) {
    if (copy_out) acc_update_host(part.next, nl);
    acc_exit_delete(part.next, nl);
    acc_exit_delete(part.next_history, nh);
  }
}

void partition_pivot_block(const Problem& p, const Partition& part, Pivots pivots, float* publish) {
  const bool max_plus = p.semiring == Semiring::max_plus;
  const auto pivot = max_plus ? (p.paths ? pivot_block<true, true> : pivot_block<true, false>)
                              : (p.paths ? pivot_block<false, true> : pivot_block<false, false>);
  pivot(p.n, p.block, part, pivots);
  if (publish == nullptr) return;
  // Straight from the device into the shared buffer, once the pivot kernels are done; the
  // compute queue goes on with the next kernels meanwhile.
  const std::size_t count = std::size_t(pivots.end - pivots.begin) * p.n;
  acc_wait_async(part.compute_queue, part.transfer_queue);
  acc_memcpy_from_device_async(publish,
                               acc_deviceptr(snapshot_slot(p.n, p.block, part, pivots.slot)),
                               sizeof(float) * count, part.transfer_queue);
}

void partition_receive_snapshot(const Problem& p, const Partition& part, Pivots pivots,
                                const float* published) {
  // The slot is free once the compute queue's earlier kernels (which read it two rounds ago)
  // are done; the kernels asked for next wait for the copy.
  const std::size_t count = std::size_t(pivots.end - pivots.begin) * p.n;
  acc_wait_async(part.compute_queue, part.transfer_queue);
  acc_memcpy_to_device_async(acc_deviceptr(snapshot_slot(p.n, p.block, part, pivots.slot)),
                             const_cast<float*>(published), sizeof(float) * count,
                             part.transfer_queue);
  acc_wait_async(part.transfer_queue, part.compute_queue);
}

void partition_apply_block(const Problem& p, const Partition& part, Pivots pivots, RowRange rows,
                           Phases phases) {
  const bool max_plus = p.semiring == Semiring::max_plus;
  const auto apply = max_plus ? (p.paths ? apply_block<true, true> : apply_block<true, false>)
                              : (p.paths ? apply_block<false, true> : apply_block<false, false>);
  apply(p.n, p.block, part, pivots, rows, phases);
}

void partition_wait_transfers(const Partition& part) { acc_wait(part.transfer_queue); }

void partition_wait(const Partition& part) {
  acc_wait(part.compute_queue);
  acc_wait(part.transfer_queue);
}

}  // namespace acclab::apsp::acc
