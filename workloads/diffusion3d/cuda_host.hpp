// The cuda step's knobs, declared and checked in cuda_host.cpp; mpi_cuda runs the same kernel
// with the same knobs.
#pragma once

#include <cstdint>

#include "core/params.hpp"

namespace acclab::diffusion3d {

struct CudaTunings {
  // The block shape (cuda::BlockShape), one of the compiled ones once checked.
  std::int64_t planes = 4, tile_y = 4;
  bool x4 = true;   // four cells per thread where nx % 4 == 0
  bool pdl = true;  // programmatic dependent launch where there is one
};
const StepTunings<CudaTunings>& cuda_tunings();

}  // namespace acclab::diffusion3d
