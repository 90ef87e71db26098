// Problem definition, parameters and verification shared by every diffusion3d variant.
#include "workloads/diffusion3d/diffusion3d.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <utility>

#include "core/compare.hpp"
#include "core/error.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::diffusion3d {

double stable_dt_limit(double kappa, double dx, double dy, double dz) {
  return 0.5 / (kappa * (1 / (dx * dx) + 1 / (dy * dy) + 1 / (dz * dz)));
}

namespace {

// Each parameter of the Problem, read here and nowhere else.
const ProblemFields<Problem>& problem_fields() {
  static const ProblemFields<Problem> fields = [] {
    ProblemFields<Problem> f;
    f.integer("nx", &Problem::nx).integer("ny", &Problem::ny).integer("nz", &Problem::nz);
    f.real("kappa", &Problem::kappa).real("end_time", &Problem::end_time_given);
    f.real("dt", &Problem::dt_given).integer("steps", &Problem::steps_given);
    f.flag("alternate", &Problem::alternate);
    f.text("proc_grid", &Problem::proc_grid);
    return f;
  }();
  return fields;
}

Problem parse_problem(const Params& params) {
  Problem p;
  problem_fields().fill(params, p);
  p.dx = 1.0 / double(p.nx);
  p.dy = 1.0 / double(p.ny);
  p.dz = 1.0 / double(p.nz);
  // The course's time step: 0.1 min(dx^2, dy^2, dz^2) / kappa.
  p.dt =
      p.dt_given ? *p.dt_given : 0.1 * std::min({p.dx * p.dx, p.dy * p.dy, p.dz * p.dz}) / p.kappa;
  p.ce = p.cw = static_cast<float>(p.kappa * p.dt / (p.dx * p.dx));
  p.cn = p.cs = static_cast<float>(p.kappa * p.dt / (p.dy * p.dy));
  p.ct = p.cb = static_cast<float>(p.kappa * p.dt / (p.dz * p.dz));
  p.cc = 1.0f - (p.ce + p.cw + p.cn + p.cs + p.ct + p.cb);
  if (p.steps_given) {
    p.steps = *p.steps_given;
  } else {
    // As the course's main loop: step while time + dt/2 < end time.
    const double end_time = p.end_time_given;
    const double estimate = end_time / p.dt;
    if (!(estimate <= 2e9)) {
      p.steps = -1;  // more steps than anyone will wait for (or no finite dt): validate refuses it
      return p;
    }
    if (estimate > 1e7) {
      // Past ten million steps the summed time's rounding no longer matters: count directly.
      p.steps = static_cast<std::int64_t>(std::ceil(estimate - 0.5));
    } else {
      // As the course's main loop: step while time + dt/2 < end time, time summed in double.
      double time = 0;
      while (time + 0.5 * p.dt < end_time) {
        time += p.dt;
        ++p.steps;
      }
    }
  }
  return p;
}

}  // namespace

const Problem& problem_of(const Params& params) { return params.problem(parse_problem); }

