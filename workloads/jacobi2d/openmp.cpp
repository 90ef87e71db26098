// OpenMP on the host's cores: the rows of each sweep split over threads, the convergence
// check a max reduction in the same loop. The seed's CPU comparison point.
#include <omp.h>

#include <cmath>

#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

class OpenMP : public JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;
  void run() override {
    const std::int64_t rows = p_.rows, cols = p_.cols;
    const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
    iterate(u0_.data(), u1_.data(), [&](const float* in, float* out, bool check) {
      float change = 0.0f;
#pragma omp parallel for schedule(static) reduction(max : change)
      for (std::int64_t ix = 1; ix < rows - 1; ++ix) {
        for (std::int64_t jy = 1; jy < cols - 1; ++jy) {
          const std::int64_t k = ix * cols + jy;
          out[k] = (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) * c2;
          if (check) change = std::fmax(change, std::fabs(out[k] - in[k]));
        }
      }
      return change;
    });
  }
};

}  // namespace

std::unique_ptr<Instance> make_openmp(const Params& params) {
  return std::make_unique<OpenMP>(params);
}

}  // namespace acclab::jacobi2d
