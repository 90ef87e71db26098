// The acclab command line: list, info, run, ladder, and the dispatch to every command.
#include "apps/acclab/commands.hpp"

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

#include "apsp_command.hpp"
#include "compare_command.hpp"
#include "explain_command.hpp"
#include "iccg_command.hpp"
#include "integer_option.hpp"
#include "invocations.hpp"
#include "path_option.hpp"
#include "progress.hpp"
#include "report_command.hpp"
#include "safe_text.hpp"
#include "standard_output.hpp"
#include "tune_command.hpp"
#include "version.hpp"
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

// The argv of this process, as every JSON report records it.
std::vector<std::string>& command_line() {
  static std::vector<std::string> words;
  return words;
}

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

struct RunArgs {
  std::string workload;
  std::string variant = "*";
  std::optional<std::string> preset;  // unset: the workload's default
  std::vector<std::string> sets;
  int reps = 5;
  std::string format = "table";
  std::string out;
  std::string devices;  // comma-separated GPU counts: one run of every variant per count
  bool profile = false;
  bool corrupt_result = false;
  bool quiet = false;  // no progress lines on stderr
  bool wide = false;   // the table with every column and whole notes, however wide
  std::string tunings;  // acclab tune --save-tunings's file: its matching entries applied
  std::string report;   // the HTML page of the results (acclab report's), written at the end
  int invocations = 1;  // separate processes of the command, merged (invocations.hpp)
  double noise_percent = stats::kNoisePercent;  // ladder: vs 1st / vs prev within noise below it
};

