// The course's 06_optimized as one compute construct, our fastest directive version: the whole
// solve, factor included, in one `parallel` construct of a gang per multiprocessor, colours and
// phases separated by a barrier across gangs (an atomic counter each gang adds to and waits on,
// kit/acc_grid_barrier.hpp), dot products as per-gang partial sums that every gang adds up in
// the same order, so every gang takes the same branch at the convergence test. The layout and
// the fused updates are optimized_per_color's (acc_per_color.cpp), which this step runs instead
// where it cannot (no CUDA to count the multiprocessors, or indices past 32 bits): the output
// resident_gangs says which ran (0 for a construct per colour).
#include <fmt/format.h>
#include <openacc.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/params.hpp"
#include "kit/grid_barrier_check.hpp"
#include "workloads/iccg/acc_optimized_common.hpp"

namespace acclab::iccg {
namespace optimized {
namespace {

// Throws UsageError unless the construct is compiled for `shape`'s workers and its gangs all fit
// the multiprocessors at once (acc_optimized_common.hpp).
void check_resident_shape(const ResidentShape& shape) {
  const std::int64_t w = shape.workers;
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12) {
    throw UsageError(fmt::format("--set acc_workers={}: expected 1, 2, 4, 8 or 12", w));
  }
  if (shape.gangs_per_sm < 1 || shape.gangs_per_sm > resident_max_gangs_per_sm) {
    throw UsageError(fmt::format("--set acc_gangs_per_sm={}: expected 1 to {}", shape.gangs_per_sm,
                                 resident_max_gangs_per_sm));
  }
  const std::int64_t warps = (w + 3) / 4 * 4 * shape.gangs_per_sm;
  if (shape.gangs_per_sm > 1 && warps > resident_warps_a_multiprocessor) {
    throw UsageError(fmt::format(
        "acc_workers={} with acc_gangs_per_sm={}: {} warps a multiprocessor (a gang's in whole "
        "fours), more than the {} it holds at {} registers a lane, so not every gang could be "
        "resident at once (the grid barrier needs every gang running)",
        w, shape.gangs_per_sm, warps, resident_warps_a_multiprocessor, resident_registers));
  }
}

const StepTunings<ResidentShape>& resident_tunings() {
  static const StepTunings<ResidentShape> tunings = [] {
    StepTunings<ResidentShape> t;
    t.integer({.key = "acc_workers",
               .help = "optimized: warps (workers) a gang of the resident construct: 1, 2, 4, "
                       "8 or 12, in whole fours times acc_gangs_per_sm at most 12",
               .presets = same_in_all_presets(std::to_string(resident_workers)),
               .minimum = 1,
               .maximum = resident_workers},
              &ResidentShape::workers);
    t.integer({.key = "acc_gangs_per_sm",
               .help = "optimized: gangs of the resident construct a multiprocessor, 1 to 3 (all "
                       "must be resident at once: acc_workers, rounded up to a multiple of 4, "
                       "times it at most 12)",
               .presets = same_in_all_presets("1"),
               .minimum = 1,
               .maximum = resident_max_gangs_per_sm},
              &ResidentShape::gangs_per_sm);
    t.check(check_resident_shape);
    return t;
  }();
  return tunings;
}

}  // namespace

Solution Optimized::solve_resident() {
  switch (shape_.workers) {
    case 1:
      return solve_resident_with<1>();
    case 2:
      return solve_resident_with<2>();
    case 4:
      return solve_resident_with<4>();
    case 8:
      return solve_resident_with<8>();
    default:
      return solve_resident_with<resident_workers>();  // the check refused the others
  }
}

// The whole solve in one compute construct. Every phase splits its rows over
// `threads` = gangs x workers x 32 lanes, thread t taking rows t, t + threads, ... (their
// couplings `slot_chunk` at a time); phases are separated by timed_barrier: one after each
// colour of the factor, one after the start (x, r, z, p and b.b), one after each colour of both
// sweeps, one after the product and one after the update (42 an iteration at 20 colours), gang
// 0 timing the phases between them (the outputs setup_us and phase_us_per_iteration). A dot
// product leaves a partial sum per thread (add_thread_part), then per gang (its threads' added by a
// worker-vector reduction); after the barrier every gang adds the gangs' partial sums by the
// same reduction, so all see the same scalar, bit for bit, and take the same branch at the
// convergence test. The sums' order depends on the gang count (3 on the host fallback, one a
// multiprocessor on a GPU). Indices are 32-bit (setup checks that they fit).
template <int workers>
Solution Optimized::solve_resident_with() {
  const int n = int(m_.n);
  const int colors = m_.colors;
  const int gangs = gangs_;
  const int threads = gangs * workers * warp;
  const int max_iterations = p_.max_iterations;
  const double eps2 = p_.eps * p_.eps;
  const double factor_scale = factor_scale_;  // 1 + shift (acclab iccg FILE --shift)
  const std::int64_t *color_start = d_.color_start, *lower_start = d_.lower_start,
                     *upper_start = d_.upper_start;
  const int *lower_width = d_.lower_width, *upper_width = d_.upper_width;
  const std::int32_t *lower_column = d_.lower_column, *upper_column = d_.upper_column;
  const double *lower_value = d_.lower_value, *upper_value = d_.upper_value,
               *diagonal = d_.diagonal, *b = d_.b;
  double *x = d_.x, *w = d_.w, *r = d_.r, *z = d_.z, *p0 = d_.p0, *p1 = d_.p1, *q = d_.q;
  double *thread_part = d_.thread_part, *rz_part = d_.rz_part, *pq_part = d_.pq_part,
         *rr_part = d_.rr_gang_part, *state = d_.state;
  unsigned long long* arrived = d_.arrived;
  const unsigned long long none = 0;
  acc_memcpy_to_device(arrived, const_cast<unsigned long long*>(&none), sizeof none);
  std::fill(state_.begin() + phase_slot, state_.end(), 0.0);  // the phases' times
  acc_update_device(state_.data() + phase_slot, sizeof(double) * (state_.size() - phase_slot));

#pragma acc parallel num_gangs(gangs) num_workers(workers) vector_length(warp)               \
    deviceptr(color_start, lower_start, upper_start, lower_width, upper_width, lower_column, \
              upper_column, lower_value, upper_value, diagonal, b, x, w, r, z, p0, p1, q,    \
              thread_part, rz_part, pq_part, rr_part, arrived, state)
  {
    // The gangs actually running: `gangs` on the device, one on the host fallback.
    const unsigned long long running = __builtin_goacc_parlevel_size(gang_dimension);
    // The threads of a gang actually running (1 on the host fallback), and of all gangs.
    const int gang_threads = __builtin_goacc_parlevel_size(worker_dimension) *
                             __builtin_goacc_parlevel_size(vector_dimension);
    const int running_threads = int(running) * gang_threads;
    unsigned long long expected = 0;  // arrivals at the barrier so far, this gang's included
    bool together = true;             // false once a gang gave up waiting at a barrier
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) arrived[2] = device_clock_ns();

    // IC(0), colour by colour: W = 1 / (diagonal - sum of a^2 W over the earlier colours).
    for (int c = 0; c < colors && together; ++c) {
      const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
      const int width = lower_width[c];
      const std::int32_t* column = lower_column + lower_start[c];
      const double* value = lower_value + lower_start[c];
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        for (int k = t; k < rows; k += threads) {
          double v = factor_scale * diagonal[first + k];
          for (int s = 0; s < width; ++s) {
            const double a = value[s * rows + k];
            v -= a * a * w[column[s * rows + k]];
          }
          w[first + k] = 1.0 / v;
        }
      }
      together = timed_barrier(arrived, expected += running, state, setup_phase);
    }

