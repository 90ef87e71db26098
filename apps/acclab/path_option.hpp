// The check every path option of the command line carries.
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

}  // namespace acclab
