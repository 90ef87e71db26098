// diffusion3d: the course's openacc_diffusion, df/dt = kappa laplacian(f) on the unit cube, an
// explicit 7-point stencil over cell centres with zero-flux walls.
//   - the problem's own pieces (seed preset, time step and step count, coefficients, initial
//     field, analytic solution, stability bound, serial stencil, verify()) checked against
//     values computed here, without the harness;
//   - the exact solution of the discrete scheme (a sum of 8 separable cosine modes, the
//     workload's discrete_solution), checked here against the scheme's definition: the serial
//     result matches it to float rounding, and its distance from the analytic solution is
//     within truncation_bound;
//   - conservation of the total of f by the zero-flux walls, for every variant;
//   - every registered variant through the real harness (Runner) on the small preset and
//     non-cubic grids, a field one step short failing the bound, the transfer share, async;
//   - every loop shape of the OpenACC steps (acc_flat, acc_rows, acc_march, acc_tuned) and every
//     value of cuda's tunings (cuda_planes, cuda_tile_y, ...) against the original on the same
//     grids;
//   - the real binary: reports, ladder speedups, and bad input (status 2, one line).
#include "workloads/diffusion3d/diffusion3d.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"

namespace acclab {
namespace {

using diffusion3d::discrete_solution;
using diffusion3d::Problem;
using diffusion3d::rounding_bound;
using diffusion3d::truncation_bound;
using test::is_usage_error;
using test::Outcome;
using test::parse_json;
using test::run_acclab;

constexpr double float_eps = std::numeric_limits<float>::epsilon();
constexpr double two_pi = 2 * std::numbers::pi;

const Workload& diffusion_workload() { return test::all().workload("diffusion3d"); }

const Variant& diffusion_variant(const std::string& name) {
  return test::variant_of("diffusion3d", name);
}

std::vector<std::string> diffusion_variant_names() { return test::variant_names("diffusion3d"); }

Params diffusion_params(const std::vector<std::string>& overrides,
                        const std::string& preset = "small") {
  return test::params_of("diffusion3d", overrides, preset);
}

Problem problem(const std::vector<std::string>& overrides, const std::string& preset = "small") {
  return diffusion3d::problem_of(diffusion_params(overrides, preset));
}

std::string validate_error(const std::vector<std::string>& overrides,
                           const std::string& preset = "small") {
  return test::validate_error("diffusion3d", overrides, preset);
}

std::int64_t index_of(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k) {
  return (k * p.ny + j) * p.nx + i;
}

double sum_of(const float* f, std::int64_t n) {
  double sum = 0;
  for (std::int64_t m = 0; m < n; ++m) sum += f[m];
  return sum;
}

// The result field of any diffusion3d instance (result_ is protected: a pointer to member
// named through a derived class reaches it). Never constructed.
struct ResultOf : diffusion3d::DiffusionInstance {
  static const float* of(const Instance& instance) {
    const auto& d = dynamic_cast<const diffusion3d::DiffusionInstance&>(instance);
    return d.*(&ResultOf::result_);
  }
};

// The documented stencil written here rather than taken from the workload: the mirror walls as
// clamped indices, the seven products summed in the course's order (cc, e, w, n, s, t, b).
std::vector<float> stencil_by_hand(const Problem& p, std::int64_t steps) {
  std::vector<float> f = diffusion3d::initial_field(p), fn = f;
  auto at = [&](const std::vector<float>& g, std::int64_t i, std::int64_t j, std::int64_t k) {
    i = std::clamp<std::int64_t>(i, 0, p.nx - 1);
    j = std::clamp<std::int64_t>(j, 0, p.ny - 1);
    k = std::clamp<std::int64_t>(k, 0, p.nz - 1);
    return g[index_of(p, i, j, k)];
  };
  for (std::int64_t s = 0; s < steps; ++s) {
    for (std::int64_t k = 0; k < p.nz; ++k) {
      for (std::int64_t j = 0; j < p.ny; ++j) {
        for (std::int64_t i = 0; i < p.nx; ++i) {
          fn[index_of(p, i, j, k)] = p.cc * at(f, i, j, k) + p.ce * at(f, i + 1, j, k) +
                                     p.cw * at(f, i - 1, j, k) + p.cn * at(f, i, j + 1, k) +
                                     p.cs * at(f, i, j - 1, k) + p.ct * at(f, i, j, k + 1) +
                                     p.cb * at(f, i, j, k - 1);
        }
      }
    }
    std::swap(f, fn);
  }
  return f;
}

// ---- the exact solution of the discrete scheme ------------------------------------------------
//
// diffusion3d::discrete_solution (its derivation in diffusion3d.hpp), checked below against
// the scheme itself: exact at step 0, and one step of the stencil in double takes its field at
// s steps to its field at s + 1 steps.

TEST(DiffusionExactTest, DiscreteSolutionIsTheSchemeInExactArithmetic) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=5"},
        std::vector<std::string>{"nx=2", "ny=3", "nz=4", "kappa=0.7", "dt=0.01", "steps=1"}}) {
    const Problem p = problem(overrides);
    SCOPED_TRACE(testing::Message() << p.nx << "x" << p.ny << "x" << p.nz);
    const auto f0 = diffusion3d::initial_field(p);
    const auto at_zero = discrete_solution(p, 0);
    for (std::int64_t n = 0; n < p.points(); ++n) ASSERT_NEAR(at_zero[n], f0[n], float_eps) << n;
    // The coefficients in double, as the modes' mu_S use them.
    const double cx = p.kappa * p.dt / (p.dx * p.dx), cy = p.kappa * p.dt / (p.dy * p.dy),
                 cz = p.kappa * p.dt / (p.dz * p.dz);
    const auto before = discrete_solution(p, 3), after = discrete_solution(p, 4);
    auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
      i = std::clamp<std::int64_t>(i, 0, p.nx - 1);
      j = std::clamp<std::int64_t>(j, 0, p.ny - 1);
      k = std::clamp<std::int64_t>(k, 0, p.nz - 1);
      return before[index_of(p, i, j, k)];
    };
    for (std::int64_t k = 0; k < p.nz; ++k) {
      for (std::int64_t j = 0; j < p.ny; ++j) {
        for (std::int64_t i = 0; i < p.nx; ++i) {
          const double stepped =
              (1 - 2 * (cx + cy + cz)) * at(i, j, k) + cx * (at(i + 1, j, k) + at(i - 1, j, k)) +
              cy * (at(i, j + 1, k) + at(i, j - 1, k)) + cz * (at(i, j, k + 1) + at(i, j, k - 1));
          ASSERT_NEAR(after[index_of(p, i, j, k)], stepped, 1e-14)
              << "at (" << i << ", " << j << ", " << k << ")";
        }
      }
    }
  }
}

