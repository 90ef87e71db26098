// The region shapes triad_omp_target_tuned and dot_omp_target_tuned run a pass in (omp_shape),
// the default first: declared by make_workload() (vector.cpp) and read by omp_target_tuned.cpp.
#pragma once

#include <vector>

#include "kit/omp_tuned.hpp"

namespace acclab::vector {

inline const std::vector<OmpShape>& omp_target_shapes() {
  static const std::vector<OmpShape> shapes = {
      {.name = "lanes8",
       .help = "a team a multiprocessor, parallel over its warps, simd over their 32 lanes, 8 "
               "loads a lane before the stores (the resident steps' pass; omp_construct, "
               "omp_simd, omp_teams and omp_threads do not apply)",
       .inner_simd = true,
       .fixed = true},
      {.name = "flat",
       .help = "one flat loop, the construct, simd, num_teams and thread_limit set by the other "
               "omp_* tunings"}};
  return shapes;
}

}  // namespace acclab::vector