Workload make_workload() {
  Workload w;
  w.name = "diffusion3d";
  w.description = "course openacc_diffusion: 7-point heat equation, analytic error";
  w.params = {
      {.key = "nx",
       .help = "cells along x",
       .presets = presets_of("128", "24", "256"),
       .minimum = 2},
      {.key = "ny",
       .help = "cells along y",
       .presets = presets_of("128", "20", "256"),
       .minimum = 2},
      {.key = "nz",
       .help = "cells along z",
       .presets = presets_of("128", "16", "256"),
       .minimum = 2},
      {.key = "kappa",
       .type = ParamType::real,
       .help = "diffusion coefficient",
       .presets = same_in_all_presets("0.1"),
       .minimum = 0},
      {.key = "end_time",
       .type = ParamType::real,
       .help = "step while time + dt/2 < end_time",
       .presets = same_in_all_presets("0.1"),
       .minimum = 0},
      {.key = "steps",
       .help = "optional: this many steps instead of end_time",
       .presets = presets_of("", "", "100"),
       .maximum = 2e9},
      {.key = "dt",
       .type = ParamType::real,
       .help = "optional: time step (default 0.1 min(dx^2, dy^2, dz^2) / kappa)",
       .presets = same_in_all_presets(""),
       .minimum = 0},
      alternate_param(
          "acc_tuned, omp_target_resident (and the mpi_acc_* steps' boxes without neighbours)"),
      {.key = "proc_grid",
       .type = ParamType::text,
       .help = "mpi_* only, optional: the process grid PxQxR (ranks along x, y, z; default "
               "MPI_Dims_create's for the ranks running, the most along z)",
       .presets = same_in_all_presets("")},
  };
  w.validate = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t nx = p.nx, ny = p.ny, nz = p.nz;
    // Indices are 32-bit ints in the GPU kernels.
    constexpr std::int64_t max_points = (std::int64_t(1) << 31) - 1;
    if (ny > max_points / nx || nz > max_points / (nx * ny)) {
      throw UsageError(fmt::format("--set nx={} ny={} nz={}: 2^31 cells or more", nx, ny, nz));
    }
    const double limit = stable_dt_limit(p.kappa, p.dx, p.dy, p.dz);
    const bool dt_given = p.dt_given.has_value();
    // kappa alone: the default dt divides by it and the stability bound by kappa / dx^2.
    if (!std::isnormal(p.kappa) || !std::isfinite(limit) || (!dt_given && !std::isfinite(p.dt))) {
      throw UsageError(fmt::format(
          "--set kappa={}: outside double range for this grid (dt = {:g}, stability bound {:g})",
          p.kappa, p.dt, limit));
    }
    if (p.dt > limit) {
      throw UsageError(fmt::format(
          "--set dt={:g}: above the explicit stability bound 1/(2 kappa (1/dx^2 + 1/dy^2 + "
          "1/dz^2)) = {:g} for kappa={:g} on {}x{}x{}",
          p.dt, limit, p.kappa, nx, ny, nz));
    }
    if (!std::isnormal(p.cc + p.ce)) {  // a backstop: dt within the bound keeps them near 1
      throw UsageError(
          fmt::format("--set kappa={} dt={:g}: coefficients outside float range", p.kappa, p.dt));
    }
    // The step count is end_time / dt: with the default dt = 0.1 min(dx^2, dy^2, dz^2) / kappa,
    // kappa is as much its cause as end_time, so both are named (or dt where it was set).
    const double end_time = p.end_time_given;
    const std::string cause =
        dt_given ? fmt::format("--set end_time={:g} dt={:g}", end_time, p.dt)
                 : fmt::format("--set end_time={:g} kappa={:g}", end_time, p.kappa);
    const std::string of_dt =
        dt_given ? fmt::format("dt={:g}", p.dt)
                 : fmt::format("dt = 0.1 min(dx^2, dy^2, dz^2) / kappa = {:g} on {}x{}x{}", p.dt,
                               nx, ny, nz);
    if (p.steps < 0) {
      throw UsageError(fmt::format(
          "{}: {:.3g} steps of {}, more than 2e9 (a shorter end_time{}, or --set steps=)", cause,
          end_time / p.dt, of_dt, dt_given ? " or a longer dt" : " or a smaller kappa"));
    }
    if (p.steps < 1) {
      throw UsageError(
          fmt::format("{}: end_time shorter than half a time step of {} (a longer end_time{})",
                      cause, of_dt, dt_given ? " or a shorter dt" : " or a larger kappa"));
    }
  };
  // Two fields and the initial one, plus the cached reference and the field it steps into. The
  // MPI steps on one rank hold each field in its shell, rows padded to 128-byte lines
  // (mpi_blocks.hpp): that much more a field, two on the host, three on the device.
  // In double: the estimates are asked for before any size is refused.
  const auto cells = [](const Problem& p) { return double(p.nx) * double(p.ny) * double(p.nz); };
  const auto shell_floats = [](const Problem& p) {
    const double nx = double(p.nx), ny = double(p.ny), nz = double(p.nz);
    return std::ceil((nx + 33) / 32) * 32 * (ny + 2) * (nz + 2) - nx * ny * nz;
  };
  w.host_bytes = [cells, shell_floats](const Params& params) {
    const Problem& p = problem_of(params);
    return sizeof(float) * (5.0 * cells(p) + 2.0 * shell_floats(p));
  };
  w.device_bytes = [cells, shell_floats](const Params& params) {
    const Problem& p = problem_of(params);
    return sizeof(float) * (3.0 * cells(p) + 3.0 * shell_floats(p));
  };
  return w;
}

