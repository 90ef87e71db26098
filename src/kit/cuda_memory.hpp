// Owning handles for CUDA device memory, streams and events, released however a variant ends. Every
// call goes through CUDA_CHECK. Their copies are timed into the --profile report (a timer costs
// one atomic load when no profile is being taken).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "kit/cuda_check.hpp"
#include "kit/cuda_profile.hpp"

namespace acclab {

// A host-to-device copy that has landed when it returns. From pageable memory cudaMemcpy returns
// once the data is staged, the DMA into the device array possibly still in flight on the legacy
// default stream; the steps' streams are non-blocking (they do not wait for that stream), so a
// kernel or copy queued on one next could read the array before the data is there.
inline void copy_to_device(void* device, const void* host, std::size_t bytes) {
  CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaDeviceSynchronize());
}

// `count` elements of T from cudaMalloc, freed on destruction. Copies are blocking: an upload
// has landed, and a download is on the host, when they return.
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t count) {
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)));
    count_ = count;
  }
  DeviceArray(DeviceArray&& other) noexcept { *this = std::move(other); }
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  ~DeviceArray() {
    if (data_) cudaFree(data_);
  }
  T* get() const { return data_; }
  void upload(const std::vector<T>& host) {
    profile::CudaTimer timer(cudaMemcpyHostToDevice, count_ * sizeof(T), nullptr);
    copy_to_device(data_, host.data(), count_ * sizeof(T));
  }
  void download(std::vector<T>& host) const {
    profile::CudaTimer timer(cudaMemcpyDeviceToHost, count_ * sizeof(T), nullptr);
    CUDA_CHECK(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// A non-blocking stream (it does not wait for the legacy default stream), destroyed with it.
class CudaStream {
 public:
  CudaStream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() { cudaStreamDestroy(stream_); }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// A CUDA event without timing, destroyed with it (created on the current device).
class CudaEvent {
 public:
  CudaEvent() { CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() { cudaEventDestroy(event_); }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace acclab
