#include "support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "core/error.hpp"

namespace acclab::test {

namespace fs = std::filesystem;

// ---- the registry ------------------------------------------------------------------------------

const Registry& all() {
  static const Registry registry = [] {
    Registry r;
    register_all_workloads(r);
    return r;
  }();
  return registry;
}

const Variant& variant_of(const std::string& workload, const std::string& name) {
  for (const auto& v : all().variants()) {
    if (v.workload == workload && v.name == name) return v;
  }
  throw std::logic_error("no variant " + workload + "/" + name);
}

std::vector<std::string> variant_names(const std::string& workload) {
  std::vector<std::string> names;
  for (const auto& v : all().variants()) {
    if (v.workload == workload) names.push_back(v.name);
  }
  return names;
}

Params params_of(const std::string& workload, const std::vector<std::string>& overrides,
                 const std::string& preset) {
  const Workload& w = all().workload(workload);
  Params params = Params::resolve(w.params, preset, overrides);
  w.validate(params);
  return params;
}

std::string validate_error(const std::string& workload, const std::vector<std::string>& overrides,
                           const std::string& preset) {
  return usage_error_message([&] { params_of(workload, overrides, preset); });
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

// ---- every registered variant of one workload --------------------------------------------------

bool VariantTest::expect_available() { return available_here(variant()); }

Place VariantTest::expected_place() { return place_here(variant()); }

Result VariantTest::run(const Params& params, int reps, bool corrupt) {
  RunOptions options;
  options.reps = reps;
  options.corrupt_result = corrupt;
  return runner_.run(variant(), workload(), params, options);
}

bool VariantTest::skipped_as_unavailable(const Result& r) {
  if (expect_available()) return false;
  EXPECT_EQ(r.status, Status::unavailable) << to_string(r.status) << ": " << r.error;
  EXPECT_FALSE(r.note.empty()) << "an unavailable result says why";
  EXPECT_TRUE(r.times_s.empty());
  return true;
}

Machine& VariantTest::shared_machine() {
  static Machine machine;
  return machine;
}

// ---- the machine -------------------------------------------------------------------------------

bool cuda_gpu_here() {
  static const bool available = [] {
    Machine machine;
    return machine.cuda_available();
  }();
  return available;
}

bool openacc_gpu_here() {
  static const bool available = [] {
    Machine machine;
    return machine.openacc_runs_on_gpu();
  }();
  return available;
}

bool omptarget_gpu_here() {
  static const bool available = [] {
    Machine machine;
    return machine.omptarget_runs_on_gpu();
  }();
  return available;
}

bool available_here(const Variant& variant) {
  if (variant.backend == Backend::cuda) return cuda_gpu_here();
  if (!variant.gpu_unavailable_reason.empty()) return !openacc_gpu_here();
  return true;
}

Place place_here(const Variant& variant) {
  switch (variant.backend) {
    case Backend::cuda:
      return Place::gpu;
    case Backend::openacc:
      return openacc_gpu_here() ? Place::gpu : Place::host;
    case Backend::omptarget:
      return omptarget_gpu_here() ? Place::gpu : Place::host;
    default:
      return Place::host;
  }
}

// ---- files -------------------------------------------------------------------------------------

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "acclab_test.XXXXXX").string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(path_)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// ---- the real binary ---------------------------------------------------------------------------

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  if (o.term_signal) os << "killed by signal " << o.term_signal << ", ";
  return os << "exit " << o.status << (o.timed_out ? " (timed out)" : "") << " after " << o.wall_s
            << " s\n--- stderr\n"
            << o.err << "--- stdout (" << o.out.size() << " bytes)\n"
            << o.out.substr(0, 2000);
}

Outcome run_acclab(const std::vector<std::string>& args, std::chrono::seconds deadline) {
  TempDir capture;
  const std::string out_path = (capture.path() / "stdout").string();
  const std::string err_path = (capture.path() / "stderr").string();
  std::vector<std::string> argv_strings = {ACCLAB_BINARY};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);

  Outcome outcome;
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) _exit(126);
    dup2(in, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int wstatus = 0;
  rusage usage{};
  while (true) {
    const pid_t done = wait4(pid, &wstatus, WNOHANG, &usage);
    if (done == pid) break;
    if (done < 0) throw std::runtime_error("wait4 failed");
    if (std::chrono::steady_clock::now() - start > deadline) {
      kill(pid, SIGKILL);
      wait4(pid, &wstatus, 0, &usage);
      outcome.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
  outcome.term_signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  outcome.max_rss_kib = usage.ru_maxrss;
  outcome.out = read_file(out_path);
  outcome.err = read_file(err_path);
  return outcome;
}

nlohmann::json parse_json(const std::string& text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    ADD_FAILURE() << "not JSON (" << e.what() << "):\n" << text.substr(0, 2000);
    return nlohmann::json::object();
  }
}

::testing::AssertionResult is_usage_error(const Outcome& o, const std::vector<std::string>& names) {
  if (o.timed_out) return ::testing::AssertionFailure() << "timed out\n" << o;
  if (o.status != 2) return ::testing::AssertionFailure() << "status is not 2\n" << o;
  if (!o.out.empty()) return ::testing::AssertionFailure() << "stdout is not empty\n" << o;
  if (o.err.empty() || o.err.back() != '\n' || std::count(o.err.begin(), o.err.end(), '\n') != 1) {
    return ::testing::AssertionFailure() << "stderr is not exactly one line\n" << o;
  }
  for (const auto& name : names) {
    if (o.err.find(name) == std::string::npos) {
      return ::testing::AssertionFailure() << "stderr does not name '" << name << "'\n" << o;
    }
  }
  return ::testing::AssertionSuccess();
}

void expect_ladder_of_two(const Outcome& o, const std::string& first, const std::string& second) {
  ASSERT_EQ(o.status, 0) << o;
  nlohmann::json doc = parse_json(o.out);
  EXPECT_EQ(doc["command"], "ladder");
  auto& results = doc["results"];
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["variant"], first);
  EXPECT_EQ(results[1]["variant"], second);
  ASSERT_TRUE(results[0]["speedup_vs_first"].is_number()) << results[0].dump();
  ASSERT_TRUE(results[1]["speedup_vs_first"].is_number()) << results[1].dump();
  EXPECT_EQ(results[0]["speedup_vs_first"].get<double>(), 1.0);
  EXPECT_FALSE(results[0].contains("speedup_vs_previous"));
  EXPECT_DOUBLE_EQ(
      results[1]["speedup_vs_first"].get<double>(),
      results[0]["time_s"]["median"].get<double>() / results[1]["time_s"]["median"].get<double>());
  ASSERT_TRUE(results[1]["speedup_vs_previous"].is_number());
  EXPECT_DOUBLE_EQ(results[1]["speedup_vs_previous"].get<double>(),
                   results[1]["speedup_vs_first"].get<double>());
}

std::vector<std::string> run_with_sets(const std::string& workload,
                                       const std::vector<std::string>& sets) {
  std::vector<std::string> args = {"run", workload, "--reps", "1"};
  for (const auto& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return args;
}

}  // namespace acclab::test
