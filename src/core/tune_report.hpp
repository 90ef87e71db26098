// The report of acclab tune's searches: each step's search (StepReport) as the acclab.tune/1
// document and as the table the command prints.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "core/report.hpp"
#include "core/tune.hpp"

namespace acclab::tune {

// One step's search as the report shows it.
struct StepReport {
  const Variant* variant = nullptr;
  std::string place;  // "host" or "gpu"
  // searched (to the strategy's end), cut short (--evals, --budget or the default cap of
  // measured points ended it), interrupted,
  // not reached, unavailable, nothing to search
  std::string status;
  std::string note;
  Strategy strategy = Strategy::local;
  Space space;
  std::vector<Evaluation> evaluations;
  // The device and compiler the best tunings belong to (tunings_key()).
  nlohmann::json key = nlohmann::json::object();
  // All of the variant's tunings at the best point (searched and fixed), for the tunings file.
  nlohmann::json best_tunings = nullptr;

  std::optional<std::size_t> best() const { return best_of(evaluations); }
  // The default point's evaluation where it was measured and verified.
  const Evaluation* default_evaluation() const;
  int failed() const;    // ran and failed verification or raised an error
  int refused() const;   // never ran: the step or the machine refused the values
  int measured() const;  // verified and failed (refused ones never ran)
  // 1-based count of points measured up to the first that came within `fraction` of the best
  // (0.05: 5 %); 0 without a best.
  int evals_to_within(double fraction) const;
};

struct TuneSettings {
  std::string preset;
  int reps = 5;
  std::string strategy;  // as asked: auto, exhaustive, random or local
  std::uint64_t seed = 1;
  int max_evals = 0;
  double budget_s = 0;
  bool interrupted = false;
  std::string signal;  // SIGINT or SIGTERM where interrupted
};

// The acclab.tune/1 document: the context (host, devices, compiler, build, command line, as the
// run reports) and every step with every point.
nlohmann::json tune_json(const ReportContext& context, const TuneSettings& settings,
                         const std::vector<StepReport>& steps);

// The table: step, default time, best time, speedup, best tunings, points tried and failed.
std::string tune_table(const ReportContext& context, const TuneSettings& settings,
                       const std::vector<StepReport>& steps);

}  // namespace acclab::tune
