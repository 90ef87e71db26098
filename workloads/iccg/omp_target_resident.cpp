// optimized (06 as one construct, acc_optimized.cpp) in OpenMP target form, the step after
// omp_target_tuned: the whole solve, factor included, in ONE target region instead of a region
// per colour and phase (GCC 12 spends about a millisecond launching a `target teams` region, and
// omp_target_tuned launches 2 x colours + 2 of them an iteration). One team a multiprocessor
// (all run at once, which the barrier needs). The team's first thread runs the solve's control
// flow and meets the other teams at omp_grid_barrier (kit/omp_grid_barrier.hpp) between colours
// and phases (teams a multiprocessor and warps a team are the tunings omp_teams_per_sm and
// omp_thread_limit); each phase is a `parallel` of the team's warps (an OpenMP thread is a warp in
// GCC's nvptx OpenMP) with `simd` over a warp's 32 lanes, lane l of thread t of team g taking
// rows (g x threads + t) x 32 + l, and every `lanes` after it, of each colour. A phase of its
// own rather than one `parallel` for the whole solve: GCC 12 gives one body holding every phase
// over 220 registers a lane, every phase's body alone at most 132 (a `parallel` inside a
// running region costs a few barriers, not a launch). A dot product is each thread's `simd`
// reduction, left in a slot of the thread's; the team's first thread adds its threads' slots in
// order into a slot of the team's, and after the barrier every team adds the teams' slots in
// order: the same value, bit for bit, in every team and every run, so all take the same branch
// at the convergence test. The slabs are omp_target_tuned's (omp_target_slabs.hpp). The output
// resident_teams says how many teams ran (1 on the host fallback).
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "kit/omp_data.hpp"
#include "kit/omp_grid_barrier.hpp"
#include "kit/omp_resident_shape.hpp"
#include "workloads/iccg/iccg.hpp"
#include "workloads/iccg/omp_target_slabs.hpp"

namespace acclab::iccg {
namespace {

// Warps (OpenMP threads) a team deals its rows over at most (the slots a team), as jacobi2d's
// resident step; lanes a warp.
constexpr int warps = int(omp_resident_max_thread_limit);
constexpr int warp = 32;
// The most registers a lane the region's entries may take: tests/omptarget_registers_test.sh's
// budget for this step (omp_target_tuned's bodies, in the same image, set it), which the
// co-residency check of the shape counts with: 8 warps a multiprocessor.
constexpr std::int64_t registers = 192;

const StepTunings<OmpResidentShape>& resident_tunings() {
  static const StepTunings<OmpResidentShape> tunings =
      omp_resident_tunings("omp_target_resident", registers);
  return tunings;
}

// The slots of the teams' partial sums, one set a kind: a team writes its slot of one kind only
// after every team has passed a later barrier, so after every team read the kind's last sum.
enum Sum { rr_sum, rz_sum, pq_sum, sums };

// The rows a thread of a phase's `parallel` takes: its lanes are `first` to first + 31 of
// `all`, lane l taking rows first + l, first + l + all, ... of each colour. `works`: false for
// the threads beyond `warps` (the host's), which take none. All teams run as many threads (one
// launch's blocks), so the rows are dealt out alike in every team.
struct Lanes {
  int first, all;
  int slot;  // the thread's in thread_part
  bool works;
};

inline Lanes lanes_of(int running) {
  const int thread = omp_get_thread_num();
  const int threads = omp_get_num_threads() < warps ? omp_get_num_threads() : warps;
  return {(omp_get_team_num() * threads + thread) * warp, running * threads * warp,
          omp_get_team_num() * warps + thread, thread < threads};
}

// omp_grid_barrier, called rather than inlined at each of the solve's phases: one copy of its
// poll loop in the team's body instead of six keeps that body's registers down.
__attribute__((noinline)) bool all_teams_meet(unsigned long long* arrived,
                                              unsigned long long target) {
  return omp_grid_barrier(arrived, target);
}

// The sum of a team's threads' parts of a dot product, in their order: the same order in every
// run, which a `parallel` reduction (its threads' parts combined as they come) does not keep.
inline double team_sum(const double* thread_part, int threads) {
  double sum = 0;
  for (int u = 0; u < threads; ++u) sum += thread_part[u];
  return sum;
}

// The sum of every running team's `part` (its threads' sum), ending the phase: each team leaves
// its part in its slot of `team_part` (the kind's), meets the others at the barrier, then adds
// the slots in one order, so every team holds the same value, bit for bit. Call it from the
// team's first thread (outside the phases' `parallel`s). `together` turns false once a team gave
// up waiting (omp_grid_barrier).
inline double all_teams_sum(double part, double* team_part, int team, int running,
                            unsigned long long* arrived, unsigned long long& expected,
                            bool& together) {
  team_part[team] = part;
  together = all_teams_meet(arrived, expected += running) && together;
  double sum = 0;
  for (int h = 0; h < running; ++h) sum += team_part[h];
  return sum;
}

// The device addresses of the slabs, the vectors, the teams' sums and the barrier's count, as
// the region reads them: one struct passed firstprivate rather than twenty mapped pointers, which
// the team's body would keep in registers for the whole solve (GCC 12's nvptx code then needs
// over 220 registers a lane, and every entry of the workload's image with it).
struct DeviceSlabs {
  const std::int64_t *color_start, *lower_start, *upper_start;
  const int *lower_width, *upper_width;
  const std::int32_t *lower_column, *upper_column;
  const double *lower_value, *upper_value, *diagonal, *b;
  double *x, *w, *r, *z, *p0, *p1, *q, *thread_part, *team_part;
  unsigned long long* arrived;
};

class OmpTargetResident : public IccgInstance {
 public:
  explicit OmpTargetResident(const Params& params)
      : IccgInstance(params), shape_(resident_tunings().read(params)) {}
  OmpTargetResident(const OmpTargetResident&) = delete;
  OmpTargetResident& operator=(const OmpTargetResident&) = delete;
  ~OmpTargetResident() override { release(); }

