// run/ladder --invocations N: the same command in N separate processes, each with its own
// warm-up, merged into one result. The runs of one process vary less than processes do (each
// places its threads and memory anew, meets the clocks as they are), so a test between two
// files' repetitions can call a difference between processes a difference of code; with each
// process's median kept, compare and the ladder test between processes (docs/compare.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"

namespace acclab {

// The arguments of one invocation: `arguments` (this process's, without argv[0]) less
// --invocations, --out, --format and --report (each as "--name VALUE" or "--name=VALUE"), with
// --format json --out `out` added.
std::vector<std::string> invocation_arguments(const std::vector<std::string>& arguments,
                                              const std::string& out);

// Runs this binary (/proc/self/exe) `count` times, one after the other, with `arguments` as
// invocation_arguments makes them, each writing its acclab.run/1 document to a temporary file
// (removed afterwards); their standard error is this process's (their progress lines, unless
// `quiet`). Returns the documents in order. Throws UsageError where an invocation refused its
// arguments (status 2), std::runtime_error where one ended without a result (a signal, a crash).
std::vector<nlohmann::json> run_invocations(int count, const std::string& program,
                                            const std::vector<std::string>& arguments, bool quiet);

struct MergedRun {
  ReportContext context;  // host, devices, compiler, build, places, limits: the first's
  std::vector<Result> results;
};

// The documents of one command's invocations as one result: each result's timed runs one after
// the other, each invocation's median kept (invocations_median_s), the median the median of
// those (the middle process), min and max over every run, the rates at that median. A step
// failed in any invocation is failed, with that invocation's error. Throws std::runtime_error
// where the documents do not hold the same steps in the same order.
MergedRun merge_invocations(const std::vector<nlohmann::json>& documents,
                            const Registry& registry);

}  // namespace acclab
