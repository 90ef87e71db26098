// The problem and parameters shared by every diffusion3d variant; verify.cpp checks fields.
#include "workloads/diffusion3d/diffusion3d.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <utility>

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
