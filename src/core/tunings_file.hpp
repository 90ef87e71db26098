// The tunings file (acclab.tunings/1): the best tunings acclab tune --save-tunings found for
// each step, keyed by machine and compiler, which acclab run --tunings FILE applies.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/tune_report.hpp"

namespace acclab::tune {

// The schema merge_tunings writes and read_tunings_file accepts.
inline constexpr const char* kTuningsSchema = "acclab.tunings/1";

// What a set of tunings is keyed by: where the step runs ({"place": "gpu", "name", "compute
// capability"} of the first GPU, or {"place": "host", "cpu"}) and the compiler that built it.
nlohmann::json tunings_key(const std::string& place, const std::string& gpu_name,
                           const std::string& compute_capability, const std::string& cpu,
                           const std::string& compiler);

// The file's document: the entries of `existing` (an acclab.tunings/1 document, or null) with
// each searched step's best replacing the entry of the same key, workload, variant and preset.
nlohmann::json merge_tunings(const nlohmann::json& existing, const std::string& workload,
                             const std::string& preset, const std::vector<StepReport>& steps,
                             const std::vector<std::string>& command_line,
                             const nlohmann::json& build);

// Reads and checks a tunings file. Throws UsageError naming `option` and the file when it cannot
// be read or is not an acclab.tunings/1 document.
nlohmann::json read_tunings_file(const std::string& option, const std::string& path);

// The entry of `document` for this variant and key: one tuned with `preset` if there is one,
// else the last one of another preset; nullptr when none matches.
const nlohmann::json* find_tunings(const nlohmann::json& document, const nlohmann::json& key,
                                   const std::string& workload, const std::string& variant,
                                   const std::string& preset);

}  // namespace acclab::tune
