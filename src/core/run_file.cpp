#include "core/run_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/text_format.hpp"

namespace acclab {

std::string RunStep::key() const {
  return json_text(nlohmann::json::array({workload, variant, preset, params}));
}

std::string RunStep::shown() const {
  return fmt::format("{}/{} (preset {}, {})", workload, variant, preset, json_text(params));
}

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError(fmt::format("{}: {}", path, why));
}

std::string read_whole(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) refuse(path, "a folder, not a result file");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, fmt::format("cannot be read ({})", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) refuse(path, "read error");
  return text.str();
}

const char* kWhatWritesOne = "acclab run or ladder --format json --out FILE writes one";

// The document of `text`, checked to be an acclab.run/1 one with a results list.
nlohmann::json run_document_of(const std::string& path, const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    refuse(path, fmt::format("empty file, not an {} result ({})", kRunSchema, kWhatWritesOne));
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    refuse(path, fmt::format("not JSON, so not an {} result ({})", kRunSchema, e.what()));
  }
  if (!doc.is_object() || !doc.contains("schema")) {
    refuse(path, fmt::format("no schema: not an {} result ({})", kRunSchema, kWhatWritesOne));
  }
  if (doc["schema"] != kRunSchema) {
    refuse(path, fmt::format("schema {}, not {} ({})", json_text(doc["schema"]), kRunSchema,
                             kWhatWritesOne));
  }
  if (!doc.contains("results") || !doc["results"].is_array()) {
    refuse(path, fmt::format("an {} document without a results list", kRunSchema));
  }
  return doc;
}

// The positive finite seconds of `list` (a time of 0 or below cannot be a timed run, and a
// ratio of medians could not use it); `bad` is told the field's name and the value otherwise.
template <typename Bad>
std::vector<double> seconds_of(const nlohmann::json& list, const char* name, const Bad& bad) {
  std::vector<double> seconds;
  for (const auto& t : list) {
    if (!t.is_number() || !(t.get<double>() > 0) || !std::isfinite(t.get<double>())) {
      bad(fmt::format("{} holds {}, not a positive number of seconds", name, json_text(t)));
    }
    seconds.push_back(t.get<double>());
  }
  return seconds;
}

// The step of result `r`; `preset` is the document's, which a result may override.
template <typename Bad>
RunStep step_of(const nlohmann::json& r, const std::string& preset, const Bad& bad) {
  if (!r.is_object()) bad("not an object");
  RunStep step;
  for (const char* field : {"workload", "variant", "status"}) {
    if (!r.contains(field) || !r[field].is_string()) bad(fmt::format("no {} string", field));
  }
  step.workload = r["workload"];
  step.variant = r["variant"];
  step.status = r["status"];
  step.preset = preset;
  if (r.contains("preset")) {
    if (!r["preset"].is_string()) bad("preset is not a string");
    step.preset = r["preset"];
  }
  if (r.contains("params")) {
    if (!r["params"].is_object()) bad("params is not an object");
    step.params = r["params"];
  }
  if (!r.contains("times_s") || !r["times_s"].is_array()) bad("no times_s list");
  step.times_s = seconds_of(r["times_s"], "times_s", bad);
  if (r.contains("invocations_median_s") && !r["invocations_median_s"].is_null()) {
    if (!r["invocations_median_s"].is_array()) bad("invocations_median_s is not a list");
    step.invocations_median_s = seconds_of(r["invocations_median_s"], "invocations_median_s", bad);
  }
  if (r.contains("limit_fraction") && !r["limit_fraction"].is_null()) {
    if (!r["limit_fraction"].is_number()) bad("limit_fraction is not a number");
    step.limit_fraction = r["limit_fraction"].get<double>();
  }
  return step;
}

}  // namespace

RunFile read_run_file(const std::string& path) {
  RunFile file;
  file.path = path;
  file.document = run_document_of(path, read_whole(path));
  const nlohmann::json& doc = file.document;
  // The preset a result names, or the document's (run_document writes one for the whole run).
  std::string preset;
  if (doc.contains("preset") && doc["preset"].is_string()) preset = doc["preset"];
  const auto& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto bad = [&](const std::string& why) {
      refuse(path, fmt::format("results[{}]: {}", i, why));
    };
    RunStep step = step_of(results[i], preset, bad);
    const auto [at, added] = file.index.emplace(step.key(), file.steps.size());
    if (!added) {
      bad(fmt::format("the same step as results[{}]: {}", at->second, step.shown()));
    }
    file.steps.push_back(std::move(step));
  }
  return file;
}

}  // namespace acclab
