// The checks every workload shares from src/core: the memo of the serial reference
// (core/reference_memo.hpp), its copy kept across processes (core/reference_store.hpp) and the
// NaN-aware comparison (core/compare.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/compare.hpp"
#include "core/error.hpp"
#include "core/reference_memo.hpp"
#include "kit/mpi_steps.hpp"
#include "tests/support.hpp"

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
  template <typename Visit>
  void fields(Visit&& visit) {
    visit(values);
    visit(computation);
  }
};

// ACCLAB_REFERENCE_DIR set to `value` (unset for nullopt) for one test, then as it was.
class ReferenceDirSetting {
 public:
  explicit ReferenceDirSetting(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("ACCLAB_REFERENCE_DIR")) saved_ = old;
    if (value) {
      setenv("ACCLAB_REFERENCE_DIR", value->c_str(), 1);
    } else {
      unsetenv("ACCLAB_REFERENCE_DIR");
    }
  }
  ~ReferenceDirSetting() {
    if (saved_) {
      setenv("ACCLAB_REFERENCE_DIR", saved_->c_str(), 1);
    } else {
      unsetenv("ACCLAB_REFERENCE_DIR");
    }
  }

 private:
  std::optional<std::string> saved_;
};

class ReferenceMemoTest : public ::testing::Test {
 protected:
  const Computed& get(const Key& key) { return get(memo_, key); }
  const Computed& get(ReferenceMemo<Key, Computed>& memo, const Key& key) {
    return memo.get(key, [&] {
      ++computations_;
      return Computed{{double(std::get<0>(key)), std::get<1>(key)}, computations_.load()};
    });
  }

  ReferenceDirSetting no_store_{std::nullopt};  // a user's setting must not serve these tests
  ReferenceMemo<Key, Computed> memo_{"memo-test"};
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

// ---- reference_store.hpp ----------------------------------------------------------------------

// A memo made afresh stands for another process: it has kept nothing of its own.
class ReferenceStoreTest : public ReferenceMemoTest {
 protected:
  // The one reference file in the folder (a test fails when there is not exactly one).
  std::filesystem::path stored_file() const {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path())) {
      if (entry.path().extension() == ".ref") files.push_back(entry.path());
    }
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? std::filesystem::path() : files.front();
  }

  test::TempDir dir_;
  ReferenceDirSetting store_{dir_.path().string()};
};

TEST_F(ReferenceStoreTest, AnotherProcessReadsWhatTheFirstComputed) {
  EXPECT_EQ(get({5, 0.1}).computation, 1);
  ReferenceMemo<Key, Computed> other("memo-test");
  const Computed& read = get(other, {5, 0.1});
  EXPECT_EQ(computations_, 1);
  EXPECT_EQ(read.computation, 1);  // the first one's value, every field of it
  EXPECT_EQ(read.values, (std::vector<double>{5, 0.1}));
  EXPECT_EQ(std::filesystem::path(stored_file()).filename().string().rfind("memo-test-", 0), 0u);
}

TEST_F(ReferenceStoreTest, AnotherKeyOrNameIsComputed) {
  get({5, 0.1});
  ReferenceMemo<Key, Computed> other("memo-test"), renamed("other-test");
  // 0.1 and 0.1 + one ulp are other keys: the key is written in full precision.
  EXPECT_EQ(get(other, {5, std::nextafter(0.1, 1.0)}).computation, 2);
  EXPECT_EQ(get(renamed, {5, 0.1}).computation, 3);
}

TEST_F(ReferenceStoreTest, WithoutTheFolderEveryProcessComputes) {
  ReferenceDirSetting unset(std::nullopt);
  get({5, 0.1});
  ReferenceMemo<Key, Computed> other("memo-test");
  EXPECT_EQ(get(other, {5, 0.1}).computation, 2);
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(ReferenceStoreTest, ADamagedShortOrLongFileIsComputedAgainAndReplaced) {
  get({5, 0.1});
  const std::filesystem::path file = stored_file();
  const std::string good = test::read_file(file);
  const auto served_after = [&](const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
    ReferenceMemo<Key, Computed> other("memo-test");
    const int before = computations_;
    const bool computed = get(other, {5, 0.1}).computation == before + 1;
    // Whatever it found, the file now holds the reference whole.
    EXPECT_EQ(test::read_file(file).size(), good.size());
    return !computed;
  };
  std::string flipped = good;
  flipped[good.size() - 12] ^= 1;  // a bit of the last field, before the checksum's 8 bytes
  EXPECT_FALSE(served_after(flipped));
  EXPECT_FALSE(served_after(good.substr(0, good.size() - 1)));
  EXPECT_FALSE(served_after(good + "x"));
  std::string other_key = good;
  other_key[other_key.find("memo-test 5 0.1")] = 'M';  // the key line, hash unchanged
  EXPECT_FALSE(served_after(other_key));
  EXPECT_TRUE(served_after(good));  // the test's own control: the good bytes are served
}

TEST_F(ReferenceStoreTest, ProcessesAskingAtOnceComputeOnce) {
  const std::filesystem::path counter = dir_.path() / "computations";
  std::vector<pid_t> children;
  for (int c = 0; c < 4; ++c) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ReferenceMemo<Key, Computed> memo("memo-test");
      const Computed& value = memo.get({9, 2.5}, [&] {
        std::ofstream(counter, std::ios::app) << 'x';
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the others ask meanwhile
        return Computed{{9, 2.5}, 1};
      });
      _exit(value.values == std::vector<double>{9, 2.5} && value.computation == 1 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(test::read_file(counter), "x");
}

TEST_F(ReferenceStoreTest, AFolderThatCannotHoldFilesIsRefusedNamingTheSetting) {
  const std::filesystem::path nested = dir_.path() / "a" / "b";
  {
    ReferenceDirSetting setting(nested.string());
    EXPECT_NO_THROW(check_reference_dir());
    EXPECT_TRUE(std::filesystem::is_directory(nested));
  }
  const std::filesystem::path file = dir_.path() / "file";
  std::ofstream(file) << "not a folder";
  ReferenceDirSetting setting(file.string());
  const std::string message = test::usage_error_message([] { check_reference_dir(); });
  EXPECT_NE(message.find("ACCLAB_REFERENCE_DIR=" + file.string()), std::string::npos) << message;
}

// The command line as users run it: a bad folder is refused before the command runs; a good
// one holds the reference the first run computed, and a second run verifies against it.
TEST_F(ReferenceStoreTest, TheBinaryRefusesABadFolderAndSharesAGoodOne) {
  const std::vector<std::string> run = {"run",    "apsp",      "--variant", "serial", "--set",
                                        "n=48",   "--reps",    "1",         "--format", "json"};
  {
    const std::filesystem::path file = dir_.path() / "file";
    std::ofstream(file) << "not a folder";
    ReferenceDirSetting setting(file.string());
    EXPECT_TRUE(test::is_usage_error(test::run_acclab(run), {"ACCLAB_REFERENCE_DIR"}));
  }
  ino_t written = 0;
  for (int process = 0; process < 2; ++process) {
    const test::Outcome o = test::run_acclab(run);
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_EQ(test::parse_json(o.out)["results"][0]["status"], "verified") << o.out;
    const std::filesystem::path file = stored_file();
    ASSERT_EQ(file.filename().string().rfind("apsp-", 0), 0u) << file;
    struct stat info {};
    ASSERT_EQ(stat(file.c_str(), &info), 0);
    // The second process read the file: one it had computed again would be a new file, renamed
    // over the old (another inode).
    if (process == 1) EXPECT_EQ(info.st_ino, written);
    written = info.st_ino;
  }
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
