#include "core/glob.hpp"

#include <fnmatch.h>

#include <string>

namespace acclab {

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

bool has_glob_characters(std::string_view pattern) {
  return pattern.find_first_of("*?[") != std::string_view::npos;
}

}  // namespace acclab
