// iccg: the course's multicolour ICCG solver (its CPU steps so far).
//   - the mesh matrix and source against the course's definition, written out here;
//   - every ordering: a permutation, no two coupled rows in one colour (also on a graph whose
//     levels are not independent), the colour counts the course's -c asks for;
//   - the direct (band Cholesky) reference against a dense product and the mesh's smallest
//     eigenvalue against its closed form;
//   - the solve against the direct solve on a small grid, independent of the thread count;
//   - verification: NaN, a claimed convergence one iteration early, the direct-solve check;
//   - every registered variant through the harness, corrupted results, bad input.
#include "workloads/iccg/iccg.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "core/runner.hpp"
#include "io/matrix_market.hpp"
#include "io/text_vector.hpp"
#include "support.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab {
namespace {

using iccg::Csr;
using iccg::Ordering;
using test::is_usage_error;
using test::run_acclab;

// The matrix as dense rows, for the checks below.
std::vector<std::vector<double>> dense(const Csr& a) {
  std::vector<std::vector<double>> m(a.n, std::vector<double>(a.n, 0.0));
  for (std::int64_t i = 0; i < a.n; ++i) {
    m[i][i] = a.diagonal[i];
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) m[i][a.column[e]] += a.value[e];
  }
  return m;
}

TEST(IccgProblemTest, MeshMatrixIsTheCoursesFiniteVolumeCoupling) {
  const int nx = 4, ny = 3, nz = 2;
  const auto s = iccg::poisson_problem(nx, ny, nz);
  ASSERT_EQ(s.a.n, 24);
  const auto m = dense(s.a);
  for (int k = 0; k < nz; ++k) {
    for (int j = 0; j < ny; ++j) {
      for (int i = 0; i < nx; ++i) {
        const int row = (k * ny + j) * nx + i;
        const int neighbours =
            (i > 0) + (i < nx - 1) + (j > 0) + (j < ny - 1) + (k > 0) + (k < nz - 1);
        EXPECT_EQ(m[row][row], neighbours + (k == nz - 1 ? 2.0 : 0.0)) << row;
        EXPECT_EQ(s.b[row], double(i + j + k + 3)) << row;
        for (int col = 0; col < 24; ++col) {
          if (col == row) continue;
          const int ci = col % nx, cj = (col / nx) % ny, ck = col / (nx * ny);
          const bool face = std::abs(ci - i) + std::abs(cj - j) + std::abs(ck - k) == 1;
          EXPECT_EQ(m[row][col], face ? -1.0 : 0.0) << row << " " << col;
          EXPECT_EQ(m[row][col], m[col][row]);
        }
      }
    }
  }
}

void expect_valid(const Csr& a, const Ordering& o) {
  ASSERT_EQ(o.color_start.front(), 0);
  ASSERT_EQ(o.color_start.back(), a.n);
  ASSERT_EQ(int(o.color_start.size()), o.colors + 1);
  std::set<std::int64_t> seen;
  for (std::int64_t v = 0; v < a.n; ++v) {
    EXPECT_EQ(o.old_of_new[o.new_of_old[v]], v);
    seen.insert(o.new_of_old[v]);
  }
  EXPECT_EQ(std::int64_t(seen.size()), a.n);
  for (int c = 0; c < o.colors; ++c) EXPECT_LT(o.color_start[c], o.color_start[c + 1]);
  EXPECT_FALSE(iccg::coupled_rows_share_a_color(a, o));
}

TEST(IccgOrderingTest, EveryOrderingIsAPermutationWithIndependentColours) {
  const auto s = iccg::poisson_problem(9, 7, 5);
  for (int c : {0, -1, -2, -3, -10, -20, 2, 3, 7, 50}) {
    SCOPED_TRACE(c);
    const Ordering o = iccg::order_rows(s.a, c);
    expect_valid(s.a, o);
    // Levels from a corner of a 9 x 7 x 5 grid: i + j + k, 19 of them.
    if (c == 0 || c == -1) EXPECT_EQ(o.colors, 19);
    if (c <= -2) EXPECT_EQ(o.colors, std::min(-c, 19));  // never more colours than levels
    if (c >= 2) EXPECT_GE(o.colors, c);
  }
}

TEST(IccgOrderingTest, CouplingsInsideALevelGetExtraColours) {
  // A triangle 0-1-2 plus a tail 2-3: BFS levels put 1 and 2 together, and CM-RCM with two
  // colours puts 0 and 2 together too.
  Csr a;
  a.n = 4;
  a.diagonal = {3, 3, 4, 2};
  const std::vector<std::vector<std::int64_t>> neighbours = {{1, 2}, {0, 2}, {0, 1, 3}, {2}};
  a.start = {0};
  for (const auto& row : neighbours) {
    for (std::int64_t col : row) {
      a.column.push_back(col);
      a.value.push_back(-1);
    }
    a.start.push_back(std::int64_t(a.column.size()));
  }
  for (int c : {0, -1, -2, 2}) {
    SCOPED_TRACE(c);
    const Ordering o = iccg::order_rows(a, c);
    expect_valid(a, o);
    EXPECT_GE(o.colors, 3);  // a triangle needs three
  }
}