  void setup() override {
    IccgInstance::setup();
    device_.enter(a_, ordering_, min_saved_slots_, b_);
    teams_ = omp_resident_teams_asked(omp_resident_teams(), shape_);
    refuse_past_32_bits();
    thread_part_.assign(std::size_t(teams_) * warps, 0.0);
    team_part_.assign(std::size_t(sums) * teams_, 0.0);
    omp_enter_alloc(thread_part_.data(), std::int64_t(thread_part_.size()));
    omp_enter_alloc(team_part_.data(), std::int64_t(team_part_.size()));
    arrivals_.enter();
    resident_ = true;
  }
  void run() override { solution_ = solve(); }
  void finish() override {
    device_.fetch_x();
    solution_.x = device_.x;
    release();
  }
  Verification verify() override {
    extra_outputs_["resident_teams"] = running_;
    return IccgInstance::verify();
  }

 private:
  Solution solve();
  DeviceSlabs device_addresses();
  // The region's indices are 32-bit, as optimized's: a row plus the lanes of all teams, and a
  // slab entry within its colour, must stay below 2^31.
  void refuse_past_32_bits() const {
    const ColorEll& m = device_.m;
    std::int64_t largest = m.n + std::int64_t(teams_) * warps * warp;
    for (int c = 0; c < m.colors; ++c) {
      const std::int64_t rows = m.color_start[c + 1] - m.color_start[c];
      largest = std::max(largest, rows * std::max(m.lower_width[c], m.upper_width[c]));
    }
    if (largest >= std::numeric_limits<std::int32_t>::max()) {
      throw std::length_error(fmt::format(
          "iccg omp_target_resident: {} rows or slab entries of a colour, past its 32-bit "
          "indices; omp_target_tuned takes this system",
          largest));
    }
  }
  void release() {
    device_.release();
    if (!resident_) return;
    omp_exit_delete(thread_part_.data(), std::int64_t(thread_part_.size()));
    omp_exit_delete(team_part_.data(), std::int64_t(team_part_.size()));
    arrivals_.release();
    resident_ = false;
  }

