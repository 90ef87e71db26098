// acclab run and acclab ladder (run_command.hpp).
#include "apps/acclab/run_command.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <system_error>

#include "apps/acclab/commands.hpp"
#include "integer_option.hpp"
#include "invocations.hpp"
#include "path_option.hpp"
#include "progress.hpp"
#include "report_command.hpp"
#include "safe_text.hpp"
#include "tune_command.hpp"
#include "core/atomic_file.hpp"
#include "core/build_config.hpp"
#include "core/error.hpp"
#include "core/glob.hpp"
#include "core/machine.hpp"
#include "core/mpi_env.hpp"
#include "core/profile.hpp"
#include "core/registry.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"

namespace acclab {
namespace {

// Output that appears whole or not at all (core/atomic_file.hpp); without a path, stdout. The
// report is kept in memory until commit().
class OutputFile {
 public:
  explicit OutputFile(const std::string& path) {
    if (!path.empty()) file_.emplace(path, "--out");
  }
  std::ostream& stream() { return file_ ? buffer_ : std::cout; }
  void commit() {
    if (!file_) {
      std::cout.flush();
      return;
    }
    file_->write(buffer_.str());
    file_->commit();
  }

 private:
  std::optional<AtomicFile> file_;
  std::ostringstream buffer_;
};

// One parameter set of a command: the preset with --set, and with --devices one of its counts.
struct ParameterSet {
  Params params;
  std::string devices;  // the --devices count this set runs with; empty without --devices
};

// The parameter sets of one command: the preset with --set, once per --devices count.
std::vector<ParameterSet> parameter_sets(const std::string& command, const RunArgs& args,
                                         const Workload& workload, const std::string& preset) {
  std::vector<ParameterSet> sets;
  std::vector<std::string> counts = {""};
  if (!args.devices.empty()) {
    const bool has_devices =
        std::any_of(workload.params.begin(), workload.params.end(),
                    [](const ParamSpec& spec) { return spec.key == "devices"; });
    if (!has_devices) {
      throw UsageError(fmt::format("--devices {}: {} has no devices parameter", args.devices,
                                   workload.name));
    }
    for (const auto& set : args.sets) {
      if (set.starts_with("devices=")) {
        throw UsageError(fmt::format("--devices {} and --set {}: give the GPU count once",
                                     args.devices, set));
      }
    }
    counts = split_patterns(args.devices);
    for (const auto& count : counts) {
      const bool digits = !count.empty() && count.size() < 3 &&
                          std::all_of(count.begin(), count.end(), ::isdigit) &&
                          count.front() != '0';
      if (!digits || std::stoi(count) > max_gpu_count) {
        throw UsageError(fmt::format("--devices {}: GPU count must be 1 to {}", args.devices,
                                     max_gpu_count));
      }
    }
    if (counts.size() > 1 && command == "ladder") {
      throw UsageError(fmt::format("--devices {}: ladder takes one count (run takes several)",
                                   args.devices));
    }
  }
  for (const auto& count : counts) {
    std::vector<std::string> overrides = args.sets;
    if (!count.empty()) overrides.push_back("devices=" + count);
    sets.push_back({Params::resolve(workload.params, preset, overrides), count});
    if (workload.validate) workload.validate(sets.back().params);
  }
  return sets;
}

// Whether two output paths end in the same file or descriptor ("" is stdout).
bool same_output(const std::string& a, const std::string& b) {
  const auto descriptor = [](const std::string& path) {
    return path.empty() ? std::optional<int>(STDOUT_FILENO) : output_descriptor(path);
  };
  const auto da = descriptor(a), db = descriptor(b);
  if (da || db) return da == db;
  std::error_code ignored;
  return std::filesystem::weakly_canonical(output_target("--out", a), ignored) ==
         std::filesystem::weakly_canonical(output_target("--report", b), ignored);
}

// Under mpirun with several ranks only distributed steps run: the others would run the whole
// problem once on every rank.
void check_ranks(const RunArgs& args, const std::vector<const Variant*>& variants) {
  if (mpi::size() == 1) return;
  for (const Variant* variant : variants) {
    if (!variant->distributed) {
      throw UsageError(fmt::format(
          "--variant {}: {} is not an MPI step; under mpirun with {} ranks only the mpi_* steps "
          "run (--variant 'mpi_*')",
          args.variant, variant->name, mpi::size()));
    }
  }
}

// The arguments that name something (safe_text.hpp's require_utf8_name); --out is a path.
void check_names(const RunArgs& args) {
  require_utf8_step_names(args);
  require_utf8_name("--devices", args.devices);
}

void check_invocations(const RunArgs& args) {
  if (args.invocations < 1) {
    throw UsageError(fmt::format("--invocations {}: must be at least 1", args.invocations));
  }
  if (!(args.noise_percent >= 0 && std::isfinite(args.noise_percent))) {
    throw UsageError(
        fmt::format("--noise {}: expected a percentage, 0 or more", args.noise_percent));
  }
  if (args.invocations == 1) return;
  // Each invocation would start a process outside the MPI job, which mpirun's environment (in
  // the copy every child inherits) would make a rank of a job that does not know it.
  if (mpi::launched_by_mpirun()) {
    throw UsageError(fmt::format(
        "--invocations {}: not under mpirun (each invocation is a process of its own: run "
        "mpirun {} times, or drop --invocations)",
        args.invocations, args.invocations));
  }
  if (args.profile) {
    throw UsageError(fmt::format(
        "--invocations {} and --profile: a profile is of one process (profile one invocation)",
        args.invocations));
  }
}

// Whether any of `variants` that can run here runs on a GPU.
bool any_on_gpu(Runner& runner, const std::vector<const Variant*>& variants) {
  return std::any_of(variants.begin(), variants.end(), [&](const Variant* v) {
    return !runner.unavailable_reason(*v) && runner.place_of(*v) == Place::gpu;
  });
}

// Every variant of `variants` once per parameter set, in this process, with its progress lines.
std::vector<Result> run_steps(const RunArgs& args, const Registry& registry,
                              const Workload& workload, Runner& runner,
                              const std::vector<ParameterSet>& parameter_list,
                              const std::vector<const Variant*>& variants,
                              std::optional<AppliedTunings>& tuned) {
  Progress progress(args.quiet);
  RunOptions options;
  options.reps = args.reps;
  options.corrupt_result = args.corrupt_result;
  options.profile = args.profile;
  options.progress = [&](const std::string& what) { progress.update(what); };
  options.run_started = [&](int run, int reps) { progress.run(run, reps); };

  std::vector<Result> results;
  progress.begin(static_cast<int>(parameter_list.size() * variants.size()));
  int step = 0;
  for (const auto& [set, devices] : parameter_list) {
    for (const Variant* variant : variants) {
      progress.step(step++, variant->id());
      std::string from;  // "tunings from FILE" where --tunings applied to this variant
      const Params params = tuned ? tuned->apply(*variant, set, &from) : set;
      results.push_back(runner.run(*variant, workload, params, options));
      results.back().params = reported_params(registry, *variant, params);
      if (!from.empty()) {
        Result& r = results.back();
        r.note = r.note.empty() ? from : from + "; " + r.note;
      }
      if (!devices.empty()) {  // which count this row is, in the table's note column
        Result& r = results.back();
        r.note = "devices=" + devices + (r.note.empty() ? "" : "; " + r.note);
      }
    }
  }
  progress.finish();
  return results;
}

}  // namespace

void add_run_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("workload", args.workload, "workload (acclab list)")->required();
  cmd->add_option("--variant", args.variant, "shell glob of variant names (default: all)");
  cmd->add_option("--preset", args.preset, "seed, small or large (default: small)");
  cmd->add_option("--set", args.sets, "override one parameter: key=value (repeatable)");
  add_integer_option(cmd, "--reps", args.reps, 1, std::numeric_limits<int>::max(),
                     "timed repetitions after the warm-up (default 5)");
  cmd->add_option("--format", args.format, "table, json or csv");
  add_report_out_option(cmd, args.out);
  cmd->add_option("--report", args.report,
                  "after the run, write the HTML page acclab report draws of its results: "
                  "ladder chart, roofline, notes, provenance (one self-contained file)")
      ->check(non_empty_path());
  cmd->add_option("--devices", args.devices,
                  "GPU counts, e.g. 1,2: every variant once per count (--set devices=N)");
  cmd->add_flag("--profile", args.profile,
                "after the results, a per-region report like PGI_ACC_TIME: OpenACC constructs, "
                "launches (gangs/workers/vector) and transfers as the runtime reports them, CUDA "
                "kernels and copies timed with CUDA events (table and json formats)");
  cmd->add_flag("--quiet", args.quiet,
                "no progress on stderr (by default a line every 5 s, or one redrawn line on a "
                "terminal: step, run, time elapsed and left)");
  cmd->add_flag("--wide", args.wide,
                "the table with every column and each row's whole note on its line, however "
                "wide (by default it fits the terminal: COLUMNS, else the tty's width, else 100)");
  cmd->add_option("--tunings", args.tunings,
                  "apply the tunings FILE (acclab tune --save-tunings) holds for this device and "
                  "compiler to the steps it names (--set wins); each such result's note says so")
      ->check(non_empty_path());
  cmd->add_option("--invocations", args.invocations,
                  "run the command in N separate processes, each with its own warm-up, and merge "
                  "them: each step keeps every process's median (invocations_median_s), which "
                  "compare and the ladder then test (default 1: this process alone)")
      ->type_name("N");
  if (cmd->get_name() == "ladder") {
    cmd->add_option("--noise", args.noise_percent,
                    fmt::format("the practical threshold of vs 1st and vs prev, in percent "
                                "(default {}): a speedup within it is marked ~ (within noise)",
                                stats::kNoisePercent))
        ->type_name("PCT");
  }
  cmd->add_flag("--corrupt-result", args.corrupt_result,
                "testing: perturb each result before verification, which must then fail")
      ->group("");
}

