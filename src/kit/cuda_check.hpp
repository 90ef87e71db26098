// CUDA_CHECK(expr): every CUDA runtime call goes through it; a failure throws with the call,
// file and line.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace acclab {

[[noreturn]] inline void cuda_fail(cudaError_t status, const char* call, const char* file,
                                   int line) {
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) +
                           ": " + cudaGetErrorString(status));
}

}  // namespace acclab

#define CUDA_CHECK(expr)                                              \
  do {                                                                \
    cudaError_t acclab_status_ = (expr);                              \
    if (acclab_status_ != cudaSuccess) {                              \
      ::acclab::cuda_fail(acclab_status_, #expr, __FILE__, __LINE__); \
    }                                                                 \
  } while (0)

// After a kernel launch: the launch's own error, not a later one.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
