// The kernels of diffusion3d's mpi_cuda step (mpi_cuda_kernels.cu), queued on `stream`: a step
// of a box inside its one-cell shell, and a face packed from the box or unpacked into the shell.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace acclab::diffusion3d::cuda {

// A box of bx x by x bz cells stored with its shell, x fastest; walls[s] for the sides x-, x+,
// y-, y+, z-, z+ that are the domain's wall (there the missing neighbour is the cell itself).
struct Box {
  int bx, by, bz;
  bool walls[6];
  float cc, ce, cw, cn, cs, ct, cb;
};

// One step of the box from f to fn: the original's expression for every cell.
void step_box(const Box& box, const float* f, float* fn, cudaStream_t stream);

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
