#include "core/glob.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <string>

namespace acclab {

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

std::vector<std::string> split_patterns(const std::string& patterns) {
  std::vector<std::string> parts;
  for (std::size_t start = 0; start <= patterns.size();) {
    const auto comma = std::min(patterns.find(',', start), patterns.size());
    parts.push_back(patterns.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

bool has_glob_characters(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

}  // namespace acclab
