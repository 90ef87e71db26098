// CUDA runtime queries and the device copy-bandwidth probe.
#include <algorithm>
#include <vector>

#include "kit/cuda_check.hpp"
#include "core/machine.hpp"

namespace acclab {

int cuda_gpu_count() {
  int count = 0;
  // No driver or no device: report none rather than fail.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

std::vector<DeviceInfo> cuda_gpus() {
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < cuda_gpu_count(); ++i) {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, i));
    CUDA_CHECK(cudaSetDevice(i));
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    DeviceInfo info;
    info.index = i;
    info.api = "cuda";
    info.name = prop.name;
    info.memory_bytes = static_cast<double>(total_bytes);
    info.free_bytes = static_cast<double>(free_bytes);
    info.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    info.multiprocessors = prop.multiProcessorCount;
    // cudaDeviceProp lost clockRate in CUDA 13; the attribute remains (kHz, the peak clock).
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, i));
    info.clock_khz = clock_khz;
    devices.push_back(info);
  }
  if (!devices.empty()) CUDA_CHECK(cudaSetDevice(0));
  return devices;
}

int cuda_multiprocessors(int device) {
  int count = 0;
  if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

void cuda_make_primary_context_current() {
  if (cuda_gpu_count() == 0) return;
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(nullptr));  // creates the primary context now, not at the next call
}

namespace {

// The probe's buffers and events, released however the probe ends.
struct CopyProbe {
  void* source = nullptr;
  void* target = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ~CopyProbe() {
    if (source) cudaFree(source);
    if (target) cudaFree(target);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

}  // namespace

double cuda_device_copy_gbps() {
  const size_t bytes = size_t(1) << 30;  // 1 GiB per buffer, far beyond the 60 MB L2
  CopyProbe probe;
  CUDA_CHECK(cudaMalloc(&probe.source, bytes));
  CUDA_CHECK(cudaMalloc(&probe.target, bytes));
  CUDA_CHECK(cudaMemset(probe.source, 1, bytes));
  CUDA_CHECK(cudaEventCreate(&probe.start));
  CUDA_CHECK(cudaEventCreate(&probe.stop));
  float best_ms = 1e30f;
  for (int rep = 0; rep < 6; ++rep) {
    CUDA_CHECK(cudaEventRecord(probe.start));
    CUDA_CHECK(cudaMemcpy(probe.target, probe.source, bytes, cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaEventRecord(probe.stop));
    CUDA_CHECK(cudaEventSynchronize(probe.stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, probe.start, probe.stop));
    if (rep > 0) best_ms = std::min(best_ms, ms);
  }
  // Every byte is read once and written once.
  return 2.0 * bytes / (best_ms * 1e-3) / 1e9;
}

}  // namespace acclab
