// The multicolour ICCG solve over OpenMP threads (`original`, the course's 01_original) or on
// one thread (`setup`, its 02_setup, the code prepared for OpenACC), and the serial solve every
// variant is compared with. Dot products are summed in fixed blocks of rows and the blocks in
// order, so that the result does not depend on the number of threads.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/compare.hpp"
#include "core/reference_memo.hpp"
#include "workloads/iccg/iccg.hpp"

namespace acclab::iccg {
namespace {

constexpr std::int64_t dot_block = 4096;

double dot(const std::vector<double>& x, const std::vector<double>& y, int threads) {
  const std::int64_t n = std::int64_t(x.size());
  const std::int64_t blocks = (n + dot_block - 1) / dot_block;
  std::vector<double> partial(static_cast<std::size_t>(blocks), 0.0);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    double sum = 0;
    for (std::int64_t i = b * dot_block; i < std::min(n, (b + 1) * dot_block); ++i) {
      sum += x[i] * y[i];
    }
    partial[b] = sum;
  }
  double sum = 0;
  for (double s : partial) sum += s;
  return sum;
}

}  // namespace

// Each colour is a parallel loop ended by a barrier (2 x colours + 5 loops an iteration),
// so a thread pays only when its share of a colour's rows outlasts waking it and joining it:
// microseconds on an idle machine, a whole scheduler time slice on a busy one, where the
// barrier waits for a thread that is not running. 2048 rows a thread and colour is past where a
// second thread breaks even on idle cores, so small systems stay on one thread and the course's
// meshes keep every thread (the measurements: bench/results/cpu/iccg/NOTES.md).
constexpr std::int64_t rows_per_thread_and_color = 2048;

int useful_threads(std::int64_t rows, int colors, int available) {
  const std::int64_t rows_per_color = rows / std::max(1, colors);
  return int(std::clamp<std::int64_t>(rows_per_color / rows_per_thread_and_color, 1,
                                      std::max(1, available)));
}

Solution solve_iccg(const Csr& a, const std::vector<double>& b, const Ordering& o, double eps,
                    int max_iterations, int threads, double shift) {
  const std::int64_t n = a.n;
  Solution s;
  s.x.assign(static_cast<std::size_t>(n), 0.0);
  const auto size = static_cast<std::size_t>(n);
  std::vector<double> w(size), r = b, z(size), p(size), q(size);
  // dot(b, b) of a tiny b underflows to 0, and x = 0 is not the answer then: norm2 where the sum
  // of squares left its safe range (elsewhere the fixed-block sum, as every variant has it).
  const double bb = dot(b, b, threads);
  const double norm_b = std::isfinite(bb) && bb >= 0x1p-600 ? std::sqrt(bb) : norm2(b);
  if (norm_b == 0) {  // x = 0 is exact, whatever A; CG would divide 0 by 0
    s.converged = true;
    return s;
  }
  if (!std::isfinite(norm_b)) {
    s.not_finite = true;
    s.relative_residual = NAN;
    return s;
  }
  // IC(0), colour by colour: the rows of a colour depend only on earlier colours.
  for (int c = 0; c < o.colors; ++c) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = o.color_start[c]; i < o.color_start[c + 1]; ++i) {
      double value = a.diagonal[i] * (1 + shift);
      for (std::int64_t e = a.start[i]; e < a.start[i + 1] && a.column[e] < i; ++e) {
        value -= a.value[e] * a.value[e] * w[a.column[e]];
      }
      w[i] = 1.0 / value;
    }
  }
  // A pivot (1 / w) not above epsilon times the row's factored diagonal is what cancellation
  // left of it, its sign unknown: relative, so that the test means the same at any scale of A.
  const double epsilon = std::numeric_limits<double>::epsilon();
  for (std::int64_t i = 0; i < n; ++i) {
    if (!(w[i] > 0) || !(w[i] * (a.diagonal[i] * (1 + shift)) * epsilon < 1)) {
      s.breakdown_row = i;
      s.iterations = 0;
      return s;
    }
  }
  double rho_old = 1;
  for (s.iterations = 1; s.iterations <= max_iterations; ++s.iterations) {
    // z = M^-1 r: forward through the colours (columns below the diagonal come first in each
    // sorted row), then backward.
    for (int c = 0; c < o.colors; ++c) {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::int64_t i = o.color_start[c]; i < o.color_start[c + 1]; ++i) {
        double value = r[i];
        for (std::int64_t e = a.start[i]; e < a.start[i + 1] && a.column[e] < i; ++e) {
          value -= a.value[e] * z[a.column[e]];
        }
        z[i] = value * w[i];
      }
    }
    for (int c = o.colors - 1; c >= 0; --c) {
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::int64_t i = o.color_start[c]; i < o.color_start[c + 1]; ++i) {
        double value = 0;
        for (std::int64_t e = a.start[i + 1]; e-- > a.start[i] && a.column[e] > i;) {
          value += a.value[e] * z[a.column[e]];
        }
        z[i] -= w[i] * value;
      }
    }
    const double rho = dot(r, z, threads);
    if (!std::isfinite(rho)) {
      s.not_finite = true;
      s.relative_residual = NAN;
      break;
    }
    const double beta = s.iterations == 1 ? 0.0 : rho / rho_old;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      p[i] = z[i] + beta * p[i];
    }
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      double value = a.diagonal[i] * p[i];
      for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) {
        value += a.value[e] * p[a.column[e]];
      }
      q[i] = value;
    }
    const double pq = dot(p, q, threads);
    if (!std::isfinite(pq)) {
      s.not_finite = true;
      s.relative_residual = NAN;
      break;
    }
    if (!(pq > 0)) {  // p != 0 here (r is not yet 0), so p . A p <= 0 proves A indefinite
      s.indefinite = true;
      break;
    }
    const double alpha = rho / pq;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      s.x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    rho_old = rho;
    s.relative_residual = std::sqrt(dot(r, r, threads)) / norm_b;
    if (std::isnan(s.relative_residual)) {
      s.not_finite = true;
      break;
    }
    if (s.relative_residual < eps) {
      s.converged = true;
      break;
    }
  }
  s.iterations = std::min(s.iterations, max_iterations);
  return s;
}

