// acclab run apsp and acclab ladder apsp, the real binary: the ladder, --devices, --set
// paths=1, and bad parameters (status 2, one line).
#include <gtest/gtest.h>

#include "apsp_test.hpp"

namespace acclab::apsp_test {
namespace {

// ---- the command line --------------------------------------------------------------------------

TEST(ApspCliTest, LadderOnTheSmallPresetVerifies) {
  const Outcome o = run_acclab({"ladder", "apsp", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), test::variant_names("apsp").size());
  EXPECT_EQ(doc["results"][0]["variant"], "serial");
  for (const auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    if (test::unavailable_cuda_step(r)) continue;
    EXPECT_EQ(r["status"], "verified") << r["error"];
    // 97^3 relaxations, two flops each.
    EXPECT_NEAR(r["gflops"].get<double>() * r["time_s"]["median"].get<double>() * 1e9,
                2.0 * 97 * 97 * 97, 1.0);
  }
}

TEST(ApspCliTest, DevicesListRunsEveryVariantOncePerCount) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  const Outcome o = run_acclab({"run", "apsp", "--variant", "multidevice", "--devices", "1,2,3",
                                "--reps", "1", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  const auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const auto& r = doc["results"][i];
    EXPECT_EQ(r["params"]["devices"], i + 1);
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_NE(r["note"].get<std::string>().find(fmt::format("devices={}", i + 1)),
              std::string::npos);
    // The same bits on every count: the digest of one run is the others'.
    EXPECT_EQ(r["outputs"]["matrix_digest"], doc["results"][0]["outputs"]["matrix_digest"]);
  }
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "matmul", "--devices", "2"}), {"--devices"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"ladder", "apsp", "--devices", "1,2"}), {"--devices"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "apsp", "--devices", "0"}), {"devices"}));
  // A count that nothing selected would use is refused, not noted and ignored.
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "apsp", "--variant", "serial", "--devices", "2"}),
                             {"--devices 2:", "apsp/serial", "apsp/multidevice"}));
  // The range said whole, through --set as through --devices.
  EXPECT_TRUE(
      is_usage_error(run_acclab({"run", "apsp", "--variant", "multidevice", "--set", "devices=99"}),
                     {"--set devices=99: devices must be 1 to 64"}));
}

using test::BadInputTest;

INSTANTIATE_TEST_SUITE_P(
    ApspRun, BadInputTest,
    ::testing::Values(test::bad_set("apsp", "n=0"), test::bad_set("apsp", "n=100000"),
                      test::bad_set("apsp", "edges_per_vertex=200"),
                      test::bad_set("apsp", "devices=99"), test::bad_set("apsp", "block=0"),
                      test::bad_set("apsp", "semiring=max"), test::bad_set("apsp", "graph=grid"),
                      test::bad_set("apsp", "paths=2"), test::bad_set("apsp", "n=1048577"),
                      test::bad_set("apsp", "paths=-1"), test::bad_set("apsp", "share_gpus=2"),
                      test::bad_set("apsp", "lookahead=maybe"), test::bad_set("apsp", "unroll=3"),
                      test::bad_set("apsp", "gangs_per_sm=3"),
                      test::bad_set("apsp", "gangs_per_sm=0")),
    test::bad_input_name);

// `acclab run apsp ARGS --set paths=1 --reps 1 --format json`: expects `count` results, each
// verified with its paths followed, and returns them for the caller's own checks.
nlohmann::json run_verified_with_paths(std::vector<std::string> args, std::size_t count) {
  args.insert(args.begin(), {"run", "apsp"});
  args.insert(args.end(), {"--set", "paths=1", "--reps", "1", "--format", "json"});
  const Outcome o = run_acclab(args);
  EXPECT_EQ(o.status, 0) << o;
  const auto results = parse_json(o.out).value("results", nlohmann::json::array());
  EXPECT_EQ(results.size(), count);
  for (const auto& r : results) {
    SCOPED_TRACE(r["variant"].dump() + " " + r["params"].dump());
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_GT(r["outputs"].value("paths_checked", 0), 0);
  }
  return results;
}

TEST(ApspCliTest, RunWithPathsVerifiesTheSuccessors) {
  for (const auto& r : run_verified_with_paths(
           {"--variant", "serial,multicore", "--set", "semiring=min-plus"}, 2)) {
    EXPECT_EQ(r["params"]["paths"], 1);
  }
}

TEST(ApspCliTest, MultideviceSuccessorsAreTheSerialLoopsOverOneToFourPartitions) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  for (const char* semiring : {"semiring=max-plus", "semiring=min-plus"}) {
    SCOPED_TRACE(semiring);
    // Blocks of 7 rows: partitions and rounds that do not divide n, pivot rows inside blocks.
    for (const auto& r : run_verified_with_paths(
             {"--variant", "multidevice", "--devices", "1,2,3,4", "--set", "block=7", "--set",
              "n=150", "--set", "edges_per_vertex=3", "--set", semiring},
             4)) {
      const std::string verification = r["verification"].get<std::string>();
      EXPECT_NE(verification.find("successors equal to the serial loop's"), std::string::npos)
          << verification;
    }
  }
}

TEST(ApspCliTest, RunWithPathsRefusesAVariantWithoutSuccessorsBeforeRunningAny) {
  if (!multidevice_built()) GTEST_SKIP() << "no OpenACC variants in this build";
  test::TempDir dir;
  const auto out = dir.path() / "r.json";
  // No --variant: serial and multicore keep successors, managed does not. Nothing may run:
  // serial alone would take minutes at n = 6000, past the harness's timeout.
  const Outcome o = run_acclab({"run", "apsp", "--set", "paths=1", "--set", "n=6000", "--reps", "1",
                                "--format", "json", "--out", out.string()});
  EXPECT_TRUE(is_usage_error(o, {"apsp/managed", "paths=1", "optimize"})) << o;
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace acclab::apsp_test
