// acc_resident in OpenMP target form, the step after omp_target_tuned: every sweep of a run in
// ONE target region, the convergence check inside it, instead of a region a sweep (GCC 12 spends
// about a millisecond launching a region of one team a multiprocessor, far longer than a sweep
// of the seed's grid takes). One team a multiprocessor by default (omp_teams_per_sm; never more
// than can all run at once, kit/omp_resident_shape.hpp), 16 warps a team (omp_thread_limit);
// four teams of two warps at the seed's size (seed_shape below), the
// sweeps separated by omp_grid_barrier (kit/omp_grid_barrier.hpp); `parallel` over the
// team's warps (an OpenMP thread is a warp in GCC's nvptx OpenMP), a warp takes pieces of a row,
// and `simd` puts its 32 lanes on the piece's columns 32 apart, `cells` of them a lane, all
// loaded before any is stored. In tol mode each warp leaves the largest change of its pieces in
// a slot of its own; after the barrier every thread reads all the slots, so all take the same
// decision to stop. The output resident_teams says how many teams ran (1 on the host fallback).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "kit/omp_data.hpp"
#include "kit/omp_grid_barrier.hpp"
#include "kit/omp_resident.hpp"
#include "kit/omp_resident_shape.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

// Warps (OpenMP threads) a team deals its pieces over at most (the slots a team), and columns
// a lane loads at once, as acc_resident's.
constexpr int warps = int(omp_resident_max_thread_limit);
constexpr int warp = 32;
constexpr int cells = 8;
// The most registers a lane the region's entries may take: tests/omptarget_registers_test.sh's
// budget for this step, which the co-residency check of the shape counts with.
constexpr std::int64_t registers = 120;

// At the seed's size four teams of two warps a multiprocessor: 2.3x the default shape there on
// an H100 (bench/results/h100/tune/).
constexpr OmpResidentShape seed_shape{.thread_limit = 2, .teams_per_sm = 4};

const StepTunings<OmpResidentShape>& resident_tunings() {
  static const StepTunings<OmpResidentShape> tunings =
      omp_resident_tunings("omp_target_resident", registers, seed_shape);
  return tunings;
}

class OmpTargetResident : public JacobiInstance {
 public:
  explicit OmpTargetResident(const Params& params)
      : JacobiInstance(params), shape_(resident_tunings().read(params)) {}
  OmpTargetResident(const OmpTargetResident&) = delete;
  OmpTargetResident& operator=(const OmpTargetResident&) = delete;
  ~OmpTargetResident() override { release(); }

  void setup() override {
    JacobiInstance::setup();
    device_.enter(initial_.data(), u0_.data(), u1_.data(), p_.points());
    teams_ = omp_resident_teams_asked(omp_resident_teams(), shape_);
    // Two slots a warp: one check's, and the next one's while slow teams still read the first.
    slots_.assign(2 * std::size_t(teams_) * warps, 0.0f);
    omp_enter_alloc(slots_.data(), std::int64_t(slots_.size()));
    arrivals_.enter();
    resident_ = true;
  }
  void reset() override { device_.reset(); }
  void run() override;
  void finish() override {
    device_.fetch(const_cast<float*>(result_));
    release();
  }
  Verification verify() override {
    Verification v = JacobiInstance::verify();
    v.outputs["resident_teams"] = running_;
    return v;
  }

 private:
  void release() {
    device_.release();
    if (!resident_) return;
    omp_exit_delete(slots_.data(), std::int64_t(slots_.size()));
    arrivals_.release();
    resident_ = false;
  }

  OmpResidentShape shape_;
  OmpResidentPair device_;
  int teams_ = 1;             // asked for
  int running_ = 0;           // ran, as the region counted them
  OmpArrivals arrivals_;      // the barrier's count
  std::vector<float> slots_;  // each warp's largest change, two checks' worth
  bool resident_ = false;
};