// ---- the problem's pieces, without the harness -------------------------------------------------

TEST(DiffusionProblemTest, SeedPresetIsTheCoursesProblem) {
  const Params seed = diffusion_params({}, "seed");
  EXPECT_EQ(seed.integer("nx"), 128);
  EXPECT_EQ(seed.integer("ny"), 128);
  EXPECT_EQ(seed.integer("nz"), 128);
  EXPECT_EQ(seed.real("kappa"), 0.1);
  EXPECT_EQ(seed.real("end_time"), 0.1);
  EXPECT_FALSE(seed.has("steps")) << "the seed counts steps from the end time";
  EXPECT_FALSE(seed.has("dt"));
  const Problem p = diffusion3d::problem_of(seed);
  EXPECT_EQ(p.nx, 128);
  EXPECT_EQ(p.points(), 128 * 128 * 128);
  EXPECT_EQ(p.dx, 1.0 / 128);
  EXPECT_EQ(p.dz, 1.0 / 128);
  // dt = 0.1 dx^2 / kappa = 2^-14, exactly.
  EXPECT_EQ(p.dt, 6.103515625e-05);
  EXPECT_EQ(p.dt, 0.1 * p.dx * p.dx / 0.1);
  // The course's loop: step while time + dt/2 < 0.1; 0.1 / dt = 1638.4.
  EXPECT_EQ(p.steps, 1638);
  EXPECT_EQ(p.end_time(), 1638 * 6.103515625e-05);
  EXPECT_LT(p.end_time() + 0.5 * p.dt, 0.1 + p.dt);
  EXPECT_GE(p.end_time() + 0.5 * p.dt, 0.1);
  // kappa dt / dx^2 = 0.1 in every direction, cc = 1 - 6 * 0.1.
  for (float c : {p.ce, p.cw, p.cn, p.cs, p.ct, p.cb}) EXPECT_EQ(c, 0.1f);
  EXPECT_EQ(p.cc, 1.0f - (0.1f + 0.1f + 0.1f + 0.1f + 0.1f + 0.1f));
  EXPECT_NEAR(p.cc, 0.4, 4 * float_eps);
  EXPECT_TRUE(p.async);

  const Problem small = problem({});
  EXPECT_EQ(small.nx, 24);
  EXPECT_EQ(small.ny, 20);
  EXPECT_EQ(small.nz, 16);
  // dt = 0.1 / 24^2 / 0.1 = 1/576; 0.1 * 576 = 57.6: 58 steps.
  EXPECT_DOUBLE_EQ(small.dt, 1.0 / 576);
  EXPECT_EQ(small.steps, 58);
  const Params large = diffusion_params({}, "large");
  EXPECT_EQ(large.integer("nx") * large.integer("ny") * large.integer("nz"), 256 * 256 * 256);
  EXPECT_EQ(large.integer("steps"), 100);
  for (const char* preset : {"seed", "small", "large"}) EXPECT_EQ(validate_error({}, preset), "");
}

TEST(DiffusionProblemTest, CoefficientsPairEachDirectionWithItsSpacing) {
  // 17 x 9 x 33: the smallest spacing is dz, so dt = 0.1 dz^2 / kappa and ct = cb = 0.1.
  const Problem p = problem({"nx=17", "ny=9", "nz=33", "steps=5"});
  EXPECT_EQ(p.steps, 5);
  EXPECT_DOUBLE_EQ(p.dt, 0.1 / (33.0 * 33.0) / 0.1);
  EXPECT_FLOAT_EQ(p.ce, static_cast<float>(0.1 * p.dt * 17 * 17));
  EXPECT_EQ(p.cw, p.ce);
  EXPECT_FLOAT_EQ(p.cn, static_cast<float>(0.1 * p.dt * 9 * 9));
  EXPECT_EQ(p.cs, p.cn);
  EXPECT_FLOAT_EQ(p.ct, static_cast<float>(0.1 * p.dt * 33 * 33));
  EXPECT_EQ(p.cb, p.ct);
  EXPECT_FLOAT_EQ(p.ct, 0.1f);
  EXPECT_EQ(p.cc, 1.0f - (p.ce + p.cw + p.cn + p.cs + p.ct + p.cb));
  EXPECT_GT(p.cc, 0.0f);
  EXPECT_NEAR(double(p.cc) + 2 * (double(p.ce) + p.cn + p.ct), 1.0, 4 * float_eps);

  // An explicit dt and kappa.
  const Problem q = problem({"nx=4", "ny=8", "nz=2", "kappa=0.5", "dt=0.001", "steps=3"});
  EXPECT_EQ(q.dt, 0.001);
  EXPECT_EQ(q.kappa, 0.5);
  EXPECT_FLOAT_EQ(q.ce, static_cast<float>(0.5 * 0.001 * 16));
  EXPECT_FLOAT_EQ(q.cn, static_cast<float>(0.5 * 0.001 * 64));
  EXPECT_FLOAT_EQ(q.ct, static_cast<float>(0.5 * 0.001 * 4));
  EXPECT_NEAR(q.end_time(), 0.003, 1e-15);
  EXPECT_FALSE(problem({"async=0"}).async);
}

