#include "core/profile.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "core/enum_names.hpp"

namespace acclab::profile {

#ifndef ACCLAB_HAVE_OPENACC
bool register_openacc_callbacks() { return false; }
#endif
#ifndef ACCLAB_HAVE_CUDA
void flush_cuda_timings() {}
#endif

namespace detail {
std::atomic<bool> collecting{false};
}

namespace {

std::mutex store_mutex;
std::unique_ptr<Profile> store;  // the open Session's profile, guarded by store_mutex

thread_local std::string thread_path;
thread_local std::vector<std::size_t> thread_path_lengths;

const std::string unlabelled = "(unlabelled)";

// The region `path` of the open profile, created on its first event. Call with store_mutex held.
RegionProfile& region_of(const std::string& path) {
  const std::string& name = path.empty() ? unlabelled : path;
  for (auto& region : store->regions) {
    if (region.path == name) return region;
  }
  store->regions.push_back(RegionProfile{});
  store->regions.back().path = name;
  return store->regions.back();
}

// The statistics of `launch` (an OpenACC launch shape or a CUDA kernel) in a region's list of
// them, added on its first launch.
template <typename Launch>
Stats& stats_of(std::vector<std::pair<Launch, Stats>>& launches, const Launch& launch) {
  auto it = std::find_if(launches.begin(), launches.end(),
                         [&](const auto& entry) { return entry.first == launch; });
  if (it == launches.end()) it = launches.insert(launches.end(), {launch, Stats{}});
  return it->second;
}

double microseconds(double seconds) { return seconds * 1e6; }

}  // namespace

void Stats::add(double seconds, std::uint64_t moved) {
  if (count == 0 || seconds < min_s) min_s = seconds;
  if (count == 0 || seconds > max_s) max_s = seconds;
  ++count;
  total_s += seconds;
  bytes += moved;
}

nlohmann::json Stats::json(bool with_bytes) const {
  nlohmann::json j = {{"count", count},
                      {"total_us", microseconds(total_s)},
                      {"max_us", microseconds(max_s)},
                      {"min_us", microseconds(min_s)},
                      {"avg_us", microseconds(avg_s())}};
  if (with_bytes) j["bytes"] = bytes;
  return j;
}

constexpr auto kCounterNames = std::to_array<EnumName<Counter>>({
    {Counter::region, "entered"},
    {Counter::device_init, "device_init"},
    {Counter::compute_construct, "compute_construct"},
    {Counter::enter_data, "enter_data"},
    {Counter::exit_data, "exit_data"},
    {Counter::update, "update"},
    {Counter::upload, "upload"},
    {Counter::download, "download"},
    {Counter::wait, "wait"},
    {Counter::cuda_host_to_device, "cuda_host_to_device"},
    {Counter::cuda_device_to_host, "cuda_device_to_host"},
    {Counter::cuda_device_to_device, "cuda_device_to_device"},
});
static_assert(kCounterNames.size() == counter_count);

const char* to_string(Counter counter) { return name_of(kCounterNames, counter); }

nlohmann::json RegionProfile::json() const {
  nlohmann::json j = {{"region", path}};
  for (std::size_t i = 0; i < counter_count; ++i) {
    const auto counter = static_cast<Counter>(i);
    if (counters[i].count == 0) continue;
    const bool moves_bytes = counter == Counter::upload || counter == Counter::download ||
                             counter == Counter::cuda_host_to_device ||
                             counter == Counter::cuda_device_to_host ||
                             counter == Counter::cuda_device_to_device;
    j[to_string(counter)] = counters[i].json(moves_bytes);
  }
  if (!acc_launches.empty()) {
    auto& launches = j["launches"] = nlohmann::json::array();
    for (const auto& [launch, stats] : acc_launches) {
      auto entry = stats.json();
      entry["kernel"] = launch.kernel;
      entry["num_gangs"] = launch.num_gangs;
      entry["num_workers"] = launch.num_workers;
      entry["vector_length"] = launch.vector_length;
      launches.push_back(entry);
    }
  }
  if (!cuda_kernels.empty()) {
    auto& kernels = j["cuda_kernels"] = nlohmann::json::array();
    for (const auto& [launch, stats] : cuda_kernels) {
      auto entry = stats.json();
      entry["kernel"] = launch.kernel;
      entry["grid"] = launch.grid;
      entry["block"] = launch.block;
      kernels.push_back(entry);
    }
  }
  return j;
}

std::int64_t Profile::total(Counter counter) const {
  std::int64_t sum = 0;
  for (const auto& region : regions) sum += region[counter].count;
  return sum;
}

std::int64_t Profile::acc_launch_total() const {
  std::int64_t sum = 0;
  for (const auto& region : regions) {
    for (const auto& launch : region.acc_launches) sum += launch.second.count;
  }
  return sum;
}

std::int64_t Profile::cuda_kernel_total() const {
  std::int64_t sum = 0;
  for (const auto& region : regions) {
    for (const auto& kernel : region.cuda_kernels) sum += kernel.second.count;
  }
  return sum;
}

const RegionProfile* Profile::find(std::string_view path) const {
  for (const auto& region : regions) {
    if (region.path == path) return &region;
  }
  return nullptr;
}

Session::Session() {
  // Registered before collecting starts, outside the lock: registration may initialise libgomp.
  const bool callbacks = register_openacc_callbacks();
  std::lock_guard lock(store_mutex);
  if (store) throw std::logic_error("acclab::profile::Session: a session is already open");
  store = std::make_unique<Profile>();
  store->openacc_callbacks = callbacks;
  detail::collecting.store(true);
}

Session::~Session() {
  if (open_) finish();
}

Profile Session::finish() {
  if (!open_) throw std::logic_error("acclab::profile::Session::finish called twice");
  open_ = false;
  flush_cuda_timings();
  detail::collecting.store(false);
  std::lock_guard lock(store_mutex);
  Profile profile = std::move(*store);
  store.reset();
  return profile;
}

Region::Region(std::string_view label) {
  if (!active()) return;
  recording_ = true;
  thread_path_lengths.push_back(thread_path.size());
  if (!thread_path.empty()) thread_path += '/';
  thread_path += label;
  {
    // Listed from its first entry, so that the report reads in the order the program ran.
    std::lock_guard lock(store_mutex);
    if (store) region_of(thread_path);
  }
  start_ = std::chrono::steady_clock::now();
}

Region::~Region() {
  if (!recording_) return;
  record(Counter::region,
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  thread_path.resize(thread_path_lengths.back());
  thread_path_lengths.pop_back();
}

const std::string& current_path() { return thread_path; }

ThreadPath::ThreadPath(const std::string& path) {
  if (!active()) return;
  adopted_ = true;
  saved_path_ = std::exchange(thread_path, path);
  saved_lengths_ = std::exchange(thread_path_lengths, {});
}

ThreadPath::~ThreadPath() {
  if (!adopted_) return;
  thread_path = std::move(saved_path_);
  thread_path_lengths = std::move(saved_lengths_);
}

void record(Counter counter, double seconds, std::uint64_t bytes) {
  record_in(thread_path, counter, seconds, bytes);
}

void record_in(const std::string& path, Counter counter, double seconds, std::uint64_t bytes) {
  if (!active()) return;
  std::lock_guard lock(store_mutex);
  if (!store) return;
  region_of(path)[counter].add(seconds, bytes);
}

void record_launch(const AccLaunch& launch, double seconds) {
  if (!active()) return;
  std::lock_guard lock(store_mutex);
  if (!store) return;
  stats_of(region_of(thread_path).acc_launches, launch).add(seconds);
}

void record_cuda_kernel_in(const std::string& path, const CudaLaunch& launch, double seconds) {
  if (!active()) return;
  std::lock_guard lock(store_mutex);
  if (!store) return;
  stats_of(region_of(path).cuda_kernels, launch).add(seconds);
}

}  // namespace acclab::profile