    // x = 0, r = b, z = p = 0, and b.b.
#pragma acc loop gang worker vector
    for (int t = 0; t < threads; ++t) {
      double sum = 0;
      for (int i = t; i < n; i += threads) {
        x[i] = 0.0;
        r[i] = b[i];
        z[i] = 0.0;
        p1[i] = 0.0;
        sum += b[i] * b[i];
      }
      add_thread_part(thread_part, gang_threads, t < running_threads, sum);
    }
    {  // this gang's threads' partial sums, added in the same order in every gang
      const int gang = __builtin_goacc_parlevel_id(gang_dimension);
      double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
      for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
      rr_part[gang] = sum;
    }
    together = timed_barrier(arrived, expected += running, state, setup_phase);
    double bb = 0;
#pragma acc loop vector reduction(+ : bb)
    for (int h = 0; h < gangs; ++h) bb += rr_part[h];

    int iteration = 1;
    double rr = bb, rz_old = 1;
    double indefinite = 0;  // 1: p.q proved A indefinite at `iteration`
    for (; iteration <= max_iterations && together; ++iteration) {
      double* p_new = iteration % 2 ? p0 : p1;
      const double* p_old = iteration % 2 ? p1 : p0;
      // Forward sweep: z = (W^-1 + L)^-1 r.
      for (int c = 0; c < colors && together; ++c) {
        const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
        const int width = lower_width[c];
        const std::int32_t* column = lower_column + lower_start[c];
        const double* value = lower_value + lower_start[c];
#pragma acc loop gang worker vector
        for (int t = 0; t < threads; ++t) {
          for (int k0 = t; k0 < rows; k0 += batch * threads) {
            int kk[batch];  // the batch's rows, past the colour's end clamped to k0
            double v[batch], wk[batch];
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              const int k = k0 + j * threads;
              kk[j] = k < rows ? k : k0;
              v[j] = r[first + kk[j]];
              wk[j] = w[first + kk[j]];
            }
            for (int s0 = 0; s0 < width; s0 += slot_chunk) {
              int col[batch][slot_chunk];
              double a[batch][slot_chunk];
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
                load_slots(column, value, rows, width, kk[j], s0, col[j], a[j]);
              }
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
#pragma GCC unroll 4
                for (int u = 0; u < slot_chunk; ++u) v[j] -= a[j][u] * z[col[j][u]];
              }
            }
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              if (k0 + j * threads < rows) z[first + kk[j]] = v[j] * wk[j];
            }
          }
        }
        together = timed_barrier(arrived, expected += running, state, forward_phase);
      }
      // Backward sweep z -= W U z from the last colour; each thread adds up its rows' r.z over
      // the colours, and at colour 0 (the last) each gang its threads'.
      for (int c = colors - 1; c >= 0 && together; --c) {
        const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
        const int width = upper_width[c];
        const std::int32_t* column = upper_column + upper_start[c];
        const double* value = upper_value + upper_start[c];
#pragma acc loop gang worker vector
        for (int t = 0; t < threads; ++t) {
          double sum = 0;
          for (int k0 = t; k0 < rows; k0 += batch * threads) {
            int kk[batch];  // the batch's rows, past the colour's end clamped to k0
            double v[batch], zk[batch], wk[batch], rk[batch];
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              const int k = k0 + j * threads;
              kk[j] = k < rows ? k : k0;
              v[j] = 0.0;
              zk[j] = z[first + kk[j]];
              wk[j] = w[first + kk[j]];
              rk[j] = r[first + kk[j]];
            }
            for (int s0 = 0; s0 < width; s0 += slot_chunk) {
              int col[batch][slot_chunk];
              double a[batch][slot_chunk];
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
                load_slots(column, value, rows, width, kk[j], s0, col[j], a[j]);
              }
#pragma GCC unroll 4
              for (int j = 0; j < batch; ++j) {
#pragma GCC unroll 4
                for (int u = 0; u < slot_chunk; ++u) v[j] += a[j][u] * z[col[j][u]];
              }
            }
#pragma GCC unroll 4
            for (int j = 0; j < batch; ++j) {
              if (k0 + j * threads < rows) {
                const double zi = zk[j] - wk[j] * v[j];
                z[first + kk[j]] = zi;
                sum += rk[j] * zi;
              }
            }
          }
          add_thread_part(thread_part, gang_threads, t < running_threads && c == colors - 1, sum);
        }
        if (c == 0) {  // this gang's threads' partial sums, in the same order in every gang
          const int gang = __builtin_goacc_parlevel_id(gang_dimension);
          double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
          for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
          rz_part[gang] = sum;
        }
        together = timed_barrier(arrived, expected += running, state, backward_phase);
      }
      double rz = 0;
