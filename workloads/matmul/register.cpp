// The matmul workload and its ladder (ladder.json), with the model every step shares.
#include "workloads/matmul/matmul.hpp"

namespace acclab::matmul {
namespace {

// The rows of C the run computed: m, or the rows_computed its verification reports when
// --set one_gang_rows capped the step.
double rows_run(const Problem& p, const nlohmann::json& outputs) {
  return outputs.contains("rows_computed") ? outputs["rows_computed"].get<double>() : p.m;
}

// 2 rows n k flops (one multiply and one add per term); at least the rows of A used, B and the
// rows of C once each (8 B per element) through memory. The limit is arithmetic, not bandwidth:
// rates are reported, the limit column left empty.
PerfModel product_model() {
  return {[](const Params& params, const nlohmann::json& outputs) {
            const Problem p = problem_of(params);
            return 2.0 * rows_run(p, outputs) * double(p.n) * double(p.k);
          },
          [](const Params& params, const nlohmann::json& outputs) {
            const Problem p = problem_of(params);
            const double rows = rows_run(p, outputs);
            return 8.0 * (rows * p.k + double(p.k) * p.n + rows * p.n);
          },
          Resource::none};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  registry.add_ladder("matmul", ladder(), [](const LadderRow&) { return product_model(); });
}

}  // namespace acclab::matmul
