// Hand-written CUDA kernels of the vector workload. Plain functions on device pointers so
// that only cuda_kernels.cu goes through nvcc. Every launch goes to the default stream and
// is checked; functions that return a value are blocking, the others are not.
#pragma once

#include <cstdint>

namespace acclab::vector::cuda {

// Blocks of the first reduction pass; the caller provides a device array of this many doubles.
inline constexpr int reduction_blocks = 1024;

void fill(float* x, std::int64_t n, float value);
// b[i] = course_b(i) (course_values.hpp).
void fill_course_b(float* b, std::int64_t n);
// c += a + b, element-wise.
void accumulate(float* c, const float* a, const float* b, std::int64_t n);
// a = b + s*c, element-wise.
void triad(float* a, const float* b, const float* c, float s, std::int64_t n);
// Sum of x in double, and dot product of b and c in double: per-block partial sums, then a
// one-block pass, then the result copied to the host. Blocking.
double sum(const float* x, std::int64_t n, double* partial);
double dot(const float* b, const float* c, std::int64_t n, double* partial);

}  // namespace acclab::vector::cuda
