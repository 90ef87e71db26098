// The vector workload in CUDA: grid-stride loops with 16-byte (float4) loads where the data
// allows, and two-pass reductions (block partials, then one block) with warp shuffles.
#include "kit/cuda_check.hpp"
#include "workloads/vector/course_values.hpp"
#include "workloads/vector/cuda_kernels.hpp"

namespace acclab::vector::cuda {
namespace {

constexpr int threads = 256;

int blocks_for(std::int64_t work) {
  // Enough blocks to cover the work, capped: a grid-stride loop does the rest.
  const std::int64_t wanted = (work + threads - 1) / threads;
  return static_cast<int>(wanted < 8192 ? (wanted > 0 ? wanted : 1) : 8192);
}

__global__ void fill_kernel(float* x, std::int64_t n, float value) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    x[i] = value;
  }
}

__global__ void fill_course_b_kernel(float* b, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    b[i] = course_b(i);
  }
}

// n4 float4 elements, then the scalar tail from 4*n4 to n.
__global__ void accumulate_kernel(float* c, const float* a, const float* b, std::int64_t n) {
  const std::int64_t n4 = n / 4;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  auto* c4 = reinterpret_cast<float4*>(c);
  const auto* a4 = reinterpret_cast<const float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  for (std::int64_t i = first; i < n4; i += stride) {
    float4 cv = c4[i];
    const float4 av = a4[i], bv = b4[i];
    cv.x += av.x + bv.x;
    cv.y += av.y + bv.y;
    cv.z += av.z + bv.z;
    cv.w += av.w + bv.w;
    c4[i] = cv;
  }
  for (std::int64_t i = 4 * n4 + first; i < n; i += stride) c[i] += a[i] + b[i];
}

__global__ void triad_kernel(float* a, const float* b, const float* c, float s, std::int64_t n) {
  const std::int64_t n4 = n / 4;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  auto* a4 = reinterpret_cast<float4*>(a);
  const auto* b4 = reinterpret_cast<const float4*>(b);
  const auto* c4 = reinterpret_cast<const float4*>(c);
  for (std::int64_t i = first; i < n4; i += stride) {
    const float4 bv = b4[i], cv = c4[i];
    a4[i] = make_float4(bv.x + s * cv.x, bv.y + s * cv.y, bv.z + s * cv.z, bv.w + s * cv.w);
  }
  for (std::int64_t i = 4 * n4 + first; i < n; i += stride) a[i] = b[i] + s * c[i];
}

__device__ double block_sum(double value) {
  __shared__ double warp_sums[32];
  for (int offset = 16; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  value = threadIdx.x < blockDim.x / 32 ? warp_sums[lane] : 0.0;
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2)
      value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  return value;  // valid in thread 0
}

// With c == nullptr: sum of b; otherwise sum of b*c.
__global__ void partial_sums_kernel(const float* b, const float* c, std::int64_t n,
                                    double* partial) {
  const std::int64_t n4 = n / 4;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const auto* b4 = reinterpret_cast<const float4*>(b);
  const auto* c4 = reinterpret_cast<const float4*>(c);
  double sum = 0.0;
  for (std::int64_t i = first; i < n4; i += stride) {
    const float4 bv = b4[i];
    if (c) {
      const float4 cv = c4[i];
      sum += double(bv.x) * cv.x + double(bv.y) * cv.y + double(bv.z) * cv.z + double(bv.w) * cv.w;
    } else {
      sum += double(bv.x) + double(bv.y) + double(bv.z) + double(bv.w);
    }
  }
  for (std::int64_t i = 4 * n4 + first; i < n; i += stride) sum += c ? double(b[i]) * c[i] : b[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void final_sum_kernel(double* partial, int count) {
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += blockDim.x) sum += partial[i];
  sum = block_sum(sum);
  if (threadIdx.x == 0) partial[0] = sum;
}

double reduce(const float* b, const float* c, std::int64_t n, double* partial) {
  partial_sums_kernel<<<reduction_blocks, threads>>>(b, c, n, partial);
  CUDA_CHECK_LAUNCH();
  final_sum_kernel<<<1, 1024>>>(partial, reduction_blocks);
  CUDA_CHECK_LAUNCH();
  double result = 0.0;
  CUDA_CHECK(cudaMemcpy(&result, partial, sizeof result, cudaMemcpyDeviceToHost));
  return result;
}

}  // namespace

void fill(float* x, std::int64_t n, float value) {
  fill_kernel<<<blocks_for(n), threads>>>(x, n, value);
  CUDA_CHECK_LAUNCH();
}

void fill_course_b(float* b, std::int64_t n) {
  fill_course_b_kernel<<<blocks_for(n), threads>>>(b, n);
  CUDA_CHECK_LAUNCH();
}

void accumulate(float* c, const float* a, const float* b, std::int64_t n) {
  accumulate_kernel<<<blocks_for(n / 4 + 1), threads>>>(c, a, b, n);
  CUDA_CHECK_LAUNCH();
}

void triad(float* a, const float* b, const float* c, float s, std::int64_t n) {
  triad_kernel<<<blocks_for(n / 4 + 1), threads>>>(a, b, c, s, n);
  CUDA_CHECK_LAUNCH();
}

double sum(const float* x, std::int64_t n, double* partial) {
  return reduce(x, nullptr, n, partial);
}

double dot(const float* b, const float* c, std::int64_t n, double* partial) {
  return reduce(b, c, n, partial);
}

}  // namespace acclab::vector::cuda
