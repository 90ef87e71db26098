// acclab iccg MATRIX.mtx [--rhs FILE] [--colors C] [--tol EPS] [--maxiter N] [--out x.mtx]
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
#include <sstream>

#include "core/error.hpp"
#include "io/matrix_market.hpp"
#include "output_path.hpp"
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
        throw UsageError(fmt::format("{}: not symmetric: entry ({}, {}) = {:g} has no equal ({}, "
                                     "{})",
                                     path, i + 1, j + 1, a.value[e], j + 1, i + 1));
      }
    }
    if (!(a.diagonal[i] > 0)) {
      throw UsageError(fmt::format("{}: diagonal entry ({}, {}) = {:g} is not positive: not "
                                   "positive definite",
                                   path, i + 1, i + 1, a.diagonal[i]));
    }
  }
  return a;
}

// The right-hand side: n numbers, whitespace-separated, '%' or '#' comment lines allowed (a
// Matrix Market array file reads the same once its banner and size line are skipped).
std::vector<double> read_rhs(const std::string& path, std::int64_t n) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--rhs {}: cannot open", path));
  std::vector<double> b;
  std::string line;
  bool array_header = false;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    if (line.starts_with("%%MatrixMarket")) {
      array_header = true;
      continue;
    }
    if (line.empty() || line[0] == '%' || line[0] == '#') continue;
    if (array_header) {  // the size line
      array_header = false;
      continue;
    }
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      char* end = nullptr;
      const double x = std::strtod(word.c_str(), &end);
      if (end == word.c_str() || *end != '\0' || !std::isfinite(x)) {
        throw UsageError(fmt::format("--rhs {}:{}: '{}' is not a finite number", path, number,
                                     word));
      }
      b.push_back(x);
    }
  }
  if (std::int64_t(b.size()) != n) {
    throw UsageError(fmt::format("--rhs {}: {} values for a matrix of {} rows", path, b.size(), n));
  }
  return b;
}

}  // namespace

void add_iccg_options(CLI::App* cmd, IccgArgs& args) {
  cmd->add_option("matrix", args.matrix, "real symmetric Matrix Market matrix (coordinate)")
      ->required();
  cmd->add_option("--rhs", args.rhs, "right-hand side: n numbers (default b = A 1)");
  cmd->add_option("--colors", args.colors,
                  "0 CM, -1 RCM, <= -2 CM-RCM with |c| colours, >= 2 multicolour (default -20)");
  cmd->add_option("--tol", args.tol, "stop when ||r|| / ||b|| < tol (default 1e-8)");
  cmd->add_option("--maxiter", args.maxiter, "give up after this many iterations (10000)");
  cmd->add_option("--out", args.out, "write x here as a Matrix Market array (whole or not at all)");
}

int iccg_command(const IccgArgs& args) {
  if (args.colors == 1) throw UsageError("--colors 1: expected 0, -1, <= -2 or >= 2");
  if (!(args.tol > 0 && args.tol < 1)) {
    throw UsageError(fmt::format("--tol {}: expected between 0 and 1", args.tol));
  }
  if (args.maxiter < 1 || args.maxiter > 1000000000) {
    throw UsageError(fmt::format("--maxiter {}: expected 1 to 10^9", args.maxiter));
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
      for (std::int64_t e = original.start[i]; e < original.start[i + 1]; ++e) b[i] += original.value[e];
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
  // IC(0) is not guaranteed for every SPD matrix: on a non-positive pivot, factor a shifted
  // diagonal instead (the solve is still A's), growing the shift until the factor exists.
  double shift = 0;
  iccg::Solution s;
  for (double next : {1e-3, 1e-2, 1e-1, 1.0, 10.0, -1.0}) {
    s = iccg::solve_iccg(a, pb, ordering, args.tol, args.maxiter, omp_get_max_threads(), shift);
    if (s.breakdown_row < 0 || next < 0) break;
    shift = next;
  }
  const double solve_s = seconds_since(solve_start);
  if (s.breakdown_row >= 0) {
    throw UsageError(fmt::format("{}: IC(0) breaks down at row {} even with the diagonal shifted "
                                 "by 10x: the matrix is not positive definite",
                                 args.matrix, ordering.old_of_new[s.breakdown_row] + 1));
  }
  std::vector<double> x(s.x.size());
  for (std::int64_t v = 0; v < a.n; ++v) x[v] = s.x[ordering.new_of_old[v]];

  const double residual = iccg::true_relative_residual(original, b, x);
  fmt::print("iccg {}: {} rows, {} nonzeros, {} colours{}\n", args.matrix, a.n,
             a.n + std::int64_t(a.column.size()), ordering.colors,
             shift > 0 ? fmt::format(", IC(0) of the diagonal times {:g} (it broke down on A's)",
                                     1 + shift)
                       : std::string());
  fmt::print("{} after {} iterations: ||b - A x|| / ||b|| = {:.3g} (recurrence {:.3g})\n",
             s.converged ? "converged" : "NOT converged", s.iterations, residual,
             s.relative_residual);
  // Per iteration: the matrix read three times (12 bytes a nonzero) and eight vectors.
  const double bytes = (3.0 * 12 * (a.n + double(a.column.size())) + 8.0 * 8 * a.n) * s.iterations;
  fmt::print("read {:.3f} s, setup (ordering) {:.3f} s, solve {:.3f} s ({:.1f} µs and {:.1f} GB/s "
             "an iteration, {} threads)\n",
             read_s, setup_s, solve_s, 1e6 * solve_s / std::max(1, s.iterations),
             bytes / solve_s / 1e9, omp_get_max_threads());
  if (ones) {
    double error = 0;
    for (double xi : x) error = std::max(error, std::abs(xi - 1.0));
    fmt::print("b = A 1: max |x - 1| = {:.3g}\n", error);
  }
  if (!args.out.empty()) {
    const std::string temporary = args.out + fmt::format(".tmp{}", getpid());
    {
      std::ofstream file(temporary);
      file << "%%MatrixMarket matrix array real general\n"
           << fmt::format("% acclab iccg {} solution\n{} 1\n", args.matrix, a.n);
      for (double xi : x) file << fmt::format("{:.17g}\n", xi);
      if (!file) {
        std::filesystem::remove(temporary);
        throw UsageError(fmt::format("--out {}: cannot write there", args.out));
      }
    }
    std::filesystem::rename(temporary, args.out);
    fmt::print("x written to {}\n", args.out);
  }
  return s.converged ? 0 : 1;
}

}  // namespace acclab
