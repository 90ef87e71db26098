// The matrix, and with paths the successors, present on the device for a variant's whole
// measurement (resident_instance.hpp), moved by kit/acc_data.hpp's runtime calls, which share
// the present table with the kernels' present clauses. optimize and optimize_resident share it.
// Include it only from OpenACC sources.
#pragma once

#include <cstdint>

#include "kit/acc_data.hpp"
#include "workloads/apsp/resident_instance.hpp"

namespace acclab::apsp {

struct AccData {
  static void enter(auto* p, std::int64_t count) { acc_enter_create(p, count); }
  static void to_device(auto* p, std::int64_t count) { acc_update_to_device(p, count); }
  static void to_host(auto* p, std::int64_t count) { acc_update_host(p, count); }
  static void release(auto* p, std::int64_t count) { acc_exit_delete(p, count); }
};

using PresentInstance = ResidentInstance<AccData>;

}  // namespace acclab::apsp
