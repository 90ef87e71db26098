// MPI ranks with OpenACC: each rank's blocks, panels and diagonal resident on its GPU (GPU
// local rank mod GPUs) for the whole measurement, the phases of mpi_blocks.hpp as directives
// after multidevice's (A on one gang, workers over the tile's rows; B a lane per column; C a
// worker per row; D a lane per element), and what MPI moves staged through the host copies of
// the panels (update self before a broadcast, update device after). Without a GPU the same
// code runs on the host, which is how CI checks it.
#include <openacc.h>

#include "core/acc_data.hpp"
#include "workloads/apsp/mpi_blocks.hpp"

namespace acclab::apsp {
namespace {

// The serial loop's std::max / std::min, and whether `through` replaces `now` (apsp.hpp).
#pragma acc routine seq
template <bool max_plus>
inline float relax_one(float now, float through) {
  return max_plus ? (now < through ? through : now) : (through < now ? through : now);
}
#pragma acc routine seq
template <bool max_plus>
inline bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}

// The device address of a successor array (deviceptr in the kernels), null without paths.
template <bool paths>
std::int32_t* on_device(std::int32_t* host) {
  return paths ? static_cast<std::int32_t*>(acc_deviceptr(host)) : nullptr;
}

class MpiAcc : public MpiApspInstance {
 public:
  using MpiApspInstance::MpiApspInstance;
  ~MpiAcc() override {
    if (!entered_) return;
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
    MpiApspInstance::setup();
    // One GPU a rank, by the rank's place on its node; ranks share GPUs when there are fewer.
    const int gpus = acc_get_num_devices(acc_device_not_host);
    if (gpus > 0) acc_set_device_num(mpi::local_rank() % gpus, acc_device_not_host);
    panel_path_ = gpus > 0 ? "host-staged" : "host";
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

 protected:
  void upload() override {
    acc_update_to_device(local_.data(), std::int64_t(local_.size()));
    if (p_.paths) acc_update_to_device(local_next_.data(), std::int64_t(local_next_.size()));
  }
  void fetch() override {
    acc_update_host(local_.data(), std::int64_t(local_.size()));
    if (p_.paths) acc_update_host(local_next_.data(), std::int64_t(local_next_.size()));
  }
  void to_host(Buffer buffer, const Round& r) override { stage(buffer, r, true); }
  void to_device(Buffer buffer, const Round& r) override { stage(buffer, r, false); }

  void close_diagonal(const Round& r) override {
    dispatch([&]<bool max_plus, bool paths>() { diagonal<max_plus, paths>(r); });
  }
  void update_row_panel(const Round& r) override {
    dispatch([&]<bool max_plus, bool paths>() { row_panel<max_plus, paths>(r); });
  }
  void update_column_panel(const Round& r) override {
    dispatch([&]<bool max_plus, bool paths>() { column_panel<max_plus, paths>(r); });
  }
  void relax(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) override {
    if (rows.empty() || cols.empty()) return;
    dispatch([&]<bool max_plus, bool paths>() {
      tiles<max_plus, paths>(r, rows, skip_rows, cols, skip_cols);
    });
  }

 private:
  template <class Body>
  void dispatch(Body&& body) {
    const bool max_plus = p_.semiring == Semiring::max_plus;
    if (max_plus && p_.paths) body.template operator()<true, true>();
    if (max_plus && !p_.paths) body.template operator()<true, false>();
    if (!max_plus && p_.paths) body.template operator()<false, true>();
    if (!max_plus && !p_.paths) body.template operator()<false, false>();
  }

  // The round's part of a buffer between the host copy and the device copy.
  void stage(Buffer buffer, const Round& r, bool to_host_copy) {
    const std::int64_t m = r.size;
    auto copy = [&](auto* p, std::int64_t count) {
      if (to_host_copy) {
        acc_update_host(p, count);
      } else {
        acc_update_to_device(p, count);
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
    deviceptr(next, next_diag)
    {
      for (int s = 0; s < m; ++s) {
#pragma acc loop worker vector
        for (int c = 0; c < m; ++c) diag[ss + s * m + c] = d[std::int64_t(r0 + s) * ld + c0 + c];
#pragma acc loop worker
        for (int i = 0; i < m; ++i) {
          float* row = &d[std::int64_t(r0 + i) * ld + c0];
          const float hi = row[s];
          diag[hs + s * m + i] = hi;
          if constexpr (paths) {
            std::int32_t* next_row = &next[std::int64_t(r0 + i) * ld + c0];
            const std::int32_t nh = next_row[s];
            next_diag[s * m + i] = nh;
#pragma acc loop vector
            for (int c = 0; c < m; ++c) {
              const float through = hi + diag[ss + s * m + c];
              if (improves<max_plus>(row[c], through)) {
                row[c] = through;
                next_row[c] = nh;
              }
            }
          } else {
#pragma acc loop vector
            for (int c = 0; c < m; ++c)
              row[c] = relax_one<max_plus>(row[c], hi + diag[ss + s * m + c]);
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
    present(d [0:nl], diag [0:nd], panel [0:np]) deviceptr(next, next_diag)
    for (int j = 0; j < cols; ++j) {
      if (j >= skip_b && j < skip_e) continue;
      for (int s = 0; s < m; ++s) {
        const float v = d[std::int64_t(r0 + s) * ld + j];
        panel[base + std::int64_t(s) * cols + j] = v;
        for (int i = 0; i < m; ++i) {
          float* x = &d[std::int64_t(r0 + i) * ld + j];
          const float through = diag[s * m + i] + v;
          if constexpr (paths) {
            if (improves<max_plus>(*x, through)) {
              *x = through;
              next[std::int64_t(r0 + i) * ld + j] = next_diag[s * m + i];
            }
          } else {
            *x = relax_one<max_plus>(*x, through);
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
    present(d [0:nl], diag [0:nd], panel [0:np]) deviceptr(next, next_panel)
    for (int i = 0; i < rows; ++i) {
      if (i >= skip_b && i < skip_e) continue;
      float* row = &d[std::int64_t(i) * ld + c0];
      for (int s = 0; s < m; ++s) {
        const float hi = row[s];
        panel[base + std::int64_t(s) * rows + i] = hi;
        if constexpr (paths) {
          std::int32_t* next_row = &next[std::int64_t(i) * ld + c0];
          const std::int32_t nh = next_row[s];
          next_panel[base + std::int64_t(s) * rows + i] = nh;
#pragma acc loop vector
          for (int c = 0; c < m; ++c) {
            const float through = hi + diag[ss + s * m + c];
            if (improves<max_plus>(row[c], through)) {
              row[c] = through;
              next_row[c] = nh;
            }
          }
        } else {
#pragma acc loop vector
          for (int c = 0; c < m; ++c)
            row[c] = relax_one<max_plus>(row[c], hi + diag[ss + s * m + c]);
        }
      }
    }
  }

  // D: a gang per row, a lane per element, the m steps in order with the round's panels (H one
  // address for the gang's lanes, S coalesced).
  template <bool max_plus, bool paths>
  void tiles(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) {
    const int m = r.size, ld = g_.cols, lrows = g_.rows, lcols = g_.cols;
    const std::int64_t nl = std::int64_t(local_.size());
    const std::int64_t nr = std::int64_t(row_panel_.size());
    const std::int64_t nc = std::int64_t(column_panel_.size());
    float* d = local_.data();
    const float* v = row_panel_.data();
    const float* h = column_panel_.data();
    const std::int64_t v_base = std::int64_t(r.slot) * g_.block * lcols;
    const std::int64_t h_base = std::int64_t(r.slot) * g_.block * lrows;
    std::int32_t* next = on_device<paths>(local_next_.data());
    std::int32_t* nh = on_device<paths>(next_panel_.data());
    const int i0 = rows.begin, i1 = rows.end, j0 = cols.begin, j1 = cols.end;
    const int sr0 = skip_rows.begin, sr1 = skip_rows.end;
    const int sc0 = skip_cols.begin, sc1 = skip_cols.end;
#pragma acc parallel loop gang vector_length(128) present(d [0:nl], v [0:nr], h [0:nc]) \
    deviceptr(next, nh)
    for (int i = i0; i < i1; ++i) {
      if (i >= sr0 && i < sr1) continue;
#pragma acc loop vector
      for (int j = j0; j < j1; ++j) {
        if (j >= sc0 && j < sc1) continue;
        const std::int64_t at = std::int64_t(i) * ld + j;
        float x = d[at];
        if constexpr (paths) {
          std::int32_t succ = next[at];
          for (int s = 0; s < m; ++s) {
            const float through =
                h[h_base + std::int64_t(s) * lrows + i] + v[v_base + std::int64_t(s) * lcols + j];
            if (improves<max_plus>(x, through)) {
              x = through;
              succ = nh[h_base + std::int64_t(s) * lrows + i];
            }
          }
          next[at] = succ;
        } else {
          for (int s = 0; s < m; ++s) {
            x = relax_one<max_plus>(x, h[h_base + std::int64_t(s) * lrows + i] +
                                           v[v_base + std::int64_t(s) * lcols + j]);
          }
        }
        d[at] = x;
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
