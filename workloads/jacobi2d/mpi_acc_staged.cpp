// MPI ranks with OpenACC, the course's pattern: each rank's block resident on its GPU for the
// whole measurement; before every sweep the block's edges are packed on the device, brought to
// the host (update self), exchanged by MPI, sent back (update device) and unpacked into the
// halo ring; then the block is swept in one construct, the check's change reduced over ranks.
#include "workloads/jacobi2d/mpi_acc_block.hpp"

namespace acclab::jacobi2d {
namespace {

class MpiAccStaged : public MpiAccInstance {
 public:
  using MpiAccInstance::MpiAccInstance;
  void run() override {
    const int rows = static_cast<int>(b_.rows), cols = static_cast<int>(b_.cols);
    iterate(
        u0_.data(), u1_.data(), [&](float* grid) { exchange_staged(grid, acc_async_sync); },
        [&](const float* in, float* out, bool check) {
          const float change = sweep_part(in, out, 1, rows, 1, cols, check, 1);
#pragma acc wait(1)
          return change;
        });
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_acc_staged(const Params& params) {
  return std::make_unique<MpiAccStaged>(params);
}

}  // namespace acclab::jacobi2d