// The colour slabs hold the permuted matrix exactly: the product through them (lower and upper
// couplings, padding included) equals the CSR product, and every lower column is an earlier
// colour's row and every upper one a later colour's.
TEST(IccgColorEllTest, SlabsHoldThePermutedMatrix) {
  const auto s = iccg::poisson_problem(7, 4, 6);
  for (int c : {0, -1, -3, -20, 2, 5}) {
    SCOPED_TRACE(c);
    const Ordering o = iccg::order_rows(s.a, c);
    const Csr a = iccg::permuted(s.a, o);
    const iccg::ColorEll m = iccg::color_ell(a, o);
    ASSERT_EQ(m.colors, o.colors);
    std::vector<double> x(static_cast<std::size_t>(a.n));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1.0 + double((i * 37) % 11);
    for (int color = 0; color < m.colors; ++color) {
      const std::int64_t first = m.color_start[color], rows = m.color_start[color + 1] - first;
      for (std::int64_t k = 0; k < rows; ++k) {
        const std::int64_t i = first + k;
        double slab = m.diagonal[i] * x[i], csr = a.diagonal[i] * x[i];
        for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e)
          csr += a.value[e] * x[a.column[e]];
        for (int slot = 0; slot < m.lower_width[color]; ++slot) {
          const std::int64_t e = m.lower_start[color] + slot * rows + k;
          if (m.lower_value[e] != 0) EXPECT_LT(m.lower_column[e], first);
          slab += m.lower_value[e] * x[m.lower_column[e]];
        }
        for (int slot = 0; slot < m.upper_width[color]; ++slot) {
          const std::int64_t e = m.upper_start[color] + slot * rows + k;
          if (m.upper_value[e] != 0) EXPECT_GE(m.upper_column[e], first + rows);
          slab += m.upper_value[e] * x[m.upper_column[e]];
        }
        ASSERT_EQ(slab, csr) << "row " << i;
      }
    }
  }
}

TEST(IccgSolveTest, MatchesADirectSolveAndDoesNotDependOnThreads) {
  const auto s = iccg::poisson_problem(4, 3, 5);
  const Ordering o = iccg::order_rows(s.a, -3);
  const Csr a = iccg::permuted(s.a, o);
  std::vector<double> b(s.b.size());
  for (std::int64_t v = 0; v < s.a.n; ++v) b[o.new_of_old[v]] = s.b[v];
  const auto one = iccg::solve_iccg(a, b, o, 1e-12, 1000, 1);
  const auto three = iccg::solve_iccg(a, b, o, 1e-12, 1000, 3);
  ASSERT_TRUE(one.converged);
  EXPECT_LT(one.relative_residual, 1e-12);
  EXPECT_LT(iccg::true_relative_residual(a, b, one.x), 1e-11);
  EXPECT_EQ(one.iterations, three.iterations);
  EXPECT_EQ(one.x, three.x) << "bit for bit";
  const auto x = iccg::reference_solve(s.a, s.b);
  ASSERT_EQ(x.size(), s.b.size());
  double max_x = 0;
  for (double v : x) max_x = std::max(max_x, std::abs(v));
  for (std::int64_t v = 0; v < s.a.n; ++v) {
    EXPECT_NEAR(one.x[o.new_of_old[v]], x[v], 1e-9 * max_x) << v;
  }
}

TEST(IccgSolveTest, MoreColoursConvergeNoSlowerOnTheMesh) {
  // The course's lesson in one line: CM-RCM with few colours converges slowest.
  const auto s = iccg::poisson_problem(12, 10, 8);
  auto iterations = [&](int c) {
    const Ordering o = iccg::order_rows(s.a, c);
    const Csr a = iccg::permuted(s.a, o);
    std::vector<double> b(s.b.size());
    for (std::int64_t v = 0; v < s.a.n; ++v) b[o.new_of_old[v]] = s.b[v];
    const auto solution = iccg::solve_iccg(a, b, o, 1e-8, 1000, 1);
    EXPECT_TRUE(solution.converged) << c;
    return solution.iterations;
  };
  EXPECT_GT(iterations(-2), iterations(-20));
}

TEST(IccgReferenceTest, DirectSolveSolvesAndRefusesAnIndefiniteMatrix) {
  const auto s = iccg::poisson_problem(5, 4, 3);
  EXPECT_EQ(iccg::bandwidth(s.a), 20);
  const auto x = iccg::reference_solve(s.a, s.b);
  ASSERT_EQ(x.size(), s.b.size());
  const auto m = dense(s.a);
  for (std::int64_t i = 0; i < s.a.n; ++i) {
    double ax = 0;
    for (std::int64_t j = 0; j < s.a.n; ++j) ax += m[i][j] * x[j];
    EXPECT_NEAR(ax, s.b[i], 1e-12 * s.b[i]) << i;
  }
  // tridiag(1, 1, 1) of order 5 has the eigenvalue 1 + 2 cos(5 pi / 6) < 0.
  Csr t;
  t.n = 5;
  t.diagonal.assign(5, 1.0);
  t.start = {0};
  for (std::int64_t i = 0; i < 5; ++i) {
    for (std::int64_t j : {i - 1, i + 1}) {
      if (j < 0 || j >= 5) continue;
      t.column.push_back(j);
      t.value.push_back(1.0);
    }
    t.start.push_back(std::int64_t(t.column.size()));
  }
  EXPECT_TRUE(iccg::reference_solve(t, std::vector<double>(5, 1.0)).empty());
}

