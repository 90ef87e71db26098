// The vector workload's initial values as functions of the element index, shared by the host,
// the OpenACC kernels and the CUDA kernels (the steps initialise b on the device, as the
// course's main() does) and by verify(), which checks each element against them.
// They differ from neighbour to neighbour and repeat with periods 3, 5 and 16 (3 and 5 share no
// factor with a power-of-two width): a kernel that reads a neighbour's element, or the next
// row's, or strides by ny instead of nx, changes the result.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define ACCLAB_VECTOR_HOST_DEVICE __host__ __device__
#else
#define ACCLAB_VECTOR_HOST_DEVICE
#endif

namespace acclab::vector {

// The course: a[i] = 1 + i%3, b[i] = 2 + i%5, c = 0; after nt steps c[i] = nt*(a[i] + b[i]),
// an integer of at most course_max_sum*nt (exact in float below 2^24).
#ifdef _OPENACC
#pragma acc routine seq
#endif
ACCLAB_VECTOR_HOST_DEVICE inline float course_a(std::int64_t i) { return float(1 + i % 3); }
#ifdef _OPENACC
#pragma acc routine seq
#endif
ACCLAB_VECTOR_HOST_DEVICE inline float course_b(std::int64_t i) { return float(2 + i % 5); }
inline constexpr std::int64_t course_max_sum = 3 + 6;

// The triad and the dot product: b[i] = (i%16)/4, c[i] = i%5. Quarters: every product and
// every partial sum is exact, so results compare bit for bit whatever the summation order.
inline float stream_b(std::int64_t i) { return 0.25f * float(i % 16); }
inline float stream_c(std::int64_t i) { return float(i % 5); }

}  // namespace acclab::vector
