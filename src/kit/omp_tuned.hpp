// The knobs of the *_omp_target_tuned steps (optional workload parameters omp_teams, omp_threads,
// omp_simd, omp_construct, and where a workload has several loop nests, omp_shape) and
// ACCLAB_OMP_TUNED / ACCLAB_OMP_TUNED_OUTER, which run a loop nest as a target region in the
// shape they name. OpenMP clauses are fixed at compile time, so each shape is its own directive;
// the macros write them once for every step. Their pragmas take effect only in OpenMP target
// sources; the tuned steps' files declare the parameters and their check with omp_tuning_set.
//
// Why the loop nest's shape matters with GCC 12: its nvptx OpenMP runs a thread per warp and
// spreads a simd loop over the warp's 32 lanes only when that loop is not collapsed (a simd loop
// under collapse(2) or (3) runs on one lane; scripts/omp-simt-probe.sh shows it in the PTX).
// So a nest is either one flat simd loop, or an outer loop over threads with the innermost loop
// as its own `omp simd` (the "rows" shapes, ACCLAB_OMP_TUNED_OUTER).
#pragma once

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/params.hpp"

namespace acclab {

struct OmpTuning {
  // The largest num_teams and thread_limit --set takes. A CUDA block holds at most 1024 threads;
  // 65536 teams is ~500 a multiprocessor on an H200, more than any residency allows, while on
  // the host fallback each team is a pass of a loop, so that a huge count only wastes time.
  static constexpr int max_teams = 1 << 16;
  static constexpr int max_threads = 1024;

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

// One loop nest a workload's tuned step can run (omp_shape). `inner_simd`: the nest's innermost
// loop is its own `omp simd` under ACCLAB_OMP_TUNED_OUTER, so omp_simd=0 does not apply.
// `fixed`: the nest's region has its own construct, simd and teams, so none of omp_construct,
// omp_simd, omp_teams and omp_threads applies (validate refuses them rather than ignore them).
struct OmpShape {
  std::string name;
  std::string help;
  bool inner_simd = false;
  bool fixed = false;
};

// The shape --set omp_shape names, else the first of `shapes` (the default).
inline std::string omp_shape_of(const Params& params, const std::vector<OmpShape>& shapes) {
  return params.has("omp_shape") ? params.text("omp_shape") : shapes.front().name;
}

// The parameters above, as a workload declares them; `steps` names the steps they tune (for the
// help lines); `shapes`, where not empty, adds omp_shape with those choices, the first the
// default.
inline std::vector<ParamSpec> omp_tuning_params(const std::string& steps,
                                                const std::vector<OmpShape>& shapes = {}) {
  std::vector<ParamSpec> specs = {
      {.key = "omp_teams",
       .help = steps + " only: num_teams (default 0: libgomp's choice)",
       .presets = same_in_all_presets(""),
       .minimum = 0,
       .maximum = OmpTuning::max_teams,
       .unset_default = "0"},
      {.key = "omp_threads",
       .help = steps + " only: thread_limit (default 0: libgomp's choice)",
       .presets = same_in_all_presets(""),
       .minimum = 0,
       .maximum = OmpTuning::max_threads,
       .unset_default = "0"},
      {.key = "omp_simd",
       .type = ParamType::boolean,
       .help = steps + " only, omp_construct=distribute: 1 (default) adds simd (GCC's nvptx "
                       "OpenMP runs a thread per warp and spreads only simd loops over its lanes)",
       .presets = same_in_all_presets(""),
       .unset_default = "1"},
      {.key = "omp_construct",
       .type = ParamType::text,
       .help = steps + " only: distribute (target teams distribute parallel for, the default) "
                       "or loop (target teams loop)",
       .presets = same_in_all_presets(""),
       .choices = {"distribute", "loop"},
       .unset_default = "distribute"},
  };
  if (!shapes.empty()) {
    std::string help = steps + " only: the loop nest:";
    std::vector<std::string> names;
    for (const OmpShape& shape : shapes) {
      help += " " + shape.name + (names.empty() ? " (default)" : "") + ", " + shape.help + ";";
      names.push_back(shape.name);
    }
    help.back() = '.';
    specs.push_back({.key = "omp_shape",
                     .type = ParamType::text,
                     .help = help,
                     .presets = same_in_all_presets(""),
                     .choices = names,
                     .unset_default = names.front()});
  }
  return specs;
}

// The tuned steps' check: num_teams and thread_limit go together (each shape is one
// directive with both clauses or neither), and omp_simd=0 needs a shape without its own inner
// simd loop.
inline void check_omp_tuning(const Params& params, const std::vector<OmpShape>& shapes = {}) {
  const auto teams = params.has("omp_teams") ? params.integer("omp_teams") : 0;
  const auto threads = params.has("omp_threads") ? params.integer("omp_threads") : 0;
  if ((teams == 0) != (threads == 0)) {
    throw UsageError("--set omp_teams=" + std::to_string(teams) +
                     " omp_threads=" + std::to_string(threads) +
                     ": set both (num_teams and thread_limit) or neither (libgomp's choice)");
  }
  if (!shapes.empty()) {
    const std::string shape = omp_shape_of(params, shapes);
    for (const OmpShape& s : shapes) {
      if (s.name != shape || !s.fixed) continue;
      for (const char* key : {"omp_construct", "omp_simd", "omp_teams", "omp_threads"}) {
        if (params.has(key)) {
          throw UsageError(std::string("--set ") + key + ": omp_shape=" + shape +
                           " has its own region shape, which " + key +
                           " does not change; choose another omp_shape");
        }
      }
    }
  }
  if (!shapes.empty() && params.has("omp_simd") && !params.flag("omp_simd")) {
    const std::string shape = omp_shape_of(params, shapes);
    for (const OmpShape& s : shapes) {
      if (s.name == shape && s.inner_simd) {
        throw UsageError("--set omp_simd=0: omp_shape=" + shape +
                         " always runs its innermost loop as simd; choose another omp_shape");
      }
    }
  }
}

// The parameters above and their check, as a tuned step's file declares them (the function its
// ladder row names in `tuning_set` returns this).
inline TuningSet omp_tuning_set(const std::string& steps, const std::vector<OmpShape>& shapes = {}) {
  return {omp_tuning_params(steps, shapes),
          [shapes](const Params& params) { check_omp_tuning(params, shapes); }};
}

}  // namespace acclab

#define ACCLAB_OMP_STR_(...) #__VA_ARGS__
#define ACCLAB_OMP_STR(...) ACCLAB_OMP_STR_(__VA_ARGS__)

// Runs the for statement given after `clauses` as one target region of the shape `tuning` (an
// OmpTuning) names; `clauses` are the region's map and reduction clauses, in parentheses. The
// shapes without simd are ACCLAB_OMP_TUNED_OUTER's.
#define ACCLAB_OMP_TUNED(tuning, clauses, ...)                                                \
  do {                                                                                        \
    const int acclab_simd_teams = (tuning).teams, acclab_simd_threads = (tuning).threads;     \
    if (!(tuning).loop && (tuning).simd && acclab_simd_teams > 0) {                           \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for simd num_teams(           \
          acclab_simd_teams) thread_limit(acclab_simd_threads) ACCLAB_OMP_UNWRAP clauses))     \
          __VA_ARGS__                                                                         \
    } else if (!(tuning).loop && (tuning).simd) {                                             \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for simd ACCLAB_OMP_UNWRAP     \
                                 clauses)) __VA_ARGS__                                        \
    } else {                                                                                  \
      ACCLAB_OMP_TUNED_OUTER(tuning, clauses, __VA_ARGS__);                                   \
    }                                                                                         \
  } while (false)

// The outer loop of a nest as one target region of the shape `tuning` names, never with simd:
// the loop nest given after `clauses` carries its own `_Pragma("omp simd")` on its innermost
// loop (the rows shapes; see the top of this file for why).
#define ACCLAB_OMP_TUNED_OUTER(tuning, clauses, ...)                                          \
  do {                                                                                        \
    const int acclab_teams = (tuning).teams, acclab_threads = (tuning).threads;               \
    if ((tuning).loop && acclab_teams > 0) {                                                  \
      _Pragma(ACCLAB_OMP_STR(omp target teams loop num_teams(acclab_teams) thread_limit(      \
          acclab_threads) ACCLAB_OMP_UNWRAP clauses)) __VA_ARGS__                             \
    } else if ((tuning).loop) {                                                               \
      _Pragma(ACCLAB_OMP_STR(omp target teams loop ACCLAB_OMP_UNWRAP clauses)) __VA_ARGS__    \
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
