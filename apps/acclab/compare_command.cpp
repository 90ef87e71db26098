// acclab compare: result files read, their steps matched, each match compared by
// core/compare_stats.hpp, and the report written as text, JSON (schema acclab.compare/1) or CSV.
#include "apps/acclab/compare_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/compare_stats.hpp"
#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "core/text_format.hpp"
#include "path_option.hpp"
#include "safe_text.hpp"

namespace acclab {

namespace {

constexpr const char* kResultSchema = "acclab.run/1";

// One result of a file: a step (workload, variant, preset, parameters) and its timed runs.
struct Step {
  std::string workload, variant, preset;
  nlohmann::json params = nlohmann::json::object();
  std::string status;
  std::vector<double> times_s;
  // Each invocation's median (acclab run --invocations N: N processes), empty for one process.
  std::vector<double> invocations_median_s;
  std::optional<double> limit_fraction;

  // What a step is matched by, as JSON text: no name can run into the next, and nlohmann::json
  // keeps an object's keys sorted, so equal parameters give equal text in any order in the file.
  std::string key() const {
    return json_text(nlohmann::json::array({workload, variant, preset, params}));
  }
  std::string shown() const {
    return fmt::format("{}/{} (preset {}, {})", workload, variant, preset, json_text(params));
  }
};

struct ResultFile {
  std::string path;
  std::string label;  // A, B, C, ...: the baseline is A
  nlohmann::json document;
  std::vector<Step> steps;
  std::map<std::string, std::size_t> index;  // Step::key() -> position in steps
};

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw UsageError(fmt::format("{}: {}", path, why));
}

// The whole file, read once (a pipe or a process substitution gives what the file would).
std::string read_whole(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) refuse(path, "a folder, not a result file");
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, fmt::format("cannot be read ({})", std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) refuse(path, "read error");
  return text.str();
}

const char* kWhatWritesOne = "acclab run or ladder --format json --out FILE writes one";

// The steps of `path`, checked: every field compare reads has the type it needs, every time is
// a positive finite number, and no step is there twice.
ResultFile read_result_file(const std::string& path, std::string label) {
  ResultFile file;
  file.path = path;
  file.label = std::move(label);
  const std::string text = read_whole(path);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    refuse(path, fmt::format("empty file, not an {} result ({})", kResultSchema, kWhatWritesOne));
  }
  try {
    file.document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    refuse(path, fmt::format("not JSON, so not an {} result ({})", kResultSchema, e.what()));
  }
  const nlohmann::json& doc = file.document;
  if (!doc.is_object() || !doc.contains("schema")) {
    refuse(path, fmt::format("no schema: not an {} result ({})", kResultSchema, kWhatWritesOne));
  }
  if (doc["schema"] != kResultSchema) {
    refuse(path, fmt::format("schema {}, not {} ({})", json_text(doc["schema"]), kResultSchema,
                             kWhatWritesOne));
  }
  if (!doc.contains("results") || !doc["results"].is_array()) {
    refuse(path, fmt::format("an {} document without a results list", kResultSchema));
  }
  // The preset a result names, or the document's (acclab.run/1 writes one for the whole run).
  std::string preset;
  if (doc.contains("preset") && doc["preset"].is_string()) preset = doc["preset"];
  const auto& results = doc["results"];
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto bad = [&](const std::string& why) {
      refuse(path, fmt::format("results[{}]: {}", i, why));
    };
    if (!r.is_object()) bad("not an object");
    Step step;
    for (const char* field : {"workload", "variant", "status"}) {
      if (!r.contains(field) || !r[field].is_string()) bad(fmt::format("no {} string", field));
    }
    step.workload = r["workload"];
    step.variant = r["variant"];
    step.status = r["status"];
    step.preset = preset;
    if (r.contains("preset")) {
      if (!r["preset"].is_string()) bad("preset is not a string");
      step.preset = r["preset"];
    }
    if (r.contains("params")) {
      if (!r["params"].is_object()) bad("params is not an object");
      step.params = r["params"];
    }
    if (!r.contains("times_s") || !r["times_s"].is_array()) bad("no times_s list");
    for (const auto& t : r["times_s"]) {
      // A time of 0 or below cannot be a timed run, and a ratio of medians could not use it.
      if (!t.is_number() || !(t.get<double>() > 0) || !std::isfinite(t.get<double>())) {
        bad(fmt::format("times_s holds {}, not a positive number of seconds", json_text(t)));
      }
      step.times_s.push_back(t.get<double>());
    }
    if (r.contains("invocations_median_s") && !r["invocations_median_s"].is_null()) {
      if (!r["invocations_median_s"].is_array()) bad("invocations_median_s is not a list");
      for (const auto& t : r["invocations_median_s"]) {
        if (!t.is_number() || !(t.get<double>() > 0) || !std::isfinite(t.get<double>())) {
          bad(fmt::format("invocations_median_s holds {}, not a positive number of seconds",
                          json_text(t)));
        }
        step.invocations_median_s.push_back(t.get<double>());
      }
    }
    if (r.contains("limit_fraction") && !r["limit_fraction"].is_null()) {
      if (!r["limit_fraction"].is_number()) bad("limit_fraction is not a number");
      step.limit_fraction = r["limit_fraction"].get<double>();
    }
    const auto [at, added] = file.index.emplace(step.key(), file.steps.size());
    if (!added) {
      bad(fmt::format("the same step as results[{}]: {}", at->second, step.shown()));
    }
    file.steps.push_back(std::move(step));
  }
  return file;
}

