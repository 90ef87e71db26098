// MPI ranks on the host: each rank's blocks in host memory, the phases of mpi_blocks.hpp as
// loops, D (nearly all the work) over OpenMP threads, panels broadcast straight from the
// arrays they are computed in.
#include <algorithm>

#include "workloads/apsp/mpi_blocks.hpp"

namespace acclab::apsp {
namespace {

// Columns a thread relaxes at a time in B and D: the panel's rows for them (block x 512
// floats, 128 KB at block 64) stay in cache across the rows.
constexpr int column_tile = 512;

template <bool max_plus>
inline bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}
template <bool max_plus>
inline float best(float now, float through) {
  return improves<max_plus>(now, through) ? through : now;
}

class MpiHost : public MpiPhasesBySemiring<MpiHost> {
 public:
  using MpiPhasesBySemiring::MpiPhasesBySemiring;

 private:
  friend class MpiPhasesBySemiring<MpiHost>;
  float* at(int r, int c) { return local_.data() + std::size_t(r) * g_.cols + c; }
  std::int32_t* next_at(int r, int c) { return local_next_.data() + std::size_t(r) * g_.cols + c; }

  // A: step by step on the m x m diagonal block, H and S recorded before each step.
  template <bool max_plus, bool paths>
  void diagonal(const Round& r) {
    const int m = r.size, r0 = r.rows.begin, c0 = r.cols.begin;
    float* h = diag_.data();
    float* s_row = diag_.data() + std::size_t(m) * m;
    for (int s = 0; s < m; ++s) {
      for (int c = 0; c < m; ++c) s_row[s * m + c] = *at(r0 + s, c0 + c);
      for (int i = 0; i < m; ++i) {
        h[s * m + i] = *at(r0 + i, c0 + s);
        if constexpr (paths) next_diag_[s * m + i] = *next_at(r0 + i, c0 + s);
      }
      for (int i = 0; i < m; ++i) {
        float* row = at(r0 + i, c0);
        const float hi = h[s * m + i];
        for (int c = 0; c < m; ++c) {
          const float through = hi + s_row[s * m + c];
          if constexpr (paths) {
            if (improves<max_plus>(row[c], through)) {
              row[c] = through;
              *next_at(r0 + i, c0 + c) = next_diag_[s * m + i];
            }
          } else {
            row[c] = best<max_plus>(row[c], through);
          }
        }
      }
    }
  }

  // B: the pivot rows on every local column outside the pivot columns; each pivot row recorded
  // in the row panel before its step, then the step applied to all m rows.
  template <bool max_plus, bool paths>
  void row_panel(const Round& r) {
    const int m = r.size, r0 = r.rows.begin;
    const float* h = diag_.data();
    float* panel = row_slot(r.slot);
    const int tiles = (g_.cols + column_tile - 1) / column_tile;
#pragma omp parallel for schedule(dynamic)
    for (int t = 0; t < tiles; ++t) {
      const int j0 = t * column_tile, j1 = std::min(g_.cols, j0 + column_tile);
      for (int s = 0; s < m; ++s) {
        float* v = panel + std::size_t(s) * g_.cols;
        std::copy(at(r0 + s, j0), at(r0 + s, j1), v + j0);
        for (int i = 0; i < m; ++i) {
          float* row = at(r0 + i, 0);
          std::int32_t* next_row = paths ? next_at(r0 + i, 0) : nullptr;
          const float hi = h[s * m + i];
          std::int32_t nh = 0;
          if constexpr (paths) nh = next_diag_[s * m + i];
          for (int j = j0; j < j1; ++j) {
            if (j >= r.cols.begin && j < r.cols.end) continue;  // A's
            step<max_plus, paths>(row[j], next_row ? &next_row[j] : nullptr, hi + v[j], nh);
          }
        }
      }
    }
  }

  // C: the pivot columns of every local row outside the pivot rows, H (and NH) recorded.
  template <bool max_plus, bool paths>
  void column_panel(const Round& r) {
    const int m = r.size, c0 = r.cols.begin;
    const float* s_row = diag_.data() + std::size_t(m) * m;
    float* panel = column_slot(r.slot);
    std::int32_t* next_panel = paths ? next_slot(r.slot) : nullptr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < g_.rows; ++i) {
      if (i >= r.rows.begin && i < r.rows.end) continue;  // A's and B's
      float* row = at(i, c0);
      std::int32_t* next_row = paths ? next_at(i, c0) : nullptr;
      for (int s = 0; s < m; ++s) {
        const float hi = row[s];
        panel[std::size_t(s) * g_.rows + i] = hi;
        std::int32_t nh = 0;
        if constexpr (paths) nh = next_panel[std::size_t(s) * g_.rows + i] = next_row[s];
        for (int c = 0; c < m; ++c) {
          step<max_plus, paths>(row[c], next_row ? &next_row[c] : nullptr, hi + s_row[s * m + c],
                                nh);
        }
      }
    }
  }

  // D: rows by columns (less the skipped ones), each element through the m steps in order.
  template <bool max_plus, bool paths>
  void tiles(const Round& r, Span rows, Span skip_rows, Span cols, Span skip_cols) {
    const int m = r.size;
    const float* h = column_slot(r.slot);
    const float* v = row_slot(r.slot);
    const std::int32_t* nh = paths ? next_slot(r.slot) : nullptr;
    const int tiles = (cols.end - cols.begin + column_tile - 1) / column_tile;
    const int count = rows.end - rows.begin;
#pragma omp parallel for collapse(2) schedule(static)
    for (int t = 0; t < tiles; ++t) {
      for (int di = 0; di < count; ++di) {
        const int i = rows.begin + di;
        if (i >= skip_rows.begin && i < skip_rows.end) continue;
        const int j0 = cols.begin + t * column_tile;
        const int j1 = std::min(cols.end, j0 + column_tile);
        // The tile less the skipped columns: at most two pieces.
        const int a_end = std::min(j1, std::max(j0, skip_cols.begin));
        const int b_begin = std::max(j0, std::min(j1, skip_cols.end));
        float* row = at(i, 0);
        std::int32_t* next_row = paths ? next_at(i, 0) : nullptr;
        for (int s = 0; s < m; ++s) {
          const float hi = h[std::size_t(s) * g_.rows + i];
          const float* vs = v + std::size_t(s) * g_.cols;
          if constexpr (paths) {
            const std::int32_t nhi = nh[std::size_t(s) * g_.rows + i];
            for (int j = j0; j < a_end; ++j)
              step<max_plus, true>(row[j], &next_row[j], hi + vs[j], nhi);
            for (int j = b_begin; j < j1; ++j)
              step<max_plus, true>(row[j], &next_row[j], hi + vs[j], nhi);
          } else {
            // Selects, so that the loops vectorise.
            for (int j = j0; j < a_end; ++j) row[j] = best<max_plus>(row[j], hi + vs[j]);
            for (int j = b_begin; j < j1; ++j) row[j] = best<max_plus>(row[j], hi + vs[j]);
          }
        }
      }
    }
  }

  // One relaxation, the successor following a strict improvement (apsp.hpp's rule).
  template <bool max_plus, bool paths>
  static void step(float& x, std::int32_t* next, float through, std::int32_t nh) {
    if constexpr (paths) {
      const bool better = improves<max_plus>(x, through);
      x = better ? through : x;
      *next = better ? nh : *next;
    } else {
      x = best<max_plus>(x, through);
    }
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_host(const Params& params) {
  return std::make_unique<MpiHost>(params);
}

}  // namespace acclab::apsp
