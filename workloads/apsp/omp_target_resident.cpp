// optimize_resident in OpenMP target form, the step after omp_target_tuned: all n pivot steps of
// a run in ONE target region instead of a region a step (GCC 12 spends about a millisecond
// launching a region of one team a multiprocessor, longer than a step of the seed's n = 4096
// takes). One team a multiprocessor by default (omp_teams_per_sm, optimize_resident's
// gangs_per_sm in OpenMP; never more than can all run at once, kit/omp_resident_shape.hpp), 16
// warps a team (omp_thread_limit), three teams of one warp at the seed's size (seed_shape
// below), the steps separated by omp_grid_barrier
// (kit/omp_grid_barrier.hpp); `parallel` over the team's warps (an OpenMP thread is a warp in
// GCC's nvptx OpenMP), a warp a row at a time, `simd` over its 32 lanes, `cells` columns a warp
// apart a lane, all loaded before any is stored. The arithmetic and the stores are optimize's (an
// element stored only where step k improves it, the successor beside it with paths=1), and row
// k, read by every row during step k, does not change in it (apsp.hpp), so the result is the
// serial loop's bit for bit. Every other step walks the rows bottom-up (alternate=1). The output
// resident_teams says how many teams ran (1 on the host fallback).
#include <cstdint>

#include "kit/omp_grid_barrier.hpp"
#include "kit/omp_resident_shape.hpp"
#include "workloads/apsp/omp_target_present.hpp"

namespace acclab::apsp {
namespace {

constexpr int warps = int(omp_resident_max_thread_limit);  // most warps a team deals rows over
constexpr int warp = 32;
// The most registers a lane the region's entries may take: tests/omptarget_registers_test.sh's
// budget for this step, which the co-residency check of the shape counts with.
constexpr std::int64_t registers = 96;

// Three teams of one warp a multiprocessor at the seed's size: 1.9x the plain shape on an H100,
// measured with alternate=0 (bench/results/h100/tune/NOTES.md; `large` not yet searched).
constexpr OmpResidentShape seed_shape{.thread_limit = 1, .teams_per_sm = 3};

const StepTunings<OmpResidentShape>& resident_tunings() {
  static const StepTunings<OmpResidentShape> tunings =
      omp_resident_tunings("omp_target_resident", registers, seed_shape);
  return tunings;
}

#pragma omp declare target

template <bool max_plus>
inline bool improves(float now, float through) {
  return max_plus ? now < through : through < now;
}

// One thread's part of all n steps, called from the region's `parallel`: the rows dealt over the
// running teams' threads, a barrier across teams after each step. `together` is the team's
// (false once a team gave up waiting at a barrier); returns the steps this thread made.
template <bool max_plus, bool paths>
int all_steps(int n, float* d, std::int32_t* next, int teams, bool alternate,
              unsigned long long* arrived, bool& together, double* state) {
  // Columns a lane loads at once, as optimize_resident's (what fits 64 registers a lane).
  constexpr int cells = paths ? 5 : 6;
  const int running = omp_teams_running(teams);
  const int team = omp_get_team_num();
  const int thread = omp_get_thread_num();
  const int threads = omp_get_num_threads() < warps ? omp_get_num_threads() : warps;
  const int whole = n - n % (cells * warp);  // the columns of whole batches
  unsigned long long expected = 0;           // thread 0's: arrivals so far, this team's included
  int k = 0;
  // A team beyond those running (the host fallback's others) does nothing.
  for (; team < running && k < n && together; ++k) {
    const float* pivot = d + std::int64_t(k) * n;
    // Every other step walks the rows bottom-up: a warp starts on the rows the step before
    // touched last, still in L2.
    const bool bottom_up = alternate && k % 2 == 1;
    if (thread < threads) {
      for (int walked = team * threads + thread; walked < n; walked += running * threads) {
        const int i = bottom_up ? n - 1 - walked : walked;
        float* row = d + std::int64_t(i) * n;
        std::int32_t* row_next = paths ? next + std::int64_t(i) * n : nullptr;
        const float dik = row[k];
        // A row with no path to k yet cannot improve in step k (dik + anything is `none`, or
        // NaN, and neither improves), so it is not read.
        const bool reaches = max_plus ? dik != -__builtin_inff() : dik != __builtin_inff();
        if (!reaches) continue;
        std::int32_t nik = 0;
        if (paths) nik = row_next[k];
#pragma omp simd
        for (int lane = 0; lane < warp; ++lane) {
          // Whole batches first, without the clamps the last, partial batch needs.
          int j0 = lane;
          for (; j0 < whole; j0 += cells * warp) {
            float now[cells], through[cells];
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              now[u] = row[j0 + u * warp];
              through[u] = dik + pivot[j0 + u * warp];
            }
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              if (improves<max_plus>(now[u], through[u])) {
                row[j0 + u * warp] = through[u];
                if (paths) row_next[j0 + u * warp] = nik;
              }
            }
          }
          for (; j0 < n; j0 += cells * warp) {
            float now[cells], through[cells];
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              const int j = j0 + u * warp < n ? j0 + u * warp : j0;
              now[u] = row[j];
              through[u] = dik + pivot[j];
            }
#pragma GCC unroll 6
            for (int u = 0; u < cells; ++u) {
              const int j = j0 + u * warp;
              if (j < n && improves<max_plus>(now[u], through[u])) {
                row[j] = through[u];
                if (paths) row_next[j] = nik;
              }
            }
          }
        }
      }
    }
#pragma omp barrier
    if (thread == 0) together = omp_grid_barrier(arrived, expected += running);
#pragma omp barrier
  }
  if (team == 0 && thread == 0) {
    state[0] = running;
    state[1] = k;
  }
  return k;
}