// "A", "B", ..., "Z", then "F27", "F28", ...: how the reports name the files.
std::string label_of(std::size_t position) {
  return position < 26 ? std::string(1, char('A' + position)) : fmt::format("F{}", position + 1);
}

// --- provenance: what the files say about where and how they were made -------------------------

// What a file does not record: no difference with anything (an OpenMP target place exists only
// where such a step ran; older files lack newer fields).
const std::string kNotRecorded = "-";

// A recorded value as text; null is recorded as nothing there (CUDA in a build without it).
std::string text_of(const nlohmann::json& value) {
  if (value.is_null()) return "none";
  return value.is_string() ? value.get<std::string>() : json_text(value);
}

std::string top(const nlohmann::json& doc, const char* key) {
  return doc.contains(key) ? text_of(doc[key]) : kNotRecorded;
}

std::string field(const nlohmann::json& doc, const char* object, const char* key) {
  if (!doc.contains(object) || !doc[object].is_object()) return kNotRecorded;
  return top(doc[object], key);
}

std::string host_text(const nlohmann::json& doc) {
  if (!doc.contains("host") || !doc["host"].is_object()) return kNotRecorded;
  const auto& host = doc["host"];
  return fmt::format("{} ({}, {} cores)", top(host, "hostname"), top(host, "cpu"),
                     top(host, "cores"));
}

