// The seed's Jacobi solver for the 2D Poisson equation: laplacian(u) = 4 on a rows x cols float
// grid over [0, height] x [0, width], u = x^2 + y^2 on the boundary, interior starting at 0.
// The 5-point stencil is exact for this quadratic, so x^2 + y^2 is also the exact solution of
// the discrete problem: the iteration converges to it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/profile.hpp"
#include "core/registry.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::jacobi2d {

// The loop nests omp_target_tuned runs (omp_shape), the default first.
inline const std::vector<OmpShape>& omp_target_shapes() {
  static const std::vector<OmpShape> shapes = {
      {"rows", "a thread a row, its columns over the warp's lanes (an inner omp simd)", true},
      {"collapse", "collapse(2) over the interior"},
      {"flat", "one flat loop over the interior rows' points"}};
  return shapes;
}

// Sizes and stencil coefficients, computed once as the seed does (in double, stored as float).
// The parameters of one run, read once (problem_of) and the values derived from them.
struct Problem {
  std::int64_t rows = 0, cols = 0;  // grid points, boundaries included (seed: 8192 x 1024)
  double height = 0, width = 0;
  std::int64_t iters = 0;  // sweeps; in tol mode the most sweeps allowed (tol_mode_sweep_cap)
  std::optional<std::int64_t> iters_given;  // the parameter iters, where set
  std::optional<double> tol_given;          // the parameter tol, where set: tol mode
  bool tol_mode = false;
  double tol = 0;                // stop when max |u_new - u_old| < tol (tol mode)
  std::int64_t check_every = 1;  // sweeps between two convergence checks (tol mode)
  bool alternate = true;         // acc_resident: even sweeps walk the rows bottom-up
  std::string proc_grid;         // mpi_*: PxQ, or empty for MPI_Dims_create's

  float hx = 0, wy = 0;  // grid spacing along rows (x) and columns (y)
  float hx2 = 0, wy2 = 0;
  float c1f = 0;  // hx^2 * wy^2 * f, with f = -4 (the seed's sign: f = -laplacian)
  float c2 = 0;   // 1 / (2 (hx^2 + wy^2))

  std::int64_t points() const { return rows * cols; }
  std::int64_t interior() const { return (rows - 2) * (cols - 2); }
  // |u|max: the exact solution's largest value, x^2 + y^2 at the far corner.
  double umax() const { return height * height + width * width; }
  // Whether the sweep that has just been done (counting from 1) is followed by a check.
  bool check_after(std::int64_t sweep) const { return tol_mode && sweep % check_every == 0; }
};
// The problem of these values, parsed at the first call and kept with them (Params::problem).
const Problem& problem_of(const Params& params);

Workload make_workload();

// The seed's boundary values and zero interior, for both grids.
std::vector<float> initial_grid(const Problem& p);

// Spectral radius of the Jacobi iteration on this grid:
// (wy^2 cos(pi/(rows-1)) + hx^2 cos(pi/(cols-1))) / (hx^2 + wy^2).
double jacobi_spectral_radius(const Problem& p);

// The default of `iters` in tol mode: twice the sweeps after which the max-norm change must be
// below tol in exact arithmetic. With e_k = u_k - exact, |e_0| <= |u|max at each of the N
// interior points, so ||e_k||_2 <= rho^k sqrt(N) |u|max, and the change
// u_{k+1} - u_k = (J - I) e_k has max norm <= 2 rho^k sqrt(N) |u|max: below tol once
// k >= ln(2 sqrt(N) |u|max / tol) / ln(1/rho). Twice that leaves room for float rounding near
// the fixed point; rounded up to a multiple of check_every.
std::int64_t tol_mode_sweep_cap(const Problem& p);

// Bound on max |u - (x^2 + y^2)| once the max-norm change of the last sweep is `residual`, in
// the max norm throughout. With e_k = u_k - exact (zero on the boundary),
// (I - J) e_k = u_k - u_{k+1}, and I - J = c2 hx^2 wy^2 L with L the 5-point -laplacian. L's
// inverse is non-negative, and w = x (height - x) / 2 has L w = 1 exactly (a quadratic) and
// w >= 0 on the boundary, so ||L^-1||_inf <= max w = height^2 / 8 (likewise width^2 / 8):
//   ||(I - J)^-1||_inf <= K = min(height, width)^2 (hx^2 + wy^2) / (4 hx^2 wy^2),
// and max |e_k| <= K residual, max |e_{k+1}| <= max |e_k| (||J||_inf = 1). In float each sweep
// also errs by up to 8 eps |u|max (exact_iterate_bound's rounding and coefficients) and the
// boundary values by 2 eps |u|max:
//   bound = K (residual + 8 eps |u|max) + 10 eps |u|max.
double converged_error_bound(const Problem& p, double residual);

// The grid after `sweeps` sweeps in exact arithmetic, in closed form, independent of the sweep
// code: with e_k = u_k - (x^2 + y^2) (zero on the boundary), e_k = J^k e_0, and J's
// eigenvectors are s_p(i) s_q(j), s_p(i) = sin(pi p i / (rows-1)), s_q(j) = sin(pi q j /
// (cols-1)), with eigenvalues (wy^2 cos(pi p/(rows-1)) + hx^2 cos(pi q/(cols-1))) / (hx^2 + wy^2).
// e_0 = -(x^2 + y^2) inside is expanded in them by two sine sums, each mode multiplied by its
// eigenvalue to the power `sweeps`, and summed back: O(rows cols (rows + cols)) operations.
std::vector<double> exact_iterate(const Problem& p, std::int64_t sweeps);
// Whether exact_iterate costs no more than about a sweep of the seed's grid, as the serial
// variant's verification can afford.
bool exact_iterate_affordable(const Problem& p);
bool exact_iterate_affordable(std::int64_t rows, std::int64_t cols);
// The host memory exact_iterate allocates for a rows x cols grid.
double exact_iterate_bytes(std::int64_t rows, std::int64_t cols);
// Bound on max |serial - exact_iterate| after `sweeps` sweeps (verify.cpp gives the
// derivation): eps |u|max (2 + 8 sweeps).
double exact_iterate_bound(const Problem& p, std::int64_t sweeps);

