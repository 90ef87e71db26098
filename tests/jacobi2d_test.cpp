// jacobi2d: the seed's Jacobi sweeps for laplacian(u) = 4 with u = x^2 + y^2 on the boundary.
//   - the problem's own pieces (coefficients, initial grid, serial reference, spectral radius,
//     convergence bound, verify()) checked against values computed here, without the harness;
//   - every registered variant through the real harness (Runner): iters mode against the serial
//     reference on the small preset and odd sizes, tol mode converging within the stated bound,
//     failures for too few sweeps, a grid one sweep short failing the bound, the transfer share,
//     async;
//   - the real binary: reports, ladder speedups, and bad input (status 2, one line).
#include "workloads/jacobi2d/jacobi2d.hpp"
#ifdef ACCLAB_HAVE_MPI
#include "workloads/jacobi2d/mpi_blocks.hpp"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"

namespace acclab {
namespace {

using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

constexpr double float_eps = std::numeric_limits<float>::epsilon();

const Workload& jacobi_workload() { return test::all().workload("jacobi2d"); }

const Variant& jacobi_variant(const std::string& name) {
  return test::variant_of("jacobi2d", name);
}

std::vector<std::string> jacobi_variant_names() { return test::variant_names("jacobi2d"); }

Params jacobi_params(const std::vector<std::string>& overrides,
                     const std::string& preset = "small") {
  return test::params_of("jacobi2d", overrides, preset);
}

std::string validate_error(const std::vector<std::string>& overrides,
                           const std::string& preset = "small") {
  return test::validate_error("jacobi2d", overrides, preset);
}

// max |u| over the grid: u = x^2 + y^2 is largest at the corner (height, width).
double umax_of(const Params& params) {
  return params.real("height") * params.real("height") +
         params.real("width") * params.real("width");
}

// The documented serial sweep, written here from the formula rather than taken from the
// workload: u_new = (c1f + wy2*(up + down) + hx2*(left + right)) * c2 on interior points,
// boundaries untouched. Same float operations in the same order as the seed.
std::vector<float> serial_by_hand(const jacobi2d::Problem& p, std::int64_t sweeps) {
  std::vector<float> u = jacobi2d::initial_grid(p), next = u;
  const std::int64_t R = p.rows, C = p.cols;
  for (std::int64_t s = 0; s < sweeps; ++s) {
    for (std::int64_t i = 1; i < R - 1; ++i) {
      for (std::int64_t j = 1; j < C - 1; ++j) {
        const float up = u[(i - 1) * C + j], down = u[(i + 1) * C + j];
        const float left = u[i * C + j - 1], right = u[i * C + j + 1];
        next[i * C + j] = (p.c1f + p.wy2 * (up + down) + p.hx2 * (left + right)) * p.c2;
      }
    }
    std::swap(u, next);
  }
  return u;
}

// The result grid of any jacobi2d instance (result_ is protected: a pointer to member named
// through a derived class reaches it). Never constructed.
struct ResultOf : jacobi2d::JacobiInstance {
  static const float* of(const Instance& instance) {
#ifdef ACCLAB_HAVE_MPI
    if (const auto* m = dynamic_cast<const jacobi2d::MpiJacobiInstance*>(&instance)) {
      return m->gathered();
    }
#endif
    const auto& j = dynamic_cast<const jacobi2d::JacobiInstance&>(instance);
    return j.*(&ResultOf::result_);
  }
};

// ---- the problem's pieces, without the harness ---------------------------------------------

TEST(JacobiProblemTest, CoefficientsFollowTheSeed) {
  // rows - 1 = 4 intervals over height 0.5, cols - 1 = 3 over width 3.
  const auto p =
      jacobi2d::problem_of(jacobi_params({"rows=5", "cols=4", "height=0.5", "width=3", "iters=7"}));
  EXPECT_EQ(p.rows, 5);
  EXPECT_EQ(p.cols, 4);
  EXPECT_EQ(p.iters, 7);
  EXPECT_EQ(p.points(), 20);
  EXPECT_EQ(p.interior(), 6);
  EXPECT_FALSE(p.tol_mode);
  EXPECT_FLOAT_EQ(p.hx, 0.125f);
  EXPECT_FLOAT_EQ(p.wy, 1.0f);
  EXPECT_FLOAT_EQ(p.hx2, 0.125f * 0.125f);
  EXPECT_FLOAT_EQ(p.wy2, 1.0f);
  EXPECT_FLOAT_EQ(p.c1f, -4.0f * 0.125f * 0.125f);  // f = -4
  EXPECT_FLOAT_EQ(p.c2, static_cast<float>(1.0 / (2.0 * (0.125 * 0.125 + 1.0))));
  // tol mode only when tol is set; check_every and async come through.
  const auto t = jacobi2d::problem_of(
      jacobi_params({"rows=17", "cols=9", "tol=1e-6", "check_every=4", "async=0"}));
  EXPECT_TRUE(t.tol_mode);
  EXPECT_DOUBLE_EQ(t.tol, 1e-6);
  EXPECT_EQ(t.check_every, 4);
  EXPECT_FALSE(t.async);
  EXPECT_FALSE(t.check_after(3));
  EXPECT_TRUE(t.check_after(4));
  EXPECT_TRUE(jacobi2d::problem_of(jacobi_params({})).async);
}

TEST(JacobiProblemTest, InitialGridIsTheExactSolutionOnTheBoundaryAndZeroInside) {
  const auto p = jacobi2d::problem_of(jacobi_params({"rows=7", "cols=5", "height=0.5", "width=3"}));
  const auto u = jacobi2d::initial_grid(p);
  ASSERT_EQ(u.size(), 35u);
  const double umax = 0.5 * 0.5 + 3.0 * 3.0;
  for (std::int64_t i = 0; i < p.rows; ++i) {
    for (std::int64_t j = 0; j < p.cols; ++j) {
      SCOPED_TRACE(testing::Message() << "(" << i << ", " << j << ")");
      const bool boundary = i == 0 || j == 0 || i == p.rows - 1 || j == p.cols - 1;
      const double x = 0.5 * double(i) / 6.0, y = 3.0 * double(j) / 4.0;
      if (boundary) {
        EXPECT_NEAR(u[i * p.cols + j], x * x + y * y, 4 * float_eps * umax);
      } else {
        EXPECT_EQ(u[i * p.cols + j], 0.0f);
      }
    }
  }
  EXPECT_NEAR(u.back(), umax, 4 * float_eps * umax);  // the corner (height, width)
}

// The test that does not trust verify(): the serial result computed here from the documented
// formula, compared bit for bit with the reference every variant is verified against.
TEST(JacobiProblemTest, SerialReferenceIsTheDocumentedFormula) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"rows=7", "cols=5", "height=0.5", "width=3"},
        std::vector<std::string>{"rows=4", "cols=9"},
        std::vector<std::string>{"rows=3", "cols=3"}}) {
    const auto p = jacobi2d::problem_of(jacobi_params(overrides));
    for (std::int64_t sweeps : {0, 1, 2, 7}) {
      SCOPED_TRACE(testing::Message() << p.rows << "x" << p.cols << ", " << sweeps << " sweeps");
      const auto expected = serial_by_hand(p, sweeps);
      const auto& reference = jacobi2d::reference_after(p, sweeps);
      ASSERT_EQ(reference.size(), expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        ASSERT_EQ(reference[k], expected[k]) << "at (" << k / p.cols << ", " << k % p.cols << ")";
      }
    }
  }
  // One point by hand, so that the formula above is not just copied: after one sweep from the
  // zero interior, (1, 1) sees only its boundary neighbours (0, 1) and (1, 0).
  const auto p = jacobi2d::problem_of(jacobi_params({"rows=7", "cols=5", "height=0.5", "width=3"}));
  const auto u0 = jacobi2d::initial_grid(p);
  const float expected = (p.c1f + p.wy2 * u0[1] + p.hx2 * u0[p.cols]) * p.c2;
  EXPECT_EQ(jacobi2d::reference_after(p, 1)[p.cols + 1], expected);
  EXPECT_NE(expected, 0.0f);
  // A 3x3 grid has one unknown, and the 5-point stencil is exact for x^2 + y^2: one sweep
  // solves it (x = 0.5, y = 1 at the centre of the default 1 x 2 domain: u = 1.25).
  const auto q = jacobi2d::problem_of(jacobi_params({"rows=3", "cols=3"}));
  EXPECT_NEAR(jacobi2d::reference_after(q, 1)[4], 1.25, 8 * float_eps * 5.0);
}

