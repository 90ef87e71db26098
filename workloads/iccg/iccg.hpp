// The course's ICCG solver: conjugate gradients preconditioned by incomplete Cholesky, for a
// finite-volume Poisson problem, parallel by multicolour ordering.
//
// The problem, as the course's code defines it: an nx x ny x nz grid of unit cubes, a 7-point
// coupling through every face shared with a neighbour (coefficient area / distance = 1), zero
// flux on the outer faces except phi = 0 on the top z face (the half cell between the centre
// and the face: coefficient 2, added to the top layer's diagonal), and a source proportional to
// (i + j + k) (1-based) times the cell volume. Sign convention: we solve A phi = b with
// A = D - C, D the sum of a cell's coefficients (positive), C the neighbours' (+1 each), so A is
// symmetric, diagonally dominant and, thanks to the Dirichlet face, positive definite; b is
// (i + j + k) times the volume.
//
// IC(0) is the course's: the sparsity of A, only the diagonal modified,
//   W[i] = 1 / (A[i][i] - sum over earlier j of A[i][j]^2 W[j]),
// applied as M = (W^-1 + L) W (W^-1 + U). In a multicolour ordering no two coupled rows share a
// colour, so every row of a colour can be factored and substituted at once.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/registry.hpp"

namespace acclab::iccg {

// A symmetric matrix in compressed rows, the diagonal apart.
struct Csr {
  std::int64_t n = 0;
  std::vector<double> diagonal;
  std::vector<std::int64_t> start;  // n + 1 offsets into column/value
  std::vector<std::int64_t> column;
  std::vector<double> value;
};

// The course's mesh and source: the matrix and right-hand side above.
struct Poisson {
  Csr a;
  std::vector<double> b;
};
Poisson poisson_problem(int nx, int ny, int nz);

// The course's -c argument: 0 CM (Cuthill-McKee levels as colours), -1 RCM, <= -2 CM-RCM with
// |c| colours (RCM levels dealt round-robin into |c| colours), >= 2 plain multicolour (greedy,
// at least c colours). Wherever two coupled rows would share a colour (a graph that is not
// level-bipartite), the later one moves to a colour of its own kind: more colours are added.
struct Ordering {
  int colors = 0;
  std::vector<std::int64_t> color_start;  // colors + 1 offsets into the new numbering
  std::vector<std::int64_t> new_of_old;   // permutation: old row -> new row
  std::vector<std::int64_t> old_of_new;
};
Ordering order_rows(const Csr& a, int colors);

// Within each colour, the rows sorted by their number of couplings, widest first, ties in their
// order: the colour slabs can then split a colour into runs of similar width (color_ell). Rows
// of one colour are not coupled, so any order among them is as valid an ordering (acclab iccg
// FILE sorts; the course's mesh keeps the order the course uses).
void group_rows_by_width(const Csr& a, Ordering& o);

// Whether two coupled rows share a colour (false for a valid ordering).
bool coupled_rows_share_a_color(const Csr& a, const Ordering& o);

// The matrix with rows and columns renumbered by the ordering, each row's columns sorted.
Csr permuted(const Csr& a, const Ordering& o);

struct Solution {
  std::vector<double> x;  // in the permuted numbering
  int iterations = 0;
  double relative_residual = 0;  // ||r|| / ||b|| of the recurrence (NaN after a NaN dot)
  bool converged = false;
  // The first row whose IC(0) pivot was not positive (the matrix is not positive definite, or
  // IC(0) breaks down on it): no iteration was run. -1 when none.
  std::int64_t breakdown_row = -1;
  // A dot product came out NaN or infinite: the solve stopped at that iteration.
  bool not_finite = false;
  // p . A p <= 0 for a search direction p != 0: A is not positive definite; stopped there.
  bool indefinite = false;

