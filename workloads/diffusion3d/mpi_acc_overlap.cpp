// mpi_acc_staged with the exchange hidden behind the interior, the boundary first: each step
// steps the box's outer layer on the sides that have a neighbour (the cells next to the shell)
// on a second async queue, packs the new faces it wrote there, and queues the inner cells (which
// read no shell cell) on the first queue; the new faces travel while the inner cells are stepped
// (update self, MPI, update device, unpacked into the shell of the field just written), ready
// for the next step. The field read by the first step gets its shell from one exchange before
// it. A box without neighbours (one rank) runs every step in one construct, as mpi_acc_staged
// does (run_alone).
#include <algorithm>

#include "core/profile.hpp"
#include "workloads/diffusion3d/mpi_acc_block.hpp"

namespace acclab::diffusion3d {
namespace {

constexpr int interior_queue = 1, layer_queue = 2;

class MpiAccOverlap : public MpiAccInstance {
 public:
  using MpiAccInstance::MpiAccInstance;
  void run() override {
    if (run_alone()) return;
    const std::int64_t bx = b_.size[0], by = b_.size[1], bz = b_.size[2];
    const bool alone = b_.halo_floats() == 0;
    // The inner cells: one cell in from each side that has a neighbour (at a wall the stencil
    // reads the cell itself, no shell cell).
    std::int64_t lo[3], hi[3];
    for (int d = 0; d < 3; ++d) {
      lo[d] = b_.neighbour[2 * d] >= 0 ? 1 : 0;
      hi[d] = std::max(lo[d], b_.size[d] - (b_.neighbour[2 * d + 1] >= 0 ? 1 : 0));
    }
    bool exchanged = false;  // whether a field's shell came from the step before
    iterate_blocks(
        f_.data(), fn_.data(),
        [&](float* field) {
          if (exchanged) return;
          exchange_staged(field, layer_queue);
          exchanged = true;
        },
        [&](const float* f, float* fn) {
          if (alone) {
            step_part(f, fn, 0, bx, 0, by, 0, bz, interior_queue);
#pragma acc wait(interior_queue)
            return;
          }
          // The outer layer and the pack go first: queued behind the interior they would wait
          // for the interior's gangs to leave the GPU, and the exchange with them. The layer:
          // the z slabs whole, the y slabs between them, the x slabs between those (each empty
          // where that side is a wall).
          step_part(f, fn, 0, bx, 0, by, 0, lo[2], layer_queue);
          step_part(f, fn, 0, bx, 0, by, hi[2], bz, layer_queue);
          step_part(f, fn, 0, bx, 0, lo[1], lo[2], hi[2], layer_queue);
          step_part(f, fn, 0, bx, hi[1], by, lo[2], hi[2], layer_queue);
          step_part(f, fn, 0, lo[0], lo[1], hi[1], lo[2], hi[2], layer_queue);
          step_part(f, fn, hi[0], bx, lo[1], hi[1], lo[2], hi[2], layer_queue);
          {
            profile::Region region("exchange");
            pack_faces(fn, layer_queue);
          }
          step_part(f, fn, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], interior_queue);
          {
            profile::Region region("exchange");
            exchange_packed(fn, layer_queue);
          }
#pragma acc wait(interior_queue, layer_queue)
        });
  }
};

}  // namespace

std::unique_ptr<Instance> make_mpi_acc_overlap(const Params& params) {
  return std::make_unique<MpiAccOverlap>(params);
}

}  // namespace acclab::diffusion3d
