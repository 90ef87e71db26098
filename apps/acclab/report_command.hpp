// acclab report RUN.json [MORE.json ...] --out PAGE.html: one self-contained HTML page of result
// files (acclab run or ladder --format json): per workload the ladder chart, a roofline, each
// step's numbers and notes; the files' provenance; with several files compare's table. The page
// is drawn by scripts/report-html.py (matplotlib); run and ladder --report write the same page.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace acclab {

struct ReportArgs {
  std::vector<std::string> files;
  std::string out;
};

void add_report_options(CLI::App* cmd, ReportArgs& args);

// The folder of the scripts acclab runs (report-html.py): $ACCLAB_SCRIPTS where set; else
// ../share/acclab/scripts beside the running binary, where `cmake --install` and the Debian
// package put them; else the source tree's scripts/ that the build named. Nothing where neither
// holds the renderer.
std::optional<std::filesystem::path> scripts_folder();

// Returns 0 with the page written. Throws UsageError (status 2, nothing written) for bad usage,
// a file that is not a result, an output path that cannot be written or a page that cannot be
// drawn here (no scripts/report-html.py, no matplotlib); std::runtime_error (status 1, nothing
// written) when drawing fails after that.
int report_command(const ReportArgs& args, const std::vector<std::string>& command_line);

// For --report of run and ladder, before any work: throws UsageError when the page could not be
// written to `path` (as check_output_path) or drawn here, so that a long run never ends on it.
void check_report_page(const std::string& option, const std::string& path);

// The page of one run's acclab.run/1 document, written to `path` whole or not at all (throws
// as report_command does). `shown_path` names the run in the page (its --out, or "this run").
void write_run_report_page(const std::string& option, const std::string& path,
                           const nlohmann::json& document, const std::string& shown_path,
                           const std::vector<std::string>& command_line);

}  // namespace acclab
