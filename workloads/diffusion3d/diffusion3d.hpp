// The course's openacc_diffusion workload: the heat equation df/dt = kappa laplacian(f) on the
// unit cube, an nx x ny x nz float grid of cell centres, explicit Euler steps of a 7-point
// stencil with zero-flux walls (a missing neighbour is replaced by the cell itself).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.hpp"
#include "kit/omp_tuned.hpp"

namespace acclab::diffusion3d {

// The loop nests omp_target_tuned runs (omp_shape), the default first.
inline const std::vector<OmpShape>& omp_target_shapes() {
  static const std::vector<OmpShape> shapes = {
      {"rows",
       "collapse(2) over k and j, a thread a row, its i over the warp's lanes (an inner "
       "omp simd)",
       true},
      {"collapse", "collapse(3) over k, j, i"},
      {"flat", "one flat loop over all cells"}};
  return shapes;
}

// The cuda step's compiled block shapes (cuda_kernels.hpp), which its tunings cuda_planes and
// cuda_tile_y (cuda_host.cpp) choose from: planes per block (0: all nz) and thread rows per tile.
inline constexpr std::array<int, 6> cuda_planes_choices = {0, 4, 8, 16, 32, 64};
inline constexpr std::array<int, 3> cuda_tile_y_choices = {4, 8, 16};

// The parameters of one run, read once (problem_of) and the values derived from them.
struct Problem {
  std::int64_t nx = 0, ny = 0, nz = 0;
  double kappa = 0;
  double dt = 0;                   // as given, else the course's default
  std::int64_t steps = 0;          // as given, else counted from end_time; -1: past 2e9 (refused)
  std::optional<double> dt_given;  // the parameter dt, where set
  std::optional<std::int64_t> steps_given;  // the parameter steps, where set
  double end_time_given = 0;                // the parameter end_time
  bool alternate = true;                    // acc_tuned: odd steps walk the rows back to front
  std::string proc_grid;  // mpi_*: PxQxR, or empty for MPI_Dims_create's
  double dx = 0, dy = 0, dz = 0;
  // The course's coefficients: ce = cw = kappa dt / dx^2, and so on; cc = 1 - their sum.
  float ce = 0, cw = 0, cn = 0, cs = 0, ct = 0, cb = 0, cc = 0;

  std::int64_t points() const { return nx * ny * nz; }
  double end_time() const { return double(steps) * dt; }
};
// The problem of these values, parsed at the first call and kept with them (Params::problem).
const Problem& problem_of(const Params& params);

// The largest stable dt: kappa dt (1/dx^2 + 1/dy^2 + 1/dz^2) <= 1/2, so that cc >= 0.
double stable_dt_limit(double kappa, double dx, double dy, double dz);

Workload make_workload();

// f = 0.125 (1 - cos 2 pi x)(1 - cos 2 pi y)(1 - cos 2 pi z) at the cell centres.
std::vector<float> initial_field(const Problem& p);
// Cell (i, j, k) of initial_field, computed alone (the same expression, the same bits): for a
// box of the field without the whole of it.
float initial_value(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k);

// The continuous solution at time t: each cosine multiplied by exp(-kappa t (2 pi)^2).
double analytic(const Problem& p, std::int64_t i, std::int64_t j, std::int64_t k, double t);

// Root-mean-square difference between `f` and the continuous solution at time t.
double rms_error(const Problem& p, const float* f, double t);

// The exact solution of the discrete scheme after `steps` steps, in double. The scheme is
// linear and separable. With cell-centred mirror walls, c_i = cos(2 pi x_i), x_i = (i + 1/2) h,
// is an exact eigenvector of the 1D discrete Laplacian: the missing neighbour of cell 0 is cell
// 0 itself, and cos(2 pi (-h/2)) = cos(2 pi (h/2)); likewise at the far wall. The eigenvalue is
// -(2 - 2 cos(2 pi h)) / h^2; a constant has eigenvalue 0. Expanding
// f0 = 0.125 prod_d (1 - c_d) over the subsets S of {x, y, z}, after s steps
//   f_s = 0.125 sum_S (-1)^|S| mu_S^s prod_{d in S} c_d,
//   mu_S = 1 - dt kappa sum_{d in S} (2 - 2 cos(2 pi h_d)) / h_d^2.
// The analytic solution is the same sum with mu_S^s replaced by exp(-|S| kappa t (2 pi)^2).
std::vector<double> discrete_solution(const Problem& p, std::int64_t steps);

// Bound on rms(discrete_solution - analytic) after `steps` steps: the scheme's truncation
// error, O(dt) + O(h^2), bounded mode by mode (verify.cpp gives the derivation).
double truncation_bound(const Problem& p, std::int64_t steps);

// Bound on max |original - discrete_solution| after `steps` steps: the float rounding of the
// scheme against exact arithmetic, linear in the steps because the float coefficients shift
// every mode's factor mu_S the same way at every step (verify.cpp gives the derivation).
double rounding_bound(std::int64_t steps);

// Bound on max |f - original| for a variant's field after `steps` steps (verify.cpp gives
// the derivation): 6 standard deviations of the two evaluations' rounding differences adding
// up as a random walk, 7.75 eps sqrt(steps) max|f| with max|f| <= 1.
double original_tolerance(std::int64_t steps);

// The verification of `result` as the field after p.steps steps, from a run whose own loop
// counted `steps_done` steps: compared with the original's field after p.steps steps (the
// primary check: outputs tolerance and difference), and with the exact discrete solution when
// `against_exact` (the reference variant's own check). Each variant's verify() is this; the
// tests call it directly with a field of fewer steps to show that the bound catches it.
Verification verify_result(const Problem& p, const float* result, std::int64_t steps_done,
                           bool against_exact);

// One step of the reference, for planes [k_begin, k_end).
void step_planes(const Problem& p, const float* f, float* fn, std::int64_t k_begin,
                 std::int64_t k_end);
// The serial reference after `steps` steps (planes split over OpenMP threads: every point's
// arithmetic is the serial code's, so the result is bit for bit the serial one). Cached.
const std::vector<float>& reference_after(const Problem& p, std::int64_t steps);
// max |reference after steps - reference after steps - 1|: what a field one step short differs
// by, to compare original_tolerance with. 0 for no steps. Cached with reference_after.
double reference_last_step_change(const Problem& p, std::int64_t steps);

// Host fields, the result and its verification, shared by every variant.
class DiffusionInstance : public Instance {
 public:
  explicit DiffusionInstance(const Params& params);
  void setup() override;
  void reset() override;
  // verify_result(p_, result_, steps_, against_exact_), with the variant's own outputs.
  Verification verify() override;
  void corrupt_result() override;

 protected:
  // Runs the steps, `step(f, fn)` doing one, swapping fields in between; leaves result_ on
  // the field holding the last step and steps_ on the steps done.
  template <typename Step>
  void iterate(float* f, float* fn, Step&& step) {
    steps_ = 0;
    for (std::int64_t s = 0; s < p_.steps; ++s) {
      step(f, fn);
      std::swap(f, fn);
      ++steps_;
    }
    result_ = f;
  }

  Problem p_;
  std::vector<float> initial_, f_, fn_;
  nlohmann::json extra_outputs_ = nlohmann::json::object();  // a variant's own, for verify()
  const float* result_ = nullptr;
  std::int64_t steps_ = 0;      // steps the last run did, counted where they ran
  bool against_exact_ = false;  // the reference variant: also checked against the exact solution
};

// The rows of ladder.json built into this binary (generated from the table).
std::vector<LadderRow> ladder();

void register_variants(Registry& registry);

}  // namespace acclab::diffusion3d
