// multidevice's per-device work, in OpenACC; multidevice.cpp runs one OpenMP thread per
// partition of rows and calls these from it. Pivot rows travel as blocks of m <= `block` rows
// K = [kb, kb + m), in the phases of cuda_kernels.cu, written as directives:
//   A  (owner) the pivot tile K x K on one gang, step by step, recording H[s][r] = d[kb+r][kb+s]
//      and the snapshot S[s][kb+c] = d[kb+s][kb+c] as they were before step kb+s;
//   B  (owner) the pivot rows on every other column j, one lane per column: each column steps
//      its m values in order with A's H, recording S[s][j];
// the snapshot goes to the other partitions; then on every partition's rows outside K:
//   C  the columns K, one lane per row, recording H[s][i] = d[i][kb+s] before step kb+s;
//   D  every other element relaxed with H[s][i] + S[s][j] for s in order, four columns a lane.
// H and S are d[i][k] and d[k][j] after the steps before k, the operands of serial step k, so
// the result is bitwise the serial one (apsp.hpp), with one exchange per block instead of one
// per step (the seed's version sent nothing, and relaxed against stale pivot rows).
#include <openacc.h>

#include <algorithm>

#include "workloads/apsp/acc_kernels.hpp"

namespace acclab::apsp::acc {
namespace {

// The serial loop's std::max / std::min. (fmaxf would be one instruction, max.f32, but GCC 12
// expands it only under -ffinite-math-only and otherwise calls a libm the offload link lacks.)
#pragma acc routine seq
template <bool max_plus>
inline float relax(float now, float through) {
  return max_plus ? (now < through ? through : now) : (through < now ? through : now);
}

template <bool max_plus>
void pivot_block(int n, int block, const Partition& part, int kb, int ke) {
  float* rows = part.rows;
  float* snap = part.snapshot;
  float* hist = part.history;
  const int r0 = part.row_begin, count = part.row_end - part.row_begin, m = ke - kb;
  const int top = kb - r0;  // the pivot rows' first local row
  const std::int64_t nl = std::int64_t(count) * n;
  const std::int64_t ns = std::int64_t(block) * n;
  const std::int64_t nh = std::int64_t(block) * count;
  // A: workers over the tile's rows; the end of a worker loop is a barrier between steps.
#pragma acc parallel num_gangs(1) num_workers(16) vector_length(32) \
    present(rows[0:nl], snap[0:ns], hist[0:nh])
  {
    for (int s = 0; s < m; ++s) {
      const int k = kb + s;
#pragma acc loop worker vector
      for (int c = 0; c < m; ++c) snap[s * n + kb + c] = rows[(k - r0) * n + kb + c];
#pragma acc loop worker
      for (int r = 0; r < m; ++r) {
        const float rk = rows[(top + r) * n + k];
        hist[s * count + top + r] = rk;
#pragma acc loop vector
        for (int c = 0; c < m; ++c) {
          float* x = &rows[(top + r) * n + kb + c];
          *x = relax<max_plus>(*x, rk + snap[s * n + kb + c]);
        }
      }
    }
  }
  // B: one lane per column outside K.
#pragma acc parallel loop gang vector vector_length(128) \
    present(rows[0:nl], snap[0:ns], hist[0:nh])
  for (int j = 0; j < n; ++j) {
    if (j >= kb && j < ke) continue;
    for (int s = 0; s < m; ++s) {
      const float v = rows[(top + s) * n + j];
      snap[s * n + j] = v;
      for (int r = 0; r < m; ++r) {
        float* x = &rows[(top + r) * n + j];
        *x = relax<max_plus>(*x, hist[s * count + top + r] + v);
      }
    }
  }
}

template <bool max_plus>
void apply_block(int n, int block, const Partition& part, int kb, int ke, int skip_begin,
                 int skip_end) {
  float* rows = part.rows;
  const float* snap = part.snapshot;
  float* hist = part.history;
  const int r0 = part.row_begin, count = part.row_end - part.row_begin, m = ke - kb;
  const std::int64_t nl = std::int64_t(count) * n;
  const std::int64_t ns = std::int64_t(block) * n;
  const std::int64_t nh = std::int64_t(block) * count;
  const int skip_b = skip_begin - r0, skip_e = skip_end - r0;
  // C: one lane per row, on the columns K.
#pragma acc parallel loop gang vector vector_length(128) \
    present(rows[0:nl], snap[0:ns], hist[0:nh])
  for (int r = 0; r < count; ++r) {
    if (r >= skip_b && r < skip_e) continue;
    for (int s = 0; s < m; ++s) {
      const float h = rows[r * n + kb + s];
      hist[s * count + r] = h;
      for (int c = 0; c < m; ++c) {
        float* x = &rows[r * n + kb + c];
        *x = relax<max_plus>(*x, h + snap[s * n + kb + c]);
      }
    }
  }
  // D: a gang per pair of rows, each lane four columns a quarter of the row apart (coalesced
  // loads of S; one load of S and of H serve two and four relaxations). A row or column past
  // the end reads the last one and is not stored; nor are the columns K (C's) and the skipped
  // rows.
  const int quarter = (n + 3) / 4, pairs = (count + 1) / 2;
#pragma acc parallel loop gang vector_length(128) present(rows[0:nl], snap[0:ns], hist[0:nh])
  for (int pair = 0; pair < pairs; ++pair) {
    const int ra = 2 * pair, rb = std::min(ra + 1, count - 1);
    const bool store_a = ra < skip_b || ra >= skip_e;
    const bool store_b = ra + 1 < count && (rb < skip_b || rb >= skip_e);
    if (!store_a && !store_b) continue;
#pragma acc loop vector
    for (int q = 0; q < quarter; ++q) {
      const int j[4] = {q, std::min(q + quarter, n - 1), std::min(q + 2 * quarter, n - 1),
                        std::min(q + 3 * quarter, n - 1)};
      float* row_a = &rows[std::int64_t(ra) * n];
      float* row_b = &rows[std::int64_t(rb) * n];
      float a0 = row_a[j[0]], a1 = row_a[j[1]], a2 = row_a[j[2]], a3 = row_a[j[3]];
      float b0 = row_b[j[0]], b1 = row_b[j[1]], b2 = row_b[j[2]], b3 = row_b[j[3]];
      for (int s = 0; s < m; ++s) {
        const float ha = hist[s * count + ra], hb = hist[s * count + rb];
        const float* pivot = &snap[std::int64_t(s) * n];
        const float v0 = pivot[j[0]], v1 = pivot[j[1]], v2 = pivot[j[2]], v3 = pivot[j[3]];
        a0 = relax<max_plus>(a0, ha + v0);
        a1 = relax<max_plus>(a1, ha + v1);
        a2 = relax<max_plus>(a2, ha + v2);
        a3 = relax<max_plus>(a3, ha + v3);
        b0 = relax<max_plus>(b0, hb + v0);
        b1 = relax<max_plus>(b1, hb + v1);
        b2 = relax<max_plus>(b2, hb + v2);
        b3 = relax<max_plus>(b3, hb + v3);
      }
      const float a[4] = {a0, a1, a2, a3}, b[4] = {b0, b1, b2, b3};
      for (int c = 0; c < 4; ++c) {
        const bool column = q + c * quarter < n && (j[c] < kb || j[c] >= ke);
        if (column && store_a) row_a[j[c]] = a[c];
        if (column && store_b) row_b[j[c]] = b[c];
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
  float* hist = part.history;
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  const std::int64_t ns = std::int64_t(p.block) * p.n;
  const std::int64_t nh = std::int64_t(p.block) * (part.row_end - part.row_begin);
#pragma acc enter data copyin(rows[0:nl]) create(snap[0:ns], hist[0:nh])
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
  float* hist = part.history;
  const std::int64_t nl = std::int64_t(part.row_end - part.row_begin) * p.n;
  const std::int64_t ns = std::int64_t(p.block) * p.n;
  const std::int64_t nh = std::int64_t(p.block) * (part.row_end - part.row_begin);
  if (copy_out) {
#pragma acc update self(rows[0:nl])
  }
#pragma acc exit data delete(rows[0:nl], snap[0:ns], hist[0:nh])
}

void partition_pivot_block(const Problem& p, const Partition& part, int k_begin, int k_end,
                           float* publish) {
  if (p.semiring == Semiring::max_plus) {
    pivot_block<true>(p.n, p.block, part, k_begin, k_end);
  } else {
    pivot_block<false>(p.n, p.block, part, k_begin, k_end);
  }
  // Straight from the device into the shared buffer (no copy through the partition's own).
  const std::size_t bytes = sizeof(float) * std::size_t(k_end - k_begin) * p.n;
  acc_memcpy_from_device(publish, acc_deviceptr(part.snapshot), bytes);
}

void partition_receive_snapshot(const Problem& p, const Partition& part, int k_begin, int k_end,
                                const float* published) {
  const std::size_t bytes = sizeof(float) * std::size_t(k_end - k_begin) * p.n;
  acc_memcpy_to_device(acc_deviceptr(part.snapshot), const_cast<float*>(published), bytes);
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
