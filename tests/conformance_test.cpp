// The contract every registered variant keeps, checked for each (workload, variant) pair the
// registry holds: a corrupted result fails; a verified result states its bound and the difference
// it found; transfer time appears only where data moves; the workload's host memory estimate
// covers what a run allocates; `unavailable` means a missing backend and nothing else; and
// reset() restores the inputs before every timed run.
//
// Each pair runs at its workload's small preset, shrunk where the preset is large, so that the
// whole suite takes seconds with OpenACC on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"
#include "support.hpp"

// ---- live host bytes allocated through operator new --------------------------------------------
//
// The test binary replaces every form of the global operator new and delete (scalar and array,
// default and over-aligned, throwing and nothrow, sized and unsized delete) so that a test can
// count the bytes allocated between start() and stop(), and their peak while live.
//
// Each block carries a header recording its size and the measurement it was counted in, so
// that freeing a block allocated before the measurement (or in an earlier one) is not
// subtracted from it. Allocations on every thread count (OpenMP workers included).
//
// What it does not see: memory taken with malloc, aligned_alloc or mmap directly (libgomp's
// thread pool, OpenBLAS's buffers, the C library), pinned or managed
// memory from the CUDA runtime, and device memory. It counts requested bytes, not what the
// allocator rounds them up to. The workloads keep their arrays in std::vector, which it sees.
// Memory a workload keeps for the whole process (a memo of its reference result) is counted by
// the first run that makes it: under ctest every test is a process of its own, so it counts
// there; in one process running the whole suite a later test may find it made already.
namespace allocation_count {

std::atomic<bool> counting{false};
std::atomic<std::uint64_t> generation{0};  // the current measurement; 0: never counted
std::atomic<std::int64_t> live{0};
std::atomic<std::int64_t> peak{0};
std::atomic<std::int64_t> largest{0};  // the largest single block, for the failure message

struct alignas(__STDCPP_DEFAULT_NEW_ALIGNMENT__) Header {
  std::size_t size;
  std::uint64_t generation;  // the measurement that counted the block, 0 if none
};
static_assert(sizeof(Header) == __STDCPP_DEFAULT_NEW_ALIGNMENT__);

// The distance from the start of the underlying block to the pointer handed out.
constexpr std::size_t offset_for(std::size_t alignment) {
  return alignment > sizeof(Header) ? alignment : sizeof(Header);
}

void* allocate(std::size_t size, std::size_t alignment) {
  const std::size_t offset = offset_for(alignment);
  void* base = nullptr;
  if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    base = std::malloc(size + offset);
  } else {
    // aligned_alloc wants a size that is a multiple of the alignment.
    const std::size_t total = (size + offset + alignment - 1) / alignment * alignment;
    base = std::aligned_alloc(alignment, total);
  }
  if (!base) return nullptr;
  auto* block = static_cast<char*>(base) + offset;
  auto* header = reinterpret_cast<Header*>(block) - 1;
  header->size = size;
  header->generation = 0;
  if (counting.load(std::memory_order_relaxed)) {
    header->generation = generation.load(std::memory_order_relaxed);
    const std::int64_t now = live.fetch_add(std::int64_t(size)) + std::int64_t(size);
    std::int64_t seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::int64_t biggest = largest.load();
    while (std::int64_t(size) > biggest &&
           !largest.compare_exchange_weak(biggest, std::int64_t(size))) {
    }
  }
  return block;
}

void release(void* block, std::size_t alignment) {
  if (!block) return;
  const auto* header = static_cast<const Header*>(block) - 1;
  if (header->generation != 0 && header->generation == generation.load()) {
    live.fetch_sub(std::int64_t(header->size));
  }
  std::free(static_cast<char*>(block) - offset_for(alignment));
}

void* allocate_or_throw(std::size_t size, std::size_t alignment) {
  void* block = allocate(size, alignment);
  if (!block) throw std::bad_alloc();
  return block;
}

