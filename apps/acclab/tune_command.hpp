// acclab tune WORKLOAD: searches the declared tunings of each selected step, every point run and
// verified by the same harness as acclab run (docs/tuning.md).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"

namespace acclab {

struct TuneArgs {
  std::string workload;
  std::string variant = "*";
  std::optional<std::string> preset;  // unset: the workload's default
  std::vector<std::string> sets;      // fixed parameters; a tuning given here is not searched
  int reps = 5;
  int evals = 0;        // points measured per step, 0: the strategy's default
  double budget_s = 0;  // seconds per step, 0: none
  std::string strategy = "auto";
  std::uint64_t seed = 1;
  std::string format = "table";
  std::string out;
  std::string save_tunings;
  bool quiet = false;
  // Testing: points whose tunings include every KEY=VALUE given run with --corrupt-result (their
  // verification must fail, and they must never be chosen).
  std::vector<std::string> corrupt_points;
};

void add_tune_options(CLI::App* cmd, TuneArgs& args);

// Returns 0 when every searched step found a verified point, 1 when one found none (one line on
// stderr), 130 or 143 after SIGINT or SIGTERM (the points measured so far are reported, whole);
// throws UsageError (status 2) for bad usage before any point runs.
int tune_command(const TuneArgs& args, Registry& registry,
                 const std::vector<std::string>& command_line);

// acclab run --tunings FILE: the entries of a tunings file (acclab tune --save-tunings) that
// match this machine, applied to the variants they name. Reads and checks the file on
// construction (UsageError naming it).
class AppliedTunings {
 public:
  AppliedTunings(const std::string& path, Machine& machine, Runner& runner,
                 const Workload& workload, const std::string& preset,
                 const std::vector<std::string>& sets);
  // `params` with the entry's values for `variant` where one matches its device (where it runs
  // here) and this build's compiler; tunings given with --set keep their value. `note` (if
  // given) is set to "tunings from FILE" where an entry applied, "" otherwise. Throws
  // UsageError where a value of the file is not one the tuning or the workload accepts.
  Params apply(const Variant& variant, const Params& params, std::string* note = nullptr) const;

 private:
  std::string path_;
  nlohmann::json document_;
  Machine& machine_;
  Runner& runner_;
  const Workload& workload_;
  std::string preset_;
  std::vector<std::string> given_;  // the keys --set gives
};

}  // namespace acclab
