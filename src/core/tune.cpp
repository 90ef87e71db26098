#include "core/tune.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "core/enum_names.hpp"
#include "core/error.hpp"

namespace acclab::tune {

namespace {

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

const ParamSpec* spec_of(const Workload& workload, const std::string& key) {
  const auto found = std::find_if(workload.params.begin(), workload.params.end(),
                                  [&](const ParamSpec& s) { return s.key == key; });
  return found == workload.params.end() ? nullptr : &*found;
}

}  // namespace

std::uint64_t Space::size() const {
  std::uint64_t n = 1;
  for (const auto& d : dimensions) {
    const std::uint64_t k = d.values.size();
    if (k != 0 && n > std::numeric_limits<std::uint64_t>::max() / k) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    n *= k;
  }
  return n;
}

std::vector<std::int64_t> integer_values(const ParamSpec& spec, std::int64_t current) {
  if (!std::isfinite(spec.maximum) || std::isnan(spec.minimum)) return {};
  // Bounds past what an int64 holds are clamped to it (a cast of such a double is undefined).
  constexpr double kLimit = 9.2e18;
  const auto lo = static_cast<std::int64_t>(std::ceil(std::clamp(spec.minimum, -kLimit, kLimit)));
  const auto hi = static_cast<std::int64_t>(std::floor(std::clamp(spec.maximum, -kLimit, kLimit)));
  std::set<std::int64_t> values = {current};
  if (hi < lo) return {values.begin(), values.end()};
  // hi - lo in unsigned arithmetic: the signed difference of two far-apart bounds overflows.
  if (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) <= 8) {
    for (std::int64_t v = lo; v <= hi; ++v) values.insert(v);
  } else {
    // A range this wide asks for orders of magnitude (teams, threads, block sizes): its ends and
    // the powers of two between them.
    values.insert(lo);
    values.insert(hi);
    for (std::int64_t p = 1; p <= hi; p *= 2) {
      if (p >= lo) values.insert(p);
      if (p > hi / 2) break;  // the next doubling would pass hi (or overflow)
    }
  }
  return {values.begin(), values.end()};
}

Space space_of(const Variant& variant, const Workload& workload, const std::string& preset,
               const std::vector<std::string>& sets) {
  const Params params = Params::resolve(workload.params, preset, sets);
  std::set<std::string> given;
  for (const auto& set : sets) given.insert(set.substr(0, set.find('=')));
  Space space;
  for (const auto& key : variant.tunings) {
    const ParamSpec* spec = spec_of(workload, key);
    if (!spec) continue;  // Registry::add_ladder refuses these
    const std::string current =
        params.has(key) ? value_text(params.json()[key]) : spec->unset_default;
    auto fix = [&](const std::string& reason) { space.fixed.push_back({key, current, reason}); };
    if (given.count(key)) {
      fix("given with --set");
      continue;
    }
    if (spec->type == ParamType::text && spec->choices.empty()) {
      fix("text without declared choices");
      continue;
    }
    if (spec->type == ParamType::real) {
      fix("real-valued: not searched");
      continue;
    }
    if (current.empty()) {
      // An optional integer with a range: unset (the step derives it; the default point) and
      // the range's values, as for any integer.
      const auto values = spec->type == ParamType::integer
                              ? integer_values(*spec, std::int64_t(std::ceil(spec->minimum)))
                              : std::vector<std::int64_t>{};
      if (values.empty()) {
        fix("optional, derived from other parameters when unset");
        continue;
      }
      Dimension d{.key = key, .values = {""}};
      for (auto v : values) d.values.push_back(std::to_string(v));
      space.dimensions.push_back(std::move(d));  // default_index 0: unset
      continue;
    }
    Dimension d{.key = key};
    switch (spec->type) {
      case ParamType::boolean:
        d.values = {"0", "1"};
        break;
      case ParamType::text:
        d.values = spec->choices;
        if (std::find(d.values.begin(), d.values.end(), current) == d.values.end()) {
          d.values.push_back(current);
        }
        break;
      case ParamType::integer: {
        const auto values = integer_values(*spec, std::stoll(current));
        if (values.empty()) {
          fix("no maximum declared");
          continue;
        }
        for (auto v : values) d.values.push_back(std::to_string(v));
        d.ordered = true;
        break;
      }
      case ParamType::real:
        continue;  // fixed above
    }
    d.default_index = static_cast<std::size_t>(
        std::find(d.values.begin(), d.values.end(), current) - d.values.begin());
    space.dimensions.push_back(std::move(d));
  }
  return space;
}

Point default_point(const Space& space) {
  Point p;
  for (const auto& d : space.dimensions) p.push_back(d.default_index);
  return p;
}

// Only the values that differ from the default: a tuning left at its default is not --set, as a
// user running the default would not set it (a fixed shape such as vector's omp_shape=lanes8
// refuses any --set of the knobs it does not use, its default point included otherwise).
std::vector<std::string> overrides_of(const Space& space, const Point& point) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < space.dimensions.size(); ++i) {
    if (point[i] == space.dimensions[i].default_index) continue;
    words.push_back(space.dimensions[i].key + "=" + space.dimensions[i].values[point[i]]);
  }
  return words;
}

