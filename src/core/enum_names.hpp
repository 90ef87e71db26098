// The words an enum's values are printed as, written once as a table that reads both ways:
// to_string from a value, and back from the word a user or a file gives. Each enum's table
// stands beside its to_string; a value the table leaves out prints as "?".
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace acclab {

template <typename Enum>
struct EnumName {
  Enum value;
  const char* name;
};

// A table: constexpr auto kNames = std::to_array<EnumName<E>>({{E::a, "a"}, {E::b, "b"}});
template <typename Enum, std::size_t N>
using EnumNames = std::array<EnumName<Enum>, N>;

template <typename Enum, std::size_t N>
constexpr const char* name_of(const EnumNames<Enum, N>& names, Enum value) {
  for (const auto& entry : names) {
    if (entry.value == value) return entry.name;
  }
  return "?";
}

// The value `names` prints as `name`, or nullopt where none does.
template <typename Enum, std::size_t N>
constexpr std::optional<Enum> value_named(const EnumNames<Enum, N>& names, std::string_view name) {
  for (const auto& entry : names) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace acclab