void add_run_options(CLI::App* cmd, RunArgs& args) {
  cmd->add_option("workload", args.workload, "workload (acclab list)")->required();
  cmd->add_option("--variant", args.variant, "shell glob of variant names (default: all)");
  cmd->add_option("--preset", args.preset, "seed, small or large (default: small)");
  cmd->add_option("--set", args.sets, "override one parameter: key=value (repeatable)");
  add_integer_option(cmd, "--reps", args.reps, 1, std::numeric_limits<int>::max(),
                     "timed repetitions after the warm-up (default 5)");
  cmd->add_option("--format", args.format, "table, json or csv");
  cmd->add_option("--out", args.out, "write the report to FILE instead of stdout")
      ->check(non_empty_path());
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
  require_utf8_name("workload", args.workload);
  require_utf8_name("--variant", args.variant);
  if (args.preset) require_utf8_name("--preset", *args.preset);
  for (const auto& set : args.sets) require_utf8_name("--set", set);
  require_utf8_name("--format", args.format);
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
    const auto& argv = command_line();
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
  context.command_line = command_line();

  reporter->report_context(context);
  reporter->report_runs(results);
  reporter->finalize();
  output.commit();
  if (!args.report.empty() && mpi::is_root()) {
    write_run_report_page("--report", args.report, run_document(context, results),
                          args.out.empty() ? "this run" : args.out, command_line());
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

int list_command(const std::string& format, Registry& registry) {
  Machine machine;
  Runner runner(machine);
  if (format == "json") {
    nlohmann::json doc = {{"schema", "acclab.list/1"}, {"variants", nlohmann::json::array()}};
    for (const auto& v : registry.variants()) {
      doc["variants"].push_back({{"workload", v.workload},
                                 {"variant", v.name},
                                 {"backend", to_string(v.backend)},
                                 {"family", v.family},
                                 {"step", v.step},
                                 {"description", v.description},
                                 {"tunings", tunings_json(v, registry.workload(v.workload))},
                                 {"distributed", v.distributed},
                                 {"available", !runner.unavailable_reason(v).has_value()}});
    }
    std::cout << json_text(doc, 2) << '\n';
    return 0;
  }
  if (format != "table")
    throw UsageError(fmt::format("--format {}: expected table or json", format));
  // Columns as wide as their longest entry, so that every row lines up.
  std::size_t name_w = 0, backend_w = 0, family_w = 0;
  for (const auto& v : registry.variants()) {
    name_w = std::max(name_w, v.name.size());
    backend_w = std::max(backend_w, std::string(to_string(v.backend)).size());
    family_w = std::max(family_w, v.family.size());
  }
  for (const auto& w : registry.workloads()) {
    fmt::print("{}: {}\n", w.name, w.description);
    for (const auto& v : registry.variants()) {
      if (v.workload != w.name) continue;
      auto reason = runner.unavailable_reason(v);
      fmt::print("  {:<{}} {:<{}} {:<{}} {:>2}  {}{}\n", v.name, name_w, to_string(v.backend),
                 backend_w, v.family, family_w, v.step, v.description,
                 reason ? fmt::format("  [unavailable: {}]", *reason) : "");
      if (!v.tunings.empty()) {
        std::vector<std::string> knobs;
        for (const auto& tuning : tunings_json(v, w)) {
          const auto& value = tuning["default"];
          knobs.push_back(fmt::format("{}={}", tuning["name"].get<std::string>(),
                                      value.is_string() ? value.get<std::string>() : "(unset)"));
        }
        fmt::print("  {:<{}} tunings: {}\n", "", name_w, fmt::join(knobs, " "));
      }
    }
  }
  return 0;
}

int info_command(bool probe, const std::string& format) {
  if (format != "table" && format != "json") {
    throw UsageError(fmt::format("--format {}: expected table or json", format));
  }
  Machine machine;
  if (probe) {
    machine.host_copy_gbytes_per_s(/*remeasure=*/true);
    machine.device_copy_gbytes_per_s();
  }
  nlohmann::json doc = {
      {"schema", "acclab.info/1"},           {"host", machine.host_json()},
      {"devices", machine.devices_json()},   {"openacc_on_gpu", machine.openacc_runs_on_gpu()},
      {"omptarget_on_gpu", machine.omptarget_runs_on_gpu()},
      {"compiler", machine.compiler_json()}, {"limits", machine.limits_json()},
      {"build", machine.build_json()},       {"command_line", command_line()}};
  if (format == "json") {
    std::cout << json_text(doc, 2) << '\n';
    return 0;
  }
  // "FP64 ..., FP32 ... GFLOP/s (how they were worked out)", or why there are none.
  const auto peak_text = [](const nlohmann::json& peaks) {
    if (!peaks.is_object() || !peaks.value("fp64", nlohmann::json()).is_number()) {
      return "none: " + peaks.value("missing", std::string("not worked out"));
    }
    std::string text = fmt::format("FP64 {:.0f}, FP32 {:.0f}", peaks["fp64"].get<double>(),
                                   peaks["fp32"].get<double>());
    if (peaks.contains("fp64_tensor")) {
      text += fmt::format(", FP64 tensor {:.0f}", peaks["fp64_tensor"].get<double>());
    }
    return text + " GFLOP/s (" + peaks.value("origin", std::string()) + ")";
  };
  const auto& host = machine.host();
  fmt::print("host      {} ({})\n", host.hostname, host.cpu);
  fmt::print("cores     {}\n", host.cores);
  fmt::print("peak      {}\n", peak_text(doc["host"]["peak_gflops"]));
  fmt::print("memory    {:.1f} GiB ({:.1f} GiB available)\n", host.memory_bytes / (1 << 30),
             host.available_bytes / (1 << 30));
  fmt::print("compiler  {}\n", doc["compiler"]["cxx"].get<std::string>());
  for (const auto& [key, value] : doc["compiler"].items()) {
    if (key != "cxx")
      fmt::print("          {}: {}\n", key,
                 value.is_string() ? value.get<std::string>() : json_text(value));
  }
  const auto& build = doc["build"];
  fmt::print("build     commit {}{}\n", build["commit"].get<std::string>(),
             build["dirty"].get<bool>()
                 ? fmt::format(" with {} changed paths", build["changed"].size())
                 : "");
  if (machine.gpus().empty()) {
    fmt::print(
        "GPUs      none (OpenACC and OpenMP target regions run on the host; CUDA variants are "
        "unavailable)\n");
  }
  for (const auto& gpu : machine.gpus()) {
    fmt::print("GPU {}     {} ({:.1f} GiB, {:.1f} GiB free{}) via {}\n", gpu.index, gpu.name,
               gpu.memory_bytes / (1 << 30), gpu.free_bytes / (1 << 30),
               gpu.compute_capability.empty() ? "" : ", sm " + gpu.compute_capability, gpu.api);
    for (const auto& recorded : doc["devices"]) {
      if (recorded.value("index", -1) == gpu.index) {
        fmt::print("  peak    {}\n", peak_text(recorded["peak_gflops"]));
      }
    }
  }
  if (probe) {
    fmt::print("limits    host copy {:.1f} GB/s\n", machine.host_copy_gbytes_per_s());
    if (auto device = machine.device_copy_gbytes_per_s()) {
      fmt::print("          device copy {:.1f} GB/s\n", *device);
    }
    fmt::print("          (bytes read plus bytes written per second)\n");
  }
  return 0;
}

// acclab --version [--format text|json].
int version_command(int argc, char** argv) {
  std::string format = "text";
  for (int i = 2; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--format" && i + 1 < argc) {
      format = argv[++i];
    } else if (word.starts_with("--format=")) {
      format = std::string(word.substr(9));
    } else {
      print_error_line(fmt::format("--version: unexpected argument {} (it takes --format text|json)",
                                   word));
      return 2;
    }
  }
  if (format == "json") {
    std::cout << json_text(version_json(), 2) << '\n';
  } else if (format == "text") {
    std::cout << version_text();
  } else {
    print_error_line(fmt::format("--format {}: expected text or json", format));
    return 2;
  }
  return 0;
}

// CLI11's messages in acclab's words ("The following argument was not expected: x" beside
// acclab's "--reps 0: must be at least 1"): what was wrong, and where the command's options are
// listed.
std::string parse_error_line(const CLI::App& app, const CLI::ParseError& e) {
  std::string command;
  for (const CLI::App* sub : app.get_subcommands()) {
    command += (command.empty() ? "" : " ") + sub->get_name();
  }
  const std::string help =
      fmt::format("acclab {}{}--help lists what it takes", command, command.empty() ? "" : " ");
  if (command.empty()) command = "acclab";
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    const auto colon = what.find(": ");
    // CLI11 lists the unexpected words last first.
    std::vector<std::string> words;
    std::istringstream listed(colon == std::string::npos ? what : what.substr(colon + 2));
    for (std::string word; listed >> word;) words.insert(words.begin(), word);
    return fmt::format("{}: unexpected argument{} {} ({})", command, words.size() > 1 ? "s" : "",
                       fmt::join(words, " "), help);
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    if (what.rfind("A subcommand", 0) == 0) {
      return "a command is required: list, info, run, ladder, tune, compare, report, explain, "
             "apsp or iccg (acclab --help)";
    }
    const auto end = what.find(" is required");
    return fmt::format("{}: {} is required ({})", command,
                       end == std::string::npos ? what : what.substr(0, end), help);
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    const auto colon = what.find(':');
    const std::string option = colon == std::string::npos ? what : what.substr(0, colon);
    return fmt::format("{}: {} expects a value ({})", command, option, help);
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e) && what.rfind("Could not convert: ", 0) == 0) {
    std::string rest = what.substr(std::string("Could not convert: ").size());
    const auto equals = rest.find(" = ");
    if (equals != std::string::npos) {
      return fmt::format("{} {}: not a value it takes ({})", rest.substr(0, equals),
                         rest.substr(equals + 3), help);
    }
  }
  return what;
}