TEST(IccgReferenceTest, SmallestEigenvalueOfTheMeshIsItsLowestZMode) {
  for (int nz : {1, 2, 7}) {
    const int nx = 3, ny = 2;
    const auto s = iccg::poisson_problem(nx, ny, nz);
    const double lambda = iccg::mesh_smallest_eigenvalue(nz);
    const double theta = M_PI / (2.0 * nz);
    std::vector<double> v(static_cast<std::size_t>(s.a.n));
    for (std::int64_t row = 0; row < s.a.n; ++row)
      v[row] = std::cos(theta * (row / (nx * ny) + 0.5));
    for (std::int64_t i = 0; i < s.a.n; ++i) {
      double av = s.a.diagonal[i] * v[i];
      for (std::int64_t e = s.a.start[i]; e < s.a.start[i + 1]; ++e)
        av += s.a.value[e] * v[s.a.column[e]];
      EXPECT_NEAR(av, lambda * v[i], 1e-13) << "nz " << nz << " row " << i;
    }
    // No eigenvalue below it: the Cholesky factor of A - 0.999 lambda I exists.
    Csr shifted = s.a;
    for (double& d : shifted.diagonal) d -= 0.999 * lambda;
    EXPECT_FALSE(iccg::reference_solve(shifted, s.b).empty()) << nz;
    for (double& d : shifted.diagonal) d -= 0.002 * lambda;
    EXPECT_TRUE(iccg::reference_solve(shifted, s.b).empty()) << nz;
  }
}

TEST(IccgSolveTest, ZeroRightHandSideIsSolvedAtOnce) {
  const auto s = iccg::poisson_problem(4, 3, 2);
  const Ordering o = iccg::order_rows(s.a, -3);
  const auto solution =
      iccg::solve_iccg(iccg::permuted(s.a, o), std::vector<double>(24, 0.0), o, 1e-8, 1000, 1);
  EXPECT_TRUE(solution.converged);
  EXPECT_EQ(solution.iterations, 0);
  EXPECT_EQ(solution.x, std::vector<double>(24, 0.0));
  EXPECT_FALSE(solution.not_finite);
}

TEST(IccgSolveTest, ANonFiniteRightHandSideStopsAsNotFinite) {
  const auto s = iccg::poisson_problem(4, 3, 2);
  const Ordering o = iccg::order_rows(s.a, -3);
  std::vector<double> b(24, 1.0);
  b[5] = NAN;
  const auto solution = iccg::solve_iccg(iccg::permuted(s.a, o), b, o, 1e-8, 1000, 1);
  EXPECT_FALSE(solution.converged);
  EXPECT_TRUE(solution.not_finite);
  EXPECT_LE(solution.iterations, 1);
}

TEST(IccgSolveTest, ThreadsOnlyWhereAColourHasRowsForThem) {
  EXPECT_EQ(iccg::useful_threads(494, 19, 2), 1);           // 494_bus
  EXPECT_EQ(iccg::useful_threads(16 * 12 * 10, 10, 8), 1);  // the small preset
  EXPECT_EQ(iccg::useful_threads(128 * 128 * 128, 20, 2), 2);
  EXPECT_EQ(iccg::useful_threads(128 * 128 * 128, 20, 64), 51);  // 104 857 rows a colour
  EXPECT_EQ(iccg::useful_threads(0, 0, 4), 1);
}

// A step of the ladder as it might go wrong: the solve's x with one thing changed after it ran.
class TamperedSolve : public iccg::IccgInstance {
 public:
  enum class Fault { none, nan_in_x, nan_residual, stopped_one_iteration_early };
  TamperedSolve(const Params& params, Fault fault) : IccgInstance(params), fault_(fault) {}
  void run() override {
    solution_ = iccg::solve_iccg(a_, b_, ordering_, p_.eps, p_.max_iterations, 1);
    if (fault_ == Fault::nan_in_x) solution_.x[solution_.x.size() / 3] = NAN;
    if (fault_ == Fault::nan_residual) solution_.relative_residual = NAN;
    if (fault_ == Fault::stopped_one_iteration_early) {
      const int iterations = solution_.iterations;
      solution_ = iccg::solve_iccg(a_, b_, ordering_, p_.eps, iterations - 1, 1);
      solution_.converged = true;  // the claim a faulty variant would make
      solution_.iterations = iterations;
    }
  }

 private:
  Fault fault_;
};

Verification verify_tampered(TamperedSolve::Fault fault, const std::vector<std::string>& sets) {
  TamperedSolve instance(test::params_of("iccg", sets), fault);
  instance.setup();
  instance.run();
  return instance.verify();
}

TEST(IccgVerifyTest, TheUntamperedSolveVerifiesWithItsBoundBesideIt) {
  const Verification v = verify_tampered(TamperedSolve::Fault::none, {});
  EXPECT_TRUE(v.ok) << v.detail;
  ASSERT_TRUE(v.outputs.contains("tolerance") && v.outputs.contains("difference"));
  EXPECT_LE(v.outputs["difference"].get<double>(), v.outputs["tolerance"].get<double>());
  // eps plus a rounding allowance well under a percent of it.
  EXPECT_GE(v.outputs["tolerance"].get<double>(), 1e-8);
  EXPECT_LT(v.outputs["tolerance"].get<double>(), 1.01e-8);
}

TEST(IccgVerifyTest, NanInXOrInTheResidualFails) {
  for (auto fault : {TamperedSolve::Fault::nan_in_x, TamperedSolve::Fault::nan_residual}) {
    const Verification v = verify_tampered(fault, {});
    EXPECT_FALSE(v.ok) << v.detail;
    const double difference = v.outputs["difference"].get<double>();
    EXPECT_FALSE(difference <= v.outputs["tolerance"].get<double>()) << difference;
  }
}