std::vector<float> initial_field(const Problem& p) {
  std::vector<float> f(static_cast<std::size_t>(p.points()));
  const double two_pi = 2 * std::numbers::pi;
  for (std::int64_t k = 0; k < p.nz; ++k) {
    const double z = p.dz * (double(k) + 0.5);
    for (std::int64_t j = 0; j < p.ny; ++j) {
      const double y = p.dy * (double(j) + 0.5);
      for (std::int64_t i = 0; i < p.nx; ++i) {
        const double x = p.dx * (double(i) + 0.5);
        f[(k * p.ny + j) * p.nx + i] =
            static_cast<float>(0.125 * (1 - std::cos(two_pi * x)) * (1 - std::cos(two_pi * y)) *
                               (1 - std::cos(two_pi * z)));
      }
    }
  }
  return f;
}

float initial_value(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k) {
  const double two_pi = 2 * std::numbers::pi;
  const double x = p.dx * (double(i) + 0.5), y = p.dy * (double(j) + 0.5),
               z = p.dz * (double(k) + 0.5);
  return static_cast<float>(0.125 * (1 - std::cos(two_pi * x)) * (1 - std::cos(two_pi * y)) *
                            (1 - std::cos(two_pi * z)));
}

double analytic(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k, double t) {
  const double two_pi = 2 * std::numbers::pi;
  const double decay = std::exp(-p.kappa * t * two_pi * two_pi);
  const double x = p.dx * (double(i) + 0.5), y = p.dy * (double(j) + 0.5),
               z = p.dz * (double(k) + 0.5);
  return 0.125 * (1 - decay * std::cos(two_pi * x)) * (1 - decay * std::cos(two_pi * y)) *
         (1 - decay * std::cos(two_pi * z));
}

double rms_error(const Problem& p, const float* f, double t) {
  double sum = 0;
  for (std::int64_t k = 0; k < p.nz; ++k) {
    for (std::int64_t j = 0; j < p.ny; ++j) {
      for (std::int64_t i = 0; i < p.nx; ++i) {
        const double diff = f[(k * p.ny + j) * p.nx + i] - analytic(p, i, j, k, t);
        sum += diff * diff;
      }
    }
  }
  return std::sqrt(sum / double(p.points()));
}

namespace {

constexpr double two_pi = 2 * std::numbers::pi;
constexpr double float_eps = std::numeric_limits<float>::epsilon();

double laplacian_eigenvalue(double kappa, double h) {
  return kappa * (2 - 2 * std::cos(two_pi * h)) / (h * h);
}

// The exact discrete solution cell by cell (discrete_solution's derivation in diffusion3d.hpp),
// so that the reference's own check holds no field of its own.
class DiscreteModes {
 public:
  DiscreteModes(const Problem& p, std::int64_t steps) {
    const std::array<double, 3> h = {p.dx, p.dy, p.dz};
    const std::array<std::int64_t, 3> n = {p.nx, p.ny, p.nz};
    for (int d = 0; d < 3; ++d) {
      for (std::int64_t i = 0; i < n[d]; ++i) {
        cosines_[d].push_back(std::cos(two_pi * h[d] * (double(i) + 0.5)));
      }
    }
    // Each subset S of {x, y, z} (bit d set: d in S): its sign (-1)^|S| times mu_S^steps.
    for (int s = 0; s < 8; ++s) {
      double lambda = 0;
      for (int d = 0; d < 3; ++d) {
        if (s & (1 << d)) lambda += laplacian_eigenvalue(p.kappa, h[d]);
      }
      amplitude_[s] = (std::popcount(unsigned(s)) % 2 ? -1.0 : 1.0) *
                      std::pow(1 - p.dt * lambda, double(steps));
    }
  }
  double operator()(std::int64_t i, std::int64_t j, std::int64_t k) const {
    double value = 0;
    for (int s = 0; s < 8; ++s) {
      double term = amplitude_[s];
      if (s & 1) term *= cosines_[0][i];
      if (s & 2) term *= cosines_[1][j];
      if (s & 4) term *= cosines_[2][k];
      value += term;
    }
    return 0.125 * value;
  }