#pragma omp end declare target

class OmpTargetResident : public OmpPresentInstance {
 public:
  explicit OmpTargetResident(const Params& params)
      : OmpPresentInstance(params), shape_(resident_tunings().read(params)) {}
  OmpTargetResident(const OmpTargetResident&) = delete;
  OmpTargetResident& operator=(const OmpTargetResident&) = delete;
  ~OmpTargetResident() override { release_counter(); }

  void setup() override {
    OmpPresentInstance::setup();
    teams_ = omp_resident_teams_asked(omp_resident_teams(), shape_);
    arrivals_.enter();
    counter_ = true;
  }
  void run() override {
    const bool max_plus = p_.semiring == Semiring::max_plus;
    if (max_plus) {
      p_.paths ? steps<true, true>() : steps<true, false>();
    } else {
      p_.paths ? steps<false, true>() : steps<false, false>();
    }
  }
  void finish() override {
    OmpPresentInstance::finish();
    release_counter();
  }
  Verification verify() override {
    Verification v = OmpPresentInstance::verify();
    v.outputs["resident_teams"] = running_;
    v.outputs["pivot_steps"] = steps_done_;
    return v;
  }

 private:
  // 32-bit row and column indices: n^2 < 2^31 (validate).
  template <bool max_plus, bool paths>
  void steps() {
    const int n = p_.n, teams = teams_, team_warps = int(shape_.thread_limit);
    const bool alternate = p_.alternate;
    const std::int64_t nn = p_.elements();
    float* d = d_.data();
    std::int32_t* next = next_.data();
    unsigned long long* arrived = arrivals_.reset();
    double state[2] = {0, 0};  // team 0's: teams running, steps made
    // The successors are on the device only with paths (omp_target_present.hpp): a region
    // each, so that no clause names a section that is not there.
    if constexpr (paths) {
#pragma omp target teams num_teams(teams) thread_limit(team_warps) \
    map(alloc                                                      \
        : d [0:nn], next [0:nn], arrived [0:1]) map(from           \
                                                    : state [0:2])
      {
        bool together = true;
#pragma omp parallel
        all_steps<max_plus, paths>(n, d, next, teams, alternate, arrived, together, state);
      }
    } else {
#pragma omp target teams num_teams(teams) thread_limit(team_warps) map(alloc                      \
                                                                       : d [0:nn], arrived [0:1]) \
    map(from                                                                                      \
        : state [0:2])
      {
        bool together = true;
#pragma omp parallel
        all_steps<max_plus, paths>(n, d, nullptr, teams, alternate, arrived, together, state);
      }
    }
    running_ = int(state[0]);
    steps_done_ = std::int64_t(state[1]);
    // Every team at every step's barrier: a run cut short fails here, not only at verify().
    arrivals_.check(std::uint64_t(running_) * std::uint64_t(n), "apsp omp_target_resident", teams,
                    "omp_target_tuned launches a region per step instead");
  }

  void release_counter() {
    if (!counter_) return;
    arrivals_.release();
    counter_ = false;
  }

  OmpResidentShape shape_;
  int teams_ = 1;                // asked for
  int running_ = 0;              // ran, as the region counted them
  std::int64_t steps_done_ = 0;  // pivot steps made, as team 0 counted them
  OmpArrivals arrivals_;         // the barrier's count
  bool counter_ = false;
};

}  // namespace

TuningSet omp_target_resident_tuning_set() { return resident_tunings().set(); }

std::unique_ptr<Instance> make_omp_target_resident(const Params& params) {
  return std::make_unique<OmpTargetResident>(params);
}

}  // namespace acclab::apsp