TEST(IccgVerifyTest, ConvergenceClaimedOneIterationEarlyFails) {
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, std::vector<std::string>{"colors=-2", "nx=9", "nz=13"}}) {
    const Verification v = verify_tampered(TamperedSolve::Fault::stopped_one_iteration_early, sets);
    EXPECT_FALSE(v.ok) << v.detail;
    EXPECT_GT(v.outputs["difference"].get<double>(), v.outputs["tolerance"].get<double>())
        << v.detail;
  }
}

class IccgVariantTest : public test::VariantTest {
 protected:
  IccgVariantTest() : VariantTest("iccg") {}
};

TEST_P(IccgVariantTest, ConvergesToTheSerialSolveForEveryOrdering) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{}, std::vector<std::string>{"colors=0"},
        std::vector<std::string>{"colors=-1", "nx=9", "ny=5", "nz=13"},
        std::vector<std::string>{"colors=7", "nx=2", "ny=2", "nz=2"},
        std::vector<std::string>{"colors=-2", "eps=1e-10", "async=0"},
        // optimized_per_color's launches synchronous and on one async queue.
        std::vector<std::string>{"colors=5", "async=0"},
        std::vector<std::string>{"colors=-3", "nx=7", "ny=11", "nz=6", "async=1"}}) {
    const Params params = test::params_of("iccg", overrides);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, 1);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << r.note;
    ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
    EXPECT_LT(r.outputs["residual"].get<double>(), 10 * params.real("eps"));
    EXPECT_GT(r.outputs["iterations"].get<int>(), 0);
    EXPECT_GT(r.gflops, 0);
    if (variant().name == "optimized" || variant().name == "optimized_per_color") {
      // The one construct, or a construct per colour (0 gangs says which ran).
      const bool per_color = variant().name == "optimized_per_color";
      ASSERT_TRUE(r.outputs.contains("resident_gangs"));
      EXPECT_EQ(r.outputs["resident_gangs"].get<int>() == 0, per_color);
    }
  }
}

TEST_P(IccgVariantTest, OriginalIsCheckedAgainstTheDirectSolveOnSmallMeshes) {
  const Result r = run(test::params_of("iccg", {}), 1);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << r.note;
  ASSERT_EQ(r.status, Status::verified) << r.error << " / " << r.verification;
  EXPECT_EQ(r.outputs.contains("direct_solve_difference"), variant().name == "original");
  if (variant().name == "original") {
    EXPECT_LE(r.outputs["direct_solve_difference"].get<double>(),
              r.outputs["direct_solve_tolerance"].get<double>());
  }
  // The CPU steps do the serial solve's arithmetic: the same x, bit for bit.
  if (variant().name == "original" || variant().name == "setup") {
    EXPECT_EQ(r.outputs["max_diff_vs_serial"].get<double>(), 0.0);
    EXPECT_EQ(r.outputs["serial_tolerance"].get<double>(), 0.0);
  }
}

TEST_P(IccgVariantTest, OnlyDataPresentTimesItsTransfers) {
  const Result r = run(test::params_of("iccg", {}), 2);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << r.note;
  ASSERT_EQ(r.status, Status::verified) << r.error;
  // 04 and its OpenMP twin enter the data inside each solve; 05 before the timing; the CPU
  // steps never copy.
  EXPECT_EQ(r.transfer_s.has_value(),
            variant().name == "data_present" || variant().name == "omp_target_map");
  EXPECT_EQ(r.place, expected_place());
}

INSTANTIATE_TEST_SUITE_P(AllIccgVariants, IccgVariantTest,
                         ::testing::ValuesIn(test::variant_names("iccg")), test::param_name);

using test::BadInputTest;

INSTANTIATE_TEST_SUITE_P(
    IccgRun, BadInputTest,
    ::testing::Values(test::bad_set("iccg", "colors=1"), test::bad_set("iccg", "eps=2"),
                      test::bad_set("iccg", "eps=1e-300"), test::bad_set("iccg", "eps=1e-17"),
                      test::bad_set("iccg", "nx=0"), test::bad_set("iccg", "max_iterations=0"),
                      test::bad_set("iccg", "max_iterations=2147483647"),
                      test::bad_set("iccg", "async=2"), test::bad_set("iccg", "resident=2"),
                      test::bad_set("iccg", "nx=100000000")),
    test::bad_input_name);

// ---- acclab iccg MATRIX.mtx ---------------------------------------------------------------------

using test::data_file;

// The residual the report's "converged after N iterations: ||b - A x|| / ||b|| = R" line gives.
double reported_residual(const std::string& out) {
  const auto at = out.find("||b - A x|| / ||b|| = ");
  if (at == std::string::npos) return NAN;
  return std::strtod(out.c_str() + at + std::strlen("||b - A x|| / ||b|| = "), nullptr);
}

TEST(IccgCommandTest, SolvesTheSuiteSparseMatricesForXEqualOne) {
  // IC(0) breaks down on LFAT5, and on bcsstk01 in some orderings (both positive definite all
  // the same): they need the shift.
  for (const std::vector<std::string> matrix :
       {std::vector<std::string>{"matrices/LFAT5.mtx", "--shift", "1"},
        std::vector<std::string>{"matrices/bcsstk01.mtx", "--shift", "1"},
        std::vector<std::string>{"matrices/494_bus.mtx"}}) {
    for (const char* colors : {"-20", "0", "3"}) {
      SCOPED_TRACE(matrix[0] + " --colors " + colors);
      std::vector<std::string> args = {"iccg", data_file(matrix[0]), "--colors", colors, "--tol",
                                       "1e-13"};
      args.insert(args.end(), matrix.begin() + 1, matrix.end());
      // A tight tolerance: LFAT5 is ill-conditioned (at 1e-8, x is only within 4e-4 of 1).
      const test::Outcome o = run_acclab(args);
      ASSERT_EQ(o.status, 0) << o;
      EXPECT_NE(o.out.find("converged after"), std::string::npos) << o.out;
      EXPECT_LT(reported_residual(o.out), 1e-13) << o.out;  // recomputed, not the recurrence's
      double error = 1;
      const auto at = o.out.find("max |x - 1| = ");
      ASSERT_NE(at, std::string::npos) << o.out;
      ASSERT_EQ(std::sscanf(o.out.c_str() + at, "max |x - 1| = %lf", &error), 1);
      EXPECT_LT(error, 1e-5);
    }
  }
}