TEST(DiffusionProblemTest, TuningParametersDefaultToTheMeasuredShapes) {
  for (const char* preset : {"seed", "small", "large"}) {
    SCOPED_TRACE(preset);
    const Problem p = problem({}, preset);
    EXPECT_EQ(p.cuda_planes, 4);
    EXPECT_EQ(p.cuda_tile_y, 4);
    EXPECT_TRUE(p.cuda_pdl);
  }
  const Problem p = problem({"cuda_planes=0", "cuda_tile_y=16"});
  EXPECT_EQ(p.cuda_planes, 0);
  EXPECT_EQ(p.cuda_tile_y, 16);
  for (int planes : diffusion3d::cuda_planes_choices) {
    EXPECT_EQ(validate_error({"cuda_planes=" + std::to_string(planes)}), "") << planes;
  }
  for (int tile_y : diffusion3d::cuda_tile_y_choices) {
    EXPECT_EQ(validate_error({"cuda_tile_y=" + std::to_string(tile_y)}), "") << tile_y;
  }
  const std::string planes = validate_error({"cuda_planes=48"});
  EXPECT_NE(planes.find("cuda_planes=48"), std::string::npos) << planes;
  EXPECT_NE(validate_error({"cuda_x4=2"}).find("cuda_x4=2"), std::string::npos);
  EXPECT_TRUE(problem({}).cuda_x4);
  EXPECT_FALSE(problem({"cuda_x4=0"}).cuda_x4);
  EXPECT_NE(validate_error({"cuda_pdl=2"}).find("cuda_pdl=2"), std::string::npos);
  EXPECT_FALSE(problem({"cuda_pdl=0"}).cuda_pdl);
  const std::string tile_y = validate_error({"cuda_tile_y=2"});
  EXPECT_NE(tile_y.find("cuda_tile_y=2"), std::string::npos) << tile_y;
}

TEST(DiffusionProblemTest, StableDtLimitIsTheBoundWhereCcReachesZero) {
  // kappa dt (1/dx^2 + 1/dy^2 + 1/dz^2) <= 1/2: on 24 x 20 x 16 with kappa = 0.1,
  // 0.5 / (0.1 (576 + 400 + 256)) = 0.5 / 123.2.
  EXPECT_DOUBLE_EQ(diffusion3d::stable_dt_limit(0.1, 1.0 / 24, 1.0 / 20, 1.0 / 16), 0.5 / 123.2);
  EXPECT_DOUBLE_EQ(diffusion3d::stable_dt_limit(2.0, 0.5, 0.25, 1.0), 0.5 / (2.0 * 21));
  // At the limit cc is 0 (to rounding); just above it is refused, just below accepted.
  const double limit = 0.5 / 123.2;
  std::ostringstream at_limit, above, below;
  at_limit.precision(17);
  above.precision(17);
  below.precision(17);
  at_limit << "dt=" << limit;
  above << "dt=" << limit * (1 + 1e-9);
  below << "dt=" << limit * (1 - 1e-9);
  EXPECT_EQ(validate_error({below.str()}), "");
  const std::string refused = validate_error({above.str()});
  EXPECT_NE(refused.find("stability"), std::string::npos) << refused;
  if (validate_error({at_limit.str()}).empty()) {
    const Problem p = problem({at_limit.str()});
    EXPECT_NEAR(p.cc, 0.0f, 8 * float_eps);
  }
  // The default dt, 0.1 min(h^2) / kappa, is always within it (0.1 < 1/6 of the cube's limit).
  for (const auto& grid : {std::vector<std::string>{"nx=2", "ny=2", "nz=2", "steps=1"},
                           std::vector<std::string>{"nx=2", "ny=1000", "nz=3", "steps=1"}}) {
    const Problem p = problem(grid);
    EXPECT_LT(p.dt, diffusion3d::stable_dt_limit(p.kappa, p.dx, p.dy, p.dz));
    EXPECT_GE(p.cc, 0.0f);
  }
}

TEST(DiffusionProblemTest, InitialFieldIsTheCosineProductAtCellCentres) {
  // 4 x 4 x 4 by hand: x = 1/8, 3/8, 5/8, 7/8, and 1 - cos(2 pi x) = 1 -+ sqrt(2)/2.
  {
    const Problem p = problem({"nx=4", "ny=4", "nz=4", "steps=1"});
    const auto f = diffusion3d::initial_field(p);
    ASSERT_EQ(f.size(), 64u);
    const double lo = 1 - std::sqrt(0.5), hi = 1 + std::sqrt(0.5);
    EXPECT_NEAR(f[index_of(p, 0, 0, 0)], 0.125 * lo * lo * lo, float_eps);
    EXPECT_NEAR(f[index_of(p, 1, 1, 1)], 0.125 * hi * hi * hi, float_eps);
    EXPECT_NEAR(f[index_of(p, 2, 0, 3)], 0.125 * hi * lo * lo, float_eps);
    EXPECT_NEAR(f[index_of(p, 3, 2, 1)], 0.125 * lo * hi * hi, float_eps);
  }
  // A non-cubic grid: each direction with its own spacing, and x fastest in memory.
  const Problem p = problem({"nx=17", "ny=9", "nz=33", "steps=1"});
  const auto f = diffusion3d::initial_field(p);
  ASSERT_EQ(f.size(), std::size_t(17 * 9 * 33));
  double max_f = 0;
  for (std::int64_t k = 0; k < p.nz; ++k) {
    for (std::int64_t j = 0; j < p.ny; ++j) {
      for (std::int64_t i = 0; i < p.nx; ++i) {
        const double x = (double(i) + 0.5) / 17, y = (double(j) + 0.5) / 9,
                     z = (double(k) + 0.5) / 33;
        const double expected = 0.125 * (1 - std::cos(two_pi * x)) * (1 - std::cos(two_pi * y)) *
                                (1 - std::cos(two_pi * z));
        const float value = f[index_of(p, i, j, k)];
        ASSERT_NEAR(value, expected, float_eps * std::max(expected, 1e-30))
            << "at (" << i << ", " << j << ", " << k << ")";
        // analytic(t = 0) is the same field (its float rounding exactly).
        ASSERT_EQ(static_cast<float>(diffusion3d::analytic(p, i, j, k, 0.0)), value)
            << "at (" << i << ", " << j << ", " << k << ")";
        max_f = std::max(max_f, double(value));
      }
    }
  }
  EXPECT_LE(max_f, 1.0);
  EXPECT_GT(max_f, 0.9);  // near the centre (1 - cos) ~ 2 in each direction
  // The rms error of the initial field at t = 0 is its float rounding.
  EXPECT_LT(diffusion3d::rms_error(p, f.data(), 0.0), float_eps);
}

