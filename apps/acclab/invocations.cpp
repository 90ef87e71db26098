#include "apps/acclab/invocations.hpp"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "core/compare_stats.hpp"
#include "core/error.hpp"
#include "core/run_file.hpp"

extern char** environ;

namespace acclab {

namespace {

// A folder of the invocations' result files, removed with everything in it.
class TemporaryFolder {
 public:
  TemporaryFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "acclab-invocations-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      throw std::runtime_error(fmt::format("--invocations: cannot make a temporary folder in {} "
                                           "({})",
                                           std::filesystem::temp_directory_path().string(),
                                           std::strerror(errno)));
    }
    path_ = pattern;
  }
  ~TemporaryFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Runs `program` with `words` (argv[0] first) and waits: its wait status.
int spawn_and_wait(const std::string& program, const std::vector<std::string>& words) {
  std::vector<char*> argv;
  for (const auto& w : words) argv.push_back(const_cast<char*>(w.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int error = posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv.data(), environ);
      error != 0) {
    throw std::runtime_error(
        fmt::format("--invocations: cannot start {} ({})", program, std::strerror(error)));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      throw std::runtime_error(
          fmt::format("--invocations: waiting for {}: {}", program, std::strerror(errno)));
    }
  }
  return status;
}

// The result an invocation wrote, or none where it wrote no acclab.run/1 file: what the
// invocation's exit status says is then the reason given.
std::optional<RunFile> read_invocation_result(const std::filesystem::path& path) {
  try {
    return read_run_file(path.string());
  } catch (const UsageError&) {
    return std::nullopt;
  }
}

// A status that is neither verified nor failed (or none) is unavailable.
Status status_of(const std::string& text) {
  return status_named(text).value_or(Status::unavailable);
}

std::optional<double> optional_number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

std::string optional_text(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

double median_or_zero(const std::vector<double>& values) {
  return values.empty() ? 0 : stats::median(values);
}

// The parts of `note` ("; " apart) that `notes` lacks, added to it. Parts that differ only in
// their numbers (a busy machine's load, a rate) are one part: the first invocation's is kept.
void add_note_parts(std::vector<std::string>& notes, const std::string& note) {
  const auto shape = [](std::string text) {
    std::erase_if(text, [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
    return text;
  };
  std::size_t from = 0;
  while (from < note.size()) {
    std::size_t end = note.find("; ", from);
    if (end == std::string::npos) end = note.size();
    const std::string part = note.substr(from, end - from);
    from = end + 2;
    if (part.empty()) continue;
    if (std::none_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return shape(n) == shape(part); })) {
      notes.push_back(part);
    }
  }
}

const Variant& variant_of(const Registry& registry, const nlohmann::json& result) {
  const std::string workload = optional_text(result, "workload");
  const std::string name = optional_text(result, "variant");
  for (const auto& v : registry.variants()) {
    if (v.workload == workload && v.name == name) return v;
  }
  throw std::runtime_error(
      fmt::format("--invocations: an invocation reported {}/{}, a step this acclab does not have",
                  workload, name));
}

// The step of results[i] of every document, merged.
Result merge_step(const std::vector<const nlohmann::json*>& steps, const Registry& registry) {
  const nlohmann::json& first = *steps.front();
  Result merged;
  merged.variant = &variant_of(registry, first);
  const nlohmann::json params = first.value("params", nlohmann::json::object());
  for (const auto& [key, value] : params.items()) {
    merged.params.set(key, value);
  }
  merged.place = optional_text(first, "place") == "gpu" ? Place::gpu : Place::host;
  merged.reps = first.value("reps", 0);
  merged.status = status_of(optional_text(first, "status"));
  merged.verification = optional_text(first, "verification");
  merged.outputs = first.value("outputs", nlohmann::json::object());
  merged.mpi = first.value("mpi", nlohmann::json());

  std::vector<double> setup, transfer, copy_out;
  const nlohmann::json* rates = nullptr;  // the first timed invocation: its rates and median
  std::vector<std::string> notes;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const nlohmann::json& step = *steps[k];
    if (status_of(optional_text(step, "status")) == Status::failed &&
        merged.status != Status::failed) {
      merged.status = Status::failed;
      merged.error = fmt::format("invocation {}: {}", k + 1, optional_text(step, "error"));
      merged.verification = optional_text(step, "verification");
    }
    add_note_parts(notes, optional_text(step, "note"));
    const auto median = step.contains("time_s") ? optional_number(step["time_s"], "median")
                                                : std::nullopt;
    if (!median || !step.contains("times_s")) continue;
    for (const auto& t : step["times_s"]) merged.times_s.push_back(t.get<double>());
    merged.invocations_median_s.push_back(*median);
    if (auto s = optional_number(step, "setup_s")) setup.push_back(*s);
    if (auto s = optional_number(step, "transfer_s")) transfer.push_back(*s);
    if (auto s = optional_number(step, "copy_out_s")) copy_out.push_back(*s);
    if (!rates) rates = &step;
  }
  for (const auto& note : notes) merged.note += (merged.note.empty() ? "" : "; ") + note;
  if (merged.times_s.empty()) {
    merged.invocations_median_s.clear();
    return merged;
  }
  merged.median_s = stats::median(merged.invocations_median_s);
  merged.min_s = *std::min_element(merged.times_s.begin(), merged.times_s.end());
  merged.max_s = *std::max_element(merged.times_s.begin(), merged.times_s.end());
  merged.setup_s = median_or_zero(setup);
  if (!transfer.empty()) merged.transfer_s = stats::median(transfer);
  merged.copy_out_s = median_or_zero(copy_out);
  // A rate is work over the median: the first timed invocation's work, at the merged median.
  const double scale = (*rates)["time_s"]["median"].get<double>() / merged.median_s;
  merged.gflops = optional_number(*rates, "gflops").value_or(0) * scale;
  merged.gbytes_per_s = optional_number(*rates, "gbytes_per_s").value_or(0) * scale;
  merged.limit_gbytes_per_s = optional_number(*rates, "limit_gbytes_per_s");
  if (auto fraction = optional_number(*rates, "limit_fraction")) {
    merged.limit_fraction = *fraction * scale;
  }
  return merged;
}

}  // namespace

