#include "core/params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "core/error.hpp"

namespace acclab {

nlohmann::json parse_param_value(const ParamSpec& spec, const std::string& text,
                                 const std::string& origin) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  switch (spec.type) {
    case ParamType::integer: {
      std::int64_t value = 0;
      auto [end, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || end != last) {
        throw UsageError(fmt::format("{}: '{}' is not an integer", origin, text));
      }
      if (static_cast<double>(value) < spec.minimum ||
          static_cast<double>(value) > spec.maximum) {
        // The whole range where it has two ends, so that one refusal tells all that is allowed.
        const auto least = static_cast<std::int64_t>(spec.minimum);
        if (std::isfinite(spec.maximum)) {
          throw UsageError(fmt::format("{}: {} must be {} to {}", origin, spec.key, least,
                                       static_cast<std::int64_t>(spec.maximum)));
        }
        throw UsageError(fmt::format("{}: {} must be at least {}", origin, spec.key, least));
      }
      return value;
    }
    case ParamType::boolean:
      if (text != "0" && text != "1") {
        throw UsageError(fmt::format("{}: {} must be 0 or 1", origin, spec.key));
      }
      return std::int64_t(text == "1");
    case ParamType::real: {
      double value = 0;
      auto [end, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || end != last || !std::isfinite(value)) {
        throw UsageError(fmt::format("{}: '{}' is not a finite number", origin, text));
      }
      if (!(value > spec.minimum)) {
        throw UsageError(
            fmt::format("{}: {} must be greater than {}", origin, spec.key, spec.minimum));
      }
      if (!(value < spec.maximum)) {
        throw UsageError(
            fmt::format("{}: {} must be less than {}", origin, spec.key, spec.maximum));
      }
      return value;
    }
    case ParamType::text:
      if (!spec.choices.empty() &&
          std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end()) {
        throw UsageError(
            fmt::format("{}: '{}' is not one of {}", origin, text, fmt::join(spec.choices, ", ")));
      }
      return text;
  }
  return nullptr;
}

std::map<std::string, std::string> same_in_all_presets(const std::string& value) {
  return presets_of(value, value, value);
}

ParamSpec alternate_param(const std::string& steps) {
  return {.key = "alternate",
          .type = ParamType::boolean,
          .help = fmt::format("{}: 1 walks the rows of every other step in reverse, so that a step "
                              "starts on the rows the one before wrote last, still in the GPU's "
                              "L2 cache",
                              steps),
          .presets = same_in_all_presets("1")};
}

std::map<std::string, std::string> presets_of(const std::string& seed, const std::string& small,
                                              const std::string& large) {
  return {{"seed", seed}, {"small", small}, {"large", large}};
}

Params Params::resolve(const std::vector<ParamSpec>& specs, const std::string& preset,
                       const std::vector<std::string>& overrides) {
  Params params;
  std::set<std::string> presets;
  for (const auto& spec : specs) {
    for (const auto& [name, value] : spec.presets) presets.insert(name);
  }
  for (const auto& spec : specs) {
    auto found = spec.presets.find(preset);
    if (found == spec.presets.end()) {
      throw UsageError(fmt::format("--preset {}: unknown preset (this workload has {})", preset,
                                   fmt::join(presets, ", ")));
    }
    if (found->second.empty()) continue;  // optional, unset in this preset
    params.values_[spec.key] =
        parse_param_value(spec, found->second, fmt::format("preset {}", preset));
  }
  for (const auto& assignment : overrides) {
    auto equals = assignment.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw UsageError(fmt::format("--set {}: expected key=value", assignment));
    }
    std::string key = assignment.substr(0, equals);
    auto spec =
        std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& s) { return s.key == key; });
    if (spec == specs.end()) {
      std::vector<std::string> keys;
      for (const auto& s : specs) keys.push_back(s.key);
      throw UsageError(fmt::format("--set {}: unknown key '{}' (known: {})", assignment, key,
                                   fmt::join(keys, ", ")));
    }
    params.values_[key] = parse_param_value(*spec, assignment.substr(equals + 1),
                                            fmt::format("--set {}", assignment));
  }
  return params;
}

const nlohmann::json& Params::at(std::string_view key) const {
  auto found = values_.find(std::string(key));
  if (found == values_.end()) {
    throw std::logic_error(fmt::format("parameter '{}' is not defined", key));
  }
  return *found;
}

bool Params::has(std::string_view key) const { return values_.contains(std::string(key)); }
std::int64_t Params::integer(std::string_view key) const { return at(key).get<std::int64_t>(); }
double Params::real(std::string_view key) const { return at(key).get<double>(); }
const std::string& Params::text(std::string_view key) const {
  return at(key).get_ref<const std::string&>();
}

}  // namespace acclab
