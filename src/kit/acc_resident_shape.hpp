// The launch shape of an OpenACC resident construct (a whole run in one construct, its gangs met
// at grid_barrier, kit/acc_grid_barrier.hpp) as tunings: warps a gang and gangs a
// multiprocessor. The worker count stays a compile-time constant, as it was before it was a
// tuning (GCC 12 then compiles the kernel for exactly that many warps), so the construct is
// instantiated for each count acc_workers may take and run for the one asked; the gangs are a
// run-time value already.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/params.hpp"

namespace acclab {

// Warps a gang the resident constructs are compiled for.
inline constexpr std::int64_t acc_resident_min_workers = 1;
inline constexpr std::int64_t acc_resident_max_workers = 16;
// The warps a multiprocessor holds of a resident construct: its loops take up to 128 registers
// a lane, and a multiprocessor's 64K registers hold 16 warps of that. Every gang must be
// resident at once (the grid barrier waits for all of them), so gangs a multiprocessor times
// warps a gang may not exceed it.
inline constexpr std::int64_t acc_resident_warps_a_multiprocessor = 16;
inline constexpr std::int64_t acc_resident_max_gangs_per_sm = 4;

struct AccResidentShape {
  std::int64_t workers;           // warps a gang
  std::int64_t gangs_per_sm = 1;  // gangs a multiprocessor (on a GPU; the host fallback runs 1)
};

// Throws UsageError unless `shape` is one the resident constructs are compiled for and whose
// gangs all fit the multiprocessors at once.
inline void check_acc_resident_shape(const AccResidentShape& shape) {
  const std::int64_t w = shape.workers;
  if (w < acc_resident_min_workers || w > acc_resident_max_workers || (w & (w - 1)) != 0) {
    throw UsageError(fmt::format("--set acc_workers={}: expected 1, 2, 4, 8 or 16", w));
  }
  if (shape.gangs_per_sm < 1 || shape.gangs_per_sm > acc_resident_max_gangs_per_sm) {
    throw UsageError(fmt::format("--set acc_gangs_per_sm={}: expected 1 to {}", shape.gangs_per_sm,
                                 acc_resident_max_gangs_per_sm));
  }
  if (w * shape.gangs_per_sm > acc_resident_warps_a_multiprocessor) {
    throw UsageError(fmt::format(
        "acc_workers={} with acc_gangs_per_sm={}: {} warps a multiprocessor, more than the {} "
        "that can all be resident at once (the grid barrier needs every gang running)",
        w, shape.gangs_per_sm, w * shape.gangs_per_sm, acc_resident_warps_a_multiprocessor));
  }
}

// The tunings acc_workers and acc_gangs_per_sm of the resident construct of `steps`, default
// `workers` and 1 (one gang a multiprocessor: the shape before they were tunings), with the check
// of every shape the step can keep resident. A step makes them once (a function-local static)
// and its factory reads them.
inline StepTunings<AccResidentShape> acc_resident_tunings(std::string_view steps,
                                                          std::int64_t workers) {
  StepTunings<AccResidentShape> tunings;
  tunings.integer({.key = "acc_workers",
                   .help = fmt::format("{}: warps (workers) a gang of the resident construct: 1, "
                                       "2, 4, 8 or 16, with acc_gangs_per_sm times it at most 16",
                                       steps),
                   .presets = same_in_all_presets(std::to_string(workers)),
                   .minimum = double(acc_resident_min_workers),
                   .maximum = double(acc_resident_max_workers)},
                  &AccResidentShape::workers);
  tunings.integer({.key = "acc_gangs_per_sm",
                   .help = fmt::format("{}: gangs of the resident construct a multiprocessor, 1 "
                                       "to 4 (all must be resident at once: acc_workers times it "
                                       "at most 16)",
                                       steps),
                   .presets = same_in_all_presets("1"),
                   .minimum = 1,
                   .maximum = double(acc_resident_max_gangs_per_sm)},
                  &AccResidentShape::gangs_per_sm);
  tunings.check(check_acc_resident_shape);
  return tunings;
}

// Calls call(std::integral_constant<int, workers>) for a worker count the resident constructs
// are compiled for (check_acc_resident_shape has refused the others).
template <typename Call>
void with_acc_workers(std::int64_t workers, Call call) {
  switch (workers) {
    case 1:
      return call(std::integral_constant<int, 1>{});
    case 2:
      return call(std::integral_constant<int, 2>{});
    case 4:
      return call(std::integral_constant<int, 4>{});
    case 8:
      return call(std::integral_constant<int, 8>{});
    default:
      return call(std::integral_constant<int, 16>{});
  }
}

}  // namespace acclab
