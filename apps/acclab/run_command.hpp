// acclab run and acclab ladder: their options, the parameter sets they run, and the command
// itself (the steps run, the report written, the exit status).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/compare_stats.hpp"
#include "core/registry.hpp"

namespace CLI {
class App;
}

namespace acclab {

struct RunArgs {
  std::string workload;
  std::string variant = "*";
  std::optional<std::string> preset;  // unset: the workload's default
  std::vector<std::string> sets;
  int reps = 5;
  std::string format = "table";
  std::string out;
  std::string devices;  // comma-separated GPU counts: one run of every variant per count
  bool profile = false;
  bool corrupt_result = false;
  bool quiet = false;  // no progress lines on stderr
  bool wide = false;   // the table with every column and whole notes, however wide
  std::string tunings;  // acclab tune --save-tunings's file: its matching entries applied
  std::string report;   // the HTML page of the results (acclab report's), written at the end
  int invocations = 1;  // separate processes of the command, merged (invocations.hpp)
  double noise_percent = stats::kNoisePercent;  // ladder: vs 1st / vs prev within noise below it
};

// The options of `acclab run` and `acclab ladder` (--noise: ladder only) into `args`.
void add_run_options(CLI::App* cmd, RunArgs& args);

// `command` ("run" or "ladder") with `args`: the steps run, their report on stdout or --out.
// Returns the exit status: 0 all verified, 1 a verification failed (2: UsageError is thrown).
int run_command(const std::string& command, const RunArgs& args, Registry& registry);

}  // namespace acclab
