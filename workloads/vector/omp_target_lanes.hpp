// One pass of the triad or the dot in the shape GCC 12's nvptx OpenMP streams fastest: one team
// a multiprocessor, `parallel` over the team's warps (an OpenMP thread is a warp there) and
// `simd` over each warp's 32 lanes, each lane loading `batch` elements before it stores or adds
// them, to keep many loads in flight. Called from inside a `target teams num_teams(teams)
// thread_limit(warps)` region's `parallel`, by omp_target_resident.cpp (all passes in one region,
// a barrier between them) and omp_target_tuned.cpp's default omp_shape=lanes8 (a region a pass):
// the same loop in both, so that their times differ by the launches alone.
//
// The lanes are `groups` lane groups of group_lanes lanes, lane t striding by all lanes (the
// count a compile-time constant, as bandwidth_acc_resident.cpp keeps it: GCC's strided loops are
// slower with a stride read from a variable). A team takes group `team`, `team + running`, ...:
// one group where the teams running match the count (132 on an H100 or H200), several in turn
// where fewer run (one on the host fallback). Only OpenMP target sources include this file.
#pragma once

#ifndef _OPENMP
#error "workloads/vector/omp_target_lanes.hpp needs -fopenmp: its loops are OpenMP simd loops"
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "workloads/vector/vector.hpp"

namespace acclab::vector::lanes {

constexpr int warps = 16;  // OpenMP threads (warps) a team asks for: the regions' thread_limit
constexpr int warp = 32;   // simd lanes a thread
constexpr std::int64_t group_lanes = warps * warp;
constexpr int batch = 8;  // elements a lane loads before it stores or adds them

// The lane group counts a pass can run over: the largest the device's multiprocessors cover is
// chosen (groups_within), one a multiprocessor on the GPUs these are for.
constexpr std::array<std::int64_t, 4> group_counts = {80, 108, 114, 132};

// The index into group_counts for `teams` teams: the largest count no greater, else the first.
inline std::size_t groups_within(int teams) {
  std::size_t shape = 0;
  for (std::size_t i = 0; i < group_counts.size(); ++i) {
    if (group_counts[i] <= teams) shape = i;
  }
  return shape;
}

// The teams to ask for with `multiprocessors` available: one a group at most.
inline int teams_for(int multiprocessors, std::size_t shape) {
  return int(multiprocessors < group_counts[shape] ? multiprocessors : group_counts[shape]);
}

// Calls call(std::integral_constant<std::int64_t, group_counts[shape]>{}).
template <typename Call>
void with_groups(std::size_t shape, Call call) {
  using count = std::int64_t;
  switch (shape) {
    case 0:
      return call(std::integral_constant<count, group_counts[0]>{});
    case 1:
      return call(std::integral_constant<count, group_counts[1]>{});
    case 2:
      return call(std::integral_constant<count, group_counts[2]>{});
    default:
      return call(std::integral_constant<count, group_counts[3]>{});
  }
}
static_assert(group_counts.size() == 4, "with_groups names each count");

// Explicitly device functions (GCC would mark them itself where a region calls them), so that
// their simd loops are lowered for the warp's lanes wherever they are compiled.
#pragma omp declare target

// a = b + s*c over this thread's warps of this team's groups. A team at or beyond `running`
// (the host fallback's others) does nothing.
template <std::int64_t groups>
inline void triad_pass(int team, int running, int thread, int threads, std::int64_t n, float* a,
                       const float* b, const float* c) {
  constexpr std::int64_t lanes = groups * group_lanes;
  if (team >= running) return;
  for (std::int64_t g = team; g < groups; g += running) {
    for (int w = thread; w < warps; w += threads) {
#pragma omp simd
      for (int l = 0; l < warp; ++l) {
        // Lane t reads b[t], b[t + lanes], ...: neighbouring lanes read neighbouring elements;
        // batch of them loaded before any is stored (a may alias b or c for all the compiler
        // knows, so it would not move a load above a store).
        std::int64_t i = (g * warps + w) * warp + l;
        for (; i + (batch - 1) * lanes < n; i += batch * lanes) {
          float bs[batch], cs[batch];
#pragma GCC unroll 8
          for (int u = 0; u < batch; ++u) {
            bs[u] = b[i + u * lanes];
            cs[u] = c[i + u * lanes];
          }
#pragma GCC unroll 8
          for (int u = 0; u < batch; ++u) a[i + u * lanes] = bs[u] + triad_scalar * cs[u];
        }
        for (; i < n; i += lanes) a[i] = b[i] + triad_scalar * c[i];
      }
    }
  }
}

// sum(b*c) over this thread's warps of this team's groups, in double: every lane sums its
// strided slice, each warp its lanes (a simd reduction). Each warp's sum goes to
// sums[g * warps + w] where `sums` is not null (the resident dot folds those after a barrier);
// the thread's total over its warps is returned (the tuned dot's reduction). 0 for a team at or
// beyond `running`.
template <std::int64_t groups>
inline double dot_pass(int team, int running, int thread, int threads, std::int64_t n,
                       const float* b, const float* c, double* sums) {
  constexpr std::int64_t lanes = groups * group_lanes;
  double total = 0.0;
  if (team >= running) return total;
  for (std::int64_t g = team; g < groups; g += running) {
    for (int w = thread; w < warps; w += threads) {
      double warp_sum = 0.0;
#pragma omp simd reduction(+ : warp_sum)
      for (int l = 0; l < warp; ++l) {
        double lane_sum = 0.0;
        std::int64_t i = (g * warps + w) * warp + l;
        for (; i + (batch - 1) * lanes < n; i += batch * lanes) {
          float bs[batch], cs[batch];
#pragma GCC unroll 8
          for (int u = 0; u < batch; ++u) {
            bs[u] = b[i + u * lanes];
            cs[u] = c[i + u * lanes];
          }
#pragma GCC unroll 8
          for (int u = 0; u < batch; ++u) lane_sum += double(bs[u]) * double(cs[u]);
        }
        for (; i < n; i += lanes) lane_sum += double(b[i]) * double(c[i]);
        warp_sum += lane_sum;
      }
      if (sums != nullptr) sums[g * warps + w] = warp_sum;
      total += warp_sum;
    }
  }
  return total;
}

#pragma omp end declare target

}  // namespace acclab::vector::lanes
