// acclab iccg MATRIX.mtx [--rhs FILE] [--colors C] [--tol EPS] [--maxiter N] [--shift S]
//                        [--out x.mtx]
#include "iccg_command.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "io/text_vector.hpp"
#include "workloads/iccg/matrix_solve.hpp"

namespace acclab {

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
  const iccg::MatrixSolveOptions options{
      .colors = args.colors, .tol = args.tol, .max_iterations = args.maxiter, .shift = args.shift};
  iccg::check_options(options);
  if (!args.out.empty()) check_output_path("--out", args.out);  // before the solve
  const iccg::MatrixSystem system = iccg::read_matrix_system(args.matrix, args.rhs);
  const iccg::MatrixSolution s = iccg::solve_matrix(system, options);

  fmt::print("iccg {}: {} rows, {} nonzeros, {} colours{}\n", args.matrix, s.rows, s.nonzeros,
             s.colors,
             args.shift > 0 ? fmt::format(", shifted IC(0): the diagonal times {:g} (--shift {:g})",
                                          1 + args.shift, args.shift)
                            : std::string());
  fmt::print(
      "{} after {} iterations{}: ||b - A x|| / ||b|| = {:.3g} {} --tol {:g} (recurrence "
      "{:.3g})\n",
      s.converged ? "converged" : "NOT converged", s.iterations,
      s.restarts > 0 ? fmt::format(" ({} restarts from b - A x)", s.restarts) : "", s.residual,
      s.residual < args.tol ? "<" : ">=", args.tol, s.recurrence);
  fmt::print(
      "read {:.3f} s, setup (ordering) {:.3f} s, solve {:.3f} s ({:.1f} µs and {:.1f} GB/s "
      "an iteration, {} threads)\n",
      system.read_s, s.setup_s, s.solve_s, 1e6 * s.seconds_per_iteration, s.gbytes_per_s,
      s.threads);
  if (s.error_from_ones) fmt::print("b = A 1: max |x - 1| = {:.3g}\n", *s.error_from_ones);
  if (!s.converged) {
    const std::string why =
        !s.finite ? fmt::format("the solve produced NaN or Inf after {} iterations", s.iterations)
        : s.stagnated
            ? fmt::format(
                  "stagnated at ||b - A x|| / ||b|| = {:.3g} after {} iterations: --tol {:g} is "
                  "below what double precision reaches on this matrix",
                  s.residual, s.iterations, args.tol)
            : fmt::format(
                  "not converged after {} iterations (--maxiter {}): ||b - A x|| / ||b|| = "
                  "{:.3g}, --tol {:g}",
                  s.iterations, args.maxiter, s.residual, args.tol);
    std::fflush(stdout);
    fmt::print(stderr, "acclab: iccg {}: {}{}\n", args.matrix, why,
               args.out.empty() ? "" : fmt::format("; --out {} left as it was", args.out));
    return 1;
  }
  if (!args.out.empty()) {
    io::write_matrix_market_vector(
        args.out, "--out", s.x,
        fmt::format(
            "acclab iccg {} solution{}", args.matrix,
            args.shift > 0 ? fmt::format(" (shifted IC(0), --shift {:g})", args.shift) : ""));
    fmt::print("x written to {}\n", args.out);
  }
  return 0;
}

}  // namespace acclab
