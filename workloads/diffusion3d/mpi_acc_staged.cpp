// MPI ranks with OpenACC, the course's pattern: each rank's box resident on its GPU for the
// whole measurement; before every step the box's six faces are packed on the device (x-y, x-z
// and y-z planes alike, none contiguous with the shell around them), brought to the host
// (update self), exchanged by MPI, sent back (update device) and unpacked into the shell; then
// the box is stepped in one construct. One rank, with nothing to exchange, runs every step in one
// construct (run_alone).
#include "workloads/diffusion3d/mpi_acc_block.hpp"

namespace acclab::diffusion3d {
namespace {

class MpiAccStaged : public MpiAccInstance {
 public:
  using MpiAccInstance::MpiAccInstance;
  void run() override {
    if (run_alone()) return;
    const std::int64_t bx = b_.size[0], by = b_.size[1], bz = b_.size[2];
    iterate_blocks(
        f_.data(), fn_.data(), [&](float* field) { exchange_staged(field, acc_async_sync); },
        [&](const float* f, float* fn) {
          step_part(f, fn, 0, bx, 0, by, 0, bz, 1);
#pragma acc wait(1)
        });
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_acc_staged(const Params& params) {
  return std::make_unique<MpiAccStaged>(params);
}

}  // namespace acclab::diffusion3d