TEST(IccgCommandTest, RhsFileAndSolutionFile) {
  test::TempDir dir;
  // LFAT5 is 14 x 14: b = 14 ones; the written x, multiplied back, gives b.
  {
    std::ofstream rhs(dir.path() / "b.txt");
    rhs << "% fourteen ones\n";
    for (int i = 0; i < 14; ++i) rhs << "1\n";
  }
  const auto out = dir.path() / "x.mtx";
  const test::Outcome o =
      run_acclab({"iccg", data_file("matrices/LFAT5.mtx"), "--rhs", (dir.path() / "b.txt").string(),
                  "--tol", "1e-12", "--shift", "1", "--out", out.string()});
  ASSERT_EQ(o.status, 0) << o;
  std::ifstream in(out);
  std::string banner, comment;
  std::getline(in, banner);
  std::getline(in, comment);
  EXPECT_EQ(banner, "%%MatrixMarket matrix array real general");
  int rows = 0, cols = 0;
  in >> rows >> cols;
  ASSERT_EQ(rows, 14);
  std::vector<double> x(14);
  for (double& v : x) in >> v;
  const auto m = io::expand_symmetric(io::read_matrix_market(data_file("matrices/LFAT5.mtx")));
  std::vector<double> ax(14, 0.0);
  for (const auto& e : m) ax[e.row] += e.value * x[e.col];
  for (int i = 0; i < 14; ++i) EXPECT_NEAR(ax[i], 1.0, 1e-8) << i;
}

// A file of `count` lines holding `value`.
std::filesystem::path write_values(const test::TempDir& dir, const std::string& name, int count,
                                   const std::string& value) {
  const auto path = dir.path() / name;
  std::ofstream out(path);
  for (int i = 0; i < count; ++i) out << value << "\n";
  return path;
}

TEST(IccgCommandTest, ZeroRightHandSideGivesZeroAtOnce) {
  test::TempDir dir;
  const auto out = dir.path() / "x.mtx";
  const test::Outcome o =
      run_acclab({"iccg", data_file("matrices/494_bus.mtx"), "--rhs",
                  write_values(dir, "zeros.txt", 494, "0").string(), "--out", out.string()});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("converged after 0 iterations"), std::string::npos) << o.out;
  EXPECT_EQ(o.err, "");
  std::ifstream in(out);
  std::string line;
  int zeros = 0;
  while (std::getline(in, line)) zeros += line == "0";
  EXPECT_EQ(zeros, 494);
}

TEST(IccgCommandTest, ConvergedOnlyWhenTheRecomputedResidualMeetsTol) {
  for (const char* tol : {"1e-10", "1e-12", "1e-14"}) {
    const test::Outcome o = run_acclab({"iccg", data_file("matrices/494_bus.mtx"), "--tol", tol});
    ASSERT_EQ(o.status, 0) << o;
    EXPECT_LT(reported_residual(o.out), std::strtod(tol, nullptr)) << o.out;
  }
}

// Exit 1: one line on stderr naming what failed, and an --out file left as it was.
::testing::AssertionResult is_failed_solve(const test::Outcome& o, const std::string& fragment) {
  if (o.status != 1) return ::testing::AssertionFailure() << "status is not 1\n" << o;
  if (std::count(o.err.begin(), o.err.end(), '\n') != 1 || o.err.back() != '\n') {
    return ::testing::AssertionFailure() << "stderr is not one line\n" << o;
  }
  if (o.err.find(fragment) == std::string::npos) {
    return ::testing::AssertionFailure() << "stderr does not say '" << fragment << "'\n" << o;
  }
  return ::testing::AssertionSuccess();
}

TEST(IccgCommandTest, FailedSolvesExitOneWithOneLineAndLeaveOutAlone) {
  test::TempDir dir;
  const auto out = dir.path() / "x.mtx";
  std::ofstream(out) << "the previous solution\n";
  const std::string bus = data_file("matrices/494_bus.mtx");
  // Below what double precision reaches on 494_bus (it stalls near 4e-15): stagnation, no NaN.
  const test::Outcome tight = run_acclab({"iccg", bus, "--tol", "1e-15", "--out", out.string()});
  EXPECT_TRUE(is_failed_solve(tight, "stagnated")) << tight;
  EXPECT_TRUE(is_failed_solve(tight, "--tol 1e-15"));
  EXPECT_EQ(tight.out.find("nan"), std::string::npos) << tight.out;
  const test::Outcome capped = run_acclab({"iccg", bus, "--maxiter", "5", "--out", out.string()});
  EXPECT_TRUE(is_failed_solve(capped, "not converged after 5 iterations (--maxiter 5)"));
  std::ifstream in(out);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(content, "the previous solution\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.mtx"});
}

