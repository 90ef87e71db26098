#include "workloads/iccg/matrix_solve.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>

#include "core/error.hpp"
#include "io/text_vector.hpp"

namespace acclab::iccg {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// v times 2^e, in place: exact wherever the result is a normal number.
void scale_by_power_of_two(std::vector<double>& v, int e) {
  for (double& x : v) x = std::ldexp(x, e);
}

// The user's system scaled by powers of two, A by 2^-a_exponent and b by 2^-b_exponent, so that
// the largest magnitude of b, and of A where it lies outside 2^-100 .. 2^100, is in [1, 2).
// Exact (an entry below 2^-1022 times the largest would lose bits: IC(0) could not factor such
// a matrix anyway), and every step of the solve, the IC(0) factor, CG's recurrences and each
// variant's, scales with it bit for bit: the iterations and x (times 2^(b_exponent -
// a_exponent)) are those of the unscaled system wherever its arithmetic does not underflow or
// overflow, and where it would (entries near 1e-160 or 1e160, whose squares leave double's
// range), the scaled solve runs as the unscaled one should. A within 2^+-100 is left as it is,
// since scaling it would change no bit, and copying it costs a matrix's memory. Every variant is
// given the scaled system, so the GPU steps' own dots and factors are covered too.
struct ScaledSystem {
  int a_exponent = 0;
  std::optional<Csr> own_a;  // the scaled copy, where A is scaled
  const Csr& a;
  int b_exponent = 0;
  std::vector<double> b;
  explicit ScaledSystem(const MatrixSystem& system)
      : a_exponent(std::abs(matrix_scale_exponent(system.a)) > 100
                       ? matrix_scale_exponent(system.a)
                       : 0),
        own_a(a_exponent != 0 ? std::optional<Csr>(system.a) : std::nullopt),
        a(own_a ? *own_a : system.a),
        b_exponent(scale_exponent(system.b)),
        b(system.b) {
    if (own_a) {
      scale_by_power_of_two(own_a->diagonal, -a_exponent);
      scale_by_power_of_two(own_a->value, -a_exponent);
    }
    scale_by_power_of_two(b, -b_exponent);
  }
  ScaledSystem(const ScaledSystem&) = delete;  // `a` may refer to own_a
  ScaledSystem& operator=(const ScaledSystem&) = delete;
  // A x = b for x = y 2^(b_exponent - a_exponent), y the scaled system's solution.
  int x_exponent() const { return b_exponent - a_exponent; }
};

// A in the permuted numbering, its system and the solve's state, and the vectors back in the
// matrix file's numbering. Everything but `file` is the scaled system's (ScaledSystem).
struct PermutedSystem {
  const Csr& original;  // the file's numbering
  const std::vector<double>& b;
  const Ordering& ordering;
  const Csr& a;
  const MatrixSystem& file;  // as the user gave it
  int x_exponent = 0;        // ScaledSystem::x_exponent

  // The scaled system's solution `y` (the file's numbering) as the user's system's x.
  std::vector<double> file_x(std::vector<double> y) const {
    scale_by_power_of_two(y, x_exponent);
    return y;
  }
  // ||b - A x|| / ||b|| of the user's system itself (true_relative_residual, at any scale):
  // "converged" is decided on this figure alone.
  double true_residual(const std::vector<double>& y) const {
    return true_relative_residual(file.a, file.b, file_x(y));
  }

