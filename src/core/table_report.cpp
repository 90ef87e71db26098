// The console table of acclab run and ladder (table_report.hpp).
#include "core/table_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace acclab {

namespace {

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

// " 3 invocations (median: of their medians)" after the heading where a run has several.
std::string invocations_text(const ReportContext& context) {
  return context.invocations > 1
             ? fmt::format("  {} invocations (median: of their medians)", context.invocations)
             : "";
}

// The machine the table was measured on: host, GPUs, the copy limits %limit divides by.
std::string machine_text(const ReportContext& context) {
  std::string machine = fmt::format("host {} ({} cores)  ", context.host.value("cpu", "?"),
                                    context.host.value("cores", 0));
  machine += context.devices.empty() ? "no GPU"
                                     : fmt::format("{} x {}", context.devices.size(),
                                                   context.devices[0].value("name", "GPU"));
  if (context.limits.contains("host_copy_gbytes_per_s")) {
    machine += fmt::format("  host copy {:.1f} GB/s",
                           context.limits["host_copy_gbytes_per_s"].get<double>());
  }
  if (context.limits.contains("device_copy_gbytes_per_s")) {
    machine += fmt::format("  device copy {:.1f} GB/s",
                           context.limits["device_copy_gbytes_per_s"].get<double>());
  }
  return machine;
}

// "-" where a row has no value.
std::string dash(bool have, auto&& text) { return have ? text() : std::string("-"); }

// A ladder speedup; "~": within noise, as compute_ladder_speedups decided.
std::string speedup_text(const std::optional<double>& value,
                         const std::optional<Result::SpeedupCheck>& check) {
  return dash(value.has_value(), [&] {
    return fmt::format("{}{:.2f}x", check && check->within_noise ? "~" : "", *value);
  });
}

// The fitted table's notes: what every row shares is said once under the table, each other
// note numbered in the order it first appears (equal texts under one number) and each row
// referring to its numbers, so that long notes do not widen the rows.
struct FittedNotes {
  std::vector<std::string> shared;
  std::vector<std::string> numbered;
  std::vector<std::string> refs;  // a row's "[1,3]", empty where it has none
};

FittedNotes fitted_notes(const std::vector<Result>& results) {
  const std::size_t rows = results.size();
  std::vector<std::vector<std::string>> items(rows), parts(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    items[i] = output_items(results[i].outputs);
    parts[i] = note_parts(results[i]);
  }
  const auto everywhere = [&](const std::vector<std::vector<std::string>>& lists,
                              const std::string& text) {
    return std::all_of(lists.begin(), lists.end(), [&](const auto& list) {
      return std::find(list.begin(), list.end(), text) != list.end();
    });
  };
  FittedNotes notes;
  notes.refs.resize(rows);
  auto& shared = notes.shared;
  auto& numbered = notes.numbered;
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
    if (!numbers.empty()) notes.refs[i] = fmt::format("[{}]", fmt::join(numbers, ","));
  }
  return notes;
}

// A column of the fitted table with its cells, one a row.
struct Column {
  std::string header;
  bool left = false;  // text left-aligned, numbers right-aligned
  std::vector<std::string> cells;
  bool shown = true;
};

Column& column_named(std::vector<Column>& columns, const std::string& header) {
  return *std::find_if(columns.begin(), columns.end(),
                       [&](const Column& c) { return c.header == header; });
}

// Every column the fitted table may show, in --wide's order.
std::vector<Column> fitted_columns(const std::vector<Result>& results, bool ladder,
                                   const std::vector<std::string>& refs) {
  const auto column = [&](std::string header, bool left, auto&& cell) {
    Column c{std::move(header), left, {}, true};
    for (const auto& r : results) c.cells.push_back(cell(r));
    return c;
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
    columns.push_back(column("vs 1st", false, [](const Result& r) {
      return speedup_text(r.speedup_vs_first, r.speedup_vs_first_check);
    }));
    columns.push_back(column("vs prev", false, [](const Result& r) {
      return speedup_text(r.speedup_vs_previous, r.speedup_vs_previous_check);
    }));
  }
  columns.push_back(
      column("status", true, [](const Result& r) { return std::string(to_string(r.status)); }));
  columns.push_back(Column{"note", true, refs, true});

  // A column without a value in any row says nothing: left out (the names and status stay).
  for (auto& c : columns) {
    const bool kept = c.header == "family" || c.header == "variant" || c.header == "backend" ||
                      c.header == "step" || c.header == "median" || c.header == "status";
    const bool empty = std::all_of(c.cells.begin(), c.cells.end(),
                                   [](const std::string& v) { return v.empty() || v == "-"; });
    if (!kept && empty) c.shown = false;
  }
  return columns;
}