nlohmann::json tunings_of(const Space& space, const Point& point) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t i = 0; i < space.dimensions.size(); ++i) {
    j[space.dimensions[i].key] = space.dimensions[i].values[point[i]];
  }
  return j;
}

constexpr auto kOutcomeNames = std::to_array<EnumName<Outcome>>({
    {Outcome::verified, "verified"},
    {Outcome::failed, "failed"},
    {Outcome::refused, "refused"},
});

const char* to_string(Outcome outcome) { return name_of(kOutcomeNames, outcome); }

constexpr auto kStrategyNames = std::to_array<EnumName<Strategy>>({
    {Strategy::exhaustive, "exhaustive"},
    {Strategy::random, "random"},
    {Strategy::local, "local"},
});

const char* to_string(Strategy strategy) { return name_of(kStrategyNames, strategy); }

Strategy strategy_of(const std::string& name) {
  if (const auto strategy = value_named(kStrategyNames, name)) return *strategy;
  throw UsageError(
      fmt::format("--strategy {}: expected exhaustive, random or local (or auto)", name));
}

std::optional<std::size_t> best_of(const std::vector<Evaluation>& evaluations) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    const auto& e = evaluations[i];
    if (e.outcome != Outcome::verified) continue;
    if (!best || e.median_s < evaluations[*best].median_s) best = i;
  }
  return best;
}

std::vector<Evaluation> search(const Space& space, const SearchOptions& options,
                               const std::function<Evaluation(const Point&)>& evaluate,
                               bool* cut_short) {
  std::vector<Evaluation> done;
  std::map<Point, std::size_t> seen;  // point -> its evaluation in `done`
  const std::uint64_t size = space.size();
  int measured = 0;
  bool stopped = false;
  // mt19937_64 is specified to the bit by the standard, and a plain modulo (not a distribution,
  // whose algorithm each library picks) keeps the draws the same on every platform.
  std::mt19937_64 rng(options.seed);
  auto random_point = [&] {
    Point p;
    for (const auto& d : space.dimensions) p.push_back(rng() % d.values.size());
    return p;
  };
  // Measures `p` unless it was measured or the budget is spent; false once the search must stop.
  auto visit = [&](const Point& p) {
    if (stopped) return false;
    if (seen.count(p)) return true;
    if ((options.max_evals > 0 && measured >= options.max_evals) ||
        (options.stop && options.stop())) {
      stopped = true;
      return false;
    }
    Evaluation e = evaluate(p);
    e.point = p;
    if (e.outcome != Outcome::refused) ++measured;
    seen[p] = done.size();
    done.push_back(std::move(e));
    return true;
  };
  auto all_seen = [&] { return seen.size() >= size; };
  auto finish = [&] {
    if (cut_short) *cut_short = stopped;
    return std::move(done);
  };

  visit(default_point(space));
  switch (options.strategy) {
    case Strategy::exhaustive: {
      Point p(space.dimensions.size(), 0);
      while (!stopped) {
        visit(p);
        // The next point, the last dimension fastest; past the last, done.
        std::size_t d = space.dimensions.size();
        while (d > 0) {
          --d;
          if (++p[d] < space.dimensions[d].values.size()) break;
          p[d] = 0;
          if (d == 0) return finish();
        }
        if (space.dimensions.empty()) return finish();
      }
      break;
    }
    case Strategy::random:
      while (!stopped && !all_seen()) {
        const Point p = random_point();
        if (!seen.count(p)) visit(p);
      }
      break;
    case Strategy::local: {
      // The random start: points measured (refused ones are drawn again), a bounded number of
      // draws so that a space of refusals ends.
      int started = 0;
      // 100 draws a point and 100 more, saturating: a huge space's count must not wrap to few.
      const std::uint64_t max_draws = size > (std::numeric_limits<std::uint64_t>::max() - 100) / 100
                                          ? std::numeric_limits<std::uint64_t>::max()
                                          : 100 * size + 100;
      for (std::uint64_t draws = 0;
           !stopped && !all_seen() && started < options.random_starts && draws < max_draws;
           ++draws) {
        const Point p = random_point();
        if (seen.count(p)) continue;
        visit(p);
        if (!stopped && done.back().outcome != Outcome::refused) ++started;
      }
      auto current = best_of(done);
      while (current && !stopped) {
        const Point here = done[*current].point;
        std::vector<Point> neighbours;
        for (std::size_t d = 0; d < space.dimensions.size(); ++d) {
          const Dimension& dim = space.dimensions[d];
          for (std::size_t v = 0; v < dim.values.size(); ++v) {
            const bool adjacent = v + 1 == here[d] || v == here[d] + 1;
            if (v == here[d] || (dim.ordered && !adjacent)) continue;
            Point n = here;
            n[d] = v;
            neighbours.push_back(std::move(n));
          }
        }
        for (const auto& n : neighbours) {
          if (!visit(n)) break;
        }
        std::optional<std::size_t> next;
        for (const auto& n : neighbours) {
          const auto found = seen.find(n);
          if (found == seen.end()) continue;
          const Evaluation& e = done[found->second];
          if (e.outcome != Outcome::verified) continue;
          const double against = next ? done[*next].median_s : done[*current].median_s;
          if (e.median_s < against) next = found->second;
        }
        if (!next) break;  // no neighbour is faster: a local optimum
        current = next;
      }
      break;
    }
  }
  return finish();
}

}  // namespace acclab::tune
