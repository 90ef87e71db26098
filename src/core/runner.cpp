#include "core/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/compare_stats.hpp"
#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/host_load.hpp"
#include "core/mpi_env.hpp"
#include "core/text_format.hpp"

namespace acclab {

constexpr auto kStatusNames = std::to_array<EnumName<Status>>({
    {Status::verified, "verified"},
    {Status::failed, "failed"},
    {Status::unavailable, "unavailable"},
});

const char* to_string(Status status) { return name_of(kStatusNames, status); }

std::optional<Status> status_named(std::string_view name) {
  return value_named(kStatusNames, name);
}

namespace {

// A measured rate may pass a measured limit by the two measurements' noise, no more.
constexpr double kLimitSlack = 1.05;

void add_note(Result& result, const std::string& text) {
  result.note = result.note.empty() ? text : result.note + "; " + text;
}

template <typename F>
double seconds_of(F&& work) {
  auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024)); }

}  // namespace

std::optional<std::string> Runner::unavailable_reason(const Variant& variant) {
  if (variant.backend == Backend::cuda && !machine_.cuda_available()) {
    return "no CUDA GPU on this machine";
  }
  if (!variant.gpu_unavailable_reason.empty() && place_of(variant) == Place::gpu) {
    return variant.gpu_unavailable_reason;
  }
  return std::nullopt;
}

Place Runner::place_of(const Variant& variant) {
  switch (variant.backend) {
    case Backend::cuda:
      return Place::gpu;
    case Backend::openacc:
      return machine_.openacc_runs_on_gpu() ? Place::gpu : Place::host;
    case Backend::omptarget:
      return machine_.omptarget_runs_on_gpu() ? Place::gpu : Place::host;
    default:
      return Place::host;
  }
}

void Runner::check_memory(const Variant& variant, const Workload& workload, const Params& params,
                          const Params& shown) {
  if (workload.host_bytes) {
    const double need = workload.host_bytes(params);
    const double have = machine_.host().available_bytes;
    if (have > 0 && need > have) {
      throw UsageError(fmt::format("{} with {}: needs {} of host memory, {} available",
                                   variant.id(), json_text(shown.json()), gib(need), gib(have)));
    }
  }
  if (workload.device_bytes && place_of(variant) == Place::gpu && !machine_.gpus().empty()) {
    const double need = workload.device_bytes(params);
    const double have = machine_.gpus().front().free_bytes;
    if (have > 0 && need > have) {
      throw UsageError(fmt::format("{} with {}: needs {} of device memory, {} free on {}",
                                   variant.id(), json_text(shown.json()), gib(need), gib(have),
                                   machine_.gpus().front().name));
    }
  }
}

namespace {

// One variant's measurement, phase by phase in the order the harness promises (setup, untimed
// warm-up, transfers alone, timed runs, copy out, verify), each phase under its profile region
// and filling `result` as it goes. The instance lives as long as this object, so that the
// caller's region around it sees the device memory freed.
class Measurement {
 public:
  // `ranks`: several MPI ranks run this variant together. Every decision below that depends on
  // a time is then taken on the slowest rank's, so that all ranks make it alike and meet in the
  // same collectives; a run's time is the slowest rank's.
  Measurement(const Variant& variant, const Params& params, const RunOptions& options, bool ranks,
              Result& result)
      : variant_(variant),
        params_(params),
        options_(options),
        ranks_(ranks),
        result_(result),
        reps_(options.reps) {}

  void setup() {
    instance_ = variant_.factory(params_);
    progress("setup");
    const profile::Region phase("setup");
    result_.setup_s = seconds_of([&] { instance_->setup(); });
  }

  // A warm-up longer than options.long_run_s leaves one timed run instead of reps.
  void warm_up() {
    progress("warm-up");
    reset();
    run_started(0);
    const profile::Region phase("warm-up");
    const double warm_up_s = slowest(seconds_of([&] { instance_->run(); }));
    if (options_.long_run_s > 0 && warm_up_s > options_.long_run_s && reps_ > 1) {
      reps_ = 1;
      result_.reps = 1;
      result_.note = fmt::format("timed once: the warm-up run took {}", format_seconds(warm_up_s)) +
                     (result_.note.empty() ? "" : "; " + result_.note);
    }
  }

