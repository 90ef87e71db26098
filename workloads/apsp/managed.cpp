// The seed's `managed` build: the matrix in CUDA managed memory (cudaMallocManaged), used by the
// OpenACC kernel through `deviceptr`; the driver migrates its pages to the GPU at the first step
// of each run and back when the host reads the result. Without a CUDA GPU the same kernel runs
// on the host over ordinary memory (OpenACC's host fallback), so CI checks it.
#include <fmt/format.h>

#include <cstring>
#include <stdexcept>

#include "core/error.hpp"
#include "core/machine.hpp"
#include "workloads/apsp/acc_kernels.hpp"
#ifdef ACCLAB_HAVE_CUDA
#include <cuda_runtime.h>

#include "kit/cuda_check.hpp"
#endif

namespace acclab::apsp {
namespace {

class Managed : public ApspInstance {
 public:
  explicit Managed(const Params& params)
      : ApspInstance(params), columns_(acc::lane_columns(params)) {}
  ~Managed() override {
#ifdef ACCLAB_HAVE_CUDA
    if (managed_) cudaFree(managed_);
#endif
  }
  void setup() override {
    ApspInstance::setup();
#ifdef ACCLAB_HAVE_CUDA
    if (cuda_gpu_count() > 0) {
      const std::size_t bytes = sizeof(float) * std::size_t(p_.elements());
      // Managed memory may oversubscribe the device; the seed's lesson is about migration,
      // not paging, so refuse a matrix the device cannot hold.
      std::size_t free = 0, total = 0;
      CUDA_CHECK(cudaMemGetInfo(&free, &total));
      if (bytes > free) {
        throw UsageError(fmt::format("apsp/managed with n={}: {:.2f} GiB of managed memory, {:.2f} "
                                     "GiB free on the device",
                                     p_.n, bytes / 1073741824.0, free / 1073741824.0));
      }
      CUDA_CHECK(cudaMallocManaged(reinterpret_cast<void**>(&managed_), bytes));
      matrix_ = managed_;
      return;
    }
#endif
    host_.resize(std::size_t(p_.elements()));
    matrix_ = host_.data();
  }
  // The initial matrix written by the host: its pages start each run on the host.
  void reset() override {
    std::memcpy(matrix_, initial_.data(), sizeof(float) * initial_.size());
  }
  void run() override {
    for (int k = 0; k < p_.n; ++k) acc::relax_deviceptr(p_, columns_, matrix_, k);
  }
  void finish() override {
    std::memcpy(d_.data(), matrix_, sizeof(float) * d_.size());
  }

 private:
  int columns_;  // columns a lane relaxes an iteration (the unroll knob)
  float* managed_ = nullptr;
  std::vector<float> host_;
  float* matrix_ = nullptr;
};

}  // namespace

std::unique_ptr<Instance> make_managed(const Params& params) {
  return std::make_unique<Managed>(params);
}

}  // namespace acclab::apsp
