// acc_tuned in OpenMP target form, the step after omp_target_tuned: every time step of a run in
// ONE target region instead of a region a step (GCC 12 spends about a millisecond launching a
// region of one team a multiprocessor, longer than a step of the seed's grid takes). One team a
// multiprocessor by default (omp_teams_per_sm; never more than can all run at once,
// kit/omp_resident_shape.hpp), 16 warps a team (omp_thread_limit), smaller teams at the seed's
// and large sizes (seed_shape, large_shape below), the steps separated by omp_grid_barrier
// (kit/omp_grid_barrier.hpp); `parallel` over the team's warps (an OpenMP thread is a warp in
// GCC's nvptx OpenMP), a warp takes whole (j, k) rows, and `simd` puts its 32 lanes on the row's
// cells 32 apart, `cells` of them a lane, all loaded before any is stored: the loop body of
// acc_resident_steps.cpp, the same arithmetic in the same order, zero-flux walls (a missing
// neighbour is the cell itself). Every other step walks the rows back to front (alternate=1,
// the default), starting on the rows the step before wrote last, still in L2. The output
// resident_teams says how many teams ran (1 on the host fallback).
#include <cstdint>

#include "kit/omp_data.hpp"
#include "kit/omp_grid_barrier.hpp"
#include "kit/omp_resident.hpp"
#include "kit/omp_resident_shape.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

// Warps (OpenMP threads) a team deals its rows over at most, and cells a lane loads at once, as
// acc_tuned's (acc_resident_steps.cpp: more than 64 registers a lane, so 16 warps fill a
// multiprocessor).
constexpr int warps = int(omp_resident_max_thread_limit);
constexpr int warp = 32;
constexpr int cells = 4;
// The most registers a lane the region's entries may take: tests/omptarget_registers_test.sh's
// budget for this step, which the co-residency check of the shape counts with.
constexpr std::int64_t registers = 112;

// Four teams of one warp a multiprocessor at the seed's size, three of two at `large`: 8.3x and
// 1.8x the plain shape on an H100, measured with alternate=0 (bench/results/h100/tune/NOTES.md:
// alternate=1, the default, was never slower than 0 in any of jacobi2d's 30 pairs of shapes).
constexpr OmpResidentShape seed_shape{.thread_limit = 1, .teams_per_sm = 4};
constexpr OmpResidentShape large_shape{.thread_limit = 2, .teams_per_sm = 3};

const StepTunings<OmpResidentShape>& resident_tunings() {
  static const StepTunings<OmpResidentShape> tunings =
      omp_resident_tunings("omp_target_resident", registers, seed_shape, large_shape);
  return tunings;
}

class OmpTargetResident : public DiffusionInstance {
 public:
  explicit OmpTargetResident(const Params& params)
      : DiffusionInstance(params), shape_(resident_tunings().read(params)) {}
  OmpTargetResident(const OmpTargetResident&) = delete;
  OmpTargetResident& operator=(const OmpTargetResident&) = delete;
  ~OmpTargetResident() override { release(); }

  void setup() override {
    DiffusionInstance::setup();
    device_.enter(initial_.data(), f_.data(), fn_.data(), p_.points());
    teams_ = omp_resident_teams_asked(omp_resident_teams(), shape_);
    arrivals_.enter();
    resident_ = true;
  }
  void reset() override { device_.reset(); }
  void run() override;
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    release();
  }

 private:
  void release() {
    device_.release();
    if (!resident_) return;
    arrivals_.release();
    resident_ = false;
  }

  OmpResidentShape shape_;
  OmpResidentPair device_;
  int teams_ = 1;         // asked for
  OmpArrivals arrivals_;  // the barrier's count
  bool resident_ = false;
};

