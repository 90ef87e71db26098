// The course's 06_optimized as a construct per colour and phase, our first fast directive
// version. What changes from 05 (exclude_datacpy_time), all within OpenACC:
//   - the matrix in the colour-slab layout (color_ell.hpp): 32-bit columns, lower and upper
//     couplings apart, slot-major so that a vector's lanes read consecutive addresses, and no
//     `column < i` test in the sweeps;
//   - no `reduction` clause at gang level (GCC's costs a copy back each and reaches a tenth of
//     the bandwidth): a gang of one warp takes 128 rows and leaves their partial sum; one
//     small kernel (one gang) adds the partial sums up into a scalar that stays on the device,
//     so r.z and p.q never travel to the host; only the residual's partial sums come back, once
//     an iteration, for the convergence test (a warp per 128 rows was by far the fastest shape
//     of the update: bench/results/h200/iccg/NOTES.md);
//   - p = z + beta p fused into the product q = A p (the neighbours' p computed from z and the
//     previous p, kept in a second array), and x, r and r.r in one pass: an iteration is the
//     sweeps, the product, the update and two one-gang sums, against 5 kernels and 3
//     reductions in 05;
//   - kernels on device addresses (`deviceptr`): no present-table lookups at each launch;
//   - a sweep launches the gangs its colour's rows need (GCC's default is 96 per multiprocessor
//     whatever the loop's length);
//   - async=1 queues an iteration's kernels on one async queue and waits once; GCC 12's async
//     launches cost more than its synchronous ones, so the default is 0.
// The matrix and vectors enter the device in setup (as in 05); x comes back in finish. The next
// step, optimized (acc_optimized.cpp), removes the launches: at 20 colours an iteration here is
// 44 constructs, and GCC's runtime spends more on each than its kernel takes.
#include <openacc.h>

#include <algorithm>
#include <cmath>

#include "workloads/iccg/acc_optimized_common.hpp"

