// The multiprocessor counts the strided OpenACC bandwidth loops are compiled for
// (bandwidth_openacc.cpp, bandwidth_acc_resident.cpp). Their lane count must be a compile-time
// constant: read from a variable, it makes GCC's strided loops reach far less of copy bandwidth
// (bench/results/h200/vector/NOTES.md). So the loops are instantiated for a few multiprocessor
// counts (shapes), and each step picks the shape that suits the device it runs on.
// Include it only from sources compiled as OpenACC.
#pragma once

#include <openacc.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "core/machine.hpp"

namespace acclab::vector {

inline constexpr std::array<std::int64_t, 4> multiprocessor_counts = {80, 108, 114, 132};

// The current OpenACC device's multiprocessors; 0 with no GPU, or acclab built without CUDA to
// ask.
inline int device_multiprocessors() {
  return acc_get_num_devices(acc_device_nvidia) > 0
             ? cuda_multiprocessors(acc_get_device_num(acc_device_nvidia))
             : 0;
}

// Index into multiprocessor_counts of the smallest count that covers `multiprocessors`, the
// largest where none does (or where multiprocessors is 0).
inline std::size_t shape_covering(int multiprocessors) {
  for (std::size_t i = 0; i < multiprocessor_counts.size(); ++i) {
    if (multiprocessors > 0 && multiprocessors <= multiprocessor_counts[i]) return i;
  }
  return multiprocessor_counts.size() - 1;
}

// Index into multiprocessor_counts of the largest count that `multiprocessors` covers, the
// smallest where none is (or where multiprocessors is 0).
inline std::size_t shape_within(int multiprocessors) {
  std::size_t shape = 0;
  for (std::size_t i = 0; i < multiprocessor_counts.size(); ++i) {
    if (multiprocessor_counts[i] <= multiprocessors) shape = i;
  }
  return shape;
}

// Calls call(std::integral_constant<std::int64_t, multiprocessor_counts[shape]>): the kernels'
// lane count as a compile-time constant.
template <typename Call>
void with_multiprocessors(std::size_t shape, Call call) {
  using count = std::int64_t;
  switch (shape) {
    case 0:
      return call(std::integral_constant<count, multiprocessor_counts[0]>{});
    case 1:
      return call(std::integral_constant<count, multiprocessor_counts[1]>{});
    case 2:
      return call(std::integral_constant<count, multiprocessor_counts[2]>{});
    default:
      return call(std::integral_constant<count, multiprocessor_counts[3]>{});
  }
}
static_assert(multiprocessor_counts.size() == 4, "with_multiprocessors names each count");

}  // namespace acclab::vector
