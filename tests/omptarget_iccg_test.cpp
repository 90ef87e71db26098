// iccg's OpenMP target steps (omp_target_map, omp_target_data, omp_target_tuned,
// omp_target_resident): the tuned step verifies in every shape its tunings select and on a mesh
// of one cell (empty slabs), the resident one in one region whose teams all met at every
// barrier, each step
// solves the SuiteSparse matrices as original does and stops where original does on an
// indefinite matrix, a solve one iteration short or a slightly wrong x fails verification, only
// the map step moves data inside a run, and the tunings are the tuned row's own. The shared
// variant tests (iccg_test.cpp) run every step on the orderings; without an offload device the
// regions run on the host (CI).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/build_config.hpp"
#include "core/machine.hpp"
#include "core/runner.hpp"
#include "iccg_indefinite.hpp"
#include "support.hpp"
#include "workloads/iccg/iccg.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab {
namespace {

#ifdef ACCLAB_HAVE_OMPTARGET

const std::vector<std::string> steps = {"omp_target_map", "omp_target_data", "omp_target_tuned",
                                        "omp_target_resident"};

using test::run_variant;
using test::with;

TEST(OmpTargetIccgTest, TunedVerifiesInEveryShape) {
  for (const auto& shape : test::omp_tuned_shapes()) {
    // The small preset; another ordering on an odd mesh; one cell (no couplings: empty slabs).
    for (const std::vector<std::string>& problem :
         {std::vector<std::string>{}, std::vector<std::string>{"colors=-1", "nx=9", "ny=5", "nz=7"},
          std::vector<std::string>{"nx=1", "ny=1", "nz=1"}}) {
      const Params params = test::params_of("iccg", with(problem, shape));
      SCOPED_TRACE(params.json().dump());
      const Result r = run_variant("iccg", "omp_target_tuned", params);
      ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
      EXPECT_EQ(r.outputs["iterations"].get<int>(), r.outputs["serial_iterations"].get<int>());
      EXPECT_EQ(r.place, test::place_here(test::variant_of("iccg", "omp_target_tuned")));
    }
  }
}

// The solution an iccg instance holds (its protected solution_).
struct SolutionOf : iccg::IccgInstance {
  static iccg::Solution& of(Instance& instance) {
    return dynamic_cast<iccg::IccgInstance&>(instance).*(&SolutionOf::solution_);
  }
};

std::unique_ptr<Instance> solved(const std::string& name, const Params& params) {
  auto instance = test::variant_of("iccg", name).factory(params);
  test::run_once(*instance);
  return instance;
}

// Each step's own solve capped one iteration short, claimed converged in the full solve's
// iterations (what a faulty step would report), fails by its residual; so does x off by a
// relative 1e-6, which a converged-looking recurrence does not show.
TEST(OmpTargetIccgTest, OneIterationShortOrAWrongXFails) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"omp_target_map", {}},
      {"omp_target_data", {}},
      {"omp_target_tuned", {}},
      {"omp_target_tuned", {"omp_construct=loop", "omp_teams=5", "omp_threads=64"}},
      {"omp_target_tuned", {"omp_simd=0"}},
      {"omp_target_resident", {}},
  };
  for (const auto& [name, overrides] : cases) {
    for (const std::vector<std::string>& problem :
         {std::vector<std::string>{}, std::vector<std::string>{"colors=-2", "nx=9", "nz=13"}}) {
      const Params params = test::params_of("iccg", with(problem, overrides));
      SCOPED_TRACE(name + " " + params.json().dump());
      auto full = solved(name, params);
      const Verification good = full->verify();
      ASSERT_TRUE(good.ok) << good.detail;
      const iccg::Solution right = SolutionOf::of(*full);
      ASSERT_GT(right.iterations, 1);

      Params short_params = params;
      short_params.set("max_iterations", right.iterations - 1);
      auto short_of_one = solved(name, short_params);
      iccg::Solution early = SolutionOf::of(*short_of_one);
      EXPECT_FALSE(early.converged);
      EXPECT_EQ(early.iterations, right.iterations - 1);
      early.converged = true;
      early.iterations = right.iterations;
      SolutionOf::of(*full) = early;
      Verification v = full->verify();
      EXPECT_FALSE(v.ok) << v.detail;
      EXPECT_GT(v.outputs["difference"].get<double>(), v.outputs["tolerance"].get<double>());

      iccg::Solution scaled = right;
      for (double& x : scaled.x) x *= 1 + 1e-6;
      SolutionOf::of(*full) = scaled;
      v = full->verify();
      EXPECT_FALSE(v.ok) << v.detail;
      EXPECT_GT(v.outputs["difference"].get<double>(), 10 * v.outputs["tolerance"].get<double>());
    }
  }
}

using test::data_file;

