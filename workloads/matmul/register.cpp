// The matmul workload and its ladder (ladder.json), with the model every step shares.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

// 2 m n k flops (one multiply and one add per term); at least A, B and C once each (8 B per
// element) through memory. The limit is arithmetic, not bandwidth: rates are reported, the
// limit column left empty.
PerfModel product_model() {
  return {[](const Params& params, const nlohmann::json&) { return problem_of(params).flops(); },
          [](const Params& params, const nlohmann::json&) {
            const Problem p = problem_of(params);
            return 8.0 * (double(p.m) * p.k + double(p.k) * p.n + double(p.m) * p.n);
          },
          Resource::none};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_ladder("matmul", ladder(), [](const LadderRow&) { return product_model(); });
}

}  // namespace acclab::matmul
