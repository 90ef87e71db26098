#include "core/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/run_file.hpp"

namespace acclab {

namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Code points: what a terminal advances for the table's text (no wide characters in it).
std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(
      text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::vector<std::string> output_items(const nlohmann::json& outputs) {
  std::vector<std::string> items;
  for (const auto& [key, value] : outputs.items()) {
    if (value.is_number_float()) {
      // Whole numbers as the course prints its mean (%5.2f), others with 4 significant digits.
      const double x = value.get<double>();
      items.push_back(x == std::floor(x) && std::abs(x) < 1e15
                          ? fmt::format("{} = {:.2f}", key, x)
                          : fmt::format("{} = {:.4g}", key, x));
    } else {
      items.push_back(fmt::format("{} = {}", key, json_text(value)));
    }
  }
  return items;
}

std::string outputs_text(const nlohmann::json& outputs) {
  return fmt::format("{}", fmt::join(output_items(outputs), ", "));
}

// A result's note beside its outputs: MPI layout, the runner's note, the error, the tuning.
std::vector<std::string> note_parts(const Result& r) {
  std::vector<std::string> parts;
  if (r.mpi.is_object() && r.mpi.contains("ranks")) {
    const int ranks = r.mpi["ranks"].get<int>();
    // Stencils exchange halos; apsp broadcasts panels.
    const bool halos = r.mpi.contains("halo_path");
    std::string mpi = fmt::format("{} rank{} ({}), {} {}", ranks, ranks == 1 ? "" : "s",
                                  r.mpi["proc_grid"].get<std::string>(), halos ? "halos" : "panels",
                                  r.mpi.value(halos ? "halo_path" : "panel_path", std::string("?")));
    if (r.mpi.contains("exchange_share")) {
      mpi += fmt::format(", exchange {:.0f}% of a run", 100 * r.mpi["exchange_share"].get<double>());
    }
    if (r.mpi.contains("broadcast_share")) {
      mpi += fmt::format(", broadcasts {:.0f}% of a run",
                         100 * r.mpi["broadcast_share"].get<double>());
    }
    parts.push_back(mpi);
  }
  const std::string tuning = tuning_name(*r.variant, r.params);
  const bool ran = r.status != Status::unavailable;
  // The runner's note joins its sentences with "; ": each is a part, so that one every row
  // shares ("no GPU: OpenACC ran on the host") is said once.
  for (std::size_t at = 0; at < r.note.size();) {
    const std::size_t end = std::min(r.note.find("; ", at), r.note.size());
    if (end > at) parts.push_back(r.note.substr(at, end - at));
    at = end + 2;
  }
  for (const auto& extra : {r.error, tuning == "default" || !ran ? std::string() : "tuning " + tuning}) {
    if (!extra.empty()) parts.push_back(extra);
  }
  return parts;
}

class TableReporter : public Reporter {
 public:
  explicit TableReporter(std::ostream& out) : out_(out) {}
  void report_context(const ReportContext& context) override { context_ = context; }
  void report_runs(const std::vector<Result>& results) override {
    results_.insert(results_.end(), results.begin(), results.end());
  }
  void finalize() override {
    if (context_.wide) {
      print_wide();
    } else {
      print_fitted(context_.table_width ? context_.table_width : terminal_width());
    }
    print_profiles(out_, results_);
  }

 private:
  // Every column, each row's whole note on its line: the table as it was before it fitted.
  void print_wide() {
    const bool ladder = context_.command == "ladder";
    std::string params = results_.empty() ? "" : json_text(results_.front().params.json());
    fmt::print(out_, "acclab {} {}  preset {}  {}{}\n", context_.command, context_.workload,
               context_.preset, params,
               context_.invocations > 1
                   ? fmt::format("  {} invocations (median: of their medians)",
                                 context_.invocations)
                   : "");
    std::string gpus = context_.devices.empty()
                           ? "no GPU"
                           : fmt::format("{} x {}", context_.devices.size(),
                                         context_.devices[0].value("name", "GPU"));
    std::string limits;
    if (context_.limits.contains("host_copy_gbytes_per_s")) {
      limits += fmt::format("  host copy {:.1f} GB/s",
                            context_.limits["host_copy_gbytes_per_s"].get<double>());
    }
    if (context_.limits.contains("device_copy_gbytes_per_s")) {
      limits += fmt::format("  device copy {:.1f} GB/s",
                            context_.limits["device_copy_gbytes_per_s"].get<double>());
    }
    fmt::print(out_, "host {} ({} cores)  {}{}\n\n", context_.host.value("cpu", "?"),
               context_.host.value("cores", 0), gpus, limits);

    // The text columns as wide as their longest entry (at least as before), so rows line up.
    std::size_t family_w = 8, name_w = 18, backend_w = 8;
    for (const auto& r : results_) {
      family_w = std::max(family_w, r.variant->family.size());
      name_w = std::max(name_w, r.variant->name.size());
      backend_w = std::max(backend_w, std::string(to_string(r.variant->backend)).size());
    }
    const std::string columns = fmt::format(
        "{{:<{}}} {{:<{}}} {{:<{}}} {{:>4}} {{:>10}} {{:>10}} {{:>10}} {{:>10}} {{:>6}} {{:>9}} "
        "{{:>9}} {{:>7}}",
        family_w, name_w, backend_w);
    fmt::print(out_, fmt::runtime(columns), "family", "variant", "backend", "step", "median",
               "min", "max", "xfer", "xfer%", "GFLOP/s", "GB/s", "%limit");
    if (ladder) fmt::print(out_, " {:>8} {:>8}", "vs 1st", "vs prev");
    fmt::print(out_, "  {:<11} {}\n", "status", "note");

    auto dash = [](bool have, auto&& f) { return have ? f() : std::string("-"); };
    for (const auto& r : results_) {
      const bool timed = !r.times_s.empty();
      fmt::print(
          out_, fmt::runtime(columns),
          r.variant->family, r.variant->name, to_string(r.variant->backend), r.variant->step,
          dash(timed, [&] { return format_seconds(r.median_s); }),
          dash(timed, [&] { return format_seconds(r.min_s); }),
          dash(timed, [&] { return format_seconds(r.max_s); }),
          dash(timed && r.transfer_s.has_value(), [&] { return format_seconds(*r.transfer_s); }),
          dash(timed && r.transfer_share().has_value(),
               [&] { return fmt::format("{:.1f}", 100 * *r.transfer_share()); }),
          dash(timed && r.gflops > 0, [&] { return fmt::format("{:.2f}", r.gflops); }),
          dash(timed && r.gbytes_per_s > 0, [&] { return fmt::format("{:.1f}", r.gbytes_per_s); }),
          dash(r.limit_fraction.has_value(),
               [&] { return fmt::format("{:.1f}", 100 * *r.limit_fraction); }));
      if (ladder) {
        // "~": within noise, as compute_ladder_speedups decided.
        const auto speedup = [&](const std::optional<double>& value,
                                 const std::optional<Result::SpeedupCheck>& check) {
          return dash(value.has_value(), [&] {
            return fmt::format("{}{:.2f}x", check && check->within_noise ? "~" : "", *value);
          });
        };
        fmt::print(out_, " {:>8} {:>8}", speedup(r.speedup_vs_first, r.speedup_vs_first_check),
                   speedup(r.speedup_vs_previous, r.speedup_vs_previous_check));
      }
      std::string note = outputs_text(r.outputs);
      const bool mpi = r.mpi.is_object() && r.mpi.contains("ranks");
      const auto parts = note_parts(r);
      for (std::size_t i = 0; i < parts.size(); ++i) {
        // The MPI part follows its "; " even where no outputs precede it.
        note += (note.empty() && !(mpi && i == 0) ? "" : "; ") + parts[i];
      }
      fmt::print(out_, "  {:<11} {}\n", to_string(r.status), note);
    }
    fmt::print(out_,
               "\nmedian/min/max over the timed runs; xfer = data movement of one run, measured "
               "alone (compute = median - xfer), xfer% its share;\n%limit = GB/s over the "
               "copy bandwidth where it ran\n");
    if (ladder) {
      fmt::print(out_,
                 "vs 1st / vs prev: speedup against the family's first and previous verified "
                 "step (unavailable and failed steps are skipped, and steps that computed part "
                 "of the result: computed_fraction < 1)\n");
      fmt::print(out_,
                 "~ within noise: {} not told apart (U test) or medians less than {}% apart "
                 "(--noise); intervals in json, csv\n",
                 context_.invocations > 1 ? "invocations" : "runs",
                 context_.noise_percent.value_or(stats::kNoisePercent));
    }
  }

  void print_fitted(std::size_t width);

  std::ostream& out_;
  ReportContext context_;
  std::vector<Result> results_;
};

void TableReporter::print_fitted(std::size_t width) {
  const bool ladder = context_.command == "ladder";
  const std::size_t rows = results_.size();

  // The run's heading, its parameters as key=value words so that it wraps between them.
  std::string params;
  if (!results_.empty()) {
    for (const auto& [key, value] : results_.front().params.json().items()) {
      params += fmt::format(" {}={}", key, value.is_string() ? value.get<std::string>()
                                                             : json_text(value));
    }
  }
  out_ << wrap_text(fmt::format("acclab {} {}  preset {} {}{}", context_.command,
                                context_.workload, context_.preset, params,
                                context_.invocations > 1
                                    ? fmt::format("  {} invocations (median: of their medians)",
                                                  context_.invocations)
                                    : ""),
                    width, "  ");
  std::string machine = fmt::format("host {} ({} cores)  ", context_.host.value("cpu", "?"),
                                    context_.host.value("cores", 0));
  machine += context_.devices.empty()
                 ? "no GPU"
                 : fmt::format("{} x {}", context_.devices.size(),
                               context_.devices[0].value("name", "GPU"));
  if (context_.limits.contains("host_copy_gbytes_per_s")) {
    machine += fmt::format("  host copy {:.1f} GB/s",
                           context_.limits["host_copy_gbytes_per_s"].get<double>());
  }
  if (context_.limits.contains("device_copy_gbytes_per_s")) {
    machine += fmt::format("  device copy {:.1f} GB/s",
                           context_.limits["device_copy_gbytes_per_s"].get<double>());
  }
  out_ << wrap_text(machine, width, "  ") << '\n';

  // Notes: each row's outputs and note parts; a part every row has is said once, the others
  // numbered in the order they first appear, equal texts under one number.
  std::vector<std::vector<std::string>> items(rows), parts(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    items[i] = output_items(results_[i].outputs);
    parts[i] = note_parts(results_[i]);
  }
  const auto everywhere = [&](const std::vector<std::vector<std::string>>& lists,
                              const std::string& text) {
    return std::all_of(lists.begin(), lists.end(), [&](const auto& list) {
      return std::find(list.begin(), list.end(), text) != list.end();
    });
  };
  std::vector<std::string> shared, numbered;
  std::vector<std::string> refs(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    std::vector<std::string> own_items, row_notes;
    for (const auto& item : items[i]) {
      if (!everywhere(items, item)) {
        own_items.push_back(item);
      } else if (std::find(shared.begin(), shared.end(), item) == shared.end()) {
        shared.push_back(item);
      }
    }
    if (!own_items.empty()) row_notes.push_back(fmt::format("{}", fmt::join(own_items, ", ")));
    for (const auto& part : parts[i]) {
      if (!everywhere(parts, part)) {
        row_notes.push_back(part);
      } else if (std::find(shared.begin(), shared.end(), part) == shared.end()) {
        shared.push_back(part);
      }
    }
    std::vector<std::size_t> numbers;
    for (const auto& note : row_notes) {
      auto at = std::find(numbered.begin(), numbered.end(), note);
      if (at == numbered.end()) at = numbered.insert(numbered.end(), note);
      numbers.push_back(static_cast<std::size_t>(at - numbered.begin()) + 1);
    }
    if (!numbers.empty()) refs[i] = fmt::format("[{}]", fmt::join(numbers, ","));
  }

  // The columns, each with its cells; "-" where a row has no value.
  struct Column {
    std::string header;
    bool left = false;  // text left-aligned, numbers right-aligned
    std::vector<std::string> cells;
    bool shown = true;
  };
  const auto dash = [](bool have, auto&& f) { return have ? f() : std::string("-"); };
  const auto column = [&](std::string header, bool left, auto&& cell) {
    Column c{std::move(header), left, {}, true};
    for (const auto& r : results_) c.cells.push_back(cell(r));
    return c;
  };
  const auto speedup = [&](const std::optional<double>& value,
                           const std::optional<Result::SpeedupCheck>& check) {
    // "~": within noise, as compute_ladder_speedups decided.
    return dash(value.has_value(), [&] {
      return fmt::format("{}{:.2f}x", check && check->within_noise ? "~" : "", *value);
    });
  };
  std::vector<Column> columns;
  columns.push_back(column("family", true, [](const Result& r) { return r.variant->family; }));
  columns.push_back(column("variant", true, [](const Result& r) { return r.variant->name; }));
  columns.push_back(column("backend", true, [](const Result& r) {
    return std::string(to_string(r.variant->backend));
  }));
  columns.push_back(
      column("step", false, [](const Result& r) { return std::to_string(r.variant->step); }));
  const auto timed = [](const Result& r) { return !r.times_s.empty(); };
  columns.push_back(column("median", false, [&](const Result& r) {
    return dash(timed(r), [&] { return format_seconds(r.median_s); });
  }));
  columns.push_back(column("min", false, [&](const Result& r) {
    return dash(timed(r), [&] { return format_seconds(r.min_s); });
  }));
  columns.push_back(column("max", false, [&](const Result& r) {
    return dash(timed(r), [&] { return format_seconds(r.max_s); });
  }));
  columns.push_back(column("xfer", false, [&](const Result& r) {
    return dash(timed(r) && r.transfer_s.has_value(),
                [&] { return format_seconds(*r.transfer_s); });
  }));
  columns.push_back(column("xfer%", false, [&](const Result& r) {
    return dash(timed(r) && r.transfer_share().has_value(),
                [&] { return fmt::format("{:.1f}", 100 * *r.transfer_share()); });
  }));
  columns.push_back(column("GFLOP/s", false, [&](const Result& r) {
    return dash(timed(r) && r.gflops > 0, [&] { return fmt::format("{:.2f}", r.gflops); });
  }));
  columns.push_back(column("GB/s", false, [&](const Result& r) {
    return dash(timed(r) && r.gbytes_per_s > 0,
                [&] { return fmt::format("{:.1f}", r.gbytes_per_s); });
  }));
  columns.push_back(column("%limit", false, [&](const Result& r) {
    return dash(r.limit_fraction.has_value(),
                [&] { return fmt::format("{:.1f}", 100 * *r.limit_fraction); });
  }));
  if (ladder) {
    columns.push_back(column("vs 1st", false, [&](const Result& r) {
      return speedup(r.speedup_vs_first, r.speedup_vs_first_check);
    }));
    columns.push_back(column("vs prev", false, [&](const Result& r) {
      return speedup(r.speedup_vs_previous, r.speedup_vs_previous_check);
    }));
  }
  columns.push_back(
      column("status", true, [](const Result& r) { return std::string(to_string(r.status)); }));
  std::size_t row = 0;
  columns.push_back(column("note", true, [&](const Result&) { return refs[row++]; }));

  // A column without a value in any row says nothing: left out (the names and status stay).
  const auto named = [&](const std::string& header) -> Column& {
    return *std::find_if(columns.begin(), columns.end(),
                         [&](const Column& c) { return c.header == header; });
  };
  for (auto& c : columns) {
    const bool kept = c.header == "family" || c.header == "variant" || c.header == "backend" ||
                      c.header == "step" || c.header == "median" || c.header == "status";
    const bool empty = std::all_of(c.cells.begin(), c.cells.end(),
                                   [](const std::string& v) { return v.empty() || v == "-"; });
    if (!kept && empty) c.shown = false;
  }

  const auto render = [&](std::vector<std::string>* lines) {
    std::vector<std::size_t> widths;
    for (const auto& c : columns) {
      std::size_t w = c.header.size();
      for (const auto& v : c.cells) w = std::max(w, display_width(v));
      widths.push_back(w);
    }
    std::size_t longest = 0;
    for (std::size_t line = 0; line <= rows; ++line) {
      std::string text;
      for (std::size_t k = 0; k < columns.size(); ++k) {
        const Column& c = columns[k];
        if (!c.shown) continue;
        if (!text.empty()) text += c.header == "status" ? "  " : " ";
        const std::string& v = line == 0 ? c.header : c.cells[line - 1];
        const bool last = c.header == "note";
        text += c.left ? (last ? v : fmt::format("{:<{}}", v, widths[k]))
                       : fmt::format("{:>{}}", v, widths[k]);
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      longest = std::max(longest, text.size());
      if (lines) lines->push_back(text);
    }
    return longest;
  };

  // Too wide: the columns the JSON and CSV (and --wide) keep are left out, least read first.
  std::vector<std::string> dropped;
  for (const char* header : {"min", "max", "xfer", "backend", "GFLOP/s", "family", "GB/s"}) {
    if (render(nullptr) <= width) break;
    Column& c = named(header);
    if (!c.shown) continue;
    c.shown = false;
    dropped.push_back(header);
  }
  std::vector<std::string> lines;
  render(&lines);
  for (const auto& line : lines) out_ << line << '\n';

  if (!numbered.empty() || !shared.empty()) out_ << '\n';
  if (!shared.empty()) {
    out_ << wrap_text(fmt::format("{}{}", rows > 1 ? "every row: " : "note: ",
                                  fmt::join(shared, "; ")),
                      width, "  ");
  }
  for (std::size_t i = 0; i < numbered.size(); ++i) {
    const std::string mark = fmt::format("[{}] ", i + 1);
    out_ << wrap_text(mark + numbered[i], width, std::string(mark.size(), ' '));
  }

  // What the columns shown mean.
  const auto shown = [&](const std::string& header) { return named(header).shown; };
  std::vector<std::string> legend;
  legend.push_back(shown("min") || shown("max") ? "median/min/max over the timed runs"
                                                : "median over the timed runs");
  if (shown("xfer") || shown("xfer%")) {
    legend.push_back(
        "xfer = data movement of one run, measured alone (compute = median - xfer), xfer% its "
        "share");
  }
  if (shown("%limit")) legend.push_back("%limit = GB/s over the copy bandwidth where it ran");
  out_ << '\n' << wrap_text(fmt::format("{}", fmt::join(legend, "; ")), width);
  if (ladder) {
    out_ << wrap_text(
        "vs 1st / vs prev: speedup against the family's first and previous verified step "
        "(unavailable and failed steps are skipped, and steps that computed part of the "
        "result: computed_fraction < 1)",
        width);
    out_ << wrap_text(
        fmt::format("~ within noise: {} not told apart (U test) or medians less than {}% apart "
                    "(--noise); intervals in json, csv",
                    context_.invocations > 1 ? "invocations" : "runs",
                    context_.noise_percent.value_or(stats::kNoisePercent)),
        width);
  }
  if (!dropped.empty()) {
    out_ << wrap_text(fmt::format("left out to fit {} columns: {} (--wide, json and csv have "
                                  "them)",
                                  width, fmt::join(dropped, ", ")),
                      width);
  }
}

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void report_context(const ReportContext& context) override { context_ = context; }
  void report_runs(const std::vector<Result>& results) override {
    results_.insert(results_.end(), results.begin(), results.end());
  }
  void finalize() override { out_ << json_text(run_document(context_, results_), 2) << '\n'; }

 private:
  std::ostream& out_;
  ReportContext context_;
  std::vector<Result> results_;
};

class CsvReporter : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}
  void report_context(const ReportContext&) override {}
  void report_runs(const std::vector<Result>& results) override {
    results_.insert(results_.end(), results.begin(), results.end());
  }
  void finalize() override {
    static const char* columns[] = {"workload",
                                    "variant",
                                    "backend",
                                    "family",
                                    "step",
                                    "params",
                                    "tuning",
                                    "reps",
                                    "min_s",
                                    "median_s",
                                    "max_s",
                                    "setup_s",
                                    "transfer_s",
                                    "transfer_share",
                                    "compute_s",
                                    "copy_out_s",
                                    "gflops",
                                    "gbytes_per_s",
                                    "limit_fraction",
                                    "speedup_vs_first",
                                    "speedup_vs_first_low",
                                    "speedup_vs_first_high",
                                    "speedup_vs_first_within_noise",
                                    "speedup_vs_previous",
                                    "speedup_vs_previous_low",
                                    "speedup_vs_previous_high",
                                    "speedup_vs_previous_within_noise",
                                    "status",
                                    "error",
                                    "note"};
    out_ << fmt::format("{}", fmt::join(columns, ",")) << '\n';
    for (const auto& r : results_) {
      auto j = result_to_json(r);
      std::vector<std::string> fields;
      for (const std::string key : columns) {
        std::string value;
        if (key == "min_s" || key == "median_s" || key == "max_s") {
          value = json_text(j["time_s"][key.substr(0, key.size() - 2)]);
        } else if (key == "params") {
          value = json_text(j["params"]);
        } else if (key.ends_with("_low") || key.ends_with("_high")) {
          const bool low = key.ends_with("_low");
          const auto interval =
              j.value(key.substr(0, key.rfind('_')) + "_interval", nlohmann::json());
          value = interval.is_array() ? json_text(interval[low ? 0 : 1]) : "";
        } else {
          const auto v = j.value(key, nlohmann::json());
          value = v.is_string() ? v.get<std::string>() : json_text(v);
        }
        if (value == "null") value.clear();
        fields.push_back(csv_field(value));
      }
      const std::string line = fmt::format("{}", fmt::join(fields, ","));
      out_ << line << '\n';
    }
  }

