#include "core/text_format.hpp"

#include <fmt/format.h>

#include <algorithm>

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

}  // namespace acclab