// Starts a measurement: live and peak from zero.
void start() {
  counting = false;
  generation.fetch_add(1);
  live = 0;
  peak = 0;
  largest = 0;
  counting = true;
}

// Ends it and returns the peak of live bytes allocated since start().
std::int64_t stop() {
  counting = false;
  return peak.load();
}

}  // namespace allocation_count

namespace count = allocation_count;
constexpr std::size_t plain = __STDCPP_DEFAULT_NEW_ALIGNMENT__;

void* operator new(std::size_t size) { return count::allocate_or_throw(size, plain); }
void* operator new[](std::size_t size) { return count::allocate_or_throw(size, plain); }
void* operator new(std::size_t size, std::align_val_t al) {
  return count::allocate_or_throw(size, std::size_t(al));
}
void* operator new[](std::size_t size, std::align_val_t al) {
  return count::allocate_or_throw(size, std::size_t(al));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return count::allocate(size, plain);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return count::allocate(size, plain);
}
void* operator new(std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return count::allocate(size, std::size_t(al));
}
void* operator new[](std::size_t size, std::align_val_t al, const std::nothrow_t&) noexcept {
  return count::allocate(size, std::size_t(al));
}
void operator delete(void* p) noexcept { count::release(p, plain); }
void operator delete[](void* p) noexcept { count::release(p, plain); }
void operator delete(void* p, std::size_t) noexcept { count::release(p, plain); }
void operator delete[](void* p, std::size_t) noexcept { count::release(p, plain); }
void operator delete(void* p, const std::nothrow_t&) noexcept { count::release(p, plain); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { count::release(p, plain); }
void operator delete(void* p, std::align_val_t al) noexcept { count::release(p, std::size_t(al)); }
void operator delete[](void* p, std::align_val_t al) noexcept {
  count::release(p, std::size_t(al));
}
void operator delete(void* p, std::size_t, std::align_val_t al) noexcept {
  count::release(p, std::size_t(al));
}
void operator delete[](void* p, std::size_t, std::align_val_t al) noexcept {
  count::release(p, std::size_t(al));
}
void operator delete(void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  count::release(p, std::size_t(al));
}
void operator delete[](void* p, std::align_val_t al, const std::nothrow_t&) noexcept {
  count::release(p, std::size_t(al));
}

namespace acclab {
namespace {

using test::all;

// The harness's own allocations during Runner::run, on top of the instance's: the Result, its
// strings and the outputs' JSON. Allowed beside the estimate, which is about the instance;
// HarnessAllocatesLittleOfItsOwn holds the runner to it.
constexpr std::int64_t harness_slack_bytes = 16 << 10;

// Parameters per workload: the small preset, shrunk where it is large, and grown where its
// arrays would be no bigger than the harness's own allocations (the memory check would then
// test the slack rather than the estimate).
std::vector<std::string> conformance_overrides(const std::string& workload) {
  static const std::map<std::string, std::vector<std::string>> overrides = {
      // 2048 x 2048 in the preset; nx != ny catches a row stride of ny.
      {"vector", {"nx=256", "ny=96", "nt=3"}},
      // 65 x 47 x 33 in the preset: 54 KiB of matrices.
      {"matmul", {"m=96", "n=80", "k=72"}},
      {"jacobi2d", {"iters=20"}},
      {"diffusion3d", {"steps=6"}},
      {"apsp", {"n=160", "edges_per_vertex=8"}},
      {"iccg", {}},
  };
  auto found = overrides.find(workload);
  return found == overrides.end() ? std::vector<std::string>{} : found->second;
}

std::vector<std::string> every_variant_id() {
  std::vector<std::string> ids;
  for (const auto& v : all().variants()) ids.push_back(v.id());
  return ids;
}

// "vector/triad_acc" -> "vector_triad_acc"
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

const Variant& variant_by_id(const std::string& id) {
  for (const auto& v : all().variants()) {
    if (v.id() == id) return v;
  }
  throw std::logic_error("no variant " + id);
}

Machine& shared_machine() {
  static Machine machine;
  return machine;
}

bool host_only(Backend backend) { return backend == Backend::serial || backend == Backend::openmp; }

class ConformanceTest : public ::testing::TestWithParam<std::string> {
 protected:
  ConformanceTest() : registered_(variant_by_id(GetParam())), variant_(registered_) {
    // None of these checks is about rates: with no limit to compare with, the runner does not
    // measure the host's copy bandwidth (seconds, in every test process).
    variant_.model.resource = Resource::none;
  }

  const Variant& variant() const { return variant_; }
  const Workload& workload() const { return all().workload(variant_.workload); }
  Params params() const {
    return test::params_of(variant_.workload, conformance_overrides(variant_.workload));
  }
  bool available() const { return test::available_here(registered_); }

  Result run(const Params& params, int reps, bool corrupt = false, bool profile = false) {
    RunOptions options;
    options.reps = reps;
    options.corrupt_result = corrupt;
    options.profile = profile;
    return runner_.run(variant_, workload(), params, options);
  }

  // Checks an unavailable result where one is due; true when the rest of the test is moot.
  bool skipped_as_unavailable(const Result& r) {
    if (available()) return false;
    EXPECT_EQ(r.status, Status::unavailable) << to_string(r.status) << ": " << r.error;
    return true;
  }

  const Variant& registered_;
  Variant variant_;
  Runner runner_{shared_machine()};
};

std::string describe(const Result& r) {
  return std::string(to_string(r.status)) + (r.error.empty() ? "" : ": " + r.error) +
         (r.note.empty() ? "" : " (note: " + r.note + ")") + "\noutputs: " + r.outputs.dump();
}

// ---- a corrupted result fails ------------------------------------------------------------------

TEST_P(ConformanceTest, CorruptedResultFails) {
  const Result r = run(params(), 1, /*corrupt=*/true);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
  EXPECT_EQ(r.status, Status::failed) << describe(r);
  EXPECT_FALSE(r.error.empty()) << "a failed result says what was wrong";
  EXPECT_EQ(r.times_s.size(), 1u) << "timed: the failure is in the answer, not in the run";
  // The convention's other half: the difference found exceeds the bound (or is NaN).
  ASSERT_TRUE(r.outputs.contains("tolerance") && r.outputs["tolerance"].is_number() &&
              r.outputs.contains("difference") && r.outputs["difference"].is_number())
      << "no numeric outputs.tolerance and outputs.difference in the failed result: "
      << r.outputs.dump();
  const double tolerance = r.outputs["tolerance"].get<double>();
  const double difference = r.outputs["difference"].get<double>();
  EXPECT_FALSE(difference <= tolerance)
      << "the corruption does not show: difference " << difference << " <= tolerance " << tolerance;
}

// ---- a verified result states its bound --------------------------------------------------------

TEST_P(ConformanceTest, VerifiedResultReportsToleranceAndDifference) {
  const Result r = run(params(), 1);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
  ASSERT_EQ(r.status, Status::verified) << describe(r);
  ASSERT_TRUE(r.outputs.contains("tolerance") && r.outputs["tolerance"].is_number())
      << "no numeric outputs.tolerance: " << r.outputs.dump();
  ASSERT_TRUE(r.outputs.contains("difference") && r.outputs["difference"].is_number())
      << "no numeric outputs.difference: " << r.outputs.dump();
  const double tolerance = r.outputs["tolerance"].get<double>();
  const double difference = r.outputs["difference"].get<double>();
  EXPECT_TRUE(std::isfinite(tolerance)) << tolerance;
  EXPECT_GE(tolerance, 0.0);
  EXPECT_GE(difference, 0.0);
  EXPECT_LE(difference, tolerance) << "verified, yet the difference exceeds the bound";
}

// ---- transfer time only where data moves -------------------------------------------------------

// Events of `counter` in the region `path` and the regions nested in it.
std::int64_t events_under(const profile::Profile& p, const std::string& path,
                          profile::Counter counter) {
  std::int64_t sum = 0;
  for (const auto& region : p.regions) {
    if (region.path == path || region.path.rfind(path + "/", 0) == 0) sum += region[counter].count;
  }
  return sum;
}

std::int64_t data_events_under(const profile::Profile& p, const std::string& path) {
  using profile::Counter;
  std::int64_t sum = 0;
  for (Counter c :
       {Counter::enter_data, Counter::exit_data, Counter::update, Counter::upload,
        Counter::download, Counter::cuda_host_to_device, Counter::cuda_device_to_host}) {
    sum += events_under(p, path, c);
  }
  return sum;
}

std::int64_t launches_under(const profile::Profile& p, const std::string& path) {
  std::int64_t sum = events_under(p, path, profile::Counter::compute_construct);
  for (const auto& region : p.regions) {
    if (region.path != path && region.path.rfind(path + "/", 0) != 0) continue;
    for (const auto& launch : region.acc_launches) sum += launch.second.count;
    for (const auto& kernel : region.cuda_kernels) sum += kernel.second.count;
  }
  return sum;
}

TEST_P(ConformanceTest, TransferTimeOnlyWhereDataMoves) {
  const Result r = run(params(), 3);
  if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
  ASSERT_EQ(r.status, Status::verified) << describe(r);
  if (host_only(variant().backend)) {
    EXPECT_FALSE(r.transfer_s.has_value())
        << "a " << to_string(variant().backend) << " variant reports a transfer time";
  }
  if (r.transfer_s) {
    EXPECT_TRUE(variant().backend == Backend::openacc || variant().backend == Backend::omptarget ||
                variant().backend == Backend::cuda);
    EXPECT_GT(*r.transfer_s, 0.0);
    // A run performs these transfers and computes as well.
    EXPECT_LE(*r.transfer_s, r.median_s) << "transfers alone take longer than a whole run";
  }

  // What transfers_only() does, from the profile: data constructs or copies, never a kernel.
  const Result p = run(params(), 1, /*corrupt=*/false, /*profile=*/true);
  ASSERT_EQ(p.status, Status::verified) << describe(p);
  ASSERT_TRUE(p.profile.has_value());
  EXPECT_EQ(p.transfer_s.has_value(), r.transfer_s.has_value());
  // OpenMP target regions raise no OpenACC events, and GCC 12's libgomp has no OMPT to raise
  // their own.
  if (p.transfer_s && p.profile->openacc_callbacks && variant().backend != Backend::omptarget) {
    const std::string alone = variant().id() + "/transfers alone";
    const std::string timed = variant().id() + "/timed runs";
    EXPECT_GT(data_events_under(*p.profile, alone), 0)
        << "transfers_only() reports data movement without a data construct or copy";
    EXPECT_EQ(launches_under(*p.profile, alone), 0) << "transfers_only() computes";
    EXPECT_GT(data_events_under(*p.profile, timed), 0)
        << "a run with transfers to report has no data construct or copy";
  }
}

// ---- the host memory estimate covers the run ---------------------------------------------------

TEST_P(ConformanceTest, HostMemoryEstimateCoversThePeakAllocated) {
  ASSERT_TRUE(workload().host_bytes) << variant().workload << " has no host memory estimate";
  const Params p = params();
  const double estimate = workload().host_bytes(p);
  // Probes of the machine that Runner::run may make the first time (its memory, its GPUs) are
  // the machine's, not the run's: made before measuring.
  shared_machine().host();
  shared_machine().gpus();
  shared_machine().cuda_available();
  shared_machine().openacc_runs_on_gpu();
  test::available_here(registered_);
  count::start();
  const Result r = run(p, 2);
  const std::int64_t peak = count::stop();
  if (skipped_as_unavailable(r)) GTEST_SKIP() << variant().id() << ": " << r.note;
  ASSERT_EQ(r.status, Status::verified) << describe(r);
  RecordProperty("peak_bytes", std::to_string(peak));
  RecordProperty("host_bytes", std::to_string(std::int64_t(estimate)));
  EXPECT_GT(peak, 0) << "nothing counted: is operator new replaced?";
  EXPECT_GT(estimate, 4.0 * harness_slack_bytes)
      << "parameters too small for the estimate to mean more than the harness's slack";
  EXPECT_LE(double(peak), estimate + harness_slack_bytes)
      << variant().id() << " with " << p.json().dump() << ": " << peak
      << " bytes allocated at the peak of Runner::run, host_bytes estimates " << estimate
      << " (ratio " << double(peak) / estimate << "; largest block " << count::largest.load()
      << " bytes)";
}

// ---- unavailable only where the backend is missing ---------------------------------------------

TEST_P(ConformanceTest, UnavailableOnlyWhereTheBackendIsMissing) {
  const Result r = run(params(), 1);
  if (!available()) {
    // No GPU here: the CUDA variants; on a GPU: the steps marked unsafe there.
    EXPECT_EQ(r.status, Status::unavailable) << describe(r);
    EXPECT_FALSE(r.note.empty()) << "an unavailable result says why";
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.times_s.empty());
    if (variant().backend == Backend::cuda) {
      EXPECT_NE(r.note.find("CUDA"), std::string::npos) << r.note;
    }
    return;
  }
  EXPECT_NE(r.status, Status::unavailable)
      << "unavailable although its backend is here: " << r.note;
  EXPECT_EQ(r.status, Status::verified) << describe(r);
  EXPECT_EQ(r.place, test::place_here(registered_));
}

// ---- reset() before every timed run ------------------------------------------------------------

TEST_P(ConformanceTest, RepeatedRunsGiveTheSameVerifiedOutputs) {
  // A run that consumed its inputs without reset() restoring them would drift: three timed runs
  // (after a warm-up and transfer measurements) end somewhere else than one.
  const Result once = run(params(), 1);
  if (skipped_as_unavailable(once)) GTEST_SKIP() << variant().id() << ": " << once.note;
  const Result thrice = run(params(), 3);
  ASSERT_EQ(once.status, Status::verified) << describe(once);
  ASSERT_EQ(thrice.status, Status::verified) << describe(thrice);
  EXPECT_EQ(thrice.times_s.size(), 3u);
  if (once.place == Place::host) {
    EXPECT_EQ(once.outputs, thrice.outputs)
        << "reps=1: " << once.outputs.dump() << "\nreps=3: " << thrice.outputs.dump();
  } else {
    // On a GPU, reductions (atomics, gangs' partial sums) add in an order that varies from run
    // to run: the last bits of a residual, an iteration count off by one. Both runs verified
    // against their bound above; here they must at least report the same quantities.
    for (const auto& [key, value] : once.outputs.items()) {
      EXPECT_TRUE(thrice.outputs.contains(key)) << key;
    }
    EXPECT_EQ(once.outputs.size(), thrice.outputs.size());
  }
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, ConformanceTest, ::testing::ValuesIn(every_variant_id()),
                         test_name);

// ---- the runner's side of the contract, with an instance that records the calls -----------------

struct Script {
  bool moves_data = true;
  bool throw_in_run = false;
  bool usage_error_in_setup = false;
  std::size_t allocate_bytes = 0;  // setup() allocates this much
  std::vector<std::string> calls;  // every call but reset()
  std::vector<std::string> calls_and_resets;
};

class RecordingInstance : public Instance {
 public:
  explicit RecordingInstance(Script& script) : script_(script) {}
  void setup() override {
    record("setup");
    if (script_.usage_error_in_setup) throw UsageError("input.mtx line 3: not a number");
    data_.resize(script_.allocate_bytes);
  }
  void reset() override { script_.calls_and_resets.push_back("reset"); }
  void run() override {
    record("run");
    if (script_.throw_in_run) throw std::runtime_error("device lost");
    result_ = 42;
  }
  bool transfers_only() override {
    record("transfers");
    return script_.moves_data;
  }
  void finish() override { record("finish"); }
  Verification verify() override {
    record("verify");
    Verification v;
    v.ok = result_ == 42;
    v.detail = v.ok ? "result is 42" : "result is not 42";
    v.outputs["result"] = result_;
    return v;
  }
  void corrupt_result() override {
    record("corrupt");
    result_ = 41;
  }

 private:
  void record(const char* call) {
    script_.calls.push_back(call);
    script_.calls_and_resets.push_back(call);
  }

  Script& script_;
  int result_ = 0;
  std::vector<char> data_;
};

class RunnerContractTest : public ::testing::Test {
 protected:
  RunnerContractTest() {
    workload_.name = "test";
    variant_.workload = "test";
    variant_.name = "recording";
    variant_.family = "test";
    variant_.step = 1;
    variant_.factory = [this](const Params&) {
      return std::make_unique<RecordingInstance>(script_);
    };
    // 2 GFLOP and 4 GB a run, with no machine limit to compare with.
    variant_.model = {[](const Params&, const nlohmann::json&) { return 2e9; },
                      [](const Params&, const nlohmann::json&) { return 4e9; }, Resource::none};
  }
  // `report_progress` off: nothing of the test's own allocates during the run.
  Result run(int reps, bool corrupt = false, bool report_progress = true) {
    RunOptions options;
    options.reps = reps;
    options.corrupt_result = corrupt;
    std::vector<std::string> progress;
    if (report_progress) {
      options.progress = [&](const std::string& what) { progress.push_back(what); };
    }
    Result r = runner_.run(variant_, workload_, Params(), options);
    if (report_progress && r.status != Status::unavailable) {
      EXPECT_FALSE(progress.empty()) << "progress is reported during a run";
      for (const auto& line : progress) {
        EXPECT_EQ(line.rfind("test/recording: ", 0), 0u) << line;
      }
    }
    return r;
  }
  std::vector<std::string> expected_calls(int transfers, int reps, bool corrupt = false) {
    std::vector<std::string> calls = {"setup", "run"};
    calls.insert(calls.end(), transfers, "transfers");
    calls.insert(calls.end(), reps, "run");
    calls.push_back("finish");
    if (corrupt) calls.push_back("corrupt");
    calls.push_back("verify");
    return calls;
  }

  Script script_;
  Workload workload_;
  Variant variant_;
  Machine machine_;
  Runner runner_{machine_};
};

TEST_F(RunnerContractTest, SetupWarmUpTransfersTimedRunsFinishVerify) {
  const Result r = run(5);
  // Transfers are measured at most 3 times; the warm-up run is not timed.
  EXPECT_EQ(script_.calls, expected_calls(3, 5));
  EXPECT_EQ(r.status, Status::verified);
  EXPECT_EQ(r.verification, "result is 42");
  EXPECT_EQ(r.outputs["result"], 42);
  EXPECT_EQ(r.times_s.size(), 5u);
  EXPECT_TRUE(r.transfer_s.has_value());
  EXPECT_EQ(r.place, Place::host);
}

TEST_F(RunnerContractTest, FewerRepsFewerTransferMeasurements) {
  run(2);
  EXPECT_EQ(script_.calls, expected_calls(2, 2));
}

// A warm-up longer than long_run_s is followed by one timed run (and one transfer measurement),
// and the result says so; a step quicker than it gets every rep asked for.
TEST_F(RunnerContractTest, ALongWarmUpIsFollowedByOneTimedRun) {
  RunOptions options;
  options.reps = 5;
  options.long_run_s = 1e-12;  // every run is longer than this
  const Result r = runner_.run(variant_, workload_, Params(), options);
  EXPECT_EQ(script_.calls, expected_calls(1, 1));
  EXPECT_EQ(r.status, Status::verified);
  EXPECT_EQ(r.reps, 1);
  EXPECT_EQ(r.times_s.size(), 1u);
  EXPECT_EQ(r.note.rfind("timed once: the warm-up run took ", 0), 0u) << r.note;
  script_.calls.clear();
  options.long_run_s = 60;
  const Result quick = runner_.run(variant_, workload_, Params(), options);
  EXPECT_EQ(script_.calls, expected_calls(3, 5));
  EXPECT_EQ(quick.reps, 5);
  EXPECT_EQ(quick.note.find("timed once"), std::string::npos);
}

TEST_F(RunnerContractTest, NoDataMovedNoTransferTime) {
  script_.moves_data = false;
  const Result r = run(4);
  EXPECT_EQ(script_.calls, expected_calls(1, 4));  // asked once, then never again
  EXPECT_FALSE(r.transfer_s.has_value());
  EXPECT_FALSE(r.transfer_share().has_value());
}

TEST_F(RunnerContractTest, StatisticsAndRatesComeFromTheTimedRuns) {
  const Result r = run(4);
  ASSERT_EQ(r.times_s.size(), 4u);
  auto sorted = r.times_s;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(r.min_s, sorted.front());
  EXPECT_EQ(r.max_s, sorted.back());
  EXPECT_DOUBLE_EQ(r.median_s, 0.5 * (sorted[1] + sorted[2]));
  ASSERT_GT(r.median_s, 0);
  EXPECT_DOUBLE_EQ(r.gflops, 2.0 / r.median_s);
  EXPECT_DOUBLE_EQ(r.gbytes_per_s, 4.0 / r.median_s);
  // Resource::none: nothing to compare with.
  EXPECT_FALSE(r.limit_gbytes_per_s.has_value());
  EXPECT_FALSE(r.limit_fraction.has_value());
}

TEST_F(RunnerContractTest, CorruptionHappensAfterFinishAndBeforeVerify) {
  const Result r = run(1, /*corrupt=*/true);
  EXPECT_EQ(script_.calls, expected_calls(1, 1, /*corrupt=*/true));
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.error, "result is not 42");
}

TEST_F(RunnerContractTest, AnExceptionFromTheVariantIsAFailedResult) {
  script_.throw_in_run = true;
  const Result r = run(3);
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_EQ(r.error, "device lost");
  EXPECT_TRUE(r.times_s.empty());
  EXPECT_EQ(script_.calls, (std::vector<std::string>{"setup", "run"}));
}

TEST_F(RunnerContractTest, AUsageErrorFromTheVariantReachesTheUser) {
  script_.usage_error_in_setup = true;
  EXPECT_THROW(run(1), UsageError);
}

TEST_F(RunnerContractTest, UnavailableVariantIsNeverBuilt) {
  variant_.backend = Backend::cuda;
  if (machine_.cuda_available()) GTEST_SKIP() << "this machine has a CUDA GPU";
  const Result r = run(1);
  EXPECT_EQ(r.status, Status::unavailable);
  EXPECT_TRUE(script_.calls.empty());
}

TEST(StatusTest, Names) {
  EXPECT_STREQ(to_string(Status::verified), "verified");
  EXPECT_STREQ(to_string(Status::failed), "failed");
  EXPECT_STREQ(to_string(Status::unavailable), "unavailable");
}

TEST_F(RunnerContractTest, ResetPrecedesEveryRunAndEveryTransferMeasurement) {
  for (bool moves : {true, false}) {
    for (int reps : {1, 2, 5}) {
      SCOPED_TRACE(std::string(moves ? "moves data" : "moves nothing") + ", reps " +
                   std::to_string(reps));
      script_ = Script{.moves_data = moves};
      const Result r = run(reps);
      ASSERT_EQ(r.status, Status::verified) << r.error;
      const auto& calls = script_.calls_and_resets;
      int runs = 0, transfers = 0, resets = 0;
      for (std::size_t i = 0; i < calls.size(); ++i) {
        const std::string& call = calls[i];
        if (call == "reset") ++resets;
        if (call != "run" && call != "transfers") continue;
        (call == "run" ? runs : transfers) += 1;
        ASSERT_GT(i, 0u);
        EXPECT_EQ(calls[i - 1], "reset") << call << " at call " << i << " without a reset";
      }
      EXPECT_EQ(runs, reps + 1) << "the warm-up and the timed runs";
      EXPECT_EQ(transfers, moves ? std::min(reps, 3) : 1);
      EXPECT_EQ(resets, runs + transfers) << "a reset for each, and no other";
      EXPECT_EQ(calls.front(), "setup");
      EXPECT_EQ(calls.back(), "verify");
    }
  }
}

// ---- the allocation count itself ---------------------------------------------------------------

TEST(AllocationCountTest, CountsEveryFormOfNewAndItsPeak) {
  struct alignas(64) Wide {
    char bytes[64];
  };
  constexpr std::int64_t small_ones = 8 + 800 + 64 + 3 * 64 + 10;
  auto* before = new std::vector<char>(1000);  // allocated before the measurement
  // Read during the measurement, checked after it (a failing check allocates its message).
  std::int64_t all_live = -1, none_live = -1, after_old_freed = -1, grown_live = -1;
  bool aligned_ok = false;
  count::start();
  {
    auto* scalar = new std::int64_t(1);
    auto* array = new double[100];
    auto* aligned = new Wide;
    auto* aligned_array = new Wide[3];
    auto* nothrow = new (std::nothrow) char[10];
    aligned_ok = reinterpret_cast<std::uintptr_t>(aligned) % 64 == 0 &&
                 reinterpret_cast<std::uintptr_t>(aligned_array) % 64 == 0;
    all_live = count::live.load();
    delete scalar;
    delete[] array;
    delete aligned;
    delete[] aligned_array;
    delete[] nothrow;
    none_live = count::live.load();
    delete before;  // a block from before the measurement takes nothing off it
    after_old_freed = count::live.load();
    std::vector<char> grown(4096);
    grown_live = count::live.load();
  }
  const std::int64_t peak = count::stop();
  EXPECT_TRUE(aligned_ok);
  EXPECT_EQ(all_live, small_ones);
  EXPECT_EQ(none_live, 0);
  EXPECT_EQ(after_old_freed, 0);
  EXPECT_EQ(grown_live, 4096);
  EXPECT_EQ(peak, std::max<std::int64_t>(small_ones, 4096));
  // Outside a measurement nothing is counted.
  auto* after = new double[1000];
  EXPECT_EQ(count::live.load(), 0);
  delete[] after;
}

TEST_F(RunnerContractTest, HarnessAllocatesLittleOfItsOwn) {
  // The runner's allocations around an instance that allocates only what it is told to: the
  // slack allowed beside every workload's estimate.
  for (std::size_t instance_bytes : {std::size_t(0), std::size_t(1) << 20}) {
    script_ = Script{.allocate_bytes = instance_bytes};
    count::start();
    const Result r = run(5, /*corrupt=*/false, /*report_progress=*/false);
    const std::int64_t peak = count::stop();
    ASSERT_EQ(r.status, Status::verified);
    EXPECT_GE(peak, std::int64_t(instance_bytes));
    EXPECT_LE(peak, std::int64_t(instance_bytes) + harness_slack_bytes / 2)
        << "the runner's own allocations outgrow half the slack allowed for them";
    RecordProperty("harness_peak_bytes_" + std::to_string(instance_bytes), std::to_string(peak));
  }
}

}  // namespace
}  // namespace acclab
