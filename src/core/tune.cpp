#include "core/tune.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

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
      fix("optional, derived from other parameters when unset");
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

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::verified:
      return "verified";
    case Outcome::failed:
      return "failed";
    case Outcome::refused:
      return "refused";
  }
  return "?";
}

const char* to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::exhaustive:
      return "exhaustive";
    case Strategy::random:
      return "random";
    case Strategy::local:
      return "local";
  }
  return "?";
}

Strategy strategy_of(const std::string& name) {
  if (name == "exhaustive") return Strategy::exhaustive;
  if (name == "random") return Strategy::random;
  if (name == "local") return Strategy::local;
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

const Evaluation* StepReport::default_evaluation() const {
  if (evaluations.empty()) return nullptr;
  // The search measures the default point first.
  const Evaluation& first = evaluations.front();
  return first.point == default_point(space) && first.outcome == Outcome::verified ? &first
                                                                                   : nullptr;
}

int StepReport::failed() const {
  return static_cast<int>(std::count_if(evaluations.begin(), evaluations.end(), [](const auto& e) {
    return e.outcome == Outcome::failed;
  }));
}

int StepReport::refused() const {
  return static_cast<int>(std::count_if(evaluations.begin(), evaluations.end(), [](const auto& e) {
    return e.outcome == Outcome::refused;
  }));
}

int StepReport::measured() const {
  return static_cast<int>(std::count_if(evaluations.begin(), evaluations.end(), [](const auto& e) {
    return e.outcome != Outcome::refused;
  }));
}

int StepReport::evals_to_within(double fraction) const {
  const auto b = best();
  if (!b) return 0;
  const double limit = evaluations[*b].median_s * (1 + fraction);
  int count = 0;
  for (const auto& e : evaluations) {
    if (e.outcome == Outcome::refused) continue;
    ++count;
    if (e.outcome == Outcome::verified && e.median_s <= limit) return count;
  }
  return 0;
}

namespace {

nlohmann::json evaluation_json(const Space& space, const Evaluation& e, std::size_t index) {
  const bool timed = !e.times_s.empty();
  return {{"index", index},
          {"tunings", tunings_of(space, e.point)},
          {"status", to_string(e.outcome)},
          {"median_s", timed ? nlohmann::json(e.median_s) : nlohmann::json(nullptr)},
          {"min_s", timed ? nlohmann::json(e.min_s) : nlohmann::json(nullptr)},
          {"max_s", timed ? nlohmann::json(e.max_s) : nlohmann::json(nullptr)},
          {"times_s", e.times_s},
          {"detail", e.detail.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.detail)}};
}

nlohmann::json step_json(const StepReport& s) {
  nlohmann::json dimensions = nlohmann::json::array();
  for (const auto& d : s.space.dimensions) {
    dimensions.push_back({{"name", d.key},
                          {"values", d.values},
                          {"default", d.values[d.default_index]},
                          {"ordered", d.ordered}});
  }
  nlohmann::json fixed = nlohmann::json::array();
  for (const auto& f : s.space.fixed) {
    fixed.push_back({{"name", f.key},
                     {"value", f.value.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.value)},
                     {"reason", f.reason}});
  }
  nlohmann::json points = nlohmann::json::array();
  for (std::size_t i = 0; i < s.evaluations.size(); ++i) {
    points.push_back(evaluation_json(s.space, s.evaluations[i], i));
  }
  const Evaluation* def = s.default_evaluation();
  const auto best = s.best();
  nlohmann::json j = {
      {"workload", s.variant->workload},
      {"variant", s.variant->name},
      {"backend", to_string(s.variant->backend)},
      {"family", s.variant->family},
      {"step", s.variant->step},
      {"place", s.place},
      {"status", s.status},
      {"note", s.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.note)},
      {"strategy", to_string(s.strategy)},
      {"space", {{"size", s.space.size()}, {"dimensions", dimensions}, {"fixed", fixed}}},
      {"points_tried", s.evaluations.size()},
      {"points_measured", s.measured()},
      {"points_failed", s.failed()},
      {"points_refused", s.refused()},
      {"default",
       s.evaluations.empty()
           ? nlohmann::json(nullptr)
           : nlohmann::json{{"tunings", tunings_of(s.space, s.evaluations.front().point)},
                            {"status", to_string(s.evaluations.front().outcome)},
                            {"median_s",
                             def ? nlohmann::json(def->median_s) : nlohmann::json(nullptr)}}},
      {"best", best ? nlohmann::json{{"index", *best},
                                     {"tunings", tunings_of(s.space, s.evaluations[*best].point)},
                                     {"median_s", s.evaluations[*best].median_s}}
                    : nlohmann::json(nullptr)},
      {"best_tunings", s.best_tunings},
      {"speedup_over_default", def && best && s.evaluations[*best].median_s > 0
                                   ? nlohmann::json(def->median_s / s.evaluations[*best].median_s)
                                   : nlohmann::json(nullptr)},
      {"evals_to_within_5_percent",
       best ? nlohmann::json(s.evals_to_within(0.05)) : nlohmann::json(nullptr)},
      {"key", s.key},
      {"points", points},
  };
  return j;
}

