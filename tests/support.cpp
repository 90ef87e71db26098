#include "support.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
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

std::string check_error(const std::string& workload, const std::string& variant,
                        const std::vector<std::string>& overrides, const std::string& preset) {
  return usage_error_message([&] {
    const Params params = params_of(workload, overrides, preset);
    const Variant& v = variant_of(workload, variant);
    if (v.check_tunings) v.check_tunings(params);
    if (v.check_params) v.check_params(params);
  });
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

void VariantTest::expect_verified_and_timed(const Result& r, const Params& params, int reps) {
  ASSERT_EQ(r.status, Status::verified) << r.error;
  EXPECT_EQ(r.params.json(), params.json());
  EXPECT_EQ(r.place, expected_place());
  ASSERT_EQ(r.times_s.size(), static_cast<std::size_t>(reps));
  EXPECT_LE(r.min_s, r.median_s);
  EXPECT_LE(r.median_s, r.max_s);
  if (variant().backend == Backend::serial || variant().backend == Backend::openmp) {
    EXPECT_FALSE(r.transfer_s.has_value());
  }
}

Machine& VariantTest::shared_machine() {
  static Machine machine;
  return machine;
}

void expect_ladder_in_order(const std::string& workload, const std::string& first,
                            const std::string& family) {
  const std::vector<std::string> names = variant_names(workload);
  ASSERT_FALSE(names.empty()) << workload;
  EXPECT_EQ(names.front(), first);
  int step = 0;
  for (const auto& name : names) {
    const Variant& v = variant_of(workload, name);
    EXPECT_EQ(v.family, family) << name;
    EXPECT_GT(v.step, step) << name;
    step = v.step;
  }
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

Result run_variant(const std::string& workload, const std::string& name, const Params& params,
                   bool profile) {
  Machine machine;
  Runner runner(machine);
  RunOptions options;
  options.reps = 1;
  options.profile = profile;
  return runner.run(variant_of(workload, name), all().workload(workload), params, options);
}

std::vector<std::vector<std::string>> omp_tuned_shapes() {
  std::vector<std::vector<std::string>> all;
  for (const char* construct : {"omp_construct=distribute", "omp_construct=loop"}) {
    for (const char* simd : {"omp_simd=1", "omp_simd=0"}) {
      for (const auto& teams : {std::vector<std::string>{"omp_teams=0", "omp_threads=0"},
                                std::vector<std::string>{"omp_teams=3", "omp_threads=32"}}) {
        all.push_back(with({construct, simd}, teams));
      }
    }
  }
  return all;
}

// ---- files -------------------------------------------------------------------------------------

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string data_file(const std::string& name) {
  return std::string(ACCLAB_TEST_DATA) + "/" + name;
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

bool unavailable_cuda_step(const nlohmann::json& r) {
  if (r["status"] != "unavailable") return false;
  EXPECT_EQ(r["backend"], "cuda");
  return true;
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

void expect_refused_for_host_memory(const std::string& workload,
                                    const std::vector<std::string>& sets,
                                    const std::vector<std::string>& names) {
  const Params params = params_of(workload, sets);
  Machine machine;
  if (machine.host().available_bytes <= 0 ||
      machine.host().available_bytes >= all().workload(workload).host_bytes(params)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  std::vector<std::string> args = {"run", workload};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const Outcome o = run_acclab(args, std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, names));
  EXPECT_LT(o.max_rss_kib, kRefusalPeakKib) << "peak memory " << o.max_rss_kib << " KiB";
}

void expect_peak_within_host_bytes(const std::string& workload, const std::string& variant,
                                   const std::vector<std::string>& sets) {
  const double host_bytes = all().workload(workload).host_bytes(params_of(workload, sets));
  Machine machine;
  if (machine.host().available_bytes < 2 * host_bytes) GTEST_SKIP() << "not enough memory";
  std::vector<std::string> args = {"run", workload, "--variant", variant, "--reps", "1"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  const Outcome o = run_acclab(args);
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_LE(double(o.max_rss_kib) * 1024, host_bytes + 64.0 * 1024 * 1024)
      << "peak " << o.max_rss_kib << " KiB, host_bytes " << host_bytes / 1024 << " KiB";
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// ---- bad input: status 2, one line naming it ---------------------------------------------------

BadInput bad_run(const std::string& workload, std::string name,
                 const std::vector<std::string>& sets, std::vector<std::string> names) {
  return {std::move(name), run_with_sets(workload, sets), std::move(names)};
}

BadInput bad_set(const std::string& workload, const std::string& set) {
  return bad_run(workload, name_of({set}), {set}, {set});
}

std::string name_of(const std::vector<std::string>& words) {
  std::string name;
  for (const auto& word : words) {
    if (!name.empty()) name += '_';
    for (unsigned char c : word) name += std::isalnum(c) ? char(c) : '_';
  }
  return name;
}

void PrintTo(const BadInput& c, std::ostream* os) {
  *os << "acclab";
  for (const auto& a : c.args) *os << " " << a;
}

std::string bad_input_name(const ::testing::TestParamInfo<BadInput>& info) {
  return info.param.name;
}

TEST_P(BadInputTest, ExitsTwoWithOneLineNamingIt) {
  const BadInput& c = GetParam();
  TempDir dir;
  std::vector<std::string> files;
  for (const auto& [file, text] : c.files) {
    std::ofstream(dir.path() / file) << text;
    files.push_back(file);
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> args;
  for (const auto& a : c.args) {
    args.push_back(a.starts_with("@data/") ? data_file(a.substr(6))
                   : a.starts_with("@")    ? (dir.path() / a.substr(1)).string()
                                           : a);
  }
  const Outcome o = run_acclab(args, std::chrono::seconds(60));
  EXPECT_TRUE(is_usage_error(o, c.names));
  EXPECT_EQ(o.err.rfind("acclab: ", 0), 0u) << o;
  EXPECT_LT(o.max_rss_kib, kRefusalPeakKib) << "peak memory " << o.max_rss_kib << " KiB";
  EXPECT_EQ(dir.entries(), files);
}

// The test binaries that hold no workload's bad input (acclab_iccg_scale_tests).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BadInputTest);

}  // namespace acclab::test
