// acclab iccg MATRIX.mtx [--rhs FILE] [--colors C] [--tol EPS] [--maxiter N] [--shift S]
//                        [--out x.mtx]
#include "iccg_command.hpp"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "io/line_reader.hpp"
#include "io/matrix_market.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The matrix as iccg::Csr (both triangles, the diagonal apart), refusing what ICCG cannot take.
iccg::Csr csr_of(const std::string& path, const io::MatrixMarket& m) {
  if (m.rows != m.cols) {
    throw UsageError(fmt::format("{}:{}: {} x {}: not square", path, m.size_line, m.rows, m.cols));
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
  iccg::Csr a;
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
            fmt::format("{}: not symmetric: entry ({}, {}) = {:g} has no equal ({}, "
                        "{})",
                        path, i + 1, j + 1, a.value[e], j + 1, i + 1));
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

// A right-hand side may be written as one line of n numbers: its lines may be longer than the
// other formats' (a million numbers), yet a file without line ends still stops at a limit.
constexpr std::size_t max_rhs_line_bytes = std::size_t(64) << 20;

// The right-hand side: n numbers, whitespace-separated, '%' or '#' comment lines allowed (a
// Matrix Market array file reads the same once its banner and size line are skipped).
std::vector<double> read_rhs(const std::string& path, std::int64_t n) {
  std::vector<double> b;
  try {
    io::LineReader reader(path, max_rhs_line_bytes);
    std::string line;
    bool array_header = false;
    while (reader.next(line)) {
      if (line.starts_with("%%MatrixMarket")) {
        array_header = true;
        continue;
      }
      if (io::is_blank(line) || line[0] == '%' || line[0] == '#') continue;
      if (array_header) {  // the size line
        array_header = false;
        continue;
      }
      for (const std::string_view word : io::split_tokens(line)) {
        const auto x = io::parse_finite(word);
        if (!x) reader.fail(fmt::format("'{}' is not a finite number", word));
        if (std::int64_t(b.size()) == n) {
          reader.fail(fmt::format("more than the {} values of a matrix of {} rows", n, n));
        }
        b.push_back(*x);
      }
    }
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--rhs {}", e.what()));
  }
  if (std::int64_t(b.size()) != n) {
    throw UsageError(fmt::format("--rhs {}: {} values for a matrix of {} rows", path, b.size(), n));
  }
  return b;
}

// A in the permuted numbering, its system and the solve's state, and the vectors back in the
// matrix file's numbering.
struct PermutedSystem {
  const iccg::Csr& original;
  const std::vector<double>& b;
  const iccg::Ordering& ordering;
  const iccg::Csr& a;

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
  std::vector<double> x;  // in the file's numbering
  double residual = 0;    // ||b - A x|| / ||b|| recomputed from the file's matrix
  double recurrence = 0;  // the last solve's own
  int iterations = 0;
  int restarts = 0;
  bool stagnated = false;
  iccg::Solution last;  // breakdown, indefinite, not finite, converged
};

// The solve, then, while the recurrence says converged but the recomputed residual is not
// below tol, a restart on that residual (x += the solve of A d = b - A x). Rounding makes the
// recurrence's residual part from the true one near double precision's limit; a restart that
// does not halve the true residual means the limit is reached: stagnated.
Outcome solve_to_true_residual(const PermutedSystem& system, const std::vector<double>& pb,
                               double tol, int max_iterations, int threads, double shift) {
  constexpr int max_restarts = 5;
  Outcome out;
  out.last = iccg::solve_iccg(system.a, pb, system.ordering, tol, max_iterations, threads, shift);
  out.iterations = out.last.iterations;
  out.recurrence = out.last.relative_residual;
  if (out.last.breakdown_row >= 0) return out;
  std::vector<double> x = out.last.x;
  out.x = system.unpermuted(x);
  out.residual = iccg::true_relative_residual(system.original, system.b, out.x);
  while (out.last.converged && !(out.residual < tol) && std::isfinite(out.residual) &&
         out.iterations < max_iterations && out.restarts < max_restarts) {
    const std::vector<double> r = system.residual(out.x);
    const double inner_tol = std::clamp(tol / out.residual, 0.0, 0.5);
    const iccg::Solution d = iccg::solve_iccg(system.a, r, system.ordering, inner_tol,
                                              max_iterations - out.iterations, threads, shift);
    ++out.restarts;
    out.iterations += d.iterations;
    out.last = d;
    if (d.not_finite || d.indefinite) return out;
    std::vector<double> next = x;
    for (std::size_t i = 0; i < next.size(); ++i) next[i] += d.x[i];
    const std::vector<double> next_x = system.unpermuted(next);
    const double next_residual = iccg::true_relative_residual(system.original, system.b, next_x);
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

}  // namespace

void add_iccg_options(CLI::App* cmd, IccgArgs& args) {
  cmd->add_option("matrix", args.matrix, "real symmetric Matrix Market matrix (coordinate)")
      ->required();
  cmd->add_option("--rhs", args.rhs, "right-hand side: n numbers (default b = A 1)");
  cmd->add_option("--colors", args.colors,
                  "0 CM, -1 RCM, <= -2 CM-RCM with |c| colours, >= 2 multicolour (default -20)");
  cmd->add_option("--tol", args.tol,
                  "stop when ||b - A x|| / ||b|| < tol, 2.2e-16 <= tol < 1 (default 1e-8)");
  cmd->add_option("--maxiter", args.maxiter, "give up after this many iterations (10000)");
  cmd->add_option("--shift", args.shift,
                  "factor (1 + S) times the diagonal (shifted IC(0), for matrices on which IC(0) "
                  "breaks down; default 0: none)");
  cmd->add_option("--out", args.out,
                  "write x here as a Matrix Market array, only when the solve converged");
}

int iccg_command(const IccgArgs& args) {
  if (args.colors == 1) throw UsageError("--colors 1: expected 0, -1, <= -2 or >= 2");
  if (!(args.tol > 0 && args.tol < 1)) {
    throw UsageError(fmt::format("--tol {}: expected between 0 and 1", args.tol));
  }
  // Computing A x alone rounds by about u ||A|| ||x||, so a relative residual below the machine
  // epsilon is out of reach: refused rather than iterated on until NaN.
  if (args.tol < std::numeric_limits<double>::epsilon()) {
    throw UsageError(
        fmt::format("--tol {:g}: below double precision's {:.2g}, no solve can reach "
                    "it",
                    args.tol, std::numeric_limits<double>::epsilon()));
  }
  if (args.maxiter < 1 || args.maxiter > 1000000000) {
    throw UsageError(fmt::format("--maxiter {}: expected 1 to 10^9", args.maxiter));
  }
  if (!(args.shift >= 0 && args.shift <= 1e6)) {
    throw UsageError(fmt::format("--shift {}: expected 0 to 10^6", args.shift));
  }
  if (!args.out.empty()) check_output_path("--out", args.out);  // before the solve

  const auto start = std::chrono::steady_clock::now();
  const iccg::Csr original = csr_of(args.matrix, io::read_matrix_market(args.matrix));
  std::vector<double> b;
  const bool ones = args.rhs.empty();
  if (ones) {
    b.assign(static_cast<std::size_t>(original.n), 0.0);
    for (std::int64_t i = 0; i < original.n; ++i) {
      b[i] = original.diagonal[i];
      for (std::int64_t e = original.start[i]; e < original.start[i + 1]; ++e) {
        b[i] += original.value[e];
      }
    }
  } else {
    b = read_rhs(args.rhs, original.n);
  }
  const double read_s = seconds_since(start);
  const auto setup_start = std::chrono::steady_clock::now();
  const iccg::Ordering ordering = iccg::order_rows(original, args.colors);
  const iccg::Csr a = iccg::permuted(original, ordering);
  std::vector<double> pb(b.size());
  for (std::int64_t v = 0; v < a.n; ++v) pb[ordering.new_of_old[v]] = b[v];
  const double setup_s = seconds_since(setup_start);
  const auto solve_start = std::chrono::steady_clock::now();
  const int threads = iccg::useful_threads(a.n, ordering.colors, omp_get_max_threads());
  const PermutedSystem system{original, b, ordering, a};
  const Outcome s = solve_to_true_residual(system, pb, args.tol, args.maxiter, threads, args.shift);
  const double solve_s = seconds_since(solve_start);
  if (s.last.breakdown_row >= 0) {
    // IC(0) also breaks down on some positive definite matrices: where the size allows, the
    // direct solve (a full Cholesky factorisation) tells which.
    const std::int64_t row = ordering.old_of_new[s.last.breakdown_row] + 1;
    const bool checkable = iccg::reference_solve_fits(original.n, iccg::bandwidth(original));
    if (checkable && !iccg::reference_solve(original, b).empty()) {
      throw UsageError(fmt::format(
          "{}: IC(0) breaks down at row {} although the matrix is positive definite (its "
          "Cholesky factor exists): {}",
          args.matrix, row,
          args.shift > 0 ? fmt::format("a --shift larger than {:g} may factor it", args.shift)
                         : "--shift S factors (1 + S) times the diagonal instead"));
    }
    throw UsageError(
        fmt::format("{}: IC(0) breaks down at row {} (pivot not positive): the matrix "
                    "is not positive definite{}",
                    args.matrix, row,
                    checkable ? " (nor is its Cholesky factor defined)"
                              : " (or IC(0) cannot factor it: try --shift S)"));
  }
  if (s.last.indefinite) {
    throw UsageError(
        fmt::format("{}: p . A p <= 0 after {} iterations: the matrix is not "
                    "positive definite",
                    args.matrix, s.iterations));
  }
  bool finite = !s.last.not_finite && std::isfinite(s.residual);
  for (double xi : s.x) finite = finite && std::isfinite(xi);
  const bool converged = finite && s.residual < args.tol;

  fmt::print("iccg {}: {} rows, {} nonzeros, {} colours{}\n", args.matrix, a.n,
             a.n + std::int64_t(a.column.size()), ordering.colors,
             args.shift > 0 ? fmt::format(", shifted IC(0): the diagonal times {:g} (--shift {:g})",
                                          1 + args.shift, args.shift)
                            : std::string());
  fmt::print(
      "{} after {} iterations{}: ||b - A x|| / ||b|| = {:.3g} {} --tol {:g} (recurrence "
      "{:.3g})\n",
      converged ? "converged" : "NOT converged", s.iterations,
      s.restarts > 0 ? fmt::format(" ({} restarts from b - A x)", s.restarts) : "", s.residual,
      s.residual < args.tol ? "<" : ">=", args.tol, s.recurrence);
  // Per iteration: the matrix read three times (12 bytes a nonzero) and eight vectors.
  const double bytes = (3.0 * 12 * (a.n + double(a.column.size())) + 8.0 * 8 * a.n) * s.iterations;
  fmt::print(
      "read {:.3f} s, setup (ordering) {:.3f} s, solve {:.3f} s ({:.1f} µs and {:.1f} GB/s "
      "an iteration, {} threads)\n",
      read_s, setup_s, solve_s, 1e6 * solve_s / std::max(1, s.iterations), bytes / solve_s / 1e9,
      threads);
  if (ones && finite) {
    double error = 0;
    for (double xi : s.x) error = std::max(error, std::abs(xi - 1.0));
    fmt::print("b = A 1: max |x - 1| = {:.3g}\n", error);
  }
  if (!converged) {
    const std::string why =
        !finite ? fmt::format("the solve produced NaN or Inf after {} iterations", s.iterations)
        : s.stagnated ? fmt::format(
                            "stagnated at ||b - A x|| / ||b|| = {:.3g} after {} iterations: --tol "
                            "{:g} is below what double precision reaches on this matrix",
                            s.residual, s.iterations, args.tol)
                      : fmt::format(
                            "not converged after {} iterations (--maxiter {}): ||b - A x|| / ||b|| "
                            "= {:.3g}, --tol {:g}",
                            s.iterations, args.maxiter, s.residual, args.tol);
    std::fflush(stdout);
    fmt::print(stderr, "acclab: iccg {}: {}{}\n", args.matrix, why,
               args.out.empty() ? "" : fmt::format("; --out {} left as it was", args.out));
    return 1;
  }
  if (!args.out.empty()) {
    AtomicFile file(args.out, "--out");
    fmt::memory_buffer text;
    fmt::format_to(std::back_inserter(text),
                   "%%MatrixMarket matrix array real general\n% acclab iccg {} solution{}\n{} 1\n",
                   args.matrix,
                   args.shift > 0 ? fmt::format(" (shifted IC(0), --shift {:g})", args.shift) : "",
                   a.n);
    for (double xi : s.x) fmt::format_to(std::back_inserter(text), "{:.17g}\n", xi);
    file.write(text.data(), text.size());
    file.commit();
    fmt::print("x written to {}\n", args.out);
  }
  return 0;
}

}  // namespace acclab
