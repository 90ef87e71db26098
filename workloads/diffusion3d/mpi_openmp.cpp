// MPI ranks on the host: each rank steps its box with OpenMP threads over its planes, the six
// faces packed and exchanged by MPI_Sendrecv on the host fields before every step. The course's
// first MPI step, and the reference the device steps' exchanges are compared with.
#include "workloads/diffusion3d/mpi_blocks.hpp"

namespace acclab::diffusion3d {
namespace {

class MpiOpenMP : public MpiDiffusionInstance {
 public:
  using MpiDiffusionInstance::MpiDiffusionInstance;
  void run() override {
    const std::int64_t planes = b_.size[2];
    iterate_blocks(
        f_.data(), fn_.data(), [&](float* field) { exchange_host(field); },
        [&](const float* f, float* fn) {
#pragma omp parallel for schedule(static)
          for (std::int64_t k = 0; k < planes; ++k) step_block(p_, b_, f, fn, k, k + 1);
        });
  }
  void finish() override {
    time_exchange([&](float* field) { exchange_host(field); }, spare_field());
    gather();
    drop_box_fields();
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_openmp(const Params& params) {
  return std::make_unique<MpiOpenMP>(params);
}

}  // namespace acclab::diffusion3d
