// The launch shapes declared as tunings (gangs and workers of the OpenACC resident constructs,
// teams and warps of the OpenMP target resident regions, the CUDA steps' blocks and planes):
// each step's space holds enough points for acclab tune to search, over the values and from the
// default declared, each knob's check refuses a value out of its range (or a shape whose teams
// cannot all be resident at once) with one line, the resident constructs verify at both ends of
// their ranges on the host fallback, and acclab tune measures at least 8 of their points there.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/tune.hpp"
#include "support.hpp"

namespace acclab {
namespace {

using test::all;
using test::check_error;
using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;
using test::variant_names;
using test::variant_of;

struct Step {
  std::string workload, variant;
};

bool registered(const Step& s) {
  const auto names = variant_names(s.workload);
  return std::find(names.begin(), names.end(), s.variant) != names.end();
}

class LaunchShapeSpaceTest : public ::testing::TestWithParam<Step> {};

TEST_P(LaunchShapeSpaceTest, TuneSearchesAtLeastEightPoints) {
  const Step& s = GetParam();
  if (!registered(s)) GTEST_SKIP() << s.variant << " is not built here";
  const tune::Space space =
      tune::space_of(variant_of(s.workload, s.variant), all().workload(s.workload), "seed", {});
  EXPECT_GE(space.size(), 8u) << s.workload << "/" << s.variant;
  for (const auto& fixed : space.fixed) {
    ADD_FAILURE() << s.workload << "/" << s.variant << ": " << fixed.key << " not searched";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, LaunchShapeSpaceTest,
    ::testing::Values(
        Step{"jacobi2d", "acc_resident"}, Step{"diffusion3d", "acc_tuned"},
        Step{"diffusion3d", "cuda"}, Step{"iccg", "cuda"}, Step{"vector", "triad_acc_resident"},
        Step{"vector", "dot_acc_resident"}, Step{"vector", "triad_omp_target_resident"},
        Step{"vector", "dot_omp_target_resident"}, Step{"jacobi2d", "omp_target_resident"},
        Step{"diffusion3d", "omp_target_resident"}, Step{"apsp", "omp_target_resident"},
        Step{"iccg", "omp_target_resident"}, Step{"matmul", "cuda_tiled"},
        Step{"iccg", "optimized"}, Step{"apsp", "cuda_blocked"}),
    [](const auto& info) { return info.param.workload + "_" + info.param.variant; });

struct Knob {
  std::string workload, variant, key;
  std::vector<std::string> values;  // as tune searches them
  std::string default_value;
  std::string seed_default = "";   // where the seed preset has its own; else default_value
  std::string large_default = "";  // the same for the large preset
};

class LaunchShapeKnobTest : public ::testing::TestWithParam<Knob> {};

TEST_P(LaunchShapeKnobTest, SearchedOverItsRangeFromTodaysShape) {
  const Knob& k = GetParam();
  if (!registered({k.workload, k.variant})) GTEST_SKIP() << k.variant << " is not built here";
  for (const std::string preset : {"small", "seed", "large"}) {
    const tune::Space space =
        tune::space_of(variant_of(k.workload, k.variant), all().workload(k.workload), preset, {});
    const auto d = std::find_if(space.dimensions.begin(), space.dimensions.end(),
                                [&](const tune::Dimension& d) { return d.key == k.key; });
    ASSERT_NE(d, space.dimensions.end()) << k.key << " is not searched";
    EXPECT_EQ(d->values, k.values) << k.key;
    ASSERT_LT(d->default_index, d->values.size());
    const std::string& own = preset == "seed"    ? k.seed_default
                             : preset == "large" ? k.large_default
                                                 : "";
    const std::string& expected = own.empty() ? k.default_value : own;
    EXPECT_EQ(d->values[d->default_index], expected) << k.key << " at " << preset;
  }
}

const std::vector<std::string> powers_to_16 = {"1", "2", "4", "8", "16"};
const std::vector<std::string> one_to_4 = {"1", "2", "3", "4"};

INSTANTIATE_TEST_SUITE_P(
    Knobs, LaunchShapeKnobTest,
    ::testing::Values(
        Knob{"vector", "triad_acc_resident", "acc_workers", powers_to_16, "16"},
        Knob{"vector", "triad_acc_resident", "acc_gangs_per_sm", one_to_4, "1"},
        Knob{"vector", "dot_acc_resident", "acc_workers", powers_to_16, "16"},
        Knob{"vector", "dot_acc_resident", "acc_gangs_per_sm", one_to_4, "1"},
        Knob{"vector", "triad_omp_target_resident", "omp_thread_limit", powers_to_16, "16", "1"},
        Knob{"vector", "triad_omp_target_resident", "omp_teams_per_sm", one_to_4, "1", "4"},
        Knob{"vector", "dot_omp_target_resident", "omp_thread_limit", powers_to_16, "16", "1"},
        Knob{"vector", "dot_omp_target_resident", "omp_teams_per_sm", one_to_4, "1", "4"},
        Knob{"jacobi2d", "omp_target_resident", "omp_thread_limit", powers_to_16, "16", "2"},
        Knob{"jacobi2d", "omp_target_resident", "omp_teams_per_sm", one_to_4, "1", "4"},
        Knob{"diffusion3d", "omp_target_resident", "omp_thread_limit", powers_to_16, "16", "1",
             "2"},
        Knob{"diffusion3d", "omp_target_resident", "omp_teams_per_sm", one_to_4, "1", "4", "3"},
        Knob{"apsp", "omp_target_resident", "omp_thread_limit", powers_to_16, "16", "1"},
        Knob{"apsp", "omp_target_resident", "omp_teams_per_sm", one_to_4, "1", "3"},
        Knob{"iccg", "omp_target_resident", "omp_thread_limit", powers_to_16, "16"},
        Knob{"iccg", "omp_target_resident", "omp_teams_per_sm", one_to_4, "1"},
        Knob{"matmul", "cuda_tiled", "cuda_tile", {"64", "128"}, "64"},
        Knob{"matmul", "cuda_tiled", "cuda_slice", {"16", "32"}, "16"},
        // Optional: unset (4 warps on 64-wide tiles, 16 on 128-wide) first, then the range.
        Knob{"matmul", "cuda_tiled", "cuda_warps", {"", "4", "8", "16"}, ""},
        Knob{"iccg", "optimized", "acc_workers", {"1", "2", "4", "8", "12"}, "12"},
        Knob{"iccg", "optimized", "acc_gangs_per_sm", {"1", "2", "3"}, "1"},
        Knob{"apsp", "cuda_blocked", "cuda_slice", {"8", "16", "32"}, "32"},
        Knob{"apsp", "cuda_blocked", "cuda_min_blocks", {"1", "2", "3"}, "2"}),
    [](const auto& info) {
      return info.param.workload + "_" + info.param.variant + "_" + info.param.key;
    });

struct Refusal {
  std::string workload, variant, set;
};

class LaunchShapeRefusalTest : public ::testing::TestWithParam<Refusal> {};

TEST_P(LaunchShapeRefusalTest, OutOfRangeValueIsAUsageError) {
  const Refusal& r = GetParam();
  if (!registered({r.workload, r.variant})) GTEST_SKIP() << r.variant << " is not built here";
  const std::string key = r.set.substr(0, r.set.find('='));
  EXPECT_TRUE(is_usage_error(
      run_acclab({"run", r.workload, "--variant", r.variant, "--set", r.set, "--reps", "1"}),
      {key}));
}

INSTANTIATE_TEST_SUITE_P(
    Values, LaunchShapeRefusalTest,
    ::testing::Values(Refusal{"jacobi2d", "acc_resident", "acc_workers=3"},
                      Refusal{"jacobi2d", "acc_resident", "acc_workers=32"},
                      Refusal{"jacobi2d", "acc_resident", "acc_gangs_per_sm=5"},
                      Refusal{"jacobi2d", "acc_resident", "acc_gangs_per_sm=2"},
                      Refusal{"diffusion3d", "acc_tuned", "acc_workers=12"},
                      Refusal{"diffusion3d", "acc_tuned", "acc_gangs_per_sm=0"},
                      Refusal{"diffusion3d", "cuda", "cuda_planes=128"},
                      Refusal{"diffusion3d", "cuda", "cuda_tile_y=32"},
                      Refusal{"iccg", "cuda", "cuda_sweep_block=32"},
                      Refusal{"iccg", "cuda", "cuda_vector_block=2048"},
                      Refusal{"vector", "triad_acc_resident", "acc_workers=12"},
                      Refusal{"vector", "triad_acc_resident", "acc_gangs_per_sm=2"},
                      Refusal{"vector", "dot_acc_resident", "acc_workers=32"},
                      Refusal{"vector", "dot_acc_resident", "acc_gangs_per_sm=5"},
                      Refusal{"vector", "triad_omp_target_resident", "omp_thread_limit=0"},
                      Refusal{"vector", "triad_omp_target_resident", "omp_teams_per_sm=2"},
                      Refusal{"vector", "dot_omp_target_resident", "omp_thread_limit=17"},
                      Refusal{"vector", "dot_omp_target_resident", "omp_teams_per_sm=5"},
                      Refusal{"jacobi2d", "omp_target_resident", "omp_thread_limit=32"},
                      Refusal{"jacobi2d", "omp_target_resident", "omp_teams_per_sm=2"},
                      Refusal{"jacobi2d", "omp_target_resident", "omp_teams_per_sm=0"},
                      Refusal{"diffusion3d", "omp_target_resident", "omp_thread_limit=0"},
                      Refusal{"diffusion3d", "omp_target_resident", "omp_teams_per_sm=2"},
                      Refusal{"apsp", "omp_target_resident", "omp_thread_limit=17"},
                      Refusal{"apsp", "omp_target_resident", "omp_teams_per_sm=2"},
                      Refusal{"apsp", "omp_target_resident", "omp_teams_per_sm=5"},
                      Refusal{"iccg", "omp_target_resident", "omp_thread_limit=17"},
                      Refusal{"iccg", "omp_target_resident", "omp_teams_per_sm=2"},
                      Refusal{"iccg", "optimized", "acc_workers=6"},
                      Refusal{"iccg", "optimized", "acc_workers=16"},
                      Refusal{"iccg", "optimized", "acc_gangs_per_sm=2"},
                      Refusal{"iccg", "optimized", "acc_gangs_per_sm=4"},
                      Refusal{"apsp", "cuda_blocked", "cuda_slice=64"},
                      Refusal{"apsp", "cuda_blocked", "cuda_min_blocks=4"}));

// A value inside the declared range that the kernel is not compiled for: the step's own check
// (reached when the step is made, after the GPU check: here through check_tunings).
TEST(LaunchShapeCheckTest, ApspCudaBlockedSliceTheKernelIsNotBuiltForIsRefused) {
  if (!registered({"apsp", "cuda_blocked"})) GTEST_SKIP() << "cuda_blocked is not built here";
  EXPECT_EQ(check_error("apsp", "cuda_blocked", {"cuda_slice=24"}),
            "--set cuda_slice=24: expected 8, 16 or 32");
  EXPECT_EQ(check_error("apsp", "cuda_blocked", {"cuda_slice=8", "cuda_min_blocks=3"}), "");
}

struct Combination {
  std::string workload, variant;
  std::vector<std::string> sets;
  bool refused;  // the check's verdict on the whole shape
};

class LaunchShapeResidencyTest : public ::testing::TestWithParam<Combination> {};

// Teams times warps (a team's in whole fours, as CUDA allocates them) within what a
// multiprocessor holds at the step's register budget (the grid barrier needs every team
// resident): 16 warps at 112 registers (vector, diffusion3d) and at 120 (jacobi2d), 20 at 96
// (apsp), 8 at 192 (iccg); 16 warps for the OpenACC constructs, 12 for iccg's at 168. One team a
// multiprocessor is resident whatever its warps (libgomp launches as many as the registers
// hold).
TEST_P(LaunchShapeResidencyTest, ShapesThatCannotAllBeResidentAreRefused) {
  const Combination& c = GetParam();
  if (!registered({c.workload, c.variant})) GTEST_SKIP() << c.variant << " is not built here";
  const std::string message = check_error(c.workload, c.variant, c.sets);
  if (c.refused) {
    EXPECT_NE(message.find("resident at once"), std::string::npos) << message;
  } else {
    EXPECT_EQ(message, "");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LaunchShapeResidencyTest,
    ::testing::Values(
        Combination{"vector", "triad_acc_resident", {"acc_workers=4", "acc_gangs_per_sm=4"}, false},
        Combination{"vector", "dot_acc_resident", {"acc_workers=8", "acc_gangs_per_sm=3"}, true},
        Combination{"vector",
                    "triad_omp_target_resident",
                    {"omp_thread_limit=8", "omp_teams_per_sm=2"},
                    false},
        Combination{"vector",
                    "dot_omp_target_resident",
                    {"omp_thread_limit=8", "omp_teams_per_sm=3"},
                    true},
        Combination{
            "jacobi2d", "omp_target_resident", {"omp_thread_limit=4", "omp_teams_per_sm=4"}, false},
        Combination{
            "jacobi2d", "omp_target_resident", {"omp_thread_limit=6", "omp_teams_per_sm=3"}, true},
        Combination{"diffusion3d",
                    "omp_target_resident",
                    {"omp_thread_limit=3", "omp_teams_per_sm=4"},
                    false},
        Combination{"diffusion3d",
                    "omp_target_resident",
                    {"omp_thread_limit=9", "omp_teams_per_sm=2"},
                    true},
        Combination{"diffusion3d",
                    "omp_target_resident",
                    {"omp_thread_limit=5", "omp_teams_per_sm=4"},
                    true},
        Combination{
            "apsp", "omp_target_resident", {"omp_thread_limit=5", "omp_teams_per_sm=2"}, false},
        Combination{
            "apsp", "omp_target_resident", {"omp_thread_limit=10", "omp_teams_per_sm=2"}, true},
        Combination{
            "apsp", "omp_target_resident", {"omp_thread_limit=8", "omp_teams_per_sm=3"}, true},
        Combination{
            "iccg", "omp_target_resident", {"omp_thread_limit=4", "omp_teams_per_sm=2"}, false},
        Combination{
            "iccg", "omp_target_resident", {"omp_thread_limit=5", "omp_teams_per_sm=2"}, true},
        Combination{
            "iccg", "omp_target_resident", {"omp_thread_limit=16", "omp_teams_per_sm=1"}, false},
        Combination{"iccg", "optimized", {"acc_workers=4", "acc_gangs_per_sm=3"}, false},
        Combination{"iccg", "optimized", {"acc_workers=8", "acc_gangs_per_sm=2"}, true},
        Combination{"iccg", "optimized", {"acc_workers=12", "acc_gangs_per_sm=1"}, false}));

struct Shape {
  std::string workload, variant;
  std::vector<std::string> sets;
};

class LaunchShapeHostTest : public ::testing::TestWithParam<Shape> {};

// OpenACC runs on the host here: the shape changes the construct compiled, not the gangs that
// run, and each instantiation must still compute the sweeps right.
TEST_P(LaunchShapeHostTest, EachEndOfTheRangeVerifies) {
  const Shape& s = GetParam();
  std::vector<std::string> args = {"run",    s.workload, "--variant", s.variant,
                                   "--reps", "1",        "--format",  "json"};
  for (const auto& set : s.sets) {
    args.push_back("--set");
    args.push_back(set);
  }
  const Outcome o = run_acclab(args);
  ASSERT_EQ(o.status, 0) << o.err;
  const auto results = parse_json(o.out)["results"];
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["status"], "verified") << o.out;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LaunchShapeHostTest,
    ::testing::Values(
        Shape{"jacobi2d",
              "acc_resident",
              {"rows=34", "cols=300", "iters=6", "acc_workers=1", "acc_gangs_per_sm=4"}},
        Shape{"jacobi2d", "acc_resident", {"rows=34", "cols=300", "iters=6", "acc_workers=16"}},
        Shape{"diffusion3d",
              "acc_tuned",
              {"nx=40", "ny=6", "nz=5", "steps=4", "acc_workers=1", "acc_gangs_per_sm=4"}},
        Shape{"diffusion3d", "acc_tuned", {"nx=40", "ny=6", "nz=5", "steps=4", "acc_workers=16"}},
        Shape{"vector",
              "triad_acc_resident",
              {"nx=100", "ny=37", "nt=3", "acc_workers=1", "acc_gangs_per_sm=4"}},
        Shape{"vector", "triad_acc_resident", {"nx=100", "ny=37", "nt=3", "acc_workers=4"}},
        Shape{"vector",
              "dot_acc_resident",
              {"nx=100", "ny=37", "nt=3", "acc_workers=1", "acc_gangs_per_sm=4"}},
        Shape{"vector", "dot_acc_resident", {"nx=100", "ny=37", "nt=3", "acc_workers=8"}},
        Shape{"vector",
              "triad_omp_target_resident",
              {"nx=100", "ny=37", "nt=3", "omp_thread_limit=1", "omp_teams_per_sm=4"}},
        Shape{"vector",
              "triad_omp_target_resident",
              {"nx=100", "ny=37", "nt=3", "omp_thread_limit=5"}},
        Shape{"vector",
              "dot_omp_target_resident",
              {"nx=100", "ny=37", "nt=3", "omp_thread_limit=1", "omp_teams_per_sm=4"}},
        Shape{
            "vector", "dot_omp_target_resident", {"nx=100", "ny=37", "nt=3", "omp_thread_limit=3"}},
        Shape{"jacobi2d",
              "omp_target_resident",
              {"rows=34", "cols=300", "iters=6", "omp_thread_limit=1", "omp_teams_per_sm=4"}},
        Shape{"jacobi2d",
              "omp_target_resident",
              {"rows=34", "cols=300", "iters=6", "omp_thread_limit=3"}},
        Shape{"diffusion3d",
              "omp_target_resident",
              {"nx=40", "ny=6", "nz=5", "steps=4", "omp_thread_limit=1", "omp_teams_per_sm=4"}},
        Shape{"diffusion3d",
              "omp_target_resident",
              {"nx=40", "ny=6", "nz=5", "steps=4", "omp_thread_limit=2"}},
        Shape{"apsp",
              "omp_target_resident",
              {"n=50", "paths=1", "omp_thread_limit=1", "omp_teams_per_sm=4"}},
        Shape{"apsp", "omp_target_resident", {"n=50", "omp_thread_limit=4"}},
        Shape{"iccg", "omp_target_resident", {"omp_thread_limit=1", "omp_teams_per_sm=2"}},
        Shape{"iccg", "omp_target_resident", {"omp_thread_limit=3"}},
        Shape{"iccg", "optimized", {"acc_workers=1", "acc_gangs_per_sm=3"}},
        Shape{"iccg", "optimized", {"acc_workers=8"}}));

struct Search {
  std::string workload, variant;
  std::vector<std::string> sets;  // a small problem, and the tunings that are not the shape
};

class LaunchShapeTuneTest : public ::testing::TestWithParam<Search> {};

// acclab tune on the host fallback: the default strategy searches the whole shape (at most 64
// points: exhaustive), every point tried, at least 8 measured and verified, the refused ones the
// shapes whose teams or gangs would not all be resident.
TEST_P(LaunchShapeTuneTest, TuneMeasuresAtLeastEightShapes) {
  const Search& s = GetParam();
  if (!registered({s.workload, s.variant})) GTEST_SKIP() << s.variant << " is not built here";
  std::vector<std::string> args = {"tune", s.workload, "--variant", s.variant, "--reps",
                                   "1",    "--format", "json",      "--quiet"};
  for (const auto& set : s.sets) {
    args.push_back("--set");
    args.push_back(set);
  }
  const Outcome o = run_acclab(args);
  ASSERT_EQ(o.status, 0) << o.err;
  const auto step = parse_json(o.out)["steps"].at(0);
  EXPECT_EQ(step["strategy"], "exhaustive");
  EXPECT_EQ(step["points_tried"], step["space"]["size"]);
  EXPECT_GE(step["points_measured"].get<int>(), 8) << step.dump();
  EXPECT_EQ(step["points_failed"], 0) << step.dump();
  for (const auto& point : step["points"]) {
    if (point["status"] == "refused") {
      EXPECT_NE(point["detail"].get<std::string>().find("resident at once"), std::string::npos)
          << point.dump();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Steps, LaunchShapeTuneTest,
    ::testing::Values(
        Search{"vector", "triad_acc_resident", {"nx=64", "ny=33", "nt=2"}},
        Search{"vector", "dot_acc_resident", {"nx=64", "ny=33", "nt=2"}},
        Search{"vector", "triad_omp_target_resident", {"nx=64", "ny=33", "nt=2"}},
        Search{"vector", "dot_omp_target_resident", {"nx=64", "ny=33", "nt=2"}},
        Search{"jacobi2d", "omp_target_resident", {"rows=34", "cols=70", "iters=4", "alternate=1"}},
        Search{"diffusion3d",
               "omp_target_resident",
               {"nx=20", "ny=6", "nz=5", "steps=2", "alternate=1"}},
        Search{"apsp", "omp_target_resident", {"n=40", "paths=0", "alternate=1"}},
        Search{"iccg", "omp_target_resident", {"nx=8", "ny=6", "nz=5"}},
        Search{"iccg", "optimized", {"nx=8", "ny=6", "nz=5"}}),
    [](const auto& info) { return info.param.workload + "_" + info.param.variant; });

}  // namespace
}  // namespace acclab
