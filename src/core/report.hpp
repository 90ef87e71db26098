// Reporters: the same results as a readable table, as JSON (schema acclab.run/1) or as CSV.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/runner.hpp"
#include "core/text_format.hpp"  // format_seconds, json_text: the reports' writers

namespace acclab {

struct ReportContext {
  std::string command;  // "run" or "ladder"
  std::string workload;
  std::string preset;
  nlohmann::json host = nlohmann::json::object();
  nlohmann::json devices = nlohmann::json::array();
  nlohmann::json compiler = nlohmann::json::object();
  nlohmann::json build = nlohmann::json::object();  // Machine::build_json(): commit, dirty, flags
  std::vector<std::string> command_line;            // argv as the process received it
  std::string openacc_runs_on;                      // Machine::openacc_place()
  std::string omptarget_runs_on;                    // Machine::omptarget_place()
  nlohmann::json limits = nlohmann::json::object();
  // The ladder's practical threshold (compute_ladder_speedups), in percent; unset for run.
  std::optional<double> noise_percent;
  int invocations = 1;  // processes merged into the results (run --invocations)
  // The table format: `wide` prints every column and each row's whole note on its line (--wide);
  // otherwise the table fits `table_width` bytes a line (0: terminal_width()), its empty columns
  // left out and its notes numbered under it.
  bool wide = false;
  std::size_t table_width = 0;
};

// Shaped like Google Benchmark's reporters: context first, then the runs, then finalize.
// Nothing is promised to reach the stream before finalize().
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void report_context(const ReportContext& context) = 0;
  virtual void report_runs(const std::vector<Result>& results) = 0;
  virtual void finalize() = 0;
};

// format: table, json or csv. Throws UsageError for another format.
std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out);

nlohmann::json result_to_json(const Result& result);

// The acclab.run/1 document of a run: what the json format writes, and what --report draws.
nlohmann::json run_document(const ReportContext& context, const std::vector<Result>& results);

// What the profile of `result` cannot show and why (events the runtime does not deliver, CUDA
// work that is not instrumented), one sentence each; empty without a profile.
std::vector<std::string> profile_notes(const Result& result);

// The --profile report of `results` (those with a profile), shaped like PGI_ACC_TIME.
void print_profiles(std::ostream& out, const std::vector<Result>& results);

}  // namespace acclab
