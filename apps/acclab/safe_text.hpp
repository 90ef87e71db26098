// Arguments are bytes, not text: what acclab does with one that is not UTF-8 (or that holds
// control bytes) before it reaches a terminal or a JSON report. utf8_sequence_length, is_utf8 and
// printable live in core/safe_text.hpp, which src/core uses too.
#pragma once

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/safe_text.hpp"

namespace acclab {

// The one way acclab prints an error line: "acclab: MESSAGE" on stderr, printable.
inline void print_error_line(std::string_view message) {
  fmt::print(stderr, "acclab: {}\n", printable(message));
}

// A value that must name something (a workload, a variant, a format, a --set value) is matched
// against names that are all UTF-8, so one that is not cannot match: refused before any work,
// with the bytes shown escaped. Paths and free text are not checked here; the JSON reports
// replace their bad bytes instead (U+FFFD).
inline void require_utf8_name(std::string_view option, std::string_view value) {
  if (is_utf8(value)) return;
  throw UsageError(fmt::format("{} '{}': not valid UTF-8, so it names nothing acclab knows",
                               option, printable(value)));
}

// The names by which acclab run, ladder and tune pick their steps and print them: those of
// RunArgs and TuneArgs alike.
template <typename StepArgs>
void require_utf8_step_names(const StepArgs& args) {
  require_utf8_name("workload", args.workload);
  require_utf8_name("--variant", args.variant);
  if (args.preset) require_utf8_name("--preset", *args.preset);
  for (const auto& set : args.sets) require_utf8_name("--set", set);
  require_utf8_name("--format", args.format);
}

}  // namespace acclab
