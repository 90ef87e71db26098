// The acclab command line as users and scripts see it: the real binary, its stdout, its stderr
// and its exit status (0 all verified, 1 a verification failed, 2 bad usage or input).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/machine.hpp"
#include "support.hpp"
#include "workloads/vector/course_values.hpp"

namespace acclab {
namespace {

namespace fs = std::filesystem;

using test::cuda_gpu_here;
using test::is_usage_error;
using test::openacc_gpu_here;
using test::Outcome;
using test::parse_json;
using test::read_file;
using test::run_acclab;
using test::TempDir;

// Sets an environment variable for the children the test starts, and restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The mean of c after nt steps of the course (c[i] = nt * (a[i] + b[i])), summed in double as
// the workload sums it.
double course_mean(std::int64_t nx, std::int64_t ny, std::int64_t nt) {
  double sum = 0;
  for (std::int64_t i = 0; i < nx * ny; ++i) {
    sum += double(float(nt) * (vector::course_a(i) + vector::course_b(i)));
  }
  return sum / double(nx * ny);
}

// Small sizes for tests that check the command line, not the variants.
const std::vector<std::string> tiny = {"--set", "nx=37", "--set", "ny=5", "--set", "nt=3"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// ---- list and info -----------------------------------------------------------------------------

TEST(CliListTest, JsonListsEveryVariantWithItsAvailability) {
  const Outcome o = run_acclab({"list", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["schema"], "acclab.list/1");
  ASSERT_TRUE(doc["variants"].is_array());
  auto find = [&](const std::string& name) -> nlohmann::json* {
    for (auto& v : doc["variants"]) {
      if (v["workload"] == "vector" && v["variant"] == name) return &v;
    }
    return nullptr;
  };
  for (auto& v : doc["variants"]) {
    SCOPED_TRACE(v.dump());
    for (const char* field : {"workload", "variant", "backend", "step", "description"}) {
      EXPECT_TRUE(v.contains(field)) << field;
    }
    ASSERT_TRUE(v["available"].is_boolean());
    if (v["backend"] == "cuda") EXPECT_EQ(v["available"].get<bool>(), cuda_gpu_here());
  }
#ifdef ACCLAB_HAVE_OPENACC
  const std::vector<std::string> course = {"original",     "acc_kernels", "acc_kernels_copy",
                                           "acc_loop",     "acc_data",    "acc_present",
                                           "acc_reduction"};
  for (std::size_t i = 0; i < course.size(); ++i) {
    SCOPED_TRACE(course[i]);
    auto* v = find(course[i]);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ((*v)["step"], i + 1);
    EXPECT_EQ((*v)["family"], "course");
    EXPECT_FALSE((*v)["description"].get<std::string>().empty());
    // Step 02 is unsafe on a GPU; everything else on the course ladder runs anywhere.
    const bool available = course[i] != "acc_kernels" || !openacc_gpu_here();
    EXPECT_EQ((*v)["available"].get<bool>(), available);
  }
#endif
#ifdef ACCLAB_HAVE_CUDA
  for (const char* name : {"cuda", "triad_cuda", "dot_cuda"}) {
    ASSERT_NE(find(name), nullptr) << name;
    EXPECT_EQ((*find(name))["available"].get<bool>(), cuda_gpu_here()) << name;
  }
#endif
}

// Every variant lists its tunings (RAJAPerf's word for a variant's own knobs) with the value of
// the workload's default preset.
TEST(CliListTest, JsonListsEachVariantsTunings) {
  const Outcome o = run_acclab({"list", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  const nlohmann::json* serial = nullptr;
  const nlohmann::json* acc_tuned = nullptr;
  for (const auto& v : doc["variants"]) {
    SCOPED_TRACE(v.dump());
    ASSERT_TRUE(v["tunings"].is_array());
    for (const auto& tuning : v["tunings"]) {
      for (const char* field : {"name", "type", "help", "default"}) {
        EXPECT_TRUE(tuning.contains(field)) << field;
      }
    }
    if (v["workload"] == "jacobi2d" && v["variant"] == "serial") serial = &v;
    if (v["workload"] == "jacobi2d" && v["variant"] == "acc_tuned") acc_tuned = &v;
  }
  ASSERT_NE(serial, nullptr);
  EXPECT_TRUE((*serial)["tunings"].empty());
#ifdef ACCLAB_HAVE_OPENACC
  ASSERT_NE(acc_tuned, nullptr);
  ASSERT_EQ((*acc_tuned)["tunings"].size(), 1u);
  EXPECT_EQ((*acc_tuned)["tunings"][0]["name"], "async");
  EXPECT_EQ((*acc_tuned)["tunings"][0]["type"], "boolean");
  EXPECT_EQ((*acc_tuned)["tunings"][0]["default"], "1");
#endif
}

#ifdef ACCLAB_HAVE_OMPTARGET
// An optional tuning that no preset sets still has a default where unset means a plain value
// (the OpenMP target knobs), and its range where it is numeric.
TEST(CliListTest, JsonShowsTheDefaultOfAnUnsetTuning) {
  const Outcome o = run_acclab({"list", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const std::map<std::string, std::string> expected = {{"omp_teams", "0"},
                                                       {"omp_threads", "0"},
                                                       {"omp_simd", "1"},
                                                       {"omp_construct", "distribute"},
                                                       {"omp_shape", "rows"}};
  int seen = 0;
  const auto doc = parse_json(o.out);
  for (const auto& v : doc["variants"]) {
    if (v["workload"] != "jacobi2d" || v["variant"] != "omp_target_tuned") continue;
    for (const auto& tuning : v["tunings"]) {
      const std::string name = tuning["name"];
      SCOPED_TRACE(name);
      ASSERT_TRUE(expected.contains(name));
      EXPECT_EQ(tuning["default"], expected.at(name));
      if (name == "omp_teams") EXPECT_EQ(tuning["maximum"], 65536);
      if (name == "omp_threads") EXPECT_EQ(tuning["maximum"], 1024);
      ++seen;
    }
  }
  EXPECT_EQ(seen, 5);
}
#endif

TEST(CliListTest, TableNamesEveryVariant) {
  const Outcome o = run_acclab({"list"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(run_acclab({"list", "--format", "json"}).out);
  for (auto& v : doc["variants"]) {
    EXPECT_NE(o.out.find(v["variant"].get<std::string>()), std::string::npos) << v.dump();
  }
#ifdef ACCLAB_HAVE_CUDA
  // CUDA variants are built here; without a GPU they are listed as unavailable.
  if (!cuda_gpu_here()) EXPECT_NE(o.out.find("[unavailable: "), std::string::npos) << o;
#endif
}

// Where the text after the first column starts on each line that begins with `first` (the
// column width that line was printed with).
std::size_t second_column(const std::string& line, const std::string& first) {
  return line.find_first_not_of(' ', line.find(first) + first.size());
}

TEST(CliListTest, TableColumnsLineUpWhateverTheNameLength) {
  const Outcome o = run_acclab({"list"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(run_acclab({"list", "--format", "json"}).out);
  std::set<std::string> names, backends;
  for (auto& v : doc["variants"]) {
    names.insert(v["variant"].get<std::string>());
    backends.insert(v["backend"].get<std::string>());
  }
  // Names run from 8 to over 30 characters: every row's backend starts in one column.
  std::set<std::size_t> columns;
  std::size_t rows = 0;
  std::istringstream lines(o.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) != 0 || line.find("tunings:") != std::string::npos) continue;
    const std::string name = line.substr(2, line.find(' ', 2) - 2);
    if (!names.count(name)) continue;
    const std::size_t at = second_column(line, name);
    const std::string backend = line.substr(at, line.find(' ', at) - at);
    EXPECT_TRUE(backends.count(backend)) << line;
    columns.insert(at);
    ++rows;
  }
  EXPECT_EQ(rows, doc["variants"].size()) << o.out;
  EXPECT_EQ(columns.size(), 1u) << o.out;
}

TEST(CliInfoTest, JsonDescribesHostAndCompiler) {
  const Outcome o = run_acclab({"info", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["schema"], "acclab.info/1");
  ASSERT_TRUE(doc["host"]["cores"].is_number_integer());
  EXPECT_GT(doc["host"]["cores"].get<int>(), 0);
  EXPECT_GT(doc["host"]["memory_bytes"].get<double>(), 0);
  ASSERT_TRUE(doc["compiler"]["cxx"].is_string());
  EXPECT_FALSE(doc["compiler"]["cxx"].get<std::string>().empty());
  EXPECT_TRUE(doc["devices"].is_array());
  // Without --probe nothing is measured.
  EXPECT_EQ(doc["limits"], nlohmann::json::object());
}

TEST(CliInfoTest, ProbeMeasuresHostCopyBandwidth) {
  const Outcome o = run_acclab({"info", "--probe", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  ASSERT_TRUE(doc["limits"]["host_copy_gbytes_per_s"].is_number()) << doc.dump(2);
  EXPECT_GT(doc["limits"]["host_copy_gbytes_per_s"].get<double>(), 0);
  if (doc["devices"].empty()) EXPECT_FALSE(doc["limits"].contains("device_copy_gbytes_per_s"));
}

TEST(CliInfoTest, ProbeIsKeptPerMachineAndRemeasuredOnRequest) {
  TempDir cache;
  ScopedEnvironment variable("ACCLAB_CACHE_DIR", cache.path().string());
  const auto run_vector = [] {
    return run_acclab(with({"run", "vector", "--variant", "original", "--format", "json"}, tiny));
  };
  const Outcome first = run_vector();
  ASSERT_EQ(first.status, 0) << first;
  const auto measured = parse_json(first.out)["limits"];
  EXPECT_EQ(measured["host_copy_origin"].get<std::string>().rfind("measured now", 0), 0u)
      << measured.dump();
  const auto cached = parse_json(read_file(cache.path() / "host-copy.json"));
  ASSERT_EQ(cached.size(), 1u) << cached.dump();
  EXPECT_EQ(cached.begin().value()["gbytes_per_s"], measured["host_copy_gbytes_per_s"]);

  const Outcome second = run_vector();
  ASSERT_EQ(second.status, 0) << second;
  const auto reused = parse_json(second.out)["limits"];
  EXPECT_EQ(reused["host_copy_gbytes_per_s"], measured["host_copy_gbytes_per_s"]);
  EXPECT_NE(reused["host_copy_origin"].get<std::string>().find("cached in"), std::string::npos)
      << reused.dump();

  const Outcome probe = run_acclab({"info", "--probe", "--format", "json"});
  ASSERT_EQ(probe.status, 0) << probe;
  EXPECT_EQ(parse_json(probe.out)["limits"]["host_copy_origin"].get<std::string>().rfind(
                "measured now", 0),
            0u);
}

TEST(CliInfoTest, TableMentionsCoresAndCompiler) {
  const Outcome o = run_acclab({"info"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("cores"), std::string::npos) << o;
  EXPECT_NE(o.out.find("compiler"), std::string::npos) << o;
}

// ---- run and ladder ----------------------------------------------------------------------------

TEST(CliRunTest, EveryAvailableVariantVerifiesOnTheSmallPreset) {
  // One timed run: repetitions are vector_test's business, and the OpenACC variants running
  // on the host are slow.
  const Outcome o = run_acclab({"run", "vector", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["schema"], "acclab.run/1");
  EXPECT_EQ(doc["command"], "run");
  EXPECT_EQ(doc["preset"], "small");
  for (const char* field : {"host", "devices", "compiler", "results"}) {
    EXPECT_TRUE(doc.contains(field)) << field;
  }
  auto list = parse_json(run_acclab({"list", "--format", "json"}).out);
  std::size_t vector_variants = 0;
  for (const auto& v : list["variants"]) vector_variants += v["workload"] == "vector";
  ASSERT_EQ(doc["results"].size(), vector_variants) << "one result per vector variant";
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    EXPECT_EQ(r["params"], (nlohmann::json{{"nx", 2048}, {"ny", 2048}, {"nt", 10}}));
    if (r["status"] == "unavailable") {
      EXPECT_TRUE(r["note"].is_string());
      if (!cuda_gpu_here()) EXPECT_TRUE(r["backend"] == "cuda" || openacc_gpu_here());
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_EQ(r["reps"], 1);
    EXPECT_EQ(r["times_s"].size(), 1u);
    EXPECT_TRUE(r["time_s"]["median"].is_number());
    if (r["family"] == "course") EXPECT_EQ(r["outputs"]["mean"], course_mean(2048, 2048, 10));
    ++verified;
  }
  EXPECT_GE(verified, 3);  // at least original, triad_openmp, dot_openmp
}

TEST(CliRunTest, CsvHasAHeaderAndOneLinePerResult) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,dot_openmp", "--format", "csv"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  std::istringstream lines(o.out);
  std::string header, line;
  ASSERT_TRUE(std::getline(lines, header));
  EXPECT_EQ(header.rfind("workload,variant,", 0), 0u) << header;
  int records = 0;
  while (std::getline(lines, line)) {
    ++records;
    EXPECT_NE(line.find(",verified,"), std::string::npos) << line;
  }
  EXPECT_EQ(records, 2);
}

TEST(CliRunTest, TableIsTheDefault) {
  const Outcome o = run_acclab(with({"run", "vector", "--variant", "original"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("original"), std::string::npos) << o;
  EXPECT_NE(o.out.find("verified"), std::string::npos) << o;
  EXPECT_NE(o.out.find(fmt::format("mean = {:.2f}", course_mean(37, 5, 3))), std::string::npos)
      << o;
}

TEST(CliRunTest, TableColumnsLineUpForLongNames) {
  // triad_omp_target_tuned (22 characters) and omptarget (9) are wider than the columns' least
  // widths: the header and both rows still start each column in one place.
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,triad_omp_target_tuned", "--reps", "1"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  std::istringstream lines(o.out);
  std::set<std::size_t> backend, step;
  for (std::string line; std::getline(lines, line);) {
    for (const std::string name : {"variant", "original", "triad_omp_target_tuned"}) {
      const std::size_t at = line.find(" " + name + " ");
      if (at == std::string::npos || at > 12) continue;
      const std::size_t b = second_column(line, name);
      backend.insert(b);
      // The step column is right-aligned: its text ends in one place on every line.
      step.insert(line.find(' ', line.find_first_not_of(' ', line.find(' ', b))));
      if (name == "variant") EXPECT_EQ(line.compare(b, 7, "backend"), 0) << line;
    }
  }
  EXPECT_EQ(backend.size(), 1u) << o.out;
  EXPECT_EQ(step.size(), 1u) << o.out;
}

TEST(CliRunTest, AnEmptyOutPathIsRefused) {
  // "" would read as no --out: the report would go to stdout and no file be written.
  EXPECT_TRUE(is_usage_error(run_acclab(with({"run", "vector", "--out", ""}, tiny)),
                             {"--out", "empty path"}));
}

TEST(CliRunTest, CorruptResultExitsOne) {
  const Outcome o = run_acclab(
      {"run", "vector", "--variant", "acc_loop", "--corrupt-result", "--format", "json"});
#ifdef ACCLAB_HAVE_OPENACC
  ASSERT_EQ(o.status, 1) << o;
  auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["status"], "failed");
  EXPECT_TRUE(doc["results"][0]["error"].is_string());
#else
  EXPECT_TRUE(is_usage_error(o, {"--variant acc_loop"}));
#endif
}

TEST(CliRunTest, ExitOneNamesTheFailedVariantInOneLine) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original", "--corrupt-result", "--format", "json"},
           tiny));
  ASSERT_EQ(o.status, 1) << o;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o;
  EXPECT_NE(o.err.find("vector/original"), std::string::npos) << o;
  EXPECT_NE(o.err.find("failed"), std::string::npos) << o;
}

TEST(CliRunTest, JsonNamesTheBuildAndTheCommandLine) {
  const std::vector<std::string> args =
      with({"run", "vector", "--variant", "original", "--format", "json"}, tiny);
  const Outcome o = run_acclab(args);
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  const auto& build = doc["build"];
  ASSERT_TRUE(build["commit"].is_string()) << build.dump();
  const std::string commit = build["commit"];
  // A git checkout's tests name its commit; a source tarball's say so plainly.
  const bool hex40 = commit.size() == 40 && std::all_of(commit.begin(), commit.end(), [](char c) {
                       return std::isxdigit(static_cast<unsigned char>(c));
                     });
  EXPECT_TRUE(hex40 || commit == "unknown") << commit;
  ASSERT_TRUE(build["dirty"].is_boolean());
  EXPECT_EQ(build["dirty"].get<bool>(), !build["changed"].empty()) << build.dump();
  EXPECT_TRUE(build["cxx"].is_string());
  ASSERT_TRUE(doc["command_line"].is_array());
  ASSERT_EQ(doc["command_line"].size(), args.size() + 1);
  for (std::size_t i = 0; i < args.size(); ++i) EXPECT_EQ(doc["command_line"][i + 1], args[i]);
  EXPECT_EQ(doc["openacc_runs_on"], openacc_gpu_here() ? "gpu" : "host");
#ifdef ACCLAB_HAVE_OPENACC
  // What the build can do follows from the flags the OpenACC sources were compiled with.
  const std::string flags = build["openacc_flags"];
  EXPECT_EQ(build["openacc_offload"] == "nvptx-none",
            flags.find("-foffload=nvptx") != std::string::npos)
      << build.dump();
#endif
}

TEST(CliRunTest, OneFailureAmongVerifiedResultsStillExitsOne) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,dot_*", "--corrupt-result", "--format", "json"},
           tiny));
  ASSERT_EQ(o.status, 1) << o;
  for (auto& r : parse_json(o.out)["results"]) {
    EXPECT_NE(r["status"], "verified") << r.dump();
  }
}

TEST(CliLadderTest, SpeedupsAgainstTheFirstStep) {
#ifndef ACCLAB_HAVE_OPENACC
  GTEST_SKIP() << "no OpenACC variants in this build";
#endif
  // Written in reverse: the ladder runs in step order whatever the user types.
  for (const std::string glob : {"original,acc_loop", "acc_loop,original"}) {
    SCOPED_TRACE(glob);
    const Outcome o = run_acclab(
        with({"ladder", "vector", "--variant", glob, "--format", "json", "--reps", "2"}, tiny));
    ASSERT_EQ(o.status, 0) << o;
    auto doc = parse_json(o.out);
    EXPECT_EQ(doc["command"], "ladder");
    auto& results = doc["results"];
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0]["variant"], "original");
    EXPECT_EQ(results[1]["variant"], "acc_loop");
    ASSERT_TRUE(results[0]["speedup_vs_first"].is_number()) << results[0].dump();
    ASSERT_TRUE(results[1]["speedup_vs_first"].is_number()) << results[1].dump();
    EXPECT_EQ(results[0]["speedup_vs_first"].get<double>(), 1.0);
    EXPECT_FALSE(results[0].contains("speedup_vs_previous"));
    EXPECT_DOUBLE_EQ(results[1]["speedup_vs_first"].get<double>(),
                     results[0]["time_s"]["median"].get<double>() /
                         results[1]["time_s"]["median"].get<double>());
    EXPECT_TRUE(results[1]["speedup_vs_previous"].is_number());
  }
}

TEST(CliLadderTest, RunHasNoSpeedups) {
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original,dot_openmp", "--format", "json"}, tiny));
  ASSERT_EQ(o.status, 0) << o;
  for (auto& r : parse_json(o.out)["results"]) {
    EXPECT_FALSE(r.contains("speedup_vs_first")) << r.dump();
  }
}

// ---- bad usage: status 2, one line naming the argument ------------------------------------------

struct UsageCase {
  std::string name;
  std::vector<std::string> args;
  std::string names;  // what the stderr line must contain
};

// gtest would otherwise print a parameter as its bytes.
void PrintTo(const UsageCase& c, std::ostream* os) {
  *os << "acclab";
  for (const auto& a : c.args) *os << " " << a;
}

class CliUsageErrorTest : public ::testing::TestWithParam<UsageCase> {};

TEST_P(CliUsageErrorTest, ExitsTwoWithOneLine) {
  const Outcome o = run_acclab(GetParam().args, std::chrono::seconds(60));
  EXPECT_TRUE(is_usage_error(o, {GetParam().names}));
  EXPECT_EQ(o.err.rfind("acclab: ", 0), 0u) << o;
}

INSTANTIATE_TEST_SUITE_P(
    BadArguments, CliUsageErrorTest,
    ::testing::Values(
        UsageCase{"UnknownWorkload", {"run", "nope"}, "'nope'"},
        UsageCase{"LadderUnknownWorkload", {"ladder", "nope"}, "'nope'"},
        UsageCase{"MissingWorkload", {"run"}, "workload"},
        UsageCase{"VariantMatchesNothing",
                  {"run", "vector", "--variant", "nomatch*"},
                  "--variant nomatch*"},
        UsageCase{"UnknownPreset", {"run", "vector", "--preset", "huge"}, "--preset huge"},
        UsageCase{"EmptyPreset", {"run", "vector", "--preset", ""}, "--preset ''"},
        UsageCase{"DevicesBeyondTheLimit", {"run", "apsp", "--devices", "99"}, "--devices 99"},
        UsageCase{"DevicesZero", {"run", "apsp", "--devices", "0"}, "--devices 0"},
        UsageCase{"SetWithoutEquals", {"run", "vector", "--set", "nx"}, "--set nx"},
        UsageCase{"SetUnknownKey", {"run", "vector", "--set", "bogus=1"}, "--set bogus=1"},
        UsageCase{"SetZero", {"run", "vector", "--set", "nx=0"}, "--set nx=0"},
        UsageCase{"SetNegative", {"run", "vector", "--set", "nx=-5"}, "--set nx=-5"},
        UsageCase{"SetNotAnInteger", {"run", "vector", "--set", "nt=ten"}, "--set nt=ten"},
        UsageCase{
            "SetNtTooLargeToVerify", {"ladder", "vector", "--set", "nt=10000000"}, "nt=10000000"},
        UsageCase{"RepsZero", {"run", "vector", "--reps", "0"}, "--reps"},
        UsageCase{"RepsNotANumber", {"run", "vector", "--reps", "many"}, "--reps"},
        UsageCase{"RunFormatXml", {"run", "vector", "--format", "xml"}, "--format xml"},
        UsageCase{"ListFormatXml", {"list", "--format", "xml"}, "--format xml"},
        UsageCase{"InfoFormatXml", {"info", "--format", "xml"}, "--format xml"},
        UsageCase{"UnknownOption", {"run", "vector", "--frobnicate"}, "--frobnicate"},
        UsageCase{"ProfileAsCsv", {"run", "vector", "--profile", "--format", "csv"}, "--profile"},
        UsageCase{"ProfileOnList", {"list", "--profile"}, "--profile"},
        UsageCase{"NoSubcommand", {}, "subcommand"},
        UsageCase{"DevicesTwiceOver",
                  {"run", "apsp", "--devices", "1,2", "--set", "devices=2"},
                  "--devices 1,2 and --set devices=2"},
        // int would wrap these (2^31 to a negative count, 10^11 to a run that never ends).
        UsageCase{"OmpTeamsPastTheLimit",
                  {"run", "vector", "--variant", "triad_omp_target_tuned", "--set",
                   "omp_teams=2147483648", "--set", "omp_threads=32"},
                  "omp_teams must be 0 to 65536"},
        UsageCase{"OmpThreadsPastTheLimit",
                  {"run", "vector", "--variant", "triad_omp_target_tuned", "--set", "omp_teams=4",
                   "--set", "omp_threads=1025"},
                  "omp_threads must be 0 to 1024"}),
    [](const ::testing::TestParamInfo<UsageCase>& info) { return info.param.name; });

TEST(CliUsageTest, TooLargeForMemoryFailsBeforeAllocating) {
  // 4e12 elements (48 TB): refused before any array exists, so the process stays small and
  // ends at once rather than swapping or being killed.
  const Outcome o = run_acclab({"run", "vector", "--set", "nx=2000000", "--set", "ny=2000000"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"nx=2000000"}));
  EXPECT_LT(o.max_rss_kib, 256 * 1024) << "peak memory " << o.max_rss_kib << " KiB";
}

TEST(CliUsageTest, TooLargeForThisHostFailsBeforeAllocating) {
  // 2^34 elements: within what the workload indexes, but 192 GiB of host memory.
  Machine machine;
  if (machine.host().available_bytes <= 0 ||
      machine.host().available_bytes >= 3.0 * 4 * std::ldexp(1.0, 34)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o =
      run_acclab({"run", "vector", "--set", "nx=131072", "--set", "ny=131072", "--set", "nt=1"},
                 std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"host memory"}));
  EXPECT_LT(o.max_rss_kib, 256 * 1024) << "peak memory " << o.max_rss_kib << " KiB";
}

TEST(CliUsageTest, AMemoryRefusalNamesTheVariantsOwnParameters) {
  // apsp/serial at n = 46340: 40 GiB of host memory. The refusal names the problem, not the
  // tunings of the other steps (gangs_per_sm is optimize_resident's), which serial never reads.
  Machine machine;
  const double have = machine.host().available_bytes;
  if (have <= 0 || have >= 48 * std::ldexp(1.0, 30)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o = run_acclab({"run", "apsp", "--variant", "serial", "--set", "n=46340"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"apsp/serial", "\"n\":46340", "host memory"}));
  EXPECT_EQ(o.err.find("gangs_per_sm"), std::string::npos) << o.err;
}

TEST(CliUsageTest, UnavailableVariantByExactNameIsAUsageError) {
  if (cuda_gpu_here()) GTEST_SKIP() << "this machine has a CUDA GPU";
#ifndef ACCLAB_HAVE_CUDA
  GTEST_SKIP() << "no CUDA variants in this build";
#endif
  const Outcome o = run_acclab({"run", "vector", "--variant", "cuda"});
  EXPECT_TRUE(is_usage_error(o, {"--variant cuda"}));
  // A glob that happens to match only unavailable variants is a report, not an error.
  const Outcome glob = run_acclab({"run", "vector", "--variant", "cuda*", "--format", "json"});
  ASSERT_EQ(glob.status, 0) << glob;
  EXPECT_EQ(parse_json(glob.out)["results"][0]["status"], "unavailable");
}

// Every exact name in a comma-separated list is checked for availability, not only the first.
TEST(CliUsageTest, UnavailableVariantInAListOfExactNamesIsAUsageError) {
  if (cuda_gpu_here()) GTEST_SKIP() << "this machine has a CUDA GPU";
  EXPECT_TRUE(
      is_usage_error(run_acclab({"run", "vector", "--variant", "original,cuda"}), {"cuda"}));
}

// nx*ny would wrap around in std::int64_t (nx = ny = 2^32 gives 0 elements): validation must
// catch it before the product is formed.
TEST(CliUsageTest, SizesWhoseProductOverflowsAreUsageErrors) {
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "vector", "--variant", "original", "--set",
                                         "nx=4294967296", "--set", "ny=4294967296"},
                                        std::chrono::seconds(30)),
                             {"nx=4294967296"}));
}

// CLI11 alone answers "A subcommand is required" for an unknown subcommand, which does not name
// the word the user typed.
TEST(CliUsageTest, UnknownSubcommandIsNamed) {
  EXPECT_TRUE(is_usage_error(run_acclab({"frobnicate"}), {"frobnicate"}));
}

// ---- --out: whole or nothing -------------------------------------------------------------------

TEST(CliOutTest, WritesValidJsonAndNoTemporaryFiles) {
  TempDir dir;
  const fs::path target = dir.path() / "results.json";
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original", "--format", "json", "--out", target.string()},
           tiny));
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.out.empty()) << "the report goes to the file, not stdout\n" << o;
  auto doc = parse_json(read_file(target));
  EXPECT_EQ(doc["schema"], "acclab.run/1");
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_EQ(doc["results"][0]["status"], "verified");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"results.json"});
}