// tridiag(1, 1, 1) of order 5: eigenvalue 1 + 2 cos(5 pi / 6) < 0.
std::filesystem::path write_indefinite(const test::TempDir& dir) {
  const auto path = dir.path() / "tridiag.mtx";
  std::ofstream out(path);
  out << "%%MatrixMarket matrix coordinate real symmetric\n5 5 9\n";
  for (int i = 1; i <= 5; ++i) out << i << " " << i << " 1\n";
  for (int i = 2; i <= 5; ++i) out << i << " " << i - 1 << " 1\n";
  return path;
}

TEST(IccgCommandTest, NotPositiveDefiniteIsAUsageErrorEvenWithAShift) {
  test::TempDir dir;
  const std::string path = write_indefinite(dir).string();
  EXPECT_TRUE(is_usage_error(run_acclab({"iccg", path}), {path, "not positive definite"}));
  EXPECT_TRUE(
      is_usage_error(run_acclab({"iccg", path, "--shift", "2"}), {path, "not positive definite"}));
}

// With --shift 2 IC(0) factors tridiag(1, 1, 1), so only CG's p . A p <= 0 can tell: the GPU
// steps find it on the device and stop as original does, with original's line and exit status.
TEST(IccgCommandTest, NotPositiveDefiniteIsTheSameUsageErrorWhateverTheVariant) {
  test::TempDir dir;
  const std::string path = write_indefinite(dir).string();
  const test::Outcome original =
      run_acclab({"iccg", path, "--shift", "2", "--variant", "original"});
  ASSERT_TRUE(is_usage_error(original, {path, "p . A p <= 0 after", "not positive definite"}));
  std::vector<std::string> variants = {"optimized"};
  if (Machine().cuda_available()) variants.insert(variants.end(), {"cuda", "cusparse"});
  for (const std::string& variant : variants) {
    SCOPED_TRACE(variant);
    for (const char* format : {"table", "json"}) {
      const test::Outcome o =
          run_acclab({"iccg", path, "--shift", "2", "--variant", variant, "--format", format});
      EXPECT_TRUE(is_usage_error(o, {path}));
      EXPECT_EQ(o.err, original.err);
    }
  }
}

TEST(IccgCommandTest, ShiftedFactorisationOnlyOnRequestAndReported) {
  test::TempDir dir;
  const std::string lfat5 = data_file("matrices/LFAT5.mtx");
  // Positive definite, but IC(0) breaks down on it: the error says so and offers --shift.
  EXPECT_TRUE(is_usage_error(run_acclab({"iccg", lfat5}), {lfat5, "positive definite", "--shift"}));
  const auto out = dir.path() / "x.mtx";
  const test::Outcome o = run_acclab({"iccg", lfat5, "--shift", "1", "--out", out.string()});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("shifted IC(0): the diagonal times 2 (--shift 1)"), std::string::npos)
      << o.out;
  std::ifstream in(out);
  std::string banner, comment;
  std::getline(in, banner);
  std::getline(in, comment);
  EXPECT_NE(comment.find("--shift 1"), std::string::npos) << comment;
  // The course's mesh matrix needs none: no shift reported.
  const test::Outcome bus = run_acclab({"iccg", data_file("matrices/494_bus.mtx")});
  ASSERT_EQ(bus.status, 0) << bus;
  EXPECT_EQ(bus.out.find("shift"), std::string::npos) << bus.out;
}

TEST(IccgCommandTest, HeaderDeclaringMoreThanTheFileHoldsStopsBeforeAllocating) {
  test::TempDir dir;
  const auto rows = dir.path() / "rows.mtx";
  std::ofstream(rows) << "%%MatrixMarket matrix coordinate real symmetric\n"
                      << "100000000000 100000000000 0\n";
  const test::Outcome o = run_acclab({"iccg", rows.string()});
  EXPECT_TRUE(is_usage_error(o, {rows.string() + ":2:", "100000000000 rows"}));
  EXPECT_LT(o.max_rss_kib, test::kRefusalPeakKib) << "peak memory";
  const auto entries = dir.path() / "entries.mtx";
  std::ofstream(entries) << "%%MatrixMarket matrix coordinate real symmetric\n"
                         << "3000000 3000000 2000000000\n1 1 1\n";
  const test::Outcome e = run_acclab({"iccg", entries.string()});
  EXPECT_TRUE(is_usage_error(e, {entries.string() + ":2:", "2000000000 entries", "bytes left"}));
  EXPECT_LT(e.max_rss_kib, test::kRefusalPeakKib) << "peak memory";
}

TEST(IccgCommandTest, EndlessLinesStopAtTheLineLimit) {
  const std::string lfat5 = data_file("matrices/LFAT5.mtx");
  EXPECT_TRUE(
      is_usage_error(run_acclab({"iccg", "/dev/zero"}), {"/dev/zero:1:", "line longer than"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"iccg", lfat5, "--rhs", "/dev/zero"}),
                             {"--rhs /dev/zero:1:", "line longer than"}));
}

// `acclab iccg ARGS` beside short.txt, a right-hand side of 3 values.
test::BadInput command(std::string name, std::vector<std::string> args, std::string names) {
  args.insert(args.begin(), "iccg");
  return {std::move(name), std::move(args), {std::move(names)}, {{"short.txt", "1 2 3\n"}}};
}

