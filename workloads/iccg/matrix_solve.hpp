// ICCG on a user's matrix (acclab iccg MATRIX.mtx): the Matrix Market file as a Csr, checked
// for what ICCG needs (square, symmetric, a positive diagonal), a right-hand side read or made,
// and the solve carried on until the residual recomputed from the file's matrix, not only the
// recurrence's, is below the tolerance.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/machine.hpp"
#include "core/registry.hpp"
#include "io/matrix_market.hpp"
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {

// The matrix as a Csr (both triangles, the diagonal apart). Throws UsageError naming `path` for
// a matrix that is not square, not symmetric (general storage whose (i, j) differs from
// (j, i)), has an entry twice or a row without a positive diagonal entry.
Csr csr_of(const std::string& path, const io::MatrixMarket& m);

// A 1: b for which the solution is x = 1, so that the error can be reported too.
std::vector<double> row_sums(const Csr& a);

// The system the user gave: the matrix and b, read from their files.
struct MatrixSystem {
  std::string name;  // the matrix file, for messages
  Csr a;
  std::vector<double> b;
  bool b_is_row_sums = false;  // no --rhs: b = A 1
  double read_s = 0;           // reading, checking and converting both
};

// Reads the matrix and the right-hand side (empty `rhs_path`: b = A 1). Errors name the file
// and line, those of the right-hand side prefixed with "--rhs".
MatrixSystem read_matrix_system(const std::string& matrix_path, const std::string& rhs_path);

// The most iterations --maxiter may ask for.
inline constexpr int max_iterations_limit = 1000000000;

struct MatrixSolveOptions {
  int colors = -20;  // as order_rows takes it
  double tol = 1e-8;
  int max_iterations = 10000;
  double shift = 0;  // > 0: factor (1 + shift) times the diagonal
  // The ladder step that solves: nullptr or `original`, solve_iccg on OpenMP threads; another
  // (optimized, cuda, cusparse) its own instance, given the system by use_system.
  const Variant* variant = nullptr;
  // The GPU steps' colour slabs: a colour split where that saves this many slots (color_ell).
  std::int64_t min_saved_slots = default_min_saved_slots;
};

// The variants acclab iccg FILE takes, fastest on a GPU first.
inline constexpr const char* matrix_variant_names[] = {"cuda", "optimized", "cusparse", "original"};

struct MatrixVariantChoice {
  const Variant* variant = nullptr;
  std::string reason;  // "--variant", or why the default is what it is
};

// `name` (empty: the default, cuda where a CUDA GPU is present, optimized where OpenACC runs on
// a GPU, original otherwise). Throws UsageError naming --variant and the choices for a name
// that is not one of matrix_variant_names, not built into this binary, or whose GPU is absent.
MatrixVariantChoice choose_matrix_variant(const std::string& name, const Registry& registry,
                                          Machine& machine);

// Throws UsageError naming the option (--colors, --tol, --maxiter, --shift) that is out of range.
void check_options(const MatrixSolveOptions& options);

struct MatrixSolution {
  std::vector<double> x;  // in the file's numbering
  std::int64_t rows = 0, nonzeros = 0;
  int colors = 0;          // of the ordering
  double residual = 0;     // ||b - A x|| / ||b|| recomputed from the file's matrix and this x
  double recurrence = 0;   // the last solve's own
  int iterations = 0;      // over every restart
  int restarts = 0;        // solves of A d = b - A x after the first
  bool stagnated = false;  // a restart did not halve the residual: double precision's limit
  bool finite = false;     // x and the residual hold no NaN or Inf
  bool converged = false;  // finite and residual < tol
  int threads = 1;         // original's OpenMP threads
  double setup_s = 0, solve_s = 0;
  // The variant's solves alone (run(), as the ladder times a step), restarts included; for a
  // GPU variant without its setup (upload, graph capture) and the host's residual checks, and
  // for every variant without the untimed warm-up solve before them (its iterations here, 1
  // unless b = 0 or IC(0) broke down).
  double run_s = 0;
  int warm_up_iterations = 0;
  // Per iteration: the matrix read three times (12 bytes a nonzero) and eight vectors, the
  // ladder's model; rates over run_s.
  double bytes_per_iteration = 0;
  double gbytes_per_s = 0;
  double seconds_per_iteration = 0;
  // With b = A 1 and a finite x: max |x - 1|.
  std::optional<double> error_from_ones;
};

// Orders, factors and solves. While the recurrence says converged but the recomputed residual
// is not below tol, restarts on that residual (x += the solve of A d = b - A x): rounding makes
// the recurrence's residual part from the true one near double precision's limit, and a restart
// that does not halve the true residual means the limit is reached (stagnated). Throws
// UsageError naming the matrix when it is not positive definite (IC(0) breaks down without a
// shift, saying whether its Cholesky factor exists where that is cheap to find out, or
// p . A p <= 0).
//
// At any scale: A and b are scaled by powers of two before the solve (exact; b's largest entry
// and, outside 2^+-100, A's to [1, 2)) and x scaled back, so A s and b s for any s in double's
// range take the iterations of s = 1 and give x (times s for b s) to the tolerance, where the
// unscaled arithmetic would underflow or overflow. `converged` is decided on one figure only:
// ||b - A x|| / ||b|| of the system as given, x as returned (true_relative_residual, free of
// underflow and overflow), below tol, with no slack, since the restarts above are driven by that
// same figure; b = 0 gives x = 0, converged after no iteration.
MatrixSolution solve_matrix(const MatrixSystem& system, const MatrixSolveOptions& options);

}  // namespace acclab::iccg