// The reference: plain loops, rows [row_begin, row_end) of one sweep from `in` to `out`. When
// `change` is non-null it receives max |out - in| over those rows.
void sweep_rows(const Problem& p, const float* in, float* out, std::int64_t row_begin,
                std::int64_t row_end, float* change);
// The serial reference's result after `sweeps` sweeps (computed with OpenMP threads over rows:
// every point's arithmetic is the serial code's, so the result is bit for bit the serial one).
// Cached: every variant of one run compares against the same grid.
const std::vector<float>& reference_after(const Problem& p, std::int64_t sweeps);

// max |reference after sweeps - reference after sweeps - 1|: what a grid one sweep short differs
// by, to compare serial_tolerance with. 0 for no sweeps. Cached with reference_after.
double reference_last_sweep_change(const Problem& p, std::int64_t sweeps);

// Bound on max |u - serial| for a variant's grid after `sweeps` sweeps in iters mode
// (verify.cpp gives the derivation): 6 standard deviations of the two evaluations' rounding
// differences adding up as a random walk, 6 eps |u|max sqrt(sweeps).
double serial_tolerance(const Problem& p, std::int64_t sweeps);

// The verification of `result`, from a run whose own loop counted `sweeps_done` sweeps and, in
// tol mode, last measured the max-norm change `residual`. iters mode: the grid compared with
// the serial one after p.iters sweeps (the primary check: outputs tolerance and difference).
// tol mode: converged, max |u - exact| <= converged_error_bound (primary), and the grid
// compared with the serial one after the same sweeps. Each variant's verify() is this; the
// tests call it directly with a grid of fewer sweeps to show that the bound catches it.
// With `against_exact` (the serial variant's own check, iters mode, where affordable) the grid
// is also compared with exact_iterate.
Verification verify_result(const Problem& p, const float* result, std::int64_t sweeps_done,
                           double residual, bool against_exact = false);

// Host grids, the result and its verification, shared by every variant.
class JacobiInstance : public Instance {
 public:
  explicit JacobiInstance(const Params& params);
  void setup() override;
  // Restores both host grids to the initial state.
  void reset() override;
  // verify_result(p_, result_, sweeps_, residual_, against_exact_).
  Verification verify() override;
  void corrupt_result() override;

 protected:
  // Runs the sweeps of one run() with `sweep(in, out, check)` doing one sweep (and, when check
  // is true, returning max |out - in|), swapping grids in between, stopping early in tol mode.
  // Leaves result_ pointing to the grid holding the last sweep, and sets sweeps_ and residual_.
  template <typename Sweep>
  void iterate(float* u0, float* u1, Sweep&& sweep);
  // The same sweeps, up to `most` in one call of `several(in, out, count, check)` (count >= 2;
  // check: the last of them is a checked one, whose change it returns), which never takes a
  // checked sweep before its last; `sweep` does the sweeps left alone.
  template <typename Sweep, typename Several>
  void iterate_in_passes(float* u0, float* u1, std::int64_t most, Sweep&& sweep, Several&& several);

  Problem p_;
  std::vector<float> initial_, u0_, u1_;
  const float* result_ = nullptr;  // host grid holding the result once finish() returned
  std::int64_t sweeps_ = 0;
  double residual_ = -1;        // last checked max change (tol mode)
  bool against_exact_ = false;  // the reference variant: also checked against exact_iterate
};

template <typename Sweep>
void JacobiInstance::iterate(float* u0, float* u1, Sweep&& sweep) {
  // One sweep a pass: `several` is never called.
  iterate_in_passes(u0, u1, 1, sweep,
                    [](const float*, float*, std::int64_t, bool) { return 0.0f; });
}

template <typename Sweep, typename Several>
void JacobiInstance::iterate_in_passes(float* u0, float* u1, std::int64_t most, Sweep&& sweep,
                                       Several&& several) {
  sweeps_ = 0;
  residual_ = -1;
  for (std::int64_t s = 1; s <= p_.iters;) {
    std::int64_t last = s;  // the pass's last sweep: the first checked one ends it
    while (last - s + 1 < most && last < p_.iters && !p_.check_after(last)) ++last;
    const std::int64_t count = last - s + 1;
    const bool check = p_.check_after(last);
    float change = 0;
    {
      const char* label =
          count > 1 ? (check ? "pass+check" : "pass") : (check ? "sweep+check" : "sweep");
      profile::Region region(label);  // --profile's label
      change = count > 1 ? several(u0, u1, count, check) : sweep(u0, u1, check);
    }
    std::swap(u0, u1);
    sweeps_ = last;
    s = last + 1;
    if (check) {
      residual_ = change;
      if (change < p_.tol) break;
    }
  }
  result_ = u0;
}

// The rows of ladder.json built into this binary (generated from the table).
std::vector<LadderRow> ladder();
void register_variants(Registry& registry);

}  // namespace acclab::jacobi2d
