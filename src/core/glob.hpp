#pragma once
#include <string_view>

namespace acclab {
// Shell-style match of `text` against `pattern` (fnmatch: *, ?, [...] and \ escapes).
bool glob_match(std::string_view pattern, std::string_view text);
bool has_glob_characters(std::string_view pattern);
}  // namespace acclab
