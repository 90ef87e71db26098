// What iccg's two CUDA steps (cuda_host.cpp, cusparse.cpp) share: the system's arrays uploaded,
// and b's plain sum of squares that their relative residuals divide by.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "kit/cuda_memory.hpp"

namespace acclab::iccg {

// `host` on the device (one element at least, so that an empty array is still an allocation).
template <typename T>
DeviceArray<T> uploaded(const std::vector<T>& host) {
  DeviceArray<T> device(std::max<std::size_t>(host.size(), 1));
  if (!host.empty()) {
    copy_to_device(device.get(), host.data(), sizeof(T) * host.size());
  }
  return device;
}

inline double sum_of_squares(const std::vector<double>& b) {
  double sum = 0;
  for (double v : b) sum += v * v;
  return sum;
}

}  // namespace acclab::iccg
