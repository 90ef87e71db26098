// optimized_per_color (06, acc_per_color.cpp) in OpenMP target form: the matrix in the colour
// slabs (color_ell.hpp), resident on the device from setup to finish, a region per colour and
// phase: IC(0) and the forward sweep colour by colour, the backward sweep leaving r.z, then
// p = z + beta p fused into q = A p (a neighbour's new p computed from z and its old p, kept in a
// second array) leaving p.q, and x, r and r.r in one pass. What OpenMP changes:
//   - r.z and p.q stay on the device in `declare target` variables, each a region's
//     `reduction(+:)`: a reduction into a variable resident on the device combines there and
//     copies nothing back, so beta and alpha are worked out in the regions that use them (where
//     OpenACC adds per-gang partial sums in a kernel of its own). Only r.r comes back, once an
//     iteration, for the convergence test, and p.q, for the test that A is indefinite;
//   - every loop is one flat simd loop over a slab's rows (GCC 12's nvptx OpenMP spreads a
//     simd loop over a warp's 32 lanes only when it is not collapsed: kit/omp_tuned.hpp), the
//     slots of a row a plain loop in its lane, as the OpenACC step's vector lanes run;
//   - the region's shape is the tunings' (omp_construct, omp_simd, omp_teams, omp_threads).
// An iteration is 2 x colours + 2 regions (OpenACC's step: 2 x colours + 5 constructs).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kit/omp_data.hpp"
#include "kit/omp_tuned.hpp"
#include "workloads/iccg/iccg.hpp"
#include "workloads/iccg/omp_target_slabs.hpp"

namespace acclab::iccg {
namespace {

// The current iteration's r.z, the previous one's and p.q, on the device (on the host fallback,
// host variables): the regions reduce into them and read them. One solve at a time uses them.
#pragma omp declare target
double device_rz = 0, device_rz_old = 0, device_pq = 0;
#pragma omp end declare target

class OmpTargetTuned : public IccgInstance {
 public:
  explicit OmpTargetTuned(const Params& params)
      : IccgInstance(params), tuning_(omp_tunings("omp_target_tuned").read(params)) {}
  OmpTargetTuned(const OmpTargetTuned&) = delete;
  OmpTargetTuned& operator=(const OmpTargetTuned&) = delete;

  void setup() override {
    IccgInstance::setup();
    device_.enter(a_, ordering_, min_saved_slots_, b_);
  }
  void run() override { solution_ = solve(); }
  void finish() override {
    device_.fetch_x();
    solution_.x = device_.x;
    device_.release();
  }

 private:
  Solution solve();

