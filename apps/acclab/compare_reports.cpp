#include "apps/acclab/compare_reports.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "core/safe_text.hpp"
#include "core/text_format.hpp"

namespace acclab::compare {

namespace {

nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
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
std::string count_text(const Row& r, const RunStep& step) {
  return r.tested == Tested::invocations ? fmt::format("{} inv", step.invocations_median_s.size())
                                         : std::to_string(step.times_s.size());
}

}  // namespace

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
      line(
          "tested: the repetitions of one process on each side (run --invocations N tests N "
          "processes)");
    } else if (by_repetitions == 0) {
      line("tested: the invocations (each process's median) on each side");
    } else {
      line(
          fmt::format("tested: the invocations (each process's median) where reps says inv, "
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

}  // namespace acclab::compare
