// Every vector variant through the real harness (Runner), on the small preset and on odd sizes,
// plus the harness's own contract (call order, failures, rates, ladder speedups) checked with
// an instance that records what the runner does.
#include "workloads/vector/vector.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/registry.hpp"
#include "core/report.hpp"
#include "core/runner.hpp"
#include "kit/acc_data.hpp"
#include "support.hpp"

namespace acclab {
namespace {

using test::all;

const Workload& vector_workload() { return all().workload("vector"); }

const Variant& vector_variant(const std::string& name) { return test::variant_of("vector", name); }

std::vector<std::string> vector_variant_names() { return test::variant_names("vector"); }

Params vector_params(const std::string& preset, const std::vector<std::string>& overrides) {
  return test::params_of("vector", overrides, preset);
}

// ---- every registered variant ---------------------------------------------------------------

class VectorVariantTest : public test::VariantTest {
 protected:
  VectorVariantTest() : VariantTest("vector") {}

  void expect_unavailable(const Result& r) {
    EXPECT_EQ(r.status, Status::unavailable) << to_string(r.status) << ": " << r.error;
    EXPECT_FALSE(r.note.empty()) << "an unavailable result says why";
    EXPECT_TRUE(r.times_s.empty());
    EXPECT_TRUE(r.error.empty());
  }