  // Every field, for a reference kept across processes (core/reference_store.hpp).
  template <typename Visit>
  void fields(Visit&& visit) {
    visit(x);
    visit(iterations);
    visit(relative_residual);
    visit(converged);
    visit(breakdown_row);
    visit(not_finite);
    visit(indefinite);
  }
};

// Refuses (UsageError naming `option`) a relative-residual tolerance below double precision's
// epsilon: computing A x alone rounds by about u ||A|| ||x||, so no solve can reach it, and CG
// iterated on towards it ends in NaN.
void refuse_unreachable_tolerance(const std::string& option, double tol);

// The preconditioned CG, colour by colour; `threads` > 1 splits each colour's rows over OpenMP
// threads (the same arithmetic: the result is the same bit for bit). `shift` > 0 factors
// (1 + shift) times the diagonal instead of the diagonal (shifted IC(0), for matrices on which
// IC(0) breaks down); the system solved is A's all the same. b = 0 gives x = 0 after no
// iteration, converged (b's norm is norm2's: a tiny b is not taken for 0). IC(0) breaks down
// (breakdown_row) where a pivot is not above epsilon times its row's factored diagonal: below
// that it is rounding left by cancellation, whatever the matrix's scale. The dot products are
// plain sums, so A's entries and b must lie within a few hundred binary orders of 1 for their
// squares not to underflow or overflow: solve_matrix scales a user's system by powers of two
// first (the course's mesh is already).
Solution solve_iccg(const Csr& a, const std::vector<double>& b, const Ordering& o, double eps,
                    int max_iterations, int threads, double shift = 0);

// How many of `available` threads solve_iccg should use for `rows` rows in `colors` colours:
// fewer where a colour's rows are too few to pay for waking a thread and joining it at the
// colour's barrier (solver.cpp says how the threshold was chosen).
int useful_threads(std::int64_t rows, int colors, int available);

// ||x||_2 at any scale: the plain sum of squares where no square can have underflowed or
// overflowed enough to matter (then the same bits as sqrt(x . x)), else summed with x scaled by
// the power of two of its largest magnitude (exact), as LAPACK's dnrm2 guards its sum. NaN if x
// holds a NaN, +inf if an infinity.
double norm2(const std::vector<double>& x);

// The exponent e of a power of two near max |v|, for scaling v by 2^-e (exact): max |v| / 2^e
// is in [1, 2). 0 when v is all zero or holds a NaN or an infinity (nothing to scale).
int scale_exponent(const std::vector<double>& v);
// The same for A's entries, the diagonal's and the couplings' together.
int matrix_scale_exponent(const Csr& a);

// ||b - A x|| / ||b||, computed afresh in double at any scale of A, x and b: A, x and b are
// scaled by powers of two (exact) so that no product or square underflows or overflows, and the
// norms are norm2's. For b = 0: 0 if A x = 0, +inf if not. NaN if x holds a NaN.
double true_relative_residual(const Csr& a, const std::vector<double>& b,
                              const std::vector<double>& x);

// The independent reference: A x = b solved directly by a band Cholesky factorisation in long
// double (no ordering, no IC(0), no CG). Cost rows x bandwidth^2 / 2: meant for small systems.
// Empty when A is not positive definite.
std::vector<double> reference_solve(const Csr& a, const std::vector<double>& b);

// max |i - j| over the stored couplings (the band the reference solve factors).
std::int64_t bandwidth(const Csr& a);

// Whether reference_solve is cheap enough to run as a check (rows x band^2 / 2 multiply-adds in
// long double, about 0.1 s at the bound), and the bytes it then allocates.
bool reference_solve_fits(std::int64_t rows, std::int64_t band);
double reference_solve_bytes(std::int64_t rows, std::int64_t band);

// The smallest eigenvalue of the course's mesh matrix: its x and y couplings have the constant
// mode (eigenvalue 0), and along z a zero-flux bottom and the half-cell Dirichlet top make the
// modes cos(theta (k + 1/2)) with theta nz = pi / 2 + m pi, so 4 sin^2(pi / (4 nz)). The
// 2-norm of the inverse, that turns a residual bound into an error bound.
double mesh_smallest_eigenvalue(int nz);

// The parameters of one run, read once (problem_of).
struct Problem {
  int nx = 0, ny = 0, nz = 0;
  int colors = -20;
  double eps = 1e-8;
  int max_iterations = 0;

