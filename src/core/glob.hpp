#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace acclab {
// Shell-style match of `text` against `pattern` (fnmatch: *, ?, [...] and \ escapes).
bool glob_match(std::string_view pattern, std::string_view text);
bool has_glob_characters(std::string_view pattern);
// "a*,b" -> {"a*", "b"}: the comma-separated patterns of --variant.
std::vector<std::string> split_patterns(const std::string& patterns);
}  // namespace acclab
