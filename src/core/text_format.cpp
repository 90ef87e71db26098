#include "core/text_format.hpp"

#include <fmt/format.h>

namespace acclab {

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
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

}  // namespace acclab
