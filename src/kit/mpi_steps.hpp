// What every distributed step shares, whatever its workload: the exchange replayed alone for
// its share of the time, the gathered result held to the serial one, rank 0's verdict handed to
// every rank, and the `mpi` section of the result. The workloads keep their decompositions; this
// keeps their reports alike.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "core/mpi_env.hpp"
#include "core/registry.hpp"

namespace acclab::mpi {

// `count` items dealt over `parts` as evenly as they go: part `index`'s first item and its
// count, the first count % parts parts one more. Decompositions deal rows, columns or blocks so.
inline std::pair<std::int64_t, std::int64_t> share(std::int64_t count, int parts, int index) {
  const std::int64_t base = count / parts, extra = count % parts;
  const std::int64_t first = index * base + std::min<std::int64_t>(index, extra);
  return {first, base + (index < extra ? 1 : 0)};
}

// The refusal of a process grid `dims` ("PxQ") with more ranks along a side than `what` has
// (e.g. "the 4 x 4 interior has points"): naming --set proc_grid where the user gave it, else
// the rank count, whose grid MPI_Dims_create chose.
inline std::string too_many_ranks(const std::string& proc_grid, int ranks, const std::string& dims,
                                  const std::string& what) {
  if (!proc_grid.empty()) {
    return "--set proc_grid=" + proc_grid + ": more ranks along a side than " + what;
  }
  return std::to_string(ranks) + " ranks: their process grid " + dims +
         " (MPI_Dims_create's) has more ranks along a side than " + what +
         "; run fewer ranks, or choose the grid with --set proc_grid";
}

// The counts of a process grid the user set with --set proc_grid ("2x2", "1x1x4"): exactly N
// positive counts whose product is `ranks`, the ranks running. Otherwise a UsageError naming
// the setting and `form`, the shape the workload expects (e.g. "PxQ with P * Q").
template <std::size_t N>
std::array<int, N> parse_process_grid(const std::string& proc_grid, int ranks,
                                      const std::string& form) {
  std::array<int, N> counts{};
  std::size_t at = 0, parsed = 0;
  std::int64_t product = 1;
  bool ok = true;
  while (ok && parsed < N) {
    const std::size_t end = parsed + 1 < N ? proc_grid.find('x', at) : proc_grid.size();
    const std::string part = proc_grid.substr(at, end == std::string::npos ? end : end - at);
    // Digits only, a count no machine exceeds: "2x+2", "2x 2" and "2x99999999999" are refused.
    ok = end != std::string::npos && !part.empty() && part.size() <= 6 &&
         part.find_first_not_of("0123456789") == std::string::npos;
    if (ok) {
      counts[parsed] = std::stoi(part);
      product *= counts[parsed];
      ok = counts[parsed] >= 1;
    }
    at = end + 1;
    ++parsed;
  }
  if (!ok || product != ranks) {
    throw UsageError("--set proc_grid=" + proc_grid + ": expected " + form + " = " +
                     std::to_string(ranks) + ", the ranks running");
  }
  return counts;
}

// The parameter check of a distributed step (its ladder row requires mpi): its process grid,
// checked with the other parameters before any rank starts, after any check `variant` already
// has. `process_grid(problem, proc_grid, ranks)` is the workload's, which throws UsageError for a
// grid `problem` cannot be dealt over. Other steps are left as they are.
template <typename Problem, typename ProcessGrid>
void check_process_grid(Variant& variant, const Problem& (*problem_of)(const Params&),
                        ProcessGrid process_grid) {
  if (!variant.distributed) return;
  variant.check_params = [first = variant.check_params, problem_of,
                          process_grid](const Params& params) {
    if (first) first(params);
    const Problem& p = problem_of(params);
    process_grid(p, p.proc_grid, size());
  };
}

// Seconds one call of `exchange` takes on the slowest rank, replayed 20 times after the timed
// runs (the way xfer% is measured): the first round warms the path up, the second is timed.
template <typename Exchange>
double time_exchange(Exchange&& exchange) {
  constexpr int count = 20;
  double seconds = 0;
  for (int round = 0; round < 2; ++round) {
    barrier();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) exchange();
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / count;
  }
  return max_over_ranks(seconds);
}

// Counts the `n` values of `result` that differ from `serial` at all (NaN differs from
// everything, itself included) into v.outputs["points_differing_from_serial"]. When `bitwise`,
// v fails unless none differ; its detail says which way it went, naming the serial result
// (e.g. "grid": "bit for bit the serial grid"). `points` names the values ("points", "cells").
void compare_with_serial(Verification& v, const float* result, const float* serial, std::int64_t n,
                         bool bitwise, const std::string& points, const std::string& serial_name);

// Rank 0's verdict on every rank (the others' `v` is replaced): every rank leaves verify() with
// the same answer, so that all exit with the same status.
Verification shared_verdict(const Verification& v);

// The `mpi` section of a halo-exchanging step's result. Collective: every rank adds its own
// halo to halo_bytes_per_sweep (each face counted once, by its receiver).
struct HaloReport {
  std::string proc_grid;         // "PxQ" or "PxQxR"
  std::string halo_path;         // host, host-staged, nccl, cuda-aware-mpi, none (one rank)
  std::int64_t halo_floats = 0;  // floats this rank receives in one exchange
  double exchange_s = -1;        // time_exchange's figure; < 0 when not measured
  std::int64_t steps = 0;        // sweeps (steps) of the last run
  double run_s = 0;              // the last run's own time
};
nlohmann::json halo_distribution(const HaloReport& r);

}  // namespace acclab::mpi
