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
#include "workloads/jacobi2d/jacobi2d.hpp"
#include "workloads/matmul/matmul.hpp"
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

// Every shape above in each loop nest of `nests` (a workload's omp_target_shapes()), but for
// omp_simd=0 in the nests whose innermost loop is always simd (validate refuses those).
std::vector<std::vector<std::string>> shapes_in(const std::vector<OmpShape>& nests) {
  std::vector<std::vector<std::string>> all;
  for (const OmpShape& nest : nests) {
    for (const auto& shape : shapes()) {
      if (nest.inner_simd && std::count(shape.begin(), shape.end(), "omp_simd=0")) continue;
      all.push_back(with(shape, {"omp_shape=" + nest.name}));
    }
  }
  return all;
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

// The grid that holds a jacobi2d instance's result (its protected result_).
struct ResultOf : jacobi2d::JacobiInstance {
  static const float* of(const Instance& instance) {
    return dynamic_cast<const jacobi2d::JacobiInstance&>(instance).*(&ResultOf::result_);
  }
};

// The shared test (jacobi2d_test.cpp, OneSweepShortFailsVerification) runs the default shape;
// here the flat and rows nests under `target teams loop` with explicit teams, the collapsed one
// without simd, and every omptarget step.
TEST(OmpTargetJacobiTest, OneSweepShortFailsInOtherShapes) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"omp_target_tuned",
       {"omp_shape=flat", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_tuned", {"omp_shape=collapse", "omp_simd=0"}},
      {"omp_target_tuned",
       {"omp_shape=rows", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
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
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"omp_target_tuned",
       {"omp_shape=flat", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_tuned", {"omp_shape=collapse", "omp_simd=0"}},
      {"omp_target_tuned",
       {"omp_shape=rows", "omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_map", {}},
      {"omp_target_data", {}},
  };
  const int m = 21, n = 135, k = 6;
  for (const auto& [name, overrides] : cases) {
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
      instance->setup();
      instance->reset();
      instance->run();
      instance->finish();
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
      EXPECT_EQ(r.outputs["difference"].get<double>(), 0.0);
      EXPECT_NE(r.verification.find("bitwise equal to the serial loop"), std::string::npos)
          << r.verification;
      if (params.flag("paths")) {
        EXPECT_NE(r.verification.find("successors equal to the serial loop's"), std::string::npos)
            << r.verification;
      }
    }
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
  };
  for (const auto& [name, overrides] : cases) {
    const Params params = test::params_of("apsp", with({"n=41", "edges_per_vertex=2"}, overrides));
    SCOPED_TRACE(name + " " + params.json().dump());
    const apsp::Problem p = apsp::problem_of(params);
    auto instance = test::variant_of("apsp", name).factory(params);
    instance->setup();
    instance->reset();
    instance->run();
    instance->finish();
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

TEST(OmpTargetParamsTest, TeamsAndThreadsGoTogether) {
  for (const char* workload : {"vector", "jacobi2d", "matmul", "apsp"}) {
    SCOPED_TRACE(workload);
    EXPECT_NE(test::validate_error(workload, {"omp_teams=4"}).find("omp_threads"),
              std::string::npos);
    EXPECT_NE(test::validate_error(workload, {"omp_threads=64"}).find("omp_teams"),
              std::string::npos);
    EXPECT_EQ(test::validate_error(workload, {"omp_teams=4", "omp_threads=64"}), "");
    EXPECT_NE(test::validate_error(workload, {"omp_construct=parallel"}), "");
  }
}

// The rows nests always run their innermost loop as simd: omp_simd=0 is refused there (the
// default nest) and taken in the others; a nest the workload does not have is refused.
TEST(OmpTargetParamsTest, NoSimdNeedsANestWithoutItsOwnSimdLoop) {
  for (const char* workload : {"jacobi2d", "diffusion3d", "matmul", "apsp"}) {
    SCOPED_TRACE(workload);
    EXPECT_NE(test::validate_error(workload, {"omp_simd=0"}).find("omp_shape=rows"),
              std::string::npos);
    EXPECT_NE(test::validate_error(workload, {"omp_simd=0", "omp_shape=rows"}), "");
    EXPECT_EQ(test::validate_error(workload, {"omp_simd=0", "omp_shape=collapse"}), "");
    EXPECT_EQ(test::validate_error(workload, {"omp_simd=1", "omp_shape=rows"}), "");
    EXPECT_NE(test::validate_error(workload, {"omp_shape=diagonal"}), "");
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
