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

// ---- files -------------------------------------------------------------------------------------

std::string read_file(const std::filesystem::path& path);

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
  double wall_s = 0;
  bool timed_out = false;
};

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

// `acclab run <workload> --reps 1` with each of `sets` passed as --set.
std::vector<std::string> run_with_sets(const std::string& workload,
                                       const std::vector<std::string>& sets);

}  // namespace acclab::test