 private:
  std::ostream& out_;
  std::vector<Result> results_;
};

}  // namespace

nlohmann::json run_document(const ReportContext& context, const std::vector<Result>& results) {
  nlohmann::json document = nlohmann::json::object();
  document["schema"] = kRunSchema;
  document["command"] = context.command;
  document["workload"] = context.workload;
  document["preset"] = context.preset;
  document["host"] = context.host;
  document["devices"] = context.devices;
  document["compiler"] = context.compiler;
  document["build"] = context.build;
  document["command_line"] = context.command_line;
  document["openacc_runs_on"] = context.openacc_runs_on;
  if (!context.omptarget_runs_on.empty()) document["omptarget_runs_on"] = context.omptarget_runs_on;
  document["limits"] = context.limits;
  if (context.noise_percent) document["noise_percent"] = *context.noise_percent;
  if (context.invocations > 1) document["invocations"] = context.invocations;
  document["results"] = nlohmann::json::array();
  for (const auto& r : results) document["results"].push_back(result_to_json(r));
  return document;
}

nlohmann::json result_to_json(const Result& r) {
  const bool timed = !r.times_s.empty();
  nlohmann::json j = {
      {"workload", r.variant->workload},
      {"variant", r.variant->name},
      {"backend", to_string(r.variant->backend)},
      {"family", r.variant->family},
      {"step", r.variant->step},
      {"params", r.params.json()},
      {"tuning", tuning_name(*r.variant, r.params)},
      {"reps", r.reps},
      {"place", r.place == Place::gpu ? "gpu" : "host"},
      {"precision", to_string(r.variant->model.precision)},
      {"time_s", timed ? nlohmann::json{{"min", r.min_s}, {"median", r.median_s}, {"max", r.max_s}}
                       : nlohmann::json{{"min", nullptr}, {"median", nullptr}, {"max", nullptr}}},
      {"times_s", r.times_s},
      {"setup_s", timed ? nlohmann::json(r.setup_s) : nlohmann::json(nullptr)},
      {"transfer_s", optional_json(r.transfer_s)},
      {"transfer_share", optional_json(r.transfer_share())},
      {"compute_s", r.transfer_s && timed
                        ? nlohmann::json(std::max(0.0, r.median_s - *r.transfer_s))
                        : (timed ? nlohmann::json(r.median_s) : nlohmann::json(nullptr))},
      {"copy_out_s", timed ? nlohmann::json(r.copy_out_s) : nlohmann::json(nullptr)},
      {"gflops", timed ? nlohmann::json(r.gflops) : nlohmann::json(nullptr)},
      {"gbytes_per_s", timed ? nlohmann::json(r.gbytes_per_s) : nlohmann::json(nullptr)},
      {"limit_gbytes_per_s", optional_json(r.limit_gbytes_per_s)},
      {"limit_fraction", optional_json(r.limit_fraction)},
      {"status", to_string(r.status)},
      {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
      {"note", r.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.note)},
      {"verification",
       r.verification.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.verification)},
      {"outputs", r.outputs},
  };
  if (r.profile) {
    nlohmann::json regions = nlohmann::json::array();
    for (const auto& region : r.profile->regions) regions.push_back(region.json());
    j["profile"] = {{"openacc_callbacks", r.profile->openacc_callbacks},
                    {"regions", regions},
                    {"notes", profile_notes(r)}};
  }
  if (!r.mpi.is_null()) j["mpi"] = r.mpi;
  if (!r.invocations_median_s.empty()) j["invocations_median_s"] = r.invocations_median_s;
  const auto check = [&](const char* name, const std::optional<Result::SpeedupCheck>& c) {
    if (!c) return;
    j[fmt::format("{}_interval", name)] = {c->low, c->high};
    j[fmt::format("{}_within_noise", name)] = c->within_noise;
  };
  if (r.speedup_vs_first) j["speedup_vs_first"] = *r.speedup_vs_first;
  check("speedup_vs_first", r.speedup_vs_first_check);
  if (r.speedup_vs_previous) {
    j["speedup_vs_previous"] = *r.speedup_vs_previous;
    j["previous_variant"] = r.previous_variant;
  }
  check("speedup_vs_previous", r.speedup_vs_previous_check);
  return j;
}