// jacobi2d::exact_iterate, the closed form the serial variant is checked against at run time,
// checked against the sweep's definition: the initial grid at 0 sweeps, one sweep in double
// taking its grid at s sweeps to its grid at s + 1, and x^2 + y^2 in the limit.
TEST(JacobiProblemTest, ExactIterateIsTheSweepInExactArithmetic) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"rows=17", "cols=9"},
        std::vector<std::string>{"rows=6", "cols=11", "height=0.5", "width=3"}}) {
    const auto p = jacobi2d::problem_of(jacobi_params(overrides));
    SCOPED_TRACE(testing::Message() << p.rows << "x" << p.cols);
    const double umax = umax_of(jacobi_params(overrides));
    const auto initial = jacobi2d::initial_grid(p);
    const auto at_zero = jacobi2d::exact_iterate(p, 0);
    for (std::int64_t k = 0; k < p.points(); ++k) {
      ASSERT_NEAR(at_zero[k], initial[k], 2 * float_eps * umax) << k;
    }
    const double hx2 = double(p.hx) * p.hx, wy2 = double(p.wy) * p.wy;
    const double c2 = 1 / (2 * (hx2 + wy2));
    const auto before = jacobi2d::exact_iterate(p, 5), after = jacobi2d::exact_iterate(p, 6);
    const std::int64_t C = p.cols;
    for (std::int64_t i = 1; i < p.rows - 1; ++i) {
      for (std::int64_t j = 1; j < C - 1; ++j) {
        const std::int64_t k = i * C + j;
        const double swept = c2 * (-4 * hx2 * wy2 + wy2 * (before[k - C] + before[k + C]) +
                                   hx2 * (before[k - 1] + before[k + 1]));
        ASSERT_NEAR(after[k], swept, 1e-12 * umax) << "at (" << i << ", " << j << ")";
      }
    }
    const auto limit = jacobi2d::exact_iterate(p, 1000000);
    for (std::int64_t i = 0; i < p.rows; ++i) {
      for (std::int64_t j = 0; j < C; ++j) {
        const double x = i * double(p.hx), y = j * double(p.wy);
        ASSERT_NEAR(limit[i * C + j], x * x + y * y, 1e-12 * umax);
      }
    }
  }
  // One unknown: one sweep solves it (x = 0.5, y = 1 at the centre: u = 1.25).
  const auto q = jacobi2d::problem_of(jacobi_params({"rows=3", "cols=3"}));
  EXPECT_NEAR(jacobi2d::exact_iterate(q, 1)[4], 1.25, 1e-12);
  EXPECT_TRUE(jacobi2d::exact_iterate_affordable(jacobi2d::problem_of(jacobi_params({}))));
  EXPECT_FALSE(jacobi2d::exact_iterate_affordable(jacobi2d::problem_of(jacobi_params({}, "seed"))));
}

// jacobi_spectral_radius, checked against its definition: the sweep's error operator
// J e = c2 (wy2 (e_up + e_down) + hx2 (e_left + e_right)) (zero boundary, no source) has the
// eigenvector sin(pi i/(rows-1)) sin(pi j/(cols-1)) with the largest eigenvalue. On a grid with
// rows != cols and hx != wy this also catches wy2 and hx2 paired with the wrong direction.
TEST(JacobiProblemTest, SpectralRadiusIsTheSweepsLargestEigenvalue) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"rows=17", "cols=9"},
        std::vector<std::string>{"rows=5", "cols=31", "height=0.5", "width=3"}}) {
    const auto p = jacobi2d::problem_of(jacobi_params(overrides));
    const double rho = jacobi2d::jacobi_spectral_radius(p);
    SCOPED_TRACE(testing::Message() << p.rows << "x" << p.cols << " rho " << rho);
    EXPECT_GT(rho, 0.0);
    EXPECT_LT(rho, 1.0);
    const std::int64_t R = p.rows, C = p.cols;
    const double hx2 = p.hx2, wy2 = p.wy2, c2 = 1.0 / (2.0 * (hx2 + wy2));
    auto e = [&](std::int64_t i, std::int64_t j) {
      return std::sin(std::numbers::pi * double(i) / double(R - 1)) *
             std::sin(std::numbers::pi * double(j) / double(C - 1));
    };
    for (std::int64_t i = 1; i < R - 1; ++i) {
      for (std::int64_t j = 1; j < C - 1; ++j) {
        const double je =
            c2 * (wy2 * (e(i - 1, j) + e(i + 1, j)) + hx2 * (e(i, j - 1) + e(i, j + 1)));
        ASSERT_NEAR(je, rho * e(i, j), 1e-12) << "at (" << i << ", " << j << ")";
      }
    }
  }
}

