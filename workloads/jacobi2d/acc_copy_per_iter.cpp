// The seed's first OpenACC version: every sweep copies both grids to the device and back
// (copy(u0[0:n], u1[0:n]), here on a data region around the sweep's `kernels` region, which
// moves the same bytes as the seed's clause on `kernels` itself), with `loop independent` on
// both loops. The seed measured half of its 2.1 s in those transfers.

#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

float sweep(const Problem& p, float* in, float* out, bool check) {
  const std::int64_t rows = p.rows, cols = p.cols, n = p.points();
  const float c1f = p.c1f, wy2 = p.wy2, hx2 = p.hx2, c2 = p.c2;
  float change = 0.0f;
  // One data region per sweep, as the seed's. The check (not in the seed) is a `parallel loop`
  // of its own: inside the `kernels` region, under `if (check)`, GCC 12's decomposition left it
  // to parloops, i.e. on one gang.
#pragma acc data copy(in[0:n], out[0:n])
  {
#pragma acc kernels present(in[0:n], out[0:n])
#pragma acc loop independent
    for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
#pragma acc loop independent
      for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
        const std::int64_t k = ix * cols + jy;
        out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
      }
    }
    if (check) {
#pragma acc parallel loop gang reduction(max:change) present(in[0:n], out[0:n])
      for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
#pragma acc loop vector reduction(max:change)
        for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
          const std::int64_t k = ix * cols + jy;
          // Not std::fabs: a call at -O0, and offloaded code has no callee.
          const float d = __builtin_fabsf(out[k] - in[k]);
          change = d > change ? d : change;  // fmaxf is not in nvptx's default libraries
        }
      }
    }
  }
  return change;
}

class AccCopyPerIter : public JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;
  void run() override {
    iterate(u0_.data(), u1_.data(),
            [&](float* in, float* out, bool check) { return sweep(p_, in, out, check); });
  }
  // The same copy clause with an empty region, once per sweep of the last run.
  bool transfers_only() override {
    const std::int64_t n = p_.points();
    float* u0 = u0_.data();
    float* u1 = u1_.data();
    for (std::int64_t s = 0; s < sweeps_; ++s) {
#pragma acc data copy(u0[0:n], u1[0:n])
      {
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_copy_per_iter(const Params& params) {
  return std::make_unique<AccCopyPerIter>(params);
}

}  // namespace acclab::jacobi2d
