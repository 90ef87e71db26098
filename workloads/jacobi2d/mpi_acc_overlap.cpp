// mpi_acc_staged with the exchange hidden behind the interior: the block's edges are packed on
// a second async queue, the block's inner points, which read no halo, are swept on the first
// while the edges travel (update self, MPI, update device, unpacked on the second queue), then
// the block's outer ring, which reads the halos, is swept on the second queue in one construct.
// A block without neighbours (one rank) is swept in one construct, as mpi_acc_staged does.
#include "workloads/jacobi2d/mpi_acc_block.hpp"

#include "core/profile.hpp"

namespace acclab::jacobi2d {
namespace {

constexpr int interior_queue = 1, ring_queue = 2;

class MpiAccOverlap : public MpiAccInstance {
 public:
  using MpiAccInstance::MpiAccInstance;
  void run() override {
    const int rows = static_cast<int>(b_.rows), cols = static_cast<int>(b_.cols);
    const bool alone = b_.halo_floats() == 0;
    iterate(
        u0_.data(), u1_.data(), [](float*) {},  // the exchange is part of each sweep
        [&](float* in, float* out, bool check) {
          if (alone) {
            const float change = sweep_part(in, out, 1, rows, 1, cols, check, interior_queue);
#pragma acc wait(interior_queue)
            return change;
          }
          // The pack goes first: queued behind the interior it would wait for the interior's
          // gangs to leave the GPU, and the exchange with it. The interior, queued next, runs
          // while the host waits for the edges and MPI; with a check its reduction is read after
          // the exchange (sweep_part waits for it there).
          float inner = 0.0f;
          {
            profile::Region region("exchange");
            pack(in, ring_queue);
          }
          if (!check) sweep_part(in, out, 2, rows - 2, 2, cols - 2, false, interior_queue);
          {
            profile::Region region("exchange");
            exchange_packed(in, ring_queue);
          }
          if (check) inner = sweep_part(in, out, 2, rows - 2, 2, cols - 2, true, interior_queue);
          const float ring = sweep_ring(in, out, check, ring_queue);
#pragma acc wait(interior_queue, ring_queue)
          return std::max(inner, ring);
        });
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_acc_overlap(const Params& params) {
  return std::make_unique<MpiAccOverlap>(params);
}

}  // namespace acclab::jacobi2d