std::string devices_text(const nlohmann::json& doc) {
  if (!doc.contains("devices") || !doc["devices"].is_array()) return kNotRecorded;
  if (doc["devices"].empty()) return "no GPU";
  std::vector<std::string> names;
  for (const auto& d : doc["devices"]) {
    if (!d.is_object()) continue;
    const std::string sm = top(d, "compute_capability");
    names.push_back(top(d, "name") +
                    (sm == kNotRecorded || sm == "none" || sm.empty() ? "" : " (sm " + sm + ")"));
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string commit_text(const nlohmann::json& doc) {
  if (!doc.contains("build") || !doc["build"].is_object()) return kNotRecorded;
  const auto& build = doc["build"];
  std::string text = top(build, "commit");
  if (build.value("dirty", nlohmann::json()) == true) {
    const auto changed = build.value("changed", nlohmann::json::array());
    text += fmt::format(" (with {} changed paths)", changed.is_array() ? changed.size() : 0);
  }
  return text;
}

// The file given to --tunings on the command line that made the result, or "none".
std::string tunings_text(const nlohmann::json& doc) {
  if (!doc.contains("command_line") || !doc["command_line"].is_array()) return kNotRecorded;
  const auto& words = doc["command_line"];
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string word = text_of(words[i]);
    if (word == "--tunings" && i + 1 < words.size()) return text_of(words[i + 1]);
    if (word.starts_with("--tunings=")) return word.substr(std::string("--tunings=").size());
  }
  return "none";
}

struct ProvenanceLine {
  const char* name;
  std::string (*value)(const nlohmann::json&);
};

// What may explain a difference in time besides the code: the machine, its GPUs, where the
// directives ran, the compiler and its flags, the commit and a tunings file. (acclab.run/1 does
// not record the GPU driver's version.)
const ProvenanceLine kProvenance[] = {
    {"host", host_text},
    {"GPUs", devices_text},
    {"OpenACC on", [](const nlohmann::json& d) { return top(d, "openacc_runs_on"); }},
    {"OpenMP target on", [](const nlohmann::json& d) { return top(d, "omptarget_runs_on"); }},
    {"compiler", [](const nlohmann::json& d) { return field(d, "compiler", "cxx"); }},
    {"CUDA", [](const nlohmann::json& d) { return field(d, "compiler", "cuda"); }},
    {"CUDA archs",
     [](const nlohmann::json& d) { return field(d, "compiler", "cuda_architectures"); }},
    {"acclab", [](const nlohmann::json& d) { return field(d, "compiler", "acclab_version"); }},
    {"commit", commit_text},
    {"C++ flags", [](const nlohmann::json& d) { return field(d, "compiler", "cxx_flags"); }},
    {"OpenACC flags",
     [](const nlohmann::json& d) { return field(d, "compiler", "openacc_flags"); }},
    {"OpenMP target flags",
     [](const nlohmann::json& d) { return field(d, "compiler", "omptarget_flags"); }},
    {"tunings file", tunings_text},
};

struct ProvenanceDifference {
  std::string name;
  std::vector<std::string> values;  // one per file, in the files' order
};

std::vector<ProvenanceDifference> provenance_differences(const std::vector<ResultFile>& files) {
  std::vector<ProvenanceDifference> differences;
  for (const auto& line : kProvenance) {
    ProvenanceDifference d{line.name, {}};
    std::vector<std::string> recorded;
    for (const auto& f : files) {
      d.values.push_back(line.value(f.document));
      if (d.values.back() != kNotRecorded) recorded.push_back(d.values.back());
    }
    if (std::adjacent_find(recorded.begin(), recorded.end(), std::not_equal_to<>()) !=
        recorded.end()) {
      differences.push_back(std::move(d));
    }
  }
  return differences;
}

// --- the comparison ----------------------------------------------------------------------------

// What a row's test compared: each side's timed runs of one process, or where both files ran
// the step in several processes (run --invocations), each process's median.
enum class Tested { repetitions, invocations };

const char* to_string(Tested tested) {
  return tested == Tested::invocations ? "invocations" : "repetitions";
}

struct Row {
  const ResultFile* baseline;
  const ResultFile* file;
  const Step* before;  // the baseline's step
  const Step* after;   // the same step in `file`
  Tested tested;
  stats::StepComparison comparison;

  const std::vector<double>& sample(const Step& step) const {
    return tested == Tested::invocations ? step.invocations_median_s : step.times_s;
  }
};

// The runs of one process vary less than processes do (each process places its threads and
// memory anew): where both sides hold two or more invocations, the test is between those.
Row compared_row(const ResultFile& baseline, const ResultFile& file, const Step& before,
                 const Step& after, double noise_percent) {
  const bool invocations =
      before.invocations_median_s.size() >= 2 && after.invocations_median_s.size() >= 2;
  Row row{&baseline, &file, &before, &after,
          invocations ? Tested::invocations : Tested::repetitions, {}};
  row.comparison =
      stats::compare_times(row.sample(before), row.sample(after), noise_percent, stats::kAlpha,
                           invocations ? stats::Verdict::too_few_invocations
                                       : stats::Verdict::too_few_reps);
  return row;
}

// A step of one file that has no comparison: in that file alone, or not timed on one side.
struct Unmatched {
  const ResultFile* file;   // where the step is
  const ResultFile* other;  // the file it was looked for in
  const Step* step;
  std::string reason;
};

struct Comparison {
  std::vector<ResultFile> files;
  std::vector<ProvenanceDifference> provenance;
  std::vector<Row> rows;
  std::vector<Unmatched> unmatched;
  std::vector<std::string> files_not_compared;  // why, for each file left out (lenient only)
};

// What a file with no step to compare with the baseline's does: stops the command (compare),
// or is left out and said so (report, whose page shows the files' steps anyway).
enum class NothingInCommon { refuse, leave_out };

// Why `step` of `file` cannot be compared ("" where it can): a step that did not run has no
// times, and the time of a failed step is the time of a wrong answer.
std::string not_comparable(const Step& step, const ResultFile& file) {
  if (step.status == "verified" && !step.times_s.empty()) return "";
  if (step.times_s.empty()) return fmt::format("{} in {}", step.status, file.label);
  return fmt::format("{} in {}", step.status == "failed" ? "failed verification" : step.status,
                     file.label);
}

Comparison compare_files(std::vector<ResultFile> files, double noise_percent,
                         NothingInCommon nothing_in_common = NothingInCommon::refuse) {
  Comparison c;
  c.files = std::move(files);
  c.provenance = provenance_differences(c.files);
  const ResultFile& baseline = c.files.front();
  for (std::size_t f = 1; f < c.files.size(); ++f) {
    const ResultFile& file = c.files[f];
    std::size_t in_common = 0;
    const std::size_t rows_before = c.rows.size();
    for (const Step& before : baseline.steps) {
      const auto match = file.index.find(before.key());
      if (match == file.index.end()) {
        c.unmatched.push_back({&baseline, &file, &before, "only in " + baseline.label});
        continue;
      }
      ++in_common;
      const Step& after = file.steps[match->second];
      std::string why = not_comparable(before, baseline);
      const std::string why_after = not_comparable(after, file);
      if (!why_after.empty()) why = why.empty() ? why_after : why + ", " + why_after;
      if (!why.empty()) {
        c.unmatched.push_back({&baseline, &file, &before, why});
        continue;
      }
      c.rows.push_back(compared_row(baseline, file, before, after, noise_percent));
    }
    for (const Step& after : file.steps) {
      if (!baseline.index.contains(after.key())) {
        c.unmatched.push_back({&file, &baseline, &after, "only in " + file.label});
      }
    }
    std::string why;
    if (in_common == 0) {
      why = fmt::format(
          "{}: no step in common with the baseline {} (steps match by workload, variant, preset "
          "and parameters)",
          file.path, baseline.path);
    } else if (c.rows.size() == rows_before) {
      why = fmt::format(
          "{}: none of its {} steps in common with the baseline {} was verified and timed in "
          "both",
          file.path, in_common, baseline.path);
    }
    if (why.empty()) continue;
    if (nothing_in_common == NothingInCommon::refuse) throw UsageError(why);
    c.files_not_compared.push_back(why);
    // Its steps are all "only in" one side: the page shows them in the file's own table.
    std::erase_if(c.unmatched,
                  [&](const Unmatched& u) { return u.file == &file || u.other == &file; });
  }
  return c;
}

// --- reports -----------------------------------------------------------------------------------

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json compare_json(const Comparison& c, const CompareArgs& args,
                            const std::vector<std::string>& command_line) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : c.files) {
    files.push_back({{"label", f.label},
                     {"path", f.path},
                     {"role", &f == &c.files.front() ? "baseline" : "compared"}});
  }
  nlohmann::json provenance = nlohmann::json::array();
  for (const auto& d : c.provenance) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : d.values) {
      values.push_back(v == kNotRecorded ? nlohmann::json(nullptr) : nlohmann::json(v));
    }
    provenance.push_back({{"name", d.name}, {"values", values}});
  }
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    const auto& s = r.comparison;
    rows.push_back({
        {"baseline", r.baseline->path},
        {"file", r.file->path},
        {"pair", fmt::format("{} vs {}", r.file->label, r.baseline->label)},
        {"workload", r.before->workload},
        {"variant", r.before->variant},
        {"preset", r.before->preset},
        {"params", r.before->params},
        {"reps", {{"baseline", r.before->times_s.size()}, {"file", r.after->times_s.size()}}},
        {"invocations",
         {{"baseline", std::max<std::size_t>(1, r.before->invocations_median_s.size())},
          {"file", std::max<std::size_t>(1, r.after->invocations_median_s.size())}}},
        {"tested", to_string(r.tested)},
        {"median_s",
         {{"baseline", stats::median(r.sample(*r.before))},
          {"file", stats::median(r.sample(*r.after))}}},
        {"limit_fraction",
         {{"baseline", optional_json(r.before->limit_fraction)},
          {"file", optional_json(r.after->limit_fraction)}}},
        {"ratio", s.ratio},
        {"ratio_low", s.interval ? nlohmann::json(s.interval->low) : nlohmann::json(nullptr)},
        {"ratio_high", s.interval ? nlohmann::json(s.interval->high) : nlohmann::json(nullptr)},
        {"p_value", optional_json(s.p_value)},
        {"significant", s.p_value ? nlohmann::json(s.significant) : nlohmann::json(nullptr)},
        {"beyond_noise", s.p_value ? nlohmann::json(s.beyond_noise) : nlohmann::json(nullptr)},
        {"verdict", stats::to_string(s.verdict)},
    });
  }
  nlohmann::json unmatched = nlohmann::json::array();
  for (const auto& u : c.unmatched) {
    unmatched.push_back({{"file", u.file->path},
                         {"other", u.other->path},
                         {"workload", u.step->workload},
                         {"variant", u.step->variant},
                         {"preset", u.step->preset},
                         {"params", u.step->params},
                         {"reason", u.reason}});
  }
  nlohmann::json doc = {
      {"schema", "acclab.compare/1"},
      {"files", files},
      {"statistics",
       {{"test", "two-sided Mann-Whitney U"},
        {"alpha", stats::kAlpha},
        {"noise_percent", args.noise_percent},
        {"min_reps", stats::kMinReps},
        {"interval", "percentile bootstrap of the ratio of medians"},
        {"confidence", stats::kConfidence},
        {"resamples", stats::kResamples},
        {"seed", stats::kSeed}}},
      {"provenance_differences", provenance},
      {"rows", rows},
      {"not_compared", unmatched},
      {"command_line", command_line},
  };
  if (args.fail_if_slower_percent) doc["fail_if_slower_percent"] = *args.fail_if_slower_percent;
  if (!c.files_not_compared.empty()) doc["files_not_compared"] = c.files_not_compared;
  return doc;
}