TEST(DiffusionProblemTest, AnalyticSolutionDecaysEachCosineAndRmsErrorIsTheRms) {
  const Problem p = problem({"nx=6", "ny=5", "nz=7", "steps=1"});
  const double t = 0.03, decay = std::exp(-0.1 * t * two_pi * two_pi);
  for (auto [i, j, k] : {std::array<std::int64_t, 3>{0, 0, 0}, {5, 4, 6}, {2, 3, 1}}) {
    const double x = (double(i) + 0.5) / 6, y = (double(j) + 0.5) / 5, z = (double(k) + 0.5) / 7;
    const double expected = 0.125 * (1 - decay * std::cos(two_pi * x)) *
                            (1 - decay * std::cos(two_pi * y)) * (1 - decay * std::cos(two_pi * z));
    EXPECT_NEAR(diffusion3d::analytic(p, i, j, k, t), expected, 1e-15);
  }
  // Long after: the mean, 0.125.
  EXPECT_NEAR(diffusion3d::analytic(p, 1, 2, 3, 100.0), 0.125, 1e-15);
  // rms_error: the analytic field itself is 0 (to its float rounding), an offset of 1e-3
  // everywhere is 1e-3, and 2e-3 in one cell of 210 is 2e-3 / sqrt(210).
  std::vector<float> f(std::size_t(p.points()));
  for (std::int64_t k = 0; k < p.nz; ++k) {
    for (std::int64_t j = 0; j < p.ny; ++j) {
      for (std::int64_t i = 0; i < p.nx; ++i) {
        f[index_of(p, i, j, k)] = static_cast<float>(diffusion3d::analytic(p, i, j, k, t));
      }
    }
  }
  EXPECT_LT(diffusion3d::rms_error(p, f.data(), t), float_eps);
  auto shifted = f;
  for (auto& v : shifted) v += 1e-3f;
  EXPECT_NEAR(diffusion3d::rms_error(p, shifted.data(), t), 1e-3, 2 * float_eps);
  auto one = f;
  one[index_of(p, 3, 2, 4)] += 2e-3f;
  EXPECT_NEAR(diffusion3d::rms_error(p, one.data(), t), 2e-3 / std::sqrt(210.0), 2 * float_eps);
}

// The test that does not trust verify(): the serial reference every variant is verified
// against, compared bit for bit with the stencil written here from the documentation.
TEST(DiffusionProblemTest, SerialReferenceIsTheDocumentedStencil) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=1"},
        std::vector<std::string>{"nx=2", "ny=2", "nz=2", "steps=1"},
        std::vector<std::string>{"nx=33", "ny=5", "nz=2", "steps=1"},
        std::vector<std::string>{"nx=5", "ny=3", "nz=4", "kappa=0.7", "dt=0.01", "steps=1"}}) {
    const Problem p = problem(overrides);
    for (std::int64_t steps : {0, 1, 2, 7}) {
      SCOPED_TRACE(testing::Message()
                   << p.nx << "x" << p.ny << "x" << p.nz << ", " << steps << " steps");
      const auto expected = stencil_by_hand(p, steps);
      const auto& reference = diffusion3d::reference_after(p, steps);
      ASSERT_EQ(reference.size(), expected.size());
      for (std::size_t n = 0; n < expected.size(); ++n) {
        ASSERT_EQ(reference[n], expected[n]) << "at cell " << n;
      }
    }
  }
  // One cell by hand, on a field that is not symmetric: a corner sees itself through three
  // walls, so (0, 0, 0) after one step is (cc + ce + cn + ct) f000 + cw f100 + cs f010 + cb f001.
  const Problem p = problem({"nx=3", "ny=4", "nz=5", "steps=1"});
  std::vector<float> f(std::size_t(p.points())), fn(f.size());
  for (std::size_t n = 0; n < f.size(); ++n) f[n] = float(n % 7) + 0.25f * float(n % 3);
  diffusion3d::step_planes(p, f.data(), fn.data(), 0, p.nz);
  const double f000 = f[0], f100 = f[1], f010 = f[3], f001 = f[12];
  const double corner = (double(p.cc) + p.ce + p.cn + p.ct) * f000 + double(p.cw) * f100 +
                        double(p.cs) * f010 + double(p.cb) * f001;
  EXPECT_NEAR(fn[0], corner, 8 * float_eps * 7);
  // An interior cell (1, 1, 1): its six neighbours.
  const auto c = [&](int i, int j, int k) { return double(f[index_of(p, i, j, k)]); };
  const double interior = p.cc * c(1, 1, 1) + p.ce * c(2, 1, 1) + p.cw * c(0, 1, 1) +
                          p.cn * c(1, 2, 1) + p.cs * c(1, 0, 1) + p.ct * c(1, 1, 2) +
                          p.cb * c(1, 1, 0);
  EXPECT_NEAR(fn[index_of(p, 1, 1, 1)], interior, 8 * float_eps * 7);
  // step_planes writes only the planes it is given.
  std::vector<float> part(f.size(), -1.0f);
  diffusion3d::step_planes(p, f.data(), part.data(), 2, 4);
  for (std::int64_t n = 0; n < p.points(); ++n) {
    const std::int64_t k = n / (p.nx * p.ny);
    if (k >= 2 && k < 4) {
      EXPECT_EQ(part[n], fn[n]) << n;
    } else {
      EXPECT_EQ(part[n], -1.0f) << n;
    }
  }
}

