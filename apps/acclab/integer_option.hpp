// The integer options of the command line (--reps, --evals, --seed, --maxiter, --colors, ...):
// one parser and one message for a value that is not an integer of the option's range, in
// place of CLI11's "Could not convert" (which names neither the range nor what went wrong).
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <concepts>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "safe_text.hpp"

namespace acclab {

// `text` as a decimal integer from `low` to `high` (an optional sign, no spaces, no other base).
// Throws CLI::ValidationError "OPTION TEXT: must be an integer from LOW to HIGH", the whole line
// acclab prints for a command-line error.
template <std::integral T>
T integer_argument(std::string_view option, std::string_view text, T low, T high) {
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  T value{};
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value < low || value > high) {
    throw CLI::ValidationError(
        fmt::format("{} {}: must be an integer from {} to {}", option, printable(text), low, high));
  }
  return value;
}

// An option that takes one integer from `low` to `high` into `target` (a T, or an optional<T>).
template <std::integral T, class Target>
CLI::Option* add_integer_option(CLI::App* cmd, const std::string& name, Target& target, T low,
                                T high, const std::string& description) {
  auto* option = cmd->add_option_function<std::string>(
      name,
      [&target, name, low, high](const std::string& text) {
        target = integer_argument<T>(name, text, low, high);
      },
      description);
  option->type_name("INT");
  return option;
}

// An option that takes `count` integers from `low` to `high` into `target`.
template <std::integral T>
CLI::Option* add_integers_option(CLI::App* cmd, const std::string& name, std::vector<T>& target,
                                 int count, T low, T high, const std::string& description) {
  auto* option = cmd->add_option_function<std::vector<std::string>>(
      name,
      [&target, name, low, high](const std::vector<std::string>& texts) {
        target.clear();
        for (const auto& text : texts) target.push_back(integer_argument<T>(name, text, low, high));
      },
      description);
  option->type_name("INT")->expected(count);
  return option;
}

}  // namespace acclab
