// The check every path option of the command line carries, and the --out that several share.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace acclab {

// Refuses an empty path: "" would otherwise read as the option not given, and a run asked to
// write a file would quietly write none.
inline CLI::Validator non_empty_path() {
  return CLI::Validator(
      [](const std::string& value) { return value.empty() ? std::string("empty path") : ""; },
      "PATH");
}

// --out of the commands whose report goes to stdout unless it names a file.
inline CLI::Option* add_report_out_option(CLI::App* cmd, std::string& out) {
  return cmd->add_option("--out", out, "write the report to FILE instead of stdout")
      ->check(non_empty_path());
}

}  // namespace acclab