// The shown columns' header line and rows, each column as wide as its widest cell; returns the
// longest line's width, so that a caller can try a choice of columns without printing it.
std::size_t render_columns(const std::vector<Column>& columns, std::size_t rows,
                           std::vector<std::string>* lines) {
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
}

// Too wide: the columns the JSON and CSV (and --wide) keep are left out, least read first.
// Returns the headers left out.
std::vector<std::string> drop_columns_to_fit(std::vector<Column>& columns, std::size_t rows,
                                             std::size_t width) {
  std::vector<std::string> dropped;
  for (const char* header : {"min", "max", "xfer", "backend", "GFLOP/s", "family", "GB/s"}) {
    if (render_columns(columns, rows, nullptr) <= width) break;
    Column& c = column_named(columns, header);
    if (!c.shown) continue;
    c.shown = false;
    dropped.push_back(header);
  }
  return dropped;
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
               context_.preset, params, invocations_text(context_));
    fmt::print(out_, "{}\n\n", machine_text(context_));

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
        fmt::print(out_, " {:>8} {:>8}", speedup_text(r.speedup_vs_first, r.speedup_vs_first_check),
                   speedup_text(r.speedup_vs_previous, r.speedup_vs_previous_check));
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
      fmt::print(out_, "{}\n", noise_legend());
    }
  }

  // The columns that fit `width`, notes as numbered footnotes under the table.
  void print_fitted(std::size_t width) {
    print_fitted_heading(width);
    const FittedNotes notes = fitted_notes(results_);
    std::vector<Column> columns =
        fitted_columns(results_, context_.command == "ladder", notes.refs);
    const std::vector<std::string> dropped = drop_columns_to_fit(columns, results_.size(), width);
    std::vector<std::string> lines;
    render_columns(columns, results_.size(), &lines);
    for (const auto& line : lines) out_ << line << '\n';
    print_footnotes(notes, width);
    print_fitted_legend(columns, dropped, width);
  }

  // The run's heading, its parameters as key=value words so that it wraps between them.
  void print_fitted_heading(std::size_t width) {
    std::string params;
    if (!results_.empty()) {
      for (const auto& [key, value] : results_.front().params.json().items()) {
        params += fmt::format(" {}={}", key, value.is_string() ? value.get<std::string>()
                                                               : json_text(value));
      }
    }
    out_ << wrap_text(fmt::format("acclab {} {}  preset {} {}{}", context_.command,
                                  context_.workload, context_.preset, params,
                                  invocations_text(context_)),
                      width, "  ");
    out_ << wrap_text(machine_text(context_), width, "  ") << '\n';
  }

  void print_footnotes(const FittedNotes& notes, std::size_t width) {
    if (!notes.numbered.empty() || !notes.shared.empty()) out_ << '\n';
    if (!notes.shared.empty()) {
      out_ << wrap_text(fmt::format("{}{}", results_.size() > 1 ? "every row: " : "note: ",
                                    fmt::join(notes.shared, "; ")),
                        width, "  ");
    }
    for (std::size_t i = 0; i < notes.numbered.size(); ++i) {
      const std::string mark = fmt::format("[{}] ", i + 1);
      out_ << wrap_text(mark + notes.numbered[i], width, std::string(mark.size(), ' '));
    }
  }

  // What the columns shown mean, and which were left out to fit.
  void print_fitted_legend(std::vector<Column>& columns, const std::vector<std::string>& dropped,
                           std::size_t width) {
    const auto shown = [&](const std::string& header) {
      return column_named(columns, header).shown;
    };
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
    if (context_.command == "ladder") {
      out_ << wrap_text(
          "vs 1st / vs prev: speedup against the family's first and previous verified step "
          "(unavailable and failed steps are skipped, and steps that computed part of the "
          "result: computed_fraction < 1)",
          width);
      out_ << wrap_text(noise_legend(), width);
    }
    if (!dropped.empty()) {
      out_ << wrap_text(fmt::format("left out to fit {} columns: {} (--wide, json and csv have "
                                    "them)",
                                    width, fmt::join(dropped, ", ")),
                        width);
    }
  }

  std::string noise_legend() const {
    return fmt::format(
        "~ within noise: {} not told apart (U test) or medians less than {}% apart "
        "(--noise); intervals in json, csv",
        context_.invocations > 1 ? "invocations" : "runs",
        context_.noise_percent.value_or(stats::kNoisePercent));
  }

  std::ostream& out_;
  ReportContext context_;
  std::vector<Result> results_;
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out) {
  return std::make_unique<TableReporter>(out);
}

}  // namespace acclab
