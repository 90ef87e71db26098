// acclab compare A.json B.json [C.json ...]: the steps of result files (acclab run or ladder
// --format json) matched between a baseline A and each later file, each with its ratio of
// medians, a bootstrap interval and a verdict of the Mann-Whitney U test (docs/compare.md).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/compare_stats.hpp"

namespace acclab {

struct CompareArgs {
  std::vector<std::string> files;  // the baseline first
  std::string format = "text";
  std::string out;
  std::optional<double> fail_if_slower_percent;
  double noise_percent = stats::kNoisePercent;  // the practical threshold of a verdict
};

void add_compare_options(CLI::App* cmd, CompareArgs& args);

// Returns 0, or 1 when --fail-if-slower found a step slower than the baseline (its verdict, so
// significant and beyond --noise) by more than its percentage (one line on stderr naming the steps; the report is written first).
// Throws UsageError (status 2, nothing written) for bad usage or a file that is not a result, and
// for a file that has no step in common with the baseline.
int compare_command(const CompareArgs& args, const std::vector<std::string>& command_line);

// Result files read and checked as compare reads them, labelled A, B, ... in the order given.
struct ComparedResults {
  std::vector<std::string> paths, labels;
  std::vector<nlohmann::json> documents;  // each file's acclab.run/1 document, as read
  nlohmann::json comparison;  // compare's report (acclab.compare/1), or null where there is none
  std::string not_compared;   // why there is none: one file, or no step comparable with A's
};

// Reads `paths` once each; with two or more, compares each with the first as compare does.
// Throws UsageError (nothing read further) for a file that is not a result or holds none; a
// comparison that cannot be made is not an error here, only said in not_compared.
ComparedResults read_and_compare(const std::vector<std::string>& paths,
                                 const std::vector<std::string>& command_line);

}  // namespace acclab
