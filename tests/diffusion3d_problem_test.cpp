// diffusion3d: the course's openacc_diffusion, df/dt = kappa laplacian(f) on the unit cube, an
// explicit 7-point stencil over cell centres with zero-flux walls, without the harness:
//   - the problem's own pieces (seed preset, time step and step count, coefficients, initial
//     field, analytic solution, stability bound, serial stencil, verify()) checked against
//     values computed here;
//   - the exact solution of the discrete scheme (a sum of 8 separable cosine modes, the
//     workload's discrete_solution), checked here against the scheme's definition: the serial
//     result matches it to float rounding, and its distance from the analytic solution is
//     within truncation_bound;
//   - the workload's own checks.
#include <gtest/gtest.h>

#include "diffusion3d_test.hpp"

namespace acclab::diffusion3d_test {
namespace {

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
}

#ifdef ACCLAB_HAVE_CUDA
// The cuda step's own knobs (cuda_host.cpp), read and checked there.
TEST(DiffusionProblemTest, CudaTuningsDefaultToTheMeasuredShapes) {
  const auto tunings = [](const std::vector<std::string>& overrides,
                          const std::string& preset = "small") {
    return diffusion3d::cuda_tunings().read(diffusion_params(overrides, preset));
  };
  for (const char* preset : {"seed", "small", "large"}) {
    SCOPED_TRACE(preset);
    const diffusion3d::CudaTunings t = tunings({}, preset);
    EXPECT_EQ(t.planes, 4);
    EXPECT_EQ(t.tile_y, 4);
    EXPECT_TRUE(t.x4);
    EXPECT_TRUE(t.pdl);
  }
  const diffusion3d::CudaTunings t = tunings({"cuda_planes=0", "cuda_tile_y=16"});
  EXPECT_EQ(t.planes, 0);
  EXPECT_EQ(t.tile_y, 16);
  EXPECT_FALSE(tunings({"cuda_x4=0"}).x4);
  EXPECT_FALSE(tunings({"cuda_pdl=0"}).pdl);
  for (const char* step : {"cuda", "mpi_cuda"}) {
    if (!has_variant(step)) continue;
    SCOPED_TRACE(step);
    for (int planes : diffusion3d::cuda_planes_choices) {
      EXPECT_EQ(check_error(step, {"cuda_planes=" + std::to_string(planes)}), "") << planes;
    }
    for (int tile_y : diffusion3d::cuda_tile_y_choices) {
      EXPECT_EQ(check_error(step, {"cuda_tile_y=" + std::to_string(tile_y)}), "") << tile_y;
    }
    // In range for the parameter, but no shape the kernel was compiled for.
    const std::string planes = check_error(step, {"cuda_planes=48"});
    EXPECT_NE(planes.find("cuda_planes=48: expected 4, 8"), std::string::npos) << planes;
    const std::string tile_y = check_error(step, {"cuda_tile_y=12"});
    EXPECT_NE(tile_y.find("cuda_tile_y=12: expected 4, 8 or 16"), std::string::npos) << tile_y;
    EXPECT_NE(check_error(step, {"cuda_x4=2"}).find("cuda_x4=2"), std::string::npos);
    EXPECT_NE(check_error(step, {"cuda_pdl=2"}).find("cuda_pdl=2"), std::string::npos);
    // The check belongs to the cuda steps: a step without those knobs never sees them.
    EXPECT_EQ(check_error("original", {"cuda_planes=48"}), "");
  }
}
#endif

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

// Validation counts the steps without taking them: a count past 2e9 is refused by arithmetic
// (a loop over 5.8e11 steps would run into the test's timeout).
TEST(DiffusionWorkloadTest, EndTimeTooLongIsRefusedAtOnce) {
  // dt = 1/576 on the small preset: 1e9 / dt = 5.8e11 steps; dt = 1e-12: 1e12 steps.
  const std::string long_run = validate_error({"end_time=1e9"});
  EXPECT_NE(long_run.find("end_time"), std::string::npos) << long_run;
  EXPECT_NE(validate_error({"end_time=1", "dt=1e-12"}), "");
  EXPECT_NE(validate_error({"end_time=1e300", "dt=1e-300"}), "");
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

}  // namespace
}  // namespace acclab::diffusion3d_test
