// acclab compare A.json B.json [C.json ...]: the steps of result files (acclab run or ladder
// --format json) matched between a baseline A and each later file, each with its ratio of
// medians, a bootstrap interval and a verdict of the Mann-Whitney U test (docs/compare.md).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace acclab {

struct CompareArgs {
  std::vector<std::string> files;  // the baseline first
  std::string format = "text";
  std::string out;
  std::optional<double> fail_if_slower_percent;
};

void add_compare_options(CLI::App* cmd, CompareArgs& args);

// Returns 0, or 1 when --fail-if-slower found a step significantly slower than the baseline by
// more than its percentage (one line on stderr naming the steps; the report is written first).
// Throws UsageError (status 2, nothing written) for bad usage or a file that is not a result, and
// for a file that has no step in common with the baseline.
int compare_command(const CompareArgs& args, const std::vector<std::string>& command_line);

}  // namespace acclab
