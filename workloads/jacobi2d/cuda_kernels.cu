// Jacobi sweep in CUDA, tuned for bandwidth: each thread owns one column of a tile of
// rows_per_thread rows and marches down it, keeping the point above, the point itself and the
// point below in registers, so each point is loaded from memory once per sweep (its left and
// right neighbours come from the neighbouring threads' loads, through L1).
#include "kit/cuda_check.hpp"
#include "kit/cuda_profile.hpp"
#include "workloads/jacobi2d/cuda_kernels.hpp"

namespace acclab::jacobi2d::cuda {
namespace {

constexpr int block_columns = 128;
constexpr int rows_per_thread = 16;

__global__ void sweep_kernel(Coefficients c, const float* __restrict__ in, float* __restrict__ out,
                             unsigned int* change) {
  const int jy = 1 + blockIdx.x * block_columns + threadIdx.x;
  const int row_begin = 1 + blockIdx.y * rows_per_thread;
  const int row_end = min(row_begin + rows_per_thread, c.rows - 1);
  float max_change = 0.0f;
  if (jy < c.cols - 1 && row_begin < row_end) {
    const float* column = in + jy;
    float up = __ldg(column + (row_begin - 1) * c.cols);
    float centre = __ldg(column + row_begin * c.cols);
    for (int ix = row_begin; ix < row_end; ++ix) {
      const int k = ix * c.cols + jy;
      const float down = __ldg(in + k + c.cols);
      const float v =
          (c.c1f + c.wy2 * (up + down) + c.hx2 * (__ldg(in + k - 1) + __ldg(in + k + 1))) * c.c2;
      out[k] = v;
      if (change) max_change = fmaxf(max_change, fabsf(v - centre));
      up = centre;
      centre = down;
    }
  }
  if (change) {
    for (int offset = 16; offset > 0; offset /= 2) {
      max_change = fmaxf(max_change, __shfl_down_sync(0xffffffffu, max_change, offset));
    }
    if (threadIdx.x % 32 == 0) atomicMax(change, __float_as_uint(max_change));
  }
}

}  // namespace

void sweep(const Coefficients& c, const float* in, float* out, unsigned int* change,
           cudaStream_t stream) {
  const dim3 block(block_columns);
  const dim3 grid((c.cols - 2 + block_columns - 1) / block_columns,
                  (c.rows - 2 + rows_per_thread - 1) / rows_per_thread);
  profile::CudaTimer timer(change ? "sweep_kernel (with check)" : "sweep_kernel", grid, block,
                           stream);
  sweep_kernel<<<grid, block, 0, stream>>>(c, in, out, change);
  CUDA_CHECK_LAUNCH();
}

void restore_grids(const float* initial, float* u0, float* u1, std::size_t count,
                   cudaStream_t stream) {
  const std::size_t bytes = count * sizeof(float);
  {
    profile::CudaTimer timer(cudaMemcpyDeviceToDevice, 2 * bytes, stream);
    CUDA_CHECK(cudaMemcpyAsync(u0, initial, bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(u1, initial, bytes, cudaMemcpyDeviceToDevice, stream));
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

}  // namespace acclab::jacobi2d::cuda
