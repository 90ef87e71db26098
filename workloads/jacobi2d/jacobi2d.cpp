// Problem definition, parameters and verification shared by every jacobi2d variant.
#include "workloads/jacobi2d/jacobi2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "core/error.hpp"

namespace acclab::jacobi2d {

Problem problem_of(const Params& params) {
  Problem p;
  p.rows = params.integer("rows");
  p.cols = params.integer("cols");
  p.height = params.real("height");
  p.width = params.real("width");
  p.iters = params.integer("iters");
  p.tol_mode = params.has("tol");
  p.tol = p.tol_mode ? params.real("tol") : 0.0;
  p.check_every = params.integer("check_every");
  p.async = params.integer("async") != 0;
  // As the seed: hx = height / row, wy = width / col with row = rows - 1, col = cols - 1.
  p.hx = static_cast<float>(p.height / static_cast<double>(p.rows - 1));
  p.wy = static_cast<float>(p.width / static_cast<double>(p.cols - 1));
  p.hx2 = p.hx * p.hx;
  p.wy2 = p.wy * p.wy;
  const float f = -4.0f;
  p.c1f = p.hx2 * p.wy2 * f;
  p.c2 = static_cast<float>(1.0 / (2.0 * (double(p.hx2) + double(p.wy2))));
  return p;
}

Workload make_workload() {
  Workload w;
  w.name = "jacobi2d";
  w.description = "seed jacobi-poisson: Jacobi sweeps for laplacian(u) = 4, u = x^2 + y^2";
  w.params = {
      {.key = "rows",
       .help = "grid points along x, boundaries included",
       .presets = {{"seed", "8192"}, {"small", "258"}, {"large", "16384"}},
       .minimum = 3},
      {.key = "cols",
       .help = "grid points along y, boundaries included",
       .presets = {{"seed", "1024"}, {"small", "130"}, {"large", "16384"}},
       .minimum = 3},
      {.key = "height",
       .type = ParamType::real,
       .help = "extent along x",
       .presets = {{"seed", "1"}, {"small", "1"}, {"large", "1"}},
       .minimum = 0},
      {.key = "width",
       .type = ParamType::real,
       .help = "extent along y",
       .presets = {{"seed", "2"}, {"small", "2"}, {"large", "2"}},
       .minimum = 0},
      {.key = "iters",
       .help = "sweeps (in tol mode: the most sweeps allowed)",
       .presets = {{"seed", "100"}, {"small", "50"}, {"large", "100"}}},
      {.key = "tol",
       .type = ParamType::real,
       .help = "optional: sweep until the max-norm change falls below tol",
       .presets = {{"seed", ""}, {"small", ""}, {"large", ""}},
       .minimum = 0},
      {.key = "check_every",
       .help = "sweeps between two convergence checks in tol mode",
       .presets = {{"seed", "10"}, {"small", "10"}, {"large", "10"}}},
      {.key = "async",
       .help = "acc_tuned only: 1 queues the sweeps asynchronously, 0 waits for each",
       .presets = {{"seed", "1"}, {"small", "1"}, {"large", "1"}},
       .minimum = 0},
  };
  w.validate = [](const Params& params) {
    const std::int64_t rows = params.integer("rows"), cols = params.integer("cols");
    // Indices are 32-bit ints in the GPU kernels: fewer than 2^31 points.
    constexpr std::int64_t max_points = (std::int64_t(1) << 31) - 1;
    if (cols > max_points / rows) {
      throw UsageError(fmt::format("--set rows={} cols={}: 2^31 grid points or more (at most {})",
                                   rows, cols, max_points));
    }
    // The float arithmetic must stay in range: spacings squared and their product normal,
    // u = x^2 + y^2 finite.
    const Problem p = problem_of(params);
    const float umax = static_cast<float>(p.height * p.height + p.width * p.width);
    auto normal = [](float x) { return std::isnormal(x); };
    if (!normal(p.hx2) || !normal(p.wy2) || !normal(p.c1f) || !normal(p.c2) || !normal(umax)) {
      throw UsageError(fmt::format(
          "--set height={} width={}: outside float range on a {}x{} grid (spacing squared {:.3g} "
          "and {:.3g}, their product {:.3g}, largest u {:.3g})",
          p.height, p.width, rows, cols, p.hx2, p.wy2, p.hx2 * p.wy2, umax));
    }
    if (params.has("tol") && params.integer("check_every") > params.integer("iters")) {
      throw UsageError(
          fmt::format("--set check_every={}: more than iters={}, so tol would never "
                      "be checked",
                      params.integer("check_every"), params.integer("iters")));
    }
    if (params.integer("async") > 1) {
      throw UsageError(fmt::format("--set async={}: expected 0 or 1", params.integer("async")));
    }
  };
  // Two float grids and the initial one kept for resets, plus, at verification, the cached
  // serial reference and the grid it sweeps into.
  w.host_bytes = [](const Params& params) {
    return 5.0 * sizeof(float) * params.integer("rows") * params.integer("cols");
  };
  // Two grids and the initial one on the device.
  w.device_bytes = [](const Params& params) {
    return 3.0 * sizeof(float) * params.integer("rows") * params.integer("cols");
  };
  return w;
}

std::vector<float> initial_grid(const Problem& p) {
  std::vector<float> u(static_cast<std::size_t>(p.points()), 0.0f);
  auto uval = [](float x, float y) { return x * x + y * y; };
  const std::int64_t last_row = p.rows - 1, last_col = p.cols - 1;
  for (std::int64_t ix = 0; ix <= last_row; ++ix) {
    u[ix * p.cols] = uval(ix * p.hx, 0.0f);
    u[ix * p.cols + last_col] = uval(ix * p.hx, last_col * p.wy);
  }
  for (std::int64_t jy = 0; jy <= last_col; ++jy) {
    u[jy] = uval(0.0f, jy * p.wy);
    u[last_row * p.cols + jy] = uval(last_row * p.hx, jy * p.wy);
  }
  return u;
}

double jacobi_spectral_radius(const Problem& p) {
  const double hx2 = p.hx2, wy2 = p.wy2;
  return (wy2 * std::cos(std::numbers::pi / double(p.rows - 1)) +
          hx2 * std::cos(std::numbers::pi / double(p.cols - 1))) /
         (hx2 + wy2);
}

double converged_error_bound(const Problem& p, double residual) {
  const double rho = jacobi_spectral_radius(p);
  const double umax = p.height * p.height + p.width * p.width;
  const double eps = std::numeric_limits<float>::epsilon();
  return std::sqrt(double(p.interior())) / (1.0 - rho) * (rho * residual + 4.0 * eps * umax);
}

JacobiInstance::JacobiInstance(const Params& params) : p_(problem_of(params)) {}

void JacobiInstance::setup() {
  initial_ = initial_grid(p_);
  u0_ = initial_;
  u1_ = initial_;
}

void JacobiInstance::reset() {
  std::memcpy(u0_.data(), initial_.data(), initial_.size() * sizeof(float));
  std::memcpy(u1_.data(), initial_.data(), initial_.size() * sizeof(float));
}

Verification JacobiInstance::verify() {
  Verification v;
  if (!result_) {
    v.detail = "no result";
    return v;
  }
  // Error against the exact solution x^2 + y^2, in double.
  double max_error = 0;
  for (std::int64_t ix = 0; ix < p_.rows; ++ix) {
    const double x = double(ix) * p_.hx;
    for (std::int64_t jy = 0; jy < p_.cols; ++jy) {
      const double y = double(jy) * p_.wy;
      const double error = std::abs(result_[ix * p_.cols + jy] - (x * x + y * y));
      if (!(error <= max_error)) {  // a NaN counts as an infinite error
        max_error = std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
      }
    }
  }
  v.outputs["sweeps"] = sweeps_;
  v.outputs["max_error"] = max_error;
  const double umax = p_.height * p_.height + p_.width * p_.width;
  const double eps = std::numeric_limits<float>::epsilon();

  if (p_.tol_mode) {
    v.outputs["residual"] = residual_;
    if (!(residual_ >= 0 && residual_ < p_.tol)) {
      v.detail = fmt::format("not converged: max change {:.3g} after {} sweeps, tol {:.3g}",
                             residual_, sweeps_, p_.tol);
      return v;
    }
    // The bound against the exact solution holds but is loose (1/(1 - rho) is large), so the
    // grid is also compared with the serial reference after the same number of sweeps, below.
    const double bound = converged_error_bound(p_, residual_);
    if (!(max_error <= bound)) {
      v.detail = fmt::format("converged in {} sweeps but max |u - exact| = {:.3g} > bound {:.3g}",
                             sweeps_, max_error, bound);
      return v;
    }
  }

  const auto& reference = reference_after(p_, sweeps_);
  double max_diff = 0;
  std::int64_t worst = 0;
  for (std::int64_t i = 0; i < p_.points(); ++i) {
    const double diff = std::abs(double(result_[i]) - double(reference[i]));
    if (!(diff <= max_diff)) {  // also catches NaN
      max_diff = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff;
      worst = i;
    }
  }
  const double bound = 4.0 * eps * umax * double(sweeps_);
  v.ok = max_diff <= bound;
  v.outputs["max_diff_vs_serial"] = max_diff;
  v.detail = fmt::format(
      "{}max |u - serial| = {:.3g} at ({}, {}) {} bound 4 eps |u|max sweeps = {:.3g}",
      p_.tol_mode ? fmt::format("converged in {} sweeps; ", sweeps_) : std::string(), max_diff,
      worst / p_.cols, worst % p_.cols, v.ok ? "<=" : ">", bound);
  return v;
}

void JacobiInstance::corrupt_result() {
  if (!result_) return;
  // One interior point off by far more than any rounding.
  auto* grid = const_cast<float*>(result_);
  grid[(p_.rows / 2) * p_.cols + p_.cols / 2] += 1.0f;
}

}  // namespace acclab::jacobi2d