 private:
  std::array<std::vector<double>, 3> cosines_;
  std::array<double, 8> amplitude_{};
};

}  // namespace

std::vector<double> discrete_solution(const Problem& p, std::int64_t steps) {
  const DiscreteModes modes(p, steps);
  std::vector<double> f(static_cast<std::size_t>(p.points()));
  for (std::int64_t k = 0; k < p.nz; ++k) {
    for (std::int64_t j = 0; j < p.ny; ++j) {
      for (std::int64_t i = 0; i < p.nx; ++i) f[(k * p.ny + j) * p.nx + i] = modes(i, j, k);
    }
  }
  return f;
}

// The truncation error, mode by mode. With Lambda_S the discrete rate (mu_S = 1 - dt Lambda_S)
// and L_S = |S| kappa (2 pi)^2 the continuous one:
//   - stability gives 0 <= dt Lambda_S <= 4 kappa dt sum 1/h^2 <= 1, so mu_S and exp(-dt L_S)
//     lie in [0, 1] and |a^s - b^s| <= s |a - b|;
//   - |mu_S - exp(-dt L_S)| <= |1 - x - exp(-x)| + |exp(-x) - exp(-dt L_S)| with x = dt Lambda_S
//     <= x^2 / 2 + dt |L_S - Lambda_S| (time: O(dt^2) per step);
//   - 2 - 2 cos(theta) >= theta^2 - theta^4 / 12, so 0 <= L_S - Lambda_S
//     <= kappa (2 pi)^4 sum_{d in S} h_d^2 / 12 (space: O(h^2)).
// Over the cells, the RMS of cos(2 pi x_i) is sqrt(1/2) (sum cos^2 = n/2 for n >= 3; 0 for
// n = 2), and the RMS of a separable product is the product of the RMS, so by the triangle
// inequality for the RMS, after s steps (t = s dt):
//   rms(f_discrete - f_analytic) <= 0.125 t sum_{S != {}} 2^(-|S|/2) (dt Lambda_S^2 / 2
//                                     + kappa (2 pi)^4 sum_{d in S} h_d^2 / 12).
// (The time error makes the discrete modes decay faster, the space error slower: they partly
// cancel, so the actual error is well inside the bound.)
double truncation_bound(const Problem& p, std::int64_t steps) {
  const std::array<double, 3> h = {p.dx, p.dy, p.dz};
  const double k4 = std::pow(two_pi, 4);
  double sum = 0;
  for (int s = 1; s < 8; ++s) {
    double lambda = 0, space = 0;
    for (int d = 0; d < 3; ++d) {
      if (s & (1 << d)) {
        lambda += laplacian_eigenvalue(p.kappa, h[d]);
        space += p.kappa * k4 * h[d] * h[d] / 12;
      }
    }
    sum += std::pow(0.5, 0.5 * std::popcount(unsigned(s))) * (p.dt * lambda * lambda / 2 + space);
  }
  return 0.125 * double(steps) * p.dt * sum;
}

// The initial field's rounding (eps/2), then per step at most 4 eps max|f| (max|f| <= 1) from
// the arithmetic plus 4 eps from the float coefficients (their rounding, and cc = 1 - sum
// rounded, move each mu_S by a few eps, the same way at every step).
double rounding_bound(std::int64_t steps) { return float_eps * (0.5 + 8.0 * double(steps)); }

