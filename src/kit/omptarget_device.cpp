// OpenMP target runtime queries, compiled with the OpenMP target flags (in acclab_omptarget_kit).
#include <omp.h>

#include "core/machine.hpp"

namespace acclab {

int omptarget_device_count() { return omp_get_num_devices(); }

bool omptarget_region_on_device() {
  // omp_get_num_devices() counts devices libgomp has a plugin for; only a region that ran
  // elsewhere than the initial device shows that the image was offloaded (a missing or refused
  // image falls back to the host without a word).
  int initial = 1;
#pragma omp target map(from : initial)
  { initial = omp_is_initial_device(); }
  return initial == 0;
}

}  // namespace acclab
