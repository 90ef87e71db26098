// The barrier across gangs of src/kit/acc_grid_barrier.hpp, on host threads standing in for
// gangs: every thread leaves a barrier only after all have arrived, sees the others' writes from
// before it, and a thread left alone gives up instead of waiting for ever.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "grid_barrier_rounds.hpp"
#include "kit/acc_grid_barrier.hpp"
#include "kit/grid_barrier_check.hpp"

namespace acclab {
namespace {

TEST(GridBarrierTest, ThreadsLeaveTogetherAndSeeEachOthersWrites) {
  test::expect_threads_leave_together([](unsigned long long* arrived, unsigned long long target) {
    return grid_barrier(arrived, target);
  });
}

TEST(GridBarrierTest, AThreadLeftAloneGivesUpAndLetsEveryLaterBarrierThrough) {
  unsigned long long arrived = test::expect_a_gang_left_alone_gives_up(grid_barrier);
  EXPECT_FALSE(grid_barrier(&arrived, 1000));  // with the default polls too
  EXPECT_EQ(arrived & ~grid_barrier_stalled, 3u);
}

TEST(GridBarrierTest, OneGangNeverWaits) { test::expect_one_gang_never_waits(grid_barrier); }

// The host's check after a resident construct (kit/grid_barrier_check.hpp), as every resident
// step calls it: a stalled count names the step, the gangs and what to run instead; a count off
// by one gang's arrival (a barrier skipped, a run cut short) is an error too.
std::string check_error(unsigned long long counted, unsigned long long expected) {
  try {
    check_grid_barrier(counted, expected, "demo resident", 132, "demo launched instead");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(GridBarrierTest, TheHostCheckNamesAStallAndAMiscount) {
  EXPECT_EQ(check_error(132 * 100, 132 * 100), "");
  const std::string stalled = check_error(grid_barrier_stalled | 5, 132 * 100);
  EXPECT_NE(stalled.find("demo resident: a gang waited"), std::string::npos) << stalled;
  EXPECT_NE(stalled.find("were all 132 gangs running at once"), std::string::npos) << stalled;
  EXPECT_NE(stalled.find("demo launched instead"), std::string::npos) << stalled;
  EXPECT_EQ(check_error(132 * 100 - 1, 132 * 100),
            "demo resident: the barrier across gangs counted 13199 arrivals where 13200 were "
            "expected");
  EXPECT_NE(check_error(132 * 99, 132 * 100), "");
}

}  // namespace
}  // namespace acclab