std::vector<std::string> profile_notes(const Result& r) {
  std::vector<std::string> notes;
  if (!r.profile) return notes;
  const profile::Profile& p = *r.profile;
  using profile::Counter;
  if (!p.openacc_callbacks && r.variant->backend != Backend::openacc) {
    notes.push_back("this acclab was built without OpenACC: no OpenACC events are available");
  }
  switch (r.variant->backend) {
    case Backend::serial:
    case Backend::openmp:
      notes.push_back("a CPU variant: no OpenACC or CUDA events, only acclab's labelled regions");
      break;
    case Backend::openacc:
      if (!p.openacc_callbacks) {
        notes.push_back("this acclab was built without OpenACC: no OpenACC events");
        break;
      }
      if (p.acc_launch_total() == 0) {
        notes.push_back(r.place == Place::host
                            ? "kernel launches: not reported on the host fallback (libgomp "
                              "raises launch events only when it offloads to a GPU)"
                            : "kernel launches: none reported by the OpenACC runtime");
      }
      if (p.acc_launch_total() > 0) {
        // The step's own launches: those of its timed runs where the runner labelled them, so
        // that the harness's reset between runs (a wide copy) does not hide a one-gang step.
        const auto timed = [](const profile::RegionProfile& region) {
          return region.path.find("/timed runs") != std::string::npos;
        };
        const bool any_timed = std::any_of(p.regions.begin(), p.regions.end(), [&](const auto& r) {
          return timed(r) && !r.acc_launches.empty();
        });
        std::uint64_t most_gangs = 0;
        for (const auto& region : p.regions) {
          if (any_timed && !timed(region)) continue;
          for (const auto& [launch, stats] : region.acc_launches) {
            most_gangs = std::max(most_gangs, launch.num_gangs);
          }
        }
        if (most_gangs == 1) {
          notes.push_back(
              "every kernel launch of the timed runs ran on one gang (num_gangs = 1): the "
              "compiler gave the loops no gang parallelism (acclab explain shows its decisions)");
        }
      }
      if (p.total(Counter::upload) + p.total(Counter::download) == 0) {
        notes.push_back(
            "uploads/downloads: not reported by the OpenACC runtime (GCC's libgomp raises no "
            "upload/download events for data clauses); xfer in the results is the measured "
            "transfer time");
      }
      break;
    case Backend::omptarget:
      // GCC 12's libgomp implements no OMPT interface: no callback reports a target region's
      // launch, its teams or its data movement.
      notes.push_back(
          "OpenMP target: GCC 12's libgomp has no OMPT, so no per-launch timing or data-movement "
          "events; only acclab's labelled regions (GOMP_DEBUG=1 prints each launch's teams and "
          "threads)");
      break;
    case Backend::cuda:
      notes.push_back(
          "CUDA: device times from CUDA events around the kernel launches and copies that "
          "acclab's CUDA code wraps; other CUDA work is not shown");
      if (p.cuda_kernel_total() == 0 && p.total(Counter::cuda_host_to_device) == 0 &&
          p.total(Counter::cuda_device_to_host) == 0 &&
          p.total(Counter::cuda_device_to_device) == 0) {
        notes.push_back("this variant's CUDA code is not instrumented yet");
      }
      break;
  }
  return notes;
}