std::string tunings_text(const nlohmann::json& tunings) {
  std::vector<std::string> words;
  for (const auto& [key, value] : tunings.items()) words.push_back(key + "=" + value_text(value));
  return words.empty() ? "-" : fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

nlohmann::json tune_json(const ReportContext& context, const TuneSettings& settings,
                         const std::vector<StepReport>& steps) {
  nlohmann::json doc = {
      {"schema", "acclab.tune/1"},
      {"command", "tune"},
      {"workload", context.workload},
      {"preset", settings.preset},
      {"strategy", settings.strategy},
      {"seed", settings.seed},
      {"reps", settings.reps},
      {"max_evals",
       settings.max_evals > 0 ? nlohmann::json(settings.max_evals) : nlohmann::json(nullptr)},
      {"budget_s",
       settings.budget_s > 0 ? nlohmann::json(settings.budget_s) : nlohmann::json(nullptr)},
      {"interrupted", settings.interrupted},
      {"signal", settings.interrupted ? nlohmann::json(settings.signal) : nlohmann::json(nullptr)},
      {"host", context.host},
      {"devices", context.devices},
      {"compiler", context.compiler},
      {"build", context.build},
      {"command_line", context.command_line},
      {"openacc_runs_on", context.openacc_runs_on},
      {"limits", context.limits},
  };
  if (!context.omptarget_runs_on.empty()) doc["omptarget_runs_on"] = context.omptarget_runs_on;
  doc["steps"] = nlohmann::json::array();
  for (const auto& s : steps) doc["steps"].push_back(step_json(s));
  return doc;
}

std::string tune_table(const ReportContext& context, const TuneSettings& settings,
                       const std::vector<StepReport>& steps) {
  std::string out = fmt::format(
      "acclab tune {}  preset {}  strategy {}  seed {}  reps {}{}{}\n", context.workload,
      settings.preset, settings.strategy, settings.seed, settings.reps,
      settings.max_evals > 0 ? fmt::format("  evals {}", settings.max_evals) : std::string(),
      settings.budget_s > 0 ? fmt::format("  budget {}", format_seconds(settings.budget_s))
                            : std::string());
  const std::string gpus =
      context.devices.empty()
          ? "no GPU"
          : fmt::format("{} x {}", context.devices.size(), context.devices[0].value("name", "GPU"));
  out += fmt::format("host {} ({} cores)  {}\n\n", context.host.value("cpu", "?"),
                     context.host.value("cores", 0), gpus);
  std::size_t name_w = 4;
  for (const auto& s : steps) name_w = std::max(name_w, s.variant->id().size());
  const std::string columns = fmt::format(
      "{{:<{}}} {{:<10}} {{:>10}} {{:>10}} {{:>8}} {{:>6}} {{:>6}} {{:>7}}  {{}}\n", name_w);
  out += fmt::format(fmt::runtime(columns), "step", "strategy", "default", "best", "speedup",
                     "tried", "failed", "refused", "best tunings");
  std::vector<std::string> notes;
  for (const auto& s : steps) {
    const Evaluation* def = s.default_evaluation();
    const auto best = s.best();
    const bool searched = !s.evaluations.empty();
    out += fmt::format(
        fmt::runtime(columns), s.variant->id(), searched ? to_string(s.strategy) : "-",
        def ? format_seconds(def->median_s) : "-",
        best ? format_seconds(s.evaluations[*best].median_s) : "-",
        def && best && s.evaluations[*best].median_s > 0
            ? fmt::format("{:.2f}x", def->median_s / s.evaluations[*best].median_s)
            : "-",
        s.evaluations.size(), s.failed(), s.refused(),
        best ? tunings_text(tunings_of(s.space, s.evaluations[*best].point)) : s.status);
    if (!s.note.empty()) notes.push_back(fmt::format("{}: {}", s.variant->id(), s.note));
    for (const auto& f : s.space.fixed) {
      notes.push_back(fmt::format("{}: {}={} not searched ({})", s.variant->id(), f.key,
                                  f.value.empty() ? "(unset)" : f.value, f.reason));
    }
  }
  out += "\n";
  for (const auto& n : notes) out += n + "\n";
  if (settings.interrupted) {
    out += fmt::format("interrupted by {}: the points measured before it are reported\n",
                       settings.signal);
  }
  out +=
      "default = the preset's tunings; best = the fastest verified point (median of --reps timed "
      "runs);\ntried = points measured or refused; failed = ran and failed verification or raised "
      "an error;\nrefused = never ran: the step does not take those values (its own check) or the "
      "machine cannot hold them\n";
  return out;
}

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
  return {{"schema", "acclab.tunings/1"}, {"entries", entries}};
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
        fmt::format("{} {}: not an acclab.tunings/1 file ({}; acclab tune --save-tunings writes "
                    "one)",
                    option, path, why));
  };
  if (!doc.is_object() || doc.value("schema", nlohmann::json()) != "acclab.tunings/1") {
    throw wrong("no schema acclab.tunings/1");
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