  std::int64_t rows() const { return std::int64_t(nx) * ny * nz; }
};
// The problem of these values, parsed at the first call and kept with them (Params::problem).
const Problem& problem_of(const Params& params);

Workload make_workload();

// color_ell's min_saved_slots that never splits a colour (the course's mesh, whose rows are all
// about as wide).
constexpr std::int64_t no_split = std::numeric_limits<std::int64_t>::max();

class IccgInstance : public Instance {
 public:
  explicit IccgInstance(const Params& params);
  // The mesh, the ordering and the permuted system (the setup the course times as "assemble").
  void setup() override;
  // x finite, converged, ||b - A x|| / ||b|| recomputed from the unpermuted system within eps
  // (plus the rounding drift of the recurrence), the iterations those of the serial solve with
  // the same ordering give or take 2, x equal to the serial x (bitwise for the same
  // arithmetic, else within what the residual bound allows) and, for the reference variant on
  // small meshes, within that bound of the direct solve.
  Verification verify() override;
  void corrupt_result() override;

  // A user's system instead of the course's mesh (acclab iccg FILE), before setup(): setup
  // orders and permutes `a` and `b` by the `colors` parameter as it does the mesh, and the
  // variant factors (1 + shift) times the diagonal (shifted IC(0); 0: the diagonal itself).
  // verify() is the mesh's and does not apply: the caller checks x against `a` itself. The rows
  // of each colour are sorted widest first (group_rows_by_width), and the GPU steps' colour slabs
  // split a colour where that saves `min_saved_slots` slots of padding (color_ell).
  void use_system(Csr a, std::vector<double> b, double shift, std::int64_t min_saved_slots);
  // After finish(): the solve, x in the permuted numbering.
  const Solution& solution() const { return solution_; }
  const Ordering& ordering() const { return ordering_; }

 protected:
  // Whether the variant's arithmetic is the serial solve's, operation for operation (its x must
  // then equal the serial x bit for bit).
  virtual bool same_arithmetic_as_serial() const { return false; }
  // Whether to check x against reference_solve (the reference variant, where the size allows).
  virtual bool checked_against_direct_solve() const { return false; }

  Problem p_;
  Poisson mesh_;  // the course's system in its own numbering, for the residual check
  Csr a_;         // permuted
  std::vector<double> b_;
  Ordering ordering_;
  Solution solution_;
  nlohmann::json extra_outputs_ = nlohmann::json::object();  // a variant's own, for verify()
  bool user_system_ = false;  // mesh_ holds a user's system (use_system), not the course's
  double factor_scale_ = 1;   // the factor takes factor_scale_ times the diagonal (1 + shift)
  std::int64_t min_saved_slots_ = no_split;  // color_ell's (use_system sets a file's)
};

// Device addresses of a permuted system and the solver's vectors, for OpenACC's `deviceptr`: the
// device copies of present host arrays, or CUDA managed allocations.
struct DeviceSystem {
  std::int64_t n = 0;
  const double* diagonal = nullptr;
  const std::int64_t* start = nullptr;
  const std::int64_t* column = nullptr;
  const double* value = nullptr;
  const double* b = nullptr;
  double *x = nullptr, *w = nullptr, *r = nullptr, *z = nullptr, *p = nullptr, *q = nullptr;
};
namespace acc {
// The solve with every loop an OpenACC parallel loop on `d` (acc_solver.cpp); x stays there.
Solution solve_device(const DeviceSystem& d, const Ordering& o, double eps, int max_iterations);
}  // namespace acc

// The rows of ladder.json built into this binary (generated from the table).
std::vector<LadderRow> ladder();

void register_variants(Registry& registry);

}  // namespace acclab::iccg
