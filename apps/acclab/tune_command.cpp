// acclab tune: the command line around core/tune.hpp's search. Each point is a parameter set
// (the preset, --set, the point's tunings) run by the Runner exactly as acclab run runs one
// variant: set-up, untimed warm-up, --reps timed runs, verification.
#include "apps/acclab/tune_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/mpi_env.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"
#include "core/tune.hpp"
#include "core/tune_report.hpp"
#include "core/tunings_file.hpp"
#include "integer_option.hpp"
#include "path_option.hpp"
#include "progress.hpp"
#include "safe_text.hpp"

namespace acclab {

namespace {

// Spaces up to this many points are searched exhaustively by --strategy auto.
constexpr std::uint64_t kAutoExhaustive = 64;
// Points measured per step by random and local search without --evals or --budget.
constexpr int kDefaultEvals = 64;
// An exhaustive search larger than this needs --evals or --budget: it would run for hours.
constexpr std::uint64_t kExhaustiveLimit = 1024;

// The signal that asked the search to stop, 0 while none has. Set by the handler, read between
// points: the point running is finished, then the points so far are written.
volatile std::sig_atomic_t stop_signal = 0;

extern "C" void remember_signal(int signal_number) { stop_signal = signal_number; }

// SIGINT and SIGTERM set stop_signal while it lives; the handlers before it come back after.
// SA_RESETHAND: a second signal takes its default course (an impatient user still gets out).
class StopOnSignal {
 public:
  StopOnSignal() {
    stop_signal = 0;
    struct sigaction action {};
    action.sa_handler = remember_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND | SA_RESTART;
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopOnSignal() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

std::string value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// Writes `text` to `path` whole or not at all (core/atomic_file.hpp); "" is stdout.
void write_output(const std::string& option, const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    std::cout.flush();
    return;
  }
  AtomicFile file(path, option);
  file.write(text);
  file.commit();
}

// The points a step's search may measure, for the progress estimate.
std::uint64_t planned_points(std::uint64_t size, tune::Strategy strategy, int evals) {
  if (strategy == tune::Strategy::exhaustive && evals <= 0) return size;
  return std::min<std::uint64_t>(size, evals > 0 ? evals : kDefaultEvals);
}

}  // namespace

namespace {

// The key of the tunings file for `variant` on this machine (core/tunings_file.hpp's tunings_key).
nlohmann::json key_of(Machine& machine, Runner& runner, const Variant& variant) {
  const std::string place = runner.place_of(variant) == Place::gpu ? "gpu" : "host";
  const auto& gpus = machine.gpus();
  return tune::tunings_key(place, gpus.empty() ? "" : gpus.front().name,
                           gpus.empty() ? "" : gpus.front().compute_capability, machine.host().cpu,
                           machine.compiler_json().value("cxx", ""));
}

}  // namespace

AppliedTunings::AppliedTunings(const std::string& path, Machine& machine, Runner& runner,
                               const Workload& workload, const std::string& preset,
                               const std::vector<std::string>& sets)
    : path_(path),
      document_(tune::read_tunings_file("--tunings", path)),
      machine_(machine),
      runner_(runner),
      workload_(workload),
      preset_(preset) {
  for (const auto& set : sets) given_.push_back(set.substr(0, set.find('=')));
}

Params AppliedTunings::apply(const Variant& variant, const Params& params,
                             std::string* note) const {
  if (note) note->clear();
  const nlohmann::json* entry = tune::find_tunings(document_, key_of(machine_, runner_, variant),
                                                   variant.workload, variant.name, preset_);
  if (!entry) return params;
  Params tuned = params;
  for (const auto& [key, value] : (*entry)["tunings"].items()) {
    // Explicit --set wins; a key the step does not declare would change nothing it runs.
    if (std::find(given_.begin(), given_.end(), key) != given_.end()) continue;
    if (std::find(variant.tunings.begin(), variant.tunings.end(), key) == variant.tunings.end()) {
      continue;
    }
    const auto spec = std::find_if(workload_.params.begin(), workload_.params.end(),
                                   [&](const ParamSpec& s) { return s.key == key; });
    if (spec == workload_.params.end()) continue;
    tuned.set(key, parse_param_value(*spec, value.get<std::string>(),
                                     fmt::format("--tunings {} ({})", path_, variant.id())));
  }
  if (workload_.validate) workload_.validate(tuned);
  if (note) {
    const std::string from = entry->value("preset", "");
    *note = fmt::format("tunings from {}{}", path_,
                        from == preset_ ? "" : fmt::format(" (tuned on preset {})", from));
  }
  return tuned;
}

void add_tune_options(CLI::App* cmd, TuneArgs& args) {
  cmd->add_option("workload", args.workload, "workload (acclab list)")->required();
  cmd->add_option("--variant", args.variant,
                  "shell glob of variant names (default: every step that declares tunings)");
  cmd->add_option("--preset", args.preset, "seed, small or large (default: small)");
  cmd->add_option("--set", args.sets,
                  "fix one parameter: key=value (repeatable); a tuning given here is not searched");
  add_integer_option(cmd, "--reps", args.reps, 1, std::numeric_limits<int>::max(),
                     "timed repetitions of each point (default 5)");
  auto* evals = add_integer_option(
      cmd, "--evals", args.evals, 1, std::numeric_limits<int>::max(),
      "points measured per step at most (default: every point for exhaustive, 64 otherwise)");
  auto* budget =
      cmd->add_option("--budget", args.budget_s, "seconds per step: no point starts after them");
  evals->excludes(budget);
  cmd->add_option("--strategy", args.strategy,
                  "exhaustive, random or local (default auto: exhaustive up to 64 points, local "
                  "above)");
  add_integer_option(cmd, "--seed", args.seed, std::uint64_t{0},
                     std::numeric_limits<std::uint64_t>::max(),
                     "seed of the random draws (default 1)");
  cmd->add_option("--format", args.format, "table or json");
  add_report_out_option(cmd, args.out);
  cmd->add_option("--save-tunings", args.save_tunings,
                  "write each step's best tunings to FILE, keyed by device and compiler (entries "
                  "of other keys, steps or presets already in FILE are kept); acclab run "
                  "--tunings FILE applies them")
      ->check(non_empty_path());
  cmd->add_flag("--quiet", args.quiet, "no progress on stderr");
  cmd->add_option("--corrupt-point", args.corrupt_points,
                  "testing: points whose tunings include KEY=VALUE fail verification")
      ->group("");
}

namespace {

// The arguments' own checks, before anything is read or run.
void check_tune_arguments(const TuneArgs& args) {
  require_utf8_step_names(args);
  require_utf8_name("--strategy", args.strategy);
  if (mpi::size() > 1) {
    throw UsageError(
        "tune: runs in one process, not under mpirun (the mpi_* steps' proc_grid "
        "has no choices to search)");
  }
  if (args.format != "table" && args.format != "json") {
    throw UsageError(fmt::format("--format {}: expected table or json", args.format));
  }
  if (args.reps < 1) throw UsageError(fmt::format("--reps {}: must be at least 1", args.reps));
  if (args.evals < 0) throw UsageError(fmt::format("--evals {}: must be at least 1", args.evals));
  if (args.budget_s < 0 || !std::isfinite(args.budget_s)) {
    throw UsageError(
        fmt::format("--budget {}: must be a positive number of seconds", args.budget_s));
  }
}

// --corrupt-point's KEY=VALUE words (testing only), split.
std::vector<std::pair<std::string, std::string>> corrupt_points_of(const TuneArgs& args) {
  std::vector<std::pair<std::string, std::string>> corrupt;
  for (const auto& word : args.corrupt_points) {
    const auto equals = word.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw UsageError(fmt::format("--corrupt-point {}: expected key=value", word));
    }
    corrupt.emplace_back(word.substr(0, equals), word.substr(equals + 1));
  }
  return corrupt;
}

// Each selected step as its report begins: its space, strategy (`asked`, or where none is, as
// auto: by the size of its space), place and key, or why it will not be searched; `planned`
// grows by the points the progress line expects.
std::vector<tune::StepReport> steps_to_search(const TuneArgs& args, const Workload& workload,
                                              const std::string& preset,
                                              const std::vector<const Variant*>& variants,
                                              std::optional<tune::Strategy> asked, Machine& machine,
                                              Runner& runner, std::uint64_t& planned) {
  std::vector<tune::StepReport> steps;
  for (const Variant* v : variants) {
    tune::StepReport step;
    step.variant = v;
    step.space = tune::space_of(*v, workload, preset, args.sets);
    const std::uint64_t size = step.space.size();
    step.strategy = asked.value_or(size <= kAutoExhaustive ? tune::Strategy::exhaustive
                                                           : tune::Strategy::local);
    if (step.strategy == tune::Strategy::exhaustive && size > kExhaustiveLimit && args.evals == 0 &&
        args.budget_s == 0) {
      throw UsageError(fmt::format(
          "--strategy exhaustive: {} has {} points to search; give --evals or --budget, or "
          "--strategy local, or fix some tunings with --set",
          v->id(), size));
    }
    step.place = runner.place_of(*v) == Place::gpu ? "gpu" : "host";
    step.key = key_of(machine, runner, *v);
    if (auto reason = runner.unavailable_reason(*v)) {
      step.status = "unavailable";
      step.note = *reason;
    } else if (step.space.dimensions.empty()) {
      step.status = "nothing to search";
      step.note = "no tuning to search: each is fixed, as the lines below say";
    } else {
      planned += planned_points(size, step.strategy, args.evals);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

// The step's tunings that hold a value at its best point: those off their defaults (a tuning at
// its default is not set), the fixed ones and those the preset gives; what a later run must set
// to run that point again.
nlohmann::json best_tunings_of(const tune::StepReport& step, const Workload& workload,
                               const std::string& preset, const std::vector<std::string>& sets) {
  std::vector<std::string> overrides = sets;
  const auto words = tune::overrides_of(step.space, step.evaluations[*step.best()].point);
  overrides.insert(overrides.end(), words.begin(), words.end());
  const Params params = Params::resolve(workload.params, preset, overrides);
  nlohmann::json tunings = nlohmann::json::object();
  for (const auto& key : step.variant->tunings) {
    if (params.has(key)) tunings[key] = value_text(params.json()[key]);
  }
  return tunings;
}

// How the search ran, for the report: as asked, and whether a signal stopped it.
tune::TuneSettings settings_of(const TuneArgs& args, const std::string& preset) {
  tune::TuneSettings settings;
  settings.preset = preset;
  settings.reps = args.reps;
  settings.strategy = args.strategy;
  settings.seed = args.seed;
  settings.max_evals = args.evals;
  settings.budget_s = args.budget_s;
  settings.interrupted = stop_signal != 0;
  settings.signal = stop_signal == SIGTERM ? "SIGTERM" : "SIGINT";
  return settings;
}

// The report's context, as acclab run's: the machine, the build and the command line.
ReportContext tune_context(const std::string& workload, const std::string& preset, Machine& machine,
                           const std::vector<tune::StepReport>& steps,
                           const std::vector<std::string>& command_line) {
  ReportContext context;
  context.command = "tune";
  context.workload = workload;
  context.preset = preset;
  context.host = machine.host_json();
  context.devices = machine.devices_json();
  context.compiler = machine.compiler_json();
  context.build = machine.build_json();
  context.command_line = command_line;
  context.openacc_runs_on = machine.openacc_place();
  const bool omptarget = std::any_of(steps.begin(), steps.end(), [](const auto& s) {
    return s.variant->backend == Backend::omptarget && !s.evaluations.empty();
  });
  if (omptarget) context.omptarget_runs_on = machine.omptarget_place();
  context.limits = machine.limits_json();
  return context;
}

// 0, or 1 with one line naming the steps searched without a verified point.
int no_verified_point_status(const std::vector<tune::StepReport>& steps) {
  std::vector<std::string> none;
  for (const auto& s : steps) {
    if ((s.status == "searched" || s.status == "cut short") && !s.best()) {
      none.push_back(s.variant->id());
    }
  }
  if (none.empty()) return 0;
  print_error_line(
      fmt::format("tune: no verified point for {} (each point's detail is in "
                  "--format json)",
                  fmt::join(none, ", ")));
  return 1;
}

}  // namespace

int tune_command(const TuneArgs& args, Registry& registry,
                 const std::vector<std::string>& command_line) {
  check_tune_arguments(args);
  const std::optional<tune::Strategy> asked =
      args.strategy == "auto" ? std::nullopt : std::optional(tune::strategy_of(args.strategy));
  const std::vector<std::pair<std::string, std::string>> corrupt = corrupt_points_of(args);

  Machine machine;
  Runner runner(machine);
  const Workload& workload = registry.workload(args.workload);
  if (args.preset && args.preset->empty()) {
    throw UsageError("--preset '': expected a preset name (seed, small or large)");
  }
  const std::string preset = args.preset ? *args.preset : workload.default_preset;

  // Every check before any point runs: a long search must not end on a path it cannot write.
  if (!args.out.empty()) check_output_path("--out", args.out);
  nlohmann::json saved = nullptr;  // the tunings file as it is, merged into at the end
  if (!args.save_tunings.empty()) {
    check_output_path("--save-tunings", args.save_tunings);
    std::error_code ec;
    if (std::filesystem::is_regular_file(args.save_tunings, ec) &&
        std::filesystem::file_size(args.save_tunings, ec) > 0) {
      saved = tune::read_tunings_file("--save-tunings", args.save_tunings);
    }
  }
  const Params base = Params::resolve(workload.params, preset, args.sets);
  if (workload.validate) workload.validate(base);
  std::vector<const Variant*> variants;
  for (const Variant* v : registry.select(args.workload, args.variant)) {
    if (!v->tunings.empty()) variants.push_back(v);
  }
  if (variants.empty()) {
    throw UsageError(fmt::format(
        "--variant {}: none of the selected steps of {} declares tunings (acclab list shows them)",
        args.variant, args.workload));
  }
  check_tuning_overrides(registry, args.workload, variants, args.sets);

  std::uint64_t planned = 0;
  std::vector<tune::StepReport> steps =
      steps_to_search(args, workload, preset, variants, asked, machine, runner, planned);

  if (preset == "large" && machine.gpus().empty()) {
    fmt::print(stderr,
               "acclab: warning: --preset large with no GPU on this machine: every point runs on "
               "the CPU, which can take hours (--preset small is the quick check)\n");
    std::fflush(stderr);
  }

  const StopOnSignal signals;
  Progress progress(args.quiet);
  progress.begin(static_cast<int>(std::min<std::uint64_t>(planned, 1u << 30)));
  int point_number = 0;
  for (auto step_it = steps.begin(); step_it != steps.end(); ++step_it) {
    auto& step = *step_it;
    if (stop_signal != 0) {
      if (step.status.empty()) step.status = "not reached";
      continue;
    }
    if (!step.status.empty()) continue;
    const Variant& variant = *step.variant;
    const auto started = std::chrono::steady_clock::now();
    if (args.budget_s > 0) {
      // The points planned are a guess; the budget is a bound: each step still to search has
      // its own budget of seconds after this one's.
      const auto later = std::count_if(std::next(step_it), steps.end(),
                                       [](const auto& s) { return s.status.empty(); });
      progress.budget(started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(args.budget_s)),
                      args.budget_s * static_cast<double>(later));
    }
    tune::SearchOptions options;
    options.strategy = step.strategy;
    options.seed = args.seed;
    options.max_evals = args.evals > 0 ? args.evals
                        : (step.strategy == tune::Strategy::exhaustive || args.budget_s > 0)
                            ? 0
                            : kDefaultEvals;
    if (args.evals > 0) options.random_starts = std::clamp(args.evals / 4, 1, 8);
    options.stop = [&] {
      const double spent =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return stop_signal != 0 || (args.budget_s > 0 && spent >= args.budget_s);
    };
    auto evaluate = [&](const tune::Point& point) {
      tune::Evaluation e;
      std::vector<std::string> overrides = args.sets;
      const auto words = tune::overrides_of(step.space, point);
      overrides.insert(overrides.end(), words.begin(), words.end());
      progress.step(point_number++, fmt::format("{} {}", variant.id(), fmt::join(words, ",")));
      Params params;
      RunOptions run_options;
      run_options.reps = args.reps;
      run_options.progress = [&](const std::string& what) { progress.update(what); };
      run_options.run_started = [&](int run, int reps) { progress.run(run, reps); };
      try {
        // What acclab run checks before running, point by point: a refusal is this point's.
        params = Params::resolve(workload.params, preset, overrides);
        if (workload.validate) workload.validate(params);
        if (variant.check_tunings) variant.check_tunings(params);
        if (variant.check_params) variant.check_params(params);
        // The point's own values (a tuning at its default is not --set) or a value --set fixed.
        const nlohmann::json tunings = tune::tunings_of(step.space, point);
        run_options.corrupt_result =
            !corrupt.empty() && std::all_of(corrupt.begin(), corrupt.end(), [&](const auto& kv) {
              if (tunings.contains(kv.first)) return value_text(tunings[kv.first]) == kv.second;
              return params.has(kv.first) && value_text(params.json()[kv.first]) == kv.second;
            });
        const Result r = runner.run(variant, workload, params, run_options);
        e.times_s = r.times_s;
        e.median_s = r.median_s;
        e.min_s = r.min_s;
        e.max_s = r.max_s;
        e.outcome = r.status == Status::verified ? tune::Outcome::verified
                    : r.status == Status::failed ? tune::Outcome::failed
                                                 : tune::Outcome::refused;
        e.detail = r.status == Status::verified ? r.note : r.error.empty() ? r.note : r.error;
      } catch (const UsageError& refusal) {  // the values, or the machine's limits, refused
        e.outcome = tune::Outcome::refused;
        e.detail = refusal.what();
      }
      return e;
    };
    bool cut_short = false;
    step.evaluations = tune::search(step.space, options, evaluate, &cut_short);
    step.status = stop_signal != 0 ? "interrupted" : cut_short ? "cut short" : "searched";
    if (step.best()) step.best_tunings = best_tunings_of(step, workload, preset, args.sets);
  }
  progress.finish();

  const tune::TuneSettings settings = settings_of(args, preset);

  const ReportContext context = tune_context(args.workload, preset, machine, steps, command_line);

  write_output("--out", args.out,
               args.format == "json"
                   ? json_text(tune::tune_json(context, settings, steps), 2) + "\n"
                   : tune::tune_table(context, settings, steps));
  if (!args.save_tunings.empty()) {
    write_output("--save-tunings", args.save_tunings,
                 json_text(tune::merge_tunings(saved, args.workload, preset, steps, command_line,
                                               context.build),
                           2) +
                     "\n");
  }
  if (settings.interrupted) return 128 + stop_signal;

  return no_verified_point_status(steps);
}

}  // namespace acclab