// The terminal columns of UTF-8 `text` ("µs" is two bytes, one column): its bytes that do not
// continue a sequence.
std::size_t columns(const std::string& text) {
  return std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xc0) != 0x80; });
}

std::string percent_text(const std::optional<double>& fraction) {
  return fraction ? fmt::format("{:.1f}", 100 * *fraction) : "-";
}

// A side's count in the text table: its timed runs, or its processes where those were tested.
std::string count_text(const Row& r, const Step& step) {
  return r.tested == Tested::invocations
             ? fmt::format("{} inv", step.invocations_median_s.size())
             : std::to_string(step.times_s.size());
}

std::string compare_text(const Comparison& c, const CompareArgs& args) {
  std::string out;
  // Every line printable: paths, host names and flags come from the files, and may hold bytes
  // that would move a terminal's cursor.
  const auto line = [&](const std::string& text) { out += printable(text) + "\n"; };
  for (const auto& f : c.files) {
    line(fmt::format("{} {}{}", f.label, f.path, &f == &c.files.front() ? "  (baseline)" : ""));
  }
  line("");
  if (c.provenance.empty()) {
    line("provenance: the same host, GPUs, compiler, flags, commit and tunings file");
  } else {
    line("provenance that differs:");
    std::size_t width = 0;
    for (const auto& d : c.provenance) width = std::max(width, d.name.size());
    for (const auto& d : c.provenance) {
      for (std::size_t f = 0; f < c.files.size(); ++f) {
        line(fmt::format("  {:<{}}  {}  {}", f == 0 ? d.name : "", width, c.files[f].label,
                         d.values[f] == kNotRecorded ? "(not recorded)" : d.values[f]));
      }
    }
  }
  line("");
  line(fmt::format(
      "noise threshold {}% (--noise): faster/slower need p < {} and medians more than {}% "
      "apart; else same",
      args.noise_percent, stats::kAlpha, args.noise_percent));
  for (std::size_t f = 1; f < c.files.size(); ++f) {
    const ResultFile& file = c.files[f];
    const std::string a = c.files.front().label, b = file.label;
    std::vector<std::vector<std::string>> table = {
        {"step", "preset", "reps " + a, "reps " + b, "median " + a, "median " + b, b + "/" + a,
         "95% interval", "p", "%limit " + a, "%limit " + b, "verdict", "params"}};
    for (const auto& r : c.rows) {
      if (r.file != &file) continue;
      const auto& s = r.comparison;
      table.push_back({
          r.before->workload + "/" + r.before->variant,
          r.before->preset,
          count_text(r, *r.before),
          count_text(r, *r.after),
          format_seconds(stats::median(r.sample(*r.before))),
          format_seconds(stats::median(r.sample(*r.after))),
          fmt::format("{:.3f}", s.ratio),
          s.interval ? fmt::format("[{:.3f}, {:.3f}]", s.interval->low, s.interval->high) : "-",
          s.p_value ? fmt::format("{:.2g}", *s.p_value) : "-",
          percent_text(r.before->limit_fraction),
          percent_text(r.after->limit_fraction),
          stats::to_string(s.verdict),
          json_text(r.before->params),
      });
    }
    line("");
    line(fmt::format("{} against {}:", b, a));
    // Columns as wide as their widest entry; the text columns left, the numbers right.
    std::vector<std::size_t> widths(table.front().size(), 0);
    for (const auto& row : table) {
      for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], columns(row[k]));
    }
    const auto left = [](std::size_t k) { return k < 2 || k >= 11; };
    for (const auto& row : table) {
      std::string text;
      for (std::size_t k = 0; k < row.size(); ++k) {
        if (k > 0) text += "  ";
        const std::string pad(widths[k] - columns(row[k]), ' ');
        if (k + 1 == row.size()) {
          text += row[k];
        } else {
          text += left(k) ? row[k] + pad : pad + row[k];
        }
      }
      line(text);
    }
    std::size_t by_invocations = 0, by_repetitions = 0;
    for (const auto& r : c.rows) {
      if (r.file != &file) continue;
      ++(r.tested == Tested::invocations ? by_invocations : by_repetitions);
    }
    if (by_invocations == 0) {
      line("tested: the repetitions of one process on each side (run --invocations N tests N "
           "processes)");
    } else if (by_repetitions == 0) {
      line("tested: the invocations (each process's median) on each side");
    } else {
      line(fmt::format("tested: the invocations (each process's median) where reps says inv, "
                       "the repetitions of one process elsewhere"));
    }
    for (const auto& u : c.unmatched) {
      if (u.other != &file && u.file != &file) continue;
      line(fmt::format("  not compared: {}: {}", u.step->shown(), u.reason));
    }
  }
  line("");
  line("B/A: median time over the baseline's (below 1: faster); 95% interval: bootstrap of that");
  line(fmt::format(
      "ratio ({} resamples of each side's runs); p: two-sided Mann-Whitney U test; verdict:",
      stats::kResamples));
  line(fmt::format(
      "faster/slower where p < {} and B/A beyond {}% (too few reps: below {} runs on a side);",
      stats::kAlpha, args.noise_percent, stats::kMinReps));
  line("%limit: each run's share of its own machine's measured limit (docs/compare.md)");
  return out;
}