INSTANTIATE_TEST_SUITE_P(
    IccgCommand, BadInputTest,
    ::testing::Values(
        command("NotSymmetric", {"@data/graphs/test_FW_1000.mtx"}, "not symmetric"),
        command("NotPositiveDefinite", {"@data/graphs/polbooks.mtx"}, "not positive"),
        command("MissingFile", {"@missing.mtx"}, "missing.mtx"),
        command("Colors1", {"@data/matrices/LFAT5.mtx", "--colors", "1"}, "--colors"),
        command("Tol2", {"@data/matrices/LFAT5.mtx", "--tol", "2"}, "--tol"),
        // Below double precision's epsilon: refused, never iterated on until NaN.
        command("TolFarBelowEpsilon", {"@data/matrices/LFAT5.mtx", "--tol", "1e-300"},
                "--tol 1e-300"),
        command("TolJustBelowEpsilon", {"@data/matrices/494_bus.mtx", "--tol", "1e-17"},
                "--tol 1e-17"),
        command("ShiftNegative", {"@data/matrices/LFAT5.mtx", "--shift", "-1"}, "--shift"),
        command("Maxiter0", {"@data/matrices/LFAT5.mtx", "--maxiter", "0"}, "--maxiter"),
        command("Maxiter2e9", {"@data/matrices/LFAT5.mtx", "--maxiter", "2000000000"}, "--maxiter"),
        command("RhsOfThreeValues", {"@data/matrices/LFAT5.mtx", "--rhs", "@short.txt"},
                "3 values"),
        command("OutIsADirectory", {"@data/matrices/LFAT5.mtx", "--out", "@"}, "--out")),
    test::bad_input_name);

// ---- the matrix solve behind acclab iccg (workloads/iccg/matrix_solve.hpp) ----------------------

// tridiag(-1, 4, -1) of order 3 as a file would store it: entries (row, col, value), 1-based.
io::MatrixMarket stored_matrix(io::MatrixSymmetry symmetry,
                               std::vector<std::tuple<int, int, double>> entries) {
  io::MatrixMarket m;
  m.rows = m.cols = 3;
  m.symmetry = symmetry;
  m.size_line = 2;
  for (const auto& [row, col, value] : entries) m.entries.push_back({row - 1, col - 1, value});
  return m;
}

TEST(IccgMatrixSolveTest, CsrOfEitherStorageHoldsBothTriangles) {
  const Csr lower = iccg::csr_of(
      "m.mtx", stored_matrix(io::MatrixSymmetry::symmetric,
                             {{1, 1, 4}, {2, 1, -1}, {2, 2, 4}, {3, 2, -1}, {3, 3, 4}}));
  const Csr general = iccg::csr_of(
      "m.mtx",
      stored_matrix(
          io::MatrixSymmetry::general,
          {{3, 3, 4}, {1, 2, -1}, {2, 1, -1}, {2, 3, -1}, {3, 2, -1}, {1, 1, 4}, {2, 2, 4}}));
  for (const Csr* a : {&lower, &general}) {
    EXPECT_EQ(a->n, 3);
    EXPECT_EQ(a->diagonal, (std::vector<double>{4, 4, 4}));
    EXPECT_EQ(a->start, (std::vector<std::int64_t>{0, 1, 3, 4}));
    EXPECT_EQ(a->column, (std::vector<std::int64_t>{1, 0, 2, 1}));
    EXPECT_EQ(a->value, (std::vector<double>{-1, -1, -1, -1}));
  }
  EXPECT_EQ(iccg::row_sums(lower), (std::vector<double>{3, 2, 3}));
}

TEST(IccgMatrixSolveTest, CsrOfRefusesWhatIccgCannotTakeNamingIt) {
  using io::MatrixSymmetry;
  const std::vector<std::tuple<int, int, double>> diagonal = {{1, 1, 4}, {2, 2, 4}, {3, 3, 4}};
  auto with = [&](std::vector<std::tuple<int, int, double>> more) {
    more.insert(more.end(), diagonal.begin(), diagonal.end());
    return more;
  };
  auto error = [](const io::MatrixMarket& m) {
    return test::usage_error_message([&] { iccg::csr_of("m.mtx", m); });
  };
  io::MatrixMarket wide = stored_matrix(MatrixSymmetry::general, diagonal);
  wide.cols = 4;
  EXPECT_EQ(error(wide), "m.mtx:2: 3 x 4: not square");
  EXPECT_NE(error(stored_matrix(MatrixSymmetry::general, with({{1, 2, -1}, {2, 1, -2}})))
                .find("m.mtx: not symmetric: entry (1, 2) = -1 has no equal (2, 1)"),
            std::string::npos);
  EXPECT_NE(error(stored_matrix(MatrixSymmetry::general, with({{3, 1, -1}}))).find("not symmetric"),
            std::string::npos);
  EXPECT_EQ(error(stored_matrix(MatrixSymmetry::symmetric, with({{2, 1, -1}, {2, 1, -1}}))),
            "m.mtx: entry (1, 2) given twice");
  EXPECT_NE(error(stored_matrix(MatrixSymmetry::general, {{1, 1, 4}, {2, 2, 4}}))
                .find("m.mtx:2: 3 rows but 2 diagonal entries"),
            std::string::npos);
  EXPECT_NE(error(stored_matrix(MatrixSymmetry::general, {{1, 1, 4}, {2, 2, 0}, {3, 3, 4}}))
                .find("diagonal entry (2, 2) = 0 is not positive"),
            std::string::npos);
  EXPECT_EQ(error(stored_matrix(MatrixSymmetry::symmetric, with({{2, 1, -1}}))), "");
}

