// The jacobi2d workload and its ladder (ladder.json), with the model every step shares.
#include "workloads/jacobi2d/jacobi2d.hpp"

#ifdef ACCLAB_HAVE_MPI
#include "kit/mpi_steps.hpp"
#include "workloads/jacobi2d/mpi_blocks.hpp"
#endif

namespace acclab::jacobi2d {
namespace {

double sweeps_of(const Params& params, const nlohmann::json& outputs) {
  return outputs.contains("sweeps") ? outputs["sweeps"].get<double>()
                                    : static_cast<double>(problem_of(params).iters);
}
double interior_of(const Params& params) {
  const Problem& p = problem_of(params);
  return static_cast<double>(p.rows - 2) * double(p.cols - 2);
}

// Each sweep reads every interior point's neighbourhood and writes the point: one float read
// and one written per interior point at best (8 B), 7 flops (4 adds, 3 multiplies).
PerfModel sweep_model() {
  return {[](const Params& p, const nlohmann::json& out) {
            return 7.0 * interior_of(p) * sweeps_of(p, out);
          },
          [](const Params& p, const nlohmann::json& out) {
            return 8.0 * interior_of(p) * sweeps_of(p, out);
          },
          Resource::memory_bandwidth, Precision::fp32};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_ladder(
      "jacobi2d", ladder(), [](const LadderRow&) { return sweep_model(); },
      [](Variant& variant) {
#ifdef ACCLAB_HAVE_MPI
        mpi::check_process_grid(variant, problem_of, process_grid);
#else
        (void)variant;
#endif
      });
}

}  // namespace acclab::jacobi2d
