// Workload parameters: typed key=value pairs with per-preset defaults.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"

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

  bool operator==(const ParamSpec&) const = default;
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

  void set(const std::string& key, nlohmann::json value) {
    values_[key] = std::move(value);
    problem_.reset();
  }
  const nlohmann::json& json() const { return values_; }

  // The workload's typed problem for these values, parsed once: `parse` runs at the first call
  // and what it returns stays with the values (set() drops it), so that the workload's
  // validate, its memory estimates, the model and every step's factory in one run read one
  // parse. A parse that throws (bad input) keeps nothing. Not for a first call from two
  // threads at once: the instances copy their Problem when they are made, on the runner's.
  template <typename Problem>
  const Problem& problem(Problem (*parse)(const Params&)) const {
    const auto key = reinterpret_cast<void (*)()>(parse);
    if (!problem_ || problem_parse_ != key) {
      problem_ = std::make_shared<const Problem>(parse(*this));
      problem_parse_ = key;
    }
    return *static_cast<const Problem*>(problem_.get());
  }

 private:
  const nlohmann::json& at(std::string_view key) const;
  nlohmann::json values_ = nlohmann::json::object();
  // Shared by copies of these values, which hold the same problem.
  mutable std::shared_ptr<const void> problem_;
  mutable void (*problem_parse_)() = nullptr;
};

// A workload's parameters bound to the members of its Problem they fill: the one place each key
// is read by name. fill() copies every bound parameter that has a value (an optional one left
// unset leaves its member as it was, std::nullopt for an optional member).
template <typename Problem>
class ProblemFields {
 public:
  ProblemFields& integer(std::string key, std::int64_t Problem::*member) {
    return bind(std::move(key), member, read_integer);
  }
  ProblemFields& integer(std::string key, std::optional<std::int64_t> Problem::*member) {
    return bind(std::move(key), member, read_integer);
  }
  // An int member: a value past an int's range is refused (UsageError naming it), never cut.
  ProblemFields& integer(std::string key, int Problem::*member) {
    return bind(std::move(key), member, [](const Params& p, const std::string& k) {
      const std::int64_t value = p.integer(k);
      if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
        throw UsageError("--set " + k + "=" + std::to_string(value) +
                         ": outside the range of a 32-bit int");
      }
      return static_cast<int>(value);
    });
  }
  ProblemFields& real(std::string key, double Problem::*member) {
    return bind(std::move(key), member, read_real);
  }
  ProblemFields& real(std::string key, std::optional<double> Problem::*member) {
    return bind(std::move(key), member, read_real);
  }
  ProblemFields& flag(std::string key, bool Problem::*member) {
    return bind(std::move(key), member, read_flag);
  }
  ProblemFields& flag(std::string key, std::optional<bool> Problem::*member) {
    return bind(std::move(key), member, read_flag);
  }
  ProblemFields& text(std::string key, std::string Problem::*member) {
    return bind(std::move(key), member, read_text);
  }
  ProblemFields& text(std::string key, std::optional<std::string> Problem::*member) {
    return bind(std::move(key), member, read_text);
  }

  void fill(const Params& params, Problem& problem) const {
    for (const auto& [key, read] : binds_) {
      if (params.has(key)) read(params, key, problem);
    }
  }

 private:
  static std::int64_t read_integer(const Params& p, const std::string& k) { return p.integer(k); }
  static double read_real(const Params& p, const std::string& k) { return p.real(k); }
  static bool read_flag(const Params& p, const std::string& k) { return p.flag(k); }
  static std::string read_text(const Params& p, const std::string& k) { return p.text(k); }

  using Read = std::function<void(const Params&, const std::string&, Problem&)>;
  template <typename Member, typename Value>
  ProblemFields& bind(std::string key, Member Problem::*member, Value value) {
    binds_.emplace_back(std::move(key),
                        [member, value](const Params& p, const std::string& k, Problem& out) {
                          out.*member = value(p, k);
                        });
    return *this;
  }
  std::vector<std::pair<std::string, Read>> binds_;
};

// The knobs a step declares in its own file (RAJAPerf's tunings): their parameters, which the
// registry adds to the workload's when the step's row is built (a row names the function that
// returns them in `tuning_set`), and the check of their values, which acclab runs on every
// selected step (Variant::check_tunings) before any runs.
struct TuningSet {
  std::vector<ParamSpec> params;
  // Throws UsageError naming the --set at fault; empty: every value in range will do.
  std::function<void(const Params&)> check;
};

// A step's tunings, typed: each parameter declared with the member of the step's own `Tunings`
// struct it fills, so that the step's file is the one place its knobs are declared, read and
// checked. The member's type sets the parameter's (std::int64_t: integer; bool: boolean;
// std::string: text; each in std::optional for an optional one, whose member stays std::nullopt
// unless --set gives it). Made once (a function-local static) and read by the step's factory.
template <typename Tunings>
class StepTunings {
 public:
  // Member: the type the comment above names for each, plain or in std::optional.
  template <typename Member>
  StepTunings& integer(ParamSpec spec, Member Tunings::*member) {
    fields_.integer(spec.key, member);
    return add(std::move(spec), ParamType::integer);
  }
  template <typename Member>
  StepTunings& flag(ParamSpec spec, Member Tunings::*member) {
    fields_.flag(spec.key, member);
    return add(std::move(spec), ParamType::boolean);
  }
  template <typename Member>
  StepTunings& text(ParamSpec spec, Member Tunings::*member) {
    fields_.text(spec.key, member);
    return add(std::move(spec), ParamType::text);
  }
  // Refuses values that are each in range but no shape the step can run (throws UsageError).
  StepTunings& check(std::function<void(const Tunings&)> check) {
    check_ = std::move(check);
    return *this;
  }

  // The values of `params`, checked; a member whose optional parameter is unset keeps its
  // default.
  Tunings read(const Params& params) const {
    Tunings tunings;
    fields_.fill(params, tunings);
    if (check_) check_(tunings);
    return tunings;
  }

  // The parameters and the check, for the registry.
  TuningSet set() const {
    return {specs_, [tunings = *this](const Params& params) { tunings.read(params); }};
  }

 private:
  StepTunings& add(ParamSpec spec, ParamType type) {
    spec.type = type;
    specs_.push_back(std::move(spec));
    return *this;
  }

  ProblemFields<Tunings> fields_;
  std::vector<ParamSpec> specs_;
  std::function<void(const Tunings&)> check_;
};

// Parses `text` as the value of `spec`; `origin` names where it came from in error messages.
nlohmann::json parse_param_value(const ParamSpec& spec, const std::string& text,
                                 const std::string& origin);

}  // namespace acclab
