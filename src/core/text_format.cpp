#include "core/text_format.hpp"

#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/safe_text.hpp"

namespace acclab {

namespace {

bool is_bad_text(const nlohmann::json& value) {
  return value.is_string() && !is_utf8(value.get_ref<const std::string&>());
}

bool holds_bad_text(const nlohmann::json& value) {
  if (value.is_string()) return is_bad_text(value);
  if (value.is_structured()) {
    for (const auto& child : value) {
      if (holds_bad_text(child)) return true;
    }
  }
  return false;
}

nlohmann::json byte_values(const std::string& text) {
  nlohmann::json bytes = nlohmann::json::array();
  for (const char c : text) bytes.push_back(static_cast<unsigned char>(c));
  return bytes;
}

// `value` with a KEY_bytes member beside each member KEY that is, or is a list holding, a string
// that is not UTF-8 (docs/bad-input.md).
nlohmann::json with_exact_bytes(const nlohmann::json& value) {
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& child : value) out.push_back(with_exact_bytes(child));
    return out;
  }
  if (!value.is_object()) return value;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, child] : value.items()) out[key] = with_exact_bytes(child);
  for (const auto& [key, child] : value.items()) {
    const std::string bytes_key = key + "_bytes";
    if (value.contains(bytes_key)) continue;  // a member of that name already: left as it is
    if (is_bad_text(child)) {
      out[bytes_key] = byte_values(child.get<std::string>());
    } else if (child.is_array() && std::any_of(child.begin(), child.end(),
                                               [](const auto& e) { return is_bad_text(e); })) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& e : child) {
        list.push_back(is_bad_text(e) ? byte_values(e.get<std::string>())
                                      : nlohmann::json(nullptr));
      }
      out[bytes_key] = std::move(list);
    }
  }
  return out;
}

}  // namespace

std::string json_text(const nlohmann::json& value, int indent) {
  const auto dump = [&](const nlohmann::json& v) {
    return v.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  return holds_bad_text(value) ? dump(with_exact_bytes(value)) : dump(value);
}

std::string format_seconds(double seconds) {
  // Units are chosen on the value as printed (3 significant digits): 0.9996 s is "1 s".
  if (seconds >= 999.5) return fmt::format("{:.0f} s", seconds);
  if (seconds >= 0.9995) return fmt::format("{:.3g} s", seconds);
  if (seconds >= 0.9995e-3) return fmt::format("{:.3g} ms", seconds * 1e3);
  return fmt::format("{:.3g} µs", seconds * 1e6);
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::size_t terminal_width() {
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return static_cast<std::size_t>(value);
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return size.ws_col;
  }
  return 100;
}

std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t space = text.find(' ', at);
    const std::string word = text.substr(at, space == std::string::npos ? std::string::npos
                                                                        : space - at);
    at = space == std::string::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + '\n';
      line = indent;
    }
    if (!line.empty() && line != indent) line += ' ';
    line += word;
  }
  if (!line.empty()) out += line + '\n';
  return out;
}

}  // namespace acclab
