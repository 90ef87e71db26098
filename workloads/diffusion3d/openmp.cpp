// OpenMP on the host's cores: the planes of each step split over threads.
#include <omp.h>

#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

class OpenMP : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void run() override {
    iterate(f_.data(), fn_.data(), [&](const float* f, float* fn) {
#pragma omp parallel for schedule(static)
      for (std::int64_t k = 0; k < p_.nz; ++k) step_planes(p_, f, fn, k, k + 1);
    });
  }
};

}  // namespace

std::unique_ptr<Instance> make_openmp(const Params& params) {
  return std::make_unique<OpenMP>(params);
}

}  // namespace acclab::diffusion3d
