// The apsp workload and its ladder (ladder.json), with the model every step shares.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "workloads/apsp/apsp.hpp"

#ifdef ACCLAB_HAVE_MPI
#include "kit/mpi_steps.hpp"
#include "workloads/apsp/mpi_blocks.hpp"
#endif

namespace acclab::apsp {
namespace {

// n^3 relaxations (one add and one max each: 2 flops); at least the matrix read and written
// once (8 n^2 bytes). The limit is the issue rate, not bandwidth: rates only.
PerfModel relaxation_model() {
  return {[](const Params& params, const nlohmann::json&) {
            const double n = double(problem_of(params).n_given);
            return 2.0 * n * n * n;
          },
          [](const Params& params, const nlohmann::json&) {
            const double n = double(problem_of(params).n_given);
            return 8.0 * n * n;
          },
          Resource::none, Precision::fp32};
}

}  // namespace

void register_variants(Registry& registry) {
  registry.add_workload(make_workload());
  // A variant without the paths tuning keeps no successor matrix: it refuses paths=1 before
  // anything is allocated, also where an instance is made without acclab's check of every
  // variant first.
  const std::vector<LadderRow> rows = ladder();
  std::vector<std::string> with_paths;
  for (const LadderRow& row : rows) {
    if (std::find(row.tunings.begin(), row.tunings.end(), "paths") != row.tunings.end()) {
      with_paths.push_back(row.name);
    }
  }
  const auto refuse_paths = [&](Variant& variant) {
    if (std::find(variant.tunings.begin(), variant.tunings.end(), "paths") !=
        variant.tunings.end()) {
      return;
    }
    variant.check_params = [name = variant.name, with_paths](const Params& params) {
      if (problem_of(params).paths) {
        throw UsageError(
            fmt::format("apsp/{} keeps no successor matrix (--paths, --set paths=1): use one of {}",
                        name, fmt::join(with_paths, ", ")));
      }
    };
    variant.factory = [check = variant.check_params, make = variant.factory](const Params& params) {
      check(params);
      return make(params);
    };
  };
  // A step that indexes the matrix in 32 bits refuses more vertices than that holds, before
  // anything is allocated, naming the steps that take more.
  const auto refuse_size = [](Variant& variant) {
    if (is_wide_step(variant.name)) return;
    const auto check = [name = variant.name](const Params& params) {
      const std::int64_t n = problem_of(params).n_given;
      if (n > max_vertices_32) {
        throw UsageError(fmt::format("--set n={}: apsp/{} {}", n, name, narrow_step_limit()));
      }
    };
    variant.check_params = [check, first = variant.check_params](const Params& params) {
      if (first) first(params);
      check(params);
    };
    variant.factory = [check, make = variant.factory](const Params& params) {
      check(params);
      return make(params);
    };
  };
  registry.add_ladder(
      "apsp", rows, [](const LadderRow&) { return relaxation_model(); },
      [&](Variant& variant) {
        refuse_paths(variant);
        refuse_size(variant);
#ifdef ACCLAB_HAVE_MPI
        mpi::check_process_grid(variant, problem_of, process_grid);
#endif
      });
}

}  // namespace acclab::apsp