TEST(JacobiProblemTest, ConvergedErrorBoundIsTheStatedFormula) {
  const auto p = jacobi2d::problem_of(jacobi_params({"rows=17", "cols=9", "tol=1e-6"}));
  const double umax = 1.0 + 4.0;
  const double hx2 = double(p.hx) * p.hx, wy2 = double(p.wy) * p.wy;
  const double inverse_norm = 1.0 * (hx2 + wy2) / (4 * hx2 * wy2);  // height 1 < width 2
  for (double residual : {0.0, 1e-6, 1e-3}) {
    const double expected =
        inverse_norm * (residual + 8 * float_eps * umax) + 10 * float_eps * umax;
    EXPECT_NEAR(jacobi2d::converged_error_bound(p, residual), expected, 1e-12 * expected)
        << residual;
  }
  // Increasing in the residual: a run that stopped below tol is held at least to bound(tol).
  EXPECT_LT(jacobi2d::converged_error_bound(p, 1e-7), jacobi2d::converged_error_bound(p, 1e-6));
  // The claim behind it: ||(I - J)^-1||_inf, the largest entry of w = (I - J)^-1 1 (the inverse
  // is non-negative), is at most inverse_norm and not far below it. w = J w + 1 by iterating
  // in double (J contracts in the 2-norm: the iteration converges).
  const std::int64_t R = p.rows, C = p.cols;
  const double c2 = 1 / (2 * (hx2 + wy2));
  std::vector<double> w(std::size_t(R * C), 0.0), next = w;
  for (int sweep = 0; sweep < 20000; ++sweep) {
    for (std::int64_t i = 1; i < R - 1; ++i) {
      for (std::int64_t j = 1; j < C - 1; ++j) {
        const std::int64_t k = i * C + j;
        next[k] = c2 * (wy2 * (w[k - C] + w[k + C]) + hx2 * (w[k - 1] + w[k + 1])) + 1;
      }
    }
    std::swap(w, next);
  }
  const double largest = *std::max_element(w.begin(), w.end());
  EXPECT_LE(largest, inverse_norm);
  EXPECT_GT(largest, 0.5 * inverse_norm);
  // On 33 x 17 to 1e-6 it is 1.6e-3, an answer close to exact; the bound through the 2-norm,
  // sqrt(N) / (1 - rho) (rho r + 4 eps |u|max), was 8 times larger there (and 60 times on the
  // small preset at tol 1e-7, where it allowed 5, all of |u|max).
  const auto q = jacobi2d::problem_of(jacobi_params({"rows=33", "cols=17", "tol=1e-6"}));
  EXPECT_LT(jacobi2d::converged_error_bound(q, 1e-6), 3e-3);
}

// tol mode without iters: the cap is twice ln(2 sqrt(N) |u|max / tol) / ln(1/rho) sweeps, a
// multiple of check_every; an iters given is the cap as given.
TEST(JacobiProblemTest, TolModeCapsTheSweepsFromTheSpectralRadius) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"tol=1e-7"},
        std::vector<std::string>{"rows=33", "cols=17", "tol=1e-6", "check_every=7"},
        std::vector<std::string>{"rows=8192", "cols=1024", "tol=1e-5"}}) {
    const auto p = jacobi2d::problem_of(jacobi_params(overrides));
    SCOPED_TRACE(testing::Message() << p.rows << "x" << p.cols << " tol " << p.tol);
    const double rho = jacobi2d::jacobi_spectral_radius(p);
    const double needed =
        std::log(2 * std::sqrt(double(p.interior())) * 5.0 / p.tol) / std::log(1 / rho);
    EXPECT_EQ(p.iters, jacobi2d::tol_mode_sweep_cap(p));
    EXPECT_EQ(p.iters % p.check_every, 0);
    EXPECT_GE(double(p.iters), 2 * needed * (1 - 1e-6));
    EXPECT_LT(double(p.iters), 2 * needed * (1 + 1e-6) + double(p.check_every));
  }
  // The small preset converges to 1e-7 in about 106000 sweeps (measured): the cap is above.
  EXPECT_GT(jacobi2d::problem_of(jacobi_params({"tol=1e-7"})).iters, 200000);
  EXPECT_EQ(jacobi2d::problem_of(jacobi_params({"tol=1e-7", "iters=20"})).iters, 20);
  EXPECT_EQ(jacobi2d::problem_of(jacobi_params({"iters=20"})).iters, 20);
  EXPECT_EQ(validate_error({"tol=1e-7"}), "");
  EXPECT_NE(validate_error({"tol=1e-7", "iters=5"}).find("check_every=10"), std::string::npos);
}

// ---- verify() itself: a JacobiInstance whose result the test can reach ------------------------

class ReachableInstance : public jacobi2d::JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;
  void run() override {
    iterate(u0_.data(), u1_.data(), [&](const float* in, float* out, bool check) {
      float change = 0.0f;
      jacobi2d::sweep_rows(p_, in, out, 1, p_.rows - 1, check ? &change : nullptr);
      return change;
    });
  }
  float* result() { return const_cast<float*>(result_); }
  const jacobi2d::Problem& problem() const { return p_; }
};

// verify() must accept the serial answer and reject a wrong value at any point, boundaries
// and the last interior point included, not only at the centre that corrupt_result() touches.
TEST(JacobiVerifyTest, RejectsAWrongValueAnywhereInTheGrid) {
  for (const bool tol_mode : {false, true}) {
    SCOPED_TRACE(tol_mode ? "tol mode" : "iters mode");
    const Params params =
        tol_mode ? jacobi_params({"rows=17", "cols=9", "iters=100000", "tol=1e-6"})
                 : jacobi_params({"rows=37", "cols=23", "iters=7", "height=0.5", "width=3"});
    ReachableInstance instance(params);
    instance.setup();
    instance.reset();
    instance.run();
    instance.finish();
    const auto good = instance.verify();
    ASSERT_TRUE(good.ok) << good.detail;
    if (!tol_mode) {
      const auto expected = serial_by_hand(instance.problem(), 7);
      EXPECT_TRUE(std::equal(expected.begin(), expected.end(), instance.result()));
      EXPECT_EQ(good.outputs["max_diff_vs_serial"].get<double>(), 0.0);
      EXPECT_EQ(good.outputs["difference"].get<double>(), 0.0);
      EXPECT_EQ(good.outputs["tolerance"].get<double>(),
                jacobi2d::serial_tolerance(instance.problem(), 7));
    } else {
      EXPECT_EQ(good.outputs["difference"].get<double>(), good.outputs["max_error"].get<double>());
      EXPECT_EQ(good.outputs["tolerance"].get<double>(),
                jacobi2d::converged_error_bound(instance.problem(),
                                                good.outputs["residual"].get<double>()));
    }
    const auto& p = instance.problem();
    // Far above either mode's tolerance (6 eps |u|max sqrt(sweeps); the bound below 1e-2), far
    // below the values themselves.
    const float delta = 0.05f;
    for (std::int64_t k : {std::int64_t(0), p.cols + 1, p.points() / 2 + 3,
                           (p.rows - 2) * p.cols + p.cols - 2, p.points() - 1}) {
      SCOPED_TRACE(testing::Message() << "perturbed (" << k / p.cols << ", " << k % p.cols << ")");
      float* grid = instance.result();
      const float saved = grid[k];
      grid[k] = saved + delta;
      const auto bad = instance.verify();
      EXPECT_FALSE(bad.ok) << bad.detail;
      grid[k] = saved - delta;
      EXPECT_FALSE(instance.verify().ok) << "too low accepted";
      if (!tol_mode) {  // tol mode: see TolModeRejectsANaNInTheGrid
        grid[k] = std::numeric_limits<float>::quiet_NaN();
        const auto nan = instance.verify();
        EXPECT_FALSE(nan.ok) << "NaN accepted";
        EXPECT_EQ(nan.outputs["difference"].get<double>(), std::numeric_limits<double>::infinity());
      }
      grid[k] = saved;
    }
    EXPECT_TRUE(instance.verify().ok);
  }
}