namespace {

// The serial solve of `p` (mesh, ordering, eps), kept for the last problem asked.
const Solution& serial_solution(const Problem& p, const Csr& a, const std::vector<double>& b,
                                const Ordering& o) {
  using Key = std::tuple<int, int, int, int, double, int>;
  static ReferenceMemo<Key, Solution> memo("iccg");
  return memo.get(Key{p.nx, p.ny, p.nz, p.colors, p.eps, p.max_iterations}, [&] {
    // Threads where they pay: the arithmetic is that of one thread, bit for bit (fixed-block
    // dots).
    return solve_iccg(a, b, o, p.eps, p.max_iterations,
                      useful_threads(a.n, o.colors, omp_get_max_threads()));
  });
}

class Original : public IccgInstance {
 public:
  using IccgInstance::IccgInstance;
  void run() override {
    solution_ = solve_iccg(a_, b_, ordering_, p_.eps, p_.max_iterations,
                           useful_threads(a_.n, ordering_.colors, omp_get_max_threads()));
  }

 protected:
  bool same_arithmetic_as_serial() const override { return true; }
  bool checked_against_direct_solve() const override { return true; }
};

class Setup : public IccgInstance {
 public:
  using IccgInstance::IccgInstance;
  void run() override { solution_ = solve_iccg(a_, b_, ordering_, p_.eps, p_.max_iterations, 1); }

 protected:
  bool same_arithmetic_as_serial() const override { return true; }
};

}  // namespace

namespace {

// ||x - y||_2 / ||y||_2 (norm2's, at any scale); NaN if either holds one.
double relative_distance(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> difference(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) difference[i] = x[i] - y[i];
  return norm2(difference) / norm2(y);
}

// The largest absolute row sum: a bound on ||A||_2 for a symmetric A.
double max_row_sum(const Csr& a) {
  double largest = 0;
  for (std::int64_t i = 0; i < a.n; ++i) {
    double sum = std::abs(a.diagonal[i]);
    for (std::int64_t e = a.start[i]; e < a.start[i + 1]; ++e) sum += std::abs(a.value[e]);
    largest = std::max(largest, sum);
  }
  return largest;
}

}  // namespace