std::string csv_text(const Comparison& c, const CompareArgs& args) {
  std::string out =
      "baseline,file,workload,variant,preset,params,reps_baseline,reps_file,median_baseline_s,"
      "median_file_s,ratio,ratio_low,ratio_high,p_value,verdict,limit_fraction_baseline,"
      "limit_fraction_file,tested,invocations_baseline,invocations_file,noise_percent\n";
  const auto number = [](const std::optional<double>& value) {
    return value ? fmt::format("{}", *value) : std::string();
  };
  for (const auto& r : c.rows) {
    const auto& s = r.comparison;
    const std::vector<std::string> fields = {
        r.baseline->path,
        r.file->path,
        r.before->workload,
        r.before->variant,
        r.before->preset,
        json_text(r.before->params),
        std::to_string(r.before->times_s.size()),
        std::to_string(r.after->times_s.size()),
        number(stats::median(r.sample(*r.before))),
        number(stats::median(r.sample(*r.after))),
        number(s.ratio),
        number(s.interval ? std::optional(s.interval->low) : std::nullopt),
        number(s.interval ? std::optional(s.interval->high) : std::nullopt),
        number(s.p_value),
        stats::to_string(s.verdict),
        number(r.before->limit_fraction),
        number(r.after->limit_fraction),
        to_string(r.tested),
        std::to_string(std::max<std::size_t>(1, r.before->invocations_median_s.size())),
        std::to_string(std::max<std::size_t>(1, r.after->invocations_median_s.size())),
        fmt::format("{}", args.noise_percent),
    };
    std::vector<std::string> quoted;
    for (const auto& f : fields) quoted.push_back(csv_field(f));
    out += fmt::format("{}\n", fmt::join(quoted, ","));
  }
  return out;
}

}  // namespace

