// The check acclab's solver commands make on an --out path before any work.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"

namespace acclab {

// Throws UsageError naming `option` unless `path` can be created: its folder exists and is
// writable, and the path itself is not a folder.
inline void check_output_path(const std::string& option, const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::filesystem::path folder = parent.empty() ? "." : parent;
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    throw UsageError(fmt::format("{} {}: no directory {}", option, path, folder.string()));
  }
  if (std::filesystem::is_directory(path, error)) {
    throw UsageError(fmt::format("{} {}: is a directory", option, path));
  }
  if (access(folder.c_str(), W_OK) != 0) {
    throw UsageError(fmt::format("{} {}: cannot write in {}", option, path, folder.string()));
  }
}

}  // namespace acclab
