// Unstructured OpenACC data movement for arrays that may be empty. An `enter data` or
// `exit data` whose array section has length zero aborts GCC's runtime on a GPU
// (libgomp/oacc-mem.c goacc_enter_data_internal: Assertion `tgt' failed), while the host
// fallback accepts it, so a run that passes here can die on the device. Each function below
// does nothing for count == 0 and otherwise is the OpenACC runtime call of the same name
// (acc_copyin ...), which shares the present table and reference counts with the directives.
// A kernel must then name an array in present() only where it was entered, and not launch over
// an empty range. Include it only from sources that link the OpenACC runtime (libgomp).
#pragma once

#include <openacc.h>

#include <cstddef>
#include <cstdint>

namespace acclab {

// Copies p[0:count) to the device (enter data copyin). Blocking.
template <class T>
void acc_enter_copyin(T* p, std::int64_t count) {
  if (count > 0) acc_copyin(p, sizeof(T) * std::size_t(count));
}

// Allocates device memory for p[0:count), contents undefined (enter data create).
template <class T>
void acc_enter_create(T* p, std::int64_t count) {
  if (count > 0) acc_create(p, sizeof(T) * std::size_t(count));
}

// Releases the device copy of p[0:count) (exit data delete); it must have been entered.
template <class T>
void acc_exit_delete(T* p, std::int64_t count) {
  if (count > 0) acc_delete(p, sizeof(T) * std::size_t(count));
}

// Host copy of p[0:count) from the device copy (update self). Blocking.
template <class T>
void acc_update_host(T* p, std::int64_t count) {
  if (count > 0) acc_update_self(p, sizeof(T) * std::size_t(count));
}

// Device copy of p[0:count) from the host copy (update device). Blocking.
template <class T>
void acc_update_to_device(T* p, std::int64_t count) {
  if (count > 0) acc_update_device(p, sizeof(T) * std::size_t(count));
}

}  // namespace acclab
