// The problem and parameters shared by every jacobi2d variant; verify.cpp checks their grids.
#include "workloads/jacobi2d/jacobi2d.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::jacobi2d {

namespace {

// iters when it is not given in iters mode: the seed's.
constexpr std::int64_t default_sweeps = 100;

// The sweep's float coefficients from the grid and its extents.
void set_coefficients(Problem& p) {
  // As the seed: hx = height / row, wy = width / col with row = rows - 1, col = cols - 1.
  p.hx = static_cast<float>(p.height / static_cast<double>(p.rows - 1));
  p.wy = static_cast<float>(p.width / static_cast<double>(p.cols - 1));
  p.hx2 = p.hx * p.hx;
  p.wy2 = p.wy * p.wy;
  const float f = -4.0f;
  p.c1f = p.hx2 * p.wy2 * f;
  p.c2 = static_cast<float>(1.0 / (2.0 * (double(p.hx2) + double(p.wy2))));
}

// Whether the sweep's float arithmetic stays in range: the spacings squared, their product and
// c2 normal, u = x^2 + y^2 finite, and the sweep's largest intermediate, c1f plus the weighted
// neighbour sums before the product with c2 (at most |c1f| + 2 (hx^2 + wy^2) |u|max, as the
// iterates stay within the boundary's values), finite with a factor 4 to spare for the order a
// compiler or GPU sums in.
bool in_float_range(const Problem& p) {
  constexpr double float_max = std::numeric_limits<float>::max();
  const double umax = p.umax();
  const double largest = std::abs(double(p.c1f)) + 2 * (double(p.hx2) + double(p.wy2)) * umax;
  return std::isnormal(p.hx2) && std::isnormal(p.wy2) && std::isnormal(p.c1f) &&
         std::isnormal(p.c2) && std::isnormal(static_cast<float>(umax)) && 4 * largest <= float_max;
}

// The extents `x` (height, or width where `along_height` is false) in range with the other
// extent of `p` as it is, as [least, most] printed to 3 digits and rounded inward; nothing if
// there are none. In range is one interval of x: each bound above is monotonic in x.
std::optional<std::pair<double, double>> extent_range(Problem p, bool along_height) {
  const auto ok = [&](double x) {
    (along_height ? p.height : p.width) = x;
    set_coefficients(p);
    return in_float_range(p);
  };
  // Float's range spans 1e-45 to 3.4e38: the extents that keep a spacing's square normal on
  // grids up to 2^31 points lie within 1e-20 to 1e29.
  std::optional<double> first, last;
  for (double e = -30; e <= 30; e += 0.25) {
    if (ok(std::pow(10.0, e))) {
      if (!first) first = e;
      last = e;
    }
  }
  if (!first) return std::nullopt;
  // Bisection in log10 between the last sample out and the first in (and the last in and the
  // first out).
  const auto edge = [&](double in, double out) {
    for (int i = 0; i < 60; ++i) {
      const double mid = (in + out) / 2;
      (ok(std::pow(10.0, mid)) ? in : out) = mid;
    }
    return std::pow(10.0, in);
  };
  double least = edge(*first, *first - 0.25), most = edge(*last, *last + 0.25);
  const auto digits = [](double x, bool up) {
    const double scale = std::pow(10.0, std::floor(std::log10(x)) - 2);
    return (up ? std::ceil(x / scale) : std::floor(x / scale)) * scale;
  };
  if (ok(digits(least, true))) least = digits(least, true);
  if (ok(digits(most, false))) most = digits(most, false);
  return std::pair{least, most};
}

// The refusal of extents out of float's range, naming the one at fault and the range it may
// take given the other; both where no value of either alone would do.
std::string extent_refusal(const Problem& p) {
  const std::string grid = fmt::format("{}x{} grid", p.rows, p.cols);
  const std::string why = "keep the sweep's floats normal and finite";
  if (const auto range = extent_range(p, true);
      range && !(p.height >= range->first && p.height <= range->second)) {
    return fmt::format(
        "--set height={:g}: outside float range with width={:g} on a {} (height "
        "from {:.3g} to {:.3g} would {})",
        p.height, p.width, grid, range->first, range->second, why);
  }
  if (const auto range = extent_range(p, false); range) {
    return fmt::format(
        "--set width={:g}: outside float range with height={:g} on a {} (width "
        "from {:.3g} to {:.3g} would {})",
        p.width, p.height, grid, range->first, range->second, why);
  }
  return fmt::format(
      "--set height={:g} width={:g}: outside float range on a {} (spacing squared {:.3g} and "
      "{:.3g}, their product {:.3g}, largest u {:.3g}); no height or width alone would {}",
      p.height, p.width, grid, p.hx2, p.wy2, p.hx2 * p.wy2, p.umax(), why);
}

}  // namespace

