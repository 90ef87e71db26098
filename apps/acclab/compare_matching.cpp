#include "apps/acclab/compare_matching.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/text_format.hpp"

namespace acclab::compare {

ResultFile read_result_file(const std::string& path, std::size_t position) {
  // How the reports name the files: "A", "B", ..., "Z", then "F27", "F28", ...
  std::string label =
      position < 26 ? std::string(1, char('A' + position)) : fmt::format("F{}", position + 1);
  return ResultFile{read_run_file(path), std::move(label)};
}

const char* to_string(Tested tested) {
  return tested == Tested::invocations ? "invocations" : "repetitions";
}

namespace {

// --- provenance: what the files say about where and how they were made -------------------------

// A recorded value as text; null is recorded as nothing there (CUDA in a build without it).
std::string text_of(const nlohmann::json& value) {
  if (value.is_null()) return "none";
  return value.is_string() ? value.get<std::string>() : json_text(value);
}

std::string top(const nlohmann::json& doc, const char* key) {
  return doc.contains(key) ? text_of(doc[key]) : kNotRecorded;
}

std::string field(const nlohmann::json& doc, const char* object, const char* key) {
  if (!doc.contains(object) || !doc[object].is_object()) return kNotRecorded;
  return top(doc[object], key);
}

std::string host_text(const nlohmann::json& doc) {
  if (!doc.contains("host") || !doc["host"].is_object()) return kNotRecorded;
  const auto& host = doc["host"];
  return fmt::format("{} ({}, {} cores)", top(host, "hostname"), top(host, "cpu"),
                     top(host, "cores"));
}

std::string devices_text(const nlohmann::json& doc) {
  if (!doc.contains("devices") || !doc["devices"].is_array()) return kNotRecorded;
  if (doc["devices"].empty()) return "no GPU";
  std::vector<std::string> names;
  for (const auto& d : doc["devices"]) {
    if (!d.is_object()) continue;
    const std::string sm = top(d, "compute_capability");
    names.push_back(top(d, "name") +
                    (sm == kNotRecorded || sm == "none" || sm.empty() ? "" : " (sm " + sm + ")"));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string commit_text(const nlohmann::json& doc) {
  if (!doc.contains("build") || !doc["build"].is_object()) return kNotRecorded;
  const auto& build = doc["build"];
  std::string text = top(build, "commit");
  if (build.value("dirty", nlohmann::json()) == true) {
    const auto changed = build.value("changed", nlohmann::json::array());
    text += fmt::format(" (with {} changed paths)", changed.is_array() ? changed.size() : 0);
  }
  return text;
}

// The file given to --tunings on the command line that made the result, or "none".
std::string tunings_text(const nlohmann::json& doc) {
  if (!doc.contains("command_line") || !doc["command_line"].is_array()) return kNotRecorded;
  const auto& words = doc["command_line"];
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string word = text_of(words[i]);
    if (word == "--tunings" && i + 1 < words.size()) return text_of(words[i + 1]);
    if (word.starts_with("--tunings=")) return word.substr(std::string("--tunings=").size());
  }
  return "none";
}

struct ProvenanceLine {
  const char* name;
  std::string (*value)(const nlohmann::json&);
};

// What may explain a difference in time besides the code: the machine, its GPUs, where the
// directives ran, the compiler and its flags, the commit and a tunings file. (acclab.run/1 does
// not record the GPU driver's version.)
const ProvenanceLine kProvenance[] = {
    {"host", host_text},
    {"GPUs", devices_text},
    {"OpenACC on", [](const nlohmann::json& d) { return top(d, "openacc_runs_on"); }},
    {"OpenMP target on", [](const nlohmann::json& d) { return top(d, "omptarget_runs_on"); }},
    {"compiler", [](const nlohmann::json& d) { return field(d, "compiler", "cxx"); }},
    {"CUDA", [](const nlohmann::json& d) { return field(d, "compiler", "cuda"); }},
    {"CUDA archs",
     [](const nlohmann::json& d) { return field(d, "compiler", "cuda_architectures"); }},
    {"acclab", [](const nlohmann::json& d) { return field(d, "compiler", "acclab_version"); }},
    {"commit", commit_text},
    {"C++ flags", [](const nlohmann::json& d) { return field(d, "compiler", "cxx_flags"); }},
    {"OpenACC flags",
     [](const nlohmann::json& d) { return field(d, "compiler", "openacc_flags"); }},
    {"OpenMP target flags",
     [](const nlohmann::json& d) { return field(d, "compiler", "omptarget_flags"); }},
    {"tunings file", tunings_text},
};

std::vector<ProvenanceDifference> provenance_differences(const std::vector<ResultFile>& files) {
  std::vector<ProvenanceDifference> differences;
  for (const auto& line : kProvenance) {
    ProvenanceDifference d{line.name, {}};
    std::vector<std::string> recorded;
    for (const auto& f : files) {
      d.values.push_back(line.value(f.document));
      if (d.values.back() != kNotRecorded) recorded.push_back(d.values.back());
    }
    if (std::adjacent_find(recorded.begin(), recorded.end(), std::not_equal_to<>()) !=
        recorded.end()) {
      differences.push_back(std::move(d));
    }
  }
  return differences;
}

// --- the comparison ----------------------------------------------------------------------------

// The runs of one process vary less than processes do (each process places its threads and
// memory anew): where both sides hold two or more invocations, the test is between those.
Row compared_row(const ResultFile& baseline, const ResultFile& file, const RunStep& before,
                 const RunStep& after, double noise_percent) {
  const bool invocations =
      before.invocations_median_s.size() >= 2 && after.invocations_median_s.size() >= 2;
  Row row{
      &baseline, &file, &before, &after, invocations ? Tested::invocations : Tested::repetitions,
      {}};
  row.comparison = stats::compare_times(
      row.sample(before), row.sample(after), noise_percent, stats::kAlpha,
      invocations ? stats::Verdict::too_few_invocations : stats::Verdict::too_few_reps);
  return row;
}

// Why `step` of `file` cannot be compared ("" where it can): a step that did not run has no
// times, and the time of a failed step is the time of a wrong answer.
std::string not_comparable(const RunStep& step, const ResultFile& file) {
  if (step.status == "verified" && !step.times_s.empty()) return "";
  if (step.times_s.empty()) return fmt::format("{} in {}", step.status, file.label);
  return fmt::format("{} in {}", step.status == "failed" ? "failed verification" : step.status,
                     file.label);
}

}  // namespace

Comparison compare_files(std::vector<ResultFile> files, double noise_percent,
                         NothingInCommon nothing_in_common) {
  Comparison c;
  c.files = std::move(files);
  c.provenance = provenance_differences(c.files);
  const ResultFile& baseline = c.files.front();
  for (std::size_t f = 1; f < c.files.size(); ++f) {
    const ResultFile& file = c.files[f];
    std::size_t in_common = 0;
    const std::size_t rows_before = c.rows.size();
    for (const RunStep& before : baseline.steps) {
      const auto match = file.index.find(before.key());
      if (match == file.index.end()) {
        c.unmatched.push_back({&baseline, &file, &before, "only in " + baseline.label});
        continue;
      }
      ++in_common;
      const RunStep& after = file.steps[match->second];
      std::string why = not_comparable(before, baseline);
      const std::string why_after = not_comparable(after, file);
      if (!why_after.empty()) why = why.empty() ? why_after : why + ", " + why_after;
      if (!why.empty()) {
        c.unmatched.push_back({&baseline, &file, &before, why});
        continue;
      }
      c.rows.push_back(compared_row(baseline, file, before, after, noise_percent));
    }
    for (const RunStep& after : file.steps) {
      if (!baseline.index.contains(after.key())) {
        c.unmatched.push_back({&file, &baseline, &after, "only in " + file.label});
      }
    }
    std::string why;
    if (in_common == 0) {
      why = fmt::format(
          "{}: no step in common with the baseline {} (steps match by workload, variant, preset "
          "and parameters)",
          file.path, baseline.path);
    } else if (c.rows.size() == rows_before) {
      why = fmt::format(
          "{}: none of its {} steps in common with the baseline {} was verified and timed in "
          "both",
          file.path, in_common, baseline.path);
    }
    if (why.empty()) continue;
    if (nothing_in_common == NothingInCommon::refuse) throw UsageError(why);
    c.files_not_compared.push_back(why);
    // Its steps are all "only in" one side: the page shows them in the file's own table.
    std::erase_if(c.unmatched,
                  [&](const Unmatched& u) { return u.file == &file || u.other == &file; });
  }
  return c;
}

}  // namespace acclab::compare
