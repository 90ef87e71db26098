// The launch shape of an OpenMP target resident region (a whole run in one `target teams`
// region, its teams met at omp_grid_barrier, kit/omp_grid_barrier.hpp) as tunings: teams a
// multiprocessor (num_teams) and warps a team (thread_limit: an OpenMP thread is a warp in GCC's
// nvptx OpenMP). Both are run-time clauses there, so one compiled region serves every shape; the
// regions deal their work over the teams and threads that started, whatever was asked.
//
// Every team must be resident at once: the barrier waits for all of them. libgomp
// (nvptx_adjust_launch_bounds, docs/directive-models.md) caps the warps a team at what the
// kernel's registers allow and the teams at its own estimate, 65536 / (registers x 32 x warps)
// a multiprocessor, which CUDA's allocation can fall short of. So the check below counts as
// CUDA does (cuda_occupancy.h) at the step's register budget (the most registers a lane its
// entries may take, tests/omptarget_registers_test.sh): a warp's registers in units of 256 from
// one of a multiprocessor's 4 partitions of 16384, a team's warps in fours (one a partition).
// Where the entries take fewer registers than the budget, the teams fit with room to spare.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/machine.hpp"
#include "core/params.hpp"

namespace acclab {

// Warps a team the resident regions deal their work over (their slots hold this many a team).
inline constexpr std::int64_t omp_resident_max_thread_limit = 16;
inline constexpr std::int64_t omp_resident_max_teams_per_sm = 4;
// A multiprocessor's registers and their partitions, on every GPU these are for (sm_80, sm_90).
inline constexpr std::int64_t multiprocessor_registers = 65536;
inline constexpr std::int64_t multiprocessor_partitions = 4;
inline constexpr std::int64_t register_allocation_unit = 256;  // a warp's, at a time

// Warps of an entry of `registers` a lane that a multiprocessor holds at once.
constexpr std::int64_t omp_resident_warps_a_multiprocessor(std::int64_t registers) {
  const std::int64_t a_warp = (registers * 32 + register_allocation_unit - 1) /
                              register_allocation_unit * register_allocation_unit;
  return multiprocessor_partitions *
         (multiprocessor_registers / multiprocessor_partitions / a_warp);
}

// The warps a team of `thread_limit` warps takes of a multiprocessor's: whole fours.
constexpr std::int64_t omp_resident_warps_allocated(std::int64_t thread_limit) {
  return (thread_limit + multiprocessor_partitions - 1) / multiprocessor_partitions *
         multiprocessor_partitions;
}

struct OmpResidentShape {
  std::int64_t thread_limit = omp_resident_max_thread_limit;  // warps a team
  std::int64_t teams_per_sm = 1;  // teams a multiprocessor (on a GPU; the host fallback runs 1)
};

// Throws UsageError unless `shape` is in range and its teams, at `registers` a lane, all fit
// the multiprocessors at once.
inline void check_omp_resident_shape(const OmpResidentShape& shape, std::int64_t registers) {
  if (shape.thread_limit < 1 || shape.thread_limit > omp_resident_max_thread_limit) {
    throw UsageError(fmt::format("--set omp_thread_limit={}: expected 1 to {}", shape.thread_limit,
                                 omp_resident_max_thread_limit));
  }
  if (shape.teams_per_sm < 1 || shape.teams_per_sm > omp_resident_max_teams_per_sm) {
    throw UsageError(fmt::format("--set omp_teams_per_sm={}: expected 1 to {}", shape.teams_per_sm,
                                 omp_resident_max_teams_per_sm));
  }
  // One team a multiprocessor is resident whatever its thread_limit: where the registers hold
  // fewer warps than asked, libgomp launches fewer, and the regions deal their work over the
  // warps that started (so iccg's step, whose image links to 188 registers, asks 16 and gets 8).
  const std::int64_t fit = omp_resident_warps_a_multiprocessor(registers);
  const std::int64_t warps = omp_resident_warps_allocated(shape.thread_limit) * shape.teams_per_sm;
  if (shape.teams_per_sm > 1 && warps > fit) {
    throw UsageError(fmt::format(
        "omp_thread_limit={} with omp_teams_per_sm={}: {} warps a multiprocessor (a team's in "
        "whole fours), more than the {} it holds at {} registers a lane, so not every team could "
        "be resident at once (the grid barrier needs every team running)",
        shape.thread_limit, shape.teams_per_sm, warps, fit, registers));
  }
}

// The tunings omp_thread_limit and omp_teams_per_sm of `steps`, default 16 warps and one team a
// multiprocessor (the shape before they were tunings), with the check of every shape whose teams
// all fit at once at `registers` a lane (the steps' register budget). `seed` and `large` are those
// presets' shapes where a search on the GPU found a faster one there: at the seed's sizes a pass
// is short and the team's barriers weigh more than the warps a multiprocessor, so smaller teams,
// more of them, win, while at `large` the 16 warps a team of vector's passes keep more loads in
// flight (bench/results/h100/tune/NOTES.md). The small preset (CI, the gate's sanitizers) keeps
// the plain shape. A step makes them once (a function-local static) and its factory reads them.
inline StepTunings<OmpResidentShape> omp_resident_tunings(std::string_view steps,
                                                          std::int64_t registers,
                                                          const OmpResidentShape& seed = {},
                                                          const OmpResidentShape& large = {}) {
  const std::int64_t fit = omp_resident_warps_a_multiprocessor(registers);
  check_omp_resident_shape(seed, registers);
  check_omp_resident_shape(large, registers);
  const OmpResidentShape plain;
  StepTunings<OmpResidentShape> tunings;
  tunings.integer(
      {.key = "omp_thread_limit",
       .help = fmt::format("{}: warps (OpenMP threads) a team of the resident region, its "
                           "thread_limit: 1 to {}, with omp_teams_per_sm > 1 times it (rounded "
                           "up to a multiple of 4) at most {}, what a multiprocessor holds at {} "
                           "registers a lane",
                           steps, omp_resident_max_thread_limit, fit, registers),
       .presets = presets_of(std::to_string(seed.thread_limit), std::to_string(plain.thread_limit),
                             std::to_string(large.thread_limit)),
       .minimum = 1,
       .maximum = double(omp_resident_max_thread_limit)},
      &OmpResidentShape::thread_limit);
  tunings.integer(
      {.key = "omp_teams_per_sm",
       .help = fmt::format("{}: teams of the resident region a multiprocessor, 1 to "
                           "{} (all must be resident at once: omp_thread_limit, "
                           "rounded up to a multiple of 4, times it at most {})",
                           steps, omp_resident_max_teams_per_sm, fit),
       .presets = presets_of(std::to_string(seed.teams_per_sm), std::to_string(plain.teams_per_sm),
                             std::to_string(large.teams_per_sm)),
       .minimum = 1,
       .maximum = double(omp_resident_max_teams_per_sm)},
      &OmpResidentShape::teams_per_sm);
  tunings.check(
      [registers](const OmpResidentShape& shape) { check_omp_resident_shape(shape, registers); });
  return tunings;
}

// The teams to ask for: `one_a_multiprocessor` (omp_resident_teams(): the multiprocessors on a
// GPU, 1 on the host fallback, whose teams run one after the other and so must stay one) times
// teams_per_sm where the regions run on a GPU.
inline int omp_resident_teams_asked(int one_a_multiprocessor, const OmpResidentShape& shape) {
  const bool on_device = omptarget_device_count() > 0 && omptarget_region_on_device();
  return on_device ? one_a_multiprocessor * int(shape.teams_per_sm) : 1;
}

static_assert(omp_resident_warps_a_multiprocessor(128) == 16);
static_assert(omp_resident_warps_a_multiprocessor(112) == 16);
static_assert(omp_resident_warps_a_multiprocessor(96) == 20);
static_assert(omp_resident_warps_a_multiprocessor(254) == 8);

}  // namespace acclab
