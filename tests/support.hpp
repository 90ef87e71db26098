// Helpers shared by the test files: the registry and its workloads, variants and parameters; a
// fixture for tests run once per registered variant of a workload; and the real acclab binary
// run as users and scripts run it (stdout, stderr, exit status, peak memory, wall time).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "core/params.hpp"
#include "core/registry.hpp"
#include "core/runner.hpp"

namespace acclab::test {

// ---- the registry ------------------------------------------------------------------------------

// Every workload and variant, registered once per process.
const Registry& all();

// The variant `workload`/`name`; throws std::logic_error if there is none.
const Variant& variant_of(const std::string& workload, const std::string& name);

// The names of the workload's variants, in registration order.
std::vector<std::string> variant_names(const std::string& workload);

// The workload's `preset` with `overrides` (each "key=value"), validated by the workload.
Params params_of(const std::string& workload, const std::vector<std::string>& overrides,
                 const std::string& preset = "small");

// The message of the UsageError `call` throws, or "" when it throws none.
template <typename Call>
std::string usage_error_message(Call&& call) {
  try {
    std::forward<Call>(call)();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// The message of the UsageError that params_of throws for these parameters, or "" if none.
std::string validate_error(const std::string& workload, const std::vector<std::string>& overrides,
                           const std::string& preset = "small");

// The message of the UsageError that params_of, then `variant`'s check_tunings and
// check_params, throw for these parameters, or "" if none.
std::string check_error(const std::string& workload, const std::string& variant,
                        const std::vector<std::string>& overrides,
                        const std::string& preset = "small");

// The parameter itself as the test's name: the variant's name.
std::string param_name(const ::testing::TestParamInfo<std::string>& info);

// ---- every registered variant of one workload --------------------------------------------------

// Parameterized by the variant's name; derived fixtures name their workload.
class VariantTest : public ::testing::TestWithParam<std::string> {
 protected:
  explicit VariantTest(std::string workload) : workload_name_(std::move(workload)) {}

  const Workload& workload() const { return all().workload(workload_name_); }
  const Variant& variant() const { return variant_of(workload_name_, GetParam()); }

  // Whether the variant can run here, from the machine's facts rather than from the runner's
  // own answer: CUDA needs a CUDA GPU; a step marked unsafe on GPUs is unavailable only where
  // OpenACC offloads to one.
  bool expect_available();

  // Where the variant's result is computed on this machine.
  Place expected_place();

  Result run(const Params& params, int reps = 1, bool corrupt = false);

  // Skips the rest of the test (after checking the unavailable result) where the variant
  // cannot run. Returns true when skipped.
  bool skipped_as_unavailable(const Result& r);

  // What every timed run of a variant is checked for first: verified, on `params`, where
  // expected, timed `reps` times with min <= median <= max, and no transfer time where the
  // backend is host-only (serial, OpenMP: they move no data between memories). A fatal failure
  // ends only this helper: call it under ASSERT_NO_FATAL_FAILURE.
  void expect_verified_and_timed(const Result& r, const Params& params, int reps);

  // One machine for the whole process: its probes are measured once, not once per test.
  static Machine& shared_machine();

  Machine& machine_ = shared_machine();
  Runner runner_{machine_};

 private:
  std::string workload_name_;
};

// ---- the machine -------------------------------------------------------------------------------

bool cuda_gpu_here();
bool openacc_gpu_here();
// Whether OpenMP target regions run on a GPU here (Machine::omptarget_runs_on_gpu).
bool omptarget_gpu_here();

// Whether `variant` can run here, from the machine's facts rather than from the runner's own
// answer: CUDA needs a CUDA GPU; a step marked unsafe on GPUs is unavailable only where OpenACC
// offloads to one. Everything else is available in every build that registers it.
bool available_here(const Variant& variant);

// Where `variant`'s result is computed on this machine.
Place place_here(const Variant& variant);

// One timed run of `workload`/`name` on `params` through the harness (a Runner on a Machine of
// its own), profiled where asked.
Result run_variant(const std::string& workload, const std::string& name, const Params& params,
                   bool profile = false);

// Every shape ACCLAB_OMP_TUNED writes: construct, simd, and num_teams/thread_limit given or not.
std::vector<std::vector<std::string>> omp_tuned_shapes();

// One run of `instance` outside the harness, as the runner's phases go (setup, reset, run,
// finish), for a test that then reads or replaces its result before verify().
inline void run_once(Instance& instance) {
  instance.setup();
  instance.reset();
  instance.run();
  instance.finish();
}

// The ladder of `workload` as registered: not empty, `first` first, every step in `family`, the
// step numbers rising. The rest of a ladder (its names and order) is checked against ladder.json
// in tests/registry_test.cpp.
void expect_ladder_in_order(const std::string& workload, const std::string& first,
                            const std::string& family);

// ---- files -------------------------------------------------------------------------------------

std::string read_file(const std::filesystem::path& path);

// `name` under tests/data.
std::string data_file(const std::string& name);

// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The names of the directory's entries, sorted.
  std::vector<std::string> entries() const;

 private:
  std::filesystem::path path_;
};

// ---- the real binary ---------------------------------------------------------------------------

struct Outcome {
  int status = -1;      // exit status; -1 when killed by a signal
  int term_signal = 0;  // the signal that killed it, if one did
  std::string out, err;
  long max_rss_kib = 0;  // the child's peak resident memory
  double wall_s = 0;     // for messages: speed is measured in bench/, never asserted in a test
  bool timed_out = false;
};

// The most a refused command may hold at its peak (max_rss_kib). The process alone is about 15
// MiB, more under AddressSanitizer or with a GPU runtime loaded; this leaves many times that,
// yet is half the host bandwidth probe's 512 MiB of buffers and far below any grid, matrix or
// endless input (/dev/zero) that a refusal must neither allocate nor read whole.
inline constexpr long kRefusalPeakKib = 256 * 1024;

std::ostream& operator<<(std::ostream& os, const Outcome& o);

// Runs ACCLAB_BINARY with `args` (no shell: arguments reach it exactly as written), stdin from
// /dev/null and stdout/stderr captured in files. wait4 rather than system() so that the peak
// memory is this child's alone; a child still running after `deadline` is killed, so that a
// command that should fail at once cannot hang the suite.
Outcome run_acclab(const std::vector<std::string>& args,
                   std::chrono::seconds deadline = std::chrono::seconds(120));

// `text` as JSON; a test failure (and an empty object) if it is not.
nlohmann::json parse_json(const std::string& text);

// The shape of every usage error: status 2, nothing on stdout, exactly one line on stderr that
// names each of `names`.
::testing::AssertionResult is_usage_error(const Outcome& o, const std::vector<std::string>& names);

// The report of `acclab ladder <workload> --variant first,second --format json`: both in that
// order, the first at speedup 1 with nothing before it, the second's speedups against the first.
// A fatal failure ends only this helper: call it last in a test.
void expect_ladder_of_two(const Outcome& o, const std::string& first, const std::string& second);

// Whether `r`, a result of a JSON report, is unavailable, which only a CUDA step may be (the
// tests run without a GPU): the caller leaves such a result out of its checks.
bool unavailable_cuda_step(const nlohmann::json& r);

// `acclab run <workload> --reps 1` with each of `sets` passed as --set.
std::vector<std::string> run_with_sets(const std::string& workload,
                                       const std::vector<std::string>& sets);

// `acclab run <workload>` with each of `sets` as --set, a problem larger than this host's memory:
// refused as bad input naming each of `names`, before allocating it (the peak memory is the
// process's own). Skips the test where the host has the memory.
void expect_refused_for_host_memory(const std::string& workload,
                                    const std::vector<std::string>& sets,
                                    const std::vector<std::string>& names);

// `acclab run <workload> --variant <variant> --reps 1` with each of `sets` as --set: verified, its
// peak memory within the workload's host_bytes and 64 MiB for the process itself. Skips the test
// where the host has less than twice host_bytes free.
void expect_peak_within_host_bytes(const std::string& workload, const std::string& variant,
                                   const std::vector<std::string>& sets);

// `args` followed by `more`.
std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more);

// ---- bad input: status 2, one line naming it ---------------------------------------------------

// One command line acclab must refuse as bad input (docs/bad-input.md).
struct BadInput {
  std::string name;                // the test's name: letters, digits and _
  std::vector<std::string> args;   // acclab's arguments; "@f" is f in the test's own directory,
                                   // "@data/f" is tests/data/f
  std::vector<std::string> names;  // what the one line on stderr must contain
  // Written into the test's directory before the run, and all it may hold after it.
  std::vector<std::pair<std::string, std::string>> files = {};
};

// `acclab run <workload> --reps 1` with each of `sets` as --set, refused naming each of `names`.
BadInput bad_run(const std::string& workload, std::string name,
                 const std::vector<std::string>& sets, std::vector<std::string> names);

// One --set that the refusal names as written; the test is named after it ("n=0": n_0).
BadInput bad_set(const std::string& workload, const std::string& set);

// `words` as a test's name: each character but a letter or digit as _, the words joined by _.
std::string name_of(const std::vector<std::string>& words);

// gtest would otherwise print a parameter as its bytes.
void PrintTo(const BadInput& c, std::ostream* os);

std::string bad_input_name(const ::testing::TestParamInfo<BadInput>& info);

// One test for every bad input of every workload and of the command line, instantiated beside the
// workload's other tests: the refusal is status 2 with nothing on stdout and exactly one line on
// stderr that starts "acclab: " and names each of `names`, made before any grid, matrix or probe
// (the peak memory is the process's own), and it writes no file.
class BadInputTest : public ::testing::TestWithParam<BadInput> {};

}  // namespace acclab::test