  OmpResidentShape shape_;
  OmpSlabs device_;
  int teams_ = 1;                    // asked for
  int running_ = 0;                  // ran, as the region counted them
  OmpArrivals arrivals_;             // the barrier's count
  std::vector<double> thread_part_;  // each thread's part of a sum, `warps` slots a team
  std::vector<double> team_part_;    // each team's part of a sum, a set of slots a kind
  bool resident_ = false;
};

// The entered arrays' device addresses (on the host fallback, their own), and the barrier's
// count zeroed.
DeviceSlabs OmpTargetResident::device_addresses() {
  ColorEll& m = device_.m;
  std::int64_t *color_start = m.color_start.data(), *lower_start = m.lower_start.data(),
               *upper_start = m.upper_start.data();
  int *lower_width = m.lower_width.data(), *upper_width = m.upper_width.data();
  std::int32_t *lower_column = m.lower_column.data(), *upper_column = m.upper_column.data();
  double *lower_value = m.lower_value.data(), *upper_value = m.upper_value.data(),
         *diagonal = m.diagonal.data(), *b = b_.data();
  double *x = device_.x.data(), *w = device_.w.data(), *r = device_.r.data(), *z = device_.z.data(),
         *p0 = device_.p0.data(), *p1 = device_.p1.data(), *q = device_.q.data(),
         *thread_part = thread_part_.data(), *team_part = team_part_.data();
  unsigned long long* arrived = arrivals_.reset();
  DeviceSlabs d{};
#pragma omp target data use_device_ptr(                                                          \
    color_start, lower_start, upper_start, lower_width, upper_width, lower_column, upper_column, \
    lower_value, upper_value, diagonal, b, x, w, r, z, p0, p1, q, thread_part, team_part, arrived)
  {
    // clang-format off
    d = {color_start, lower_start, upper_start, lower_width, upper_width, lower_column,
         upper_column, lower_value, upper_value, diagonal, b, x, w, r, z, p0, p1, q, thread_part,
         team_part, arrived};
    // clang-format on
  }
  return d;
}

Solution OmpTargetResident::solve() {
  const ColorEll& m = device_.m;
  const int n = int(m.n), colors = m.colors;
  const int teams = teams_, team_warps = int(shape_.thread_limit);
  const int max_iterations = p_.max_iterations;
  const double eps2 = p_.eps * p_.eps;
  const double factor_scale = factor_scale_;  // 1 + shift (acclab iccg FILE --shift)
  const DeviceSlabs d = device_addresses();
  // What team 0 leaves for the host: the iteration it stopped at, r.r, b.b, the barrier's
  // arrivals, whether p.q proved A indefinite, and the teams running.
  double state[6] = {0, 0, 0, 0, 0, 0};

  // clang-format off
#pragma omp target teams num_teams(teams) thread_limit(team_warps) firstprivate(d) \
    map(from: state[0:6])
  // clang-format on
  {
    // The team's first thread runs this body; each phase is a `parallel` of the team's warps,
    // whose end joins them, and the first thread then meets the other teams at the barrier.
    const int team = omp_get_team_num();
    int running = 1, threads = 1;  // teams running; threads (warps) of a team that work
#pragma omp parallel
    {
      if (omp_get_thread_num() == 0) {
        running = omp_teams_running(teams);
        threads = omp_get_num_threads() < warps ? omp_get_num_threads() : warps;
      }
    }
    const double* thread_part = d.thread_part + team * warps;  // this team's threads' parts
    unsigned long long expected = 0;  // arrivals at the barrier so far, this team's included
    bool together = true;             // false once a team gave up waiting at a barrier
    int iteration = 1;
    double rr = 0, bb = 0;
    bool indefinite = false;

    // A team beyond those running (the host fallback's others) does nothing.
    if (team < running) {
      // IC(0), colour by colour: W = 1 / (diagonal - sum of a^2 W over the earlier colours).
      for (int c = 0; c < colors && together; ++c) {
        const int first = int(d.color_start[c]), rows = int(d.color_start[c + 1]) - first;
        const int width = d.lower_width[c];
        const std::int32_t* column = d.lower_column + d.lower_start[c];
        const double* value = d.lower_value + d.lower_start[c];
#pragma omp parallel
        {
          const Lanes my = lanes_of(running);
          if (my.works) {
#pragma omp simd
            for (int lane = 0; lane < warp; ++lane) {
              for (int k = my.first + lane; k < rows; k += my.all) {
                double v = factor_scale * d.diagonal[first + k];
                for (int s = 0; s < width; ++s) {
                  const double a = value[s * rows + k];
                  v -= a * a * d.w[column[s * rows + k]];
                }
                d.w[first + k] = 1.0 / v;
              }
            }
          }
        }
        together = all_teams_meet(d.arrived, expected += running) && together;
      }

      // x = 0, r = b, z = p = 0, and b.b.
#pragma omp parallel
      {
        const Lanes my = lanes_of(running);
        double mine = 0;
        if (my.works) {
#pragma omp simd reduction(+ : mine)
          for (int lane = 0; lane < warp; ++lane) {
            for (int i = my.first + lane; i < n; i += my.all) {
              d.x[i] = 0.0;
              d.r[i] = d.b[i];
              d.z[i] = 0.0;
              d.p1[i] = 0.0;
              mine += d.b[i] * d.b[i];
            }
          }
          d.thread_part[my.slot] = mine;
        }
      }
      bb = all_teams_sum(team_sum(thread_part, threads), d.team_part + rr_sum * teams, team,
                         running, d.arrived, expected, together);
      rr = bb;

      double rz_old = 1;
      for (; iteration <= max_iterations && together; ++iteration) {
        double* p_new = iteration % 2 ? d.p0 : d.p1;
        const double* p_old = iteration % 2 ? d.p1 : d.p0;
        // Forward sweep: z = (W^-1 + L)^-1 r.
        for (int c = 0; c < colors && together; ++c) {
          const int first = int(d.color_start[c]), rows = int(d.color_start[c + 1]) - first;
          const int width = d.lower_width[c];
          const std::int32_t* column = d.lower_column + d.lower_start[c];
          const double* value = d.lower_value + d.lower_start[c];
#pragma omp parallel
          {
            const Lanes my = lanes_of(running);
            if (my.works) {
#pragma omp simd
              for (int lane = 0; lane < warp; ++lane) {
                for (int k = my.first + lane; k < rows; k += my.all) {
                  double v = d.r[first + k];
                  for (int s = 0; s < width; ++s)
                    v -= value[s * rows + k] * d.z[column[s * rows + k]];
                  d.z[first + k] = v * d.w[first + k];
                }
              }
            }
          }
          together = all_teams_meet(d.arrived, expected += running) && together;
        }
        // Backward sweep z -= W U z from the last colour, adding up the rows' r.z; the last
        // colour's barrier adds up every team's.
        double rz = 0;
        for (int c = colors - 1; c >= 0 && together; --c) {
          const int first = int(d.color_start[c]), rows = int(d.color_start[c + 1]) - first;
          const int width = d.upper_width[c];
          const std::int32_t* column = d.upper_column + d.upper_start[c];
          const double* value = d.upper_value + d.upper_start[c];
#pragma omp parallel
          {
            const Lanes my = lanes_of(running);
            double mine = 0;
            if (my.works) {
#pragma omp simd reduction(+ : mine)
              for (int lane = 0; lane < warp; ++lane) {
                for (int k = my.first + lane; k < rows; k += my.all) {
                  double v = 0;
                  for (int s = 0; s < width; ++s)
                    v += value[s * rows + k] * d.z[column[s * rows + k]];
                  const double zi = d.z[first + k] - d.w[first + k] * v;
                  d.z[first + k] = zi;
                  mine += d.r[first + k] * zi;
                }
              }
              // The thread's r.z over the colours so far.
              d.thread_part[my.slot] = (c == colors - 1 ? 0.0 : d.thread_part[my.slot]) + mine;
            }
          }
          if (c > 0) {
            together = all_teams_meet(d.arrived, expected += running) && together;
          } else {
            rz = all_teams_sum(team_sum(thread_part, threads), d.team_part + rz_sum * teams, team,
                               running, d.arrived, expected, together);
          }
        }
        if (!together) break;
        const double beta = iteration == 1 ? 0.0 : rz / rz_old;
        rz_old = rz;

        // p = z + beta p and q = A p in one pass (a neighbour's new p computed from z and its
        // old p), and p.q.
#pragma omp parallel
        {
          const Lanes my = lanes_of(running);
          double mine = 0;
          for (int c = 0; my.works && c < colors; ++c) {
            const int first = int(d.color_start[c]), rows = int(d.color_start[c + 1]) - first;
            const int lower_slots = d.lower_width[c], upper_slots = d.upper_width[c];
            const std::int32_t* lower_col = d.lower_column + d.lower_start[c];
            const double* lower_val = d.lower_value + d.lower_start[c];
            const std::int32_t* upper_col = d.upper_column + d.upper_start[c];
            const double* upper_val = d.upper_value + d.upper_start[c];
#pragma omp simd reduction(+ : mine)
            for (int lane = 0; lane < warp; ++lane) {
              for (int k = my.first + lane; k < rows; k += my.all) {
                const int i = first + k;
                const double pi = d.z[i] + beta * p_old[i];
                double v = d.diagonal[i] * pi;
                for (int s = 0; s < lower_slots; ++s) {
                  const int j = lower_col[s * rows + k];
                  v += lower_val[s * rows + k] * (d.z[j] + beta * p_old[j]);
                }
                for (int s = 0; s < upper_slots; ++s) {
                  const int j = upper_col[s * rows + k];
                  v += upper_val[s * rows + k] * (d.z[j] + beta * p_old[j]);
                }
                p_new[i] = pi;
                d.q[i] = v;
                mine += pi * v;
              }
            }
          }
          if (my.works) d.thread_part[my.slot] = mine;
        }
        const double pq =
            all_teams_sum(team_sum(thread_part, threads), d.team_part + pq_sum * teams, team,
                          running, d.arrived, expected, together);
        // p != 0 while r is not yet 0, so only an indefinite A gives p . A p <= 0 (a NaN or -inf
        // p.q is left to the residual, as solve_iccg leaves it). Every team holds the same p.q:
        // all stop here.
        if (pq <= 0 && pq > -std::numeric_limits<double>::infinity()) {
          indefinite = true;
          break;
        }
        const double alpha = rz / pq;

        // x += alpha p, r -= alpha q, and r.r.
#pragma omp parallel
        {
          const Lanes my = lanes_of(running);
          double mine = 0;
          if (my.works) {
#pragma omp simd reduction(+ : mine)
            for (int lane = 0; lane < warp; ++lane) {
              for (int i = my.first + lane; i < n; i += my.all) {
                d.x[i] += alpha * p_new[i];
                const double ri = d.r[i] - alpha * d.q[i];
                d.r[i] = ri;
                mine += ri * ri;
              }
            }
            d.thread_part[my.slot] = mine;
          }
        }
        rr = all_teams_sum(team_sum(thread_part, threads), d.team_part + rr_sum * teams, team,
                           running, d.arrived, expected, together);
        if (rr < eps2 * bb) break;
      }
    }
    if (team == 0) {  // every team holds the same
      state[0] = iteration;
      state[1] = rr;
      state[2] = bb;
      state[3] = double(expected);
      state[4] = indefinite ? 1 : 0;
      state[5] = running;
    }
  }

  running_ = int(state[5]);
  arrivals_.check(static_cast<unsigned long long>(state[3]), "iccg omp_target_resident", teams,
                  "omp_target_tuned launches a region per colour and phase instead");
  Solution s;
  s.iterations = std::min(int(state[0]), p_.max_iterations);
  s.relative_residual = std::sqrt(state[1]) / std::sqrt(state[2]);
  s.indefinite = state[4] != 0;
  s.converged = !s.indefinite && state[1] < eps2 * state[2];
  return s;
}

}  // namespace

std::unique_ptr<Instance> make_omp_target_resident(const Params& params) {
  return std::make_unique<OmpTargetResident>(params);
}

TuningSet omp_target_resident_tuning_set() { return resident_tunings().set(); }

}  // namespace acclab::iccg