int one_command(int argc, char** argv) {
  command_line().assign(argv, argv + argc);
  CLI::App app{"acclab: optimisation ladders for directive-based GPU acceleration"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text(),
                       "version, commit, compiler and backends built, a line each (--format "
                       "json: acclab.version/1)");

  std::string list_format = "table";
  auto* list = app.add_subcommand("list", "list workloads and their variants");
  list->add_option("--format", list_format, "table or json");

  bool probe = false;
  std::string info_format = "table";
  auto* info = app.add_subcommand("info", "describe this machine and what acclab was built with");
  info->add_flag("--probe", probe, "measure host and device copy bandwidth");
  info->add_option("--format", info_format, "table or json");

  std::string explain_target;
  auto* explain = app.add_subcommand("explain", "show what the compiler decided for a variant");
  explain->add_option("target", explain_target, "WORKLOAD/VARIANT")->required();

  RunArgs run_args, ladder_args;
  auto* run = app.add_subcommand("run", "run variants of a workload, verify and time them");
  add_run_options(run, run_args);
  auto* ladder = app.add_subcommand(
      "ladder", "run every step of a workload in order, with speedups against step 1");
  add_run_options(ladder, ladder_args);

  ApspArgs apsp_args;
  auto* apsp = app.add_subcommand(
      "apsp", "all-pairs longest or shortest paths of a graph file (Floyd-Warshall)");
  add_apsp_options(apsp, apsp_args);

  IccgArgs iccg_args;
  auto* iccg = app.add_subcommand(
      "iccg", "solve A x = b for a symmetric positive definite Matrix Market matrix (ICCG)");
  add_iccg_options(iccg, iccg_args);

  TuneArgs tune_args;
  auto* tune = app.add_subcommand(
      "tune", "search each step's declared tunings, every point run and verified as run does");
  add_tune_options(tune, tune_args);

  ReportArgs report_args;
  auto* report = app.add_subcommand(
      "report", "one self-contained HTML page of result files: charts, roofline, notes");
  add_report_options(report, report_args);

  CompareArgs compare_args;
  auto* compare = app.add_subcommand(
      "compare", "compare result files of run or ladder: ratios, intervals and verdicts per step");
  add_compare_options(compare, compare_args);

  // --version takes --format, which CLI11 keeps for the commands: read here.
  if (argc > 1 && std::string_view(argv[1]) == "--version") return version_command(argc, argv);
  // CLI11 answers an unknown command with "A subcommand is required"; name the word instead.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string command = argv[1];
    if (command != "list" && command != "info" && command != "run" && command != "ladder" &&
        command != "explain" && command != "apsp" && command != "iccg" && command != "tune" &&
        command != "compare" && command != "report") {
      print_error_line(
          fmt::format("unknown command '{}' (expected list, info, run, ladder, tune, compare, "
                      "report, explain, apsp or iccg)",
                      command));
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error_line(parse_error_line(app, e));
    return 2;
  }

  // The OpenACC profiling callbacks go in before the OpenACC runtime does anything, so that
  // they see its initialisation too (they record only while a profile is being taken).
  if (run_args.profile || ladder_args.profile) profile::register_openacc_callbacks();

  try {
    Registry registry;
    register_all_workloads(registry);
    if (*list) return list_command(list_format, registry);
    if (*info) return info_command(probe, info_format);
    if (*run) return run_command("run", run_args, registry);
    if (*ladder) return run_command("ladder", ladder_args, registry);
    if (*explain) return explain_command(explain_target, registry);
    if (*apsp) return apsp_command(apsp_args, registry);
    if (*iccg) return iccg_command(iccg_args, registry);
    if (*tune) return tune_command(tune_args, registry, command_line());
    if (*compare) return compare_command(compare_args, command_line());
    if (*report) return report_command(report_args, command_line());
  } catch (const UsageError& e) {
    print_error_line(e.what());
    return 2;
  } catch (const std::system_error& e) {
    // fmt::print throws when standard output refuses bytes: reported as standard output's
    // failure (standard_output::finish), not as an internal error.
    if (std::ferror(stdout) != 0) {
      standard_output::note_failure(e.code().value());
      return 2;
    }
    print_error_line(fmt::format("error: {}", e.what()));
    return 1;
  } catch (const std::exception& e) {
    // Not the user's fault (a device or runtime failure outside any one variant): status 1.
    print_error_line(fmt::format("error: {}", e.what()));
    return 1;
  }
  return 2;
}

