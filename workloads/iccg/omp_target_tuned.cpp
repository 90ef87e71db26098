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
#include "workloads/iccg/color_ell.hpp"
#include "workloads/iccg/iccg.hpp"

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
  ~OmpTargetTuned() override { release(); }

  void setup() override {
    IccgInstance::setup();
    m_ = color_ell(a_, ordering_, min_saved_slots_);
    // A matrix without lower or upper couplings (one cell, a diagonal matrix) has empty slabs,
    // and a zero-length section must never be mapped (kit/omp_data.hpp): one slot of value 0
    // stands in, which no row reads (every width is 0).
    for (auto* column : {&m_.lower_column, &m_.upper_column}) {
      if (column->empty()) column->push_back(0);
    }
    for (auto* value : {&m_.lower_value, &m_.upper_value}) {
      if (value->empty()) value->push_back(0.0);
    }
    for (auto* v : {&x_, &w_, &r_, &z_, &p0_, &p1_, &q_}) v->assign(std::size_t(m_.n), 0.0);
    for_each_array([](auto& v, bool upload) {
      upload ? omp_enter_to(v.data(), std::int64_t(v.size()))
             : omp_enter_alloc(v.data(), std::int64_t(v.size()));
    });
    entered_ = true;
  }
  void run() override { solution_ = solve(); }
  void finish() override {
    omp_update_host(x_.data(), std::int64_t(x_.size()));
    solution_.x = x_;
    release();
  }

 private:
  Solution solve();

  // Every host array with its device copy, and whether setup's values go up.
  template <typename F>
  void for_each_array(F&& f) {
    for (auto* v : {&m_.color_start, &m_.lower_start, &m_.upper_start}) f(*v, true);
    f(m_.lower_width, true);
    f(m_.upper_width, true);
    f(m_.lower_column, true);
    f(m_.upper_column, true);
    for (auto* v : {&m_.lower_value, &m_.upper_value, &m_.diagonal, &b_}) f(*v, true);
    // Zeros: a slab's padding reads w and z at the row's own index (times 0) before the row's
    // value is written, so they must start finite.
    f(w_, true);
    f(z_, true);
    for (auto* v : {&x_, &r_, &p0_, &p1_, &q_}) f(*v, false);
  }
  // Deletes the device copies; nothing when they were never entered or already deleted.
  void release() {
    if (!entered_) return;
    for_each_array([](auto& v, bool) { omp_exit_delete(v.data(), std::int64_t(v.size())); });
    entered_ = false;
  }

  OmpTuning tuning_;
  bool entered_ = false;
  ColorEll m_;
  std::vector<double> x_, w_, r_, z_, p0_, p1_, q_;
};

Solution OmpTargetTuned::solve() {
  // Host addresses, present on the device since setup: the maps only count references.
  const std::int64_t n = m_.n, colors = m_.colors;
  const std::int64_t nl = std::int64_t(m_.lower_column.size());
  const std::int64_t nu = std::int64_t(m_.upper_column.size());
  const std::int64_t *color_start = m_.color_start.data(), *lower_start = m_.lower_start.data(),
                     *upper_start = m_.upper_start.data();
  const int *lower_width = m_.lower_width.data(), *upper_width = m_.upper_width.data();
  const std::int32_t *lower_column = m_.lower_column.data(), *upper_column = m_.upper_column.data();
  const double *lower_value = m_.lower_value.data(), *upper_value = m_.upper_value.data(),
               *diagonal = m_.diagonal.data(), *b = b_.data();
  double *x = x_.data(), *w = w_.data(), *r = r_.data(), *z = z_.data(), *q = q_.data();
  int top = 1;  // the largest power of two below colors: the colour search's first step
  while (2 * top < colors) top *= 2;
  const double factor_scale = factor_scale_;  // 1 + shift (acclab iccg FILE --shift)

  // The macro's arguments are directive clauses and a loop: left as written.
  // clang-format off
  // IC(0), colour by colour.
  for (int c = 0; c < colors; ++c) {
    const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
    const std::int64_t base = m_.lower_start[c];
    const int width = m_.lower_width[c];
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
    double* p_old = p1_.data();  // the first iteration's (odd: p_new is p0)
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
    double* p_new = s.iterations % 2 ? p0_.data() : p1_.data();
    const double* p_old = s.iterations % 2 ? p1_.data() : p0_.data();
    // Forward sweep: z = (W^-1 + L)^-1 r, colour by colour; the first colour's first row moves
    // r.z to the previous iteration's and starts both sums afresh (no region before the
    // backward sweep reads them).
    for (int c = 0; c < colors; ++c) {
      const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
      const std::int64_t base = m_.lower_start[c];
      const int width = m_.lower_width[c];
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
      const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
      const std::int64_t base = m_.upper_start[c];
      const int width = m_.upper_width[c];
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