  std::vector<double> unpermuted(const std::vector<double>& permuted_x) const {
    std::vector<double> x(permuted_x.size());
    for (std::int64_t v = 0; v < a.n; ++v) x[v] = permuted_x[ordering.new_of_old[v]];
    return x;
  }
  // b - A x in the permuted numbering, from the file's matrix.
  std::vector<double> residual(const std::vector<double>& x) const {
    std::vector<double> r(static_cast<std::size_t>(a.n));
    for (std::int64_t i = 0; i < original.n; ++i) {
      double ax = original.diagonal[i] * x[i];
      for (std::int64_t e = original.start[i]; e < original.start[i + 1]; ++e) {
        ax += original.value[e] * x[original.column[e]];
      }
      r[ordering.new_of_old[i]] = b[i] - ax;
    }
    return r;
  }
};

struct Outcome {
  std::vector<double> x;  // the scaled system's, in the file's numbering
  double residual = 0;    // the user's system's (PermutedSystem::true_residual)
  double recurrence = 0;
  int iterations = 0;
  int restarts = 0;
  bool stagnated = false;
  Solution last;  // breakdown, indefinite, not finite, converged
};

// One solve of A d = rhs (both in the permuted numbering) until the recurrence's relative
// residual is below tol, in at most max_iterations.
using SolveOnce =
    std::function<Solution(const std::vector<double>& rhs, double tol, int max_iterations)>;

// A ladder step's own solver (its instance, set up on the system with use_system) as a
// SolveOnce, its run() timed into `run_s`. The IC(0) factor and b are checked first by
// solve_iccg without iterations (same ordering, same pivots): its breakdown row, b = 0 (x = 0)
// and a non-finite b are answered there, since the GPU solvers test none of them.
SolveOnce variant_solver(const Variant& variant, const PermutedSystem& system,
                         const MatrixSolveOptions& options, int threads, double& run_s) {
  return [&variant, &system, options, threads, &run_s](const std::vector<double>& rhs, double tol,
                                                       int max_iterations) {
    Solution check = solve_iccg(system.a, rhs, system.ordering, tol, 0, threads, options.shift);
    if (check.breakdown_row >= 0 || check.not_finite) return check;
    if (check.converged) return check;  // rhs = 0: x = 0
    const Params params = Params::resolve(
        make_workload().params, "small",
        {"nx=1", "ny=1", "nz=1", fmt::format("colors={}", options.colors),
         fmt::format("eps={:.17g}", tol), fmt::format("max_iterations={}", max_iterations)});
    const std::unique_ptr<Instance> instance = variant.factory(params);
    auto* solver = dynamic_cast<IccgInstance*>(instance.get());
    if (!solver) throw std::logic_error("iccg: a variant without an IccgInstance");
    solver->use_system(system.original, system.unpermuted(rhs), options.shift,
                       options.min_saved_slots);
    instance->setup();
    if (solver->ordering().new_of_old != system.ordering.new_of_old) {
      throw std::logic_error("iccg: the variant ordered the rows differently");
    }
    instance->reset();
    const auto start = std::chrono::steady_clock::now();
    instance->run();
    run_s += seconds_since(start);
    instance->finish();
    Solution s = solver->solution();
    s.not_finite = !std::isfinite(s.relative_residual);
    for (double xi : s.x) s.not_finite = s.not_finite || !std::isfinite(xi);
    if (s.not_finite) s.converged = false;
    return s;
  };
}

// `solve`, whose first call is preceded by one capped at a single iteration, untimed, as the
// ladder's harness runs a step once before timing it: the first launches (a GPU's PTX compiled
// to its code, CUDA's kernels loaded, OpenMP's threads started) are then not in run_s. Every
// solve starts from x = 0, so the timed one's result is what it would be without.
SolveOnce warmed_up(SolveOnce solve, double& run_s, int& warm_up_iterations) {
  return [solve = std::move(solve), &run_s, &warm_up_iterations, warm = false](
             const std::vector<double>& rhs, double tol, int max_iterations) mutable {
    if (!warm) {
      const double timed_before = run_s;
      warm_up_iterations = solve(rhs, tol, 1).iterations;
      run_s = timed_before;
      warm = true;
    }
    return solve(rhs, tol, max_iterations);
  };
}

// The solve, then the restarts solve_matrix describes.
Outcome solve_to_true_residual(const PermutedSystem& system, const std::vector<double>& pb,
                               double tol, int max_iterations, const SolveOnce& solve) {
  constexpr int max_restarts = 5;
  Outcome out;
  out.last = solve(pb, tol, max_iterations);
  out.iterations = out.last.iterations;
  out.recurrence = out.last.relative_residual;
  if (out.last.breakdown_row >= 0) return out;
  std::vector<double> x = out.last.x;
  out.x = system.unpermuted(x);
  out.residual = system.true_residual(out.x);
  while (out.last.converged && !(out.residual < tol) && std::isfinite(out.residual) &&
         out.iterations < max_iterations && out.restarts < max_restarts) {
    // The residual is the right-hand side of the next solve: scaled by a power of two, as b was
    // (ScaledSystem), so that its small entries do not underflow in the variant's dots.
    std::vector<double> r = system.residual(out.x);
    const int r_exponent = scale_exponent(r);
    scale_by_power_of_two(r, -r_exponent);
    const double inner_tol = std::clamp(tol / out.residual, 0.0, 0.5);
    Solution d = solve(r, inner_tol, max_iterations - out.iterations);
    ++out.restarts;
    out.iterations += d.iterations;
    out.last = d;
    if (d.not_finite || d.indefinite) return out;
    scale_by_power_of_two(d.x, r_exponent);
    std::vector<double> next = x;
    for (std::size_t i = 0; i < next.size(); ++i) next[i] += d.x[i];
    const std::vector<double> next_x = system.unpermuted(next);
    const double next_residual = system.true_residual(next_x);
    if (!(next_residual <= 0.5 * out.residual)) {
      out.stagnated = true;
      break;
    }
    out.recurrence = d.relative_residual * out.residual;  // d's is relative to the old residual
    x = std::move(next);
    out.x = next_x;
    out.residual = next_residual;
  }
  return out;
}

// IC(0) broke down at `row` (the file's numbering, 1-based): whether the matrix is positive
// definite all the same, where the size allows the direct solve (a full Cholesky factorisation,
// of the scaled system, whose squares stay in range) to tell, decides what to suggest.
[[noreturn]] void throw_breakdown(const MatrixSystem& system, const ScaledSystem& scaled,
                                  std::int64_t row, double shift) {
  const bool checkable = reference_solve_fits(system.a.n, bandwidth(system.a));
  if (checkable && !reference_solve(scaled.a, scaled.b).empty()) {
    throw UsageError(
        fmt::format("{}: IC(0) breaks down at row {} although the matrix is positive definite (its "
                    "Cholesky factor exists): {}",
                    system.name, row,
                    shift > 0 ? fmt::format("a --shift larger than {:g} may factor it", shift)
                              : "--shift S factors (1 + S) times the diagonal instead"));
  }
  if (checkable) {
    throw UsageError(fmt::format(
        "{}: IC(0) breaks down at row {} (pivot not positive): the matrix is not positive "
        "definite (nor is its Cholesky factor defined)",
        system.name, row));
  }
  // Too wide for the direct solve to tell: IC(0) also breaks down on positive definite
  // matrices (bcsstk08 and bcsstk13 among the data), so the line must not call it indefinite.
  throw UsageError(fmt::format(
      "{}: IC(0) breaks down at row {} (pivot not positive), which happens to positive definite "
      "matrices too (this one is too wide to check with a direct solve): {}",
      system.name, row,
      shift > 0 ? fmt::format("a --shift larger than {:g} may factor it", shift)
                : "--shift S factors (1 + S) times the diagonal instead (try --shift 1)"));
}

}  // namespace

