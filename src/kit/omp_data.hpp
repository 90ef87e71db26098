// Unstructured OpenMP target data movement for arrays that may be empty: the OpenMP twin of
// acc_data.hpp. A `target enter data` / `exit data` / `update` (or a map on a target region)
// with an array section of length zero is where GCC's runtime has aborted on a GPU for OpenACC
// (libgomp/oacc-mem.c) while the host fallback accepts it; these do nothing for count == 0, so
// that no step of the omptarget backend depends on how libgomp treats an empty section. A region
// must then map an array only where it was entered, and not launch over an empty range. Include
// it only from OpenMP target sources (compiled with ACCLAB_OMPTARGET_FLAGS).
#pragma once

#include <cstdint>

namespace acclab {

// Copies p[0:count) to the device (enter data map(to:)). Blocking.
template <class T>
void omp_enter_to(T* p, std::int64_t count) {
  if (count > 0) {
#pragma omp target enter data map(to : p [0:count])
  }
}

// Allocates device memory for p[0:count), contents undefined (enter data map(alloc:)).
template <class T>
void omp_enter_alloc(T* p, std::int64_t count) {
  if (count > 0) {
#pragma omp target enter data map(alloc : p [0:count])
  }
}

// Releases the device copy of p[0:count) (exit data map(delete:)); it must have been entered.
template <class T>
void omp_exit_delete(T* p, std::int64_t count) {
  if (count > 0) {
#pragma omp target exit data map(delete : p [0:count])
  }
}

// Host copy of p[0:count) from the device copy (target update from). Blocking.
template <class T>
void omp_update_host(T* p, std::int64_t count) {
  if (count > 0) {
#pragma omp target update from(p [0:count])
  }
}

// Device copy of p[0:count) from the host copy (target update to). Blocking.
template <class T>
void omp_update_device(T* p, std::int64_t count) {
  if (count > 0) {
#pragma omp target update to(p [0:count])
  }
}

}  // namespace acclab