namespace acclab::iccg {
namespace optimized {

void Optimized::factor_per_color(int queue) {
  const std::int32_t* lower_column = d_.lower_column;
  const double *lower_value = d_.lower_value, *diagonal = d_.diagonal;
  double* w = d_.w;
  const double factor_scale = factor_scale_;  // 1 + shift (acclab iccg FILE --shift)
  for (int c = 0; c < m_.colors; ++c) {
    const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
    const std::int64_t base = m_.lower_start[c];
    const int width = m_.lower_width[c];
#pragma acc parallel loop gang vector num_gangs(wide_gangs_for(rows)) vector_length(lanes) \
    async(queue) deviceptr(diagonal, lower_column, lower_value, w)
    for (std::int64_t k = 0; k < rows; ++k) {
      double v = factor_scale * diagonal[first + k];
      for (int s = 0; s < width; ++s) {
        const double a = lower_value[base + s * rows + k];
        v -= a * a * w[lower_column[base + s * rows + k]];
      }
      w[first + k] = 1.0 / v;
    }
  }
}

void Optimized::start_per_color(int queue) {
  const std::int64_t n = m_.n, row_gangs = gangs_for(n);
  const double* b = d_.b;
  double *x = d_.x, *r = d_.r, *z = d_.z, *p_old = d_.p1, *rr_part = d_.rr_part;
#pragma acc parallel loop gang num_gangs(row_gangs) vector_length(32) async(queue) \
    deviceptr(b, x, r, z, p_old, rr_part)
  for (std::int64_t g = 0; g < row_gangs; ++g) {
    double sum = 0;
#pragma acc loop vector reduction(+ : sum)
    for (int l = 0; l < rows_per_gang; ++l) {
      const std::int64_t i = g * rows_per_gang + l;
      if (i < n) {
        x[i] = 0.0;
        r[i] = b[i];
        z[i] = 0.0;
        p_old[i] = 0.0;
        sum += b[i] * b[i];
      }
    }
    rr_part[g] = sum;
  }
}

// z = (W^-1 + L)^-1 r, colour by colour.
void Optimized::forward_sweep(int queue) {
  const std::int32_t* lower_column = d_.lower_column;
  const double *lower_value = d_.lower_value, *w = d_.w, *r = d_.r;
  double* z = d_.z;
  for (int c = 0; c < m_.colors; ++c) {
    const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
    const std::int64_t base = m_.lower_start[c];
    const int width = m_.lower_width[c];
#pragma acc parallel loop gang vector num_gangs(wide_gangs_for(rows)) vector_length(lanes) \
    async(queue) deviceptr(lower_column, lower_value, w, r, z)
    for (std::int64_t k = 0; k < rows; ++k) {
      double v = r[first + k];
      for (int s = 0; s < width; ++s) {
        v -= lower_value[base + s * rows + k] * z[lower_column[base + s * rows + k]];
      }
      z[first + k] = v * w[first + k];
    }
  }
}

// z -= W U z, colours in reverse, each gang leaving its rows' share of r.z in part.
std::int64_t Optimized::backward_sweep(int queue) {
  const std::int32_t* upper_column = d_.upper_column;
  const double *upper_value = d_.upper_value, *w = d_.w, *r = d_.r;
  double *z = d_.z, *part = d_.part;
  std::int64_t parts = 0;
  for (int c = m_.colors - 1; c >= 0; --c) {
    const std::int64_t first = m_.color_start[c], rows = m_.color_start[c + 1] - first;
    const std::int64_t base = m_.upper_start[c], gangs = gangs_for(rows);
    const int width = m_.upper_width[c];
    double* color_part = part + parts;
#pragma acc parallel loop gang num_gangs(gangs) vector_length(32) async(queue) \
    deviceptr(upper_column, upper_value, w, r, z, color_part)
    for (std::int64_t g = 0; g < gangs; ++g) {
      double sum = 0;
#pragma acc loop vector reduction(+ : sum)
      for (int l = 0; l < rows_per_gang; ++l) {
        const std::int64_t k = g * rows_per_gang + l;
        if (k < rows) {
          double v = 0;
          for (int s = 0; s < width; ++s) {
            v += upper_value[base + s * rows + k] * z[upper_column[base + s * rows + k]];
          }
          const double zi = z[first + k] - w[first + k] * v;
          z[first + k] = zi;
          sum += r[first + k] * zi;
        }
      }
      color_part[g] = sum;
    }
    parts += gangs;
  }
  return parts;
}

// p = z + beta p and q = A p in one pass (a neighbour's new p computed from z and its old p),
// each gang leaving its rows' share of p.q.
void Optimized::direction_and_product(int queue, int parity, bool first_iteration) {
  const std::int64_t n = m_.n, row_gangs = gangs_for(n);
  const int colors = m_.colors;
  int top = 1;  // the largest power of two below colors: the colour search's first step
  while (2 * top < colors) top *= 2;
  const std::int64_t *color_start = d_.color_start, *lower_start = d_.lower_start,
                     *upper_start = d_.upper_start;
  const int *lower_width = d_.lower_width, *upper_width = d_.upper_width;
  const std::int32_t *lower_column = d_.lower_column, *upper_column = d_.upper_column;
  const double *lower_value = d_.lower_value, *upper_value = d_.upper_value,
               *diagonal = d_.diagonal, *z = d_.z, *scalar = d_.scalar;
  double *q = d_.q, *part = d_.part;
  double* p_new = parity ? d_.p0 : d_.p1;
  const double* p_old = parity ? d_.p1 : d_.p0;
#pragma acc parallel loop gang num_gangs(row_gangs) vector_length(32) async(queue)           \
    deviceptr(color_start, lower_start, upper_start, lower_width, upper_width, lower_column, \
              lower_value, upper_column, upper_value, diagonal, z, p_old, p_new, q, part, scalar)
  for (std::int64_t g = 0; g < row_gangs; ++g) {
    const double beta = first_iteration ? 0.0 : scalar[parity] / scalar[1 - parity];
    double sum = 0;
#pragma acc loop vector reduction(+ : sum)
    for (int l = 0; l < rows_per_gang; ++l) {
      const std::int64_t i = g * rows_per_gang + l;
      if (i < n) {
        int c = 0;  // the row's colour: the last whose first row is <= i
        for (int step = top; step > 0; step /= 2) {
          if (c + step < colors && color_start[c + step] <= i) c += step;
        }
        const std::int64_t rows = color_start[c + 1] - color_start[c];
        const std::int64_t k = i - color_start[c];
        const double pi = z[i] + beta * p_old[i];
        double v = diagonal[i] * pi;
        for (int s = 0; s < lower_width[c]; ++s) {
          const std::int64_t e = lower_start[c] + s * rows + k;
          const std::int32_t j = lower_column[e];
          v += lower_value[e] * (z[j] + beta * p_old[j]);
        }
        for (int s = 0; s < upper_width[c]; ++s) {
          const std::int64_t e = upper_start[c] + s * rows + k;
          const std::int32_t j = upper_column[e];
          v += upper_value[e] * (z[j] + beta * p_old[j]);
        }
        p_new[i] = pi;
        q[i] = v;
        sum += pi * v;
      }
    }
    part[g] = sum;
  }
}

// x += alpha p, r -= alpha q, each gang leaving its rows' share of r.r; gang 0 flags a p.q that
// proves A indefinite, for the host to stop at as solve_iccg does.
void Optimized::update_solution(int queue, int parity) {
  const std::int64_t n = m_.n, row_gangs = gangs_for(n);
  const double *p_new = parity ? d_.p0 : d_.p1, *q = d_.q, *scalar = d_.scalar;
  double *x = d_.x, *r = d_.r, *rr_part = d_.rr_part;
#pragma acc parallel loop gang num_gangs(row_gangs) vector_length(32) async(queue) \
    deviceptr(x, r, p_new, q, scalar, rr_part)
  for (std::int64_t g = 0; g < row_gangs; ++g) {
    if (g == 0) rr_part[row_gangs] = proves_indefinite(scalar[2]) ? 1.0 : 0.0;
    const double alpha = scalar[parity] / scalar[2];
    double sum = 0;
#pragma acc loop vector reduction(+ : sum)
    for (int l = 0; l < rows_per_gang; ++l) {
      const std::int64_t i = g * rows_per_gang + l;
      if (i < n) {
        x[i] += alpha * p_new[i];
        const double ri = r[i] - alpha * q[i];
        r[i] = ri;
        sum += ri * ri;
      }
    }
    rr_part[g] = sum;
  }
}

// scalar[into] = the sum of part[0 .. count), by one gang.
void Optimized::add_up(int queue, std::int64_t count, int into) {
  const double* part = d_.part;
  double* scalar = d_.scalar;
#pragma acc parallel num_gangs(1) vector_length(32) async(queue) deviceptr(part, scalar)
  {
    double sum = 0;
#pragma acc loop vector reduction(+ : sum)
    for (std::int64_t h = 0; h < count; ++h) sum += part[h];
    scalar[into] = sum;
  }
}

// The residual's partial sums, brought back with the indefinite flag after them and added in
// gang order.
double Optimized::residual_sum(int queue) {
  acc_memcpy_from_device_async(rr_part_.data(), d_.rr_part, sizeof(double) * rr_part_.size(),
                               queue);
  acc_wait(queue);
  double sum = 0;
  for (std::int64_t g = 0; g < gangs_for(m_.n); ++g) sum += rr_part_[g];
  return sum;
}

Solution Optimized::solve() {
  const int queue = async_ ? 1 : acc_async_sync;
  factor_per_color(queue);
  start_per_color(queue);
  const double norm_b = std::sqrt(residual_sum(queue));
  Solution s;
  for (s.iterations = 1; s.iterations <= p_.max_iterations; ++s.iterations) {
    const int parity = s.iterations % 2;
    forward_sweep(queue);
    add_up(queue, backward_sweep(queue), parity);
    direction_and_product(queue, parity, s.iterations == 1);
    add_up(queue, gangs_for(m_.n), 2);
    update_solution(queue, parity);
    s.relative_residual = std::sqrt(residual_sum(queue)) / norm_b;
    if (rr_part_[std::size_t(gangs_for(m_.n))] != 0) {
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

}  // namespace optimized

namespace {

struct QueueTunings {
  bool async = false;  // an iteration's constructs on one async queue
};

const StepTunings<QueueTunings>& queue_tunings() {
  static const StepTunings<QueueTunings> tunings = StepTunings<QueueTunings>().flag(
      {.key = "async",
       .help = "optimized_per_color only: 1 queues an iteration's kernels on one async queue, 0 "
               "waits for each (GCC 12's async launches cost more than its synchronous ones)",
       .presets = same_in_all_presets("0")},
      &QueueTunings::async);
  return tunings;
}

}  // namespace

TuningSet per_color_tuning_set() { return queue_tunings().set(); }

std::unique_ptr<Instance> make_optimized_per_color(const Params& params) {
  return std::make_unique<optimized::Optimized>(params, false, queue_tunings().read(params).async);
}

}  // namespace acclab::iccg