TEST(CliOutTest, ReplacesAnExistingFile) {
  TempDir dir;
  const fs::path target = dir.path() / "results.csv";
  std::ofstream(target) << "old contents\n";
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original", "--format", "csv", "--out", target.string()},
           tiny));
  ASSERT_EQ(o.status, 0) << o;
  const std::string text = read_file(target);
  EXPECT_EQ(text.rfind("workload,", 0), 0u) << text;
  EXPECT_EQ(text.find("old contents"), std::string::npos) << text;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"results.csv"});
}

TEST(CliOutTest, UnwritableDirectoryIsAUsageErrorAndCreatesNothing) {
  ASSERT_FALSE(fs::exists("/nonexistent-dir"));
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original", "--out", "/nonexistent-dir/x.json"}, tiny));
  EXPECT_TRUE(is_usage_error(o, {"--out /nonexistent-dir/x.json"}));
  EXPECT_FALSE(fs::exists("/nonexistent-dir"));

  TempDir dir;
  const fs::path target = dir.path() / "missing" / "x.json";
  const Outcome nested =
      run_acclab(with({"run", "vector", "--variant", "original", "--out", target.string()}, tiny));
  EXPECT_TRUE(is_usage_error(nested, {"--out " + target.string()}));
  EXPECT_TRUE(dir.entries().empty());
}

