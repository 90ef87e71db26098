// iccg's CUDA kernels (cuda_kernels.hpp): one thread a row, the colour slabs read slot by slot
// (consecutive threads, consecutive addresses), dot products as block sums added atomically
// into the iteration's scalar (the order of the additions varies from run to run, so the last
// bits of a residual may too, and with them, rarely, the iteration count by one).
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kit/cuda_check.hpp"
#include "workloads/iccg/cuda_kernels.hpp"

namespace acclab::iccg::cuda {
namespace {

// Threads a block of the set-up kernels and of the cusparse step's; the iteration's kernels take
// theirs from the step's tunings (Blocks).
constexpr int block = 256;

int blocks_for(std::int64_t rows, int threads = block) {
  return int((rows + threads - 1) / threads);
}

// `kernel` on `blocks` blocks; with `overlap`, as a programmatic dependent launch (Hopper): its
// blocks may start while the previous kernel in the stream finishes, and wait for it in
// wait_for_previous_kernel().
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), int blocks, int threads, bool overlap, cudaStream_t stream,
            Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(unsigned(blocks));
  config.blockDim = dim3(unsigned(threads));
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = overlap ? 1 : 0;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// Lets the next kernel's blocks start (they run up to their own wait), then waits until the
// previous kernel has completed and its writes are visible. Everything a kernel does before
// this call must read only what no kernel of an iterate() batch writes (the matrix, and w,
// which factor() wrote in plain launches before).
__device__ void wait_for_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
#endif
}

// Couplings a sweep thread holds in registers, loaded before it waits for the previous kernel.
constexpr int held_slots = 8;

// The block's sum of `value` added to *total (one atomic per block of Block threads).
template <int Block = block>
__device__ void add_block_sum(double value, double* total) {
  static_assert(Block % 32 == 0 && Block <= 1024);
  __shared__ double warp_sums[Block / 32];
  for (int offset = 16; offset > 0; offset /= 2) {
    value += __shfl_down_sync(0xffffffffu, value, offset);
  }
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x < 32) {
    value = threadIdx.x < Block / 32 ? warp_sums[threadIdx.x] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2) {
      value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    if (threadIdx.x == 0) atomicAdd(total, value);
  }
}

// The iteration a kernel of a batch belongs to, or 0 when it has nothing to do.
__device__ int active_iteration(const Scalars& k, int offset) {
  const int it = *k.iteration + offset;
  return it > k.max_iterations || k.rr[it - 1] < k.tol2 ? 0 : it;
}

// One colour's rows: the row's lower (or upper) couplings, slot s of row k at base + s*rows + k.
struct ColorRows {
  std::int64_t first, rows, base;
  int width;
};

__global__ void factor_kernel(ColorRows c, const std::int32_t* __restrict__ column,
                              const double* __restrict__ value, const double* __restrict__ diagonal,
                              double factor_scale, double* w) {
  const std::int64_t k = blockIdx.x * std::int64_t(block) + threadIdx.x;
  if (k >= c.rows) return;
  double v = factor_scale * diagonal[c.first + k];
  for (int s = 0; s < c.width; ++s) {
    const double a = value[c.base + s * c.rows + k];
    v -= a * a * w[column[c.base + s * c.rows + k]];
  }
  w[c.first + k] = 1.0 / v;
}

__global__ void start_kernel(std::int64_t n, const double* __restrict__ b, double* x, double* r,
                             double* z, double* p0, double* p1) {
  const std::int64_t i = blockIdx.x * std::int64_t(block) + threadIdx.x;
  if (i >= n) return;
  x[i] = 0.0;
  r[i] = b[i];
  z[i] = 0.0;
  p0[i] = 0.0;
  p1[i] = 0.0;
}

// One row's couplings in a colour slab, the first held_slots of them in registers: loaded before
// the kernel waits for the previous one (they are the matrix, which no kernel writes).
struct HeldRow {
  std::int32_t col[held_slots];
  double val[held_slots];

