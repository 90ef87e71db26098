// Course step (1) in OpenMP target form: every step one `target teams distribute parallel for
// simd collapse(3)` with map(to: f[0:n]) map(from: fn[0:n]), both fields crossing the bus every
// step, as acc_kernels's copyin/copyout does.
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

void step(const Problem& p, const float* f, float* fn) {
  const int nx = p.nx, ny = p.ny, nz = p.nz, n = nx * ny * nz;  // n >= 1 (validate)
  const float cc = p.cc, ce = p.ce, cw = p.cw, cn = p.cn, cs = p.cs, ct = p.ct, cb = p.cb;
// clang-format off
#pragma omp target teams distribute parallel for simd collapse(3) map(to: f[0:n]) \
    map(from: fn[0:n])
  // clang-format on
  for (int k = 0; k < nz; k++) {
    for (int j = 0; j < ny; j++) {
      for (int i = 0; i < nx; i++) {
        const int ix = nx * ny * k + nx * j + i;
        const int ip = i == nx - 1 ? ix : ix + 1;
        const int im = i == 0 ? ix : ix - 1;
        const int jp = j == ny - 1 ? ix : ix + nx;
        const int jm = j == 0 ? ix : ix - nx;
        const int kp = k == nz - 1 ? ix : ix + nx * ny;
        const int km = k == 0 ? ix : ix - nx * ny;
        fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[jp] + cs * f[jm] + ct * f[kp] +
                 cb * f[km];
      }
    }
  }
}

class OmpTargetMap : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void run() override {
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) { step(p_, f, fn); });
  }
  // The same maps around an empty region, once per step.
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    const float* f = f_.data();
    float* fn = fn_.data();
    for (std::int64_t s = 0; s < p_.steps; ++s) {
#pragma omp target data map(to : f [0:n]) map(from : fn [0:n])
      {}
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_map(const Params& params) {
  return std::make_unique<OmpTargetMap>(params);
}

}  // namespace acclab::diffusion3d