// Failures after the output file is opened (--format is checked then) and before it (every
// other check): either way no file, not even an empty or partial one, is left at --out.
class CliOutFailureTest : public ::testing::TestWithParam<UsageCase> {};

TEST_P(CliOutFailureTest, LeavesNoFile) {
  TempDir dir;
  const fs::path target = dir.path() / "x.json";
  const Outcome o = run_acclab(with(GetParam().args, {"--out", target.string()}));
  EXPECT_TRUE(is_usage_error(o, {GetParam().names}));
  EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();
}

TEST_P(CliOutFailureTest, LeavesAnExistingFileUntouched) {
  TempDir dir;
  const fs::path target = dir.path() / "x.json";
  std::ofstream(target) << "{\"previous\": true}\n";
  const Outcome o = run_acclab(with(GetParam().args, {"--out", target.string()}));
  EXPECT_TRUE(is_usage_error(o, {GetParam().names}));
  EXPECT_EQ(read_file(target), "{\"previous\": true}\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.json"});
}

INSTANTIATE_TEST_SUITE_P(
    BadArguments, CliOutFailureTest,
    ::testing::Values(UsageCase{"FormatXml",
                                {"run", "vector", "--variant", "original", "--format", "xml"},
                                "--format xml"},
                      UsageCase{"SetZero", {"run", "vector", "--set", "nx=0"}, "--set nx=0"},
                      UsageCase{"TooLarge",
                                {"run", "vector", "--set", "nx=2000000", "--set", "ny=2000000"},
                                "nx=2000000"},
                      UsageCase{"UnknownVariant",
                                {"ladder", "vector", "--variant", "nomatch*"},
                                "--variant nomatch*"},
                      UsageCase{"EmptyPreset",
                                {"run", "vector", "--variant", "original", "--preset", ""},
                                "--preset"}),
    [](const ::testing::TestParamInfo<UsageCase>& info) { return info.param.name; });