  __device__ void load(const ColorRows& c, const std::int32_t* __restrict__ column,
                       const double* __restrict__ value, std::int64_t row, bool in) {
#pragma unroll
    for (int s = 0; s < held_slots; ++s) {
      const bool held = in && s < c.width;
      col[s] = held ? column[c.base + s * c.rows + row] : 0;
      val[s] = held ? value[c.base + s * c.rows + row] : 0.0;
    }
  }
  // v plus (or, with Subtract, minus) each coupling times z at its column, slot by slot.
  template <bool Subtract>
  __device__ double apply(double v, const ColorRows& c, const std::int32_t* __restrict__ column,
                          const double* __restrict__ value, const double* z,
                          std::int64_t row) const {
#pragma unroll
    for (int s = 0; s < held_slots; ++s) v += (Subtract ? -val[s] : val[s]) * z[col[s]];
    for (int s = held_slots; s < c.width; ++s) {
      const double a = value[c.base + s * c.rows + row];
      v += (Subtract ? -a : a) * z[column[c.base + s * c.rows + row]];
    }
    return v;
  }
};

// z = (r - L z) w on one colour. The row's couplings and w are loaded before the wait.
template <int Block>
__global__ void forward_kernel(ColorRows c, const std::int32_t* __restrict__ column,
                               const double* __restrict__ value, const double* __restrict__ w,
                               const double* __restrict__ r, double* z, Scalars k, int offset) {
  const std::int64_t row = blockIdx.x * std::int64_t(Block) + threadIdx.x;
  const bool in = row < c.rows;
  HeldRow held;
  held.load(c, column, value, row, in);
  const double wi = in ? w[c.first + row] : 0.0;
  wait_for_previous_kernel();
  if (!active_iteration(k, offset) || !in) return;
  const double v = held.apply<true>(r[c.first + row], c, column, value, z, row);
  z[c.first + row] = v * wi;
}

// z -= w U z on one colour, and r.z's share added to rho[it]. Couplings loaded before the wait.
template <int Block>
__global__ void backward_kernel(ColorRows c, const std::int32_t* __restrict__ column,
                                const double* __restrict__ value, const double* __restrict__ w,
                                const double* __restrict__ r, double* z, Scalars k, int offset) {
  const std::int64_t row = blockIdx.x * std::int64_t(Block) + threadIdx.x;
  const bool in = row < c.rows;
  HeldRow held;
  held.load(c, column, value, row, in);
  const double wi = in ? w[c.first + row] : 0.0;
  wait_for_previous_kernel();
  const int it = active_iteration(k, offset);
  if (!it) return;
  double rz = 0;
  if (in) {
    const double v = held.apply<false>(0.0, c, column, value, z, row);
    const double zi = z[c.first + row] - wi * v;
    z[c.first + row] = zi;
    rz = r[c.first + row] * zi;
  }
  add_block_sum<Block>(rz, &k.rho[it]);
}

// What the product reads: the whole matrix, its per-colour offsets on the device.
struct Matrix {
  std::int64_t n;
  int colors;
  int top_step;  // the largest power of two below colors
  const std::int64_t *color_start_d, *lower_start_d, *upper_start_d;
  const int *lower_width_d, *upper_width_d;
  const std::int32_t *lower_column, *upper_column;
  const double *lower_value, *upper_value, *diagonal, *z;
  double* q;
};

// p = z + beta p_old and q = A p over all rows (a neighbour's p computed from its z and old p),
// and p.q's share added to pq[it].
template <int Block>
__global__ void product_kernel(Matrix s, const double* __restrict__ p_old, double* p_new, Scalars k,
                               int offset) {
  wait_for_previous_kernel();
  const int it = active_iteration(k, offset);
  if (!it) return;
  const double beta = it == 1 ? 0.0 : k.rho[it] / k.rho[it - 1];
  const std::int64_t i = blockIdx.x * std::int64_t(Block) + threadIdx.x;
  double pq = 0;
  if (i < s.n) {
    int c = 0;  // the row's colour: the last whose first row is <= i
    for (int step = s.top_step; step > 0; step /= 2) {
      if (c + step < s.colors && s.color_start_d[c + step] <= i) c += step;
    }
    const std::int64_t rows = s.color_start_d[c + 1] - s.color_start_d[c];
    const std::int64_t row = i - s.color_start_d[c];
    const double pi = s.z[i] + beta * p_old[i];
    double v = s.diagonal[i] * pi;
    const std::int64_t lower = s.lower_start_d[c], upper = s.upper_start_d[c];
    for (int slot = 0; slot < s.lower_width_d[c]; ++slot) {
      const std::int64_t e = lower + slot * rows + row;
      const std::int32_t j = s.lower_column[e];
      v += s.lower_value[e] * (s.z[j] + beta * p_old[j]);
    }
    for (int slot = 0; slot < s.upper_width_d[c]; ++slot) {
      const std::int64_t e = upper + slot * rows + row;
      const std::int32_t j = s.upper_column[e];
      v += s.upper_value[e] * (s.z[j] + beta * p_old[j]);
    }
    p_new[i] = pi;
    s.q[i] = v;
    pq = pi * v;
  }
  add_block_sum<Block>(pq, &k.pq[it]);
}

