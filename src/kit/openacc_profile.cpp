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

}  // namespace

void detail::openacc_event(acc_prof_info* info, acc_event_info* event, acc_api_info*) {
  if (!active()) return;
  const acc_event_t type = info->event_type;
  // An end event records the pair; one whose start came before the session is dropped.
  auto record_pair = [](Counter counter, acc_event_t start_event, std::uint64_t bytes = 0) {
    const double seconds = seconds_since(start_event);
    if (seconds >= 0) record(counter, seconds, bytes);
  };
  switch (type) {
    case acc_ev_device_init_start:
    case acc_ev_compute_construct_start:
    case acc_ev_enter_data_start:
    case acc_ev_exit_data_start:
    case acc_ev_update_start:
    case acc_ev_enqueue_launch_start:
    case acc_ev_enqueue_upload_start:
    case acc_ev_enqueue_download_start:
    case acc_ev_wait_start:
      started[type] = Clock::now();
      return;
    case acc_ev_device_init_end:
      record_pair(Counter::device_init, acc_ev_device_init_start);
      return;
    case acc_ev_compute_construct_end:
      record_pair(Counter::compute_construct, acc_ev_compute_construct_start);
      return;
    case acc_ev_enter_data_end:
      record_pair(Counter::enter_data, acc_ev_enter_data_start);
      return;
    case acc_ev_exit_data_end:
      record_pair(Counter::exit_data, acc_ev_exit_data_start);
      return;
    case acc_ev_update_end:
      record_pair(Counter::update, acc_ev_update_start);
      return;
    case acc_ev_wait_end:
      record_pair(Counter::wait, acc_ev_wait_start);
      return;
    case acc_ev_enqueue_upload_end:
      record_pair(Counter::upload, acc_ev_enqueue_upload_start, event->data_event.bytes);
      return;
    case acc_ev_enqueue_download_end:
      record_pair(Counter::download, acc_ev_enqueue_download_start, event->data_event.bytes);
      return;
    case acc_ev_enqueue_launch_end: {
      const double seconds = seconds_since(acc_ev_enqueue_launch_start);
      if (seconds < 0) return;
      const acc_launch_event_info& launch = event->launch_event;
      AccLaunch shape;
      shape.kernel = launch.kernel_name ? launch.kernel_name : "?";
      shape.num_gangs = launch.num_gangs;
      shape.num_workers = launch.num_workers;
      shape.vector_length = launch.vector_length;
      record_launch(shape, seconds);
      return;
    }
    default:
      return;
  }
}

bool register_openacc_callbacks() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (acc_event_t type :
         {acc_ev_device_init_start, acc_ev_device_init_end, acc_ev_compute_construct_start,
          acc_ev_compute_construct_end, acc_ev_enter_data_start, acc_ev_enter_data_end,
          acc_ev_exit_data_start, acc_ev_exit_data_end, acc_ev_update_start, acc_ev_update_end,
          acc_ev_enqueue_launch_start, acc_ev_enqueue_launch_end, acc_ev_enqueue_upload_start,
          acc_ev_enqueue_upload_end, acc_ev_enqueue_download_start, acc_ev_enqueue_download_end,
          acc_ev_wait_start, acc_ev_wait_end}) {
      acc_prof_register(type, detail::openacc_event, acc_reg);
    }
  });
  return true;
}

}  // namespace acclab::profile
