// The launch shapes declared as tunings (gangs and workers of the OpenACC resident constructs,
// the CUDA steps' blocks and planes): each step's space holds enough points for acclab tune to
// search, each knob's check refuses a value out of its range with one line, and the resident
// constructs verify at both ends of their ranges on the host fallback.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/tune.hpp"
#include "support.hpp"

namespace acclab {
namespace {

using test::all;
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

INSTANTIATE_TEST_SUITE_P(Steps, LaunchShapeSpaceTest,
                         ::testing::Values(Step{"jacobi2d", "acc_resident"},
                                           Step{"diffusion3d", "acc_tuned"},
                                           Step{"diffusion3d", "cuda"}, Step{"iccg", "cuda"}),
                         [](const auto& info) {
                           return info.param.workload + "_" + info.param.variant;
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
                      Refusal{"iccg", "cuda", "cuda_vector_block=2048"}));

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
        Shape{"diffusion3d", "acc_tuned", {"nx=40", "ny=6", "nz=5", "steps=4", "acc_workers=16"}}));

}  // namespace
}  // namespace acclab
