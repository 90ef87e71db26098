// diffusion3d's variants:
//   - conservation of the total of f by the zero-flux walls, for every variant;
//   - every registered variant through the real harness (Runner) on the small preset and
//     non-cubic grids, a field one step short failing the bound, the ladder, the transfer
//     share, async;
//   - every loop shape of the OpenACC steps (acc_flat, acc_rows, acc_march, acc_tuned) and every
//     value of cuda's tunings (cuda_planes, cuda_tile_y, ...) against the original on the same
//     grids.
#include <gtest/gtest.h>

#include "diffusion3d_test.hpp"

namespace acclab::diffusion3d_test {
namespace {

// ---- conservation ------------------------------------------------------------------------------
//
// Zero-flux walls conserve the total: every cell gives ce f to its +x neighbour and takes
// cw f from it, and at a wall the missing neighbour is the cell itself, so
// sum fn = (cc + 2 ce + 2 cn + 2 ct) sum f. In float, per step:
//   - the coefficients: |cc + 2(ce + cn + ct) - 1| <= u + 5u (sum of six, each <= 1) <= 3 eps;
//   - each cell's 7 products and 6 sums: <= gamma_7 sum |c f| <= 3.5 eps max|f|;
// the field stays within [min f0, max f0] (a convex combination), so after S steps
//   |sum f_S - sum f_0| <= 7 eps n S max|f0|.
double conservation_bound(std::int64_t cells, std::int64_t steps, double max_f) {
  return 7 * float_eps * double(cells) * double(steps) * max_f;
}

TEST(DiffusionConservationTest, StencilConservesTheTotalOfAnyField) {
  // A random field, large at the walls, where a wrong wall would lose or gain the most.
  const Problem p = problem({"nx=17", "ny=9", "nz=33", "steps=1"});
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> f(std::size_t(p.points())), fn(f.size());
  for (auto& v : f) v = uniform(rng);
  const double total = sum_of(f.data(), p.points());
  const std::int64_t steps = 40;
  // What one step with absorbing walls (missing neighbour 0) would lose: c times the face
  // values, on six faces.
  double wall_flux = 0;
  for (std::int64_t k = 0; k < p.nz; ++k) {
    for (std::int64_t j = 0; j < p.ny; ++j) {
      for (std::int64_t i = 0; i < p.nx; ++i) {
        const double v = f[index_of(p, i, j, k)];
        if (i == 0 || i == p.nx - 1) wall_flux += p.ce * v;
        if (j == 0 || j == p.ny - 1) wall_flux += p.cn * v;
        if (k == 0 || k == p.nz - 1) wall_flux += p.ct * v;
      }
    }
  }
  const double bound = conservation_bound(p.points(), steps, 1.0);
  ASSERT_LT(bound, 1e-3 * total);
  ASSERT_LT(bound, 1e-2 * wall_flux) << "a wrong wall would not be noticed";
  for (std::int64_t s = 0; s < steps; ++s) {
    diffusion3d::step_planes(p, f.data(), fn.data(), 0, p.nz);
    std::swap(f, fn);
  }
  EXPECT_NEAR(sum_of(f.data(), p.points()), total, bound);
  EXPECT_GE(*std::min_element(f.begin(), f.end()), 0.0f);
  EXPECT_LE(*std::max_element(f.begin(), f.end()), 1.0f);
}

// Every available variant's own result field (not the reference's), run through its
// instance as the runner does.
TEST(DiffusionConservationTest, EveryVariantConservesTheTotal) {
  Machine machine;
  Runner runner(machine);
  int checked = 0;
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"nx=16", "ny=16", "nz=16", "steps=20"},
        std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=21"}}) {
    const Params params = diffusion_params(overrides);
    const Problem p = diffusion3d::problem_of(params);
    const auto f0 = diffusion3d::initial_field(p);
    const double total = sum_of(f0.data(), p.points());
    // Cell-centred cosines sum to 0 over whole periods: the total is 0.125 n.
    EXPECT_NEAR(total, 0.125 * double(p.points()), 1e-9 * double(p.points()));
    const double max_f = *std::max_element(f0.begin(), f0.end());
    const double bound = conservation_bound(p.points(), p.steps, max_f);
    ASSERT_LT(bound, 1e-3 * total);
    for (const auto& name : diffusion_variant_names()) {
      SCOPED_TRACE(name + " " + params.json().dump());
      const Variant& variant = diffusion_variant(name);
      if (runner.unavailable_reason(variant)) continue;
      auto instance = variant.factory(params);
      test::run_once(*instance);
      const float* result = ResultOf::of(*instance);
      ASSERT_NE(result, nullptr);
      EXPECT_NEAR(sum_of(result, p.points()), total, bound);
      // And it moved: the field is no longer the initial one.
      EXPECT_NE(result[index_of(p, p.nx / 2, p.ny / 2, p.nz / 2)],
                f0[index_of(p, p.nx / 2, p.ny / 2, p.nz / 2)]);
      ++checked;
    }
  }
  EXPECT_GE(checked, 4);
}

