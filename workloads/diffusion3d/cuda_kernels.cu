// The 7-point step in CUDA, tuned for bandwidth: a 2D block of threads covers an (i, j) tile
// and marches along z through a chunk of planes, each thread keeping the cell below, itself
// and the cell above in registers, so each cell is loaded from memory once per step (plus two
// planes per chunk); the i and j neighbours come from the neighbouring threads' loads through
// L1. Chunks along z give enough blocks to fill the GPU on small grids.
//
// The block shape is chosen at run time among compiled instances (cuda_planes, cuda_tile_y):
// longer chunks re-read fewer halo planes (2 per chunk) but give fewer blocks; taller tiles
// re-read fewer j-neighbour rows (2 per tile_y rows) but give fewer, larger blocks.
#include <stdexcept>
#include <string>

#include "kit/cuda_check.hpp"
#include "workloads/diffusion3d/cuda_kernels.hpp"

namespace acclab::diffusion3d::cuda {
namespace {

constexpr int tile_x = 32;

// A kernel launched as a programmatic dependent of the previous step (BlockShape::
// dependent_launch) may start while that step's last blocks still run: it waits here, before
// its first load, until they have finished and their stores are visible. Without that launch
// attribute the wait returns at once.
__device__ __forceinline__ void wait_for_previous_step() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// `planes` == 0: one chunk of all nz planes.
template <int tile_y, int planes>
__global__ void __launch_bounds__(tile_x* tile_y)
    step_kernel(Coefficients c, const float* __restrict__ f, float* __restrict__ fn) {
  wait_for_previous_step();
  const int i = blockIdx.x * tile_x + threadIdx.x;
  const int j = blockIdx.y * tile_y + threadIdx.y;
  if (i >= c.nx || j >= c.ny) return;
  const int plane = c.plane;
  const int chunk = planes == 0 ? c.nz : planes;
  const int k_begin = blockIdx.z * chunk;
  const int k_end = min(k_begin + chunk, c.nz);
  // Zero-flux walls: a missing neighbour is the cell itself (open sides read across). The
  // offsets are selected, not branched on, so that the unrolled z loop is straight-line code
  // whose loads can be issued ahead of the previous planes' arithmetic.
  const int di_plus = i == c.nx - 1 && !(c.open & open_east) ? 0 : 1;
  const int di_minus = i == 0 && !(c.open & open_west) ? 0 : 1;
  const int dj_plus = j == c.ny - 1 && !(c.open & open_north) ? 0 : c.pitch;
  const int dj_minus = j == 0 && !(c.open & open_south) ? 0 : c.pitch;
  const int column = c.base + j * c.pitch + i;
  float centre = __ldg(f + k_begin * plane + column);
  float below =
      __ldg(f + (k_begin == 0 && !(c.open & open_below) ? 0 : k_begin - 1) * plane + column);
#pragma unroll 4
  for (int k = k_begin; k < k_end; ++k) {
    const int ix = k * plane + column;  // never past the field: no int overflow
    const int dk_plus = k == c.nz - 1 && !(c.open & open_above) ? 0 : plane;
    const float above = __ldg(f + ix + dk_plus);
    fn[ix] = c.cc * centre + c.ce * __ldg(f + ix + di_plus) + c.cw * __ldg(f + ix - di_minus) +
             c.cn * __ldg(f + ix + dj_plus) + c.cs * __ldg(f + ix - dj_minus) + c.ct * above +
             c.cb * below;
    below = centre;
    centre = above;
  }
}

// The same march with four consecutive cells along x per thread, loaded and stored as float4
// (nx, pitch and base multiples of 4, so that every row starts 16-byte aligned): four times the
// bytes in flight per load instruction. The x neighbours inside the four come from registers; the
// two outside them are scalar loads, from L1.
template <int tile_y, int planes>
__global__ void __launch_bounds__(tile_x* tile_y)
    step_kernel_x4(Coefficients c, const float* __restrict__ f, float* __restrict__ fn) {
  wait_for_previous_step();
  const int i = (blockIdx.x * tile_x + threadIdx.x) * 4;
  const int j = blockIdx.y * tile_y + threadIdx.y;
  if (i >= c.nx || j >= c.ny) return;
  const float4* __restrict__ f4 = reinterpret_cast<const float4*>(f);
  float4* __restrict__ fn4 = reinterpret_cast<float4*>(fn);
  const int plane = c.plane / 4;  // in float4s
  const int chunk = planes == 0 ? c.nz : planes;
  const int k_begin = blockIdx.z * chunk;
  const int k_end = min(k_begin + chunk, c.nz);
  const bool west_wall = i == 0 && !(c.open & open_west),
             east_wall = i + 4 == c.nx && !(c.open & open_east);
  const int dj_plus = j == c.ny - 1 && !(c.open & open_north) ? 0 : c.pitch / 4;
  const int dj_minus = j == 0 && !(c.open & open_south) ? 0 : c.pitch / 4;
  const int column = (c.base + j * c.pitch + i) / 4;
  float4 centre = __ldg(f4 + k_begin * plane + column);
  float4 below =
      __ldg(f4 + (k_begin == 0 && !(c.open & open_below) ? 0 : k_begin - 1) * plane + column);
#pragma unroll 2
  for (int k = k_begin; k < k_end; ++k) {
    const int ix = k * plane + column;
    const int dk_plus = k == c.nz - 1 && !(c.open & open_above) ? 0 : plane;
    const float4 above = __ldg(f4 + ix + dk_plus);
    const float4 north = __ldg(f4 + ix + dj_plus), south = __ldg(f4 + ix - dj_minus);
    const float west = west_wall ? centre.x : __ldg(f + 4 * ix - 1);
    const float east = east_wall ? centre.w : __ldg(f + 4 * ix + 4);
    float4 out;
    out.x = c.cc * centre.x + c.ce * centre.y + c.cw * west + c.cn * north.x + c.cs * south.x +
            c.ct * above.x + c.cb * below.x;
    out.y = c.cc * centre.y + c.ce * centre.z + c.cw * centre.x + c.cn * north.y + c.cs * south.y +
            c.ct * above.y + c.cb * below.y;
    out.z = c.cc * centre.z + c.ce * centre.w + c.cw * centre.y + c.cn * north.z + c.cs * south.z +
            c.ct * above.z + c.cb * below.z;
    out.w = c.cc * centre.w + c.ce * east + c.cw * centre.z + c.cn * north.w + c.cs * south.w +
            c.ct * above.w + c.cb * below.w;
    fn4[ix] = out;
    below = centre;
    centre = above;
  }
}

template <int tile_y, int planes>
void launch(const Coefficients& c, bool x4, bool dependent_launch, const float* f, float* fn,
            cudaStream_t stream) {
  const int chunk = planes == 0 ? c.nz : planes;
  const dim3 block(tile_x, tile_y);
  const int columns = x4 ? c.nx / 4 : c.nx;
  const dim3 grid((columns + tile_x - 1) / tile_x, (c.ny + tile_y - 1) / tile_y,
                  (c.nz + chunk - 1) / chunk);
  if (dependent_launch) {  // Hopper's programmatic dependent launch: no wait between steps
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.stream = stream;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    if (x4) {
      CUDA_CHECK(cudaLaunchKernelEx(&config, step_kernel_x4<tile_y, planes>, c, f, fn));
    } else {
      CUDA_CHECK(cudaLaunchKernelEx(&config, step_kernel<tile_y, planes>, c, f, fn));
    }
  } else if (x4) {
    step_kernel_x4<tile_y, planes><<<grid, block, 0, stream>>>(c, f, fn);
  } else {
    step_kernel<tile_y, planes><<<grid, block, 0, stream>>>(c, f, fn);
  }
  CUDA_CHECK_LAUNCH();
}

template <int tile_y>
void launch_planes(const Coefficients& c, int planes, bool x4, bool dependent_launch,
                   const float* f, float* fn, cudaStream_t stream) {
  switch (planes) {
    case 0:
      return launch<tile_y, 0>(c, x4, dependent_launch, f, fn, stream);
    case 4:
      return launch<tile_y, 4>(c, x4, dependent_launch, f, fn, stream);
    case 8:
      return launch<tile_y, 8>(c, x4, dependent_launch, f, fn, stream);
    case 16:
      return launch<tile_y, 16>(c, x4, dependent_launch, f, fn, stream);
    case 32:
      return launch<tile_y, 32>(c, x4, dependent_launch, f, fn, stream);
    case 64:
      return launch<tile_y, 64>(c, x4, dependent_launch, f, fn, stream);
  }
  throw std::invalid_argument("diffusion3d cuda: no kernel compiled for cuda_planes=" +
                              std::to_string(planes));
}

}  // namespace

bool dependent_launch_available() {
  int device = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

void step(const Coefficients& given, const BlockShape& shape, const float* f, float* fn,
          cudaStream_t stream) {
  Coefficients c = given;
  if (c.pitch == 0) {  // the whole grid, packed
    c.pitch = c.nx;
    c.plane = c.nx * c.ny;
  }
  const bool x4 = shape.x4 && c.nx % 4 == 0 && c.pitch % 4 == 0 && c.base % 4 == 0;
  switch (shape.tile_y) {
    case 4:
      return launch_planes<4>(c, shape.planes, x4, shape.dependent_launch, f, fn, stream);
    case 8:
      return launch_planes<8>(c, shape.planes, x4, shape.dependent_launch, f, fn, stream);
    case 16:
      return launch_planes<16>(c, shape.planes, x4, shape.dependent_launch, f, fn, stream);
  }
  throw std::invalid_argument("diffusion3d cuda: no kernel compiled for cuda_tile_y=" +
                              std::to_string(shape.tile_y));
}

}  // namespace acclab::diffusion3d::cuda
