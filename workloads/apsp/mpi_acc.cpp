// MPI ranks with OpenACC: each rank's blocks, panels and diagonal resident on its GPU (GPU
// local rank mod GPUs) for the whole measurement, the phases of mpi_blocks.hpp as directives
// after multidevice's (A on one gang, workers over the tile's rows; B a lane per column; C a
// worker per row; D in register tiles), queued on one async queue as multidevice's are. What
// MPI moves is staged through the host copies of the panels (update self before a broadcast,
// update device after, each waited for). One rank moves nothing, and holds the whole matrix in
// its local array in global order (a 1 x 1 grid deals it every block): that is multidevice's
// one partition, so its rounds are multidevice's own constructs (acc_multidevice.cpp) on that
// array, the same kernels, launch shapes and scalars a launch as multidevice on one GPU.
// Without a GPU the same code runs on the host, which is how CI checks it.
#include <openacc.h>

#include <algorithm>
#include <chrono>

#include "kit/acc_data.hpp"
#include "workloads/apsp/acc_kernels.hpp"
#include "workloads/apsp/mpi_blocks.hpp"

namespace acclab::apsp {
namespace {

using acc::on_device;
using acc::relax_at;

class MpiAcc : public MpiPhasesBySemiring<MpiAcc> {
 public:
  using MpiPhasesBySemiring::MpiPhasesBySemiring;
  ~MpiAcc() override {
    if (!entered_) return;
    acc_wait(queue);
    acc_exit_delete(local_.data(), std::int64_t(local_.size()));
    acc_exit_delete(row_panel_.data(), std::int64_t(row_panel_.size()));
    acc_exit_delete(column_panel_.data(), std::int64_t(column_panel_.size()));
    acc_exit_delete(diag_.data(), std::int64_t(diag_.size()));
    if (p_.paths) {
      acc_exit_delete(local_next_.data(), std::int64_t(local_next_.size()));
      acc_exit_delete(next_panel_.data(), std::int64_t(next_panel_.size()));
      acc_exit_delete(next_diag_.data(), std::int64_t(next_diag_.size()));
    }
  }

  void setup() override {
    // One GPU a rank, by the rank's place on its node; ranks share GPUs when there are fewer.
    // Each rank's share is checked against its GPU's free memory before anything is allocated:
    // libgomp would otherwise abort the rank that runs out.
    const int gpus = acc_get_num_devices(acc_device_not_host);
    const int device = gpus > 0 ? mpi::local_rank() % gpus : 0;
    double free_bytes = 0;
    if (gpus > 0) {
      acc_set_device_num(device, acc_device_not_host);  // opens it: libgomp knows its free memory
      free_bytes = double(acc_get_property(device, acc_device_not_host, acc_property_free_memory));
    }
    check_device_share("mpi_acc", free_bytes, gpus, device);
    MpiApspInstance::setup();
    // Without a GPU MPI reads the arrays the phases write; with one, other ranks' panels go
    // through the host copies, and one rank's stay on its GPU.
    panel_path_ = gpus == 0 ? "host" : mpi::size() == 1 ? "none (one rank)" : "host-staged";
    acc_enter_copyin(local_.data(), std::int64_t(local_.size()));
    acc_enter_create(row_panel_.data(), std::int64_t(row_panel_.size()));
    acc_enter_create(column_panel_.data(), std::int64_t(column_panel_.size()));
    acc_enter_create(diag_.data(), std::int64_t(diag_.size()));
    if (p_.paths) {
      acc_enter_copyin(local_next_.data(), std::int64_t(local_next_.size()));
      acc_enter_create(next_panel_.data(), std::int64_t(next_panel_.size()));
      acc_enter_create(next_diag_.data(), std::int64_t(next_diag_.size()));
    }
    entered_ = true;
  }

  // One rank runs multidevice's rounds (run_as_one_partition); several, mpi_blocks.hpp's.
  void run() override {
    if (mpi::size() > 1) {
      MpiApspInstance::run();
    } else {
      run_as_one_partition();
    }
  }

