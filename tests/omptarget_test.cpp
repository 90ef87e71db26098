// The omptarget backend (OpenMP target regions, acclab_omptarget): each tuned step verifies in
// every shape its tunings select, a jacobi2d grid one sweep short, a matmul product one k step
// short and an apsp matrix one pivot step short fail, the tunings are checked, only the map
// steps move data inside a run, and the result, the profile and the machine say where the
// regions ran. Without an offload device the regions run on the host (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/build_config.hpp"
#include "core/machine.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"
#include "support.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"
#include "workloads/matmul/matmul.hpp"
#include "workloads/vector/omp_target_shapes.hpp"
#include "workloads/vector/vector.hpp"
#ifdef ACCLAB_HAVE_OMPTARGET
#include "grid_barrier_rounds.hpp"
#include "kit/grid_barrier_check.hpp"
#include "kit/omp_grid_barrier.hpp"
#endif

namespace acclab {
namespace {

#ifdef ACCLAB_HAVE_OMPTARGET

// The barrier across teams (kit/omp_grid_barrier.hpp) on host threads standing in for teams:
// every thread leaves a barrier only after all have arrived and sees the others' writes from
// before it; a thread left alone gives up instead of waiting for ever, and marks the count so
// that the host's check names the stall.
TEST(OmpGridBarrierTest, ThreadsLeaveTogetherAndSeeEachOthersWrites) {
  test::expect_threads_leave_together([](unsigned long long* arrived, unsigned long long target) {
    return omp_grid_barrier(arrived, target);
  });
}

TEST(OmpGridBarrierTest, ATeamLeftAloneGivesUpAndTheHostCheckSaysSo) {
  const unsigned long long arrived = test::expect_a_gang_left_alone_gives_up(omp_grid_barrier);
  EXPECT_EQ(arrived & ~grid_barrier_stalled, 2u);
  EXPECT_THROW(check_grid_barrier(arrived, 2, "demo", 2, "demo_tuned"), std::runtime_error);
}

// Outside a target region (the initial device) one team takes part, whatever was asked: the
// host fallback runs a region's teams one after the other, so a second would wait for ever.
TEST(OmpGridBarrierTest, OneTeamTakesPartOnTheHost) {
  EXPECT_EQ(omp_teams_running(132), 1);
  test::expect_one_gang_never_waits(omp_grid_barrier);
}

using test::run_variant;
using test::with;

// Every shape ACCLAB_OMP_TUNED writes (test::omp_tuned_shapes) in each loop nest of `nests` (a
// workload's omp_target_shapes()), but for omp_simd=0 in the nests whose innermost loop is always
// simd (validate refuses those); a fixed nest (its own region shape) alone, the others' tunings
// being refused there.
std::vector<std::vector<std::string>> shapes_in(const std::vector<OmpShape>& nests) {
  std::vector<std::vector<std::string>> all;
  for (const OmpShape& nest : nests) {
    if (nest.fixed) {
      all.push_back({"omp_shape=" + nest.name});
      continue;
    }
    for (const auto& shape : test::omp_tuned_shapes()) {
      if (nest.inner_simd && std::count(shape.begin(), shape.end(), "omp_simd=0")) continue;
      all.push_back(with(shape, {"omp_shape=" + nest.name}));
    }
  }
  return all;
}

TEST(OmpTargetVectorTest, TunedTriadAndDotVerifyInEveryShape) {
  for (const char* name : {"triad_omp_target_tuned", "dot_omp_target_tuned"}) {
    for (const auto& shape : shapes_in(vector::omp_target_shapes())) {
      const Params params = test::params_of("vector", with({"nx=37", "ny=5", "nt=2"}, shape));
      SCOPED_TRACE(std::string(name) + " " + params.json().dump());
      const Result r = run_variant("vector", name, params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      EXPECT_EQ(r.place, test::place_here(test::variant_of("vector", name)));
      if (r.place == Place::host) EXPECT_NE(r.note.find("host"), std::string::npos) << r.note;
    }
  }
}

// The default shape is the resident steps' pass, a region a pass (lanes8): verified, the dot
// exactly, at the resident test's sizes (under one lane group, a tail past the last whole group,
// batches of 8 over every lane with a tail), and with omp_shape=flat at the same sizes.
TEST(OmpTargetVectorTest, TunedDefaultIsLanes8AndFlatStillVerifies) {
  EXPECT_EQ(vector::omp_target_shapes().front().name, "lanes8");
  EXPECT_EQ(test::params_of("vector", {}).has("omp_shape"), false);
  for (const char* name : {"triad_omp_target_tuned", "dot_omp_target_tuned"}) {
    for (const std::vector<std::string>& size :
         {std::vector<std::string>{"nx=37", "ny=5", "nt=1"},
          std::vector<std::string>{"nx=1031", "ny=61", "nt=3"},
          std::vector<std::string>{"nx=1031", "ny=601", "nt=2"}}) {
      for (const std::vector<std::string>& shape :
           {std::vector<std::string>{}, std::vector<std::string>{"omp_shape=flat"}}) {
        const Params params = test::params_of("vector", with(size, shape));
        SCOPED_TRACE(std::string(name) + " " + params.json().dump());
        const Result r = run_variant("vector", name, params);
        ASSERT_EQ(r.status, Status::verified) << r.error;
        EXPECT_EQ(r.outputs["difference"].get<double>(), 0.0);
      }
    }
  }
}

// lanes8 has its own region shape: the flat shape's knobs are refused there, taken with
// omp_shape=flat, and omp_shape takes only the two names.
TEST(OmpTargetVectorTest, Lanes8RefusesTheFlatShapesTunings) {
  const auto error = [](const std::vector<std::string>& overrides) {
    return test::check_error("vector", "triad_omp_target_tuned", overrides);
  };
  for (const std::vector<std::string>& knobs :
       {std::vector<std::string>{"omp_construct=loop"}, std::vector<std::string>{"omp_simd=0"},
        std::vector<std::string>{"omp_simd=1"},
        std::vector<std::string>{"omp_teams=4", "omp_threads=64"}}) {
    SCOPED_TRACE(knobs.front());
    const std::string key = knobs.front().substr(0, knobs.front().find('='));
    EXPECT_NE(error(knobs).find(key), std::string::npos);
    EXPECT_NE(error(with(knobs, {"omp_shape=lanes8"})).find("lanes8"), std::string::npos);
    EXPECT_EQ(error(with(knobs, {"omp_shape=flat"})), "");
  }
  EXPECT_EQ(error({"omp_shape=lanes8"}), "");
  EXPECT_NE(error({"omp_shape=rows"}), "");
}

// The resident steps run every pass in one region: each verifies, says how many teams ran (one
// on the host fallback) and counts the passes it made, which a run that skipped one fails on
// (the barrier's arrivals must be the teams times nt too). The sizes: fewer elements than one
// lane group, a tail past the last whole group, and more than a batch of 8 a lane over every
// lane (the host's 80 groups of 512 lanes: 327680 elements) with a tail after the batches.
TEST(OmpTargetVectorTest, ResidentTriadAndDotVerifyAndMakeEveryPass) {
  for (const char* name : {"triad_omp_target_resident", "dot_omp_target_resident"}) {
    for (const std::vector<std::string>& size :
         {std::vector<std::string>{"nx=37", "ny=5", "nt=1"},
          std::vector<std::string>{"nx=1031", "ny=61", "nt=3"},
          std::vector<std::string>{"nx=1031", "ny=601", "nt=7"}}) {
      const Params params = test::params_of("vector", size);
      SCOPED_TRACE(std::string(name) + " " + params.json().dump());
      const Result r = run_variant("vector", name, params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      EXPECT_EQ(r.place, test::place_here(test::variant_of("vector", name)));
      EXPECT_EQ(r.outputs["passes"].get<std::int64_t>(), params.integer("nt"));
      const int teams = r.outputs["resident_teams"].get<int>();
      if (r.place == Place::host) {
        EXPECT_EQ(teams, 1);
      } else {
        EXPECT_GE(teams, 1);
      }
      EXPECT_EQ(r.outputs["difference"].get<double>(), 0.0);
    }
  }
}

TEST(OmpTargetVectorTest, TheTuningsAreTheTunedRowsOwn) {
  for (const auto& name : test::variant_names("vector")) {
    const Variant& v = test::variant_of("vector", name);
    if (v.backend != Backend::omptarget) continue;
    const bool tuned = name.ends_with("_omp_target_tuned");
    EXPECT_EQ(std::count(v.tunings.begin(), v.tunings.end(), "omp_construct"), tuned ? 1 : 0)
        << name;
  }
}

TEST(OmpTargetJacobiTest, TunedVerifiesInEveryShapeInItersAndTolMode) {
  for (const auto& shape : shapes_in(jacobi2d::omp_target_shapes())) {
    for (const std::vector<std::string>& size :
         {std::vector<std::string>{"rows=37", "cols=23", "iters=7"},
          std::vector<std::string>{"rows=17", "cols=9", "iters=100000", "tol=1e-6"}}) {
      const Params params = test::params_of("jacobi2d", with(size, shape));
      SCOPED_TRACE(params.json().dump());
      const Result r = run_variant("jacobi2d", "omp_target_tuned", params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      if (params.has("tol")) {
        EXPECT_LT(r.outputs["residual"].get<double>(), 1e-6);
      } else {
        EXPECT_EQ(r.outputs["sweeps"].get<std::int64_t>(), 7);
      }
    }
  }
}

// The resident step: every sweep in one region, in iters mode the sweeps asked for (a piece of a
// row wider than one lane's 8 columns, and rows narrower than one piece), in tol mode stopping
// where the change falls below tol, decided alike by every team; one team on the host fallback.
TEST(OmpTargetJacobiTest, ResidentVerifiesInItersAndTolMode) {
  for (const std::vector<std::string>& size :
       {std::vector<std::string>{"rows=37", "cols=23", "iters=7"},
        std::vector<std::string>{"rows=9", "cols=600", "iters=5", "alternate=0"},
        std::vector<std::string>{"rows=17", "cols=9", "iters=100000", "tol=1e-6"},
        std::vector<std::string>{"rows=17", "cols=9", "iters=100000", "tol=1e-6",
                                 "check_every=7"}}) {
    const Params params = test::params_of("jacobi2d", size);
    SCOPED_TRACE(params.json().dump());
    const Result r = run_variant("jacobi2d", "omp_target_resident", params);
    ASSERT_EQ(r.status, Status::verified) << r.error;
    if (params.has("tol")) {
      EXPECT_LT(r.outputs["residual"].get<double>(), 1e-6);
      EXPECT_GT(r.outputs["sweeps"].get<std::int64_t>(), 1);
      EXPECT_EQ(r.outputs["sweeps"].get<std::int64_t>() % params.integer("check_every"), 0);
    } else {
      EXPECT_EQ(r.outputs["sweeps"].get<std::int64_t>(), params.integer("iters"));
    }
    if (r.place == Place::host) EXPECT_EQ(r.outputs["resident_teams"].get<int>(), 1);
  }
}

// The grid that holds a jacobi2d instance's result (its protected result_).
struct ResultOf : jacobi2d::JacobiInstance {
  static const float* of(const Instance& instance) {
    return dynamic_cast<const jacobi2d::JacobiInstance&>(instance).*(&ResultOf::result_);
  }
};

// An omptarget step and its tunings.
using StepCase = std::pair<std::string, std::vector<std::string>>;

// omp_target_tuned in shapes other than its default, for the tests a short run must fail (the
// flat and rows nests under `target teams loop` with explicit teams, the collapsed one without
// simd), and the steps that map their data (omp_target_map, omp_target_data).
std::vector<StepCase> other_shapes_and_copying_steps() {
  return {
      {"omp_target_tuned",
       {"omp_shape=flat", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_tuned", {"omp_shape=collapse", "omp_simd=0"}},
      {"omp_target_tuned",
       {"omp_shape=rows", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_map", {}},
      {"omp_target_data", {}},
  };
}

// The shared test (jacobi2d_variants_test.cpp, OneSweepShortFailsVerification) runs the default
// shape; here the other shapes and every omptarget step (the resident one in both row orders).
TEST(OmpTargetJacobiTest, OneSweepShortFailsInOtherShapes) {
  auto cases = other_shapes_and_copying_steps();
  cases.push_back({"omp_target_resident", {}});
  cases.push_back({"omp_target_resident", {"alternate=0"}});
  for (const auto& [name, overrides] : cases) {
    const Params params =
        test::params_of("jacobi2d", with({"rows=33", "cols=17", "iters=600"}, overrides));
    SCOPED_TRACE(name + " " + params.json().dump());
    const auto p = jacobi2d::problem_of(params);
    Params short_params = params;
    short_params.set("iters", p.iters - 1);
    auto instance = test::variant_of("jacobi2d", name).factory(short_params);
    test::run_once(*instance);
    ASSERT_TRUE(instance->verify().ok) << "verified as the grid after iters - 1 sweeps";
    const Verification v = jacobi2d::verify_result(p, ResultOf::of(*instance), p.iters, -1);
    EXPECT_FALSE(v.ok) << v.detail;
    EXPECT_GT(v.outputs["difference"].get<double>(), 2 * v.outputs["tolerance"].get<double>());
  }
}

// diffusion3d's resident step: every time step in one region. Verified against the analytic
// solution and the original (the harness's check) on the small preset, a grid no warp's 4 x 32
// cells divide (rows of 300 cells: 2 x 128 + 44) with an odd step count (the result in the
// second field), two planes, and both row orders; the outputs count the steps done and the
// teams that ran (one on the host fallback).
TEST(OmpTargetDiffusionTest, ResidentVerifiesAndMakesEveryStep) {
  for (const std::vector<std::string>& size :
       {std::vector<std::string>{}, std::vector<std::string>{"nx=300", "ny=7", "nz=5", "steps=7"},
        std::vector<std::string>{"nx=17", "ny=9", "nz=2", "steps=4", "alternate=0"},
        std::vector<std::string>{"nx=300", "ny=7", "nz=5", "steps=7", "alternate=0"}}) {
    const Params params = test::params_of("diffusion3d", size);
    SCOPED_TRACE(params.json().dump());
    const Result r = run_variant("diffusion3d", "omp_target_resident", params);
    ASSERT_EQ(r.status, Status::verified) << r.error;
    EXPECT_EQ(r.place, test::place_here(test::variant_of("diffusion3d", "omp_target_resident")));
    EXPECT_EQ(r.outputs["steps"].get<std::int64_t>(), diffusion3d::problem_of(params).steps);
    EXPECT_EQ(r.outputs["max_diff_vs_original"].get<double>(), 0.0);
    const int teams = r.outputs["resident_teams"].get<int>();
    if (r.place == Place::host) {
      EXPECT_EQ(teams, 1);
    } else {
      EXPECT_GE(teams, 1);
    }
  }
}

// The field of any diffusion3d instance (its protected result_).
struct DiffusionResultOf : diffusion3d::DiffusionInstance {
  static const float* of(const Instance& instance) {
    return dynamic_cast<const diffusion3d::DiffusionInstance&>(instance).*
           (&DiffusionResultOf::result_);
  }
};

// A run one step short, in both row orders (an even and an odd step count: the result in
// either field), verifies as the field after steps - 1 and fails as the field after steps, by
// more than twice the tolerance, even where its count would claim every step.
TEST(OmpTargetDiffusionTest, ResidentOneStepShortFails) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{}, std::vector<std::string>{"alternate=0"},
        std::vector<std::string>{"nx=16", "ny=12", "nz=8", "dt=2e-5", "steps=301"}}) {
    const Params params = test::params_of("diffusion3d", overrides);
    SCOPED_TRACE(params.json().dump());
    const diffusion3d::Problem p = diffusion3d::problem_of(params);
    Params short_params = params;
    short_params.set("steps", p.steps - 1);
    auto instance = test::variant_of("diffusion3d", "omp_target_resident").factory(short_params);
    test::run_once(*instance);
    ASSERT_TRUE(instance->verify().ok) << "verified as the field after steps - 1 steps";
    const Verification v =
        diffusion3d::verify_result(p, DiffusionResultOf::of(*instance), p.steps, false);
    EXPECT_FALSE(v.ok) << v.detail;
    EXPECT_GT(v.outputs["difference"].get<double>(), 2 * v.outputs["tolerance"].get<double>());
  }
}

TEST(OmpTargetMatmulTest, TunedVerifiesInEveryShape) {
  for (const auto& shape : shapes_in(matmul::omp_target_shapes())) {
    // Past one group of 128 columns and a row block of 8, with padded rows; one element; and
    // random inputs (the Frobenius bound) on a block wider than the matrix.
    for (const std::vector<std::string>& size :
         {std::vector<std::string>{"m=19", "n=133", "k=7", "lda=9", "ldc=140"},
          std::vector<std::string>{"m=1", "n=1", "k=1"},
          std::vector<std::string>{"m=9", "n=5", "k=13", "init=random", "ldb=6"}}) {
      const Params params = test::params_of("matmul", with(size, shape));
      SCOPED_TRACE(params.json().dump());
      const Result r = run_variant("matmul", "omp_target_tuned", params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      if (params.text("init") == "seed") {
        EXPECT_EQ(r.outputs["max_abs_error"].get<double>(), 0.0);
      }
    }
  }
}

// The protected result of a matmul instance (C, rows of ldc).
struct MatmulResultOf : matmul::MatmulInstance {
  static std::vector<double>& of(Instance& instance) {
    return dynamic_cast<matmul::MatmulInstance&>(instance).*(&MatmulResultOf::c_);
  }
};

// Each step's own product over the first k - 1 terms (a problem with k - 1, the same A and B
// columns: the seed's A[i][q] = i + q and B[q][j] = q - j do not depend on k) put in place of the
// full problem's C: verification fails by exactly the largest missing term (i + k-1)(k-1 - j).
TEST(OmpTargetMatmulTest, AProductOneKStepShortFails) {
  const int m = 21, n = 135, k = 6;
  for (const auto& [name, overrides] : other_shapes_and_copying_steps()) {
    const std::vector<std::string> size = {"m=" + std::to_string(m), "n=" + std::to_string(n),
                                           "lda=" + std::to_string(k)};
    const Params params =
        test::params_of("matmul", with(with(size, {"k=" + std::to_string(k)}), overrides));
    const Params short_params =
        test::params_of("matmul", with(with(size, {"k=" + std::to_string(k - 1)}), overrides));
    SCOPED_TRACE(name + " " + params.json().dump());
    auto full = test::variant_of("matmul", name).factory(params);
    auto short_of_k = test::variant_of("matmul", name).factory(short_params);
    for (Instance* instance : {full.get(), short_of_k.get()}) {
      test::run_once(*instance);
    }
    ASSERT_TRUE(full->verify().ok);
    ASSERT_TRUE(short_of_k->verify().ok) << "verified as the product over k - 1 terms";
    MatmulResultOf::of(*full) = MatmulResultOf::of(*short_of_k);
    const Verification v = full->verify();
    EXPECT_FALSE(v.ok) << v.detail;
    double largest_missing = 0;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        largest_missing = std::max(largest_missing, std::abs(double(i + k - 1) * (k - 1 - j)));
      }
    }
    EXPECT_EQ(v.outputs["tolerance"].get<double>(), 0.0);
    EXPECT_EQ(v.outputs["difference"].get<double>(), largest_missing);
  }
}

// An apsp result verified as the serial loop's matrix bit for bit, and its successors where the
// run kept paths.
void expect_bitwise_the_serial_loop(const Result& r, const Params& params) {
  EXPECT_EQ(r.outputs["difference"].get<double>(), 0.0);
  EXPECT_NE(r.verification.find("bitwise equal to the serial loop"), std::string::npos)
      << r.verification;
  if (params.flag("paths")) {
    EXPECT_NE(r.verification.find("successors equal to the serial loop's"), std::string::npos)
        << r.verification;
  }
}

TEST(OmpTargetApspTest, TunedIsBitwiseTheSerialLoopInEveryShape) {
  for (const auto& shape : shapes_in(apsp::omp_target_shapes())) {
    for (const std::vector<std::string>& problem :
         {std::vector<std::string>{"n=37", "edges_per_vertex=3"},
          std::vector<std::string>{"n=29", "edges_per_vertex=2", "semiring=min-plus", "paths=1"},
          std::vector<std::string>{"n=2", "edges_per_vertex=1", "paths=1"}}) {
      const Params params = test::params_of("apsp", with(problem, shape));
      SCOPED_TRACE(params.json().dump());
      const Result r = run_variant("apsp", "omp_target_tuned", params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      expect_bitwise_the_serial_loop(r, params);
    }
  }
}

// The resident step: all n pivot steps in one region, bitwise the serial loop (and its
// successors) on graphs whose rows span whole batches of 6 (5 with paths) x 32 columns and a
// partial one (n = 400), fewer columns than a warp, n = 2, both semirings and both row orders;
// it counts the pivot steps it made and the teams that ran (one on the host fallback).
TEST(OmpTargetApspTest, ResidentIsBitwiseTheSerialLoop) {
  for (const std::vector<std::string>& problem :
       {std::vector<std::string>{"n=37", "edges_per_vertex=3"},
        std::vector<std::string>{"n=400", "edges_per_vertex=2"},
        std::vector<std::string>{"n=400", "edges_per_vertex=2", "paths=1", "alternate=0"},
        std::vector<std::string>{"n=29", "edges_per_vertex=2", "semiring=min-plus", "paths=1"},
        std::vector<std::string>{"n=29", "edges_per_vertex=2", "semiring=max-plus"},
        std::vector<std::string>{"n=2", "edges_per_vertex=1", "paths=1"}}) {
    const Params params = test::params_of("apsp", problem);
    SCOPED_TRACE(params.json().dump());
    const Result r = run_variant("apsp", "omp_target_resident", params);
    ASSERT_EQ(r.status, Status::verified) << r.error;
    EXPECT_EQ(r.place, test::place_here(test::variant_of("apsp", "omp_target_resident")));
    expect_bitwise_the_serial_loop(r, params);
    EXPECT_EQ(r.outputs["pivot_steps"].get<std::int64_t>(), params.integer("n"));
    if (r.place == Place::host) EXPECT_EQ(r.outputs["resident_teams"].get<int>(), 1);
  }
}

// The protected result of an apsp instance (d, n x n).
struct ApspResultOf : apsp::ApspInstance {
  static std::vector<float>& of(Instance& instance) {
    return dynamic_cast<apsp::ApspInstance&>(instance).*(&ApspResultOf::d_);
  }
};

// After each step's run, its matrix replaced by the serial loop's after n - 1 of the n pivot
// steps: the elements whose best path goes through the last vertex differ, and verification
// (tolerance 0, the count of differing elements) fails by exactly that count.
TEST(OmpTargetApspTest, AMatrixOnePivotStepShortFails) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"omp_target_tuned", {"omp_shape=collapse", "omp_simd=0"}},
      {"omp_target_tuned",
       {"omp_shape=rows", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_map", {}},
      {"omp_target_data", {}},
      {"omp_target_resident", {}},
      {"omp_target_resident", {"alternate=0", "paths=1"}},
  };
  for (const auto& [name, overrides] : cases) {
    const Params params = test::params_of("apsp", with({"n=41", "edges_per_vertex=2"}, overrides));
    SCOPED_TRACE(name + " " + params.json().dump());
    const apsp::Problem p = apsp::problem_of(params);
    auto instance = test::variant_of("apsp", name).factory(params);
    test::run_once(*instance);
    ASSERT_TRUE(instance->verify().ok);
    std::vector<float>& d = ApspResultOf::of(*instance);
    const std::vector<float> full = d;
    std::vector<float> short_of_one = dynamic_cast<const apsp::ApspInstance&>(*instance).initial();
    for (int k = 0; k < p.n - 1; ++k) apsp::relax_rows(p, short_of_one.data(), k, 0, p.n);
    std::int64_t differing = 0;
    for (std::size_t e = 0; e < full.size(); ++e) {
      differing += std::memcmp(&full[e], &short_of_one[e], sizeof(float)) != 0;
    }
    ASSERT_GT(differing, 0) << "the last pivot step changes nothing on this graph";
    d = short_of_one;
    const Verification v = instance->verify();
    EXPECT_FALSE(v.ok) << v.detail;
    EXPECT_EQ(v.outputs["tolerance"].get<double>(), 0.0);
    EXPECT_EQ(v.outputs["difference"].get<double>(), double(differing));
  }
}

// The map steps move their data inside every run (the xfer column); the others keep it resident.
TEST(OmpTargetTransfersTest, OnlyTheMapStepsMoveDataInARun) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> workloads = {
      {"matmul", {"m=17", "n=9", "k=5"}},
      {"apsp", {"n=23", "edges_per_vertex=2"}},
      {"apsp", {"n=23", "edges_per_vertex=2", "paths=1"}},
  };
  for (const auto& [workload, overrides] : workloads) {
    for (const char* name : {"omp_target_map", "omp_target_data", "omp_target_tuned"}) {
      const Params params = test::params_of(workload, overrides);
      SCOPED_TRACE(workload + "/" + name + " " + params.json().dump());
      const Result r = run_variant(workload, name, params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      EXPECT_EQ(r.transfer_s.has_value(), std::string(name) == "omp_target_map");
    }
  }
}

TEST(OmpTargetLadderTest, OnlyTheTunedStepsTakeTheTunings) {
  for (const char* workload : {"matmul", "apsp", "jacobi2d"}) {
    for (const char* name : {"omp_target_map", "omp_target_data", "omp_target_tuned"}) {
      SCOPED_TRACE(std::string(workload) + "/" + name);
      const Variant& v = test::variant_of(workload, name);
      EXPECT_EQ(v.backend, Backend::omptarget);
      const bool tuned = std::string(name) == "omp_target_tuned";
      for (const char* tuning :
           {"omp_teams", "omp_threads", "omp_simd", "omp_construct", "omp_shape"}) {
        EXPECT_EQ(std::count(v.tunings.begin(), v.tunings.end(), tuning), tuned ? 1 : 0) << tuning;
      }
      // apsp's keep the successors, as optimize does.
      EXPECT_EQ(std::count(v.tunings.begin(), v.tunings.end(), "paths"),
                std::string(workload) == "apsp" ? 1 : 0);
    }
  }
}

// The step whose file declares a workload's omp_* tunings (vector has two; triad's is checked).
std::string tuned_step(const std::string& workload) {
  return workload == "vector" ? "triad_omp_target_tuned" : "omp_target_tuned";
}

TEST(OmpTargetParamsTest, TeamsAndThreadsGoTogether) {
  for (const char* workload : {"vector", "jacobi2d", "matmul", "apsp"}) {
    SCOPED_TRACE(workload);
    // The check is the tuned step's (its file declares the tunings).
    const auto error = [&](const std::vector<std::string>& overrides) {
      return test::check_error(workload, tuned_step(workload), overrides);
    };
    EXPECT_NE(error({"omp_teams=4"}).find("omp_threads"), std::string::npos);
    EXPECT_NE(error({"omp_threads=64"}).find("omp_teams"), std::string::npos);
    // vector's default shape (lanes8) takes no teams: its flat one does.
    const std::vector<std::string> flat = std::string(workload) == "vector"
                                              ? std::vector<std::string>{"omp_shape=flat"}
                                              : std::vector<std::string>{};
    EXPECT_EQ(error(with({"omp_teams=4", "omp_threads=64"}, flat)), "");
    EXPECT_NE(error(with({"omp_construct=parallel"}, flat)), "");
  }
}

// The rows nests always run their innermost loop as simd: omp_simd=0 is refused there (the
// default nest) and taken in the others; a nest the workload does not have is refused.
TEST(OmpTargetParamsTest, NoSimdNeedsANestWithoutItsOwnSimdLoop) {
  for (const char* workload : {"jacobi2d", "diffusion3d", "matmul", "apsp"}) {
    SCOPED_TRACE(workload);
    const auto error = [&](const std::vector<std::string>& overrides) {
      return test::check_error(workload, "omp_target_tuned", overrides);
    };
    EXPECT_NE(error({"omp_simd=0"}).find("omp_shape=rows"), std::string::npos);
    EXPECT_NE(error({"omp_simd=0", "omp_shape=rows"}), "");
    EXPECT_EQ(error({"omp_simd=0", "omp_shape=collapse"}), "");
    EXPECT_EQ(error({"omp_simd=1", "omp_shape=rows"}), "");
    EXPECT_NE(error({"omp_shape=diagonal"}), "");
  }
}

TEST(OmpTargetProfileTest, TheReportSaysGcc12HasNoOmpt) {
  const Params params = test::params_of("vector", {"nx=64", "ny=4", "nt=2"});
  const Result r = run_variant("vector", "triad_omp_target_data", params, /*profile=*/true);
  ASSERT_EQ(r.status, Status::verified) << r.error;
  ASSERT_TRUE(r.profile.has_value());
  const auto notes = profile_notes(r);
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("no OMPT") != std::string::npos;
  }));
}

TEST(OmpTargetMachineTest, PlaceAndFlagsAreReported) {
  Machine machine;
  const std::string place = machine.omptarget_place();
  EXPECT_TRUE(place == "gpu" || place == "host") << place;
  EXPECT_EQ(place == "gpu", omptarget_device_count() > 0 && omptarget_region_on_device());
  const auto compiler = machine.compiler_json();
  ASSERT_TRUE(compiler.contains("omptarget_flags"));
  EXPECT_NE(compiler["omptarget_flags"].get<std::string>().find("-fopenmp"), std::string::npos);
#ifdef ACCLAB_OMPTARGET_OFFLOAD
  EXPECT_EQ(compiler["omptarget_offload"], "nvptx-none");
#else
  EXPECT_EQ(compiler["omptarget_offload"], "none (host only)");
#endif
}

#else

TEST(OmpTargetTest, NotBuilt) {
  for (const auto& v : test::all().variants()) EXPECT_NE(v.backend, Backend::omptarget) << v.id();
}

#endif

}  // namespace
}  // namespace acclab