Csr csr_of(const std::string& path, const io::MatrixMarket& m) {
  if (m.rows != m.cols) {
    throw UsageError(fmt::format("{}:{}: {} x {}: not square", path, m.size_line, m.rows, m.cols));
  }
  if (m.rows == 0) {
    throw UsageError(
        fmt::format("{}:{}: 0 x 0: an empty matrix, no system to solve", path, m.size_line));
  }
  // Every row needs its positive diagonal entry: counted before anything of size rows is
  // allocated, so that a size line declaring far more rows than the file holds stops here.
  const auto diagonal_entries = std::count_if(m.entries.begin(), m.entries.end(),
                                              [](const auto& e) { return e.row == e.col; });
  if (diagonal_entries < m.rows) {
    throw UsageError(
        fmt::format("{}:{}: {} rows but {} diagonal entries: not positive definite "
                    "(every row needs a positive diagonal entry)",
                    path, m.size_line, m.rows, diagonal_entries));
  }
  std::vector<io::MatrixEntry> entries = io::expand_symmetric(m);
  std::sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) {
    return x.row != y.row ? x.row < y.row : x.col < y.col;
  });
  Csr a;
  a.n = m.rows;
  a.diagonal.assign(static_cast<std::size_t>(a.n), 0.0);
  a.start.assign(static_cast<std::size_t>(a.n) + 1, 0);
  for (std::size_t e = 0; e < entries.size(); ++e) {
    const auto& x = entries[e];
    if (e > 0 && entries[e - 1].row == x.row && entries[e - 1].col == x.col) {
      throw UsageError(fmt::format("{}: entry ({}, {}) given twice", path, x.row + 1, x.col + 1));
    }
    if (x.row == x.col) {
      a.diagonal[x.row] = x.value;
    } else {
      a.column.push_back(x.col);
      a.value.push_back(x.value);
    }
    a.start[x.row + 1] = std::int64_t(a.column.size());
  }
  for (std::int64_t i = 0; i < a.n; ++i) a.start[i + 1] = std::max(a.start[i + 1], a.start[i]);
  // General storage must hold a symmetric matrix: each (i, j) equal to (j, i).
  for (std::int64_t i = 0; i < a.n; ++i) {
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
      const std::int64_t j = a.column[e];
      const auto begin = a.column.begin() + a.start[j], end = a.column.begin() + a.start[j + 1];
      const auto at = std::lower_bound(begin, end, i);
      if (at == end || *at != i || a.value[at - a.column.begin()] != a.value[e]) {
        throw UsageError(
            fmt::format("{}: not symmetric: entry ({}, {}) = {:g} has no equal ({}, {})", path,
                        i + 1, j + 1, a.value[e], j + 1, i + 1));
      }
    }
    if (!(a.diagonal[i] > 0)) {
      throw UsageError(
          fmt::format("{}: diagonal entry ({}, {}) = {:g} is not positive: not "
                      "positive definite",
                      path, i + 1, i + 1, a.diagonal[i]));
    }
  }
  return a;
}

