// Course step (2) loop: step (1)'s kernels region with `loop independent` on all three loops:
// the programmer states what the compiler could not prove. Both fields still cross the bus
// every step.
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

void step(const Problem& p, const float* f, float* fn) {
  const int nx = p.nx, ny = p.ny, nz = p.nz, n = nx * ny * nz;
  const float cc = p.cc, ce = p.ce, cw = p.cw, cn = p.cn, cs = p.cs, ct = p.ct, cb = p.cb;
#pragma acc kernels copyin(f[0:n]) copyout(fn[0:n])
#pragma acc loop independent
  for (int k = 0; k < nz; k++) {
#pragma acc loop independent
    for (int j = 0; j < ny; j++) {
#pragma acc loop independent
      for (int i = 0; i < nx; i++) {
        const int ix = nx * ny * k + nx * j + i;
        // The course's `i == nx - 1 ? ix : ix + 1` written without branches: GCC 12's kernels
        // decomposition hands any loop nest with a conditional to parloops, which runs it on one
        // gang (bench/results/h200/diffusion3d/NOTES.md). The offsets are the same.
        const int ip = ix + (i < nx - 1);
        const int im = ix - (i > 0);
        const int jp = ix + nx * (j < ny - 1);
        const int jm = ix - nx * (j > 0);
        const int kp = ix + nx * ny * (k < nz - 1);
        const int km = ix - nx * ny * (k > 0);
        fn[ix] = cc * f[ix] + ce * f[ip] + cw * f[im] + cn * f[jp] + cs * f[jm] + ct * f[kp] +
                 cb * f[km];
      }
    }
  }
}

class AccLoop : public DiffusionInstance {
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

std::unique_ptr<Instance> make_acc_loop(const Params& params) {
  return std::make_unique<AccLoop>(params);
}

}  // namespace acclab::diffusion3d