// Under mpirun every rank must run the same command (the steps and their checks assume one
// problem): the refusal, the same on every rank, where some rank's arguments differ from rank
// 0's; "" where they agree or the process runs alone. Collective.
std::string ranks_disagree(int argc, char** argv) {
  if (mpi::size() == 1) return "";
  std::string mine;  // the arguments, each ended by a NUL, so that "a b" differs from "a" "b"
  for (int i = 1; i < argc; ++i) mine.append(argv[i]).push_back('\0');
  const std::string root = mpi::broadcast(mine);
  const auto shown = [](std::string words) {
    std::replace(words.begin(), words.end(), '\0', ' ');
    return words.empty() ? std::string("(none)") : words.substr(0, words.size() - 1);
  };
  const std::string differs =
      mine == root ? ""
                   : fmt::format("mpirun: rank {} was given other arguments than rank 0 ({} "
                                 "against {}): every rank must run the same command",
                                 mpi::rank(), shown(mine), shown(root));
  return mpi::agree(differs.empty() ? 0 : 2, differs).message;
}

}  // namespace

const std::vector<std::string>& process_command_line() { return command_line(); }

int cli_main(int argc, char** argv) {
  // Started by mpirun: join the other ranks; rank 0 alone prints, and every rank leaves with
  // the worst status any rank reached. Started alone: nothing of MPI happens.
  mpi::init_if_launched(&argc, &argv);
  mpi::quiet_unless_root();
  if (const std::string refusal = ranks_disagree(argc, argv); !refusal.empty()) {
    print_error_line(refusal);
    mpi::finalize();
    return 2;
  }
  const int status = mpi::agree(standard_output::finish(one_command(argc, argv)), "").status;
  mpi::finalize();
  return status;
}

}  // namespace acclab