 protected:
  void upload() override {
    acc_wait(queue);
    acc_update_to_device(local_.data(), std::int64_t(local_.size()));
    if (p_.paths) acc_update_to_device(local_next_.data(), std::int64_t(local_next_.size()));
  }
  void fetch() override {
    acc_wait(queue);
    acc_update_host(local_.data(), std::int64_t(local_.size()));
    if (p_.paths) acc_update_host(local_next_.data(), std::int64_t(local_next_.size()));
  }
  void to_host(Buffer buffer, const Round& r) override { stage(buffer, r, true); }
  void to_device(Buffer buffer, const Round& r) override { stage(buffer, r, false); }
  void wait_for_phases() override { acc_wait(queue); }

 private:
  friend class MpiPhasesBySemiring<MpiAcc>;
  // The rank's async queue: every phase and every staging copy, in order.
  static constexpr int queue = 1;

  // One rank's arrays as multidevice's one partition, already on the device (setup): rows
  // are the local blocks, the snapshot's two slots the row panel's (both [slot][s][j], b x n),
  // the pivot columns' history (b x n) the column panel's first slot, and with paths the
  // successors and their history likewise. Its device is this thread's current one (setup);
  // its transfer queue is never used: one partition publishes nothing.
  acc::Partition one_partition() {
    acc::Partition part;
    part.row_begin = 0;
    part.row_end = g_.n;
    part.compute_queue = queue;
    part.transfer_queue = queue + 1;
    part.rows = local_.data();
    part.snapshot = row_panel_.data();
    part.history = column_panel_.data();
    if (p_.paths) {
      part.next = local_next_.data();
      part.next_history = next_panel_.data();
    }
    return part;
  }

