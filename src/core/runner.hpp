// Runs one variant: set up, warm up, time, measure transfers, copy out, verify.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/compare_stats.hpp"
#include "core/machine.hpp"
#include "core/profile.hpp"
#include "core/registry.hpp"

namespace acclab {

enum class Status { verified, failed, unavailable };
const char* to_string(Status status);
// The status to_string prints as `name`, or nullopt.
std::optional<Status> status_named(std::string_view name);

struct RunOptions {
  int reps = 5;
  bool corrupt_result = false;  // tests only: perturb the result before verification
  // Collect a per-region profile (OpenACC events, CUDA timings) of the whole run: regions
  // labelled VARIANT_ID/PHASE/... with the phases setup, warm-up, transfers alone, timed runs,
  // copy out and verify.
  bool profile = false;
  // A warm-up run longer than this is followed by one timed run instead of `reps`: at tens of
  // seconds a run, one measurement is as good as five and five would take minutes. The result
  // says so (reps, and its note). Zero or less: always `reps`.
  double long_run_s = 10.0;
  // Called now and then during a run with a short description of where it is.
  std::function<void(const std::string&)> progress;
  // Called as each run of the variant starts: `run` 0 the untimed warm-up, then 1 to `reps` the
  // timed runs, `reps` as the runner decided (1 after a long warm-up), so that a progress report
  // can say how far the variant got and estimate what is left.
  std::function<void(int run, int reps)> run_started;
};

struct Result {
  const Variant* variant = nullptr;
  Params params;
  Place place = Place::host;
  int reps = 0;
  std::vector<double> times_s;  // one per timed run (of every invocation, in order)
  // Each process's median where the result merges several (run --invocations N); empty for one
  // process. median_s is then the median of these, min_s and max_s over every run.
  std::vector<double> invocations_median_s;
  double min_s = 0, median_s = 0, max_s = 0;
  double setup_s = 0;
  std::optional<double> transfer_s;  // data movement inside one run, measured alone
  double copy_out_s = 0;
  double gflops = 0, gbytes_per_s = 0;
  std::optional<double> limit_gbytes_per_s;
  std::optional<double> limit_fraction;
  Status status = Status::unavailable;
  std::string error;
  std::string note;
  std::string verification;
  nlohmann::json outputs = nlohmann::json::object();
  // A distributed step's Instance::distribution(), with each rank's median run time
  // (rank_seconds: min, median, max over the ranks); null for the other steps.
  nlohmann::json mpi = nullptr;
  std::optional<profile::Profile> profile;  // with RunOptions::profile, for variants that ran
  // Filled by the ladder: time of the family's first step, and of the step before, over ours.
  std::optional<double> speedup_vs_first;
  std::optional<double> speedup_vs_previous;
  std::string previous_variant;  // the step speedup_vs_previous compares with (verified ones only)
  // How sure a speedup is: the bootstrap interval of the ratio of medians and whether it stays
  // within the noise threshold (stats::compare_times: `same`), from kMinReps values a side (each
  // process's median where both steps have several, else the timed runs); absent below that.
  struct SpeedupCheck {
    double low = 0, high = 0;
    bool within_noise = false;
  };
  std::optional<SpeedupCheck> speedup_vs_first_check;
  std::optional<SpeedupCheck> speedup_vs_previous_check;

  std::optional<double> transfer_share() const {
    if (!transfer_s || median_s <= 0) return std::nullopt;
    return std::min(1.0, *transfer_s / median_s);
  }
};

class Runner {
 public:
  explicit Runner(Machine& machine) : machine_(machine) {}

  // Throws UsageError for a problem that cannot be run here at all (too large for memory).
  // Every other failure, including an exception from the variant, becomes a failed Result.
  Result run(const Variant& variant, const Workload& workload, const Params& params,
             const RunOptions& options);

  // Why the variant cannot run on this machine, or nullopt when it can.
  std::optional<std::string> unavailable_reason(const Variant& variant);

  // Throws UsageError when the problem would not fit in the host's available memory or, for a
  // variant that runs on a GPU, in the device's free memory. Called before allocating. The
  // message names the parameters `shown` (the variant's own, reported_params(); all of
  // `params` without it).
  void check_memory(const Variant& variant, const Workload& workload, const Params& params) {
    check_memory(variant, workload, params, params);
  }
  void check_memory(const Variant& variant, const Workload& workload, const Params& params,
                    const Params& shown);

  // Where the variant runs here: CUDA on the GPU, OpenACC and OpenMP target where their runtime
  // found one, everything else on the host.
  Place place_of(const Variant& variant);

 private:
  Machine& machine_;
};

// Fills speedup_vs_first / speedup_vs_previous and their checks for results of one ladder (same
// family, in step order, skipping results that were not verified and results whose outputs say
// they computed part of the problem: computed_fraction below 1, as a --set cap asked). A speedup
// within `noise_percent` of 1, or one the U test cannot tell from noise, is within noise.
void compute_ladder_speedups(std::vector<Result>& results,
                             double noise_percent = stats::kNoisePercent);

}  // namespace acclab
