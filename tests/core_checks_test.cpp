// The checks every workload shares from src/core: the memo of the serial reference
// (core/reference_memo.hpp) and the NaN-aware comparison (core/compare.hpp).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/compare.hpp"
#include "core/reference_memo.hpp"
#include "kit/mpi_steps.hpp"

namespace acclab {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// ---- ReferenceMemo ------------------------------------------------------------------------------

using Key = std::tuple<int, double>;

// A "reference" that records how often it was computed: the key's values, and the count so far.
struct Computed {
  std::vector<double> values;
  int computation = 0;
};

class ReferenceMemoTest : public ::testing::Test {
 protected:
  const Computed& get(const Key& key) {
    return memo_.get(key, [&] {
      ++computations_;
      return Computed{{double(std::get<0>(key)), std::get<1>(key)}, computations_.load()};
    });
  }

  ReferenceMemo<Key, Computed> memo_;
  std::atomic<int> computations_ = 0;
};

TEST_F(ReferenceMemoTest, EqualParametersGetTheSameObjectComputedOnce) {
  const Computed& first = get({3, 0.5});
  const Computed& again = get({3, 0.5});
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(computations_, 1);
  EXPECT_EQ(again.values, (std::vector<double>{3, 0.5}));
}

TEST_F(ReferenceMemoTest, OtherParametersAreComputedAgain) {
  EXPECT_EQ(get({3, 0.5}).computation, 1);
  // Either element of the key changes the result.
  const Computed& other_size = get({4, 0.5});
  EXPECT_EQ(other_size.computation, 2);
  EXPECT_EQ(other_size.values, (std::vector<double>{4, 0.5}));
  const Computed& other_real = get({4, 0.25});
  EXPECT_EQ(other_real.computation, 3);
  EXPECT_EQ(other_real.values, (std::vector<double>{4, 0.25}));
  // One entry: going back to the first parameters computes them again.
  EXPECT_EQ(get({3, 0.5}).computation, 4);
  EXPECT_EQ(computations_, 4);
}

TEST_F(ReferenceMemoTest, ThreadsAskingAtOnceComputeOnce) {
  std::vector<std::thread> threads;
  std::vector<const Computed*> seen(8, nullptr);
  for (std::size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] { seen[t] = &get({7, 1.5}); });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(computations_, 1);
  for (const Computed* s : seen) EXPECT_EQ(s, seen.front());
}

TEST_F(ReferenceMemoTest, AComputationThatThrowsKeepsNothing) {
  get({1, 1.0});
  EXPECT_THROW(memo_.get(Key{2, 2.0}, []() -> Computed { throw std::runtime_error("no"); }),
               std::runtime_error);
  // The next call computes, for the old parameters as for the new.
  EXPECT_EQ(get({1, 1.0}).computation, 2);
}

// ---- compare.hpp --------------------------------------------------------------------------------

TEST(CompareTest, LargestAbsoluteDifferenceAndWhere) {
  const std::vector<float> a = {1.0f, 2.0f, -3.0f, 4.0f};
  const std::vector<float> b = {1.0f, 2.5f, -1.0f, 4.25f};
  const Difference d = max_abs_difference(a.data(), b.data(), 4);
  EXPECT_EQ(d.value, 2.0);
  EXPECT_EQ(d.index, 2);
  EXPECT_FALSE(d.nan);
  EXPECT_EQ(d.value_or_nan(), 2.0);
}

TEST(CompareTest, EqualArraysDifferByZeroAtNoIndex) {
  const std::vector<double> a = {0.0, -0.0, 5.0};
  const std::vector<double> b = {-0.0, 0.0, 5.0};
  const Difference d = max_abs_difference(a.data(), b.data(), 3);
  EXPECT_EQ(d.value, 0.0);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(max_abs_difference(a.data(), b.data(), 0).value, 0.0);
}

