// acclab run --out: the whole file or none, whatever fails and whenever the run is
// interrupted.
#include <gtest/gtest.h>

#include "cli_test.hpp"

namespace acclab::cli_test {
namespace {

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
class CliOutFailureTest : public ::testing::TestWithParam<test::BadInput> {};

TEST_P(CliOutFailureTest, LeavesNoFile) {
  TempDir dir;
  const fs::path target = dir.path() / "x.json";
  const Outcome o = run_acclab(with(GetParam().args, {"--out", target.string()}));
  EXPECT_TRUE(is_usage_error(o, GetParam().names));
  EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();
}

TEST_P(CliOutFailureTest, LeavesAnExistingFileUntouched) {
  TempDir dir;
  const fs::path target = dir.path() / "x.json";
  std::ofstream(target) << "{\"previous\": true}\n";
  const Outcome o = run_acclab(with(GetParam().args, {"--out", target.string()}));
  EXPECT_TRUE(is_usage_error(o, GetParam().names));
  EXPECT_EQ(read_file(target), "{\"previous\": true}\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.json"});
}

INSTANTIATE_TEST_SUITE_P(
    BadArguments, CliOutFailureTest,
    ::testing::Values(
        usage("FormatXml", {"run", "vector", "--variant", "original", "--format", "xml"},
              "--format xml"),
        usage("SetZero", {"run", "vector", "--set", "nx=0"}, "--set nx=0"),
        usage("TooLarge", {"run", "vector", "--set", "nx=2000000", "--set", "ny=2000000"},
              "nx=2000000"),
        usage("UnknownVariant", {"ladder", "vector", "--variant", "nomatch*"},
              "--variant nomatch*"),
        usage("EmptyPreset", {"run", "vector", "--variant", "original", "--preset", ""},
              "--preset")),
    test::bad_input_name);

TEST(CliOutTest, DirectoryIsRefusedBeforeTheRun) {
  TempDir dir;
  // A run of minutes on 16384 x 16384 grids (1 GiB each): refused before any of it, so no grid
  // is allocated (a run would also pass the deadline, which only stops a hang).
  const Outcome o = run_acclab(
      {"run", "jacobi2d", "--variant", "serial", "--preset", "large", "--out", dir.path().string()},
      std::chrono::seconds(60));
  EXPECT_TRUE(is_usage_error(o, {"--out", "is a directory"}));
  EXPECT_LT(o.max_rss_kib, test::kRefusalPeakKib) << "peak memory " << o.max_rss_kib << " KiB";
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
  const Outcome o = run_acclab(
      with({"run", "vector", "--variant", "original", "--format", "json", "--out", target.string()},
           tiny));
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.json"});
}

}  // namespace
}  // namespace acclab::cli_test