  OmpTuning tuning_;
  OmpSlabs device_;  // the slabs and vectors, on the device from setup to finish
};

Solution OmpTargetTuned::solve() {
  // Host addresses, present on the device since setup: the maps only count references.
  const ColorEll& m = device_.m;
  const std::int64_t n = m.n, colors = m.colors;
  const std::int64_t nl = std::int64_t(m.lower_column.size());
  const std::int64_t nu = std::int64_t(m.upper_column.size());
  const std::int64_t *color_start = m.color_start.data(), *lower_start = m.lower_start.data(),
                     *upper_start = m.upper_start.data();
  const int *lower_width = m.lower_width.data(), *upper_width = m.upper_width.data();
  const std::int32_t *lower_column = m.lower_column.data(), *upper_column = m.upper_column.data();
  const double *lower_value = m.lower_value.data(), *upper_value = m.upper_value.data(),
               *diagonal = m.diagonal.data(), *b = b_.data();
  double *x = device_.x.data(), *w = device_.w.data(), *r = device_.r.data(), *z = device_.z.data(),
         *q = device_.q.data();
  int top = 1;  // the largest power of two below colors: the colour search's first step
  while (2 * top < colors) top *= 2;
  const double factor_scale = factor_scale_;  // 1 + shift (acclab iccg FILE --shift)

  // The macro's arguments are directive clauses and a loop: left as written.
  // clang-format off
  // IC(0), colour by colour.
  for (int c = 0; c < colors; ++c) {
    const std::int64_t first = m.color_start[c], rows = m.color_start[c + 1] - first;
    const std::int64_t base = m.lower_start[c];
    const int width = m.lower_width[c];
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: diagonal[0:n], lower_column[0:nl], lower_value[0:nl],
                                   w[0:n])),
        for (std::int64_t k = 0; k < rows; ++k) {
          double v = factor_scale * diagonal[first + k];
          for (int slot = 0; slot < width; ++slot) {
            const double a = lower_value[base + slot * rows + k];
            v -= a * a * w[lower_column[base + slot * rows + k]];
          }
          w[first + k] = 1.0 / v;
        });
  }
  // x = 0, r = b, z = p = 0, and b.b.
  double bb = 0;
  {
    double* p_old = device_.p1.data();  // the first iteration's (odd: p_new is p0)
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: b[0:n], x[0:n], r[0:n], z[0:n], p_old[0:n])
                               map(tofrom: bb) reduction(+: bb)),
        for (std::int64_t i = 0; i < n; ++i) {
          x[i] = 0.0;
          r[i] = b[i];
          z[i] = 0.0;
          p_old[i] = 0.0;
          bb += b[i] * b[i];
        });
  }
  const double norm_b = std::sqrt(bb);

  Solution s;
  for (s.iterations = 1; s.iterations <= p_.max_iterations; ++s.iterations) {
    const bool first_iteration = s.iterations == 1;
    double* p_new = s.iterations % 2 ? device_.p0.data() : device_.p1.data();
    const double* p_old = s.iterations % 2 ? device_.p1.data() : device_.p0.data();
    // Forward sweep: z = (W^-1 + L)^-1 r, colour by colour; the first colour's first row moves
    // r.z to the previous iteration's and starts both sums afresh (no region before the
    // backward sweep reads them).
    for (int c = 0; c < colors; ++c) {
      const std::int64_t first = m.color_start[c], rows = m.color_start[c + 1] - first;
      const std::int64_t base = m.lower_start[c];
      const int width = m.lower_width[c];
      const bool restart_sums = c == 0;
      ACCLAB_OMP_TUNED(tuning_, (map(alloc: lower_column[0:nl], lower_value[0:nl], w[0:n],
                                     r[0:n], z[0:n])),
          for (std::int64_t k = 0; k < rows; ++k) {
            if (restart_sums && k == 0) {
              device_rz_old = device_rz;
              device_rz = 0;
              device_pq = 0;
            }
            double v = r[first + k];
            for (int slot = 0; slot < width; ++slot) {
              v -= lower_value[base + slot * rows + k] * z[lower_column[base + slot * rows + k]];
            }
            z[first + k] = v * w[first + k];
          });
    }
    // Backward sweep z -= W U z, each colour adding its rows' r.z.
    for (int c = colors - 1; c >= 0; --c) {
      const std::int64_t first = m.color_start[c], rows = m.color_start[c + 1] - first;
      const std::int64_t base = m.upper_start[c];
      const int width = m.upper_width[c];
      ACCLAB_OMP_TUNED(tuning_, (map(alloc: upper_column[0:nu], upper_value[0:nu], w[0:n],
                                     r[0:n], z[0:n]) reduction(+: device_rz)),
          for (std::int64_t k = 0; k < rows; ++k) {
            double v = 0;
            for (int slot = 0; slot < width; ++slot) {
              v += upper_value[base + slot * rows + k] * z[upper_column[base + slot * rows + k]];
            }
            const double zi = z[first + k] - w[first + k] * v;
            z[first + k] = zi;
            device_rz += r[first + k] * zi;
          });
    }
    // p = z + beta p and q = A p in one pass, adding p.q.
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: color_start[0:colors+1], lower_start[0:colors+1],
                                   upper_start[0:colors+1], lower_width[0:colors],
                                   upper_width[0:colors], lower_column[0:nl], lower_value[0:nl],
                                   upper_column[0:nu], upper_value[0:nu], diagonal[0:n], z[0:n],
                                   p_old[0:n], p_new[0:n], q[0:n]) reduction(+: device_pq)),
        for (std::int64_t i = 0; i < n; ++i) {
          const double beta = first_iteration ? 0.0 : device_rz / device_rz_old;
          std::int64_t c = 0;  // the row's colour: the last whose first row is <= i
          for (std::int64_t step = top; step > 0; step /= 2) {
            if (c + step < colors && color_start[c + step] <= i) c += step;
          }
          const std::int64_t rows = color_start[c + 1] - color_start[c];
          const std::int64_t k = i - color_start[c];
          const double pi = z[i] + beta * p_old[i];
          double v = diagonal[i] * pi;
          for (int slot = 0; slot < lower_width[c]; ++slot) {
            const std::int64_t e = lower_start[c] + slot * rows + k;
            const std::int32_t j = lower_column[e];
            v += lower_value[e] * (z[j] + beta * p_old[j]);
          }
          for (int slot = 0; slot < upper_width[c]; ++slot) {
            const std::int64_t e = upper_start[c] + slot * rows + k;
            const std::int32_t j = upper_column[e];
            v += upper_value[e] * (z[j] + beta * p_old[j]);
          }
          p_new[i] = pi;
          q[i] = v;
          device_pq += pi * v;
        });
    // x += alpha p, r -= alpha q and r.r.
    double rr = 0;
    ACCLAB_OMP_TUNED(tuning_, (map(alloc: x[0:n], r[0:n], p_new[0:n], q[0:n])
                               map(tofrom: rr) reduction(+: rr)),
        for (std::int64_t i = 0; i < n; ++i) {
          const double alpha = device_rz / device_pq;
          x[i] += alpha * p_new[i];
          const double ri = r[i] - alpha * q[i];
          r[i] = ri;
          rr += ri * ri;
        });
    // clang-format on
    s.relative_residual = std::sqrt(rr) / norm_b;
    // p.q itself (8 bytes; not a second reduction above: GCC 12's nvptx code combines two
    // doubles with a 16-byte compare-and-swap that libgcc lacks, and the link fails), to stop
    // where solve_iccg does: p != 0 while r is not yet 0, so only an indefinite A gives
    // p . A p <= 0 (a NaN or -inf p.q is left to the residual, as there).
#pragma omp target update from(device_pq)
    if (device_pq <= 0 && device_pq > -HUGE_VAL) {
      s.indefinite = true;
      break;
    }
    if (s.relative_residual < p_.eps) {
      s.converged = true;
      break;
    }
  }
  s.iterations = std::min(s.iterations, p_.max_iterations);
  return s;
}

}  // namespace

TuningSet omp_target_tuned_tuning_set() { return omp_tunings("omp_target_tuned").set(); }

std::unique_ptr<Instance> make_omp_target_tuned(const Params& params) {
  return std::make_unique<OmpTargetTuned>(params);
}

}  // namespace acclab::iccg
