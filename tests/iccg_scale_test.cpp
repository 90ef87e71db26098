// acclab iccg FILE on systems scaled by s = 1e-200 .. 1e200: A s x = b s and A x = b s are the
// same problem as A x = b, so a solver whose tests are relative and whose norms neither
// underflow nor overflow takes the same iterations at every s and returns x (times s for b s) to
// the tolerance. What must never happen: "converged" with a wrong x (b's norm underflowing to 0
// made x = 0 "exact"), a positive definite matrix called indefinite (p . A p underflowing to 0),
// or NaN (squares overflowing). Each solve is checked here independently of the solver: the
// residual in long double, whose exponent range holds every product of these scales.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "support.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab {
namespace {

static_assert(std::numeric_limits<long double>::max_exponent10 > 700,
              "the independent residual needs a long double wider in range than double");

constexpr double scales[] = {1e-200, 1e-160, 1e-100, 1e-20, 1, 1e20, 1e100, 1e160, 1e200};

using test::data_file;

iccg::Csr scaled(iccg::Csr a, double s) {
  for (double& v : a.diagonal) v *= s;
  for (double& v : a.value) v *= s;
  return a;
}

// ||b - A x|| / ||b|| in long double (no product or square of these scales leaves its range).
long double residual_in_long_double(const iccg::Csr& a, const std::vector<double>& b,
                                    const std::vector<double>& x) {
  long double rr = 0, bb = 0;
  for (std::int64_t i = 0; i < a.n; ++i) {
    long double ax = (long double)a.diagonal[i] * x[i];
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
      ax += (long double)a.value[e] * x[a.column[e]];
    }
    const long double r = b[i] - ax;
    rr += r * r;
    bb += (long double)b[i] * b[i];
  }
  return std::sqrt(rr / bb);
}

// ||x / unit - y|| / ||y||, in long double for the same reason.
long double relative_distance(const std::vector<double>& x, double unit,
                              const std::vector<double>& y) {
  long double dd = 0, yy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double d = (long double)x[i] / unit - y[i];
    dd += d * d;
    yy += (long double)y[i] * y[i];
  }
  return std::sqrt(dd / yy);
}

struct ScaleCase {
  std::string file;
  double shift;  // bcsstk01 needs one for IC(0) (iccg_file_test)
};

class IccgScaleTest : public ::testing::TestWithParam<ScaleCase> {
 protected:
  // The variants that run on this host: original and, built with OpenACC, optimized (its host
  // fallback without a GPU).
  std::vector<const Variant*> host_variants() {
    std::vector<const Variant*> variants;
    for (const char* name : {"original", "optimized"}) {
      const auto& all = test::all().variants();
      const bool built = std::any_of(all.begin(), all.end(), [&](const Variant& v) {
        return v.id() == "iccg/" + std::string(name);
      });
      if (!built) continue;
      const Variant& v = test::variant_of("iccg", name);
      if (test::place_here(v) == Place::host) variants.push_back(&v);
    }
    return variants;
  }
};

