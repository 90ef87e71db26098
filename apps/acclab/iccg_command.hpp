// acclab iccg MATRIX.mtx: the ICCG solver on a user's symmetric positive definite matrix.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "core/registry.hpp"

namespace acclab {

struct IccgArgs {
  std::string matrix;
  std::string rhs;  // empty: b = A 1, so that the error against x = 1 is reported too
  int colors = -20;
  double tol = 1e-8;
  int maxiter = 10000;
  double shift = 0;  // > 0: factor (1 + shift) times the diagonal
  std::string out;
  std::string variant;           // empty: iccg::choose_matrix_variant's default
  std::string format = "table";  // table or json
  bool quiet = false;            // no progress lines on stderr
};

void add_iccg_options(CLI::App* cmd, IccgArgs& args);

// Reads and checks the matrix (square, symmetric, positive diagonal), orders, factors and
// solves by the chosen ladder step (--variant, or the fastest this machine has); prints the
// report (with --format json one object, schema acclab.iccg/1) and writes x. Returns 0 when
// the recomputed ||b - A x|| / ||b|| is below --tol (x written), 1 when it is not (not
// converged, stagnated or not finite: one line on stderr, --out untouched), and throws
// UsageError (status 2) on bad input, a --variant not built or without its GPU here, or a
// matrix that is not positive definite (IC(0) breakdown without --shift, or p . A p <= 0).
int iccg_command(const IccgArgs& args, const Registry& registry);

}  // namespace acclab
