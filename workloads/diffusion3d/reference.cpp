// The course's 01_original stencil as plain loops: the reference every variant is checked
// against, and the `original` variant itself (one thread). Never tuned.
#include <omp.h>

#include <cmath>
#include <tuple>

#include "core/reference_memo.hpp"
#include "kit/stepped_reference.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {

void step_planes(const Problem& p, const float* f, float* fn, std::int64_t k_begin,
                 std::int64_t k_end) {
  const std::int64_t nx = p.nx, ny = p.ny, nz = p.nz;
  for (std::int64_t k = k_begin; k < k_end; ++k) {
    for (std::int64_t j = 0; j < ny; ++j) {
      for (std::int64_t i = 0; i < nx; ++i) {
        const std::int64_t ix = nx * ny * k + nx * j + i;
        const std::int64_t ip = i == nx - 1 ? ix : ix + 1;
        const std::int64_t im = i == 0 ? ix : ix - 1;
        const std::int64_t jp = j == ny - 1 ? ix : ix + nx;
        const std::int64_t jm = j == 0 ? ix : ix - nx;
        const std::int64_t kp = k == nz - 1 ? ix : ix + nx * ny;
        const std::int64_t km = k == 0 ? ix : ix - nx * ny;
        fn[ix] = p.cc * f[ix] + p.ce * f[ip] + p.cw * f[im] + p.cn * f[jp] + p.cs * f[jm] +
                 p.ct * f[kp] + p.cb * f[km];
      }
    }
  }
}

namespace {

const SteppedReference& cached_reference(const Problem& p, std::int64_t steps) {
  // Keyed by everything that changes the field.
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, double, double, std::int64_t>;
  static ReferenceMemo<Key, SteppedReference> memo("diffusion3d");
  return memo.get(Key{p.nx, p.ny, p.nz, p.kappa, p.dt, steps}, [&] {
    return run_stepped_reference(initial_field(p), steps, [&](const float* f, float* fn) {
#pragma omp parallel
      {
        // Planes split over threads: each point is computed exactly as the serial loop does.
        const std::int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        step_planes(p, f, fn, p.nz * t / threads, p.nz * (t + 1) / threads);
      }
    });
  });
}

}  // namespace

const std::vector<float>& reference_after(const Problem& p, std::int64_t steps) {
  return cached_reference(p, steps).field;
}

double reference_last_step_change(const Problem& p, std::int64_t steps) {
  return cached_reference(p, steps).last_step_change;
}

namespace {

class Original : public DiffusionInstance {
 public:
  explicit Original(const Params& params) : DiffusionInstance(params) { against_exact_ = true; }
  void run() override {
    iterate(f_.data(), fn_.data(),
            [&](const float* f, float* fn) { step_planes(p_, f, fn, 0, p_.nz); });
  }
};

}  // namespace

std::unique_ptr<Instance> make_original(const Params& params) {
  return std::make_unique<Original>(params);
}

}  // namespace acclab::diffusion3d
