// jacobi2d: the seed's Jacobi sweeps for laplacian(u) = 4 with u = x^2 + y^2 on the boundary,
// without the harness: the problem's own pieces (coefficients, initial grid, serial reference,
// spectral radius, convergence bound) checked against values computed here, verify() itself and
// the workload's own checks.
#include <gtest/gtest.h>

#include "jacobi2d_test.hpp"

namespace acclab::jacobi2d_test {
namespace {

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
  // tol mode only when tol is set; check_every comes through.
  const auto t =
      jacobi2d::problem_of(jacobi_params({"rows=17", "cols=9", "tol=1e-6", "check_every=4"}));
  EXPECT_TRUE(t.tol_mode);
  EXPECT_DOUBLE_EQ(t.tol, 1e-6);
  EXPECT_EQ(t.check_every, 4);
  EXPECT_FALSE(t.check_after(3));
  EXPECT_TRUE(t.check_after(4));
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
    test::run_once(instance);
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
    test::run_once(passes);
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
      test::run_once(*instance);
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
  test::run_once(instance);
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

}  // namespace
}  // namespace acclab::jacobi2d_test
