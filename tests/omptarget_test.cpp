// The omptarget backend (OpenMP target regions, acclab_omptarget): each tuned step verifies in
// every shape its tunings select, a jacobi2d grid one sweep short fails in a shape other than
// the default, the tunings are checked, and the result, the profile and the machine say where
// the regions ran. Without an offload device the regions run on the host (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/build_config.hpp"
#include "core/machine.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"
#include "support.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab {
namespace {

#ifdef ACCLAB_HAVE_OMPTARGET

// Every shape ACCLAB_OMP_TUNED writes: construct, simd, and num_teams/thread_limit given or not.
std::vector<std::vector<std::string>> shapes() {
  std::vector<std::vector<std::string>> all;
  for (const char* construct : {"omp_construct=distribute", "omp_construct=loop"}) {
    for (const char* simd : {"omp_simd=1", "omp_simd=0"}) {
      for (const auto& teams : {std::vector<std::string>{"omp_teams=0", "omp_threads=0"},
                                std::vector<std::string>{"omp_teams=3", "omp_threads=32"}}) {
        std::vector<std::string> shape = {construct, simd};
        shape.insert(shape.end(), teams.begin(), teams.end());
        all.push_back(shape);
      }
    }
  }
  return all;
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

Result run_variant(const std::string& workload, const std::string& name, const Params& params,
                   bool profile = false) {
  Machine machine;
  Runner runner(machine);
  RunOptions options;
  options.reps = 1;
  options.profile = profile;
  return runner.run(test::variant_of(workload, name), test::all().workload(workload), params,
                    options);
}

TEST(OmpTargetVectorTest, TunedTriadAndDotVerifyInEveryShape) {
  for (const char* name : {"triad_omp_target_tuned", "dot_omp_target_tuned"}) {
    for (const auto& shape : shapes()) {
      const Params params = test::params_of("vector", with({"nx=37", "ny=5", "nt=2"}, shape));
      SCOPED_TRACE(std::string(name) + " " + params.json().dump());
      const Result r = run_variant("vector", name, params);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      EXPECT_EQ(r.place, test::place_here(test::variant_of("vector", name)));
      if (r.place == Place::host) EXPECT_NE(r.note.find("host"), std::string::npos) << r.note;
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
  for (const char* collapse : {"omp_collapse=1", "omp_collapse=0"}) {
    for (const auto& shape : shapes()) {
      for (const std::vector<std::string>& size :
           {std::vector<std::string>{"rows=37", "cols=23", "iters=7"},
            std::vector<std::string>{"rows=17", "cols=9", "iters=100000", "tol=1e-6"}}) {
        const Params params = test::params_of("jacobi2d", with(with(size, shape), {collapse}));
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
}

// The grid that holds a jacobi2d instance's result (its protected result_).
struct ResultOf : jacobi2d::JacobiInstance {
  static const float* of(const Instance& instance) {
    return dynamic_cast<const jacobi2d::JacobiInstance&>(instance).*(&ResultOf::result_);
  }
};

// The shared test (jacobi2d_test.cpp, OneSweepShortFailsVerification) runs the default shape;
// here the flat loop under `target teams loop` with explicit teams, and every omptarget step.
TEST(OmpTargetJacobiTest, OneSweepShortFailsInOtherShapes) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"omp_target_tuned",
       {"omp_collapse=0", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_tuned", {"omp_collapse=1", "omp_simd=0"}},
      {"omp_target_map", {}},
      {"omp_target_data", {}},
  };
  for (const auto& [name, overrides] : cases) {
    const Params params =
        test::params_of("jacobi2d", with({"rows=33", "cols=17", "iters=600"}, overrides));
    SCOPED_TRACE(name + " " + params.json().dump());
    const auto p = jacobi2d::problem_of(params);
    Params short_params = params;
    short_params.set("iters", p.iters - 1);
    auto instance = test::variant_of("jacobi2d", name).factory(short_params);
    instance->setup();
    instance->reset();
    instance->run();
    instance->finish();
    ASSERT_TRUE(instance->verify().ok) << "verified as the grid after iters - 1 sweeps";
    const Verification v = jacobi2d::verify_result(p, ResultOf::of(*instance), p.iters, -1);
    EXPECT_FALSE(v.ok) << v.detail;
    EXPECT_GT(v.outputs["difference"].get<double>(), 2 * v.outputs["tolerance"].get<double>());
  }
}

TEST(OmpTargetParamsTest, TeamsAndThreadsGoTogether) {
  for (const char* workload : {"vector", "jacobi2d"}) {
    SCOPED_TRACE(workload);
    EXPECT_NE(test::validate_error(workload, {"omp_teams=4"}).find("omp_threads"),
              std::string::npos);
    EXPECT_NE(test::validate_error(workload, {"omp_threads=64"}).find("omp_teams"),
              std::string::npos);
    EXPECT_EQ(test::validate_error(workload, {"omp_teams=4", "omp_threads=64"}), "");
    EXPECT_NE(test::validate_error(workload, {"omp_construct=parallel"}), "");
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