ComparedResults read_and_compare(const std::vector<std::string>& paths,
                                 const std::vector<std::string>& command_line) {
  ComparedResults read;
  std::vector<ResultFile> files;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    files.push_back(read_result_file(paths[i], label_of(i)));
    if (files.back().steps.empty()) refuse(paths[i], "holds no result (an empty results list)");
    read.paths.push_back(files.back().path);
    read.labels.push_back(files.back().label);
    read.documents.push_back(files.back().document);
  }
  if (files.size() < 2) {
    read.not_compared = "one result file";
    return read;
  }
  const Comparison comparison =
      compare_files(std::move(files), stats::kNoisePercent, NothingInCommon::leave_out);
  if (comparison.rows.empty()) {
    read.not_compared = fmt::format("{}", fmt::join(comparison.files_not_compared, "; "));
  } else {
    read.comparison = compare_json(comparison, CompareArgs{}, command_line);
  }
  return read;
}

void add_compare_options(CLI::App* cmd, CompareArgs& args) {
  cmd->add_option("files", args.files,
                  "result files of acclab run or ladder --format json: the baseline first, then "
                  "one or more to compare with it");
  cmd->add_option("--format", args.format, "text (the default; table is the same), json or csv");
  cmd->add_option("--out", args.out, "write the report to FILE instead of stdout")
      ->check(non_empty_path());
  cmd->add_option("--noise", args.noise_percent,
                  fmt::format("the practical threshold, in percent (default {}): a difference of "
                              "medians within it is `same` however small its p",
                              stats::kNoisePercent))
      ->type_name("PCT");
  cmd->add_option("--fail-if-slower", args.fail_if_slower_percent,
                  "exit 1 when a step's verdict is slower (significant and beyond --noise) and "
                  "its ratio above 1 + PCT/100")
      ->type_name("PCT");
}

