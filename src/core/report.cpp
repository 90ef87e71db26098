#include "core/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/run_file.hpp"
#include "core/table_report.hpp"

namespace acclab {

namespace {

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
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
  if (format == "table") return make_table_reporter(out);
  if (format == "json") return std::make_unique<JsonReporter>(out);
  if (format == "csv") return std::make_unique<CsvReporter>(out);
  throw UsageError(fmt::format("--format {}: expected table, json or csv", format));
}

}  // namespace acclab