// x += alpha p, r -= alpha q, and r.r's share added to rr[it].
template <int Block>
__global__ void update_kernel(std::int64_t n, const double* __restrict__ p,
                              const double* __restrict__ q, double* x, double* r, Scalars k,
                              int offset) {
  wait_for_previous_kernel();
  const int it = active_iteration(k, offset);
  if (!it) return;
  // p != 0 while r is not yet 0, so p . A p <= 0 proves A indefinite: stop there as solve_iccg
  // does, telling the host by an r.r no sum of squares gives (a NaN or -inf p.q is left to the
  // residual's not-finite check). Every block reads the same p.q, so none adds to rr[it].
  const double pq = k.pq[it];
  if (pq <= 0 && pq > -INFINITY) {
    if (blockIdx.x == 0 && threadIdx.x == 0) k.rr[it] = indefinite_rr;
    return;
  }
  const double alpha = k.rho[it] / pq;
  const std::int64_t i = blockIdx.x * std::int64_t(Block) + threadIdx.x;
  double rr = 0;
  if (i < n) {
    x[i] += alpha * p[i];
    const double ri = r[i] - alpha * q[i];
    r[i] = ri;
    rr = ri * ri;
  }
  add_block_sum<Block>(rr, &k.rr[it]);
}

__global__ void advance_kernel(int* iteration, int count) {
  wait_for_previous_kernel();
  if (blockIdx.x == 0 && threadIdx.x == 0) *iteration += count;  // once, not once a thread
}

__global__ void dot_kernel(std::int64_t n, const double* __restrict__ x,
                           const double* __restrict__ y, double* result) {
  const std::int64_t i = blockIdx.x * std::int64_t(block) + threadIdx.x;
  add_block_sum(i < n ? x[i] * y[i] : 0.0, result);
}

__global__ void xpay_kernel(std::int64_t n, const double* __restrict__ z, double beta, double* p) {
  const std::int64_t i = blockIdx.x * std::int64_t(block) + threadIdx.x;
  if (i < n) p[i] = z[i] + beta * p[i];
}

__global__ void update_host_scalar_kernel(std::int64_t n, double alpha,
                                          const double* __restrict__ p,
                                          const double* __restrict__ q, double* x, double* r) {
  const std::int64_t i = blockIdx.x * std::int64_t(block) + threadIdx.x;
  if (i >= n) return;
  x[i] += alpha * p[i];
  r[i] -= alpha * q[i];
}

ColorRows lower_rows(const Slabs& s, int c) {
  return {s.color_start[c], s.color_start[c + 1] - s.color_start[c], s.lower_start[c],
          s.lower_width[c]};
}

ColorRows upper_rows(const Slabs& s, int c) {
  return {s.color_start[c], s.color_start[c + 1] - s.color_start[c], s.upper_start[c],
          s.upper_width[c]};
}

}  // namespace

void factor(const Slabs& s, cudaStream_t stream) {
  for (int c = 0; c < s.colors; ++c) {
    const ColorRows rows = lower_rows(s, c);
    if (rows.rows == 0) continue;
    factor_kernel<<<blocks_for(rows.rows), block, 0, stream>>>(rows, s.lower_column, s.lower_value,
                                                               s.diagonal, s.factor_scale, s.w);
    CUDA_CHECK_LAUNCH();
  }
}

