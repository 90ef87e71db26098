// The knobs of the *_omp_target_tuned steps (tunings omp_teams, omp_threads, omp_simd,
// omp_construct, and where a workload has several loop nests, omp_shape) and ACCLAB_OMP_TUNED /
// ACCLAB_OMP_TUNED_OUTER, which run a loop nest as a target region in the shape they name.
// OpenMP clauses are fixed at compile time, so each shape is its own directive; the macros write
// them once for every step. Their pragmas take effect only in OpenMP target sources; the tuned
// steps' files declare the tunings and their check with omp_tunings.
//
// Why the loop nest's shape matters with GCC 12: its nvptx OpenMP runs a thread per warp and
// spreads a simd loop over the warp's 32 lanes only when that loop is not collapsed (a simd loop
// under collapse(2) or (3) runs on one lane; scripts/omp-simt-probe.sh shows it in the PTX).
// So a nest is either one flat simd loop, or an outer loop over threads with the innermost loop
// as its own `omp simd` (the "rows" shapes, ACCLAB_OMP_TUNED_OUTER).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/params.hpp"

namespace acclab {

// One loop nest a workload's tuned step can run (omp_shape). `inner_simd`: the nest's innermost
// loop is its own `omp simd` under ACCLAB_OMP_TUNED_OUTER, so omp_simd=0 does not apply.
// `fixed`: the nest's region has its own construct, simd and teams, so none of omp_construct,
// omp_simd, omp_teams and omp_threads applies (the check refuses them rather than ignore them).
struct OmpShape {
  std::string name;
  std::string help;
  bool inner_simd = false;
  bool fixed = false;
};

// A tuned step's knobs as --set gives them. Every one is optional (no preset value), so that
// results list them only where --set gives them and a fixed shape can refuse those given; unset,
// each takes the default its accessor below names.
struct OmpTuning {
  // The largest num_teams and thread_limit --set takes. A CUDA block holds at most 1024 threads;
  // 65536 teams is ~500 a multiprocessor on an H200, more than any residency allows, while on
  // the host fallback each team is a pass of a loop, so that a huge count only wastes time.
  static constexpr int max_teams = 1 << 16;
  static constexpr int max_threads = 1024;

  std::optional<std::int64_t> teams;     // omp_teams
  std::optional<std::int64_t> threads;   // omp_threads
  std::optional<bool> simd;              // omp_simd
  std::optional<std::string> construct;  // omp_construct: distribute or loop
  std::optional<std::string> shape;      // omp_shape, where the step has several loop nests