// iterate_in_passes (cuda_temporal's loop, which CI cannot run on a GPU) with host sweeps: up to
// `most` sweeps a pass, a pass ending at each check. It must do the same sweeps, checks and
// stop as iterate.
class PassesInstance : public ReachableInstance {
 public:
  PassesInstance(const Params& params, std::int64_t most)
      : ReachableInstance(params), most_(most) {}
  void run() override {
    passes.clear();
    std::vector<float> between(u0_.size());
    const auto one = [&](const float* in, float* out, bool check) {
      passes.push_back(1);
      float change = 0.0f;
      jacobi2d::sweep_rows(p_, in, out, 1, p_.rows - 1, check ? &change : nullptr);
      return change;
    };
    const auto several = [&](const float* in, float* out, std::int64_t count, bool check) {
      passes.push_back(count);
      std::vector<float> from(in, in + u0_.size());
      for (std::int64_t s = 1; s < count; ++s) {
        between = from;  // its boundary
        jacobi2d::sweep_rows(p_, from.data(), between.data(), 1, p_.rows - 1, nullptr);
        std::swap(from, between);
      }
      float change = 0.0f;
      jacobi2d::sweep_rows(p_, from.data(), out, 1, p_.rows - 1, check ? &change : nullptr);
      return change;
    };
    iterate_in_passes(u0_.data(), u1_.data(), most_, one, several);
  }
  std::vector<std::int64_t> passes;  // the sweeps of each pass, in order

 private:
  std::int64_t most_;
};

TEST(JacobiVerifyTest, SweepsInPassesDoWhatSweepsOneAtATimeDo) {
  for (const std::int64_t most : {2, 3, 4}) {
    SCOPED_TRACE(testing::Message() << "iters mode, 7 sweeps, at most " << most << " a pass");
    PassesInstance passes(jacobi_params({"rows=37", "cols=23", "iters=7"}), most);
    passes.setup();
    passes.reset();
    passes.run();
    passes.finish();
    const std::vector<std::vector<std::int64_t>> expected_passes = {
        {2, 2, 2, 1}, {3, 3, 1}, {4, 3}};
    EXPECT_EQ(passes.passes, expected_passes[std::size_t(most - 2)]);
    const auto expected = serial_by_hand(passes.problem(), 7);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), passes.result()));
    const auto v = passes.verify();
    EXPECT_TRUE(v.ok) << v.detail;
    EXPECT_EQ(v.outputs["sweeps"].get<std::int64_t>(), 7);
  }
  {
    // A check every third sweep, at most 4 a pass: a pass ends on each check (sweeps 1-3,
    // 4-6, ...), never running past one.
    SCOPED_TRACE("tol mode, a check every 3 sweeps");
    const Params params =
        jacobi_params({"rows=17", "cols=9", "iters=100000", "tol=1e-5", "check_every=3"});
    PassesInstance passes(params, 4);
    ReachableInstance single(params);
    for (Instance* instance : {static_cast<Instance*>(&passes), static_cast<Instance*>(&single)}) {
      instance->setup();
      instance->reset();
      instance->run();
      instance->finish();
    }
    const auto v = passes.verify(), w = single.verify();
    ASSERT_TRUE(v.ok) << v.detail;
    const auto sweeps = w.outputs["sweeps"].get<std::int64_t>();
    ASSERT_EQ(sweeps % 3, 0);
    EXPECT_EQ(v.outputs["sweeps"].get<std::int64_t>(), sweeps);
    EXPECT_EQ(v.outputs["residual"].get<double>(), w.outputs["residual"].get<double>());
    EXPECT_EQ(passes.passes, std::vector<std::int64_t>(std::size_t(sweeps / 3), 3));
    const std::int64_t n = passes.problem().points();
    EXPECT_TRUE(std::equal(single.result(), single.result() + n, passes.result()));
  }
}

// A NaN anywhere in the grid must fail tol-mode verification too: max_error counts it as
// infinite (a plain std::max would keep the old maximum), whatever the residual says.
TEST(JacobiVerifyTest, TolModeRejectsANaNInTheGrid) {
  ReachableInstance instance(jacobi_params({"rows=17", "cols=9", "iters=100000", "tol=1e-6"}));
  instance.setup();
  instance.reset();
  instance.run();
  instance.finish();
  ASSERT_TRUE(instance.verify().ok);
  const auto& p = instance.problem();
  instance.result()[(p.rows / 2) * p.cols + 2] = std::numeric_limits<float>::quiet_NaN();
  const auto v = instance.verify();
  EXPECT_FALSE(v.ok) << v.detail;
  EXPECT_FALSE(v.outputs["max_error"].get<double>() < 1.0) << v.outputs.dump();
}

// ---- the workload's own checks ----------------------------------------------------------------

TEST(JacobiWorkloadTest, PresetsAreValidAndTheSeedsGrid) {
  for (const char* preset : {"seed", "small", "large"}) {
    EXPECT_EQ(validate_error({}, preset), "") << preset;
    const Params params = jacobi_params({}, preset);
    EXPECT_FALSE(params.has("tol")) << preset << ": tol is optional and unset";
  }
  const Params seed = jacobi_params({}, "seed");
  EXPECT_EQ(seed.integer("rows"), 8192);
  EXPECT_EQ(seed.integer("cols"), 1024);
  EXPECT_EQ(seed.real("height"), 1.0);
  EXPECT_EQ(seed.real("width"), 2.0);
  EXPECT_FALSE(seed.has("iters")) << "iters is optional: 100 in iters mode, a cap in tol mode";
  EXPECT_EQ(jacobi2d::problem_of(seed).iters, 100);
  EXPECT_EQ(jacobi2d::problem_of(jacobi_params({})).iters, 100);
  const Params large = jacobi_params({}, "large");
  EXPECT_EQ(large.integer("rows"), 16384);
  EXPECT_EQ(large.integer("cols"), 16384);
}

