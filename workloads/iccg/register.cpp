// The iccg workload and its ladder (ladder.json), with the model every step shares.
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

// Per iteration, as the course counts a CG step on a 7-point matrix: the matrix-vector
// product (13 flops a row), the two triangular sweeps (7 each, counting the diagonal), three
// dot products and three vector updates (2 flops each a row). Bytes: the matrix (about 7
// values and 7 indices, 12 bytes each, a row, read three times) and 8 vectors.
PerfModel iteration_model() {
  const auto rows = [](const Params& params) { return double(problem_of(params).rows()); };
  // The iterations the verified run took; before a run, the counts of one iteration.
  const auto iterations = [](const nlohmann::json& outputs) {
    return outputs.contains("iterations") ? outputs["iterations"].get<double>() : 1.0;
  };
  return {[=](const Params& p, const nlohmann::json& out) {
            return (13.0 + 14.0 + 12.0) * rows(p) * iterations(out);
          },
          [=](const Params& p, const nlohmann::json& out) {
            return (3 * 7 * 12.0 + 8 * 8.0) * rows(p) * iterations(out);
          },
          Resource::memory_bandwidth};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_ladder("iccg", ladder(), [](const LadderRow&) { return iteration_model(); });
}

}  // namespace acclab::iccg
