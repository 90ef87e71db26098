// The CUDA side of --profile: a scoped timer that brackets kernel launches or copies queued on a
// stream with two CUDA events and records the device time between them in the current region
// (core/profile.hpp). The events are read when the profile session ends, so a timer never makes
// the host wait. Without an open session a timer costs one relaxed atomic load. Include it only
// from sources built with the CUDA toolkit.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/profile.hpp"

namespace acclab::profile {

class CudaTimer {
 public:
  // The launches of kernel `name` with this shape, queued on `stream` while the timer lives.
  CudaTimer(const char* name, dim3 grid, dim3 block, cudaStream_t stream) {
    if (active()) begin_kernel(name, grid, block, stream);
  }
  // A copy of `bytes` of this kind queued on `stream` while the timer lives.
  CudaTimer(cudaMemcpyKind kind, std::size_t bytes, cudaStream_t stream) {
    if (active()) begin_copy(kind, bytes, stream);
  }
  CudaTimer(const CudaTimer&) = delete;
  CudaTimer& operator=(const CudaTimer&) = delete;
  ~CudaTimer() {
    if (start_) end();
  }

 private:
  void begin_kernel(const char* name, dim3 grid, dim3 block, cudaStream_t stream);
  void begin_copy(cudaMemcpyKind kind, std::size_t bytes, cudaStream_t stream);
  void begin(cudaStream_t stream);
  void end() noexcept;

  cudaEvent_t start_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::string path_;
  bool kernel_ = false;
  CudaLaunch launch_;
  Counter copy_ = Counter::cuda_host_to_device;
  std::size_t bytes_ = 0;
};

}  // namespace acclab::profile