int run_command(const std::string& command, const RunArgs& args, Registry& registry) {
  check_names(args);
  if (args.profile && args.format == "csv") {
    throw UsageError("--profile: the profile is reported in the table and json formats, not csv");
  }
  Machine machine;
  const Workload& workload = registry.workload(args.workload);
  if (args.preset && args.preset->empty()) {
    throw UsageError("--preset '': expected a preset name (seed, small or large)");
  }
  const std::string preset = args.preset ? *args.preset : workload.default_preset;
  std::vector<ParameterSet> parameter_list;
  std::vector<const Variant*> variants;
  Runner runner(machine);
  std::optional<AppliedTunings> tuned;  // --tunings
  // Every check before any work. Under mpirun each rank checks for itself, and all ranks stop
  // with one line if any rank found a fault (one rank refusing alone would leave the others
  // waiting in the first halo exchange).
  std::string refusal;
  try {
    // Before any work: a long run must not end on a path it cannot write.
    if (!args.out.empty() && mpi::is_root()) check_output_path("--out", args.out);
    if (!args.report.empty() && mpi::is_root()) {
      if (same_output(args.out, args.report)) {
        throw UsageError(fmt::format("--report {}: the same output as {}", args.report,
                                     args.out.empty() ? "the results on stdout" : "--out"));
      }
      check_report_page("--report", args.report);
    }
    parameter_list = parameter_sets(command, args, workload, preset);
    if (args.reps < 1) throw UsageError(fmt::format("--reps {}: must be at least 1", args.reps));
    check_invocations(args);
    if (!mpi::built() && args.variant.find("mpi_") != std::string::npos) {
      throw UsageError(fmt::format(
          "--variant {}: this acclab was built without MPI, so it has no mpi_* steps (install "
          "libopenmpi-dev and rebuild)",
          args.variant));
    }
    variants = registry.select(args.workload, args.variant);
    check_tuning_overrides(registry, args.workload, variants, args.sets);
    if (!args.tunings.empty()) {
      // --devices, like --set, wins over the file: the count a row's note names is the one run.
      std::vector<std::string> given = args.sets;
      if (!args.devices.empty()) given.push_back("devices=" + args.devices);
      tuned.emplace(args.tunings, machine, runner, workload, preset, given);
    }
    if (!args.devices.empty()) {
      check_tuning_use(registry, args.workload, variants, "devices", "--devices " + args.devices);
    }
    check_ranks(args, variants);
    // A variant named exactly must run; one reached through a glob may report unavailable.
    for (const Variant* variant : variants) {
      auto reason = runner.unavailable_reason(*variant);
      if (!reason) continue;
      for (const auto& pattern : split_patterns(args.variant)) {
        if (!has_glob_characters(pattern) && pattern == variant->name) {
          throw UsageError(
              fmt::format("--variant {}: {}: {}", args.variant, variant->name, *reason));
        }
      }
    }
    for (const auto& [set, devices] : parameter_list) {
      for (const Variant* variant : variants) {
        const Params params = tuned ? tuned->apply(*variant, set) : set;
        // A tuning's value is wrong wherever the step would run: checked on every machine.
        if (variant->check_tunings) variant->check_tunings(params);
        if (runner.unavailable_reason(*variant)) continue;
        if (variant->check_params) variant->check_params(params);
        runner.check_memory(*variant, workload, params,
                            reported_params(registry, *variant, params));
      }
    }
  } catch (const UsageError& e) {
    refusal = e.what();
  }
  const mpi::Agreement checked = mpi::agree(refusal.empty() ? 0 : 2, refusal);
  if (checked.status != 0) {
    throw UsageError(mpi::size() > 1 ? fmt::format("{} (rank {} of {})", checked.message,
                                                   checked.rank, mpi::size())
                                     : checked.message);
  }
  OutputFile output(mpi::is_root() ? args.out : std::string());  // rank 0 alone writes
  auto reporter = make_reporter(args.format, output.stream());

  // The large presets are sized for a GPU (minutes there); on the CPU alone they take hours.
  if (preset == "large" && mpi::is_root() && !any_on_gpu(runner, variants)) {
    fmt::print(stderr,
               "acclab: warning: --preset large with {}: the selected variants run on the CPU "
               "only, which can take hours (--preset small is the quick check)\n",
               machine.gpus().empty() ? "no GPU on this machine" : "no step that uses the GPU");
    std::fflush(stderr);
  }

  std::vector<Result> results;
  ReportContext context;
  if (args.invocations > 1) {
    const auto& argv = process_command_line();
    MergedRun merged = merge_invocations(
        run_invocations(args.invocations, argv.front(), {argv.begin() + 1, argv.end()},
                        args.quiet),
        registry);
    results = std::move(merged.results);
    context = std::move(merged.context);
  } else {
    results = run_steps(args, registry, workload, runner, parameter_list, variants, tuned);
    context.host = machine.host_json();
    context.devices = machine.devices_json();
    context.compiler = machine.compiler_json();
    context.build = machine.build_json();
    context.openacc_runs_on = machine.openacc_place();
    // Only where an OpenMP target step ran: the probe launches a target region, and libgomp's
    // team start-up in it is what compute-sanitizer's synccheck reports as divergent barriers.
    const bool omptarget_ran = std::any_of(results.begin(), results.end(), [](const Result& r) {
      return r.variant && r.variant->backend == Backend::omptarget;
    });
    if (omptarget_ran) context.omptarget_runs_on = machine.omptarget_place();
    context.limits = machine.limits_json();
  }
  if (command == "ladder") {
    compute_ladder_speedups(results, args.noise_percent);
    context.noise_percent = args.noise_percent;
  }
  context.command = command;
  context.wide = args.wide;
  context.workload = args.workload;
  context.preset = preset;
  context.command_line = process_command_line();

  reporter->report_context(context);
  reporter->report_runs(results);
  reporter->finalize();
  output.commit();
  if (!args.report.empty() && mpi::is_root()) {
    write_run_report_page("--report", args.report, run_document(context, results),
                          args.out.empty() ? "this run" : args.out, process_command_line());
  }

  // Status 1 always comes with one line on stderr naming what failed, whatever the format.
  std::vector<std::string> failed;
  for (const auto& r : results) {
    if (r.status == Status::failed) failed.push_back(r.variant->id());
  }
  if (failed.empty()) return 0;
  const Result& first = *std::find_if(results.begin(), results.end(),
                                      [](const Result& r) { return r.status == Status::failed; });
  std::string why = first.error;
  std::replace(why.begin(), why.end(), '\n', ' ');
  print_error_line(fmt::format("{} of {} results failed: {} (first: {})", failed.size(),
                               results.size(), fmt::join(failed, ", "), why));
  return 1;
}

}  // namespace acclab