// Two evaluations of a step's 7-term sum differ only in rounding: the original's 13 roundings
// (7 products, 6 sums), a GPU's 7 with fused multiply-adds (or 13 again in another order), each
// within eps/2 of an intermediate <= max|f| <= 1 (the stencil is a convex combination, cc >= 0).
// Their worst case, 10 eps a step added over every step, misses a field a step short at the
// seed preset (1638 steps: 2e-3 against a last step of 1.7e-4). But rounding errors are of
// either sign, independently from step to step, and the stencil's weights sum to 1 (it never
// amplifies a difference): as a random walk of 20 roundings a step, each of variance at most
// (eps max|f|)^2 / 12, the difference after s steps has standard deviation
// sqrt(20 s / 12) eps max|f|; the bound is 6 of them, 7.75 eps sqrt(s), so that a correct GPU
// result passes with room to spare while a field a step short fails (the measured differences:
// bench/results/h200/diffusion3d/NOTES.md).
double original_tolerance(std::int64_t steps) {
  const double roundings_per_step = 13 + 7;
  return 6 * std::sqrt(roundings_per_step / 12) * float_eps * std::sqrt(double(steps));
}

Verification verify_result(const Problem& p, const float* result, std::int64_t steps_done,
                           bool against_exact) {
  Verification v;
  if (!result) {
    v.detail = "no result";
    return v;
  }
  const auto& reference = reference_after(p, p.steps);
  const Difference largest = max_abs_difference(result, reference.data(), p.points());
  const double max_diff = largest.value;
  const std::int64_t worst = std::max<std::int64_t>(largest.index, 0);
  const double tolerance = original_tolerance(p.steps);
  v.outputs["steps"] = steps_done;
  v.outputs["time"] = double(steps_done) * p.dt;
  v.outputs["error"] = rms_error(p, result, p.end_time());
  v.outputs["max_diff_vs_original"] = max_diff;
  v.outputs["tolerance"] = tolerance;
  v.outputs["difference"] = max_diff;
  // What a field one step short would differ by: the bound is meant to be well below it.
  v.outputs["last_step_change"] = reference_last_step_change(p, p.steps);
  v.ok = max_diff <= tolerance;
  const std::int64_t plane = p.nx * p.ny;
  v.detail = fmt::format(
      "max |f - original| = {:.3g} at ({}, {}, {}) {} bound 7.75 eps sqrt(steps) = {:.3g}",
      max_diff, worst % p.nx, (worst % plane) / p.nx, worst / plane, v.ok ? "<=" : ">", tolerance);
  if (steps_done != p.steps) {
    v.ok = false;
    v.detail = fmt::format("ran {} steps of {}; {}", steps_done, p.steps, v.detail);
  }
  if (against_exact) {
    // The reference itself, against the exact solution of the discrete scheme.
    const DiscreteModes exact(p, p.steps);
    Difference exact_largest;
    for (std::int64_t k = 0; k < p.nz; ++k) {
      for (std::int64_t j = 0; j < p.ny; ++j) {
        for (std::int64_t i = 0; i < p.nx; ++i) {
          const std::int64_t cell = (k * p.ny + j) * p.nx + i;
          fold_difference(exact_largest, std::abs(result[cell] - exact(i, j, k)), cell);
        }
      }
    }
    const double exact_diff = exact_largest.value;
    const double exact_tolerance = rounding_bound(p.steps);
    v.outputs["max_diff_vs_exact_discrete"] = exact_diff;
    v.outputs["exact_discrete_tolerance"] = exact_tolerance;
    if (!(exact_diff <= exact_tolerance)) {
      v.ok = false;
      v.detail = fmt::format("{}; max |f - exact discrete solution| = {:.3g} > {:.3g}", v.detail,
                             exact_diff, exact_tolerance);
    }
  }
  return v;
}

DiffusionInstance::DiffusionInstance(const Params& params) : p_(problem_of(params)) {}

void DiffusionInstance::setup() {
  initial_ = initial_field(p_);
  f_ = initial_;
  fn_ = initial_;
}

void DiffusionInstance::reset() {
  std::memcpy(f_.data(), initial_.data(), initial_.size() * sizeof(float));
  std::memcpy(fn_.data(), initial_.data(), initial_.size() * sizeof(float));
}

Verification DiffusionInstance::verify() {
  Verification v = verify_result(p_, result_, steps_, against_exact_);
  v.outputs.update(extra_outputs_);
  return v;
}

void DiffusionInstance::corrupt_result() {
  if (!result_) return;
  auto* field = const_cast<float*>(result_);
  field[p_.points() / 2] += 0.5f;
}

}  // namespace acclab::diffusion3d