void print_profiles(std::ostream& out, const std::vector<Result>& results) {
  using profile::Counter;
  using profile::Stats;
  bool any = false;
  for (const auto& r : results) any = any || r.profile.has_value();
  if (!any) return;
  fmt::print(out,
             "\nprofile: per region (labelled by acclab: VARIANT/PHASE/LABEL), like PGI_ACC_TIME; "
             "OpenACC times are host\nelapsed times between the runtime's start and end events, "
             "CUDA times device times between CUDA events\n");
  auto us = [](double seconds) { return fmt::format("{:.1f}", seconds * 1e6); };
  auto row = [&](const std::string& what, const Stats& s, const std::string& extra) {
    fmt::print(out, "    {:<26} {:>8} {:>12} {:>10} {:>10} {:>10}{}\n", what, s.count,
               us(s.total_s), us(s.max_s), us(s.min_s), us(s.avg_s()),
               extra.empty() ? "" : "  " + extra);
  };
  auto bytes_text = [](std::uint64_t bytes) {
    return bytes >= 1e6 ? fmt::format("{:.2f} MB", bytes / 1e6) : fmt::format("{} B", bytes);
  };
  const std::pair<Counter, const char*> rows[] = {
      {Counter::region, "region entered"},
      {Counter::device_init, "device init"},
      {Counter::compute_construct, "compute construct reached"},
      {Counter::enter_data, "enter data"},
      {Counter::exit_data, "exit data"},
      {Counter::update, "update"},
      {Counter::upload, "upload"},
      {Counter::download, "download"},
      {Counter::wait, "wait"},
      {Counter::cuda_host_to_device, "copy host to device"},
      {Counter::cuda_device_to_host, "copy device to host"},
      {Counter::cuda_device_to_device, "copy device to device"},
  };
  for (const auto& r : results) {
    if (!r.profile) continue;
    fmt::print(out, "\n{}  ({}, ran on the {})\n", r.variant->id(), to_string(r.variant->backend),
               r.place == Place::gpu ? "GPU" : "host");
    fmt::print(out, "    {:<26} {:>8} {:>12} {:>10} {:>10} {:>10}\n", "event", "count", "total µs",
               "max µs", "min µs", "avg µs");
    for (const auto& region : r.profile->regions) {
      fmt::print(out, "  {}\n", region.path);
      for (const auto& [counter, name] : rows) {
        const Stats& s = region[counter];
        if (s.count == 0) continue;
        const bool moves = counter == Counter::upload || counter == Counter::download ||
                           counter >= Counter::cuda_host_to_device;
        row(name, s, moves ? bytes_text(s.bytes) : "");
        if (counter == Counter::compute_construct) {
          for (const auto& [launch, stats] : region.acc_launches) {
            row("kernel launched", stats,
                fmt::format("{}  gangs {} workers {} vector {}", launch.kernel, launch.num_gangs,
                            launch.num_workers, launch.vector_length));
          }
        }
      }
      if (region[Counter::compute_construct].count == 0) {  // launches without their construct
        for (const auto& [launch, stats] : region.acc_launches) {
          row("kernel launched", stats,
              fmt::format("{}  gangs {} workers {} vector {}", launch.kernel, launch.num_gangs,
                          launch.num_workers, launch.vector_length));
        }
      }
      for (const auto& [launch, stats] : region.cuda_kernels) {
        row("cuda kernel", stats,
            fmt::format("{}  grid [{}x{}x{}] block [{}x{}x{}] (device time)", launch.kernel,
                        launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
                        launch.block[1], launch.block[2]));
      }
    }
    for (const auto& note : profile_notes(r)) fmt::print(out, "  note: {}\n", note);
  }
}

std::unique_ptr<Reporter> make_reporter(const std::string& format, std::ostream& out) {
  if (format == "table") return std::make_unique<TableReporter>(out);
  if (format == "json") return std::make_unique<JsonReporter>(out);
  if (format == "csv") return std::make_unique<CsvReporter>(out);
  throw UsageError(fmt::format("--format {}: expected table, json or csv", format));
}

}  // namespace acclab
