#include "kit/grid_barrier_check.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "kit/acc_grid_barrier.hpp"

namespace acclab {

void check_grid_barrier(unsigned long long counted, unsigned long long expected,
                        std::string_view step, long long gangs, std::string_view fallback) {
  if (counted & grid_barrier_stalled) {
    throw std::runtime_error(fmt::format(
        "{}: a gang waited {} polls at a barrier across gangs and gave up: were all {} gangs "
        "running at once (another process on the device?); {}",
        step, grid_barrier_max_polls, gangs, fallback));
  }
  if (counted != expected) {
    throw std::runtime_error(
        fmt::format("{}: the barrier across gangs counted {} arrivals where {} were expected", step,
                    counted, expected));
  }
}

}  // namespace acclab