TEST(JacobiWorkloadTest, ValidateRejectsMoreThan2To31PointsWithoutOverflowing) {
  const std::string message = validate_error({"rows=65536", "cols=32769"});
  EXPECT_NE(message.find("rows=65536"), std::string::npos) << message;
  EXPECT_NE(message.find("cols=32769"), std::string::npos) << message;
  // rows * cols would wrap around in std::int64_t.
  EXPECT_NE(validate_error({"rows=4294967296", "cols=4294967296"}), "");
  EXPECT_NE(validate_error({"rows=9223372036854775807", "cols=3"}), "");
  EXPECT_EQ(validate_error({"rows=3", "cols=715827882"}), "");  // 2^31 - 2 points
  EXPECT_NE(validate_error({"async=2"}).find("async=2"), std::string::npos);
}

// acc_tuned indexes with 32-bit ints: exactly 2^31 points would make n = INT_MIN, so
// validation must refuse rows*cols >= 2^31, not only > 2^31.
TEST(JacobiWorkloadTest, ValidateRejectsExactly2To31Points) {
  EXPECT_NE(validate_error({"rows=65536", "cols=32768"}), "");
}

// ---- every registered variant ---------------------------------------------------------------

class JacobiVariantTest : public test::VariantTest {
 protected:
  JacobiVariantTest() : VariantTest("jacobi2d") {}
};

// One test for all sizes: each test is its own process under ctest, and each process that
// times a variant measures the host's copy bandwidth once.
TEST_P(JacobiVariantTest, MatchesSerialOnSmallPresetAndOddSizes) {
  struct Case {
    std::vector<std::string> overrides;
    int reps;
  };
  const std::vector<Case> cases = {
      {{}, 2},                                 // small preset: 258 x 130, 100 sweeps
      {{"rows=37", "cols=23", "iters=7"}, 1},  // no vector length or block divides these
      {{"rows=3", "cols=3", "iters=1"}, 1},    // a single interior point
      {{"rows=5", "cols=130", "iters=3"}, 1},  // few rows, more columns than a 128 block
      {{"rows=129", "cols=4", "iters=5"}, 1},  // many rows, two interior columns
      {{"rows=37", "cols=23", "iters=7", "height=0.5", "width=3"}, 1},
      {{"rows=66", "cols=35", "iters=4", "height=3", "width=0.5"}, 1},
      {{"rows=37", "cols=23", "iters=7", "alternate=0"}, 1},  // acc_resident: rows top-down only
  };
  for (const auto& c : cases) {
    const Params params = jacobi_params(c.overrides);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, c.reps);
    if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
    ASSERT_EQ(r.status, Status::verified) << r.error;
    EXPECT_EQ(r.params.json(), params.json());
    EXPECT_EQ(r.place, expected_place());
    ASSERT_EQ(r.times_s.size(), static_cast<std::size_t>(c.reps));
    EXPECT_LE(r.min_s, r.median_s);
    EXPECT_LE(r.median_s, r.max_s);
    // The outputs, checked here rather than through verify()'s verdict: every sweep asked for
    // was done (counted by the variant's loop), and the grid is within 6 eps |u|max
    // sqrt(sweeps) of the serial one (bit for bit for serial itself, which is the reference's
    // own code), a bound well below what the last sweep changed.
    const std::int64_t iters = jacobi2d::problem_of(params).iters;
    ASSERT_TRUE(r.outputs.contains("sweeps")) << r.outputs.dump();
    EXPECT_EQ(r.outputs["sweeps"].get<std::int64_t>(), iters);
    ASSERT_TRUE(r.outputs.contains("max_diff_vs_serial")) << r.outputs.dump();
    const double diff = r.outputs["max_diff_vs_serial"].get<double>();
    EXPECT_GE(diff, 0.0);
    const double tolerance = 6 * float_eps * umax_of(params) * std::sqrt(double(iters));
    EXPECT_LE(diff, tolerance);
    EXPECT_DOUBLE_EQ(r.outputs.value("tolerance", -1.0), tolerance);
    EXPECT_EQ(r.outputs.value("difference", -1.0), diff);
    if (variant().backend == Backend::serial) {
      EXPECT_EQ(diff, 0.0);
      // The reference itself, against the closed form of the iteration.
      const auto p = jacobi2d::problem_of(params);
      ASSERT_TRUE(r.outputs.contains("max_diff_vs_exact_iterate")) << r.outputs.dump();
      EXPECT_LE(r.outputs["max_diff_vs_exact_iterate"].get<double>(),
                jacobi2d::exact_iterate_bound(p, iters));
      EXPECT_EQ(r.outputs.value("exact_iterate_tolerance", -1.0),
                jacobi2d::exact_iterate_bound(p, iters));
    } else {
      EXPECT_FALSE(r.outputs.contains("max_diff_vs_exact_iterate"));
    }
    ASSERT_TRUE(r.outputs.contains("last_sweep_change")) << r.outputs.dump();
    if (c.overrides.empty()) {
      EXPECT_LT(tolerance, r.outputs["last_sweep_change"].get<double>() / 100);
    }
    EXPECT_FALSE(r.outputs.contains("residual")) << "iters mode has no residual";
    ASSERT_TRUE(r.outputs.contains("max_error"));
    EXPECT_TRUE(std::isfinite(r.outputs["max_error"].get<double>()));
    if (params.integer("rows") == 3 && params.integer("cols") == 3) {
      // One unknown and an exact stencil: one sweep lands on x^2 + y^2 up to rounding.
      EXPECT_LE(r.outputs["max_error"].get<double>(), 8 * float_eps * umax_of(params));
    }
    if (variant().backend == Backend::serial || variant().backend == Backend::openmp) {
      EXPECT_FALSE(r.transfer_s.has_value());
    }
    if (c.overrides.empty()) {
      EXPECT_GT(r.median_s, 0);
      EXPECT_GT(r.gbytes_per_s, 0);
      // The model's 8 bytes per interior point and sweep, over the median.
      EXPECT_DOUBLE_EQ(r.gbytes_per_s, 8.0 * 256 * 128 * 100 / r.median_s / 1e9);
    }
  }
}

