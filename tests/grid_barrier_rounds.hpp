// The one property every barrier across gangs or teams must have, checked the same way for the
// OpenACC barrier (kit/acc_grid_barrier.hpp) and the OpenMP one (kit/omp_grid_barrier.hpp), on
// host threads standing in for gangs: a thread leaves a barrier only after all have arrived,
// and sees the others' writes from before it.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

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

}  // namespace acclab::test