int compare_command(const CompareArgs& args, const std::vector<std::string>& command_line) {
  if (mpi::size() > 1) {
    // Every rank would write the same report to the same --out.
    throw UsageError("compare: reads files in one process, not under mpirun");
  }
  require_utf8_name("--format", args.format);
  if (args.format != "text" && args.format != "table" && args.format != "json" &&
      args.format != "csv") {
    throw UsageError(fmt::format("--format {}: expected text, json or csv", args.format));
  }
  if (args.files.size() < 2) {
    throw UsageError(fmt::format(
        "compare: {} result file{} given; it needs the baseline and at least one file to "
        "compare with it",
        args.files.size(), args.files.size() == 1 ? "" : "s"));
  }
  if (args.fail_if_slower_percent &&
      !(*args.fail_if_slower_percent >= 0 && std::isfinite(*args.fail_if_slower_percent))) {
    throw UsageError(fmt::format("--fail-if-slower {}: expected a percentage, 0 or more",
                                 *args.fail_if_slower_percent));
  }
  if (!(args.noise_percent >= 0 && std::isfinite(args.noise_percent))) {
    throw UsageError(
        fmt::format("--noise {}: expected a percentage, 0 or more", args.noise_percent));
  }
  // Before reading: the report must not replace one of the files it compares.
  if (!args.out.empty()) {
    const std::vector<std::filesystem::path> inputs(args.files.begin(), args.files.end());
    check_output_path("--out", args.out, inputs);
  }
  std::vector<ResultFile> files;
  for (std::size_t i = 0; i < args.files.size(); ++i) {
    files.push_back(read_result_file(args.files[i], label_of(i)));
  }
  const Comparison comparison = compare_files(std::move(files), args.noise_percent);

  const std::string text = args.format == "json"
                               ? json_text(compare_json(comparison, args, command_line), 2) + "\n"
                           : args.format == "csv" ? csv_text(comparison, args)
                                                  : compare_text(comparison, args);
  if (args.out.empty()) {
    std::cout << text;
    std::cout.flush();
  } else {
    AtomicFile out(args.out, "--out");
    out.write(text);
    out.commit();
  }

  if (!args.fail_if_slower_percent) return 0;
  const double limit = 1 + *args.fail_if_slower_percent / 100;
  std::vector<std::string> slower;
  for (const auto& r : comparison.rows) {
    if (r.comparison.verdict == stats::Verdict::slower && r.comparison.ratio > limit) {
      slower.push_back(fmt::format("{}/{} ({} {:.3f}x)", r.before->workload, r.before->variant,
                                   r.file->label, r.comparison.ratio));
    }
  }
  if (slower.empty()) return 0;
  print_error_line(
      fmt::format("compare: {} step{} slower than the baseline (significant, beyond the noise "
                  "threshold) by more than {}%: {}",
                  slower.size(), slower.size() == 1 ? "" : "s", *args.fail_if_slower_percent,
                  fmt::join(slower, ", ")));
  return 1;
}

}  // namespace acclab
