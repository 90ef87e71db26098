// Workload parameters: typed key=value pairs with per-preset defaults.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace acclab {

// boolean: an on/off switch written 0 or 1, stored and printed as the integer 0 or 1 (so that
// results and JSON keep the form they had as integer switches); read with Params::flag or
// Params::integer.
enum class ParamType { integer, real, text, boolean };

// One parameter of a workload. `presets` maps a preset name (seed, small, large) to the
// parameter's value in that preset, written as the user would write it after --set key=.
// An empty value leaves an optional parameter unset (Params::has is false) unless --set gives it.
struct ParamSpec {
  std::string key;
  ParamType type = ParamType::integer;
  std::string help;
  std::map<std::string, std::string> presets;
  // Allowed values of a text parameter (empty: any text).
  std::vector<std::string> choices;
  // Smallest allowed value of a numeric parameter; real parameters must be strictly greater.
  double minimum = 1;
  // Largest allowed value of a numeric parameter (infinity: none); real parameters must be
  // strictly less.
  double maximum = std::numeric_limits<double>::infinity();
  // Where `presets` leave an optional parameter unset but the code then takes a plain value
  // (as if --set gave it): that value, for `acclab list` to show as the default. Empty where
  // the unset parameter is derived from others (the help says how).
  std::string unset_default;
};

// A parameter's presets when its value is the same in all three (seed, small, large).
std::map<std::string, std::string> same_in_all_presets(const std::string& value);
// A parameter's presets, one value each.
std::map<std::string, std::string> presets_of(const std::string& seed, const std::string& small,
                                              const std::string& large);

// `alternate`, the switch of the resident constructs (`steps` names them) that walk every other
// step's rows in reverse, on by default.
ParamSpec alternate_param(const std::string& steps);

// The parameter values one run uses. Values are stored as JSON scalars so that they print
// and serialise as they are.
class Params {
 public:
  Params() = default;

  // Builds the values of `preset` for `specs`, then applies `overrides` ("key=value" as given
  // to --set). Throws UsageError naming the preset, the override or the key at fault.
  static Params resolve(const std::vector<ParamSpec>& specs, const std::string& preset,
                        const std::vector<std::string>& overrides);

  std::int64_t integer(std::string_view key) const;
  // A boolean parameter's value (an integer one's is true when not 0).
  bool flag(std::string_view key) const { return integer(key) != 0; }
  double real(std::string_view key) const;
  const std::string& text(std::string_view key) const;
  bool has(std::string_view key) const;

  void set(const std::string& key, nlohmann::json value) { values_[key] = std::move(value); }
  const nlohmann::json& json() const { return values_; }

 private:
  const nlohmann::json& at(std::string_view key) const;
  nlohmann::json values_ = nlohmann::json::object();
};

// Parses `text` as the value of `spec`; `origin` names where it came from in error messages.
nlohmann::json parse_param_value(const ParamSpec& spec, const std::string& text,
                                 const std::string& origin);

}  // namespace acclab
