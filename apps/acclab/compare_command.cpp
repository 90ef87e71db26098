// acclab compare: its options and command, and the result files read for acclab report; the
// files' steps are matched in compare_matching.cpp and reported by compare_reports.cpp.
#include "apps/acclab/compare_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <filesystem>
#include <iostream>

#include "apps/acclab/compare_matching.hpp"
#include "apps/acclab/compare_reports.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "core/text_format.hpp"
#include "path_option.hpp"
#include "safe_text.hpp"

namespace acclab {

ComparedResults read_and_compare(const std::vector<std::string>& paths,
                                 const std::vector<std::string>& command_line) {
  ComparedResults read;
  std::vector<compare::ResultFile> files;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    files.push_back(compare::read_result_file(paths[i], i));
    if (files.back().steps.empty()) {
      throw UsageError(fmt::format("{}: holds no result (an empty results list)", paths[i]));
    }
    read.paths.push_back(files.back().path);
    read.labels.push_back(files.back().label);
    read.documents.push_back(files.back().document);
  }
  if (files.size() < 2) {
    read.not_compared = "one result file";
    return read;
  }
  const compare::Comparison comparison = compare::compare_files(
      std::move(files), stats::kNoisePercent, compare::NothingInCommon::leave_out);
  if (comparison.rows.empty()) {
    read.not_compared = fmt::format("{}", fmt::join(comparison.files_not_compared, "; "));
  } else {
    read.comparison = compare::compare_json(comparison, CompareArgs{}, command_line);
  }
  return read;
}

void add_compare_options(CLI::App* cmd, CompareArgs& args) {
  cmd->add_option("files", args.files,
                  "result files of acclab run or ladder --format json: the baseline first, then "
                  "one or more to compare with it");
  cmd->add_option("--format", args.format, "text (the default; table is the same), json or csv");
  add_report_out_option(cmd, args.out);
  cmd->add_option("--noise", args.noise_percent,
                  fmt::format("the practical threshold, in percent (default {}): a difference of "
                              "medians within it is `same` however small its p",
                              stats::kNoisePercent))
      ->type_name("PCT");
  cmd->add_option("--fail-if-slower", args.fail_if_slower_percent,
                  "exit 1 when a step's verdict is slower (significant and beyond --noise) and "
                  "its ratio above 1 + PCT/100")
      ->type_name("PCT");
}

int compare_command(const CompareArgs& args, const std::vector<std::string>& command_line) {
  if (mpi::size() > 1) {
    // Every rank would write the same report to the same --out.
    throw UsageError("compare: reads files in one process, not under mpirun");
  }
  require_utf8_name("--format", args.format);
  if (args.format != "text" && args.format != "table" && args.format != "json" &&
      args.format != "csv") {
    throw UsageError(fmt::format("--format {}: expected text, json or csv", args.format));
  }
  if (args.files.size() < 2) {
    throw UsageError(fmt::format(
        "compare: {} result file{} given; it needs the baseline and at least one file to "
        "compare with it",
        args.files.size(), args.files.size() == 1 ? "" : "s"));
  }
  if (args.fail_if_slower_percent &&
      !(*args.fail_if_slower_percent >= 0 && std::isfinite(*args.fail_if_slower_percent))) {
    throw UsageError(fmt::format("--fail-if-slower {}: expected a percentage, 0 or more",
                                 *args.fail_if_slower_percent));
  }
  if (!(args.noise_percent >= 0 && std::isfinite(args.noise_percent))) {
    throw UsageError(
        fmt::format("--noise {}: expected a percentage, 0 or more", args.noise_percent));
  }
  // Before reading: the report must not replace one of the files it compares.
  if (!args.out.empty()) {
    const std::vector<std::filesystem::path> inputs(args.files.begin(), args.files.end());
    check_output_path("--out", args.out, inputs);
  }
  std::vector<compare::ResultFile> files;
  for (std::size_t i = 0; i < args.files.size(); ++i) {
    files.push_back(compare::read_result_file(args.files[i], i));
  }
  const compare::Comparison comparison =
      compare::compare_files(std::move(files), args.noise_percent);

  const std::string text =
      args.format == "json"
          ? json_text(compare::compare_json(comparison, args, command_line), 2) + "\n"
      : args.format == "csv" ? compare::csv_text(comparison, args)
                             : compare::compare_text(comparison, args);
  if (args.out.empty()) {
    std::cout << text;
    std::cout.flush();
  } else {
    AtomicFile out(args.out, "--out");
    out.write(text);
    out.commit();
  }

  if (!args.fail_if_slower_percent) return 0;
  const double limit = 1 + *args.fail_if_slower_percent / 100;
  std::vector<std::string> slower;
  for (const auto& r : comparison.rows) {
    if (r.comparison.verdict == stats::Verdict::slower && r.comparison.ratio > limit) {
      slower.push_back(fmt::format("{}/{} ({} {:.3f}x)", r.before->workload, r.before->variant,
                                   r.file->label, r.comparison.ratio));
    }
  }
  if (slower.empty()) return 0;
  print_error_line(
      fmt::format("compare: {} step{} slower than the baseline (significant, beyond the noise "
                  "threshold) by more than {}%: {}",
                  slower.size(), slower.size() == 1 ? "" : "s", *args.fail_if_slower_percent,
                  fmt::join(slower, ", ")));
  return 1;
}

}  // namespace acclab