TEST(IccgMatrixSolveTest, TextVectorsReadBothLayoutsAndCountTheirValues) {
  test::TempDir dir;
  const auto plain = dir.path() / "b.txt", array = dir.path() / "b.mtx";
  std::ofstream(plain) << "# b\n1 -2.5\n\n% more\n+3e-1\n";
  std::ofstream(array) << "%%MatrixMarket matrix array real general\n% b\n3 1\n1\n-2.5\n0.3\n";
  for (const auto& path : {plain, array}) {
    EXPECT_EQ(io::read_text_vector(path, 3), (std::vector<double>{1, -2.5, 0.3})) << path;
  }
  const std::string file = plain.string();
  EXPECT_EQ(test::usage_error_message([&] { io::read_text_vector(plain, 2); }),
            file + ":5: more than the 2 values of a matrix of 2 rows");
  EXPECT_EQ(test::usage_error_message([&] { io::read_text_vector(plain, 4); }),
            file + ": 3 values for a matrix of 4 rows");
  std::ofstream(plain) << "1\nnan\n2\n";
  EXPECT_EQ(test::usage_error_message([&] { io::read_text_vector(plain, 3); }),
            file + ":2: 'nan' is not a finite number");
}

TEST(IccgMatrixSolveTest, WrittenVectorsReadBackBitwise) {
  test::TempDir dir;
  const auto path = dir.path() / "x.mtx";
  const std::vector<double> x = {0.1, 1.0 / 3, -1e-300, 12345678.9, 0};
  io::write_matrix_market_vector(path, "--out", x, "the solution");
  EXPECT_EQ(io::read_text_vector(path, 5), x);
  EXPECT_EQ(test::read_file(path).substr(0, 56),
            "%%MatrixMarket matrix array real general\n% the solution\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"x.mtx"});
}

TEST(IccgMatrixSolveTest, SolvesToTheRecomputedResidualAndStopsShortWhenCapped) {
  const iccg::MatrixSystem system = iccg::read_matrix_system(data_file("matrices/494_bus.mtx"), "");
  ASSERT_TRUE(system.b_is_row_sums);
  EXPECT_EQ(system.b, iccg::row_sums(system.a));
  const iccg::MatrixSolveOptions options{.colors = 5, .tol = 1e-8};
  const iccg::MatrixSolution s = iccg::solve_matrix(system, options);
  ASSERT_TRUE(s.converged);
  EXPECT_TRUE(s.finite);
  EXPECT_EQ(s.rows, 494);
  EXPECT_EQ(
      s.nonzeros,
      std::int64_t(
          io::expand_symmetric(io::read_matrix_market(data_file("matrices/494_bus.mtx"))).size()));
  EXPECT_GE(s.colors, 5);
  EXPECT_LT(s.residual, options.tol);
  EXPECT_EQ(s.residual, iccg::true_relative_residual(system.a, system.b, s.x));
  ASSERT_TRUE(s.error_from_ones);
  double error = 0;
  for (double xi : s.x) error = std::max(error, std::abs(xi - 1));
  EXPECT_EQ(*s.error_from_ones, error);
  EXPECT_LT(error, 1e-5);
  // One iteration fewer does not reach the tolerance.
  iccg::MatrixSolveOptions capped = options;
  capped.max_iterations = s.iterations - 1;
  const iccg::MatrixSolution short_one = iccg::solve_matrix(system, capped);
  EXPECT_FALSE(short_one.converged);
  EXPECT_GE(short_one.residual, options.tol);
}

TEST(IccgMatrixSolveTest, BreakdownNamesTheRowAndTheShiftFactorsIt) {
  const iccg::MatrixSystem system = iccg::read_matrix_system(data_file("matrices/LFAT5.mtx"), "");
  const std::string error = test::usage_error_message([&] { iccg::solve_matrix(system, {}); });
  EXPECT_NE(error.find("LFAT5.mtx: IC(0) breaks down at row "), std::string::npos) << error;
  EXPECT_NE(error.find("Cholesky factor exists"), std::string::npos) << error;
  const iccg::MatrixSolution shifted = iccg::solve_matrix(system, {.tol = 1e-10, .shift = 1});
  EXPECT_TRUE(shifted.converged);
  EXPECT_LT(shifted.residual, 1e-10);
}

TEST(IccgMatrixSolveTest, OptionsOutOfRangeAreRefusedNamingThem) {
  EXPECT_EQ(test::usage_error_message([] { iccg::check_options({}); }), "");
  EXPECT_NE(test::usage_error_message([] { iccg::check_options({.colors = 1}); }).find("--colors 1"),
            std::string::npos);
  EXPECT_NE(test::usage_error_message([] { iccg::check_options({.tol = 1}); }).find("--tol 1"),
            std::string::npos);
  EXPECT_NE(test::usage_error_message([] { iccg::check_options({.tol = 1e-17}); }).find("below double"),
            std::string::npos);
  EXPECT_NE(test::usage_error_message([] { iccg::check_options({.max_iterations = 0}); }).find("--maxiter"),
            std::string::npos);
  EXPECT_NE(test::usage_error_message([] { iccg::check_options({.shift = -1}); }).find("--shift -1"),
            std::string::npos);
}

TEST(IccgMatrixSolveTest, RightHandSideErrorsNameTheOption) {
  test::TempDir dir;
  const std::string missing = (dir.path() / "b.txt").string();
  const std::string error =
      test::usage_error_message([&] { iccg::read_matrix_system(data_file("matrices/LFAT5.mtx"), missing); });
  EXPECT_TRUE(error.starts_with("--rhs " + missing + ": cannot open")) << error;
}

}  // namespace
}  // namespace acclab
