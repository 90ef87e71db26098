// acc_copy_per_iter in OpenMP target form: every sweep maps both grids to the device and back
// (a `target data map(tofrom:)` around the sweep's region), the interior one
// `target teams distribute parallel for simd collapse(2)`, the check a region of its own with
// reduction(max:). The bytes per sweep are acc_copy_per_iter's.
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

float sweep(const Problem& p, float* in, float* out, bool check) {
  const std::int64_t rows = p.rows, cols = p.cols, n = p.points();  // rows, cols >= 3
  const float c1f = p.c1f, wy2 = p.wy2, hx2 = p.hx2, c2 = p.c2;
  float change = 0.0f;
#pragma omp target data map(tofrom : in [0:n], out [0:n])
  {
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
          // Not std::fabs: a call at -O0, and offloaded code has no callee.
          const float d = __builtin_fabsf(out[k] - in[k]);
          change = d > change ? d : change;
        }
      }
    }
  }
  return change;
}

class OmpTargetMap : public JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;
  void run() override {
    iterate(u0_.data(), u1_.data(),
            [&](float* in, float* out, bool check) { return sweep(p_, in, out, check); });
  }
  // The same maps around an empty region, once per sweep of the last run.
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    float* u0 = u0_.data();
    float* u1 = u1_.data();
    for (std::int64_t s = 0; s < sweeps_; ++s) {
#pragma omp target data map(tofrom : u0 [0:n], u1 [0:n])
      {}
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_map(const Params& params) {
  return std::make_unique<OmpTargetMap>(params);
}

}  // namespace acclab::jacobi2d