  // Before the timed runs: transfers alone may leave garbage in host arrays that the next run()
  // overwrites, and the last timed run leaves the results for verify().
  void transfers_alone() {
    std::vector<double> transfer_times;
    for (int rep = 0; rep < std::min(reps_, 3); ++rep) {
      progress("transfers alone");
      bool moved = true;
      reset();
      const profile::Region phase("transfers alone");
      double t = slowest(seconds_of([&] { moved = instance_->transfers_only(); }));
      if (!moved) break;
      transfer_times.push_back(t);
      if (t > 1.0) break;  // long transfers: one measurement is plenty
    }
    if (!transfer_times.empty()) result_.transfer_s = stats::median(transfer_times);
  }

  void timed_runs() {
    for (int rep = 0; rep < reps_; ++rep) {
      progress(fmt::format("run {}/{}", rep + 1, reps_));
      run_started(rep + 1);
      reset();
      mpi::barrier();  // every rank starts the timed run together
      const profile::Region phase("timed runs");
      own_times_s_.push_back(seconds_of([&] { instance_->run(); }));
      result_.times_s.push_back(slowest(own_times_s_.back()));
    }
  }

  void copy_out() {
    progress("copy out");
    const profile::Region phase("copy out");
    result_.copy_out_s = seconds_of([&] { instance_->finish(); });
  }

  void verify() {
    if (options_.corrupt_result) instance_->corrupt_result();
    progress("verify");
    const profile::Region phase("verify");
    auto check = instance_->verify();
    result_.status = check.ok ? Status::verified : Status::failed;
    result_.verification = check.detail;
    result_.outputs = check.outputs;
    if (!check.ok) result_.error = check.detail;
    result_.mpi = instance_->distribution();
    if (variant_.distributed && !own_times_s_.empty() && result_.mpi.is_object()) {
      // Each rank's median run, summarised: how evenly the ranks' parts took their time.
      std::vector<double> medians = mpi::all_gather(stats::median(own_times_s_));
      std::sort(medians.begin(), medians.end());
      result_.mpi["rank_seconds"] = {
          {"min", medians.front()}, {"median", stats::median(medians)}, {"max", medians.back()}};
    }
  }

 private:
  void progress(const std::string& what) const {
    if (options_.progress) options_.progress(fmt::format("{}: {}", variant_.id(), what));
  }
  void run_started(int run) const {
    if (options_.run_started) options_.run_started(run, reps_);
  }
  // Untimed: its events are kept apart from the phase that follows.
  void reset() {
    const profile::Region phase("reset");
    instance_->reset();
  }
  double slowest(double seconds) const { return ranks_ ? mpi::max_over_ranks(seconds) : seconds; }

  const Variant& variant_;
  const Params& params_;
  const RunOptions& options_;
  const bool ranks_;
  Result& result_;
  int reps_;  // options.reps, or 1 after a long warm-up
  std::unique_ptr<Instance> instance_;
  std::vector<double> own_times_s_;  // this rank's own, where result.times_s has the slowest's
};

// min, median and max of the timed runs, and the model's rates at the median.
void summarise_times(const Variant& variant, const Params& params, Result& result) {
  auto sorted = result.times_s;
  std::sort(sorted.begin(), sorted.end());
  result.min_s = sorted.front();
  result.max_s = sorted.back();
  result.median_s = stats::median(sorted);
  if (result.median_s > 0) {
    if (variant.model.flops)
      result.gflops = variant.model.flops(params, result.outputs) / result.median_s / 1e9;
    if (variant.model.bytes) {
      result.gbytes_per_s = variant.model.bytes(params, result.outputs) / result.median_s / 1e9;
    }
  }
}

// The result's GB/s as a fraction of `limit_gbytes_per_s`, the copy bandwidth where it ran.
void set_limit_fraction(Result& result, std::optional<double> limit_gbytes_per_s) {
  result.limit_gbytes_per_s = limit_gbytes_per_s;
  if (result.limit_gbytes_per_s && *result.limit_gbytes_per_s > 0) {
    result.limit_fraction = result.gbytes_per_s / *result.limit_gbytes_per_s;
  }
  // More than the measured limit is a wrong figure, never a result: a problem held in cache,
  // or a limit measured on a busy machine (Machine measures a busy-marked figure again on
  // the first idle run) is flagged rather than printed as a fraction above 1.
  if (result.limit_fraction && *result.limit_fraction > kLimitSlack) {
    add_note(
        result,
        fmt::format("{:.0f} % of the {} copy limit measured ({:.1f} GB/s): a problem "
                    "held in cache, or a limit measured on a busy machine; %limit left "
                    "out",
                    100 * *result.limit_fraction, result.place == Place::gpu ? "device" : "host",
                    *result.limit_gbytes_per_s));
    result.limit_fraction.reset();
  }
}

}  // namespace

