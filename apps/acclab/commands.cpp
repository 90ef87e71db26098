// The acclab command line: list, info, version, and the dispatch to every command (run and
// ladder: run_command.cpp).
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
#include "report_command.hpp"
#include "run_command.hpp"
#include "safe_text.hpp"
#include "standard_output.hpp"
#include "tune_command.hpp"
#include "version.hpp"
#include "core/build_config.hpp"
#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/mpi_env.hpp"
#include "core/profile.hpp"
#include "core/reference_store.hpp"
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
    check_reference_dir();
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