TEST(CliOutTest, DirectoryIsRefusedBeforeTheRun) {
  TempDir dir;
  // A run that would take minutes: refused at once, before any of it.
  const Outcome o = run_acclab({"run", "jacobi2d", "--variant", "serial", "--preset", "large",
                                "--out", dir.path().string()},
                               std::chrono::seconds(20));
  EXPECT_TRUE(is_usage_error(o, {"--out", "is a directory"}));
  EXPECT_LT(o.wall_s, 10) << o;
}

// A run stopped by a signal while it computes: its temporary report is removed, no report
// appears, and the signal still ends the process.
class CliInterruptTest : public ::testing::TestWithParam<int> {};

TEST_P(CliInterruptTest, LeavesNoFileBehind) {
  TempDir dir;
  const fs::path target = dir.path() / "x.json";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A test runner may start us with SIGINT ignored; a user's shell would not.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    execl(ACCLAB_BINARY, ACCLAB_BINARY, "run", "jacobi2d", "--variant", "serial", "--preset",
          "large", "--out", target.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the temporary report: the run is then under way.
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    started = !dir.entries().empty();
  }
  kill(child, GetParam());
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(started) << "no temporary file appeared";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam()) << status;
  EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();
}

INSTANTIATE_TEST_SUITE_P(Signals, CliInterruptTest, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(info.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

TEST(CliOutTest, AStaleTemporaryOfAnEndedRunIsCleared) {
  TempDir dir;
  const fs::path target = dir.path() / "x.json";
  // The name a run killed with SIGKILL would leave (no handler runs then), of a process id that
  // is surely not alive: above the kernel's largest.
  const fs::path stale = dir.path() / ".x.json.tmp-99999999-0";
  std::ofstream(stale) << "{";
  const Outcome o = run_acclab(with(
      {"run", "vector", "--variant", "original", "--format", "json", "--out", target.string()},
      tiny));
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.json"});
}

// ---- explain ---------------------------------------------------------------------------------

#ifdef ACCLAB_HAVE_OPENACC
TEST(CliExplainTest, OpenAccVariantShowsTheCompilersLoopDecisions) {
  // acc_loop's calc: GCC (decompose) maps the outer loop to gang/worker, the inner to vector.
  const Outcome o = run_acclab({"explain", "vector/acc_loop"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("#pragma acc loop independent"), std::string::npos) << o;
  EXPECT_NE(o.out.find("vector loop parallelism"), std::string::npos) << o;
  // Step 03 has no `independent`: its loops stay sequential, and explain must say so.
  const Outcome seq = run_acclab({"explain", "vector/acc_kernels_copy"});
  ASSERT_EQ(seq.status, 0) << seq;
  EXPECT_NE(seq.out.find("seq loop parallelism"), std::string::npos) << seq;
  EXPECT_EQ(seq.out.find("made addressable"), std::string::npos) << seq;
}
#endif

#ifdef ACCLAB_HAVE_CUDA
TEST(CliExplainTest, CudaVariantShowsPtxasResourcesPerKernel) {
  const Outcome o = run_acclab({"explain", "jacobi2d/cuda"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("kernel acclab::jacobi2d::cuda::"), std::string::npos) << o;
  EXPECT_NE(o.out.find("registers"), std::string::npos) << o;
  EXPECT_NE(o.out.find("spill"), std::string::npos) << o;
}
#endif

TEST(CliExplainTest, VendorLibraryVariantSaysSo) {
#ifdef ACCLAB_HAVE_CUDA
  const Outcome o = run_acclab({"explain", "matmul/cublas"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("vendor library"), std::string::npos) << o;
#else
  GTEST_SKIP() << "cublas is built only with CUDA";
#endif
}

TEST(CliExplainTest, CpuVariantSaysSo) {
  const Outcome o = run_acclab({"explain", "jacobi2d/serial"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("A CPU variant"), std::string::npos) << o;
}

TEST(CliExplainTest, BadTargetsAreUsageErrors) {
  EXPECT_TRUE(is_usage_error(run_acclab({"explain", "vector/nope"}), {"vector/nope"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"explain", "vector"}), {"WORKLOAD/VARIANT"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"explain", "nowork/acc_loop"}), {"nowork"}));
}

// ---- tunings -----------------------------------------------------------------------------------

// jacobi2d's small problem, cut to a few sweeps.
const std::vector<std::string> tiny_jacobi = {"--set", "rows=18", "--set", "cols=12",
                                              "--set", "iters=4", "--reps", "1"};

#ifdef ACCLAB_HAVE_OPENACC
TEST(CliTuningTest, ASetOfATuningNoSelectedVariantHasIsRefused) {
  const Outcome o =
      run_acclab(with({"run", "jacobi2d", "--variant", "serial,openmp", "--set", "async=0"},
                      tiny_jacobi));
  EXPECT_TRUE(is_usage_error(o, {"--set async=0", "acc_tuned"})) << o;
}

TEST(CliTuningTest, EachResultNamesTheTuningItRanWith) {
  const Outcome o = run_acclab(with({"run", "jacobi2d", "--variant", "serial,acc_tuned", "--set",
                                     "async=0", "--format", "json"},
                                    tiny_jacobi));
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["variant"], "serial");
  EXPECT_EQ(doc["results"][0]["tuning"], "default");
  EXPECT_EQ(doc["results"][1]["variant"], "acc_tuned");
  EXPECT_EQ(doc["results"][1]["tuning"], "async=0");
  // A result's params are the ones its step reads: acc_tuned's async is no param of serial's.
  EXPECT_FALSE(doc["results"][0]["params"].contains("async")) << doc["results"][0]["params"];
  EXPECT_EQ(doc["results"][1]["params"]["async"], 0) << doc["results"][1]["params"];
  EXPECT_EQ(doc["results"][0]["params"]["rows"], doc["results"][1]["params"]["rows"]);
  // The table says it too, beside the result.
  const Outcome table =
      run_acclab(with({"run", "jacobi2d", "--variant", "acc_tuned"}, tiny_jacobi));
  ASSERT_EQ(table.status, 0) << table;
  EXPECT_NE(table.out.find("tuning async=1"), std::string::npos) << table;
}
#endif

TEST(CliTuningTest, ProblemParametersPassWhateverIsSelected) {
  const Outcome o = run_acclab(with({"run", "jacobi2d", "--variant", "serial"}, tiny_jacobi));
  EXPECT_EQ(o.status, 0) << o;
}

}  // namespace
}  // namespace acclab