void OmpTargetResident::run() {
  // validate keeps the cells under 2^31.
  const int nx = int(p_.nx), ny = int(p_.ny), nz = int(p_.nz), plane = nx * ny,
            n = int(p_.points()), rows = ny * nz;
  const float cc = p_.cc, ce = p_.ce, cw = p_.cw, cn = p_.cn, cs = p_.cs, ct = p_.ct, cb = p_.cb;
  const std::int64_t steps = p_.steps;
  const bool alternate = p_.alternate;
  const int teams = teams_, team_warps = int(shape_.thread_limit);
  float *f = f_.data(), *fn = fn_.data();
  unsigned long long* arrived = arrivals_.reset();
  double state[2] = {0, 0};  // team 0's: teams running, steps done
#pragma omp target teams num_teams(teams) thread_limit(team_warps) \
    map(alloc                                                      \
        : f [0:n], fn [0:n], arrived [0:1]) map(from               \
                                                : state [0:2])
  {
    bool together = true;  // the team's: false once a team gave up waiting at a barrier
#pragma omp parallel
    {
      const int running = omp_teams_running(teams);
      const int team = omp_get_team_num();
      // The threads (warps) that step: those libgomp started (fewer than asked where a team of
      // `warps` would need more registers than a multiprocessor has), at most `warps`.
      const int thread = omp_get_thread_num();
      const int threads = omp_get_num_threads() < warps ? omp_get_num_threads() : warps;
      unsigned long long expected = 0;  // thread 0's: arrivals so far, this team's included
      std::int64_t done = 0;
      // A team beyond those running (the host fallback's others) does nothing.
      for (std::int64_t s = 0; team < running && s < steps && together; ++s) {
        // Step 1 reads f and writes fn, as DiffusionInstance::iterate's first step.
        const float* from = s % 2 ? fn : f;
        float* to = s % 2 ? f : fn;
        const bool back_to_front = alternate && s % 2 == 1;
        if (thread < threads) {
          for (int walked = team * threads + thread; walked < rows; walked += running * threads) {
            const int row = back_to_front ? rows - 1 - walked : walked;
            const int j = row % ny, k = row / ny;
            // Zero-flux walls: a missing neighbour is the cell itself (offset 0).
            const int dj_plus = nx * (j < ny - 1), dj_minus = nx * (j > 0);
            const int dk_plus = plane * (k < nz - 1), dk_minus = plane * (k > 0);
            const int start = k * plane + j * nx;
            for (int i0 = 0; i0 < nx; i0 += cells * warp) {
#pragma omp simd
              for (int lane = 0; lane < warp; ++lane) {
                float centre[cells], east[cells], west[cells], north[cells], south[cells],
                    up[cells], down[cells];
#pragma GCC unroll 4
                for (int u = 0; u < cells; ++u) {
                  // A cell past the row's end loads the row's first instead, and stores nothing.
                  const int i = i0 + lane + u * warp < nx ? i0 + lane + u * warp : i0;
                  const int ix = start + i;
                  centre[u] = from[ix];
                  east[u] = from[ix + (i < nx - 1)];
                  west[u] = from[ix - (i > 0)];
                  north[u] = from[ix + dj_plus];
                  south[u] = from[ix - dj_minus];
                  up[u] = from[ix + dk_plus];
                  down[u] = from[ix - dk_minus];
                }
#pragma GCC unroll 4
                for (int u = 0; u < cells; ++u) {
                  const int i = i0 + lane + u * warp;
                  if (i < nx) {
                    to[start + i] = cc * centre[u] + ce * east[u] + cw * west[u] + cn * north[u] +
                                    cs * south[u] + ct * up[u] + cb * down[u];
                  }
                }
              }
            }
          }
        }
#pragma omp barrier
        if (thread == 0) together = omp_grid_barrier(arrived, expected += running);
#pragma omp barrier
        done = s + 1;
      }
      if (team == 0 && thread == 0) {
        state[0] = running;
        state[1] = double(done);
      }
    }
  }
  steps_ = std::int64_t(state[1]);
  result_ = steps_ % 2 ? fn_.data() : f_.data();
  extra_outputs_["resident_teams"] = int(state[0]);
  arrivals_.check(static_cast<unsigned long long>(state[0] * state[1]),
                  "diffusion3d omp_target_resident", teams,
                  "omp_target_tuned launches a region per step instead");
}

}  // namespace

TuningSet omp_target_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_omp_target_resident(const Params& params) {
  return std::make_unique<OmpTargetResident>(params);
}

}  // namespace acclab::diffusion3d