#pragma acc loop vector reduction(+ : rz)
      for (int h = 0; h < gangs; ++h) rz += rz_part[h];
      const double beta = iteration == 1 ? 0.0 : rz / rz_old;
      rz_old = rz;

      // p = z + beta p and q = A p in one pass (a neighbour's new p computed from z and its
      // old p), and p.q. Thread t takes the rows i = t (mod threads) of every colour.
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        double sum = 0;
        for (int c = 0; c < colors; ++c) {
          const int first = int(color_start[c]), rows = int(color_start[c + 1]) - first;
          const int lower_slots = lower_width[c], upper_slots = upper_width[c];
          const std::int32_t* lower_col = lower_column + lower_start[c];
          const double* lower_val = lower_value + lower_start[c];
          const std::int32_t* upper_col = upper_column + upper_start[c];
          const double* upper_val = upper_value + upper_start[c];
          for (int k = ((t - first) % threads + threads) % threads; k < rows; k += threads) {
            const int i = first + k;
            const double pi = z[i] + beta * p_old[i];
            double v = diagonal[i] * pi;
            for (int s0 = 0; s0 < lower_slots; s0 += slot_chunk) {
              int col[slot_chunk];
              double a[slot_chunk];
              load_slots(lower_col, lower_val, rows, lower_slots, k, s0, col, a);
#pragma GCC unroll 8
              for (int u = 0; u < slot_chunk; ++u) v += a[u] * (z[col[u]] + beta * p_old[col[u]]);
            }
            for (int s0 = 0; s0 < upper_slots; s0 += slot_chunk) {
              int col[slot_chunk];
              double a[slot_chunk];
              load_slots(upper_col, upper_val, rows, upper_slots, k, s0, col, a);
#pragma GCC unroll 8
              for (int u = 0; u < slot_chunk; ++u) v += a[u] * (z[col[u]] + beta * p_old[col[u]]);
            }
            p_new[i] = pi;
            q[i] = v;
            sum += pi * v;
          }
        }
        add_thread_part(thread_part, gang_threads, t < running_threads, sum);
      }
      {  // this gang's threads' partial sums, added in the same order in every gang
        const int gang = __builtin_goacc_parlevel_id(gang_dimension);
        double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
        for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
        pq_part[gang] = sum;
      }
      together = timed_barrier(arrived, expected += running, state, product_phase);
      double pq = 0;
