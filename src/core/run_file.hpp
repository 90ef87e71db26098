// The acclab.run/1 file read back: the document report.cpp's run_document writes, with the
// fields that compare, report and run --invocations rely on checked once, here.
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace acclab {

// The schema run_document writes and read_run_file accepts.
inline constexpr const char* kRunSchema = "acclab.run/1";

// One result of a file: a step (workload, variant, preset, parameters) and its timed runs.
struct RunStep {
  std::string workload, variant, preset;
  nlohmann::json params = nlohmann::json::object();
  std::string status;
  std::vector<double> times_s;
  // Each invocation's median (acclab run --invocations N: N processes), empty for one process.
  std::vector<double> invocations_median_s;
  std::optional<double> limit_fraction;

  // What a step is matched by, as JSON text: no name can run into the next, and nlohmann::json
  // keeps an object's keys sorted, so equal parameters give equal text in any order in the file.
  std::string key() const;
  // The step as a reader would name it: workload/variant (preset P, {params}).
  std::string shown() const;
};

struct RunFile {
  std::string path;
  nlohmann::json document;  // the whole document, as read
  std::vector<RunStep> steps;
  std::map<std::string, std::size_t> index;  // RunStep::key() -> position in steps
};

// The steps of `path`, read once (a pipe or a process substitution gives what the file would)
// and checked: every field a RunStep holds has the type it needs, every time is a positive
// finite number, and no step is there twice. Throws UsageError "PATH: why" otherwise.
RunFile read_run_file(const std::string& path);

}  // namespace acclab