// The analytic error below a bound derived from the exact discrete solution (see
// discrete_solution and truncation_bound above).
TEST(DiffusionAnalyticTest, SerialMatchesTheExactDiscreteSolutionAndTheErrorIsTruncation) {
  struct Case {
    std::vector<std::string> overrides;
    std::int64_t steps;
  };
  // 16^3 to end time 0.01: dt = 1/256, 3 steps (t = 0.0117); 17 x 9 x 33 with 5 steps: every
  // direction its own spacing and eigenvalue; the small preset's 58 steps.
  for (const Case& c : {Case{{"nx=16", "ny=16", "nz=16", "end_time=0.01"}, 3},
                        Case{{"nx=17", "ny=9", "nz=33", "steps=5"}, 5}, Case{{}, 58}}) {
    const Params params = diffusion_params(c.overrides);
    const Problem p = diffusion3d::problem_of(params);
    SCOPED_TRACE(params.json().dump());
    ASSERT_EQ(p.steps, c.steps);
    const auto discrete = discrete_solution(p, p.steps);
    const auto& serial = diffusion3d::reference_after(p, p.steps);
    const double t = p.end_time();

    // The serial field is the discrete solution to float rounding. (The exact-coefficient
    // modes are checked against the initial field too: at s = 0 they are f0.)
    const auto at_zero = discrete_solution(p, 0);
    const auto f0 = diffusion3d::initial_field(p);
    double worst = 0, rms_truncation = 0, rms_serial = 0;
    for (std::int64_t n = 0; n < p.points(); ++n) {
      ASSERT_NEAR(at_zero[n], f0[n], float_eps) << n;
      worst = std::max(worst, std::abs(double(serial[n]) - discrete[n]));
    }
    EXPECT_LE(worst, rounding_bound(p.steps));
    EXPECT_LE(worst, 1e-5);

    // The rms error against the analytic solution is the rms of (discrete - analytic), the
    // truncation error, to within the same rounding (|rms(a) - rms(b)| <= max|a - b|).
    for (std::int64_t k = 0; k < p.nz; ++k) {
      for (std::int64_t j = 0; j < p.ny; ++j) {
        for (std::int64_t i = 0; i < p.nx; ++i) {
          const double exact = diffusion3d::analytic(p, i, j, k, t);
          const double d = discrete[index_of(p, i, j, k)] - exact;
          rms_truncation += d * d;
          const double e = double(serial[index_of(p, i, j, k)]) - exact;
          rms_serial += e * e;
        }
      }
    }
    rms_truncation = std::sqrt(rms_truncation / double(p.points()));
    rms_serial = std::sqrt(rms_serial / double(p.points()));
    const double reported = diffusion3d::rms_error(p, serial.data(), t);
    EXPECT_NEAR(reported, rms_serial, 1e-12);
    EXPECT_NEAR(reported, rms_truncation, rounding_bound(p.steps));

    // The bound: O(h^2) + O(dt) (truncation_bound). On 16^3 to t = 0.0117 it is 9.5e-4 (the
    // actual error 7.0e-5), on 17 x 9 x 33 3.0e-4 (9.3e-5), on the small preset to t = 0.1
    // 4.6e-3 (2.8e-4): an error within it is close to the continuous solution, whose
    // amplitudes are 0.125.
    const double bound = truncation_bound(p, p.steps);
    EXPECT_LT(bound, p.steps == 3 ? 1e-3 : 5e-3);
    EXPECT_LE(rms_truncation, bound);
    EXPECT_LE(reported, bound + rounding_bound(p.steps));
    EXPECT_GT(rms_truncation, 1e-3 * bound) << "the bound is not vacuous about a zero error";
  }
}

// The bound at the seed preset, without running its 1638 steps: the last step's change, from
// the exact discrete solution, is more than 4 times the bound, and the bound is more than 3 times
// the difference an H200 showed there (9.9e-6 for every GPU variant, GCC nvptx and CUDA alike).
TEST(DiffusionAnalyticTest, SeedBoundLiesBetweenTheGpuRoundingAndTheLastStep) {
  const Problem p = problem({}, "seed");
  ASSERT_EQ(p.steps, 1638);
  const auto last = discrete_solution(p, p.steps), before = discrete_solution(p, p.steps - 1);
  double change = 0;
  for (std::int64_t n = 0; n < p.points(); ++n) {
    change = std::max(change, std::abs(last[n] - before[n]));
  }
  const double tolerance = diffusion3d::original_tolerance(p.steps);
  SCOPED_TRACE(testing::Message() << "last step " << change << ", bound " << tolerance);
  EXPECT_GT(change, 4 * tolerance);
  EXPECT_GT(tolerance, 3 * 9.9e-6);
  EXPECT_GT(8 * float_eps * double(p.steps), change)
      << "a linear worst-case bound lets a step short through";
}

// Halving h (dt = 0.1 h^2 / kappa goes with it) divides the error by about 4: second order.
TEST(DiffusionAnalyticTest, ErrorIsSecondOrderInTheSpacing) {
  const Problem coarse = problem({"nx=16", "ny=16", "nz=16", "steps=4"});
  const Problem fine = problem({"nx=32", "ny=32", "nz=32", "steps=16"});
  ASSERT_DOUBLE_EQ(coarse.end_time(), fine.end_time());  // 4/256 = 16/1024
  const double e_coarse = diffusion3d::rms_error(
      coarse, diffusion3d::reference_after(coarse, 4).data(), coarse.end_time());
  const double e_fine =
      diffusion3d::rms_error(fine, diffusion3d::reference_after(fine, 16).data(), fine.end_time());
  EXPECT_GT(e_coarse / e_fine, 3.5) << e_coarse << " vs " << e_fine;
  EXPECT_LT(e_coarse / e_fine, 4.5) << e_coarse << " vs " << e_fine;
}

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
      instance->setup();
      instance->reset();
      instance->run();
      instance->finish();
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

// ---- verify() itself ---------------------------------------------------------------------------

class ReachableInstance : public diffusion3d::DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void run() override {
    iterate(f_.data(), fn_.data(),
            [&](const float* f, float* fn) { diffusion3d::step_planes(p_, f, fn, 0, p_.nz); });
  }
  float* result() { return const_cast<float*>(result_); }
  const Problem& problem() const { return p_; }
};

