// The host's check after a compute construct whose gangs met at grid_barrier
// (kit/acc_grid_barrier.hpp): every resident step reads the barrier's count back and hands it
// here, so that a stall or a miscount reads the same in every workload.
#pragma once

#include <string_view>

namespace acclab {

// `counted`: the barrier's count read back from the device; `expected`: the arrivals the
// construct's own counters say it made (gangs running times barriers passed). Throws
// std::runtime_error naming `step` where a gang gave up waiting (grid_barrier_stalled is set:
// were all `gangs` running at once?), adding `fallback` (what to run instead), or where the count
// is not `expected`.
void check_grid_barrier(unsigned long long counted, unsigned long long expected,
                        std::string_view step, long long gangs, std::string_view fallback);

}  // namespace acclab