#pragma acc loop vector reduction(+ : pq)
      for (int h = 0; h < gangs; ++h) pq += pq_part[h];
      if (proves_indefinite(pq)) {  // every gang holds the same p.q: all stop here
        indefinite = 1;
        break;
      }
      const double alpha = rz / pq;

      // x += alpha p, r -= alpha q, and r.r.
#pragma acc loop gang worker vector
      for (int t = 0; t < threads; ++t) {
        double sum = 0;
        for (int i = t; i < n; i += threads) {
          x[i] += alpha * p_new[i];
          const double ri = r[i] - alpha * q[i];
          r[i] = ri;
          sum += ri * ri;
        }
        add_thread_part(thread_part, gang_threads, t < running_threads, sum);
      }
      {  // this gang's threads' partial sums, added in the same order in every gang
        const int gang = __builtin_goacc_parlevel_id(gang_dimension);
        double sum = 0;
#pragma acc loop worker vector reduction(+ : sum)
        for (int u = 0; u < gang_threads; ++u) sum += thread_part[gang * gang_threads + u];
        rr_part[gang] = sum;
      }
      together = timed_barrier(arrived, expected += running, state, update_phase);
      rr = 0;
#pragma acc loop vector reduction(+ : rr)
      for (int h = 0; h < gangs; ++h) rr += rr_part[h];
      if (rr < eps2 * bb) break;
    }
    if (__builtin_goacc_parlevel_id(gang_dimension) == 0) {  // every gang holds the same
      state[0] = iteration;
      state[1] = rr;
      state[2] = bb;
      state[3] = double(expected);
      state[4] = indefinite;
    }
  }

  acc_update_self(state_.data(), sizeof(double) * state_.size());
  acc_update_self(arrived_.data(), sizeof(arrived_[0]) * arrived_.size());
  check_grid_barrier(arrived_[0], static_cast<unsigned long long>(state_[3]), "iccg optimized",
                     gangs, "optimized_per_color launches a construct per colour instead");
  Solution s;
  s.iterations = std::min(int(state_[0]), p_.max_iterations);
  if (arrived_[2] != 0) {  // timed on a GPU: the setup in us, the iteration's phases in us each
    const auto us = [&](int phase, int iterations) {
      return (state_[phase_slot + 2 * phase] + state_[phase_slot + 2 * phase + 1]) * 1e-3 /
             iterations;
    };
    const int iterations = std::max(1, int(state_[0]));
    double wait = 0;
    for (int phase = forward_phase; phase < phases; ++phase) {
      wait += state_[phase_slot + 2 * phase + 1];
    }
    extra_outputs_["setup_us"] = us(setup_phase, 1);
    extra_outputs_["phase_us_per_iteration"] = {{"forward", us(forward_phase, iterations)},
                                                {"backward", us(backward_phase, iterations)},
                                                {"product", us(product_phase, iterations)},
                                                {"update", us(update_phase, iterations)}};
    // Of which gang 0 waited at the barriers (for the slowest gang, and the barriers' latency).
    extra_outputs_["barrier_wait_us_per_iteration"] = wait * 1e-3 / iterations;
  }
  s.relative_residual = std::sqrt(state_[1]) / std::sqrt(state_[2]);
  s.indefinite = state_[4] != 0;
  s.converged = !s.indefinite && state_[1] < p_.eps * p_.eps * state_[2];
  return s;
}

}  // namespace optimized

std::unique_ptr<Instance> make_optimized(const Params& params) {
  return std::make_unique<optimized::Optimized>(params, true, false,
                                                optimized::resident_tunings().read(params));
}

TuningSet optimized_tuning_set() { return optimized::resident_tunings().set(); }

}  // namespace acclab::iccg
