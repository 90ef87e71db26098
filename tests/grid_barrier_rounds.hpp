// What every barrier across gangs or teams must do, checked the same way for the OpenACC barrier
// (kit/acc_grid_barrier.hpp) and the OpenMP one (kit/omp_grid_barrier.hpp), on host threads
// standing in for gangs: a thread leaves a barrier only after all have arrived, and sees the
// others' writes from before it; a gang left alone gives up instead of waiting for ever; one gang
// alone never waits.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "kit/acc_grid_barrier.hpp"  // grid_barrier_stalled

namespace acclab::test {

// `barrier(&arrived, target)`: true once `arrived` reached `target`, false where it gave up.
template <typename Barrier>
void expect_threads_leave_together(Barrier barrier) {
  constexpr int threads = 3, rounds = 300;
  unsigned long long arrived = 0;
  std::vector<int> slot(threads, -1);
  std::atomic<int> mismatches{0}, gave_up{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      unsigned long long expected = 0;
      for (int round = 0; round < rounds; ++round) {
        slot[t] = round;  // plain writes: the barrier must order them
        if (!barrier(&arrived, expected += threads)) ++gave_up;
        for (int other = 0; other < threads; ++other) {
          if (slot[other] != round) ++mismatches;
        }
        // A second barrier before anyone writes the next round.
        if (!barrier(&arrived, expected += threads)) ++gave_up;
      }
    });
  }
  for (auto& thread : pool) thread.join();
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(gave_up, 0);
  EXPECT_EQ(arrived, 2ull * rounds * threads);
}

// `barrier(&arrived, target, max_polls)` expecting two gangs where one arrives: it polls 1000
// times, then marks the count stalled; from then on every barrier returns at once, whatever its
// target. Returns the count after one such barrier, for the caller's own checks.
template <typename Barrier>
unsigned long long expect_a_gang_left_alone_gives_up(Barrier barrier) {
  unsigned long long arrived = 0;
  EXPECT_FALSE(barrier(&arrived, 2, 1000));
  EXPECT_NE(arrived & grid_barrier_stalled, 0u);
  EXPECT_EQ(arrived & ~grid_barrier_stalled, 1u);
  EXPECT_FALSE(barrier(&arrived, 1000, 1));
  return arrived;
}

// One gang alone passes 100 barriers in a row, each at its first poll.
template <typename Barrier>
void expect_one_gang_never_waits(Barrier barrier) {
  unsigned long long arrived = 0;
  for (unsigned long long target = 1; target <= 100; ++target) {
    ASSERT_TRUE(barrier(&arrived, target, 1));
  }
  EXPECT_EQ(arrived, 100u);
}

}  // namespace acclab::test
