// A barrier across the teams of one OpenMP target region, which OpenMP lacks: the OpenMP twin of
// acc_grid_barrier.hpp, for the resident omptarget steps that run every pass or sweep of a run in
// ONE region (GCC 12 spends about a millisecond launching a `target teams` region on a GPU).
// Plain C++ with `#pragma omp atomic`: GCC marks the functions `declare target` itself where a
// target region calls them, and the tests (compiled with -fopenmp, no offload) run them on host
// threads standing in for teams.
//
// The count is a generation counter that never resets inside a region: after the k-th barrier
// it holds running * k, so a team waits for `running * k`, and the host reads back how many
// arrivals there were (check_grid_barrier, kit/grid_barrier_check.hpp). It shares the stall
// mark and poll limit of acc_grid_barrier.hpp, which that check reads.
#pragma once

#ifndef _OPENMP
#error "kit/omp_grid_barrier.hpp needs -fopenmp: its atomics are OpenMP directives"
#endif

#include <omp.h>

#include <string_view>

#include "kit/acc_grid_barrier.hpp"  // grid_barrier_max_polls, grid_barrier_stalled
#include "kit/grid_barrier_check.hpp"
#include "core/machine.hpp"
#include "kit/omp_data.hpp"

namespace acclab {

// Teams of a resident region on this machine: one a multiprocessor where the regions run on a
// GPU (libgomp launches at most one team a multiprocessor whatever num_teams asks, so all of
// them run at once, which the barrier needs), else 1. The host fallback runs a region's teams
// one after the other in one thread, so more than one team there would wait for ever at the
// first barrier. 1 too where acclab was built without CUDA to count the multiprocessors.
inline int omp_resident_teams() {
  if (omptarget_device_count() <= 0 || !omptarget_region_on_device()) return 1;
  const int multiprocessors = cuda_multiprocessors(omp_get_default_device());
  return multiprocessors > 0 ? multiprocessors : 1;
}

// Teams that take part in a region launched with num_teams(asked): those libgomp started, read
// inside the region (never assume the count asked for: fewer may start), at most `asked`, and 1
// on the host fallback, where the others return at once (see omp_resident_teams). Call it from
// the region's `parallel` (GCC refuses omp_is_initial_device directly inside `teams`).
inline int omp_teams_running(int asked) {
  if (omp_is_initial_device()) return 1;
  const int started = omp_get_num_teams();
  return started < asked ? started : asked;
}

// What acc_grid_barrier.hpp's device_fence, device_poll are for OpenACC: membar.gl and an
// ld.relaxed.gpu (the L2's copy; GCC 12 compiles `omp atomic read`, a volatile read and an
// acquire load all to a plain ld, which may hit a stale L1 line for ever) on an NVIDIA GPU, a
// sequentially consistent fence and an atomic add of 0 elsewhere (which reads the latest value
// wherever it runs). __builtin_acc_on_device folds to a constant in GCC's OpenMP code too, host
// and nvptx alike; the PTX stays out of the host's code only where the optimizer removes the
// dead branch, so an unoptimized build keeps the plain forms everywhere (GCC 12's nvptx fence is
// then membar.sys: slower, still correct).
inline void omp_device_fence() {
#ifdef __OPTIMIZE__
  if (__builtin_acc_on_device(5 /* acc_device_nvidia */)) {
    asm volatile("membar.gl;" ::: "memory");
    return;
  }
#endif
#pragma omp flush
}

inline unsigned long long omp_device_poll(unsigned long long* counter) {
#ifdef __OPTIMIZE__
  if (__builtin_acc_on_device(5 /* acc_device_nvidia */)) {
    unsigned long long now;
    asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=r"(now) : "r"(counter) : "memory");
    return now;
  }
#endif
  // Not `omp atomic capture` of `+= 0`, which GCC folds into a plain load: a poll of a few
  // nanoseconds on a host would spend grid_barrier_max_polls in a scheduler's time slice.
  return __atomic_fetch_add(counter, 0ull, __ATOMIC_RELAXED);
}

// Adds this team's arrival at `arrived` and waits until `target` arrivals have been counted
// (target: the teams running times the barriers passed so far, this one included). Call it from
// ONE thread of each team (thread 0 of the region's `parallel`), between two `omp barrier`s:
// the first orders the team's other threads' writes before this thread's fence and arrival, the
// second keeps them from the next phase until the barrier is passed. Correct only while every
// team runs at once (omp_resident_teams). Returns false once a team has given up waiting:
// after `max_polls` polls a team sets grid_barrier_stalled in the count, which lets every team
// through every later barrier, so that the region ends and the host reports the stall
// (check_grid_barrier) instead of hanging.
inline bool omp_grid_barrier(unsigned long long* arrived, unsigned long long target,
                             unsigned long long max_polls = grid_barrier_max_polls) {
  omp_device_fence();
#pragma omp atomic update relaxed
  *arrived += 1ull;
  unsigned long long seen = 0, polls = 0;
  while ((seen = omp_device_poll(arrived)) < target) {
    if (++polls == max_polls) {
#pragma omp atomic capture relaxed
      {
        seen = *arrived;
        *arrived |= grid_barrier_stalled;
      }
      seen |= grid_barrier_stalled;
      break;
    }
  }
  omp_device_fence();
  return seen < grid_barrier_stalled;
}

// The barrier's arrival count of a resident step: a device copy entered for the step's
// measurement, zeroed before each region and read back after it.
class OmpArrivals {
 public:
  OmpArrivals() = default;
  OmpArrivals(const OmpArrivals&) = delete;
  OmpArrivals& operator=(const OmpArrivals&) = delete;
  ~OmpArrivals() { release(); }

  void enter() {
    count_ = 0;
    omp_enter_to(&count_, 1);
    entered_ = true;
  }
  // Zeroes the device copy; returns the address the region maps and counts on.
  unsigned long long* reset() {
    count_ = 0;
    omp_update_device(&count_, 1);
    return &count_;
  }
  // After the region: throws (check_grid_barrier) where a team gave up waiting or the arrivals
  // are not `expected`.
  void check(unsigned long long expected, std::string_view step, long long teams,
             std::string_view fallback) {
    omp_update_host(&count_, 1);
    check_grid_barrier(count_, expected, step, teams, fallback);
  }
  void release() {
    if (entered_) omp_exit_delete(&count_, 1);
    entered_ = false;
  }

 private:
  unsigned long long count_ = 0;
  bool entered_ = false;
};

}  // namespace acclab