// verify() must accept the serial answer and reject a wrong value anywhere: corners, faces and
// the last cell included, not only the centre that corrupt_result() touches.
TEST(DiffusionVerifyTest, RejectsAWrongValueAnywhereInTheGrid) {
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{"nx=17", "ny=9", "nz=33", "steps=5"},
        std::vector<std::string>{"nx=2", "ny=2", "nz=2", "steps=4"}}) {
    ReachableInstance instance(diffusion_params(overrides));
    instance.setup();
    instance.reset();
    EXPECT_FALSE(instance.verify().ok) << "no run, no result";
    instance.run();
    instance.finish();
    const auto good = instance.verify();
    ASSERT_TRUE(good.ok) << good.detail;
    const auto& p = instance.problem();
    EXPECT_EQ(good.outputs["steps"].get<std::int64_t>(), p.steps);
    EXPECT_EQ(good.outputs["max_diff_vs_original"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(good.outputs["time"].get<double>(), double(p.steps) * p.dt);
    EXPECT_NEAR(good.outputs["error"].get<double>(),
                diffusion3d::rms_error(p, instance.result(), p.end_time()), 1e-15);
    // Above the tolerance (7.75 eps sqrt(steps) <= 2.1e-6), far below the values.
    const float delta = 1e-4f;
    for (std::int64_t n : {std::int64_t(0), p.nx - 1, p.nx * p.ny - 1, p.points() / 2 + 1,
                           index_of(p, 0, p.ny - 1, p.nz - 1), p.points() - 1}) {
      SCOPED_TRACE(testing::Message() << "perturbed cell " << n);
      float* field = instance.result();
      const float saved = field[n];
      field[n] = saved + delta;
      const auto bad = instance.verify();
      EXPECT_FALSE(bad.ok) << bad.detail;
      EXPECT_NEAR(bad.outputs["max_diff_vs_original"].get<double>(), delta, 1e-6);
      EXPECT_EQ(bad.outputs["difference"], bad.outputs["max_diff_vs_original"]);
      EXPECT_GT(bad.outputs["difference"].get<double>(), bad.outputs["tolerance"].get<double>());
      field[n] = saved - delta;
      EXPECT_FALSE(instance.verify().ok) << "too low accepted";
      field[n] = std::numeric_limits<float>::quiet_NaN();
      const auto nan = instance.verify();
      EXPECT_FALSE(nan.ok) << "NaN accepted";
      EXPECT_EQ(nan.outputs["difference"].get<double>(), std::numeric_limits<double>::infinity());
      field[n] = std::numeric_limits<float>::infinity();
      EXPECT_FALSE(instance.verify().ok) << "inf accepted";
      field[n] = saved;
    }
    EXPECT_TRUE(instance.verify().ok);
  }
}

// ---- the workload's own checks -----------------------------------------------------------------

TEST(DiffusionWorkloadTest, ValidateRefusesMoreThan2To31CellsWithoutOverflowing) {
  // 2 * 2 * 536870911 = 2^31 - 4: accepted; 2 * 2 * 2^29 = 2^31: refused.
  EXPECT_EQ(validate_error({"nx=2", "ny=2", "nz=536870911", "steps=1"}), "");
  const std::string at = validate_error({"nx=2", "ny=2", "nz=536870912", "steps=1"});
  EXPECT_NE(at.find("nz=536870912"), std::string::npos) << at;
  EXPECT_NE(validate_error({"nx=2048", "ny=1024", "nz=1024"}), "");
  EXPECT_EQ(validate_error({"nx=1290", "ny=1290", "nz=1290", "steps=1"}), "");
  // Products that wrap around in std::int64_t.
  EXPECT_NE(validate_error({"nx=2097152", "ny=2097152", "nz=2097152"}), "");
  EXPECT_NE(validate_error({"nx=9223372036854775807", "ny=2", "nz=2"}), "");
  EXPECT_NE(validate_error({"nx=2", "ny=2", "nz=9223372036854775807"}), "");
  EXPECT_NE(validate_error({"nx=4294967296", "ny=4294967296", "nz=2"}), "");
}

TEST(DiffusionWorkloadTest, EndTimeTooLongIsRefusedAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  // dt = 1/576 on the small preset: 1e9 / dt = 5.8e11 steps; dt = 1e-12: 1e12 steps.
  const std::string long_run = validate_error({"end_time=1e9"});
  EXPECT_NE(long_run.find("end_time"), std::string::npos) << long_run;
  EXPECT_NE(validate_error({"end_time=1", "dt=1e-12"}), "");
  EXPECT_NE(validate_error({"end_time=1e300", "dt=1e-300"}), "");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  // Shorter than half a step: no step at all.
  const std::string none = validate_error({"end_time=1e-9"});
  EXPECT_NE(none.find("end_time"), std::string::npos) << none;
  EXPECT_EQ(problem({"end_time=0.0009"}).steps, 1);  // just over dt/2 = 0.000868
}

TEST(DiffusionWorkloadTest, MemoryEstimatesCountTheFields) {
  const Params params = diffusion_params({"nx=17", "ny=9", "nz=33", "steps=1"});
  // The MPI steps' field on one rank: rows of 17 cells in a shell, padded to 64 floats (32
  // before the first cell, a multiple of 32 in all), 11 rows a plane, 35 planes.
  const double shell = 64.0 * 11 * 35 - 17 * 9 * 33;
  // Host: three fields in the instance plus the reference and the field it steps into, and two
  // fields' shells.
  EXPECT_EQ(diffusion_workload().host_bytes(params), 4 * (5.0 * 17 * 9 * 33 + 2 * shell));
  // Device: the initial field and the two being stepped, each in its shell.
  EXPECT_EQ(diffusion_workload().device_bytes(params), 4 * (3.0 * 17 * 9 * 33 + 3 * shell));
}

// ---- every registered variant ------------------------------------------------------------------

// The ladder's names and order come from ladder.json (tests/registry_test.cpp); here, what every
// step shares: its family and the step model.
TEST(DiffusionLadderTest, EveryStepIsOnTheDiffusionLadderWithTheStepModel) {
  ASSERT_FALSE(diffusion_variant_names().empty());
  EXPECT_EQ(diffusion_variant_names().front(), "original");
  int step = 0;
  for (const auto& name : diffusion_variant_names()) {
    const Variant& v = diffusion_variant(name);
    EXPECT_EQ(v.family, "diffusion") << name;
    EXPECT_GT(v.step, step) << name;
    EXPECT_EQ(v.model.resource, Resource::memory_bandwidth) << name;
    step = v.step;
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
    ASSERT_EQ(r.status, Status::verified) << r.error;
    EXPECT_EQ(r.params.json(), params.json());
    EXPECT_EQ(r.place, expected_place());
    ASSERT_EQ(r.times_s.size(), static_cast<std::size_t>(c.reps));
    EXPECT_LE(r.min_s, r.median_s);
    EXPECT_LE(r.median_s, r.max_s);
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
    if (variant().backend == Backend::serial || variant().backend == Backend::openmp) {
      EXPECT_FALSE(r.transfer_s.has_value());
    }
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
    instance->setup();
    instance->reset();
    instance->run();
    instance->finish();
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
        EXPECT_EQ(diffusion3d::problem_of(params).async, std::string(async) == "async=1");
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

// ---- the command line --------------------------------------------------------------------------

TEST(DiffusionCliTest, RunJsonVerifiesEveryAvailableVariantOnTheSmallPreset) {
  const Outcome o = run_acclab({"run", "diffusion3d", "--format", "json"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_TRUE(o.err.empty()) << o;
  auto doc = parse_json(o.out);
  EXPECT_EQ(doc["workload"], "diffusion3d");
  EXPECT_EQ(doc["preset"], "small");
  ASSERT_EQ(doc["results"].size(), diffusion_variant_names().size());
  const Problem p = problem({});
  int verified = 0;
  for (auto& r : doc["results"]) {
    SCOPED_TRACE(r["variant"].dump());
    const auto& params = r["params"];
    EXPECT_EQ(params["nx"], 24);
    EXPECT_EQ(params["ny"], 20);
    EXPECT_EQ(params["nz"], 16);
    EXPECT_EQ(params["kappa"], 0.1);
    EXPECT_EQ(params["end_time"], 0.1);
    EXPECT_FALSE(params.contains("steps")) << params.dump();
    if (r["status"] == "unavailable") {
      EXPECT_EQ(r["backend"], "cuda") << "only CUDA is unavailable without a GPU";
      EXPECT_TRUE(r["note"].is_string());
      continue;
    }
    EXPECT_EQ(r["status"], "verified") << r["error"];
    const auto& out = r["outputs"];
    EXPECT_EQ(out["steps"], 58);
    ASSERT_TRUE(out["time"].is_number()) << out.dump();
    EXPECT_DOUBLE_EQ(out["time"].get<double>(), 58.0 / 576);
    ASSERT_TRUE(out["error"].is_number()) << out.dump();
    EXPECT_GT(out["error"].get<double>(), 0.0);
    EXPECT_LE(out["error"].get<double>(),
              truncation_bound(p, 58) + rounding_bound(58) + diffusion3d::original_tolerance(58));
    ASSERT_TRUE(r["gflops"].is_number());
    EXPECT_GT(r["gflops"].get<double>(), 0.0);
    const std::set<std::string> copies = {"acc_kernels", "acc_loop", "acc_data_present",
                                          "omp_target_map", "omp_target_data"};
    const bool copying = copies.count(r["variant"].get<std::string>()) > 0;
    EXPECT_EQ(r["transfer_s"].is_number(), copying) << r["transfer_s"];
    EXPECT_EQ(r["transfer_share"].is_number(), copying) << r["transfer_share"];
    ++verified;
  }
  EXPECT_GE(verified, 2);  // at least original and openmp
}

TEST(DiffusionCliTest, TablePrintsGflopsAndTheError) {
  const Outcome o = run_acclab({"run", "diffusion3d", "--variant", "original", "--reps", "1"});
  ASSERT_EQ(o.status, 0) << o;
  EXPECT_NE(o.out.find("GFLOP/s"), std::string::npos) << o;
  EXPECT_NE(o.out.find("GB/s"), std::string::npos) << o;
  EXPECT_NE(o.out.find("error = "), std::string::npos) << o;
  EXPECT_NE(o.out.find("steps = 58"), std::string::npos) << o;
  EXPECT_NE(o.out.find("verified"), std::string::npos) << o;
  // The original's row has a GFLOP/s figure: the columns end "GFLOP/s GB/s %limit status"
  // (the times before them have units, so count back from the status).
  std::istringstream lines(o.out);
  std::string line;
  std::vector<std::string> header, row;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::vector<std::string> tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    if (line.find("GFLOP/s") != std::string::npos) header = tokens;
    if (tokens.size() > 2 && tokens[0] == "diffusion" && tokens[1] == "original") row = tokens;
  }
  ASSERT_FALSE(header.empty()) << o;
  ASSERT_FALSE(row.empty()) << o;
  const auto column = [](const std::vector<std::string>& tokens, const std::string& name) {
    return std::size_t(std::find(tokens.begin(), tokens.end(), name) - tokens.begin());
  };
  ASSERT_EQ(column(header, "status") - column(header, "GFLOP/s"), 3u) << o;
  const std::size_t status = column(row, "verified");
  ASSERT_LT(status, row.size()) << o;
  ASSERT_GE(status, 3u) << o;
  EXPECT_GT(std::stod(row[status - 3]), 0.0) << o;
}

TEST(DiffusionCliTest, LadderReportsSpeedupsAgainstOriginal) {
  const Outcome o =
      run_acclab({"ladder", "diffusion3d", "--variant", "original,openmp", "--format", "json"});
  test::expect_ladder_of_two(o, "original", "openmp");
}

// ---- bad input: status 2, one line naming the parameter ---------------------------------------

struct BadInput {
  std::string name;
  std::vector<std::string> sets;   // each passed as --set
  std::vector<std::string> names;  // what the stderr line must contain
};

void PrintTo(const BadInput& c, std::ostream* os) {
  *os << "acclab run diffusion3d";
  for (const auto& s : c.sets) *os << " --set " << s;
}

class DiffusionCliBadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(DiffusionCliBadInputTest, ExitsTwoWithOneLineNamingIt) {
  const Outcome o =
      run_acclab(test::run_with_sets("diffusion3d", GetParam().sets), std::chrono::seconds(60));
  EXPECT_TRUE(is_usage_error(o, GetParam().names));
  EXPECT_EQ(o.err.rfind("acclab: ", 0), 0u) << o;
  // Refused before any field or probe: at once, and small.
  EXPECT_LT(o.wall_s, 5.0) << o;
  EXPECT_LT(o.max_rss_kib, 128 * 1024) << "peak memory " << o.max_rss_kib << " KiB";
}

// The stability bound on the small preset (24 x 20 x 16, kappa = 0.1):
// 0.5 / (0.1 (24^2 + 20^2 + 16^2)) = 0.5 / 123.2 = 0.00405844..., printed as %g.
INSTANTIATE_TEST_SUITE_P(
    DiffusionBadInput, DiffusionCliBadInputTest,
    ::testing::Values(
        BadInput{"Nx1", {"nx=1"}, {"nx=1"}}, BadInput{"Ny0", {"ny=0"}, {"ny=0"}},
        BadInput{"NzNegative", {"nz=-3"}, {"nz=-3"}},
        BadInput{"KappaZero", {"kappa=0"}, {"kappa=0"}},
        BadInput{"KappaNegative", {"kappa=-1"}, {"kappa=-1"}},
        BadInput{"EndTimeZero", {"end_time=0"}, {"end_time=0"}},
        BadInput{"EndTimeNegative", {"end_time=-1"}, {"end_time=-1"}},
        BadInput{"EndTimeShorterThanHalfAStep", {"end_time=1e-9"}, {"end_time"}},
        BadInput{"DtZero", {"dt=0"}, {"dt=0"}},
        BadInput{"DtAboveStability", {"dt=0.01"}, {"dt=0.01", "stability", "0.00405844"}},
        BadInput{"DtJustAboveStability", {"dt=0.00406"}, {"dt=0.00406", "stability", "0.00405844"}},
        BadInput{"DtAboveStabilityNonCubic",
                 {"nx=17", "ny=9", "nz=33", "dt=0.01"},
                 {"dt=0.01", "stability", "17x9x33"}},
        BadInput{"StepsZero", {"steps=0"}, {"steps=0"}},
        BadInput{"Async2", {"async=2"}, {"async=2"}},
        BadInput{"CudaPlanes48", {"cuda_planes=48"}, {"cuda_planes=48"}},
        BadInput{"CudaPlanesNegative", {"cuda_planes=-16"}, {"cuda_planes=-16"}},
        BadInput{"CudaTileY32", {"cuda_tile_y=32"}, {"cuda_tile_y=32"}},
        BadInput{"CudaTileYZero", {"cuda_tile_y=0"}, {"cuda_tile_y=0"}},
        // The loop shapes are steps of the ladder (acc_flat, ...), no longer a parameter.
        BadInput{"AccShapeIsNoParameter", {"acc_shape=flat"}, {"acc_shape"}},
        BadInput{"Grid4000Cubed", {"nx=4000", "ny=4000", "nz=4000"}, {"nx=4000"}},
        BadInput{"TwoTo31Cells", {"nx=2048", "ny=1024", "nz=1024"}, {"nx=2048", "nz=1024"}},
        BadInput{"ProductOverflows", {"nx=2097152", "ny=2097152", "nz=2097152"}, {"nx=2097152"}},
        BadInput{"EndTimeOver2e9Steps", {"end_time=1e9"}, {"end_time", "2e9"}},
        BadInput{"TinyDtOver2e9Steps", {"end_time=1", "dt=1e-12"}, {"end_time", "2e9"}}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(DiffusionCliUsageTest, TooLargeForHostMemoryFailsQuicklyBeforeAllocating) {
  // 1290^3 = 2.15e9 cells (within 2^31), 5 float fields: about 40 GiB.
  const Params params = diffusion_params({"nx=1290", "ny=1290", "nz=1290", "steps=1"});
  Machine machine;
  if (machine.host().available_bytes <= 0 ||
      machine.host().available_bytes >= diffusion_workload().host_bytes(params)) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  const Outcome o = run_acclab({"run", "diffusion3d", "--set", "nx=1290", "--set", "ny=1290",
                                "--set", "nz=1290", "--set", "steps=1"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"host memory", "1290"}));
  EXPECT_LT(o.wall_s, 5.0) << o;
  EXPECT_LT(o.max_rss_kib, 128 * 1024) << "peak memory " << o.max_rss_kib << " KiB";
}

// A positive but subnormal kappa (1e-320) makes the default dt = 0.1 min(h^2) / kappa and the
// stability limit both overflow to inf, so `dt > limit` alone cannot catch it: it must be
// refused as bad input (exit 2, one line), not run into NaN.
TEST(DiffusionCliUsageTest, SubnormalKappaIsRefusedNotRunIntoNaN) {
  const std::string message = validate_error({"kappa=1e-320", "steps=1"});
  EXPECT_NE(message, "") << "accepted: dt = " << problem({"kappa=1e-320", "steps=1"}).dt;
  const Outcome o = run_acclab({"run", "diffusion3d", "--variant", "original", "--reps", "1",
                                "--set", "kappa=1e-320", "--set", "steps=1"},
                               std::chrono::seconds(30));
  EXPECT_TRUE(is_usage_error(o, {"1e-320"}));
}

// verify() builds the serial reference (two fields) while the instance still holds its three:
// host_bytes must count 5 fields, and the measured peak must stay within it. (400 x 400 x 256:
// 5 fields are 800 MiB, above the ~530 MiB the host bandwidth probe itself touches.)
TEST(DiffusionCliUsageTest, HostBytesCoverThePeakOfARun) {
  const Params params = diffusion_params({"nx=400", "ny=400", "nz=256", "steps=1"});
  const double host_bytes = diffusion_workload().host_bytes(params);
  Machine machine;
  if (machine.host().available_bytes < 2 * host_bytes) GTEST_SKIP() << "not enough memory";
  const Outcome o =
      run_acclab({"run", "diffusion3d", "--variant", "original", "--reps", "1", "--set", "nx=400",
                  "--set", "ny=400", "--set", "nz=256", "--set", "steps=1"});
  ASSERT_EQ(o.status, 0) << o;
  // 64 MiB for the process itself.
  EXPECT_LE(double(o.max_rss_kib) * 1024, host_bytes + 64.0 * 1024 * 1024)
      << "peak " << o.max_rss_kib << " KiB, host_bytes " << host_bytes / 1024 << " KiB";
}

}  // namespace
}  // namespace acclab