// For each s, A s with b = (A s) 1 (x = 1) and A with b = (A 1) s (x = s): converged, the
// iterations of s = 1, the residual below tol in long double, and x / unit equal to s = 1's x
// far below what tol allows (the same iterates up to rounding of the scaled entries).
TEST_P(IccgScaleTest, ScaledSystemsSolveAsTheUnscaledOne) {
  const ScaleCase& c = GetParam();
  const iccg::MatrixSystem base = iccg::read_matrix_system(data_file(c.file), "");
  constexpr double tol = 1e-8;
  const std::vector<const Variant*> variants = host_variants();
  ASSERT_FALSE(variants.empty());
  for (const Variant* variant : variants) {
    const iccg::MatrixSolveOptions options{.tol = tol, .shift = c.shift, .variant = variant};
    const iccg::MatrixSolution unscaled = iccg::solve_matrix(base, options);
    ASSERT_TRUE(unscaled.converged) << variant->name;
    ASSERT_GT(unscaled.iterations, 1) << variant->name;
    for (const bool scale_matrix : {true, false}) {
      for (const double s : scales) {
        SCOPED_TRACE(fmt::format("{} {} {} s = {:g}", c.file, variant->name,
                                 scale_matrix ? "A s" : "b s", s));
        iccg::MatrixSystem system;
        system.name = c.file;
        system.a = scale_matrix ? scaled(base.a, s) : base.a;
        system.b = scale_matrix ? iccg::row_sums(system.a) : base.b;
        if (!scale_matrix) {
          for (double& v : system.b) v *= s;
        }
        system.b_is_row_sums = scale_matrix;
        const double unit = scale_matrix ? 1.0 : s;  // x = unit times the unscaled x
        iccg::MatrixSolution solution;
        const std::string refusal =
            test::usage_error_message([&] { solution = iccg::solve_matrix(system, options); });
        // Each case on its own: a failure is reported and the next scale tried.
        if (!refusal.empty()) {
          ADD_FAILURE() << "a positive definite system refused: " << refusal;
          continue;
        }
        EXPECT_EQ(solution.iterations, unscaled.iterations);
        if (!solution.converged) {
          ADD_FAILURE() << "not converged: residual " << solution.residual;
          continue;
        }
        ASSERT_EQ(solution.x.size(), base.b.size());
        const long double residual = residual_in_long_double(system.a, system.b, solution.x);
        EXPECT_LT(residual, tol) << "the solver reported " << solution.residual;
        // The solver's own figure is the same residual (relative, so scale-free).
        EXPECT_NEAR(double(residual), solution.residual, 1e-3 * tol);
        EXPECT_LT(relative_distance(solution.x, unit, unscaled.x), 1e-6L);
        if (scale_matrix) {
          ASSERT_TRUE(solution.error_from_ones.has_value());
          EXPECT_LT(*solution.error_from_ones, 1e-3);
        }
      }
    }
  }
}

