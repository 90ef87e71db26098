// acclab --profile: a per-region report shaped like PGI_ACC_TIME. Regions are named by acclab
// (GCC gives the OpenACC profiling interface no source file or line): a Region labels the
// events that arrive on its thread while it lives. OpenACC events come from the runtime through
// acc_prof_register (openacc_profile.cpp); CUDA kernels and copies from CUDA events around the
// calls that acclab's CUDA code wraps (cuda_profile.hpp).
//
// Nothing is recorded unless a Session is open: a Region or a CUDA timer then costs one relaxed
// atomic load, and the OpenACC callbacks are registered only once a Session has been opened.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace acclab::profile {

// Count, total, max and min of one kind of event in one region (seconds), and the bytes it moved.
struct Stats {
  std::int64_t count = 0;
  double total_s = 0, max_s = 0, min_s = 0;
  std::uint64_t bytes = 0;

  void add(double seconds, std::uint64_t moved = 0);
  double avg_s() const { return count ? total_s / count : 0; }
  // {"count", "total_us", "max_us", "min_us", "avg_us"} and "bytes" when `with_bytes`.
  nlohmann::json json(bool with_bytes = false) const;
};

// What a region counts. Times of the OpenACC events are host elapsed times between the start
// and end callbacks; those of CUDA kernels and copies are device times between CUDA events.
enum class Counter {
  region,             // the labelled scope itself: entries and elapsed time ("entered")
  device_init,        // acc_ev_device_init_*
  compute_construct,  // acc_ev_compute_construct_*: parallel, kernels, serial reached
  enter_data,         // acc_ev_enter_data_*: data construct entry, enter data
  exit_data,          // acc_ev_exit_data_*: data construct exit, exit data
  update,             // acc_ev_update_*
  upload,             // acc_ev_enqueue_upload_*: bytes host to device
  download,           // acc_ev_enqueue_download_*: bytes device to host
  wait,               // acc_ev_wait_*
  cuda_host_to_device,
  cuda_device_to_host,
  cuda_device_to_device,
};
inline constexpr std::size_t counter_count = 12;
const char* to_string(Counter counter);

// One OpenACC kernel launch shape (acc_ev_enqueue_launch_*).
struct AccLaunch {
  std::string kernel;
  std::uint64_t num_gangs = 0, num_workers = 0, vector_length = 0;
  bool operator==(const AccLaunch& o) const {  // spelled out: CUDA sources are C++17
    return kernel == o.kernel && num_gangs == o.num_gangs && num_workers == o.num_workers &&
           vector_length == o.vector_length;
  }
};

// One CUDA kernel launch shape.
struct CudaLaunch {
  std::string kernel;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  bool operator==(const CudaLaunch& o) const {
    return kernel == o.kernel && grid == o.grid && block == o.block;
  }
};

struct RegionProfile {
  std::string path;  // the labels from the outermost in, joined by '/'
  std::array<Stats, counter_count> counters{};
  std::vector<std::pair<AccLaunch, Stats>> acc_launches;
  std::vector<std::pair<CudaLaunch, Stats>> cuda_kernels;

  Stats& operator[](Counter c) { return counters[static_cast<std::size_t>(c)]; }
  const Stats& operator[](Counter c) const { return counters[static_cast<std::size_t>(c)]; }
  nlohmann::json json() const;  // only the counters that saw events
};

// Everything recorded during one Session, regions in the order they were first entered (or, for
// events outside every Region, first saw an event).
struct Profile {
  std::vector<RegionProfile> regions;
  bool openacc_callbacks = false;  // the OpenACC profiling callbacks were registered

  // Total events of `counter` over all regions.
  std::int64_t total(Counter counter) const;
  std::int64_t acc_launch_total() const;
  std::int64_t cuda_kernel_total() const;
  const RegionProfile* find(std::string_view path) const;
};

// ---- collecting --------------------------------------------------------------------------------

namespace detail {
extern std::atomic<bool> collecting;
}
inline bool active() { return detail::collecting.load(std::memory_order_relaxed); }

// Collects every event from its construction to finish(). One Session at a time per process
// (a second one throws std::logic_error). Registers the OpenACC callbacks on first use.
class Session {
 public:
  Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();
  // Stops collecting (after waiting for pending CUDA timings) and returns what was recorded.
  Profile finish();

 private:
  bool open_ = true;
};

// Labels the events on this thread while it lives (the label is copied); labels nest
// ("outer/inner"). Records its own entries and elapsed time as Counter::region. Costs one
// relaxed atomic load when no Session is open.
class Region {
 public:
  explicit Region(std::string_view label);
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region();

 private:
  bool recording_ = false;
  std::chrono::steady_clock::time_point start_;
};

// The current thread's region path ("" outside every Region).
const std::string& current_path();

// Gives a worker thread (an OpenMP thread, say) the region path of the thread that started it,
// while it lives, so that the worker's events land in the caller's region instead of
// "(unlabelled)". Read the path on the starting thread (current_path()) and pass it in; Regions
// opened on the worker nest under it. Restores the worker's own path when destroyed.
class ThreadPath {
 public:
  explicit ThreadPath(const std::string& path);
  ThreadPath(const ThreadPath&) = delete;
  ThreadPath& operator=(const ThreadPath&) = delete;
  ~ThreadPath();

 private:
  bool adopted_ = false;
  std::string saved_path_;
  std::vector<std::size_t> saved_lengths_;
};

// Adds one event to the current thread's region of the open Session; nothing without one.
void record(Counter counter, double seconds, std::uint64_t bytes = 0);
void record_launch(const AccLaunch& launch, double seconds);
// The same into the region `path`, for timings resolved after their region ended (CUDA events).
void record_in(const std::string& path, Counter counter, double seconds, std::uint64_t bytes = 0);
void record_cuda_kernel_in(const std::string& path, const CudaLaunch& launch, double seconds);

// Registers acclab's callbacks for every OpenACC event with acc_prof_register; once per
// process, later calls do nothing. Returns false in a build without OpenACC.
bool register_openacc_callbacks();

// Waits for the CUDA timings still pending and records them (cuda_profile.cu; nothing in a
// build without CUDA).
void flush_cuda_timings();

}  // namespace acclab::profile
