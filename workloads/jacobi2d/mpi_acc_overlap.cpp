// mpi_acc_staged with the exchange hidden behind the interior, the boundary first: each sweep
// sweeps the block's outer ring (the points next to the halo) on a second async queue, packs the
// new edges it wrote there, and queues the interior (the points that read no halo) on the first
// queue; the new edges travel while the interior is swept (update self, MPI, update device,
// unpacked into the halo ring of the grid just written), ready for the next sweep. The grid
// read by the first sweep gets its halos from one exchange before it. A block without
// neighbours (one rank) is swept in one construct, as mpi_acc_staged does.
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
    bool exchanged = false;  // whether a grid's halos came from the sweep before
    iterate(
        u0_.data(), u1_.data(),
        [&](float* grid) {
          if (exchanged) return;
          exchange_staged(grid, ring_queue);
          exchanged = true;
        },
        [&](float* in, float* out, bool check) {
          if (alone) {
            const float change = sweep_part(in, out, 1, rows, 1, cols, check, interior_queue);
#pragma acc wait(interior_queue)
            return change;
          }
          // The ring and the pack go first: queued behind the interior they would wait for the
          // interior's gangs to leave the GPU, and the exchange with them. With a check the
          // interior's reduction waits, so it is queued after the exchange.
          const float ring = sweep_ring(in, out, check, ring_queue);
          {
            profile::Region region("exchange");
            pack(out, ring_queue);
          }
          float inner = 0.0f;
          if (!check) sweep_part(in, out, 2, rows - 2, 2, cols - 2, false, interior_queue);
          {
            profile::Region region("exchange");
            exchange_packed(out, ring_queue);
          }
          if (check) inner = sweep_part(in, out, 2, rows - 2, 2, cols - 2, true, interior_queue);
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