  // multidevice's run_partition for one partition owning every block: the pivot block (A, B)
  // then C and D on the other rows; with lookahead=on, C, D on the next pivot rows, the next
  // pivot block, then D on the rest, as multidevice orders them. Bitwise the serial loop, as
  // multidevice is.
  void run_as_one_partition() {
    const auto start = std::chrono::steady_clock::now();
    start_accounting();
    const acc::Partition part = one_partition();
    const int n = g_.n, b = g_.block;
    const bool ahead = lookahead();
    auto pivots_of = [&](int kb) { return acc::Pivots{kb, std::min(n, kb + b), (kb / b) % 2}; };
    for (int kb = 0; kb < n; kb += b) {
      const acc::Pivots pivots = pivots_of(kb);
      if (kb == 0 || !ahead) acc::partition_pivot_block(p_, part, pivots, nullptr);
      acc::RowRange rest{0, n, kb, pivots.end};  // the pivot rows went through A and B
      if (ahead && pivots.end < n) {
        const acc::Pivots next = pivots_of(pivots.end);
        acc::partition_apply_block(p_, part, pivots, rest, acc::Phases::columns);
        acc::partition_apply_block(p_, part, pivots, {next.begin, next.end, 0, 0},
                                   acc::Phases::tiles);
        acc::partition_pivot_block(p_, part, next, nullptr);
        rest.skip_end = next.end;  // the next pivot rows follow this round's
        acc::partition_apply_block(p_, part, pivots, rest, acc::Phases::tiles);
      } else {
        acc::partition_apply_block(p_, part, pivots, rest);
      }
    }
    acc::partition_wait(part);
    run_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // The round's part of a buffer between the host copy and the device copy, queued behind the
  // phases that wrote it (or before those that read it), then waited for: the host copy is
  // MPI's again once it returns.
  void stage(Buffer buffer, const Round& r, bool to_host_copy) {
    const std::int64_t m = r.size;
    auto copy = [&](auto* p, std::int64_t count) {
      const std::size_t bytes = sizeof(*p) * std::size_t(count);
      if (to_host_copy) {
        acc_update_self_async(p, bytes, queue);
      } else {
        acc_update_device_async(p, bytes, queue);
      }
    };
    switch (buffer) {
      case Buffer::diagonal:
        copy(diag_.data(), 2 * m * m);
        if (p_.paths) copy(next_diag_.data(), m * m);
        break;
      case Buffer::row_panel:
        copy(row_slot(r.slot), m * g_.cols);
        break;
      case Buffer::column_panel:
        copy(column_slot(r.slot), m * g_.rows);
        if (p_.paths) copy(next_slot(r.slot), m * g_.rows);
        break;
    }
    acc_wait(queue);
  }

  // A: the diagonal block on one gang, workers over its rows; the end of a worker loop is the
  // barrier between steps. H and S recorded before each step.
  template <bool max_plus, bool paths>
  void diagonal(const Round& r) {
    const int m = r.size, r0 = r.rows.begin, c0 = r.cols.begin, ld = g_.cols;
    const std::int64_t nl = std::int64_t(local_.size()), nd = std::int64_t(diag_.size());
    float* d = local_.data();
    float* diag = diag_.data();
    std::int32_t* next = on_device<paths>(local_next_.data());
    std::int32_t* next_diag = on_device<paths>(next_diag_.data());
    const int hs = 0, ss = m * m;  // H and S in diag
#pragma acc parallel num_gangs(1) num_workers(16) vector_length(32) present(d [0:nl], diag [0:nd]) \
    deviceptr(next, next_diag) async(queue)
    {
      for (int s = 0; s < m; ++s) {
#pragma acc loop worker vector
        for (int c = 0; c < m; ++c) diag[ss + s * m + c] = d[std::int64_t(r0 + s) * ld + c0 + c];
#pragma acc loop worker
        for (int i = 0; i < m; ++i) {
          float* row = &d[std::int64_t(r0 + i) * ld + c0];
          const float hi = row[s];
          diag[hs + s * m + i] = hi;
          std::int32_t* next_row = nullptr;
          std::int32_t nh = 0;
          if constexpr (paths) {
            next_row = &next[std::int64_t(r0 + i) * ld + c0];
            nh = next_diag[s * m + i] = next_row[s];
          }
#pragma acc loop vector
          for (int c = 0; c < m; ++c) {
            relax_at<max_plus, paths>(row, next_row, c, hi + diag[ss + s * m + c], nh);
          }
        }
      }
    }
  }

  // B: a lane per local column outside the pivot columns, stepping the m pivot rows in order,
  // each recorded in the row panel before its step.
  template <bool max_plus, bool paths>
  void row_panel(const Round& r) {
    const int m = r.size, r0 = r.rows.begin, ld = g_.cols, cols = g_.cols;
    const int skip_b = r.cols.begin, skip_e = r.cols.end;
    const std::int64_t nl = std::int64_t(local_.size()), nd = std::int64_t(diag_.size());
    const std::int64_t np = std::int64_t(row_panel_.size());
    float* d = local_.data();
    const float* diag = diag_.data();
    float* panel = row_panel_.data();
    const std::int64_t base = std::int64_t(r.slot) * g_.block * cols;
    std::int32_t* next = on_device<paths>(local_next_.data());
    std::int32_t* next_diag = on_device<paths>(next_diag_.data());
#pragma acc parallel loop gang vector vector_length(32) \
    present(d [0:nl], diag [0:nd], panel [0:np]) deviceptr(next, next_diag) async(queue)
    for (int j = 0; j < cols; ++j) {
      if (j >= skip_b && j < skip_e) continue;
      for (int s = 0; s < m; ++s) {
        const float v = d[std::int64_t(r0 + s) * ld + j];
        panel[base + std::int64_t(s) * cols + j] = v;
        for (int i = 0; i < m; ++i) {
          float* x = &d[std::int64_t(r0 + i) * ld + j];
          const float through = diag[s * m + i] + v;
          if constexpr (paths) {
            if (acc::improves<max_plus>(*x, through)) {
              *x = through;
              next[std::int64_t(r0 + i) * ld + j] = next_diag[s * m + i];
            }
          } else {
            *x = acc::relax<max_plus>(*x, through);
          }
        }
      }
    }
  }

  // C: a worker per local row outside the pivot rows, its lanes over the pivot columns; each
  // step reads the row's pivot column after the lanes' previous step.
  template <bool max_plus, bool paths>
  void column_panel(const Round& r) {
    const int m = r.size, c0 = r.cols.begin, ld = g_.cols, rows = g_.rows;
    const int skip_b = r.rows.begin, skip_e = r.rows.end;
    const std::int64_t nl = std::int64_t(local_.size()), nd = std::int64_t(diag_.size());
    const std::int64_t np = std::int64_t(column_panel_.size());
    float* d = local_.data();
    const float* diag = diag_.data();
    float* panel = column_panel_.data();
    const std::int64_t base = std::int64_t(r.slot) * g_.block * rows;
    std::int32_t* next = on_device<paths>(local_next_.data());
    std::int32_t* next_panel = on_device<paths>(next_panel_.data());
    const int ss = m * m;
#pragma acc parallel loop gang worker num_workers(4) vector_length(32) \
    present(d [0:nl], diag [0:nd], panel [0:np]) deviceptr(next, next_panel) async(queue)
    for (int i = 0; i < rows; ++i) {
      if (i >= skip_b && i < skip_e) continue;
      float* row = &d[std::int64_t(i) * ld + c0];
      std::int32_t* next_row = nullptr;
      if constexpr (paths) next_row = &next[std::int64_t(i) * ld + c0];
      for (int s = 0; s < m; ++s) {
        const float hi = row[s];
        panel[base + std::int64_t(s) * rows + i] = hi;
        std::int32_t nh = 0;
        if constexpr (paths) nh = next_panel[base + std::int64_t(s) * rows + i] = next_row[s];
#pragma acc loop vector
        for (int c = 0; c < m; ++c) {
          relax_at<max_plus, paths>(row, next_row, c, hi + diag[ss + s * m + c], nh);
        }
      }
    }
  }

  // D: multidevice's kernel on a window of the local blocks. A gang per tile of 16 rows x 128
  // columns, each lane 4 x 4 elements in registers (rows 4 apart, columns 32 apart: a warp's
  // loads of S are coalesced, its loads of H one address; relax_lane_tile). Rows and columns
  // past the window read its last one and are not stored; nor are the skipped ones (the
  // round's pivot rows and columns, and lookahead's).
  template <bool max_plus, bool paths>
  void tiles(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) {
    const int m = r.size, ld = g_.cols, lrows = g_.rows, lcols = g_.cols;
    const std::int64_t nl = std::int64_t(local_.size());
    const std::int64_t nr = std::int64_t(row_panel_.size());
    const std::int64_t nc = std::int64_t(column_panel_.size());
    float* d = local_.data();
    const float* v_panel = row_panel_.data();
    const float* h_panel = column_panel_.data();
    const std::int64_t v_base = std::int64_t(r.slot) * g_.block * lcols;
    const std::int64_t h_base = std::int64_t(r.slot) * g_.block * lrows;
    std::int32_t* next = on_device<paths>(local_next_.data());
    // The round's slot of NH, beside H's.
    const std::int32_t* nh_slot = paths ? on_device<paths>(next_panel_.data()) + h_base : nullptr;
    const int i0 = rows.begin, i1 = rows.end, j0 = cols.begin, j1 = cols.end;
    const int sr0 = skip_rows.begin, sr1 = skip_rows.end;
    const int sc0 = skip_cols.begin, sc1 = skip_cols.end;
    constexpr int tile_rows = 16, tile_cols = 128, lanes = 128;
    const int row_tiles = (i1 - i0 + tile_rows - 1) / tile_rows;
    const int column_tiles = (j1 - j0 + tile_cols - 1) / tile_cols;
#pragma acc parallel loop gang collapse(2) vector_length(lanes) \
    present(d [0:nl], v_panel [0:nr], h_panel [0:nc]) deviceptr(next, nh_slot) async(queue)
    for (int tr = 0; tr < row_tiles; ++tr) {
      for (int tc = 0; tc < column_tiles; ++tc) {
#pragma acc loop vector
        for (int lane = 0; lane < lanes; ++lane) {
          int i[4], j[4];
          bool store_row[4], store_column[4];
#pragma GCC unroll 4
          for (int a = 0; a < 4; ++a) {
            const int row = i0 + tr * tile_rows + lane / 32 + 4 * a;
            i[a] = row < i1 ? row : i1 - 1;  // (no std::min in kernels: a -O0 build calls it)
            store_row[a] = row < i1 && (row < sr0 || row >= sr1);
            const int col = j0 + tc * tile_cols + lane % 32 + 32 * a;
            j[a] = col < j1 ? col : j1 - 1;
            store_column[a] = col < j1 && (col < sc0 || col >= sc1);
          }
          acc::relax_lane_tile<max_plus, paths>(d, next, ld, i, j, store_row, store_column,
                                                h_panel + h_base, nh_slot, lrows, v_panel + v_base,
                                                lcols, m);
        }
      }
    }
  }

  bool entered_ = false;
};

}  // namespace

std::unique_ptr<Instance> make_mpi_acc(const Params& params) {
  return std::make_unique<MpiAcc>(params);
}

}  // namespace acclab::apsp
