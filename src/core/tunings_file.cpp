#include "core/tunings_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace acclab::tune {

nlohmann::json tunings_key(const std::string& place, const std::string& gpu_name,
                           const std::string& compute_capability, const std::string& cpu,
                           const std::string& compiler) {
  if (place == "gpu") {
    return {{"place", "gpu"},
            {"device", gpu_name},
            {"compute_capability", compute_capability},
            {"compiler", compiler}};
  }
  return {{"place", "host"}, {"cpu", cpu}, {"compiler", compiler}};
}

nlohmann::json merge_tunings(const nlohmann::json& existing, const std::string& workload,
                             const std::string& preset, const std::vector<StepReport>& steps,
                             const std::vector<std::string>& command_line,
                             const nlohmann::json& build) {
  nlohmann::json entries = nlohmann::json::array();
  std::vector<nlohmann::json> fresh;
  for (const auto& s : steps) {
    const auto best = s.best();
    if (!best || s.best_tunings.is_null()) continue;
    const Evaluation* def = s.default_evaluation();
    fresh.push_back(
        {{"key", s.key},
         {"workload", workload},
         {"variant", s.variant->name},
         {"preset", preset},
         {"tunings", s.best_tunings},
         {"median_s", s.evaluations[*best].median_s},
         {"default_median_s", def ? nlohmann::json(def->median_s) : nlohmann::json(nullptr)},
         {"complete", s.status == "searched"},
         {"points_measured", s.measured()},
         {"commit", build.is_object() ? build.value("commit", nlohmann::json(nullptr))
                                      : nlohmann::json(nullptr)},
         {"command_line", command_line}});
  }
  auto same = [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.value("key", nlohmann::json()) == b.value("key", nlohmann::json()) &&
           a.value("workload", "") == b.value("workload", "") &&
           a.value("variant", "") == b.value("variant", "") &&
           a.value("preset", "") == b.value("preset", "");
  };
  if (existing.is_object() && existing.contains("entries")) {
    for (const auto& e : existing["entries"]) {
      if (std::none_of(fresh.begin(), fresh.end(), [&](const auto& f) { return same(e, f); })) {
        entries.push_back(e);
      }
    }
  }
  for (auto& f : fresh) entries.push_back(std::move(f));
  return {{"schema", kTuningsSchema}, {"entries", entries}};
}

nlohmann::json read_tunings_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{} {}: cannot be read", option, path));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{} {}: not JSON ({})", option, path, e.what()));
  }
  const auto wrong = [&](const std::string& why) {
    return UsageError(
        fmt::format("{} {}: not an {} file ({}; acclab tune --save-tunings writes one)", option,
                    path, kTuningsSchema, why));
  };
  if (!doc.is_object() || doc.value("schema", nlohmann::json()) != kTuningsSchema) {
    throw wrong(fmt::format("no schema {}", kTuningsSchema));
  }
  if (!doc.contains("entries") || !doc["entries"].is_array()) throw wrong("no entries list");
  for (const auto& e : doc["entries"]) {
    if (!e.is_object() || !e.contains("key") || !e["key"].is_object() || !e.contains("tunings") ||
        !e["tunings"].is_object() || !e.value("workload", nlohmann::json()).is_string() ||
        !e.value("variant", nlohmann::json()).is_string()) {
      throw wrong("an entry without key, workload, variant and tunings");
    }
    for (const auto& [k, v] : e["tunings"].items()) {
      if (!v.is_string()) throw wrong(fmt::format("tuning {} is not a string", k));
    }
  }
  return doc;
}

const nlohmann::json* find_tunings(const nlohmann::json& document, const nlohmann::json& key,
                                   const std::string& workload, const std::string& variant,
                                   const std::string& preset) {
  const nlohmann::json* other = nullptr;
  for (const auto& e : document["entries"]) {
    if (e["key"] != key || e["workload"] != workload || e["variant"] != variant) continue;
    if (e.value("preset", "") == preset) return &e;
    other = &e;
  }
  return other;
}

}  // namespace acclab::tune
