#include <mutex>
#include <vector>

#include "kit/cuda_check.hpp"
#include "kit/cuda_profile.hpp"

namespace acclab::profile {
namespace {

// A timing queued on the device, read at the end of the session (or when too many wait).
struct Pending {
  cudaEvent_t start, stop;
  std::string path;
  bool kernel;
  CudaLaunch launch;
  Counter copy;
  std::size_t bytes;
};

std::mutex pending_mutex;
std::vector<Pending> pending;  // guarded by pending_mutex
constexpr std::size_t max_pending = 4096;

// Waits for each timing's stop event and records it; a timing whose events fail is dropped.
void resolve(std::vector<Pending>& timings) {
  for (auto& t : timings) {
    float ms = 0;
    if (cudaEventSynchronize(t.stop) == cudaSuccess &&
        cudaEventElapsedTime(&ms, t.start, t.stop) == cudaSuccess) {
      const double seconds = ms * 1e-3;
      if (t.kernel) {
        record_cuda_kernel_in(t.path, t.launch, seconds);
      } else {
        record_in(t.path, t.copy, seconds, t.bytes);
      }
    }
    cudaEventDestroy(t.start);
    cudaEventDestroy(t.stop);
  }
  timings.clear();
}

}  // namespace

void CudaTimer::begin(cudaStream_t stream) {
  stream_ = stream;
  path_ = current_path();
  CUDA_CHECK(cudaEventCreate(&start_));
  const cudaError_t recorded = cudaEventRecord(start_, stream_);
  if (recorded != cudaSuccess) {
    cudaEventDestroy(start_);  // the constructor throws: no destructor will
    CUDA_CHECK(recorded);
  }
}

void CudaTimer::begin_kernel(const char* name, dim3 grid, dim3 block, cudaStream_t stream) {
  kernel_ = true;
  launch_.kernel = name;
  launch_.grid = {grid.x, grid.y, grid.z};
  launch_.block = {block.x, block.y, block.z};
  begin(stream);
}

void CudaTimer::begin_copy(cudaMemcpyKind kind, std::size_t bytes, cudaStream_t stream) {
  copy_ = kind == cudaMemcpyHostToDevice   ? Counter::cuda_host_to_device
          : kind == cudaMemcpyDeviceToHost ? Counter::cuda_device_to_host
                                           : Counter::cuda_device_to_device;
  bytes_ = bytes;
  begin(stream);
}

void CudaTimer::end() noexcept {
  if (!active()) {  // the session ended while the timed call ran: nothing to record it in
    cudaEventDestroy(start_);
    return;
  }
  cudaEvent_t stop = nullptr;
  if (cudaEventCreate(&stop) != cudaSuccess || cudaEventRecord(stop, stream_) != cudaSuccess) {
    cudaEventDestroy(start_);
    if (stop) cudaEventDestroy(stop);
    return;
  }
  std::vector<Pending> full;
  {
    std::lock_guard lock(pending_mutex);
    pending.push_back({start_, stop, std::move(path_), kernel_, launch_, copy_, bytes_});
    if (pending.size() >= max_pending) full.swap(pending);
  }
  resolve(full);
}

void flush_cuda_timings() {
  std::vector<Pending> timings;
  {
    std::lock_guard lock(pending_mutex);
    timings.swap(pending);
  }
  resolve(timings);
}

}  // namespace acclab::profile