std::vector<double> row_sums(const Csr& a) {
  std::vector<double> b(static_cast<std::size_t>(a.n), 0.0);
  for (std::int64_t i = 0; i < a.n; ++i) {
    b[i] = a.diagonal[i];
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) b[i] += a.value[e];
  }
  return b;
}

MatrixSystem read_matrix_system(const std::string& matrix_path, const std::string& rhs_path) {
  const auto start = std::chrono::steady_clock::now();
  MatrixSystem system;
  system.name = matrix_path;
  system.a = csr_of(matrix_path, io::read_matrix_market(matrix_path));
  system.b_is_row_sums = rhs_path.empty();
  if (system.b_is_row_sums) {
    system.b = row_sums(system.a);
  } else {
    try {
      system.b = io::read_text_vector(rhs_path, system.a.n);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--rhs {}", e.what()));
    }
  }
  system.read_s = seconds_since(start);
  return system;
}

void check_options(const MatrixSolveOptions& options) {
  if (options.colors == 1) throw UsageError("--colors 1: expected 0, -1, <= -2 or >= 2");
  if (!(options.tol > 0 && options.tol < 1)) {
    throw UsageError(fmt::format("--tol {}: expected between 0 and 1", options.tol));
  }
  refuse_unreachable_tolerance(fmt::format("--tol {:g}", options.tol), options.tol);
  if (options.max_iterations < 1 || options.max_iterations > max_iterations_limit) {
    throw UsageError(fmt::format("--maxiter {}: expected 1 to 10^9", options.max_iterations));
  }
  if (!(options.shift >= 0 && options.shift <= 1e6)) {
    throw UsageError(fmt::format("--shift {}: expected 0 to 10^6", options.shift));
  }
}

MatrixVariantChoice choose_matrix_variant(const std::string& name, const Registry& registry,
                                          Machine& machine) {
  const auto built = [&](std::string_view wanted) -> const Variant* {
    for (const Variant& v : registry.variants()) {
      if (v.workload == "iccg" && v.name == wanted) return &v;
    }
    return nullptr;
  };
  const std::string choices = "expected original, optimized, cuda or cusparse";
  if (name.empty()) {
    // The fastest here (docs/iccg.md has the figures): our CUDA kernels, then the resident
    // OpenACC solve, which on OpenACC's host fallback is slower than original's OpenMP threads.
    if (const Variant* cuda = built("cuda"); cuda && machine.cuda_available()) {
      return {cuda, "the default where a CUDA GPU is present"};
    }
    if (const Variant* optimized = built("optimized"); optimized && machine.openacc_runs_on_gpu()) {
      return {optimized, "the default where OpenACC runs on a GPU (no CUDA GPU)"};
    }
    const Variant* original = built("original");
    if (!original) throw std::logic_error("iccg: no original variant registered");
    return {original, "the default without a GPU"};
  }
  if (std::find(std::begin(matrix_variant_names), std::end(matrix_variant_names), name) ==
      std::end(matrix_variant_names)) {
    throw UsageError(fmt::format("--variant {}: {}", name, choices));
  }
  const Variant* variant = built(name);
  if (!variant) {
    throw UsageError(fmt::format("--variant {}: not built into this acclab ({})", name, choices));
  }
  if (variant->backend == Backend::cuda && !machine.cuda_available()) {
    throw UsageError(fmt::format("--variant {}: no CUDA GPU on this machine ({})", name, choices));
  }
  return {variant, "--variant"};
}

