// Course step (1) kernels: the CPU loop nest of 01_original under one `kernels` directive with
// copyin(f[0:n]) copyout(fn[0:n]), inside the time loop: both fields cross the bus every step.
// No `loop` directive: the compiler must prove the loops independent by itself.
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

void step(const Problem& p, const float* f, float* fn) {
  const int nx = p.nx, ny = p.ny, nz = p.nz, n = nx * ny * nz;
  const float cc = p.cc, ce = p.ce, cw = p.cw, cn = p.cn, cs = p.cs, ct = p.ct, cb = p.cb;
#pragma acc kernels copyin(f[0:n]) copyout(fn[0:n])
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

class AccKernels : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void run() override {
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) { step(p_, f, fn); });
  }
  // The same clauses with an empty region, once per step.
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    const float* f = f_.data();
    float* fn = fn_.data();
    for (std::int64_t s = 0; s < p_.steps; ++s) {
#pragma acc data copyin(f[0:n]) copyout(fn[0:n])
      {
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_kernels(const Params& params) {
  return std::make_unique<AccKernels>(params);
}

}  // namespace acclab::diffusion3d
