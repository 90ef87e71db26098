// The ICCG problem: the course's mesh and source and the parameters. ordering.cpp numbers its
// rows by colour; verify.cpp holds the checks of a solution.
#include "workloads/iccg/iccg.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::iccg {

Poisson poisson_problem(int nx, int ny, int nz) {
  Poisson s;
  Csr& a = s.a;
  a.n = std::int64_t(nx) * ny * nz;
  a.diagonal.assign(static_cast<std::size_t>(a.n), 0.0);
  a.start.assign(static_cast<std::size_t>(a.n) + 1, 0);
  s.b.resize(static_cast<std::size_t>(a.n));
  const auto index = [&](int i, int j, int k) { return (std::int64_t(k) * ny + j) * nx + i; };
  for (int k = 0; k < nz; ++k) {
    for (int j = 0; j < ny; ++j) {
      for (int i = 0; i < nx; ++i) {
        const std::int64_t row = index(i, j, k);
        const auto couple = [&](int ii, int jj, int kk) {
          a.column.push_back(index(ii, jj, kk));
          a.value.push_back(-1.0);  // area / distance of a unit cube's face
          a.diagonal[row] += 1.0;
        };
        if (k > 0) couple(i, j, k - 1);
        if (j > 0) couple(i, j - 1, k);
        if (i > 0) couple(i - 1, j, k);
        if (i < nx - 1) couple(i + 1, j, k);
        if (j < ny - 1) couple(i, j + 1, k);
        if (k < nz - 1) couple(i, j, k + 1);
        if (k == nz - 1) a.diagonal[row] += 2.0;  // phi = 0 half a cell above the centre
        a.start[row + 1] = std::int64_t(a.column.size());
        s.b[row] = double((i + 1) + (j + 1) + (k + 1));  // times the unit volume
      }
    }
  }
  return s;
}

namespace {

// Each parameter of the Problem, read here and nowhere else.
Problem parse_problem(const Params& params) {
  static const ProblemFields<Problem> fields = [] {
    ProblemFields<Problem> f;
    f.integer("nx", &Problem::nx).integer("ny", &Problem::ny).integer("nz", &Problem::nz);
    f.integer("colors", &Problem::colors).real("eps", &Problem::eps);
    f.integer("max_iterations", &Problem::max_iterations);
    return f;
  }();
  Problem p;
  fields.fill(params, p);
  return p;
}

}  // namespace

const Problem& problem_of(const Params& params) { return params.problem(parse_problem); }

void refuse_unreachable_tolerance(const std::string& option, double tol) {
  if (tol < std::numeric_limits<double>::epsilon()) {
    throw UsageError(fmt::format("{}: below double precision's {:.2g}, no solve can reach it",
                                 option, std::numeric_limits<double>::epsilon()));
  }
}

Workload make_workload() {
  Workload w;
  w.name = "iccg";
  w.description = "course ICCG: multicolour IC(0)-preconditioned CG, finite-volume Poisson";
  w.params = {
      {.key = "nx", .help = "cells along x", .presets = presets_of("128", "16", "256")},
      {.key = "ny", .help = "cells along y", .presets = presets_of("128", "12", "256")},
      {.key = "nz", .help = "cells along z", .presets = presets_of("128", "10", "256")},
      {.key = "colors",
       .help = "the course's -c: 0 CM, -1 RCM, <= -2 CM-RCM with |c| colours, >= 2 multicolour",
       .presets = presets_of("-20", "-10", "-20"),
       .minimum = -1e6,
       .maximum = 1e6},
      {.key = "eps",
       .type = ParamType::real,
       .help = "stop when ||r|| / ||b|| < eps",
       .presets = same_in_all_presets("1e-8"),
       .minimum = 0,
       .maximum = 1},
      {.key = "max_iterations",
       .help = "give up after this many",
       .presets = same_in_all_presets("10000"),
       .maximum = 1e9},
  };
  w.validate = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t nx = p.nx, ny = p.ny, nz = p.nz;
    // Rows are counted in ints: fewer than 2^31.
    constexpr std::int64_t max_rows = (std::int64_t(1) << 31) - 1;
    if (ny > max_rows / nx || nz > max_rows / (nx * ny)) {
      throw UsageError(fmt::format("--set nx={} ny={} nz={}: 2^31 cells or more", nx, ny, nz));
    }
    if (p.colors == 1) {
      throw UsageError("--set colors=1: expected 0 (CM), -1 (RCM), <= -2 (CM-RCM) or >= 2");
    }
    refuse_unreachable_tolerance(fmt::format("--set eps={:g}", p.eps), p.eps);
  };
  // The mesh matrix (kept for the residual check) and its permuted copy (a diagonal, 6
  // couplings of a column and a value and n + 1 offsets: 112 bytes a row, and b), the ordering
  // (2 permutations), the solver's x and 5 work vectors, the serial solve's x and, while it
  // runs, its work vectors, x back in the mesh's numbering; and the direct solve where it is
  // made (rows x nx ny band).
  w.host_bytes = [](const Params& params) {
    const Problem& p = problem_of(params);
    const std::int64_t n = p.rows(), band = std::int64_t(p.nx) * p.ny;
    const double direct = reference_solve_fits(n, band) ? reference_solve_bytes(n, band) : 0;
    return double(n) * (2 * 120.0 + 16 + 8 * 6 + 8 * 6 + 8) + direct;
  };
  w.device_bytes = [](const Params& params) {
    return double(problem_of(params).rows()) * (7 * 16.0 + 8 * 8.0);
  };
  return w;
}

IccgInstance::IccgInstance(const Params& params) : p_(problem_of(params)) {}

void IccgInstance::use_system(Csr a, std::vector<double> b, double shift,
                              std::int64_t min_saved_slots) {
  mesh_ = {std::move(a), std::move(b)};
  user_system_ = true;
  factor_scale_ = 1 + shift;
  min_saved_slots_ = min_saved_slots;
}

void IccgInstance::setup() {
  if (!user_system_) mesh_ = poisson_problem(p_.nx, p_.ny, p_.nz);
  ordering_ = order_rows(mesh_.a, p_.colors);
  if (user_system_) group_rows_by_width(mesh_.a, ordering_);  // as solve_matrix orders
  if (coupled_rows_share_a_color(mesh_.a, ordering_)) {
    throw std::logic_error("iccg: the ordering put two coupled rows in one colour");
  }
  a_ = permuted(mesh_.a, ordering_);
  b_.resize(mesh_.b.size());
  for (std::int64_t v = 0; v < mesh_.a.n; ++v) b_[ordering_.new_of_old[v]] = mesh_.b[v];
}

void IccgInstance::corrupt_result() {
  if (!solution_.x.empty()) solution_.x[solution_.x.size() / 2] += 1.0;
}

}  // namespace acclab::iccg
