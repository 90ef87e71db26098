// diffusion3d through the real binary: reports, ladder speedups, and bad input (status 2, one
// line).
#include <gtest/gtest.h>

#include "diffusion3d_test.hpp"

namespace acclab::diffusion3d_test {
namespace {

// ---- the command line --------------------------------------------------------------------------

TEST(DiffusionCliTest, RunJsonVerifiesEveryAvailableVariantOnTheSmallPreset) {
  const Outcome o = run_acclab({"run", "diffusion3d", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["workload"], "diffusion3d");
  EXPECT_EQ(doc["preset"], "small");
  ASSERT_EQ(doc["results"].size(), diffusion_variant_names().size());
  const Problem p = problem({});
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    const auto& params = r["params"];
    EXPECT_EQ(params["nx"], 24);
    EXPECT_EQ(params["ny"], 20);
    EXPECT_EQ(params["nz"], 16);
    EXPECT_EQ(params["kappa"], 0.1);
    EXPECT_EQ(params["end_time"], 0.1);
    EXPECT_FALSE(params.contains("steps")) << params.dump();
    if (r["status"] == "unavailable") {
      EXPECT_EQ(r["backend"], "cuda") << "only CUDA is unavailable without a GPU";
      EXPECT_TRUE(r["note"].is_string());
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    const auto& out = r["outputs"];
    EXPECT_EQ(out["steps"], 58);
    ASSERT_TRUE(out["time"].is_number()) << out.dump();
    EXPECT_DOUBLE_EQ(out["time"].get<double>(), 58.0 / 576);
    ASSERT_TRUE(out["error"].is_number()) << out.dump();
    EXPECT_GT(out["error"].get<double>(), 0.0);
    EXPECT_LE(out["error"].get<double>(),
              truncation_bound(p, 58) + rounding_bound(58) + diffusion3d::original_tolerance(58));
    ASSERT_TRUE(r["gflops"].is_number());
    EXPECT_GT(r["gflops"].get<double>(), 0.0);
    const std::set<std::string> copies = {"acc_kernels", "acc_loop", "acc_data_present",
                                          "omp_target_map", "omp_target_data"};
    const bool copying = copies.count(r["variant"].get<std::string>()) > 0;
    EXPECT_EQ(r["transfer_s"].is_number(), copying) << r["transfer_s"];
    EXPECT_EQ(r["transfer_share"].is_number(), copying) << r["transfer_share"];
    ++verified;
  }
  EXPECT_GE(verified, 2);  // at least original and openmp
}

TEST(DiffusionCliTest, TablePrintsGflopsAndTheError) {
  const Outcome o = run_acclab({"run", "diffusion3d", "--variant", "original", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("GFLOP/s"), std::string::npos) << o;
  EXPECT_NE(o.out.find("GB/s"), std::string::npos) << o;
  EXPECT_NE(o.out.find("error = "), std::string::npos) << o;
  EXPECT_NE(o.out.find("steps = 58"), std::string::npos) << o;
  EXPECT_NE(o.out.find("verified"), std::string::npos) << o;
  // The original's row has a GFLOP/s figure: the columns end "GFLOP/s GB/s %limit status"
  // (the times before them have units, so count back from the status).
  std::istringstream lines(o.out);
  std::string line;
  std::vector<std::string> header, row;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    if (line.find("GFLOP/s") != std::string::npos) header = tokens;
    if (tokens.size() > 2 && tokens[0] == "diffusion" && tokens[1] == "original") row = tokens;
  }
  ASSERT_FALSE(header.empty()) << o;
  ASSERT_FALSE(row.empty()) << o;
  const auto column = [](const std::vector<std::string>& tokens, const std::string& name) {
    return std::size_t(std::find(tokens.begin(), tokens.end(), name) - tokens.begin());
  };
  ASSERT_EQ(column(header, "status") - column(header, "GFLOP/s"), 3u) << o;
  const std::size_t status = column(row, "verified");
  ASSERT_LT(status, row.size()) << o;
  ASSERT_GE(status, 3u) << o;
  EXPECT_GT(std::stod(row[status - 3]), 0.0) << o;
}

TEST(DiffusionCliTest, LadderReportsSpeedupsAgainstOriginal) {
  const Outcome o =
      run_acclab({"ladder", "diffusion3d", "--variant", "original,openmp", "--format", "json"});
  test::expect_ladder_of_two(o, "original", "openmp");
}

// ---- bad input: status 2, one line naming the parameter ---------------------------------------

using test::BadInputTest;

// The stability bound on the small preset (24 x 20 x 16, kappa = 0.1):
// 0.5 / (0.1 (24^2 + 20^2 + 16^2)) = 0.5 / 123.2 = 0.00405844..., printed as %g.
INSTANTIATE_TEST_SUITE_P(
    DiffusionRun, BadInputTest,
    ::testing::Values(
        test::bad_run("diffusion3d", "Nx1", {"nx=1"}, {"nx=1"}),
        test::bad_run("diffusion3d", "Ny0", {"ny=0"}, {"ny=0"}),
        test::bad_run("diffusion3d", "NzNegative", {"nz=-3"}, {"nz=-3"}),
        test::bad_run("diffusion3d", "KappaZero", {"kappa=0"}, {"kappa=0"}),
        test::bad_run("diffusion3d", "KappaNegative", {"kappa=-1"}, {"kappa=-1"}),
        test::bad_run("diffusion3d", "EndTimeZero", {"end_time=0"}, {"end_time=0"}),
        test::bad_run("diffusion3d", "EndTimeNegative", {"end_time=-1"}, {"end_time=-1"}),
        test::bad_run("diffusion3d", "EndTimeShorterThanHalfAStep", {"end_time=1e-9"},
                      {"end_time"}),
        test::bad_run("diffusion3d", "DtZero", {"dt=0"}, {"dt=0"}),
        test::bad_run("diffusion3d", "DtAboveStability", {"dt=0.01"},
                      {"dt=0.01", "stability", "0.00405844"}),
        test::bad_run("diffusion3d", "DtJustAboveStability", {"dt=0.00406"},
                      {"dt=0.00406", "stability", "0.00405844"}),
        test::bad_run("diffusion3d", "DtAboveStabilityNonCubic",
                      {"nx=17", "ny=9", "nz=33", "dt=0.01"}, {"dt=0.01", "stability", "17x9x33"}),
        test::bad_run("diffusion3d", "StepsZero", {"steps=0"}, {"steps=0"}),
        test::bad_run("diffusion3d", "Async2", {"async=2"}, {"async=2"}),
        test::bad_run("diffusion3d", "CudaPlanes48", {"cuda_planes=48"}, {"cuda_planes=48"}),
        test::bad_run("diffusion3d", "CudaPlanesNegative", {"cuda_planes=-16"},
                      {"cuda_planes=-16"}),
        test::bad_run("diffusion3d", "CudaTileY32", {"cuda_tile_y=32"}, {"cuda_tile_y=32"}),
        test::bad_run("diffusion3d", "CudaTileYZero", {"cuda_tile_y=0"}, {"cuda_tile_y=0"}),
        // The loop shapes are steps of the ladder (acc_flat, ...), no longer a parameter.
        test::bad_run("diffusion3d", "AccShapeIsNoParameter", {"acc_shape=flat"}, {"acc_shape"}),
        test::bad_run("diffusion3d", "Grid4000Cubed", {"nx=4000", "ny=4000", "nz=4000"},
                      {"nx=4000"}),
        test::bad_run("diffusion3d", "TwoTo31Cells", {"nx=2048", "ny=1024", "nz=1024"},
                      {"nx=2048", "nz=1024"}),
        test::bad_run("diffusion3d", "ProductOverflows", {"nx=2097152", "ny=2097152", "nz=2097152"},
                      {"nx=2097152"}),
        test::bad_run("diffusion3d", "EndTimeOver2e9Steps", {"end_time=1e9"}, {"end_time", "2e9"}),
        test::bad_run("diffusion3d", "TinyDtOver2e9Steps", {"end_time=1", "dt=1e-12"},
                      {"end_time", "2e9"})),
    test::bad_input_name);

TEST(DiffusionCliUsageTest, TooLargeForHostMemoryFailsBeforeAllocating) {
  // 1290^3 = 2.15e9 cells (within 2^31), 5 float fields: about 40 GiB.
  test::expect_refused_for_host_memory("diffusion3d", {"nx=1290", "ny=1290", "nz=1290", "steps=1"},
                                       {"host memory", "1290"});
}

// A positive but subnormal kappa (1e-320) makes the default dt = 0.1 min(h^2) / kappa and the
// stability limit both overflow to inf, so `dt > limit` alone cannot catch it: it must be
// refused as bad input (exit 2, one line), not run into NaN.
TEST(DiffusionCliUsageTest, SubnormalKappaIsRefusedNotRunIntoNaN) {
  const std::string message = validate_error({"kappa=1e-320", "steps=1"});
  EXPECT_NE(message, "") << "accepted: dt = " << problem({"kappa=1e-320", "steps=1"}).dt;
  const Outcome o = run_acclab({"run", "diffusion3d", "--variant", "original", "--reps", "1",
                                "--set", "kappa=1e-320", "--set", "steps=1"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"1e-320"}));
}

// verify() builds the serial reference (two fields) while the instance still holds its three:
// host_bytes must count 5 fields, and the measured peak must stay within it. (400 x 400 x 256:
// 5 fields are 800 MiB, above the ~530 MiB the host bandwidth probe itself touches.)
TEST(DiffusionCliUsageTest, HostBytesCoverThePeakOfARun) {
  test::expect_peak_within_host_bytes("diffusion3d", "original",
                                      {"nx=400", "ny=400", "nz=256", "steps=1"});
}

}  // namespace
}  // namespace acclab::diffusion3d_test