// tol mode: converged, and max |u - (x^2 + y^2)| within jacobi2d::converged_error_bound (its
// derivation in jacobi2d.hpp, its formula checked above). On 17 x 9 with r < 1e-6 it is about
// 4e-4: asserted below 1e-2, so passing it means the answer is close to exact.
TEST_P(JacobiVariantTest, TolModeConvergesWithinTheStatedBoundOrFailsWithTooFewSweeps) {
  const Params params =
      jacobi_params({"rows=17", "cols=9", "iters=100000", "check_every=10", "tol=1e-6"});
  const auto p = jacobi2d::problem_of(params);
  ASSERT_LT(jacobi2d::converged_error_bound(p, 1e-6), 1e-2) << "the bound would mean nothing";
  const Result r = run(params);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
  ASSERT_EQ(r.status, Status::verified) << r.error;
  ASSERT_TRUE(r.outputs.contains("residual")) << r.outputs.dump();
  ASSERT_TRUE(r.outputs.contains("sweeps")) << r.outputs.dump();
  ASSERT_TRUE(r.outputs.contains("max_error")) << r.outputs.dump();
  const double residual = r.outputs["residual"].get<double>();
  const auto sweeps = r.outputs["sweeps"].get<std::int64_t>();
  const double max_error = r.outputs["max_error"].get<double>();
  EXPECT_GE(residual, 0.0);
  EXPECT_LT(residual, 1e-6);
  EXPECT_GT(sweeps, 0);
  EXPECT_LT(sweeps, 100000) << "converged long before the sweep limit";
  EXPECT_TRUE(sweeps % 10 == 0 || sweeps == 100000) << sweeps;
  EXPECT_LE(max_error, jacobi2d::converged_error_bound(p, residual));
  // tol mode is also held to the serial grid after the same sweeps (the exact-solution bound
  // above is valid but loose).
  ASSERT_TRUE(r.outputs.contains("max_diff_vs_serial")) << r.outputs.dump();
  EXPECT_LE(r.outputs["max_diff_vs_serial"].get<double>(), 6 * float_eps * 5.0 * double(sweeps));
  EXPECT_EQ(r.outputs.value("serial_tolerance", -1.0), 6 * float_eps * 5.0 * double(sweeps));
  // The primary check: the exact solution within the converged bound.
  EXPECT_EQ(r.outputs.value("difference", -1.0), max_error);
  EXPECT_EQ(r.outputs.value("tolerance", -1.0), jacobi2d::converged_error_bound(p, residual));
  // The sweep count must have cut short at a check, not run a fixed number: the model's
  // bytes follow the sweeps actually done.
  if (r.median_s > 0) {
    EXPECT_DOUBLE_EQ(r.gbytes_per_s, 8.0 * 15 * 7 * double(sweeps) / r.median_s / 1e9);
  }

  // Too few sweeps to get anywhere near tol: a failure that says so, not a verified result.
  // (In this test rather than its own: every test process measures the host's bandwidth.)
  const Params short_params = jacobi_params({"rows=17", "cols=9", "iters=20", "tol=1e-9"});
  SCOPED_TRACE(short_params.json().dump());
  const Result f = run(short_params);
  EXPECT_EQ(f.status, Status::failed);
  EXPECT_NE(f.error.find("not converged"), std::string::npos) << f.error;
  EXPECT_EQ(f.outputs.value("sweeps", std::int64_t(-1)), 20) << f.outputs.dump();
  EXPECT_GE(f.outputs.value("residual", -1.0), 1e-9) << f.outputs.dump();
  EXPECT_EQ(f.times_s.size(), 1u) << "timed: the failure is in the answer, not in the run";
}

