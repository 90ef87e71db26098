// The knobs of the *_omp_target_tuned steps (optional workload parameters omp_teams, omp_threads,
// omp_simd, omp_construct) and ACCLAB_OMP_TUNED, which runs one loop as a target region in the
// shape they name. OpenMP clauses are fixed at compile time, so each shape is its own directive;
// the macro writes them once for every step. Its pragmas take effect only in OpenMP target
// sources; the workloads' validate() (plain C++) uses check_omp_tuning.
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/params.hpp"

namespace acclab {

struct OmpTuning {
  int teams = 0;      // num_teams; 0 (with threads 0): no clause, libgomp's choice
  int threads = 0;    // thread_limit; 0 (with teams 0): no clause
  bool simd = true;   // distribute only: `parallel for simd`
  bool loop = false;  // `target teams loop` instead of `target teams distribute parallel for`

  // The parameters are optional (no preset value), so that results list them only where --set
  // gives them; unset, each takes the default above.
  static OmpTuning of(const Params& params) {
    OmpTuning t;
    if (params.has("omp_teams")) t.teams = static_cast<int>(params.integer("omp_teams"));
    if (params.has("omp_threads")) t.threads = static_cast<int>(params.integer("omp_threads"));
    if (params.has("omp_simd")) t.simd = params.flag("omp_simd");
    if (params.has("omp_construct")) t.loop = params.text("omp_construct") == "loop";
    return t;
  }
};

// The parameters above, as a workload declares them; `steps` names the steps they tune (for the
// help lines), `collapse_help`, where not empty, adds omp_collapse with that meaning.
inline std::vector<ParamSpec> omp_tuning_params(const std::string& steps,
                                                const std::string& collapse_help = "") {
  std::vector<ParamSpec> specs = {
      {.key = "omp_teams",
       .help = steps + " only: num_teams (default 0: libgomp's choice)",
       .presets = same_in_all_presets(""),
       .minimum = 0},
      {.key = "omp_threads",
       .help = steps + " only: thread_limit (default 0: libgomp's choice)",
       .presets = same_in_all_presets(""),
       .minimum = 0},
      {.key = "omp_simd",
       .type = ParamType::boolean,
       .help = steps + " only, omp_construct=distribute: 1 (default) adds simd (GCC's nvptx "
                       "OpenMP runs a thread per warp and spreads only simd loops over its lanes)",
       .presets = same_in_all_presets("")},
      {.key = "omp_construct",
       .type = ParamType::text,
       .help = steps + " only: distribute (target teams distribute parallel for, the default) "
                       "or loop (target teams loop)",
       .presets = same_in_all_presets(""),
       .choices = {"distribute", "loop"}},
  };
  if (!collapse_help.empty()) {
    specs.push_back({.key = "omp_collapse",
                     .type = ParamType::boolean,
                     .help = steps + " only: " + collapse_help,
                     .presets = same_in_all_presets("")});
  }
  return specs;
}

// The workloads' validate(): num_teams and thread_limit go together (each shape is one
// directive with both clauses or neither).
inline void check_omp_tuning(const Params& params) {
  const auto teams = params.has("omp_teams") ? params.integer("omp_teams") : 0;
  const auto threads = params.has("omp_threads") ? params.integer("omp_threads") : 0;
  if ((teams == 0) != (threads == 0)) {
    throw UsageError("--set omp_teams=" + std::to_string(teams) +
                     " omp_threads=" + std::to_string(threads) +
                     ": set both (num_teams and thread_limit) or neither (libgomp's choice)");
  }
}

}  // namespace acclab

#define ACCLAB_OMP_STR_(...) #__VA_ARGS__
#define ACCLAB_OMP_STR(...) ACCLAB_OMP_STR_(__VA_ARGS__)

// Runs the for statement given after `clauses` as one target region of the shape `tuning` (an
// OmpTuning) names; `clauses` are the region's map and reduction clauses, in parentheses.
#define ACCLAB_OMP_TUNED(tuning, clauses, ...)                                                \
  do {                                                                                        \
    const int acclab_teams = (tuning).teams, acclab_threads = (tuning).threads;               \
    if ((tuning).loop && acclab_teams > 0) {                                                  \
      _Pragma(ACCLAB_OMP_STR(omp target teams loop num_teams(acclab_teams) thread_limit(      \
          acclab_threads) ACCLAB_OMP_UNWRAP clauses)) __VA_ARGS__                             \
    } else if ((tuning).loop) {                                                               \
      _Pragma(ACCLAB_OMP_STR(omp target teams loop ACCLAB_OMP_UNWRAP clauses)) __VA_ARGS__    \
    } else if ((tuning).simd && acclab_teams > 0) {                                           \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for simd num_teams(           \
          acclab_teams) thread_limit(acclab_threads) ACCLAB_OMP_UNWRAP clauses)) __VA_ARGS__  \
    } else if ((tuning).simd) {                                                               \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for simd ACCLAB_OMP_UNWRAP     \
                                 clauses)) __VA_ARGS__                                        \
    } else if (acclab_teams > 0) {                                                            \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for num_teams(acclab_teams)    \
                                 thread_limit(acclab_threads) ACCLAB_OMP_UNWRAP clauses))       \
          __VA_ARGS__                                                                         \
    } else {                                                                                  \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for ACCLAB_OMP_UNWRAP          \
                                 clauses)) __VA_ARGS__                                        \
    }                                                                                         \
  } while (false)
#define ACCLAB_OMP_UNWRAP(...) __VA_ARGS__
