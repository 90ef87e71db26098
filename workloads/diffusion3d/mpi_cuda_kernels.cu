// The kernels of diffusion3d's mpi_cuda step besides the cuda step's own (which steps the box
// inside its shell): a face packed from the box or unpacked into the shell.
#include "kit/cuda_check.hpp"
#include "workloads/diffusion3d/mpi_cuda_kernels.hpp"

namespace acclab::diffusion3d::cuda {
namespace {

constexpr int threads = 256;

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

void pack_face(const float* field, float* faces, FaceCells face, cudaStream_t stream) {
  pack_kernel<<<blocks_for(face.count), threads, 0, stream>>>(field, faces, face);
  CUDA_CHECK_LAUNCH();
}

void unpack_face(float* field, const float* faces, FaceCells face, cudaStream_t stream) {
  unpack_kernel<<<blocks_for(face.count), threads, 0, stream>>>(field, faces, face);
  CUDA_CHECK_LAUNCH();
}

}  // namespace acclab::diffusion3d::cuda
