// Course step (3)/(4) data + present: one data region copy(f[0:n]) create(fn[0:n]) around the
// whole time loop, as the course's main() has, and `present(f, fn)` on the stencil's kernels
// region with `loop independent` at every level. The fields cross the bus once per solve.
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

void step(const Problem& p, const float* f, float* fn) {
  const int nx = p.nx, ny = p.ny, nz = p.nz, n = nx * ny * nz;
  const float cc = p.cc, ce = p.ce, cw = p.cw, cn = p.cn, cs = p.cs, ct = p.ct, cb = p.cb;
#pragma acc kernels present(f[0:n], fn[0:n])
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

class AccDataPresent : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void run() override {
    const std::int64_t n = p_.points();
    float* f = f_.data();
    float* fn = fn_.data();
#pragma acc data copy(f[0:n]) create(fn[0:n])
    {
      iterate(f, fn, [&](const float* in, float* out) { step(p_, in, out); });
      // The region copies back only the array named f; after an odd number of steps the
      // result is in the other one (the course's 1638 steps never are).
      if (result_ == fn) {
#pragma acc update self(fn[0:n])
      }
    }
  }
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    float* f = f_.data();
    float* fn = fn_.data();
#pragma acc data copy(f[0:n]) create(fn[0:n])
    {
      if (p_.steps % 2 == 1) {  // run() then also brings the second field back
#pragma acc update self(fn[0:n])
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_data_present(const Params& params) {
  return std::make_unique<AccDataPresent>(params);
}

}  // namespace acclab::diffusion3d
