// The seed's Jacobi sweep as plain loops: the serial reference every variant is checked
// against, and the `serial` variant itself (one thread). Never tuned.
#include <omp.h>

#include <cmath>
#include <tuple>

#include "core/reference_memo.hpp"
#include "kit/stepped_reference.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {

void sweep_rows(const Problem& p, const float* in, float* out, std::int64_t row_begin,
                std::int64_t row_end, float* change) {
  const std::int64_t cols = p.cols;
  float max_change = 0.0f;
  for (std::int64_t ix = row_begin; ix < row_end; ++ix) {
    for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
      const std::int64_t k = ix * cols + jy;
      out[k] =
          (p.c1f + p.wy2 * (in[k - cols] + in[k + cols]) + p.hx2 * (in[k - 1] + in[k + 1])) * p.c2;
      if (change) max_change = std::fmax(max_change, std::fabs(out[k] - in[k]));
    }
  }
  if (change) *change = max_change;
}

namespace {

const SteppedReference& cached_reference(const Problem& p, std::int64_t sweeps) {
  // Keyed by everything that changes the grid.
  using Key = std::tuple<std::int64_t, std::int64_t, double, double, std::int64_t>;
  static ReferenceMemo<Key, SteppedReference> memo("jacobi2d");
  return memo.get(Key{p.rows, p.cols, p.height, p.width, sweeps}, [&] {
    return run_stepped_reference(initial_grid(p), sweeps, [&](const float* in, float* out) {
#pragma omp parallel
      {
        // Rows split over threads: each point is computed exactly as the serial loop does.
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        const std::int64_t interior_rows = p.rows - 2;
        const std::int64_t begin = 1 + interior_rows * t / threads;
        const std::int64_t end = 1 + interior_rows * (t + 1) / threads;
        sweep_rows(p, in, out, begin, end, nullptr);
      }
    });
  });
}

}  // namespace

const std::vector<float>& reference_after(const Problem& p, std::int64_t sweeps) {
  return cached_reference(p, sweeps).field;
}

double reference_last_sweep_change(const Problem& p, std::int64_t sweeps) {
  return cached_reference(p, sweeps).last_step_change;
}

namespace {

class Serial : public JacobiInstance {
 public:
  explicit Serial(const Params& params) : JacobiInstance(params) { against_exact_ = true; }
  void run() override {
    iterate(u0_.data(), u1_.data(), [&](const float* in, float* out, bool check) {
      float change = 0.0f;
      sweep_rows(p_, in, out, 1, p_.rows - 1, check ? &change : nullptr);
      return change;
    });
  }
};

}  // namespace

std::unique_ptr<Instance> make_serial(const Params& params) {
  return std::make_unique<Serial>(params);
}

}  // namespace acclab::jacobi2d