// ---- every registered variant ------------------------------------------------------------------

// The ladder's names and order come from ladder.json (tests/registry_test.cpp); here, what every
// step shares: its family and the step model.
TEST(DiffusionLadderTest, EveryStepIsOnTheDiffusionLadderWithTheStepModel) {
  ASSERT_NO_FATAL_FAILURE(test::expect_ladder_in_order("diffusion3d", "original", "diffusion"));
  for (const auto& name : diffusion_variant_names()) {
    EXPECT_EQ(diffusion_variant(name).model.resource, Resource::memory_bandwidth) << name;
  }
  // The course's count: 13 flops and at best 8 bytes per cell and step, from the verified
  // outputs' steps.
  const Variant& v = diffusion_variant("original");
  const Params params = diffusion_params({"nx=17", "ny=9", "nz=33", "steps=5"});
  const nlohmann::json outputs = {{"steps", 5}};
  EXPECT_DOUBLE_EQ(v.model.flops(params, outputs), 13.0 * 17 * 9 * 33 * 5);
  EXPECT_DOUBLE_EQ(v.model.bytes(params, outputs), 8.0 * 17 * 9 * 33 * 5);
  EXPECT_DOUBLE_EQ(v.model.flops(diffusion_params({}), nlohmann::json::object()),
                   13.0 * 24 * 20 * 16 * 58);
}

class DiffusionVariantTest : public test::VariantTest {
 protected:
  DiffusionVariantTest() : VariantTest("diffusion3d") {}
};

// One test for all sizes: each test is its own process under ctest, and each process that
// times a variant measures the host's copy bandwidth once.
TEST_P(DiffusionVariantTest, MatchesOriginalOnSmallPresetAndNonCubicGrids) {
  struct Case {
    std::vector<std::string> overrides;
    int reps;
  };
  const std::vector<Case> cases = {
      {{}, 2},                                     // small preset: 24 x 20 x 16, 58 steps
      {{"nx=17", "ny=9", "nz=33", "steps=5"}, 1},  // no vector length or tile divides these
      {{"nx=2", "ny=2", "nz=2", "steps=3"}, 1},    // every cell a corner
      {{"nx=33", "ny=5", "nz=2", "steps=4"}, 1},   // more than a 32-wide tile, two planes
      {{"steps=7"}, 1},                            // odd: the result is in the second field
      {{"nx=9", "ny=40", "nz=3", "steps=2", "kappa=2", "async=0"}, 1},
      {{"nx=136", "ny=3", "nz=5", "steps=3"}, 1},  // cuda's float4 path over two 128-wide tiles
      {{"nx=4", "ny=3", "nz=3", "steps=2"}, 1},    // one float4 touching both x walls
  };
  for (const auto& c : cases) {
    const Params params = diffusion_params(c.overrides);
    const Problem p = diffusion3d::problem_of(params);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, c.reps);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
    ASSERT_NO_FATAL_FAILURE(expect_verified_and_timed(r, params, c.reps));
    // The outputs, checked here rather than through verify()'s verdict: every step asked for
    // (counted by the variant's loop), and the field within 7.75 eps sqrt(steps) max|f| of the
    // original (max|f| <= 1; bit for bit for original itself, which is the reference's own
    // code), a bound well below what the last step changed.
    ASSERT_TRUE(r.outputs.contains("steps")) << r.outputs.dump();
    EXPECT_EQ(r.outputs["steps"].get<std::int64_t>(), p.steps);
    if (params.has("steps")) EXPECT_EQ(p.steps, params.integer("steps"));
    ASSERT_TRUE(r.outputs.contains("max_diff_vs_original")) << r.outputs.dump();
    const double diff = r.outputs["max_diff_vs_original"].get<double>();
    EXPECT_GE(diff, 0.0);
    const double tolerance = 6 * std::sqrt(20.0 / 12) * float_eps * std::sqrt(double(p.steps));
    EXPECT_LE(diff, tolerance);
    EXPECT_DOUBLE_EQ(r.outputs.value("tolerance", -1.0), tolerance);
    EXPECT_EQ(r.outputs.value("difference", -1.0), diff);
    if (variant().backend == Backend::serial) {
      EXPECT_EQ(diff, 0.0);
      // The reference itself, against the exact solution of the scheme.
      ASSERT_TRUE(r.outputs.contains("max_diff_vs_exact_discrete")) << r.outputs.dump();
      EXPECT_LE(r.outputs["max_diff_vs_exact_discrete"].get<double>(), rounding_bound(p.steps));
      EXPECT_EQ(r.outputs.value("exact_discrete_tolerance", -1.0), rounding_bound(p.steps));
    } else {
      EXPECT_FALSE(r.outputs.contains("max_diff_vs_exact_discrete"));
    }
    ASSERT_TRUE(r.outputs.contains("last_step_change")) << r.outputs.dump();
    if (c.overrides.empty()) {
      EXPECT_LT(tolerance, r.outputs["last_step_change"].get<double>() / 100);
    }
    ASSERT_TRUE(r.outputs.contains("time"));
    EXPECT_DOUBLE_EQ(r.outputs["time"].get<double>(), double(p.steps) * p.dt);
    ASSERT_TRUE(r.outputs.contains("error"));
    const double error = r.outputs["error"].get<double>();
    EXPECT_TRUE(std::isfinite(error));
    // The reported error is the discrete scheme's truncation error (bounded above) plus
    // rounding and the variant's distance from the original.
    EXPECT_LE(error, truncation_bound(p, p.steps) + rounding_bound(p.steps) + diff);
    if (c.overrides.empty()) {
      EXPECT_EQ(p.steps, 58);
      EXPECT_GT(r.median_s, 0);
      // The model's 13 flops and 8 bytes per cell and step, over the median.
      EXPECT_DOUBLE_EQ(r.gflops, 13.0 * 24 * 20 * 16 * 58 / r.median_s / 1e9);
      EXPECT_DOUBLE_EQ(r.gbytes_per_s, 8.0 * 24 * 20 * 16 * 58 / r.median_s / 1e9);
    }
  }
}

