// jacobi2d through the real binary: reports, ladder speedups, and bad input (status 2, one
// line).
#include <gtest/gtest.h>

#include "jacobi2d_test.hpp"

namespace acclab::jacobi2d_test {
namespace {

// ---- the command line -------------------------------------------------------------------------

std::size_t registered_jacobi_variants() { return jacobi_variant_names().size(); }

TEST(JacobiCliTest, RunJsonVerifiesEveryAvailableVariantOnTheSmallPreset) {
  const Outcome o = run_acclab({"run", "jacobi2d", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["workload"], "jacobi2d");
  EXPECT_EQ(doc["preset"], "small");
  ASSERT_EQ(doc["results"].size(), registered_jacobi_variants());
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    const auto& params = r["params"];
    EXPECT_EQ(params["rows"], 258);
    EXPECT_EQ(params["cols"], 130);
    EXPECT_EQ(params["height"], 1.0);
    EXPECT_EQ(params["width"], 2.0);
    EXPECT_FALSE(params.contains("iters")) << params.dump();
    EXPECT_FALSE(params.contains("tol")) << params.dump();
    if (r["status"] == "unavailable") {
      EXPECT_EQ(r["backend"], "cuda") << "only CUDA is unavailable without a GPU";
      EXPECT_TRUE(r["note"].is_string());
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_EQ(r["outputs"]["sweeps"], 100);
    EXPECT_LE(r["outputs"]["difference"].get<double>(), r["outputs"]["tolerance"].get<double>());
    EXPECT_FALSE(r["outputs"].contains("residual"));
    const bool copies = r["variant"] == "acc_copy_per_iter" || r["variant"] == "acc_data_region" ||
                        r["variant"] == "omp_target_map" || r["variant"] == "omp_target_data";
    EXPECT_EQ(r["transfer_s"].is_number(), copies) << r["transfer_s"];
    EXPECT_EQ(r["transfer_share"].is_number(), copies) << r["transfer_share"];
    ++verified;
  }
  EXPECT_GE(verified, 2);  // at least serial and openmp
}

TEST(JacobiCliTest, LadderReportsSpeedupsAgainstSerial) {
  const Outcome o =
      run_acclab({"ladder", "jacobi2d", "--variant", "serial,openmp", "--format", "json"});
  test::expect_ladder_of_two(o, "serial", "openmp");
}

TEST(JacobiCliTest, TolModeReportsResidualSweepsAndError) {
  // One timed run: each is 2 solves (warm-up, timed) of some 900 sweeps per variant.
  const Outcome o =
      run_acclab({"run", "jacobi2d", "--set", "tol=1e-4", "--set", "rows=33", "--set", "cols=17",
                  "--set", "iters=100000", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), registered_jacobi_variants());
  const auto p =
      jacobi2d::problem_of(jacobi_params({"tol=1e-4", "rows=33", "cols=17", "iters=100000"}));
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    EXPECT_EQ(r["params"]["tol"], 1e-4);
    if (r["status"] == "unavailable") continue;
    ASSERT_EQ(r["status"], "verified") << r["error"];
    const auto& out = r["outputs"];
    ASSERT_TRUE(out["residual"].is_number()) << out.dump();
    ASSERT_TRUE(out["sweeps"].is_number_integer()) << out.dump();
    ASSERT_TRUE(out["max_error"].is_number()) << out.dump();
    EXPECT_GE(out["residual"].get<double>(), 0.0);
    EXPECT_LT(out["residual"].get<double>(), 1e-4);
    const auto sweeps = out["sweeps"].get<std::int64_t>();
    EXPECT_GT(sweeps, 0);
    EXPECT_LT(sweeps, 100000);
    EXPECT_EQ(sweeps % 10, 0) << "checks every 10 sweeps by default";
    EXPECT_LE(out["max_error"].get<double>(),
              jacobi2d::converged_error_bound(p, out["residual"].get<double>()));
    ++verified;
  }
  EXPECT_GE(verified, 2);
}

// tol alone: iters defaults to the cap from the spectral radius, not to a fixed sweep count
// (the small preset needs about 106000 sweeps for 1e-7, 24 s a solve: a smaller grid here).
TEST(JacobiCliTest, TolAloneConvergesWithinTheDefaultCap) {
  const Outcome o =
      run_acclab({"run", "jacobi2d", "--variant", "serial,openmp", "--set", "tol=1e-7", "--set",
                  "rows=33", "--set", "cols=17", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  const auto p = jacobi2d::problem_of(jacobi_params({"tol=1e-7", "rows=33", "cols=17"}));
  ASSERT_EQ(doc["results"].size(), 2u);
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    EXPECT_FALSE(r["params"].contains("iters")) << r["params"].dump();
    ASSERT_EQ(r["status"], "verified") << r["error"];
    const auto sweeps = r["outputs"]["sweeps"].get<std::int64_t>();
    EXPECT_LT(r["outputs"]["residual"].get<double>(), 1e-7);
    EXPECT_LT(sweeps, p.iters);
    EXPECT_GT(sweeps, 100) << "more than the iters-mode default";
    EXPECT_LE(r["outputs"]["difference"].get<double>(), r["outputs"]["tolerance"].get<double>());
  }
}

// ---- bad input: status 2, one line naming the parameter -----------------------------------------

using test::BadInputTest;

INSTANTIATE_TEST_SUITE_P(
    Jacobi2dRun, BadInputTest,
    ::testing::Values(test::bad_run("jacobi2d", "Rows2", {"rows=2"}, {"rows=2", "rows"}),
                      test::bad_run("jacobi2d", "Cols2", {"cols=2"}, {"cols=2"}),
                      test::bad_run("jacobi2d", "Rows0", {"rows=0"}, {"rows=0"}),
                      test::bad_run("jacobi2d", "HeightZero", {"height=0"}, {"height=0"}),
                      test::bad_run("jacobi2d", "HeightNegative", {"height=-1"}, {"height=-1"}),
                      test::bad_run("jacobi2d", "WidthZero", {"width=0"}, {"width=0"}),
                      test::bad_run("jacobi2d", "ItersZero", {"iters=0"}, {"iters=0"}),
                      test::bad_run("jacobi2d", "TolZero", {"tol=0"}, {"tol=0"}),
                      test::bad_run("jacobi2d", "TolNegative", {"tol=-1"}, {"tol=-1"}),
                      test::bad_run("jacobi2d", "CheckEveryZero", {"check_every=0"},
                                    {"check_every=0"}),
                      test::bad_run("jacobi2d", "Async2", {"async=2"}, {"async=2"}),
                      test::bad_run("jacobi2d", "MoreThan2To31Points", {"rows=65536", "cols=32769"},
                                    {"rows=65536", "cols=32769"}),
                      test::bad_run("jacobi2d", "ProductOverflows",
                                    {"rows=4294967296", "cols=4294967296"}, {"rows=4294967296"})),
    test::bad_input_name);

TEST(JacobiCliUsageTest, TooLargeForHostMemoryFailsBeforeAllocating) {
  // 2e9 points (within 2^31), 4 float grids: about 30 GiB.
  test::expect_refused_for_host_memory("jacobi2d", {"rows=2000000", "cols=1000"},
                                       {"host memory", "rows", "2000000"});
}

// An iters-mode verify() builds the serial reference (two grids) while the instance still holds
// its three: host_bytes must count 5 grids, and the measured peak must stay within it.
TEST(JacobiCliUsageTest, HostBytesCoverThePeakOfAnItersModeRun) {
  test::expect_peak_within_host_bytes("jacobi2d", "serial", {"rows=8193", "cols=8193", "iters=1"});
}

// Extents whose float arithmetic breaks down are bad input, not a failed verification:
// height=1e20 makes x^2 + y^2 overflow float, height=width=1e-30 makes the spacings squared 0.
TEST(JacobiCliUsageTest, ExtentsOutsideFloatRangeAreUsageErrors) {
  EXPECT_TRUE(is_usage_error(
      run_acclab({"run", "jacobi2d", "--variant", "serial", "--reps", "1", "--set", "rows=5",
                  "--set", "cols=5", "--set", "iters=1", "--set", "height=1e20"}),
      {"height"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "jacobi2d", "--variant", "serial", "--reps", "1",
                                         "--set", "rows=5", "--set", "cols=5", "--set", "iters=1",
                                         "--set", "height=1e-30", "--set", "width=1e-30"}),
                             {"1e-30"}));
}

}  // namespace
}  // namespace acclab::jacobi2d_test
