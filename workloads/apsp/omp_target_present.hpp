// The matrix, with paths the successors, resident on the device for a variant's whole
// measurement (resident_instance.hpp), moved by kit/omp_data.hpp's `target enter data`,
// `target update` and `target exit data`: the OpenMP twin of acc_present.hpp, for
// omp_target_data, omp_target_tuned and omp_target_resident. Include it only from OpenMP target
// sources.
#pragma once

#include <cstdint>

#include "kit/omp_data.hpp"
#include "workloads/apsp/resident_instance.hpp"

namespace acclab::apsp {

struct OmpData {
  static void enter(auto* p, std::int64_t count) { omp_enter_alloc(p, count); }
  static void to_device(auto* p, std::int64_t count) { omp_update_device(p, count); }
  static void to_host(auto* p, std::int64_t count) { omp_update_host(p, count); }
  static void release(auto* p, std::int64_t count) { omp_exit_delete(p, count); }
};

using OmpPresentInstance = ResidentInstance<OmpData>;

}  // namespace acclab::apsp