// A field one step short must fail verification: each variant runs steps - 1 steps and its
// field is verified as the field after steps steps, once with the steps its loop counted (the
// count gives it away) and once as if the count said steps (a variant whose loop counts a step
// it never does): then only the tolerance can catch it. The small preset, and a case like the
// seed's, where a worst case added linearly, 8 eps steps, is looser than the last step's change (16
// x 12 x 8 with dt = 2e-5, 300 steps: the last step changes the field by 1.0e-4, that bound 2.9e-4,
// the bound 1.6e-5).
TEST_P(DiffusionVariantTest, OneStepShortFailsVerification) {
  if (auto reason = runner_.unavailable_reason(variant())) GTEST_SKIP() << *reason;
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{},
        std::vector<std::string>{"nx=16", "ny=12", "nz=8", "dt=2e-5", "steps=300"}}) {
    const Params params = diffusion_params(overrides);
    const Problem p = diffusion3d::problem_of(params);
    SCOPED_TRACE(params.json().dump());
    Params short_params = params;
    short_params.set("steps", p.steps - 1);
    auto instance = variant().factory(short_params);
    test::run_once(*instance);
    const float* field = ResultOf::of(*instance);
    ASSERT_NE(field, nullptr);
    ASSERT_TRUE(instance->verify().ok) << "verified as the field after steps - 1 steps";

    const Verification counted = diffusion3d::verify_result(p, field, p.steps - 1, false);
    EXPECT_FALSE(counted.ok) << counted.detail;
    EXPECT_NE(counted.detail.find("steps of"), std::string::npos) << counted.detail;

    const Verification v = diffusion3d::verify_result(p, field, p.steps, false);
    EXPECT_FALSE(v.ok) << v.detail;
    const double difference = v.outputs["difference"].get<double>();
    const double tolerance = v.outputs["tolerance"].get<double>();
    EXPECT_GT(difference, 2 * tolerance) << "caught with a margin, not by rounding luck";
    // What one step short differs by is the last step's change (to the variant's rounding).
    EXPECT_NEAR(difference, v.outputs["last_step_change"].get<double>(), tolerance);
    if (!overrides.empty()) {
      EXPECT_LT(difference, 8 * float_eps * double(p.steps))
          << "a case a linear worst-case bound would let through";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDiffusionVariants, DiffusionVariantTest,
                         ::testing::ValuesIn(diffusion_variant_names()), test::param_name);

// ---- transfer share, async ---------------------------------------------------------------------

// The course's lesson: kernels and loop copy both fields every step, data+present once per
// solve; acc_tuned keeps them resident (copied at setup), host-only variants never copy.
TEST(DiffusionTransferTest, OnlyVariantsThatCopyInsideARunReportTransferTime) {
#ifndef ACCLAB_HAVE_OPENACC
  GTEST_SKIP() << "no OpenACC variants in this build";
#endif
  Machine machine;
  Runner runner(machine);
  const Params params = diffusion_params({"nx=17", "ny=9", "nz=33", "steps=5"});
  RunOptions options;
  options.reps = 2;
  const std::set<std::string> copying = {"acc_kernels", "acc_loop", "acc_data_present",
                                         "omp_target_map", "omp_target_data"};
  std::set<std::string> checked;
  for (const auto& name : diffusion_variant_names()) {
    SCOPED_TRACE(name);
    const Result r = runner.run(diffusion_variant(name), diffusion_workload(), params, options);
    if (r.status == Status::unavailable) {
      EXPECT_EQ(diffusion_variant(name).backend, Backend::cuda) << r.note;
      continue;
    }
    ASSERT_EQ(r.status, Status::verified) << r.error;
    checked.insert(name);
    if (copying.count(name)) {
      ASSERT_TRUE(r.transfer_s.has_value());
      EXPECT_GE(*r.transfer_s, 0.0);
      ASSERT_TRUE(r.transfer_share().has_value());
      EXPECT_GE(*r.transfer_share(), 0.0);
      EXPECT_LE(*r.transfer_share(), 1.0);
    } else {
      EXPECT_FALSE(r.transfer_s.has_value());
      EXPECT_FALSE(r.transfer_share().has_value());
    }
  }
  for (const char* name :
       {"original", "openmp", "acc_kernels", "acc_loop", "acc_data_present", "acc_tuned"}) {
    EXPECT_TRUE(checked.count(name)) << name << " was not run";
  }
}

// The shapes that launch a construct a step, with their steps queued and waited for one by one.
TEST(DiffusionAsyncTest, ShapesOfAConstructAStepVerifyQueuedAndSynchronous) {
#ifndef ACCLAB_HAVE_OPENACC
  GTEST_SKIP() << "no OpenACC variants in this build";
#endif
  Machine machine;
  Runner runner(machine);
  RunOptions options;
  options.reps = 2;
  for (const char* shape : {"acc_flat", "acc_rows", "acc_march"}) {
    for (const char* async : {"async=0", "async=1"}) {
      for (const std::vector<std::string>& overrides :
           {std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=5", async},
            std::vector<std::string>{"steps=8", async}}) {
        const Params params = diffusion_params(overrides);
        SCOPED_TRACE(std::string(shape) + " " + params.json().dump());
        EXPECT_EQ(params.flag("async"), std::string(async) == "async=1");
        const Result r =
            runner.run(diffusion_variant(shape), diffusion_workload(), params, options);
        ASSERT_EQ(r.status, Status::verified) << r.error;
        EXPECT_EQ(r.outputs["steps"].get<std::int64_t>(), params.integer("steps"));
        EXPECT_LE(r.outputs["max_diff_vs_original"].get<double>(),
                  diffusion3d::original_tolerance(params.integer("steps")));
      }
    }
  }
}

// ---- every loop shape and every value of the tunings ------------------------------------------

// One variant with one setting of its tunings (none for the OpenACC loop shapes, cuda_planes and
// cuda_tile_y for cuda).
struct TuningCase {
  std::string name;
  std::string variant;
  std::vector<std::string> sets;
};

void PrintTo(const TuningCase& c, std::ostream* os) {
  *os << c.variant;
  for (const auto& s : c.sets) *os << " --set " << s;
}

std::vector<TuningCase> tuning_cases() {
  std::vector<TuningCase> cases;
  const auto names = diffusion_variant_names();
  const auto registered = [&](const char* name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const char* shape : {"acc_flat", "acc_rows", "acc_march", "acc_tuned"}) {
    if (registered(shape)) cases.push_back({shape, shape, {}});
  }
  // Every step's rows in one order (the default walks every other step back to front).
  if (registered("acc_tuned")) {
    cases.push_back({"acc_tuned_one_order", "acc_tuned", {"alternate=0"}});
  }
  if (registered("cuda")) {
    for (int planes : diffusion3d::cuda_planes_choices) {
      for (int tile_y : diffusion3d::cuda_tile_y_choices) {
        cases.push_back(
            {"cuda_p" + std::to_string(planes) + "_y" + std::to_string(tile_y),
             "cuda",
             {"cuda_planes=" + std::to_string(planes), "cuda_tile_y=" + std::to_string(tile_y)}});
      }
    }
    // The scalar kernel on grids whose nx is a multiple of 4 (the default takes float4 there).
    cases.push_back({"cuda_scalar", "cuda", {"cuda_x4=0"}});
    // Each step launched after the previous one has ended (the default overlaps them).
    cases.push_back({"cuda_no_pdl", "cuda", {"cuda_pdl=0"}});
  }
  if (registered("omp_target_tuned")) {
    // Every directive ACCLAB_OMP_TUNED and ACCLAB_OMP_TUNED_OUTER write, in every loop nest
    // (but for omp_simd=0 in the nests that always run their innermost loop as simd).
    for (const OmpShape& nest : diffusion3d::omp_target_shapes()) {
      for (const char* construct : {"distribute", "loop"}) {
        for (int simd : {1, 0}) {
          if (nest.inner_simd && simd == 0) continue;
          for (int teams : {0, 3}) {
            cases.push_back(
                {std::string("omp_") + construct + "_simd" + std::to_string(simd) + "_teams" +
                     std::to_string(teams) + "_" + nest.name,
                 "omp_target_tuned",
                 {std::string("omp_construct=") + construct, "omp_simd=" + std::to_string(simd),
                  "omp_teams=" + std::to_string(teams),
                  "omp_threads=" + std::to_string(teams == 0 ? 0 : 32), "omp_shape=" + nest.name}});
          }
        }
      }
    }
  }
  return cases;
}

class DiffusionTuningTest : public ::testing::TestWithParam<TuningCase> {
 protected:
  static Machine& machine() {
    static Machine shared;
    return shared;
  }
};

// Every compiled shape against the original: the small preset, a grid that no tile, chunk or
// vector length divides (17 x 9 x 33: 3 chunks of 16 planes, 2 of 32), an odd step count (the
// result in the second field), two planes, a synchronous run, and rows longer than the resident
// shape's 4 x 32 cells a warp (300 = 2 x 128 + 44). The resident shape must have run as one
// construct (on the host fallback: its 3 gangs, one after another).
TEST_P(DiffusionTuningTest, EveryValueMatchesOriginal) {
  const TuningCase& c = GetParam();
  Runner runner(machine());
  RunOptions options;
  for (const std::vector<std::string>& grid :
       {std::vector<std::string>{}, std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=5"},
        std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=6", "async=0"},
        std::vector<std::string>{"nx=33", "ny=5", "nz=2", "steps=7"},
        std::vector<std::string>{"nx=300", "ny=3", "nz=4", "steps=3"}}) {
    std::vector<std::string> overrides = grid;
    overrides.insert(overrides.end(), c.sets.begin(), c.sets.end());
    const Params params = diffusion_params(overrides);
    const Problem p = diffusion3d::problem_of(params);
    SCOPED_TRACE(params.json().dump());
    options.reps = grid.empty() ? 2 : 1;
    const Result r =
        runner.run(diffusion_variant(c.variant), diffusion_workload(), params, options);
    if (r.status == Status::unavailable) {
      EXPECT_EQ(diffusion_variant(c.variant).backend, Backend::cuda) << r.note;
      GTEST_SKIP() << c.variant << ": " << r.note;
    }
    ASSERT_EQ(r.status, Status::verified) << r.error;
    EXPECT_EQ(r.params.json(), params.json());
    EXPECT_EQ(r.outputs["steps"].get<std::int64_t>(), p.steps);
    EXPECT_LE(r.outputs["max_diff_vs_original"].get<double>(),
              diffusion3d::original_tolerance(p.steps));
    if (c.variant == "acc_tuned") {  // the resident construct
      EXPECT_GT(r.outputs.value("resident_gangs", 0), 0);
    }
  }
}

// Without OpenACC and CUDA there is nothing to tune.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DiffusionTuningTest);
INSTANTIATE_TEST_SUITE_P(DiffusionTuning, DiffusionTuningTest, ::testing::ValuesIn(tuning_cases()),
                         [](const ::testing::TestParamInfo<TuningCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace acclab::diffusion3d_test