MatrixSolution solve_matrix(const MatrixSystem& system, const MatrixSolveOptions& options) {
  const auto setup_start = std::chrono::steady_clock::now();
  const ScaledSystem scaled(system);
  const Csr& original = scaled.a;
  Ordering ordering = order_rows(original, options.colors);
  // Rows of a colour by width, so that the GPU steps' colour slabs can split off the wide ones.
  group_rows_by_width(original, ordering);
  const Csr a = permuted(original, ordering);
  std::vector<double> pb(scaled.b.size());
  for (std::int64_t v = 0; v < a.n; ++v) pb[ordering.new_of_old[v]] = scaled.b[v];
  MatrixSolution s;
  s.setup_s = seconds_since(setup_start);
  const auto solve_start = std::chrono::steady_clock::now();
  s.threads = useful_threads(a.n, ordering.colors, omp_get_max_threads());
  const PermutedSystem permuted_system{original, scaled.b, ordering, a, system,
                                       scaled.x_exponent()};
  SolveOnce solve;
  if (!options.variant || options.variant->name == "original") {  // on OpenMP threads
    solve = [&](const std::vector<double>& rhs, double tol, int max_iterations) {
      const auto start = std::chrono::steady_clock::now();
      Solution d = solve_iccg(a, rhs, ordering, tol, max_iterations, s.threads, options.shift);
      s.run_s += seconds_since(start);
      return d;
    };
  } else {
    solve = variant_solver(*options.variant, permuted_system, options, s.threads, s.run_s);
  }
  solve = warmed_up(std::move(solve), s.run_s, s.warm_up_iterations);
  Outcome out =
      solve_to_true_residual(permuted_system, pb, options.tol, options.max_iterations, solve);
  s.solve_s = seconds_since(solve_start);
  if (out.last.breakdown_row >= 0) {
    throw_breakdown(system, scaled, ordering.old_of_new[out.last.breakdown_row] + 1,
                    options.shift);
  }
  if (out.last.indefinite) {
    throw UsageError(
        fmt::format("{}: p . A p <= 0 after {} iterations: the matrix is not positive definite",
                    system.name, out.iterations));
  }
  s.rows = a.n;
  s.nonzeros = a.n + std::int64_t(a.column.size());
  s.colors = ordering.colors;
  s.residual = out.residual;
  s.recurrence = out.recurrence;
  s.iterations = out.iterations;
  s.restarts = out.restarts;
  s.stagnated = out.stagnated;
  std::vector<double> x = permuted_system.file_x(std::move(out.x));
  s.finite = !out.last.not_finite && std::isfinite(out.residual);
  for (double xi : x) s.finite = s.finite && std::isfinite(xi);
  s.converged = s.finite && s.residual < options.tol;
  s.bytes_per_iteration = 3.0 * 12 * (a.n + double(a.column.size())) + 8.0 * 8 * a.n;
  s.gbytes_per_s = s.run_s > 0 ? s.bytes_per_iteration * s.iterations / s.run_s / 1e9 : 0;
  s.seconds_per_iteration = s.run_s / std::max(1, s.iterations);
  if (system.b_is_row_sums && s.finite) {
    double error = 0;
    for (double xi : x) error = std::max(error, std::abs(xi - 1.0));
    s.error_from_ones = error;
  }
  s.x = std::move(x);
  return s;
}

}  // namespace acclab::iccg