void OmpTargetResident::run() {
  const profile::Region region("sweeps");  // --profile's label
  const int rows = int(p_.rows), cols = int(p_.cols), n = int(p_.points());
  const std::int64_t iters = p_.iters, check_every = p_.check_every;
  const bool tol_mode = p_.tol_mode;
  const double tol = p_.tol;
  const bool alternate = p_.alternate;
  const float c1f = p_.c1f, wy2 = p_.wy2, hx2 = p_.hx2, c2 = p_.c2;
  const int teams = teams_, team_warps = int(shape_.thread_limit);
  const int pieces_a_row = (cols - 2 + cells * warp - 1) / (cells * warp);
  const int pieces = (rows - 2) * pieces_a_row;
  float *u0 = u0_.data(), *u1 = u1_.data();
  unsigned long long* arrived = arrivals_.reset();
  float* partial = slots_.data();
  const std::int64_t slot_count = std::int64_t(slots_.size());
  // What team 0 leaves for the host: teams running, sweeps done, the last change measured (-1:
  // none).
  double state[3] = {0, 0, -1};
#pragma omp target teams num_teams(teams) thread_limit(team_warps)            \
    map(alloc                                                                 \
        : u0 [0:n], u1 [0:n], arrived [0:1], partial [0:slot_count]) map(from \
                                                                         : state [0:3])
  {
    bool together = true;  // the team's: false once a team gave up waiting at a barrier
#pragma omp parallel
    {
      const int running = omp_teams_running(teams);
      const int team = omp_get_team_num();
      // The threads (warps) that sweep: those libgomp started, which is fewer than asked where a
      // team of `warps` would need more registers than a multiprocessor has; never more than
      // the slots hold (the host's threads beyond them only meet at the barriers).
      const int thread = omp_get_thread_num();
      const int threads = omp_get_num_threads() < warps ? omp_get_num_threads() : warps;
      unsigned long long expected = 0;  // thread 0's: arrivals so far, this team's included
      std::int64_t done = 0;
      float last_change = -1.0f;
      int checks = 0;
      // A team beyond those running (the host fallback's others) does nothing.
      for (std::int64_t s = 1; team < running && s <= iters && together; ++s) {
        // Sweep 1 reads u0 and writes u1, as JacobiInstance::iterate's first sweep.
        const float* in = s % 2 ? u0 : u1;
        float* out = s % 2 ? u1 : u0;
        const bool check = tol_mode && s % check_every == 0;
        // Every other sweep walks the rows bottom-up: it starts on the rows the sweep before
        // wrote last, which are still in L2.
        const bool bottom_up = alternate && s % 2 == 0;
        float* slots = partial + (checks % 2) * (teams * warps);
        if (thread < threads) {
          float change = 0.0f;
          // The warps deal out pieces of `cells` x 32 columns of a row, not whole rows, so that
          // no warp has a whole row more than another to sweep before the barrier.
          for (int piece = team * threads + thread; piece < pieces; piece += running * threads) {
            const int walked = 1 + piece / pieces_a_row;
            const int row = bottom_up ? rows - 1 - walked : walked;
            const int first = 1 + (piece % pieces_a_row) * cells * warp;
#pragma omp simd reduction(max : change)
            for (int lane = 0; lane < warp; ++lane) {
              const int j0 = first + lane;
              // One cell at a time, no per-lane arrays: arrays private to a simd loop are laid out
              // for all 32 lanes in the stack of the parallel region's body, which libgomp calls
              // through a pointer, and 5 x 8 floats a lane overran the stack CUDA gives such a
              // function (compute-sanitizer: invalid __local__ writes). The cost: a cell's loads no
              // longer all come before the stores of the cells before it (in and out may alias).
#pragma GCC unroll 8
              for (int u = 0; u < cells; ++u) {
                const int j = j0 + u * warp;
                if (j < cols - 1) {
                  const int k = row * cols + j;
                  const float v =
                      (c1f + wy2 * (in[k - cols] + in[k + cols]) + hx2 * (in[k - 1] + in[k + 1])) *
                      c2;
                  if (check) {
                    const float d = __builtin_fabsf(v - in[k]);
                    change = d > change ? d : change;  // fmaxf is not in nvptx's libraries
                  }
                  out[k] = v;
                }
              }
            }
          }
          if (check) slots[team * warps + thread] = change;
        }
#pragma omp barrier
        if (thread == 0) together = omp_grid_barrier(arrived, expected += running);
#pragma omp barrier
        done = s;
        if (check) {
          // The running teams' slots (every team runs as many threads: one launch's blocks): the
          // same values, so the same decision, in every thread of every team.
          float change = 0.0f;
          for (int t = 0; t < running; ++t) {
            for (int h = t * warps; h < t * warps + threads; ++h) {
              change = slots[h] > change ? slots[h] : change;
            }
          }
          ++checks;
          last_change = change;
          if (change < tol) break;
        }
      }
      if (team == 0 && thread == 0) {
        state[0] = running;
        state[1] = double(done);
        state[2] = last_change;
      }
    }
  }
  running_ = int(state[0]);
  sweeps_ = std::int64_t(state[1]);
  residual_ = state[2];
  result_ = sweeps_ % 2 ? u1_.data() : u0_.data();
  arrivals_.check(static_cast<unsigned long long>(state[0] * state[1]),
                  "jacobi2d omp_target_resident", teams,
                  "omp_target_tuned launches a region per sweep instead");
}

}  // namespace

TuningSet omp_target_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_omp_target_resident(const Params& params) {
  return std::make_unique<OmpTargetResident>(params);
}

}  // namespace acclab::jacobi2d
