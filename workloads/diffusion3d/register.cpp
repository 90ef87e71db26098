// The diffusion3d workload and its ladder (ladder.json), with the model every step shares.
#include "workloads/diffusion3d/diffusion3d.hpp"

#ifdef ACCLAB_HAVE_MPI
#include "kit/mpi_steps.hpp"
#include "workloads/diffusion3d/mpi_blocks.hpp"
#endif

namespace acclab::diffusion3d {
namespace {

double cell_steps(const Params& params, const nlohmann::json& outputs) {
  const Problem& p = problem_of(params);
  const double steps = outputs.contains("steps") ? outputs["steps"].get<double>() : double(p.steps);
  return steps * double(p.nx) * double(p.ny) * double(p.nz);
}

// Per cell and step, as the course counts: 13 flops (7 multiplies, 6 adds); at best one
// float read and one written (8 B), the neighbours coming from caches.
PerfModel step_model() {
  return {[](const Params& p, const nlohmann::json& out) { return 13.0 * cell_steps(p, out); },
          [](const Params& p, const nlohmann::json& out) { return 8.0 * cell_steps(p, out); },
          Resource::memory_bandwidth, Precision::fp32};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_ladder(
      "diffusion3d", ladder(), [](const LadderRow&) { return step_model(); },
      [](Variant& variant) {
#ifdef ACCLAB_HAVE_MPI
        mpi::check_process_grid(variant, problem_of, process_grid);
#else
        (void)variant;
#endif
      });
}

}  // namespace acclab::diffusion3d
