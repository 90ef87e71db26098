// The kernels of diffusion3d's mpi_cuda step: a box stepped inside its shell, one thread a
// cell (the single-process cuda step's kernel takes the whole grid with its walls on every
// side, not a box whose shell holds the neighbours' cells), and its faces packed and unpacked.
#include "core/cuda_check.hpp"
#include "workloads/diffusion3d/mpi_cuda_kernels.hpp"

namespace acclab::diffusion3d::cuda {
namespace {

constexpr int tile_x = 32, tile_y = 8, threads = 256;

__global__ void step_kernel(Box box, const float* __restrict__ f, float* __restrict__ fn) {
  const int i = blockIdx.x * tile_x + threadIdx.x, j = blockIdx.y * tile_y + threadIdx.y;
  if (i >= box.bx || j >= box.by) return;
  const std::int64_t sy = box.bx + 2, sz = sy * (box.by + 2);
  // The planes strided by the grid's z extent (at most 65535 blocks along z).
  for (int k = blockIdx.z; k < box.bz; k += gridDim.z) {
    const std::int64_t ix = (k + 1) * sz + (j + 1) * sy + i + 1;
    const std::int64_t ip = i == box.bx - 1 && box.walls[1] ? ix : ix + 1;
    const std::int64_t im = i == 0 && box.walls[0] ? ix : ix - 1;
    const std::int64_t jp = j == box.by - 1 && box.walls[3] ? ix : ix + sy;
    const std::int64_t jm = j == 0 && box.walls[2] ? ix : ix - sy;
    const std::int64_t kp = k == box.bz - 1 && box.walls[5] ? ix : ix + sz;
    const std::int64_t km = k == 0 && box.walls[4] ? ix : ix - sz;
    fn[ix] = box.cc * f[ix] + box.ce * f[ip] + box.cw * f[im] + box.cn * f[jp] + box.cs * f[jm] +
             box.ct * f[kp] + box.cb * f[km];
  }
}

__device__ std::int64_t face_index(const FaceCells& face, std::int64_t t) {
  return face.first + (t % face.na) * face.sa + (t / face.na) * face.sb;
}

__global__ void pack_kernel(const float* field, float* faces, FaceCells face) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < face.count) faces[t] = field[face_index(face, t)];
}

__global__ void unpack_kernel(float* field, const float* faces, FaceCells face) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < face.count) field[face_index(face, t)] = faces[t];
}

unsigned blocks_for(std::int64_t count) {
  return static_cast<unsigned>((count + threads - 1) / threads);
}

}  // namespace

void step_box(const Box& box, const float* f, float* fn, cudaStream_t stream) {
  const dim3 block(tile_x, tile_y);
  const dim3 grid((box.bx + tile_x - 1) / tile_x, (box.by + tile_y - 1) / tile_y,
                  box.bz < 65535 ? box.bz : 65535);
  step_kernel<<<grid, block, 0, stream>>>(box, f, fn);
  CUDA_CHECK_LAUNCH();
}

void pack_face(const float* field, float* faces, FaceCells face, cudaStream_t stream) {
  pack_kernel<<<blocks_for(face.count), threads, 0, stream>>>(field, faces, face);
  CUDA_CHECK_LAUNCH();
}

void unpack_face(float* field, const float* faces, FaceCells face, cudaStream_t stream) {
  unpack_kernel<<<blocks_for(face.count), threads, 0, stream>>>(field, faces, face);
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::diffusion3d::cuda
