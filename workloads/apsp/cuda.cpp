// cuda_blocked's host side: the matrix resident on the device (uploaded in setup, restored by
// a device copy in reset, brought back in finish); all rounds queued on one stream.
#include <cuda_runtime.h>

#include <memory>

#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "workloads/apsp/apsp.hpp"
#include "workloads/apsp/cuda_kernels.hpp"

namespace acclab::apsp {
namespace {

class CudaBlocked : public ApspInstance {
 public:
  using ApspInstance::ApspInstance;
  void setup() override {
    ApspInstance::setup();
    const auto count = static_cast<std::size_t>(p_.elements());
    stream_ = std::make_unique<CudaStream>();
    initial_dev_ = DeviceArray<float>(count);
    d_dev_ = DeviceArray<float>(count);
    history_ = DeviceArray<float>(std::size_t(p_.n) * cuda::pivot);
    snapshot_ = DeviceArray<float>(std::size_t(p_.n) * cuda::pivot);
    initial_dev_.upload(initial_);
  }
  void reset() override {
    CUDA_CHECK(cudaMemcpyAsync(d_dev_.get(), initial_dev_.get(), sizeof(float) * p_.elements(),
                               cudaMemcpyDeviceToDevice, stream_->get()));
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }
  void run() override {
    cuda::floyd_warshall_blocked(p_.n, p_.semiring == Semiring::max_plus, d_dev_.get(),
                                 history_.get(), snapshot_.get(), stream_->get());
    CUDA_CHECK(cudaStreamSynchronize(stream_->get()));
  }
  void finish() override { d_dev_.download(d_); }

 private:
  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> initial_dev_, d_dev_, history_, snapshot_;
};

}  // namespace

std::unique_ptr<Instance> make_cuda_blocked(const Params& params) {
  return std::make_unique<CudaBlocked>(params);
}

}  // namespace acclab::apsp
