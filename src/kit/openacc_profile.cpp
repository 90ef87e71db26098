// The OpenACC side of --profile: callbacks registered with the runtime's profiling interface
// (OpenACC 2.6 section 5, acc_prof_register), turning start/end event pairs into timed events of
// the current thread's region. What GCC 12's libgomp delivers: on the host fallback (seen by
// experiment) device_init, compute_construct, enter_data, exit_data and update, and no launch,
// upload/download or wait events; on an NVIDIA GPU (seen on an H200) also enqueue_launch with
// gangs, workers and vector length, but no upload event for a 4 MB copy clause. Never a source
// file or line. Every event registered here is counted when it arrives.
#include <array>
#include <chrono>
#include <mutex>
#include <utility>

#include "kit/openacc_profile.hpp"
#include "core/profile.hpp"

namespace acclab::profile {
namespace {

using Clock = std::chrono::steady_clock;

// Start times of the events in flight on this thread, by event type (start and end events of
// one type never nest within one thread); zero when none is in flight.
thread_local std::array<Clock::time_point, acc_ev_last> started;

// Seconds since the start event, or a negative number when it came before the session opened.
double seconds_since(acc_event_t start_event) {
  const Clock::time_point start = std::exchange(started[start_event], Clock::time_point{});
  if (start == Clock::time_point{}) return -1;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The start/end event pairs timed into a counter of the current region: one list for the
// callback and its registration. enqueue_launch, which records the launch's shape, is apart.
struct TimedPair {
  acc_event_t start;
  acc_event_t end;
  Counter counter;
  bool moves_bytes;  // the end event's data_event.bytes counted too
};
constexpr std::array<TimedPair, 8> kTimedPairs{{
    {acc_ev_device_init_start, acc_ev_device_init_end, Counter::device_init, false},
    {acc_ev_compute_construct_start, acc_ev_compute_construct_end, Counter::compute_construct,
     false},
    {acc_ev_enter_data_start, acc_ev_enter_data_end, Counter::enter_data, false},
    {acc_ev_exit_data_start, acc_ev_exit_data_end, Counter::exit_data, false},
    {acc_ev_update_start, acc_ev_update_end, Counter::update, false},
    {acc_ev_enqueue_upload_start, acc_ev_enqueue_upload_end, Counter::upload, true},
    {acc_ev_enqueue_download_start, acc_ev_enqueue_download_end, Counter::download, true},
    {acc_ev_wait_start, acc_ev_wait_end, Counter::wait, false},
}};

void record_launch_end(const acc_launch_event_info& launch) {
  const double seconds = seconds_since(acc_ev_enqueue_launch_start);
  if (seconds < 0) return;
  AccLaunch shape;
  shape.kernel = launch.kernel_name ? launch.kernel_name : "?";
  shape.num_gangs = launch.num_gangs;
  shape.num_workers = launch.num_workers;
  shape.vector_length = launch.vector_length;
  record_launch(shape, seconds);
}

}  // namespace

void detail::openacc_event(acc_prof_info* info, acc_event_info* event, acc_api_info*) {
  if (!active()) return;
  const acc_event_t type = info->event_type;
  if (type == acc_ev_enqueue_launch_start) {
    started[type] = Clock::now();
    return;
  }
  if (type == acc_ev_enqueue_launch_end) {
    record_launch_end(event->launch_event);
    return;
  }
  for (const TimedPair& pair : kTimedPairs) {
    if (type == pair.start) {
      started[type] = Clock::now();
      return;
    }
    if (type == pair.end) {
      // An end event records the pair; one whose start came before the session is dropped.
      const double seconds = seconds_since(pair.start);
      if (seconds >= 0) {
        record(pair.counter, seconds, pair.moves_bytes ? event->data_event.bytes : 0);
      }
      return;
    }
  }
}

bool register_openacc_callbacks() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const TimedPair& pair : kTimedPairs) {
      acc_prof_register(pair.start, detail::openacc_event, acc_reg);
      acc_prof_register(pair.end, detail::openacc_event, acc_reg);
    }
    acc_prof_register(acc_ev_enqueue_launch_start, detail::openacc_event, acc_reg);
    acc_prof_register(acc_ev_enqueue_launch_end, detail::openacc_event, acc_reg);
  });
  return true;
}

}  // namespace acclab::profile