// b = 0, at any scale of A: x = 0 exactly, after no iteration, converged.
TEST_P(IccgScaleTest, ZeroRightHandSideIsSolvedByZero) {
  const ScaleCase& c = GetParam();
  const iccg::MatrixSystem base = iccg::read_matrix_system(data_file(c.file), "");
  for (const Variant* variant : host_variants()) {
    for (const double s : {1e-200, 1.0, 1e200}) {
      SCOPED_TRACE(fmt::format("{} s = {:g}", variant->name, s));
      iccg::MatrixSystem system;
      system.name = c.file;
      system.a = scaled(base.a, s);
      system.b.assign(base.b.size(), 0.0);
      const iccg::MatrixSolution solution =
          iccg::solve_matrix(system, {.shift = c.shift, .variant = variant});
      EXPECT_TRUE(solution.converged);
      EXPECT_EQ(solution.iterations, 0);
      EXPECT_EQ(solution.residual, 0);
      ASSERT_EQ(solution.x.size(), base.b.size());
      EXPECT_TRUE(std::all_of(solution.x.begin(), solution.x.end(), [](double v) { return v == 0; }));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SuiteSparse, IccgScaleTest,
                         ::testing::Values(ScaleCase{"matrices/494_bus.mtx", 0},
                                           ScaleCase{"matrices/662_bus.mtx", 0},
                                           ScaleCase{"matrices/bcsstk01.mtx", 1}),
                         [](const auto& info) {
                           std::string name = info.param.file.substr(info.param.file.find('/') + 1);
                           return name.substr(0, name.find('.'));
                         });

// [[1 2] [2 1]] (eigenvalues 3 and -1) at every scale: refused as not positive definite (a
// UsageError, exit 2), never converged. Scaled by 1e-200 its squares underflow, so an absolute
// test saw no breakdown and b's norm as 0.
TEST(IccgScaleRefusalTest, IndefiniteMatrixIsRefusedAtEveryScale) {
  iccg::Csr a;
  a.n = 2;
  a.diagonal = {1, 1};
  a.start = {0, 1, 2};
  a.column = {1, 0};
  a.value = {2, 2};
  for (const char* name : {"original", "optimized"}) {
    const auto& all = test::all().variants();
    if (std::none_of(all.begin(), all.end(),
                     [&](const Variant& v) { return v.id() == "iccg/" + std::string(name); })) {
      continue;
    }
    const Variant& variant = test::variant_of("iccg", name);
    if (test::place_here(variant) != Place::host) continue;
    for (const double s : scales) {
      SCOPED_TRACE(fmt::format("{} s = {:g}", name, s));
      iccg::MatrixSystem system;
      system.name = "indefinite";
      system.a = scaled(a, s);
      system.b = iccg::row_sums(system.a);
      system.b_is_row_sums = true;
      bool converged = false;
      const std::string error = test::usage_error_message(
          [&] { converged = iccg::solve_matrix(system, {.variant = &variant}).converged; });
      EXPECT_FALSE(converged);
      EXPECT_NE(error.find("not positive definite"), std::string::npos) << error;
    }
  }
}

// What the user sees: acclab iccg on 494_bus scaled by 1e-170 and 1e160 (the cases), as
// files, prints "converged" only with x = 1 (max |x - 1| small) or x = s (written by --out,
// compared here), and an indefinite matrix is one line on stderr, exit 2.
TEST(IccgScaleCliTest, ScaledFilesConvergeOrAreRefused) {
  const iccg::MatrixSystem base =
      iccg::read_matrix_system(data_file("matrices/494_bus.mtx"), "");
  test::TempDir dir;
  const auto write_matrix = [&](const iccg::Csr& a, const std::string& name) {
    const std::string path = (dir.path() / name).string();
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::int64_t lower = 0;
    for (std::int64_t i = 0; i < a.n; ++i) {
      for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) lower += a.column[e] < i;
    }
    std::fprintf(f, "%%%%MatrixMarket matrix coordinate real symmetric\n%lld %lld %lld\n",
                 (long long)a.n, (long long)a.n, (long long)(a.n + lower));
    for (std::int64_t i = 0; i < a.n; ++i) {
      std::fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)i + 1, a.diagonal[i]);
      for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
        if (a.column[e] < i) {
          std::fprintf(f, "%lld %lld %.17g\n", (long long)i + 1, (long long)a.column[e] + 1,
                       a.value[e]);
        }
      }
    }
    std::fclose(f);
    return path;
  };
  const auto write_vector = [&](const std::vector<double>& v, const std::string& name) {
    const std::string path = (dir.path() / name).string();
    std::FILE* f = std::fopen(path.c_str(), "w");
    for (double x : v) std::fprintf(f, "%.17g\n", x);
    std::fclose(f);
    return path;
  };
  for (const double s : {1e-170, 1e160}) {
    SCOPED_TRACE(fmt::format("s = {:g}", s));
    const test::Outcome a_scaled = test::run_acclab(
        {"iccg", write_matrix(scaled(base.a, s), "a.mtx"), "--variant", "original"});
    EXPECT_EQ(a_scaled.status, 0) << a_scaled;
    EXPECT_NE(a_scaled.out.find("\nconverged after"), std::string::npos) << a_scaled;
    const auto at = a_scaled.out.find("max |x - 1| = ");
    ASSERT_NE(at, std::string::npos) << a_scaled;
    EXPECT_LT(std::stod(a_scaled.out.substr(at + 14)), 1e-3) << a_scaled;

    std::vector<double> b = base.b;
    for (double& v : b) v *= s;
    const std::string out = (dir.path() / "x.mtx").string();
    const test::Outcome b_scaled =
        test::run_acclab({"iccg", data_file("matrices/494_bus.mtx"), "--rhs",
                          write_vector(b, "b.txt"), "--variant", "original", "--out", out});
    EXPECT_EQ(b_scaled.status, 0) << b_scaled;
    EXPECT_NE(b_scaled.out.find("\nconverged after"), std::string::npos) << b_scaled;
    const std::string x_text = test::read_file(out);
    std::vector<double> x;
    for (std::size_t line = x_text.find('\n'); line != std::string::npos;
         line = x_text.find('\n', line + 1)) {
      if (line + 1 < x_text.size() && x_text[line + 1] != '%' &&
          (std::isdigit(static_cast<unsigned char>(x_text[line + 1])) ||
           x_text[line + 1] == '-')) {
        x.push_back(std::stod(x_text.substr(line + 1)));
      }
    }
    // The size line ("494 1") comes first.
    ASSERT_EQ(x.size(), base.b.size() + 1) << x_text.substr(0, 400);
    x.erase(x.begin());
    double error = 0;
    for (double v : x) error = std::max(error, std::abs(v / s - 1));
    EXPECT_LT(error, 1e-3);
  }
  iccg::Csr indefinite;
  indefinite.n = 2;
  indefinite.diagonal = {1e-170, 1e-170};
  indefinite.start = {0, 1, 2};
  indefinite.column = {1, 0};
  indefinite.value = {2e-170, 2e-170};
  const test::Outcome refused =
      test::run_acclab({"iccg", write_matrix(indefinite, "indefinite.mtx"), "--variant",
                        "original"});
  EXPECT_TRUE(test::is_usage_error(refused, {"not positive definite"})) << refused;
}

}  // namespace
}  // namespace acclab
