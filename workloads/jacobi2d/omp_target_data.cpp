// acc_data_region in OpenMP target form: one `target data map(tofrom:)` region around all sweeps
// of a run, each sweep's regions finding the grids present. The grids cross the bus once each
// way per run instead of twice per sweep.
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

float sweep(const Problem& p, float* in, float* out, bool check) {
  const std::int64_t rows = p.rows, cols = p.cols, n = p.points();
  const float c1f = p.c1f, wy2 = p.wy2, hx2 = p.hx2, c2 = p.c2;
  float change = 0.0f;
  // Present: the maps only count references, nothing moves.
#pragma omp target teams distribute parallel for simd collapse(2) map(alloc : in [0:n], out [0:n])
  for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
    for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
      const std::int64_t k = ix * cols + jy;
      out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
    }
  }
  if (check) {
// clang-format off
#pragma omp target teams distribute parallel for simd collapse(2) map(alloc: in[0:n], out[0:n]) \
    map(tofrom: change) reduction(max: change)
    // clang-format on
    for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
      for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
        const std::int64_t k = ix * cols + jy;
        const float d = __builtin_fabsf(out[k] - in[k]);
        change = d > change ? d : change;
      }
    }
  }
  return change;
}

class OmpTargetData : public JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;
  void run() override {
    const std::int64_t n = p_.points();  // at least 9 (rows, cols >= 3)
    float* u0 = u0_.data();
    float* u1 = u1_.data();
#pragma omp target data map(tofrom : u0 [0:n], u1 [0:n])
    {
      iterate(u0, u1, [&](float* in, float* out, bool check) { return sweep(p_, in, out, check); });
    }
  }
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    float* u0 = u0_.data();
    float* u1 = u1_.data();
#pragma omp target data map(tofrom : u0 [0:n], u1 [0:n])
    {}
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_data(const Params& params) {
  return std::make_unique<OmpTargetData>(params);
}

}  // namespace acclab::jacobi2d