// A grid one sweep short must fail verification: each variant runs iters - 1 sweeps and its
// grid is verified as the grid after iters sweeps, once with the sweeps its loop counted (the
// count gives it away) and once as if the count said iters (a variant whose loop counts a
// sweep it never does): then only the tolerance can catch it. The small preset, and a case like
// the seed's verification problem where a worst case added linearly, 4 eps |u|max sweeps, is looser
// than the last sweep's change (33 x 17, 600 sweeps: the last sweep changes the grid by 4.7e-4, the
// old bound 1.4e-3, the bound 8.8e-5).
TEST_P(JacobiVariantTest, OneSweepShortFailsVerification) {
  if (auto reason = runner_.unavailable_reason(variant())) GTEST_SKIP() << *reason;
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{}, std::vector<std::string>{"rows=33", "cols=17", "iters=600"}}) {
    const Params params = jacobi_params(overrides);
    const auto p = jacobi2d::problem_of(params);
    SCOPED_TRACE(params.json().dump());
    Params short_params = params;
    short_params.set("iters", p.iters - 1);
    auto instance = variant().factory(short_params);
    instance->setup();
    instance->reset();
    instance->run();
    instance->finish();
    const float* grid = ResultOf::of(*instance);
    ASSERT_NE(grid, nullptr);
    ASSERT_TRUE(instance->verify().ok) << "verified as the grid after iters - 1 sweeps";

    const Verification counted = jacobi2d::verify_result(p, grid, p.iters - 1, -1);
    EXPECT_FALSE(counted.ok) << counted.detail;
    EXPECT_NE(counted.detail.find("sweeps of"), std::string::npos) << counted.detail;

    const Verification v = jacobi2d::verify_result(p, grid, p.iters, -1);
    EXPECT_FALSE(v.ok) << v.detail;
    const double difference = v.outputs["difference"].get<double>();
    const double tolerance = v.outputs["tolerance"].get<double>();
    EXPECT_GT(difference, 2 * tolerance) << "caught with a margin, not by rounding luck";
    // What one sweep short differs by is the last sweep's change (to the variant's rounding).
    EXPECT_NEAR(difference, v.outputs["last_sweep_change"].get<double>(), tolerance);
    if (!overrides.empty()) {
      EXPECT_LT(difference, 4 * float_eps * umax_of(params) * double(p.iters))
          << "a case a linear worst-case bound would let through";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllJacobiVariants, JacobiVariantTest,
                         ::testing::ValuesIn(jacobi_variant_names()), test::param_name);

// The ladder's names and order come from ladder.json (tests/registry_test.cpp); here, what every
// step shares: its family and the sweep model.
TEST(JacobiLadderTest, EveryStepIsOnTheJacobiLadderWithTheSweepModel) {
  ASSERT_FALSE(jacobi_variant_names().empty());
  EXPECT_EQ(jacobi_variant_names().front(), "serial");
  int step = 0;
  for (const auto& name : jacobi_variant_names()) {
    const Variant& v = jacobi_variant(name);
    EXPECT_EQ(v.family, "jacobi") << name;
    EXPECT_GT(v.step, step) << name;
    step = v.step;
  }
  // 8 bytes per interior point and sweep: the sweeps done when the outputs have them, else the
  // sweeps asked for (iters unset: the default 100).
  const Variant& serial = jacobi_variant("serial");
  EXPECT_DOUBLE_EQ(serial.model.bytes(jacobi_params({}), nlohmann::json::object()),
                   8.0 * 256 * 128 * 100);
  EXPECT_DOUBLE_EQ(serial.model.bytes(jacobi_params({}), nlohmann::json{{"sweeps", 7}}),
                   8.0 * 256 * 128 * 7);
}

// ---- transfer share, async --------------------------------------------------------------------

// The seed's lesson: copying per sweep (or per solve) is data movement a run pays for; the
// resident variants pay it once, outside the timed runs, and host-only ones never.
TEST(JacobiTransferTest, OnlyVariantsThatCopyInsideARunReportTransferTime) {
#ifndef ACCLAB_HAVE_OPENACC
  GTEST_SKIP() << "no OpenACC variants in this build";
#endif
  Machine machine;
  Runner runner(machine);
  const Params params = jacobi_params({"rows=37", "cols=23", "iters=7"});
  RunOptions options;
  options.reps = 2;
  const std::set<std::string> copying = {"acc_copy_per_iter", "acc_data_region", "omp_target_map",
                                         "omp_target_data"};
  int checked = 0;
  for (const auto& name : jacobi_variant_names()) {
    SCOPED_TRACE(name);
    const Result r = runner.run(jacobi_variant(name), jacobi_workload(), params, options);
    if (r.status == Status::unavailable) {
      EXPECT_EQ(jacobi_variant(name).backend, Backend::cuda) << r.note;
      continue;
    }
    ASSERT_EQ(r.status, Status::verified) << r.error;
    ++checked;
    if (copying.count(name)) {
      ASSERT_TRUE(r.transfer_s.has_value());
      EXPECT_GE(*r.transfer_s, 0.0);
      ASSERT_TRUE(r.transfer_share().has_value());
      EXPECT_LE(*r.transfer_share(), 1.0);
    } else {
      EXPECT_FALSE(r.transfer_s.has_value());
      EXPECT_FALSE(r.transfer_share().has_value());
    }
  }
  EXPECT_GE(checked, 6);
}

TEST(JacobiAsyncTest, AccTunedVerifiesQueuedAndSynchronous) {
#ifndef ACCLAB_HAVE_OPENACC
  GTEST_SKIP() << "no OpenACC variants in this build";
#endif
  Machine machine;
  Runner runner(machine);
  RunOptions options;
  options.reps = 2;
  for (const char* async : {"async=0", "async=1"}) {
    for (const std::vector<std::string>& overrides :
         {std::vector<std::string>{"rows=37", "cols=23", "iters=7", async},
          std::vector<std::string>{"rows=17", "cols=9", "iters=100000", "tol=1e-6", async}}) {
      const Params params = jacobi_params(overrides);
      SCOPED_TRACE(params.json().dump());
      const Result r = runner.run(jacobi_variant("acc_tuned"), jacobi_workload(), params, options);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      if (params.has("tol")) {
        EXPECT_LT(r.outputs["residual"].get<double>(), 1e-6);
      } else {
        EXPECT_EQ(r.outputs["sweeps"].get<std::int64_t>(), 7);
      }
    }
  }
}

// ---- the command line -------------------------------------------------------------------------

std::size_t registered_jacobi_variants() { return jacobi_variant_names().size(); }

TEST(JacobiCliTest, RunJsonVerifiesEveryAvailableVariantOnTheSmallPreset) {
  const Outcome o = run_acclab({"run", "jacobi2d", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["workload"], "jacobi2d");
  EXPECT_EQ(doc["preset"], "small");
  ASSERT_EQ(doc["results"].size(), registered_jacobi_variants());
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    const auto& params = r["params"];
    EXPECT_EQ(params["rows"], 258);
    EXPECT_EQ(params["cols"], 130);
    EXPECT_EQ(params["height"], 1.0);
    EXPECT_EQ(params["width"], 2.0);
    EXPECT_FALSE(params.contains("iters")) << params.dump();
    EXPECT_FALSE(params.contains("tol")) << params.dump();
    if (r["status"] == "unavailable") {
      EXPECT_EQ(r["backend"], "cuda") << "only CUDA is unavailable without a GPU";
      EXPECT_TRUE(r["note"].is_string());
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    EXPECT_EQ(r["outputs"]["sweeps"], 100);
    EXPECT_LE(r["outputs"]["difference"].get<double>(), r["outputs"]["tolerance"].get<double>());
    EXPECT_FALSE(r["outputs"].contains("residual"));
    const bool copies = r["variant"] == "acc_copy_per_iter" || r["variant"] == "acc_data_region" ||
                        r["variant"] == "omp_target_map" || r["variant"] == "omp_target_data";
    EXPECT_EQ(r["transfer_s"].is_number(), copies) << r["transfer_s"];
    EXPECT_EQ(r["transfer_share"].is_number(), copies) << r["transfer_share"];
    ++verified;
  }
  EXPECT_GE(verified, 2);  // at least serial and openmp
}

TEST(JacobiCliTest, LadderReportsSpeedupsAgainstSerial) {
  const Outcome o =
      run_acclab({"ladder", "jacobi2d", "--variant", "serial,openmp", "--format", "json"});
  test::expect_ladder_of_two(o, "serial", "openmp");
}

TEST(JacobiCliTest, TolModeReportsResidualSweepsAndError) {
  // One timed run: each is 2 solves (warm-up, timed) of some 900 sweeps per variant.
  const Outcome o =
      run_acclab({"run", "jacobi2d", "--set", "tol=1e-4", "--set", "rows=33", "--set", "cols=17",
                  "--set", "iters=100000", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  ASSERT_EQ(doc["results"].size(), registered_jacobi_variants());
  const auto p =
      jacobi2d::problem_of(jacobi_params({"tol=1e-4", "rows=33", "cols=17", "iters=100000"}));
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    EXPECT_EQ(r["params"]["tol"], 1e-4);
    if (r["status"] == "unavailable") continue;
    ASSERT_EQ(r["status"], "verified") << r["error"];
    const auto& out = r["outputs"];
    ASSERT_TRUE(out["residual"].is_number()) << out.dump();
    ASSERT_TRUE(out["sweeps"].is_number_integer()) << out.dump();
    ASSERT_TRUE(out["max_error"].is_number()) << out.dump();
    EXPECT_GE(out["residual"].get<double>(), 0.0);
    EXPECT_LT(out["residual"].get<double>(), 1e-4);
    const auto sweeps = out["sweeps"].get<std::int64_t>();
    EXPECT_GT(sweeps, 0);
    EXPECT_LT(sweeps, 100000);
    EXPECT_EQ(sweeps % 10, 0) << "checks every 10 sweeps by default";
    EXPECT_LE(out["max_error"].get<double>(),
              jacobi2d::converged_error_bound(p, out["residual"].get<double>()));
    ++verified;
  }
  EXPECT_GE(verified, 2);
}

// tol alone: iters defaults to the cap from the spectral radius, not to a fixed sweep count
// (the small preset needs about 106000 sweeps for 1e-7, 24 s a solve: a smaller grid here).
TEST(JacobiCliTest, TolAloneConvergesWithinTheDefaultCap) {
  const Outcome o =
      run_acclab({"run", "jacobi2d", "--variant", "serial,openmp", "--set", "tol=1e-7", "--set",
                  "rows=33", "--set", "cols=17", "--format", "json", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  auto doc = parse_json(o.out);
  const auto p = jacobi2d::problem_of(jacobi_params({"tol=1e-7", "rows=33", "cols=17"}));
  ASSERT_EQ(doc["results"].size(), 2u);
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    EXPECT_FALSE(r["params"].contains("iters")) << r["params"].dump();
    ASSERT_EQ(r["status"], "verified") << r["error"];
    const auto sweeps = r["outputs"]["sweeps"].get<std::int64_t>();
    EXPECT_LT(r["outputs"]["residual"].get<double>(), 1e-7);
    EXPECT_LT(sweeps, p.iters);
    EXPECT_GT(sweeps, 100) << "more than the iters-mode default";
    EXPECT_LE(r["outputs"]["difference"].get<double>(), r["outputs"]["tolerance"].get<double>());
  }
}

// ---- bad input: status 2, one line naming the parameter -----------------------------------------

struct BadInput {
  std::string name;
  std::vector<std::string> sets;   // each passed as --set
  std::vector<std::string> names;  // what the stderr line must contain
};

void PrintTo(const BadInput& c, std::ostream* os) {
  *os << "acclab run jacobi2d";
  for (const auto& s : c.sets) *os << " --set " << s;
}

class JacobiCliBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(JacobiCliBadInputTest, ExitsTwoWithOneLineNamingIt) {
  const Outcome o =
      run_acclab(test::run_with_sets("jacobi2d", GetParam().sets), std::chrono::seconds(60));
  EXPECT_TRUE(is_usage_error(o, GetParam().names));
  EXPECT_EQ(o.err.rfind("acclab: ", 0), 0u) << o;
  // Refused before any grid or probe: at once, and small.
  EXPECT_LT(o.wall_s, 5.0) << o;
  EXPECT_LT(o.max_rss_kib, 128 * 1024) << "peak memory " << o.max_rss_kib << " KiB";
}

INSTANTIATE_TEST_SUITE_P(
    JacobiBadInput, JacobiCliBadInputTest,
    ::testing::Values(
        BadInput{"Rows2", {"rows=2"}, {"rows=2", "rows"}},
        BadInput{"Cols2", {"cols=2"}, {"cols=2"}}, BadInput{"Rows0", {"rows=0"}, {"rows=0"}},
        BadInput{"HeightZero", {"height=0"}, {"height=0"}},
        BadInput{"HeightNegative", {"height=-1"}, {"height=-1"}},
        BadInput{"WidthZero", {"width=0"}, {"width=0"}},
        BadInput{"ItersZero", {"iters=0"}, {"iters=0"}}, BadInput{"TolZero", {"tol=0"}, {"tol=0"}},
        BadInput{"TolNegative", {"tol=-1"}, {"tol=-1"}},
        BadInput{"CheckEveryZero", {"check_every=0"}, {"check_every=0"}},
        BadInput{"Async2", {"async=2"}, {"async=2"}},
        BadInput{"MoreThan2To31Points", {"rows=65536", "cols=32769"}, {"rows=65536", "cols=32769"}},
        BadInput{"ProductOverflows", {"rows=4294967296", "cols=4294967296"}, {"rows=4294967296"}}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(JacobiCliUsageTest, TooLargeForHostMemoryFailsQuicklyBeforeAllocating) {
  // 2e9 points (within 2^31), 4 float grids: about 30 GiB.
  const Params params = jacobi_params({"rows=2000000", "cols=1000"});
  Machine machine;
  if (machine.host().available_bytes <= 0 ||
      machine.host().available_bytes >= jacobi_workload().host_bytes(params)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o = run_acclab({"run", "jacobi2d", "--set", "rows=2000000", "--set", "cols=1000"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"host memory", "rows", "2000000"}));
  EXPECT_LT(o.wall_s, 5.0) << o;
  EXPECT_LT(o.max_rss_kib, 128 * 1024) << "peak memory " << o.max_rss_kib << " KiB";
}

// An iters-mode verify() builds the serial reference (two grids) while the instance still holds
// its three: host_bytes must count 5 grids, and the measured peak must stay within it.
TEST(JacobiCliUsageTest, HostBytesCoverThePeakOfAnItersModeRun) {
  const Params params = jacobi_params({"rows=8193", "cols=8193", "iters=1"});
  const double host_bytes = jacobi_workload().host_bytes(params);
  Machine machine;
  if (machine.host().available_bytes < 2 * host_bytes) GTEST_SKIP() << "not enough memory";
  const Outcome o = run_acclab({"run", "jacobi2d", "--variant", "serial", "--reps", "1", "--set",
                                "rows=8193", "--set", "cols=8193", "--set", "iters=1"});
  ASSERT_EQ(o.status, 0) << o;
  // 64 MiB for the process itself.
  EXPECT_LE(double(o.max_rss_kib) * 1024, host_bytes + 64.0 * 1024 * 1024)
      << "peak " << o.max_rss_kib << " KiB, host_bytes " << host_bytes / 1024 << " KiB";
}

// Extents whose float arithmetic breaks down are bad input, not a failed verification:
// height=1e20 makes x^2 + y^2 overflow float, height=width=1e-30 makes the spacings squared 0.
TEST(JacobiCliUsageTest, ExtentsOutsideFloatRangeAreUsageErrors) {
  EXPECT_TRUE(is_usage_error(
      run_acclab({"run", "jacobi2d", "--variant", "serial", "--reps", "1", "--set", "rows=5",
                  "--set", "cols=5", "--set", "iters=1", "--set", "height=1e20"}),
      {"height"}));
  EXPECT_TRUE(is_usage_error(run_acclab({"run", "jacobi2d", "--variant", "serial", "--reps", "1",
                                         "--set", "rows=5", "--set", "cols=5", "--set", "iters=1",
                                         "--set", "height=1e-30", "--set", "width=1e-30"}),
                             {"1e-30"}));
}

}  // namespace
}  // namespace acclab