namespace {

// Each parameter of the Problem, read here and nowhere else.
const ProblemFields<Problem>& problem_fields() {
  static const ProblemFields<Problem> fields = [] {
    ProblemFields<Problem> f;
    f.integer("rows", &Problem::rows).integer("cols", &Problem::cols);
    f.real("height", &Problem::height).real("width", &Problem::width);
    f.integer("iters", &Problem::iters_given).real("tol", &Problem::tol_given);
    f.integer("check_every", &Problem::check_every).flag("alternate", &Problem::alternate);
    f.text("proc_grid", &Problem::proc_grid);
    return f;
  }();
  return fields;
}

// Indices are 32-bit ints in the GPU kernels: fewer than 2^31 points.
constexpr std::int64_t max_points = (std::int64_t(1) << 31) - 1;

Problem parse_problem(const Params& params) {
  Problem p;
  problem_fields().fill(params, p);
  p.tol_mode = p.tol_given.has_value();
  p.tol = p.tol_given.value_or(0.0);
  p.iters = p.iters_given.value_or(default_sweeps);
  // A grid validate refuses: nothing derived from it (its point count overflows an int64).
  if (p.cols > max_points / p.rows) return p;
  set_coefficients(p);
  if (p.iters_given) {
    p.iters = *p.iters_given;
  } else {
    p.iters = p.tol_mode ? tol_mode_sweep_cap(p) : default_sweeps;
  }
  return p;
}

}  // namespace

const Problem& problem_of(const Params& params) { return params.problem(parse_problem); }

Workload make_workload() {
  Workload w;
  w.name = "jacobi2d";
  w.description = "seed jacobi-poisson: Jacobi sweeps for laplacian(u) = 4, u = x^2 + y^2";
  w.params = {
      {.key = "rows",
       .help = "grid points along x, boundaries included",
       .presets = presets_of("8192", "258", "16384"),
       .minimum = 3},
      {.key = "cols",
       .help = "grid points along y, boundaries included",
       .presets = presets_of("1024", "130", "16384"),
       .minimum = 3},
      {.key = "height",
       .type = ParamType::real,
       .help = "extent along x",
       .presets = same_in_all_presets("1"),
       .minimum = 0},
      {.key = "width",
       .type = ParamType::real,
       .help = "extent along y",
       .presets = same_in_all_presets("2"),
       .minimum = 0},
      {.key = "iters",
       .help = "optional: sweeps (default 100, the seed's); in tol mode the most sweeps allowed "
               "(default: twice what the Jacobi iteration's spectral radius says tol needs)",
       .presets = same_in_all_presets("")},
      {.key = "tol",
       .type = ParamType::real,
       .help = "optional: sweep until the max-norm change falls below tol",
       .presets = same_in_all_presets(""),
       .minimum = 0},
      {.key = "check_every",
       .help = "sweeps between two convergence checks in tol mode",
       .presets = same_in_all_presets("10")},
      alternate_param("acc_resident and omp_target_resident only"),
      {.key = "proc_grid",
       .type = ParamType::text,
       .help = "mpi_* only, optional: the process grid PxQ (P ranks along rows, Q along "
               "columns; default MPI_Dims_create's for the ranks running)",
       .presets = same_in_all_presets("")},
  };
  w.validate = [](const Params& params) {
    const Problem& p = problem_of(params);
    if (p.cols > max_points / p.rows) {
      throw UsageError(fmt::format("--set rows={} cols={}: 2^31 grid points or more (at most {})",
                                   p.rows, p.cols, max_points));
    }
    if (!in_float_range(p)) throw UsageError(extent_refusal(p));
    if (p.tol_mode && p.check_every > p.iters) {
      throw UsageError(
          fmt::format("--set check_every={}: more than iters={}, so tol would never "
                      "be checked",
                      p.check_every, p.iters));
    }
  };
  // Two float grids and the initial one kept for resets, plus, at verification, the cached
  // serial reference and the grid it sweeps into, and the serial variant's exact iterate where
  // it is computed.
  w.host_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    return 5.0 * sizeof(float) * double(p.rows) * double(p.cols) +
           (exact_iterate_affordable(p.rows, p.cols) ? exact_iterate_bytes(p.rows, p.cols) : 0.0);
  };
  // Two grids and the initial one on the device.
  w.device_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    return 3.0 * sizeof(float) * double(p.rows) * double(p.cols);
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

std::int64_t tol_mode_sweep_cap(const Problem& p) {
  // 1 - rho and ln(1/rho) without cancellation: 1 - cos(a) = 2 sin^2(a/2).
  const double hx2 = p.hx2, wy2 = p.wy2;
  auto one_minus_cos = [](double a) { return 2 * std::pow(std::sin(a / 2), 2); };
  const double gap = (wy2 * one_minus_cos(std::numbers::pi / double(p.rows - 1)) +
                      hx2 * one_minus_cos(std::numbers::pi / double(p.cols - 1))) /
                     (hx2 + wy2);
  const double decay = -std::log1p(-gap);
  const double start = 2 * std::sqrt(double(p.interior())) * p.umax();
  const double sweeps = 2 * std::max(0.0, std::log(start / p.tol)) / decay;
  // No more than 2^52 (a double counts them exactly; far beyond any run); NaN (spacings out of
  // float range, which validate refuses) too.
  const double capped = sweeps < 4503599627370496.0 ? sweeps : 4503599627370496.0;
  const std::int64_t every = std::max<std::int64_t>(p.check_every, 1);
  const std::int64_t checks = std::max<std::int64_t>(1, std::int64_t(std::ceil(capped / every)));
  return checks * every;
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
  return verify_result(p_, result_, sweeps_, residual_, against_exact_);
}

void JacobiInstance::corrupt_result() {
  if (!result_) return;
  // One interior point off by far more than any rounding.
  auto* grid = const_cast<float*>(result_);
  grid[(p_.rows / 2) * p_.cols + p_.cols / 2] += 1.0f;
}

}  // namespace acclab::jacobi2d