// acclab iccg FILE's path (use_system, then the step's own solve): converged by the residual
// recomputed from the file, in original's iterations give or take 2, with and without the
// shifted factor, and with every colour split into slab runs wherever that saves a slot.
TEST(OmpTargetIccgTest, SolvesTheSuiteSparseMatricesAsOriginalDoes) {
  Machine machine;
  for (const auto& [file, shift] : {std::pair<std::string, double>{"matrices/494_bus.mtx", 0},
                                    std::pair<std::string, double>{"matrices/LFAT5.mtx", 1}}) {
    const iccg::MatrixSystem system = iccg::read_matrix_system(data_file(file), "");
    constexpr double tol = 1e-10;
    const iccg::MatrixSolution original = iccg::solve_matrix(
        system, {.tol = tol,
                 .shift = shift,
                 .variant = iccg::choose_matrix_variant("original", test::all(), machine).variant});
    ASSERT_TRUE(original.converged);
    for (const std::string& name : steps) {
      for (const std::int64_t min_saved_slots : {iccg::default_min_saved_slots, std::int64_t(0)}) {
        SCOPED_TRACE(file + " " + name + " min_saved_slots " + std::to_string(min_saved_slots));
        const iccg::MatrixSolution s =
            iccg::solve_matrix(system, {.tol = tol,
                                        .shift = shift,
                                        .variant = &test::variant_of("iccg", name),
                                        .min_saved_slots = min_saved_slots});
        EXPECT_TRUE(s.converged);
        EXPECT_LT(s.residual, tol);
        EXPECT_LE(std::abs(s.iterations - original.iterations), 2)
            << s.iterations << " iterations against original's " << original.iterations;
        ASSERT_TRUE(s.error_from_ones);
        EXPECT_LT(*s.error_from_ones, 1e-5);
      }
    }
  }
}

// The resident step on the meshes of the tuned step's test: verified, in the serial solve's
// iterations, with the teams it ran (one on the host fallback, where a region's teams run one
// after the other).
TEST(OmpTargetIccgTest, ResidentVerifiesInOneRegion) {
  for (const std::vector<std::string>& problem :
       {std::vector<std::string>{}, std::vector<std::string>{"colors=-1", "nx=9", "ny=5", "nz=7"},
        std::vector<std::string>{"colors=4", "nx=7", "ny=6", "nz=5"},
        std::vector<std::string>{"nx=1", "ny=1", "nz=1"}}) {
    const Params params = test::params_of("iccg", problem);
    SCOPED_TRACE(params.json().dump());
    const Result r = run_variant("iccg", "omp_target_resident", params);
    ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
    EXPECT_EQ(r.outputs["iterations"].get<int>(), r.outputs["serial_iterations"].get<int>());
    const int teams = r.outputs["resident_teams"].get<int>();
    if (omptarget_region_on_device()) {
      EXPECT_GE(teams, 1);
    } else {
      EXPECT_EQ(teams, 1);
    }
  }
}

// The tuned and resident steps find p . A p <= 0 on the device and stop at original's
// iteration, as optimized_per_color does (iccg_indefinite.hpp).
TEST(OmpTargetIccgTest, TunedAndResidentStopWhereOriginalDoesOnAnIndefiniteMatrix) {
  test::expect_stops_where_original_does_on_an_indefinite_matrix("omp_target_tuned");
  test::expect_stops_where_original_does_on_an_indefinite_matrix("omp_target_resident");
}

// The map step moves its data inside every run (the xfer column); the others keep it resident.
TEST(OmpTargetIccgTest, OnlyTheMapStepMovesDataInARun) {
  for (const std::string& name : steps) {
    // And a mesh of one cell: no couplings, so no column or value array to map.
    for (const std::vector<std::string>& mesh :
         {std::vector<std::string>{"nx=6", "ny=5", "nz=4"},
          std::vector<std::string>{"nx=1", "ny=1", "nz=1"}}) {
      const Params params = test::params_of("iccg", mesh);
      SCOPED_TRACE(name + " " + params.json().dump());
      const Result r = run_variant("iccg", name, params);
      ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
      EXPECT_EQ(r.transfer_s.has_value(), name == "omp_target_map");
    }
  }
}

TEST(OmpTargetIccgTest, OnlyTheTunedStepTakesTheTunings) {
  for (const std::string& name : steps) {
    SCOPED_TRACE(name);
    const Variant& v = test::variant_of("iccg", name);
    EXPECT_EQ(v.backend, Backend::omptarget);
    const bool tuned = name == "omp_target_tuned";
    for (const char* tuning : {"omp_teams", "omp_threads", "omp_simd", "omp_construct"}) {
      EXPECT_EQ(std::count(v.tunings.begin(), v.tunings.end(), tuning), tuned ? 1 : 0) << tuning;
    }
    EXPECT_EQ(std::count(v.tunings.begin(), v.tunings.end(), "omp_shape"), 0);
  }
  const auto error = [](const std::vector<std::string>& overrides) {
    return test::check_error("iccg", "omp_target_tuned", overrides);
  };
  EXPECT_NE(error({"omp_teams=4"}).find("omp_threads"), std::string::npos);
  EXPECT_NE(error({"omp_threads=64"}).find("omp_teams"), std::string::npos);
  EXPECT_EQ(error({"omp_teams=4", "omp_threads=64"}), "");
  EXPECT_NE(error({"omp_construct=parallel"}), "");
  EXPECT_NE(error({"omp_shape=rows"}), "");  // iccg has no omp_shape
  // The check is the tuned step's alone: the others never read these knobs.
  EXPECT_EQ(test::check_error("iccg", "omp_target_data", {"omp_teams=4"}), "");
}

#else

TEST(OmpTargetIccgTest, NotBuilt) {
  for (const auto& v : test::all().variants()) EXPECT_NE(v.backend, Backend::omptarget) << v.id();
}

#endif

}  // namespace
}  // namespace acclab
