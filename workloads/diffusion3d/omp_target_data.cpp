// Course steps (3)(4) in OpenMP target form: one `target data map(tofrom: f) map(alloc: fn)`
// region around all steps, as acc_data_present's data region, each step's region finding the
// fields present. The fields cross the bus once per solve.
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

void step(const Problem& p, const float* f, float* fn) {
  const int nx = p.nx, ny = p.ny, nz = p.nz, n = nx * ny * nz;
  const float cc = p.cc, ce = p.ce, cw = p.cw, cn = p.cn, cs = p.cs, ct = p.ct, cb = p.cb;
  // Present: the maps only count references, nothing moves.
#pragma omp target teams distribute parallel for simd collapse(3) map(alloc : f [0:n], fn [0:n])
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

class OmpTargetData : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void run() override {
    const std::int64_t n = p_.points();
    float* f = f_.data();
    float* fn = fn_.data();
#pragma omp target data map(tofrom : f [0:n]) map(alloc : fn [0:n])
    {
      iterate(f, fn, [&](const float* in, float* out) { step(p_, in, out); });
      // The region copies back only f; after an odd number of steps the result is in fn.
      if (result_ == fn) {
#pragma omp target update from(fn [0:n])
      }
    }
  }
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    float* f = f_.data();
    float* fn = fn_.data();
#pragma omp target data map(tofrom : f [0:n]) map(alloc : fn [0:n])
    {
      if (p_.steps % 2 == 1) {  // run() then also brings the second field back
#pragma omp target update from(fn [0:n])
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_omp_target_data(const Params& params) {
  return std::make_unique<OmpTargetData>(params);
}

}  // namespace acclab::diffusion3d