Result Runner::run(const Variant& variant, const Workload& workload, const Params& params,
                   const RunOptions& options) {
  Result result;
  result.variant = &variant;
  result.params = params;
  result.reps = options.reps;
  result.place = place_of(variant);
  if (auto reason = unavailable_reason(variant)) {
    result.status = Status::unavailable;
    result.note = *reason;
    return result;
  }
  check_memory(variant, workload, params);
  if (variant.backend == Backend::openacc && result.place == Place::host) {
    result.note = "no GPU: OpenACC ran on the host";
  }
  if (variant.backend == Backend::omptarget && result.place == Place::host) {
    result.note = "no offload device: the OpenMP target regions ran on the host";
  }

  const bool ranks = variant.distributed && mpi::size() > 1;
  std::optional<profile::Session> session;
  if (options.profile) session.emplace();
  try {
    const profile::Region whole(variant.id());
    Measurement measurement(variant, params, options, ranks, result);
    measurement.setup();
    measurement.warm_up();
    measurement.transfers_alone();
    measurement.timed_runs();
    measurement.copy_out();
    measurement.verify();
  } catch (const UsageError& e) {
    if (ranks) mpi::abort_all(2, e.what());
    throw;
  } catch (const std::exception& e) {
    // The other ranks may be waiting for this one in a halo exchange: stop them all.
    if (ranks) mpi::abort_all(1, fmt::format("{}: {}", variant.id(), e.what()));
    result.status = Status::failed;
    result.error = e.what();
  }
  if (session) result.profile = session->finish();

  if (!result.times_s.empty()) {
    summarise_times(variant, params, result);
    if (variant.model.resource == Resource::memory_bandwidth) {
      set_limit_fraction(result, result.place == Place::gpu
                                     ? machine_.device_copy_gbytes_per_s()
                                     : std::optional<double>(machine_.host_copy_gbytes_per_s()));
    }
  }
  if (const std::string busy = host_load_note(); !busy.empty() && result.place == Place::host) {
    add_note(result, busy);
  }
  return result;
}

namespace {

// The check of speedup = median(earlier) / median(later): stats::compare_times with the later
// step as the baseline gives that ratio and its interval.
std::optional<Result::SpeedupCheck> speedup_check(const Result& earlier, const Result& later,
                                                  double noise_percent) {
  const bool invocations =
      earlier.invocations_median_s.size() >= 2 && later.invocations_median_s.size() >= 2;
  const auto& a = invocations ? later.invocations_median_s : later.times_s;
  const auto& b = invocations ? earlier.invocations_median_s : earlier.times_s;
  if (a.size() < std::size_t(stats::kMinReps) || b.size() < std::size_t(stats::kMinReps)) {
    return std::nullopt;
  }
  const stats::StepComparison c = stats::compare_times(a, b, noise_percent);
  return Result::SpeedupCheck{c.interval->low, c.interval->high, c.verdict == stats::Verdict::same};
}

}  // namespace

void compute_ladder_speedups(std::vector<Result>& results, double noise_percent) {
  std::map<std::string, const Result*> first, previous;
  for (auto& r : results) {
    if (r.status != Status::verified || r.median_s <= 0) continue;
    // A step that computed part of the result (a cap the user set) has a time that is not
    // comparable with the others': no speedup, and none measured against it.
    if (r.outputs.is_object() && r.outputs.value("computed_fraction", 1.0) < 1.0) continue;
    const auto& family = r.variant->family;
    if (first.count(family)) {
      r.speedup_vs_first = first[family]->median_s / r.median_s;
      r.speedup_vs_previous = previous[family]->median_s / r.median_s;
      r.previous_variant = previous[family]->variant->name;
      r.speedup_vs_first_check = speedup_check(*first[family], r, noise_percent);
      r.speedup_vs_previous_check = speedup_check(*previous[family], r, noise_percent);
    } else {
      first[family] = &r;
      r.speedup_vs_first = 1.0;
    }
    previous[family] = &r;
  }
}

}  // namespace acclab