  // num_teams and thread_limit; 0 (both): no clause, libgomp's choice.
  int num_teams() const { return static_cast<int>(teams.value_or(0)); }
  int thread_limit() const { return static_cast<int>(threads.value_or(0)); }
  // distribute only: `parallel for simd` (the default) rather than `parallel for`.
  bool with_simd() const { return simd.value_or(true); }
  // `target teams loop` instead of `target teams distribute parallel for` (the default).
  bool loop() const { return construct == "loop"; }
};

// The loop nest `tuning` names, else the first of `shapes` (the default).
inline const std::string& omp_shape_of(const OmpTuning& tuning,
                                       const std::vector<OmpShape>& shapes) {
  return tuning.shape ? *tuning.shape : shapes.front().name;
}

// The tunings above as a tuned step declares them (the function its ladder row names in
// `tuning_set` returns their set(), its factory their read()); `steps` names the steps they tune
// (for the help lines); `shapes`, where not empty, adds omp_shape with those choices, the first the
// default. The check: num_teams and thread_limit go together (each shape is one directive with both
// clauses or neither), a fixed shape refuses the knobs it does not use, and omp_simd=0 needs a
// shape without its own inner simd loop. omp_teams and omp_threads are bounded, so that acclab tune
// searches them (0 and the powers of two up to each maximum).
inline StepTunings<OmpTuning> omp_tunings(const std::string& steps,
                                          const std::vector<OmpShape>& shapes = {}) {
  StepTunings<OmpTuning> t;
  t.integer({.key = "omp_teams",
             .help = steps + " only: num_teams (default 0: libgomp's choice)",
             .presets = same_in_all_presets(""),
             .minimum = 0,
             .maximum = OmpTuning::max_teams,
             .unset_default = "0"},
            &OmpTuning::teams);
  t.integer({.key = "omp_threads",
             .help = steps + " only: thread_limit (default 0: libgomp's choice)",
             .presets = same_in_all_presets(""),
             .minimum = 0,
             .maximum = OmpTuning::max_threads,
             .unset_default = "0"},
            &OmpTuning::threads);
  t.flag({.key = "omp_simd",
          .help = steps + " only, omp_construct=distribute: 1 (default) adds simd (GCC's nvptx "
                          "OpenMP runs a thread per warp and spreads only simd loops over its "
                          "lanes)",
          .presets = same_in_all_presets(""),
          .unset_default = "1"},
         &OmpTuning::simd);
  t.text({.key = "omp_construct",
          .help = steps + " only: distribute (target teams distribute parallel for, the default) "
                          "or loop (target teams loop)",
          .presets = same_in_all_presets(""),
          .choices = {"distribute", "loop"},
          .unset_default = "distribute"},
         &OmpTuning::construct);
  if (!shapes.empty()) {
    std::string help = steps + " only: the loop nest:";
    std::vector<std::string> names;
    for (const OmpShape& shape : shapes) {
      help += " " + shape.name + (names.empty() ? " (default)" : "") + ", " + shape.help + ";";
      names.push_back(shape.name);
    }
    help.back() = '.';
    t.text({.key = "omp_shape",
            .help = help,
            .presets = same_in_all_presets(""),
            .choices = names,
            .unset_default = names.front()},
           &OmpTuning::shape);
  }
  t.check([shapes](const OmpTuning& tuning) {
    if ((tuning.num_teams() == 0) != (tuning.thread_limit() == 0)) {
      throw UsageError("--set omp_teams=" + std::to_string(tuning.num_teams()) +
                       " omp_threads=" + std::to_string(tuning.thread_limit()) +
                       ": set both (num_teams and thread_limit) or neither (libgomp's choice)");
    }
    if (shapes.empty()) return;
    const std::string& shape = omp_shape_of(tuning, shapes);
    const auto nest = std::find_if(shapes.begin(), shapes.end(),
                                   [&](const OmpShape& s) { return s.name == shape; });
    if (nest == shapes.end()) return;  // omp_shape's choices refuse it first
    if (nest->fixed) {
      const std::pair<const char*, bool> given[] = {{"omp_construct", tuning.construct.has_value()},
                                                    {"omp_simd", tuning.simd.has_value()},
                                                    {"omp_teams", tuning.teams.has_value()},
                                                    {"omp_threads", tuning.threads.has_value()}};
      for (const auto& [key, set] : given) {
        if (set) {
          throw UsageError(std::string("--set ") + key + ": omp_shape=" + shape +
                           " has its own region shape, which " + key +
                           " does not change; choose another omp_shape");
        }
      }
    }
    if (nest->inner_simd && !tuning.with_simd()) {
      throw UsageError("--set omp_simd=0: omp_shape=" + shape +
                       " always runs its innermost loop as simd; choose another omp_shape");
    }
  });
  return t;
}

}  // namespace acclab

#define ACCLAB_OMP_STR_(...) #__VA_ARGS__
#define ACCLAB_OMP_STR(...) ACCLAB_OMP_STR_(__VA_ARGS__)

// Runs the for statement given after `clauses` as one target region of the shape `tuning` (an
// OmpTuning) names; `clauses` are the region's map and reduction clauses, in parentheses. The
// shapes without simd are ACCLAB_OMP_TUNED_OUTER's.
#define ACCLAB_OMP_TUNED(tuning, clauses, ...)                                               \
  do {                                                                                       \
    const int acclab_simd_teams = (tuning).num_teams();                                      \
    const int acclab_simd_threads = (tuning).thread_limit();                                 \
    if (!(tuning).loop() && (tuning).with_simd() && acclab_simd_teams > 0) {                 \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for simd num_teams(           \
          acclab_simd_teams) thread_limit(acclab_simd_threads) ACCLAB_OMP_UNWRAP clauses))     \
          __VA_ARGS__                                                                        \
    } else if (!(tuning).loop() && (tuning).with_simd()) {                                   \
      _Pragma(ACCLAB_OMP_STR(omp target teams distribute parallel for simd ACCLAB_OMP_UNWRAP     \
                                 clauses)) __VA_ARGS__                                       \
    } else {                                                                                 \
      ACCLAB_OMP_TUNED_OUTER(tuning, clauses, __VA_ARGS__);                                  \
    }                                                                                        \
  } while (false)

// The outer loop of a nest as one target region of the shape `tuning` names, never with simd:
// the loop nest given after `clauses` carries its own `_Pragma("omp simd")` on its innermost
// loop (the rows shapes; see the top of this file for why).
#define ACCLAB_OMP_TUNED_OUTER(tuning, clauses, ...)                                          \
  do {                                                                                        \
    const int acclab_teams = (tuning).num_teams(), acclab_threads = (tuning).thread_limit();  \
    if ((tuning).loop() && acclab_teams > 0) {                                                \
      _Pragma(ACCLAB_OMP_STR(omp target teams loop num_teams(acclab_teams) thread_limit(      \
          acclab_threads) ACCLAB_OMP_UNWRAP clauses)) __VA_ARGS__                             \
    } else if ((tuning).loop()) {                                                             \
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
