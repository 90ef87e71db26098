#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/glob.hpp"

namespace acclab {

const char* to_string(Precision precision) {
  return precision == Precision::fp32 ? "fp32" : "fp64";
}

constexpr auto kBackendNames = std::to_array<EnumName<Backend>>({
    {Backend::serial, "serial"},
    {Backend::openmp, "openmp"},
    {Backend::openacc, "openacc"},
    {Backend::omptarget, "omptarget"},
    {Backend::cuda, "cuda"},
});

const char* to_string(Backend backend) { return name_of(kBackendNames, backend); }

void Registry::add_workload(Workload workload) {
  if (std::any_of(workloads_.begin(), workloads_.end(),
                  [&](const Workload& w) { return w.name == workload.name; })) {
    throw std::logic_error("workload registered twice: " + workload.name);
  }
  workloads_.push_back(std::move(workload));
}

void Registry::add_variant(Variant variant) {
  workload(variant.workload);  // must exist
  if (std::any_of(variants_.begin(), variants_.end(),
                  [&](const Variant& v) { return v.id() == variant.id(); })) {
    throw std::logic_error("variant registered twice: " + variant.id());
  }
  variants_.push_back(std::move(variant));
}

void Registry::add_ladder(const std::string& workload_name, const std::vector<LadderRow>& rows,
                          const std::function<PerfModel(const LadderRow&)>& model_of,
                          const std::function<void(Variant&)>& adjust) {
  workload(workload_name);  // must exist
  Workload& owner = *std::find_if(workloads_.begin(), workloads_.end(),
                                  [&](const Workload& w) { return w.name == workload_name; });
  // Every row's own tunings first: a row may name one that a later row's file declares.
  for (const LadderRow& row : rows) {
    for (const ParamSpec& declared : row.tuning_set.params) {
      if (std::find(row.tunings.begin(), row.tunings.end(), declared.key) == row.tunings.end()) {
        throw std::logic_error(fmt::format("{}/{}: declares tuning '{}', which its row does not name",
                                           workload_name, row.name, declared.key));
      }
      auto same_key = std::find_if(owner.params.begin(), owner.params.end(),
                                   [&](const ParamSpec& spec) { return spec.key == declared.key; });
      if (same_key == owner.params.end()) {
        owner.params.push_back(declared);
      } else if (!(*same_key == declared)) {
        throw std::logic_error(fmt::format("{}/{}: tuning '{}' is declared otherwise elsewhere",
                                           workload_name, row.name, declared.key));
      }
    }
  }
  std::map<std::string, int> steps;  // per family, the rows added so far
  for (const LadderRow& row : rows) {
    for (const auto& tuning : row.tunings) {
      if (std::none_of(owner.params.begin(), owner.params.end(),
                       [&](const ParamSpec& spec) { return spec.key == tuning; })) {
        throw std::logic_error(fmt::format("{}/{}: tuning '{}' is no parameter of {}",
                                           workload_name, row.name, tuning, workload_name));
      }
    }
    Variant variant{workload_name, row.name, row.backend, row.family, ++steps[row.family],
                    row.description, row.factory, model_of(row), row.gpu_unavailable_reason,
                    row.source};
    variant.tunings = row.tunings;
    variant.distributed = row.distributed;
    variant.check_tunings = row.tuning_set.check;
    if (adjust) adjust(variant);
    add_variant(std::move(variant));
  }
}

const Workload& Registry::workload(const std::string& name) const {
  auto found = std::find_if(workloads_.begin(), workloads_.end(),
                            [&](const Workload& w) { return w.name == name; });
  if (found == workloads_.end()) {
    std::vector<std::string> names;
    for (const auto& w : workloads_) names.push_back(w.name);
    throw UsageError(
        fmt::format("unknown workload '{}' (known: {})", name, fmt::join(names, ", ")));
  }
  return *found;
}

std::vector<const Variant*> Registry::select(const std::string& workload_name,
                                             const std::string& glob) const {
  workload(workload_name);
  std::vector<const Variant*> selected;
  for (const auto& pattern : split_patterns(glob)) {
    bool matched = false;
    for (const auto& variant : variants_) {
      if (variant.workload != workload_name || !glob_match(pattern, variant.name)) continue;
      matched = true;
      if (std::find(selected.begin(), selected.end(), &variant) == selected.end()) {
        selected.push_back(&variant);
      }
    }
    if (!matched) {
      throw UsageError(fmt::format("--variant {}: '{}' matches no variant of {} (see acclab list)",
                                   glob, pattern, workload_name));
    }
  }
  // Families in order of first registration, then steps.
  auto family_rank = [&](const Variant* v) {
    auto first = std::find_if(variants_.begin(), variants_.end(), [&](const Variant& other) {
      return other.workload == v->workload && other.family == v->family;
    });
    return first - variants_.begin();
  };
  std::stable_sort(selected.begin(), selected.end(), [&](const Variant* a, const Variant* b) {
    auto ra = family_rank(a), rb = family_rank(b);
    return ra != rb ? ra < rb : a->step < b->step;
  });
  return selected;
}

namespace {

bool declares(const Variant& variant, const std::string& key) {
  return std::find(variant.tunings.begin(), variant.tunings.end(), key) != variant.tunings.end();
}

constexpr auto kParamTypeNames = std::to_array<EnumName<ParamType>>({
    {ParamType::integer, "integer"},
    {ParamType::real, "real"},
    {ParamType::text, "text"},
    {ParamType::boolean, "boolean"},
});

const char* type_name(ParamType type) { return name_of(kParamTypeNames, type); }

}  // namespace

std::string tuning_name(const Variant& variant, const Params& params) {
  std::vector<std::string> values;
  for (const auto& key : variant.tunings) {
    if (!params.has(key)) continue;
    const nlohmann::json& value = params.json()[key];
    values.push_back(key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return values.empty() ? "default" : fmt::format("{}", fmt::join(values, ","));
}

Params reported_params(const Registry& registry, const Variant& variant, const Params& params) {
  Params reported;
  for (const auto& [key, value] : params.json().items()) {
    const bool others_only =
        !declares(variant, key) &&
        std::any_of(registry.variants().begin(), registry.variants().end(), [&](const Variant& v) {
          return v.workload == variant.workload && declares(v, key);
        });
    if (!others_only) reported.set(key, value);
  }
  return reported;
}

nlohmann::json tunings_json(const Variant& variant, const Workload& workload) {
  nlohmann::json tunings = nlohmann::json::array();
  for (const auto& key : variant.tunings) {
    const auto spec = std::find_if(workload.params.begin(), workload.params.end(),
                                   [&](const ParamSpec& s) { return s.key == key; });
    if (spec == workload.params.end()) continue;  // add_ladder refuses these
    const auto preset = spec->presets.find(workload.default_preset);
    const std::string value = preset != spec->presets.end() && !preset->second.empty()
                                  ? preset->second
                                  : spec->unset_default;
    nlohmann::json tuning = {
        {"name", key},
        {"type", type_name(spec->type)},
        {"help", spec->help},
        {"default", value.empty() ? nlohmann::json(nullptr) : nlohmann::json(value)}};
    if (!spec->choices.empty()) {
      tuning["choices"] = spec->choices;
    } else if (spec->type == ParamType::integer || spec->type == ParamType::real) {
      tuning["minimum"] = spec->minimum;
      if (std::isfinite(spec->maximum)) tuning["maximum"] = spec->maximum;
    }
    tunings.push_back(std::move(tuning));
  }
  return tunings;
}

void check_tuning_use(const Registry& registry, const std::string& workload,
                      const std::vector<const Variant*>& selected, const std::string& key,
                      const std::string& option) {
  std::vector<std::string> owners;
  for (const auto& variant : registry.variants()) {
    if (variant.workload == workload && declares(variant, key)) owners.push_back(variant.id());
  }
  if (owners.empty()) return;  // a parameter of the problem, not a tuning
  if (std::any_of(selected.begin(), selected.end(),
                  [&](const Variant* v) { return declares(*v, key); })) {
    return;
  }
  std::vector<std::string> chosen;
  for (const Variant* v : selected) chosen.push_back(v->id());
  throw UsageError(fmt::format("{}: {} is a tuning of {} only (see acclab list), not of {}",
                               option, key, fmt::join(owners, ", "), fmt::join(chosen, ", ")));
}

void check_tuning_overrides(const Registry& registry, const std::string& workload,
                            const std::vector<const Variant*>& selected,
                            const std::vector<std::string>& overrides) {
  for (const auto& override : overrides) {
    check_tuning_use(registry, workload, selected, override.substr(0, override.find('=')),
                     "--set " + override);
  }
}

}  // namespace acclab