Verification IccgInstance::verify() {
  Verification v;
  // The kept serial solve is keyed by the problem's parameters, which do not describe a user's
  // system (use_system): that one is solved here and never kept, in memory or in
  // ACCLAB_REFERENCE_DIR.
  const Solution own = user_system_ ? solve_iccg(a_, b_, ordering_, p_.eps, p_.max_iterations,
                                                 useful_threads(a_.n, ordering_.colors,
                                                                omp_get_max_threads()))
                                    : Solution{};
  const Solution& serial = user_system_ ? own : serial_solution(p_, a_, b_, ordering_);
  const double u = std::numeric_limits<double>::epsilon() / 2;
  // x in the mesh's own numbering, checked against the system as generated, not the permuted
  // copy the solver read.
  std::vector<double> x(solution_.x.size());
  bool finite = solution_.x.size() == mesh_.b.size() && std::isfinite(solution_.relative_residual);
  for (std::int64_t i = 0; finite && i < mesh_.a.n; ++i) {
    x[i] = solution_.x[ordering_.new_of_old[i]];
    finite = std::isfinite(x[i]);
  }
  const double residual = finite ? true_relative_residual(mesh_.a, mesh_.b, x) : NAN;
  // The recurrence's residual drifts from the true one by rounding: each iteration's updates of
  // x and r round by about u (||A|| ||x|| + ||b||) (Greenbaum 1997), errors of either sign that
  // add up like a random walk over the iterations: sqrt(iterations) of them. The bound is eps
  // plus that drift, which stays well under how far above eps the iteration before the last
  // leaves the residual, so that a solve stopped an iteration early fails (the margins at the
  // presets: bench/results/cpu/iccg/NOTES.md).
  const double norm_b = norm2(mesh_.b), norm_x = finite ? norm2(x) : NAN;
  const double drift = std::sqrt(double(std::max(1, solution_.iterations))) * u *
                       (max_row_sum(mesh_.a) * norm_x + norm_b) / norm_b;
  const double tolerance = p_.eps + drift;
  v.outputs["tolerance"] = tolerance;
  v.outputs["difference"] = finite ? residual : HUGE_VAL;
  v.outputs["residual"] = residual;
  v.outputs["recurrence_residual"] = solution_.relative_residual;
  v.outputs["colors"] = ordering_.colors;
  v.outputs["iterations"] = solution_.iterations;
  v.outputs["serial_iterations"] = serial.iterations;

  // Against the serial solve, max |x - serial| / max |serial|: bit for bit where the arithmetic
  // is the same; otherwise both residuals are below the tolerance, so
  // max |x - serial| <= ||x - serial||_2 <= 2 tolerance ||b||_2 / lambda_min.
  const double lambda_min = mesh_smallest_eigenvalue(p_.nz);
  double max_serial = 0;
  for (double value : serial.x) max_serial = std::max(max_serial, std::abs(value));
  // (finite: x has the serial solve's n elements, none of them NaN or infinite.)
  const std::int64_t n = std::int64_t(serial.x.size());
  const double serial_difference =
      finite ? max_abs_difference(solution_.x.data(), serial.x.data(), n).value / max_serial
             : HUGE_VAL;
  const double serial_tolerance =
      same_arithmetic_as_serial() ? 0.0 : 2 * tolerance * norm_b / lambda_min / max_serial;
  v.outputs["max_diff_vs_serial"] = serial_difference;
  v.outputs["serial_tolerance"] = serial_tolerance;
  // The serial solve with the same ordering takes the same iterations, give or take 2 where
  // rounding differs.
  const bool iterations_match = same_arithmetic_as_serial()
                                    ? solution_.iterations == serial.iterations
                                    : std::abs(solution_.iterations - serial.iterations) <= 2;
  bool reference_ok = true;
  std::string reference_detail;
  if (checked_against_direct_solve() && reference_solve_fits(mesh_.a.n, bandwidth(mesh_.a))) {
    // The direct solve's own error (backward stable, in long double) is far below the bound:
    // ||x - x_direct|| <= ||r|| / lambda_min.
    const std::vector<double> direct = reference_solve(mesh_.a, mesh_.b);
    const double difference = finite && !direct.empty() ? relative_distance(x, direct) : HUGE_VAL;
    const double bound = tolerance * norm_b / lambda_min / norm2(direct);
    v.outputs["direct_solve_difference"] = difference;
    v.outputs["direct_solve_tolerance"] = bound;
    reference_ok = difference <= bound;
    reference_detail = fmt::format("; ||x - direct solve|| / ||x|| = {:.3g} {} {:.3g}", difference,
                                   reference_ok ? "<=" : ">", bound);
  }
  v.outputs.update(extra_outputs_);
  v.ok = finite && solution_.converged && residual <= tolerance && iterations_match &&
         serial_difference <= serial_tolerance && reference_ok;
  v.detail = fmt::format(
      "{} after {} iterations ({} colours): ||b - A x|| / ||b|| = {:.3g} {} {:.3g}; serial solve "
      "{} iterations, max |x - serial| / max |serial| = {:.3g} {} {:.3g}{}",
      !finite               ? "not finite"
      : solution_.converged ? "converged"
                            : "not converged",
      solution_.iterations, ordering_.colors, residual, residual <= tolerance ? "<=" : ">",
      tolerance, serial.iterations, serial_difference,
      serial_difference <= serial_tolerance ? "<=" : ">", serial_tolerance, reference_detail);
  return v;
}

std::unique_ptr<Instance> make_original(const Params& params) {
  return std::make_unique<Original>(params);
}

std::unique_ptr<Instance> make_setup(const Params& params) {
  return std::make_unique<Setup>(params);
}

}  // namespace acclab::iccg