void start(const Slabs& s, cudaStream_t stream) {
  start_kernel<<<blocks_for(s.n), block, 0, stream>>>(s.n, s.b, s.x, s.r, s.z, s.p[0], s.p[1]);
  CUDA_CHECK_LAUNCH();
}

// Calls call(std::integral_constant<int, threads>) for a block size the kernels are compiled for.
template <typename Call>
void with_block(int threads, Call call) {
  switch (threads) {
    case 64:
      return call(std::integral_constant<int, 64>{});
    case 128:
      return call(std::integral_constant<int, 128>{});
    case 256:
      return call(std::integral_constant<int, 256>{});
    case 512:
      return call(std::integral_constant<int, 512>{});
    case 1024:
      return call(std::integral_constant<int, 1024>{});
  }
  throw std::invalid_argument("iccg cuda: no kernels compiled for blocks of " +
                              std::to_string(threads) + " threads");
}

void iterate(const Slabs& s, const Scalars& k, int count, bool overlap, const Blocks& blocks,
             cudaStream_t stream) {
  int top_step = 1;
  while (2 * top_step < s.colors) top_step *= 2;
  const Matrix m{s.n,
                 s.colors,
                 top_step,
                 s.color_start_d,
                 s.lower_start_d,
                 s.upper_start_d,
                 s.lower_width_d,
                 s.upper_width_d,
                 s.lower_column,
                 s.upper_column,
                 s.lower_value,
                 s.upper_value,
                 s.diagonal,
                 s.z,
                 s.q};
  for (int offset = 1; offset <= count; ++offset) {
    for (int c = 0; c < s.colors; ++c) {
      const ColorRows rows = lower_rows(s, c);
      if (rows.rows == 0) continue;
      with_block(blocks.sweep, [&](auto block_size) {
        constexpr int threads = decltype(block_size)::value;
        launch(forward_kernel<threads>, blocks_for(rows.rows, threads), threads, overlap, stream,
               rows, s.lower_column, s.lower_value, s.w, s.r, s.z, k, offset);
      });
    }
    for (int c = s.colors - 1; c >= 0; --c) {
      const ColorRows rows = upper_rows(s, c);
      if (rows.rows == 0) continue;
      with_block(blocks.sweep, [&](auto block_size) {
        constexpr int threads = decltype(block_size)::value;
        launch(backward_kernel<threads>, blocks_for(rows.rows, threads), threads, overlap, stream,
               rows, s.upper_column, s.upper_value, s.w, s.r, s.z, k, offset);
      });
    }
    // Iteration it writes p[it % 2] from p[1 - it % 2]; `offset` has its parity (count even).
    double* p_new = s.p[offset % 2];
    const double* p_old = s.p[1 - offset % 2];
    with_block(blocks.vector, [&](auto block_size) {
      constexpr int threads = decltype(block_size)::value;
      launch(product_kernel<threads>, blocks_for(s.n, threads), threads, overlap, stream, m, p_old,
             p_new, k, offset);
      launch(update_kernel<threads>, blocks_for(s.n, threads), threads, overlap, stream, s.n, p_new,
             s.q, s.x, s.r, k, offset);
    });
  }
  launch(advance_kernel, 1, block, overlap, stream, k.iteration, count);
}

bool overlap_supported() {
  // The wait is compiled only for sm_90 and later: code built for an older architecture and
  // run on Hopper from its PTX would launch dependent kernels that never wait.
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, forward_kernel<block>));
  return attributes.ptxVersion >= 90;
}

void dot(std::int64_t n, const double* x, const double* y, double* result, cudaStream_t stream) {
  dot_kernel<<<blocks_for(n), block, 0, stream>>>(n, x, y, result);
  CUDA_CHECK_LAUNCH();
}

void xpay(std::int64_t n, const double* z, double beta, double* p, cudaStream_t stream) {
  xpay_kernel<<<blocks_for(n), block, 0, stream>>>(n, z, beta, p);
  CUDA_CHECK_LAUNCH();
}

void update(std::int64_t n, double alpha, const double* p, const double* q, double* x, double* r,
            cudaStream_t stream) {
  update_host_scalar_kernel<<<blocks_for(n), block, 0, stream>>>(n, alpha, p, q, x, r);
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::iccg::cuda