std::vector<std::string> invocation_arguments(const std::vector<std::string>& arguments,
                                              const std::string& out) {
  static const char* const kDropped[] = {"--invocations", "--out", "--format", "--report"};
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& word = arguments[i];
    bool dropped = false;
    for (const std::string name : kDropped) {
      if (word == name) {
        ++i;  // and its value
        dropped = true;
      } else if (word.starts_with(name + "=")) {
        dropped = true;
      }
    }
    if (!dropped) kept.push_back(word);
  }
  for (const char* word : {"--format", "json", "--out"}) kept.emplace_back(word);
  kept.push_back(out);
  return kept;
}

std::vector<nlohmann::json> run_invocations(int count, const std::string& program,
                                            const std::vector<std::string>& arguments,
                                            bool quiet) {
  const TemporaryFolder folder;
  std::vector<nlohmann::json> documents;
  for (int k = 1; k <= count; ++k) {
    if (!quiet) {
      fmt::print(stderr, "acclab: invocation {} of {}\n", k, count);
      std::fflush(stderr);
    }
    const std::filesystem::path out = folder.path() / fmt::format("invocation-{}.json", k);
    std::vector<std::string> words = {program};
    for (auto& w : invocation_arguments(arguments, out.string())) words.push_back(std::move(w));
    const int status = spawn_and_wait("/proc/self/exe", words);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
      throw UsageError(fmt::format(
          "--invocations: invocation {} of {} refused its arguments (the line above)", k, count));
    }
    // Status 1 with a result: a step failed verification, which the merged result says.
    std::optional<RunFile> result = read_invocation_result(out);
    if (!WIFEXITED(status) || !result) {
      throw std::runtime_error(fmt::format(
          "--invocations: invocation {} of {} ended without a result ({})", k, count,
          WIFSIGNALED(status) ? fmt::format("signal {}", WTERMSIG(status))
                              : fmt::format("exit status {}", WEXITSTATUS(status))));
    }
    documents.push_back(std::move(result->document));
  }
  return documents;
}

MergedRun merge_invocations(const std::vector<nlohmann::json>& documents,
                            const Registry& registry) {
  MergedRun run;
  const nlohmann::json& first = documents.front();
  ReportContext& context = run.context;
  context.host = first.value("host", nlohmann::json::object());
  context.devices = first.value("devices", nlohmann::json::array());
  context.compiler = first.value("compiler", nlohmann::json::object());
  context.build = first.value("build", nlohmann::json::object());
  context.openacc_runs_on = optional_text(first, "openacc_runs_on");
  context.omptarget_runs_on = optional_text(first, "omptarget_runs_on");
  context.limits = first.value("limits", nlohmann::json::object());
  context.invocations = static_cast<int>(documents.size());

  const std::size_t steps = first["results"].size();
  for (std::size_t i = 0; i < steps; ++i) {
    std::vector<const nlohmann::json*> step;
    for (std::size_t k = 0; k < documents.size(); ++k) {
      const auto& results = documents[k]["results"];
      const auto same_step = [&](const nlohmann::json& r) {
        const auto& f = first["results"][i];
        return r.value("workload", "") == f.value("workload", "") &&
               r.value("variant", "") == f.value("variant", "") &&
               r.value("params", nlohmann::json()) == f.value("params", nlohmann::json());
      };
      if (results.size() != steps || !same_step(results[i])) {
        throw std::runtime_error(fmt::format(
            "--invocations: invocation {} ran other steps than invocation 1", k + 1));
      }
      step.push_back(&results[i]);
    }
    run.results.push_back(merge_step(step, registry));
  }
  return run;
}

}  // namespace acclab
