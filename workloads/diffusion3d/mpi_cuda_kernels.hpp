// The kernels of diffusion3d's mpi_cuda step (mpi_cuda_kernels.cu) besides the cuda step's,
// queued on `stream`: a face packed from the box or unpacked into the shell.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace acclab::diffusion3d::cuda {

// One face of the box: `count` cells, na along its first direction (stride sa) times
// count / na along its second (stride sb), from field index `first` on.
struct FaceCells {
  std::int64_t count, na, sa, sb, first;
};
// faces[0:count) = the face's cells of `field`.
void pack_face(const float* field, float* faces, FaceCells face, cudaStream_t stream);
// The face's cells of `field` = faces[0:count).
void unpack_face(float* field, const float* faces, FaceCells face, cudaStream_t stream);

}  // namespace acclab::diffusion3d::cuda