TEST(CompareTest, ANaNAnywhereIsAnInfiniteDifference) {
  // First, last and in the middle, before and after a large finite difference: a plain
  // std::max would drop the NaN in every one of these places.
  for (std::size_t at = 0; at < 5; ++at) {
    SCOPED_TRACE(at);
    std::vector<double> a = {1, 2, 1e300, 4, 5};
    const std::vector<double> b = {1, 2, -1e300, 4, 5};
    a[at] = nan;
    const Difference d = max_abs_difference(a.data(), b.data(), 5);
    EXPECT_EQ(d.value, inf);
    EXPECT_TRUE(d.nan);
    EXPECT_TRUE(std::isnan(d.value_or_nan()));
    // No bound accepts it.
    EXPECT_FALSE(d.value <= std::numeric_limits<double>::max());
    EXPECT_EQ(d.index, std::int64_t(at));
  }
  // A NaN in the reference counts as well.
  const std::vector<float> x = {1.0f}, y = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_EQ(max_abs_difference(x.data(), y.data(), 1).value, inf);
}

TEST(CompareTest, AnInfinityIsAnInfiniteDifferenceButNoNaN) {
  const std::vector<float> a = {1.0f, std::numeric_limits<float>::infinity()};
  const std::vector<float> b = {1.0f, 1.0f};
  const Difference d = max_abs_difference(a.data(), b.data(), 2);
  EXPECT_EQ(d.value, inf);
  EXPECT_EQ(d.index, 1);
  EXPECT_FALSE(d.nan);
  EXPECT_EQ(d.value_or_nan(), inf);
}

TEST(CompareTest, FoldKeepsTheFirstOfEqualDifferencesAndNaNSticks) {
  Difference d;
  fold_difference(d, 0.5, 10);
  fold_difference(d, 0.5, 11);
  EXPECT_EQ(d.index, 10);
  fold_difference(d, nan, 12);
  fold_difference(d, 7.0, 13);  // finite, after the NaN
  EXPECT_EQ(d.value, inf);
  EXPECT_EQ(d.index, 12);
  EXPECT_TRUE(d.nan);
}

TEST(CompareTest, FloatsAreSubtractedInDouble) {
  // A float against a double nearer to it than float resolution: the difference is not lost.
  const std::vector<float> a = {1.0f};
  const std::vector<double> b = {1.0 + 0x1p-40};
  EXPECT_EQ(max_abs_difference(a.data(), b.data(), 1).value, 0x1p-40);
}

TEST(CompareTest, LongDoubleReferencesAreNotRoundedToDoubleFirst) {
  if (LDBL_MANT_DIG <= DBL_MANT_DIG) GTEST_SKIP() << "long double is double here";
  const std::vector<double> result = {1.0};
  const std::vector<long double> reference = {1.0L + 0x1p-60L};  // rounds to 1.0 in double
  EXPECT_EQ(max_abs_difference(result.data(), reference.data(), 1).value, 0x1p-60);
}

// --set proc_grid, as every distributed step reads it (kit/mpi_steps.hpp): N positive counts
// whose product is the ranks running, anything else refused naming the setting and the form.
TEST(ProcessGridTest, CountsWhoseProductIsTheRanksRunning) {
  EXPECT_EQ(mpi::parse_process_grid<2>("2x3", 6, "PxQ with P * Q"), (std::array<int, 2>{2, 3}));
  EXPECT_EQ(mpi::parse_process_grid<3>("1x1x4", 4, "PxQxR with P * Q * R"),
            (std::array<int, 3>{1, 1, 4}));
  for (const std::string bad : {"2x2", "2x3x1", "2", "2x", "x3", "0x6", "2x+3", "2x 3", "2x3 ",
                                "-2x-3", "2.0x3", "2x9999999", "", "2X3"}) {
    try {
      mpi::parse_process_grid<2>(bad, 6, "PxQ with P * Q");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()),
                "--set proc_grid=" + bad + ": expected PxQ with P * Q = 6, the ranks running");
    }
  }
}

}  // namespace
}  // namespace acclab
