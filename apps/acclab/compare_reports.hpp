// compare's three reports of one Comparison: JSON (schema acclab.compare/1), the text table a
// reader sees, and CSV, one row per compared step.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/acclab/compare_command.hpp"
#include "apps/acclab/compare_matching.hpp"

namespace acclab::compare {

nlohmann::json compare_json(const Comparison& c, const CompareArgs& args,
                            const std::vector<std::string>& command_line);

// Every line printable: paths, host names and flags come from the files.
std::string compare_text(const Comparison& c, const CompareArgs& args);

std::string csv_text(const Comparison& c, const CompareArgs& args);

}  // namespace acclab::compare
