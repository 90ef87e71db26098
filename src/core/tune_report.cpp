#include "core/tune_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "core/text_format.hpp"

namespace acclab::tune {

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
  for (const auto& [key, value] : tunings.items()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    words.push_back(key + "=" + (text.empty() ? "(unset)" : text));  // an optional one left unset
  }
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

}  // namespace acclab::tune