  void expect_verified(const Result& r, const Params& params, int reps) {
    ASSERT_NO_FATAL_FAILURE(expect_verified_and_timed(r, params, reps));
    EXPECT_EQ(r.variant, &variant());
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_FALSE(r.verification.empty());
    EXPECT_EQ(r.reps, reps);
    EXPECT_EQ(r.min_s, *std::min_element(r.times_s.begin(), r.times_s.end()));
    EXPECT_EQ(r.max_s, *std::max_element(r.times_s.begin(), r.times_s.end()));
    EXPECT_GE(r.min_s, 0);
    if (variant().backend == Backend::openacc && r.place == Place::host) {
      EXPECT_NE(r.note.find("host"), std::string::npos) << "note: " << r.note;
    }

    const auto size = vector::size_of(params);
    if (variant().family == "course") {
      ASSERT_TRUE(r.outputs.contains("mean")) << r.outputs.dump();
      EXPECT_EQ(r.outputs["mean"].get<double>(), vector::course_mean(size.n(), size.nt));
    } else if (variant().family == "dot") {
      ASSERT_TRUE(r.outputs.contains("dot")) << r.outputs.dump();
      EXPECT_EQ(r.outputs["dot"].get<double>(), vector::exact_dot(size.n()));
    }

    // Rates are the performance model over the median time.
    if (r.median_s > 0) {
      EXPECT_DOUBLE_EQ(r.gflops, variant().model.flops(params, r.outputs) / r.median_s / 1e9);
      EXPECT_DOUBLE_EQ(r.gbytes_per_s, variant().model.bytes(params, r.outputs) / r.median_s / 1e9);
      if (r.limit_gbytes_per_s && r.limit_fraction) {
        EXPECT_GT(*r.limit_gbytes_per_s, 0);
        EXPECT_DOUBLE_EQ(*r.limit_fraction, r.gbytes_per_s / *r.limit_gbytes_per_s);
      }
      if (r.place == Place::host) {
        // On the host the limit is the host's copy bandwidth, measured in this process.
        ASSERT_TRUE(r.limit_gbytes_per_s.has_value());
        EXPECT_DOUBLE_EQ(*r.limit_gbytes_per_s, machine_.host_copy_gbytes_per_s());
        // A fraction, or none where the rate passed the limit by more than 5 % (a small problem
        // held in cache), which the note then says: never a fraction above 1.05.
        if (r.limit_fraction) {
          EXPECT_LE(*r.limit_fraction, 1.05);
        } else {
          EXPECT_NE(r.note.find("%limit left out"), std::string::npos) << r.note;
        }
      }
    }
  }
};

// One test for all sizes: each test is its own process under ctest, and every process that
// times a variant measures the host's copy bandwidth once (about half a second).
TEST_P(VectorVariantTest, VerifiesOnSmallPresetAndOddSizes) {
  struct Case {
    std::vector<std::string> overrides;
    int reps;
  };
  const std::vector<Case> cases = {
      {{}, 2},                         // the small preset: 2048 x 2048, 10 steps
      {{"nx=37", "ny=5", "nt=3"}, 2},  // divides into no vector length or block size
      {{"nx=1", "ny=1", "nt=1"}, 1},   // a single element
      // nx != ny catches a row stride of ny instead of nx, which a square array hides; more
      // elements than dot_acc_partials has lanes, but not a multiple of them.
      {{"nx=1000", "ny=301", "nt=2"}, 1},
  };
  for (const auto& c : cases) {
    const Params params = vector_params("small", c.overrides);
    SCOPED_TRACE(params.json().dump());
    const Result r = run(params, c.reps);
    if (!expect_available()) {
      expect_unavailable(r);
      GTEST_SKIP() << variant().id() << " is unavailable here: " << r.note;
    }
    expect_verified(r, params, c.reps);
    if (c.overrides.empty()) {
      EXPECT_GT(r.median_s, 0);  // 4 Mi elements cannot take no time at all
      EXPECT_GT(r.gbytes_per_s, 0);
      EXPECT_GT(r.gflops, 0);
    }
  }
}

// Each course step run for nt - 1 steps fails the check for nt (and passes its own): the
// check is tight enough to see one step missing.
TEST_P(VectorVariantTest, CourseOneStepShortFails) {
  if (variant().family != "course") GTEST_SKIP() << "not a course step";
  if (!expect_available()) GTEST_SKIP() << variant().id() << " is unavailable here";
  const Params params = vector_params("small", {"nx=37", "ny=5", "nt=2"});
  const auto instance = variant().factory(params);
  auto* course = dynamic_cast<vector::CourseInstance*>(instance.get());
  ASSERT_NE(course, nullptr);
  test::run_once(*course);
  EXPECT_TRUE(course->verify_after(2).ok) << course->verify_after(2).detail;
  const Verification short_of_one = course->verify_after(3);
  EXPECT_FALSE(short_of_one.ok);
  EXPECT_GT(short_of_one.outputs["difference"].get<double>(), 0);
}

INSTANTIATE_TEST_SUITE_P(AllVectorVariants, VectorVariantTest,
                         ::testing::ValuesIn(vector_variant_names()), test::param_name);

TEST(VectorVariantsTest, CudaIsUnavailableWithoutACudaGpu) {
  Machine machine;
  if (machine.cuda_available()) GTEST_SKIP() << "this machine has a CUDA GPU";
  Runner runner(machine);
  int cuda_variants = 0;
  for (const auto& v : all().variants()) {
    if (v.workload != "vector" || v.backend != Backend::cuda) continue;
    ++cuda_variants;
    const Result r = runner.run(v, vector_workload(), vector_params("small", {}), RunOptions{});
    EXPECT_EQ(r.status, Status::unavailable) << v.id();
    EXPECT_NE(r.note.find("CUDA"), std::string::npos) << v.id() << ": " << r.note;
    EXPECT_TRUE(runner.unavailable_reason(v).has_value()) << v.id();
  }
#ifdef ACCLAB_HAVE_CUDA
  EXPECT_EQ(cuda_variants, 3);
#else
  EXPECT_EQ(cuda_variants, 0);
#endif
}

// ---- the workload's own checks ----------------------------------------------------------------

std::string validate_error(const std::vector<std::string>& overrides) {
  return test::validate_error("vector", overrides);
}

TEST(VectorWorkloadTest, ValidateAcceptsThePresets) {
  for (const char* preset : {"seed", "small", "large"}) {
    EXPECT_NO_THROW(
        vector_workload().validate(Params::resolve(vector_workload().params, preset, {})))
        << preset;
  }
}

TEST(VectorWorkloadTest, ValidateRejectsSizesItCannotVerifyOrIndex) {
  // 9*nt (the largest c) must stay an exact float integer: 9 * 1864135 = 2^24 - 8.
  EXPECT_NE(validate_error({"nt=1864136"}).find("nt=1864136"), std::string::npos);
  EXPECT_EQ(validate_error({"nt=1864135"}), "");
  // The sum of c must stay an exact double integer: 2^34 elements of at most 9*nt.
  EXPECT_EQ(validate_error({"nx=131072", "ny=131072", "nt=58254"}), "");
  const std::string sum_message = validate_error({"nx=131072", "ny=131072", "nt=58255"});
  EXPECT_NE(sum_message.find("nt=58255"), std::string::npos) << sum_message;
  EXPECT_NE(sum_message.find("2^53"), std::string::npos) << sum_message;
  // More elements than the workload indexes: named by both sizes.
  const std::string message = validate_error({"nx=2000000", "ny=2000000"});
  EXPECT_NE(message.find("nx=2000000"), std::string::npos) << message;
  EXPECT_NE(message.find("ny=2000000"), std::string::npos) << message;
}

// nx*ny and 9*nt must be checked without forming a product that overflows std::int64_t:
// a wrapped size would pass validation, then crash, fail or never finish.
TEST(VectorWorkloadTest, ValidateRejectsSizesWhoseProductOverflows) {
  EXPECT_NE(validate_error({"nx=4294967296", "ny=4294967296"}), "");  // wraps to 0
  EXPECT_NE(validate_error({"nx=8589934592", "ny=1073741825"}), "");  // wraps negative
  EXPECT_NE(validate_error({"nt=6148914691236517206"}), "");          // 3*nt wraps to 2
  EXPECT_NE(validate_error({"nt=2049638230412172402"}), "");          // 9*nt wraps to 2
}

TEST(VectorWorkloadTest, MemoryModelCountsThreeFloatArraysAndTheDotPartials) {
  const Params params = vector_params("small", {"nx=37", "ny=5"});
  const double partials = 8.0 * (132 * 8 * 256 + 1024);
  EXPECT_DOUBLE_EQ(vector_workload().host_bytes(params), 3.0 * 4 * 37 * 5 + partials);
  EXPECT_DOUBLE_EQ(vector_workload().device_bytes(params), 3.0 * 4 * 37 * 5 + partials);
}

TEST(VectorWorkloadTest, TooLargeForHostMemoryIsAUsageErrorBeforeAllocating) {
  // 2^34 elements: 192 GiB, the largest size validation allows.
  const Params params = vector_params("small", {"nx=131072", "ny=131072", "nt=1"});
  Machine machine;
  const double need = vector_workload().host_bytes(params);
  if (machine.host().available_bytes <= 0 || machine.host().available_bytes >= need) {
    GTEST_SKIP() << "this host has the memory for it";
  }
  Runner runner(machine);
  const Variant& original = vector_variant("original");
  try {
    runner.check_memory(original, vector_workload(), params);
    FAIL() << "no UsageError from check_memory";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("vector/original"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  // run() refuses too, rather than reporting a failed result after trying to allocate.
  EXPECT_THROW(runner.run(original, vector_workload(), params, RunOptions{}), UsageError);
}

// ---- the checks themselves --------------------------------------------------------------------

// c after nt course steps of a kernel that reads a and b at `a_at(i)` and `b_at(i)`.
template <class AAt, class BAt>
std::vector<float> course_c(std::int64_t n, std::int64_t nt, AAt a_at, BAt b_at) {
  std::vector<float> c(n, 0.0f);
  for (std::int64_t step = 0; step < nt; ++step) {
    for (std::int64_t i = 0; i < n; ++i)
      c[i] += vector::course_a(a_at(i)) + vector::course_b(b_at(i));
  }
  return c;
}

double mean_of(const std::vector<float>& c) {
  double sum = 0;
  for (float x : c) sum += x;
  return sum / double(c.size());
}

TEST(VectorCourseCheckTest, PassesTheRightResultBitwise) {
  const std::int64_t nx = 37, ny = 5, n = nx * ny, nt = 4;
  const auto same = [](std::int64_t i) { return i; };
  const auto c = course_c(n, nt, same, same);
  const Verification v = vector::verify_course(n, nt, c, true, mean_of(c));
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_EQ(v.outputs["tolerance"].get<double>(), 0);
  EXPECT_EQ(v.outputs["difference"].get<double>(), 0);
  // The closed-form mean is the mean of the elements, exactly.
  EXPECT_EQ(vector::course_mean(n, nt), mean_of(c));
}

TEST(VectorCourseCheckTest, KernelsReadingTheWrongElementFail) {
  const std::int64_t nx = 37, ny = 5, n = nx * ny, nt = 3;
  const auto same = [](std::int64_t i) { return i; };
  const auto next = [](std::int64_t i) { return i + 1; };
  const auto next_row = [](std::int64_t i) { return i + 37; };
  // A row stride of ny instead of nx: element (i, j) read at i + j*ny.
  const auto transposed = [](std::int64_t ix) { return ix % 37 + ix / 37 * 5; };
  for (const auto& c : {course_c(n, nt, next, same), course_c(n, nt, same, next),
                        course_c(n, nt, next_row, same), course_c(n, nt, same, transposed)}) {
    const Verification v = vector::verify_course(n, nt, c, true, mean_of(c));
    EXPECT_FALSE(v.ok) << v.detail;
    EXPECT_GT(v.outputs["difference"].get<double>(), 0);
  }
}

TEST(VectorCourseCheckTest, OneWrongElementOrMeanFails) {
  const std::int64_t n = 37 * 5, nt = 3;
  const auto same = [](std::int64_t i) { return i; };
  auto c = course_c(n, nt, same, same);
  const double mean = mean_of(c);
  c[100] += 1.0f;
  Verification v = vector::verify_course(n, nt, c, true, mean);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.outputs["difference"].get<double>(), 1.0);
  EXPECT_NE(v.detail.find("c[100]"), std::string::npos) << v.detail;
  // With c left on the device only the mean is checked: one step short fails.
  v = vector::verify_course(n, nt, {}, false, vector::course_mean(n, nt - 1));
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("mean"), std::string::npos) << v.detail;
  // NaN anywhere fails, with a NaN difference.
  c[100] -= 1.0f;
  c[7] = std::numeric_limits<float>::quiet_NaN();
  v = vector::verify_course(n, nt, c, true, mean);
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(std::isnan(v.outputs["difference"].get<double>()));
}

TEST(VectorCourseCheckTest, InputsDifferFromNeighboursAndNextRows) {
  // What the checks rely on: a kernel that reads a or b at a neighbour's, or at the next row's
  // of a power-of-two width (no multiple of 3 or 5), sees a different value in every element.
  for (std::int64_t i = 0; i < 64; ++i) {
    for (std::int64_t step : {1, 2, 1024, 2048, 4096, 16384}) {
      EXPECT_NE(vector::course_a(i), vector::course_a(i + step)) << i << " + " << step;
      EXPECT_NE(vector::course_b(i), vector::course_b(i + step)) << i << " + " << step;
    }
  }
}

// ---- kit/acc_data.hpp -----------------------------------------------------------------------

TEST(AccDataTest, EmptyArraysAreNeverMapped) {
  // Why the helpers exist: the runtime refuses a zero-length section, on the host as well
  // (and on a GPU the directive's form aborts with an assertion).
  static float x[4];
  EXPECT_DEATH(acc_copyin(x, 0), "bad range");
  // The helpers do nothing for count 0, null pointer or not.
  EXPECT_EXIT(
      {
        acc_enter_copyin(x, 0);
        acc_enter_create(static_cast<double*>(nullptr), 0);
        acc_update_to_device(x, 0);
        acc_update_host(x, 0);
        acc_exit_delete(x, 0);
        acc_exit_delete(static_cast<double*>(nullptr), 0);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(AccDataTest, EnteredArraysArePresentAndRoundTrip) {
  std::vector<float> v = {1, 2, 3};
  acc_enter_copyin(v.data(), 3);
  EXPECT_TRUE(acc_is_present(v.data(), sizeof(float) * 3));
  acc_update_to_device(v.data(), 3);
  acc_update_host(v.data(), 3);
  EXPECT_EQ(v, (std::vector<float>{1, 2, 3}));
  acc_exit_delete(v.data(), 3);
  std::vector<double> w(5);
  acc_enter_create(w.data(), 5);
  EXPECT_TRUE(acc_is_present(w.data(), sizeof(double) * 5));
  acc_exit_delete(w.data(), 5);
}

// ---- ladder speedups ----------------------------------------------------------------------------

TEST(LadderSpeedupTest, RealResultsOfTwoFamilies) {
  Machine machine;
  Runner runner(machine);
  const Params params = vector_params("small", {"nx=256", "ny=64", "nt=3"});
  RunOptions options;
  options.reps = 1;
  std::vector<std::string> names = {"original", "triad_openmp", "dot_openmp"};
#ifdef ACCLAB_HAVE_OPENACC
  names.insert(names.begin() + 1, "acc_loop");
#endif
  std::vector<Result> results;
  for (const auto& name : names) {
    results.push_back(runner.run(vector_variant(name), vector_workload(), params, options));
    ASSERT_EQ(results.back().status, Status::verified) << name << ": " << results.back().error;
    ASSERT_GT(results.back().median_s, 0) << name;
  }
  compute_ladder_speedups(results);
  for (const auto& r : results) {
    SCOPED_TRACE(r.variant->name);
    ASSERT_TRUE(r.speedup_vs_first.has_value());
    if (r.variant->step == 1) {
      // The first of its family: 1 by definition, and nothing before it.
      EXPECT_EQ(*r.speedup_vs_first, 1.0);
      EXPECT_FALSE(r.speedup_vs_previous.has_value());
    } else {
      EXPECT_DOUBLE_EQ(*r.speedup_vs_first, results[0].median_s / r.median_s);
      ASSERT_TRUE(r.speedup_vs_previous.has_value());
      EXPECT_DOUBLE_EQ(*r.speedup_vs_previous, results[0].median_s / r.median_s);
    }
  }
}

TEST(LadderSpeedupTest, SkipsResultsThatWereNotVerified) {
  Variant course[5], other;
  for (int i = 0; i < 5; ++i) {
    course[i].name = "step" + std::to_string(i + 1);
    course[i].family = "course";
    course[i].step = i + 1;
  }
  other.name = "other";
  other.family = "triad";
  other.step = 1;
  auto result = [](const Variant& v, Status status, double median) {
    Result r;
    r.variant = &v;
    r.status = status;
    r.median_s = median;
    return r;
  };
  std::vector<Result> results = {
      result(course[0], Status::failed, 8.0),       // not verified: not the first
      result(course[1], Status::verified, 4.0),     // the family's first
      result(other, Status::verified, 3.0),         // another family: its own first
      result(course[2], Status::unavailable, 0.0),  // skipped
      result(course[3], Status::verified, 2.0),    result(course[4], Status::verified, 1.0),
  };
  compute_ladder_speedups(results);
  EXPECT_FALSE(results[0].speedup_vs_first.has_value());
  EXPECT_EQ(results[1].speedup_vs_first, 1.0);
  EXPECT_FALSE(results[1].speedup_vs_previous.has_value());
  EXPECT_EQ(results[2].speedup_vs_first, 1.0);
  EXPECT_FALSE(results[2].speedup_vs_previous.has_value());
  EXPECT_FALSE(results[3].speedup_vs_first.has_value());
  EXPECT_FALSE(results[3].speedup_vs_previous.has_value());
  EXPECT_EQ(results[4].speedup_vs_first, 2.0);
  EXPECT_EQ(results[4].speedup_vs_previous, 2.0);
  EXPECT_EQ(results[5].speedup_vs_first, 4.0);
  EXPECT_EQ(results[5].speedup_vs_previous, 2.0);
}

// Each speedup carries the interval of its ratio of medians and whether it is within noise: a
// halving of the time is a speedup, 1 % is not, whatever its p; --noise moves the line.
TEST(LadderSpeedupTest, IntervalsAndWithinNoise) {
  Variant steps[3];
  for (int i = 0; i < 3; ++i) {
    steps[i].name = "step" + std::to_string(i + 1);
    steps[i].family = "course";
    steps[i].step = i + 1;
  }
  const std::vector<double> base = {1.000, 1.001, 0.999, 1.002, 0.998, 1.0005, 0.9995};
  auto result = [&](const Variant& v, double scale) {
    Result r;
    r.variant = &v;
    r.status = Status::verified;
    for (double t : base) r.times_s.push_back(scale * t);
    r.median_s = scale;
    return r;
  };
  // step2 half step1's time; step3 1 % slower than step2, every run of it (U: p < 0.05).
  std::vector<Result> results = {result(steps[0], 1.0), result(steps[1], 0.5),
                                 result(steps[2], 0.505)};
  compute_ladder_speedups(results);
  EXPECT_FALSE(results[0].speedup_vs_first_check.has_value());  // 1 by definition
  ASSERT_TRUE(results[1].speedup_vs_first_check.has_value());
  const auto& halved = *results[1].speedup_vs_first_check;
  EXPECT_FALSE(halved.within_noise);
  EXPECT_LE(halved.low, 2.0);
  EXPECT_GE(halved.high, 2.0);
  EXPECT_GT(halved.low, 1.9);
  EXPECT_LT(halved.high, 2.1);
  ASSERT_TRUE(results[2].speedup_vs_previous_check.has_value());
  EXPECT_TRUE(results[2].speedup_vs_previous_check->within_noise);
  EXPECT_LT(results[2].speedup_vs_previous_check->high, 1.0);  // significant, but 1 %
  EXPECT_FALSE(results[2].speedup_vs_first_check->within_noise);

  const nlohmann::json j = result_to_json(results[2]);
  ASSERT_TRUE(j["speedup_vs_previous_interval"].is_array());
  EXPECT_EQ(j["speedup_vs_previous_interval"].size(), 2u);
  EXPECT_EQ(j["speedup_vs_previous_within_noise"], true);
  EXPECT_EQ(j["speedup_vs_first_within_noise"], false);
  EXPECT_FALSE(result_to_json(results[0]).contains("speedup_vs_first_interval"));

  // A threshold below 1 %: the 1 % step is a slowdown; above 100 %: even the halving is noise.
  compute_ladder_speedups(results, 0.5);
  EXPECT_FALSE(results[2].speedup_vs_previous_check->within_noise);
  compute_ladder_speedups(results, 150);
  EXPECT_TRUE(results[1].speedup_vs_first_check->within_noise);

  // Below 5 runs on a side: the speedup, no check.
  for (auto& r : results) r.times_s.resize(4);
  compute_ladder_speedups(results);
  EXPECT_TRUE(results[1].speedup_vs_first.has_value());
  EXPECT_FALSE(results[1].speedup_vs_first_check.has_value());
}

}  // namespace
}  // namespace acclab
