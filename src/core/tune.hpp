// acclab tune's search: the space of a step's tunings (from their declarations) and the search
// strategies. tune_report.hpp reports a search (acclab.tune/1); tunings_file.hpp keeps its best
// points (acclab.tunings/1) for run --tunings.
//
// The search knows nothing of how a point is measured: it hands each point to an `evaluate`
// callback (the command runs it through the Runner, as acclab run does) and chooses the next one
// from the outcomes so far. So the strategies are tested with any objective, and the command's
// measurements with the real harness.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/registry.hpp"

namespace acclab::tune {

// One searched tuning: its values in search order, each as --set takes it ("" for an optional
// integer left unset, its step's derived value: the first, and the default). Numbers ascend (a
// neighbour is the next value up or down: double or half on a power-of-two ladder); choices and
// switches keep their declared order, and every other value is a neighbour.
struct Dimension {
  std::string key;
  std::vector<std::string> values;
  std::size_t default_index = 0;  // the value of the preset (with --set): the default point
  bool ordered = false;           // numeric: neighbours are the adjacent values
};

// A tuning the search leaves at its value, and why (given with --set, no maximum declared, ...).
struct Fixed {
  std::string key;
  std::string value;  // "" where unset
  std::string reason;
};

struct Space {
  std::vector<Dimension> dimensions;
  std::vector<Fixed> fixed;
  // Points in the space: the product of the dimensions' sizes (1 for no dimension), saturating.
  std::uint64_t size() const;
};

// The values an integer tuning is searched over, from its declared range: every integer where the
// range holds at most 9; otherwise the powers of two inside it with both ends (0 included, as
// the "runtime's choice" some tunings give it). `current` (the preset's value) is always one of
// them. Empty where no maximum is declared: no range to search.
std::vector<std::int64_t> integer_values(const ParamSpec& spec, std::int64_t current);

// The space of `variant`'s tunings with `preset` and the user's `sets` (key=value): each declared
// tuning of integer range, boolean or text choices is a dimension, unless a --set fixes it; the
// others (text without choices, real, unbounded or optional without a plain default) are fixed.
Space space_of(const Variant& variant, const Workload& workload, const std::string& preset,
               const std::vector<std::string>& sets);

// A point: one index into each dimension's values.
using Point = std::vector<std::size_t>;
Point default_point(const Space& space);
// The point's tunings as --set words ("key=value"), in dimension order.
std::vector<std::string> overrides_of(const Space& space, const Point& point);
// The point's tunings as a JSON object {key: value text}.
nlohmann::json tunings_of(const Space& space, const Point& point);

enum class Outcome {
  verified,  // measured and verified: a candidate
  failed,    // ran and failed verification or raised an error
  refused,   // never ran: the step or the machine refused the values (validate, check_params,
             // device memory)
};
const char* to_string(Outcome outcome);

// One point measured (or refused).
struct Evaluation {
  Point point;
  Outcome outcome = Outcome::refused;
  double median_s = 0;  // verified and failed-after-timing points
  double min_s = 0, max_s = 0;
  std::vector<double> times_s;
  std::string detail;  // why it failed or was refused; the result's note otherwise
};

enum class Strategy { exhaustive, random, local };
const char* to_string(Strategy strategy);
// "exhaustive", "random" or "local"; throws UsageError otherwise.
Strategy strategy_of(const std::string& name);

struct SearchOptions {
  Strategy strategy = Strategy::local;
  std::uint64_t seed = 1;
  // At most this many points measured (refused points run nothing and do not count); 0: no limit.
  int max_evals = 0;
  // Checked before each point: true stops the search (a budget of seconds spent, a signal).
  std::function<bool()> stop;
  // Local search: random points measured before the climb starts (after the default point).
  int random_starts = 4;
};

// Searches `space`: the default point first, then as the strategy says.
//   exhaustive: every point in order (the last dimension fastest).
//   random: distinct points drawn uniformly, in an order fixed by the seed alone.
//   local: `random_starts` random points, then from the best verified point so far a climb:
//          every unmeasured neighbour (each dimension one step either way, each other choice),
//          then to the best of them while it is faster, until none is or the budget ends.
// No point is measured twice. Failed and refused points are recorded and never become the best.
// `cut_short`, where given, says whether max_evals or stop() ended the search before its
// strategy did (every point seen, a local optimum, the random start's draws spent).
std::vector<Evaluation> search(const Space& space, const SearchOptions& options,
                               const std::function<Evaluation(const Point&)>& evaluate,
                               bool* cut_short = nullptr);

// The index of the fastest verified evaluation (the first among equals), or nullopt.
std::optional<std::size_t> best_of(const std::vector<Evaluation>& evaluations);

}  // namespace acclab::tune
