// diffusion3d in hand-written CUDA, fields resident on the device (copied in at setup, the
// result back in finish), the steps queued on one stream with no wait until the end, each
// launched as a programmatic dependent of the one before (cuda_pdl, on compute capability 9.0
// and up); the block shape from cuda_planes and cuda_tile_y (cuda_kernels.cu).
#include <cuda_runtime.h>

#include <memory>

#include "core/cuda_check.hpp"
#include "core/cuda_memory.hpp"
#include "workloads/diffusion3d/cuda_kernels.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

class Cuda : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  void setup() override {
    DiffusionInstance::setup();
    const auto n = static_cast<std::size_t>(p_.points());
    stream_ = std::make_unique<CudaStream>();
    init_ = DeviceArray<float>(n);
    f_dev_ = DeviceArray<float>(n);
    fn_dev_ = DeviceArray<float>(n);
    init_.upload(initial_);
    dependent_launch_ = p_.cuda_pdl && cuda::dependent_launch_available();
    extra_outputs_["dependent_launch"] = int(dependent_launch_);
  }
  void reset() override {
    const size_t bytes = p_.points() * sizeof(float);
    const cudaStream_t stream = stream_->get();
    CUDA_CHECK(cudaMemcpyAsync(f_dev_.get(), init_.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(fn_dev_.get(), init_.get(), bytes, cudaMemcpyDeviceToDevice, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  void run() override {
    const cuda::Coefficients c = cuda::coefficients_of(
        p_, static_cast<int>(p_.nx), static_cast<int>(p_.ny), static_cast<int>(p_.nz));
    const cuda::BlockShape shape{p_.cuda_planes, p_.cuda_tile_y, p_.cuda_x4, dependent_launch_};
    const cudaStream_t stream = stream_->get();
    iterate(f_dev_.get(), fn_dev_.get(),
            [&](const float* f, float* fn) { cuda::step(c, shape, f, fn, stream); });
    CUDA_CHECK(cudaStreamSynchronize(stream));
    device_result_ = result_;
  }
  void finish() override {
    CUDA_CHECK(
        cudaMemcpy(f_.data(), device_result_, p_.points() * sizeof(float), cudaMemcpyDeviceToHost));
    result_ = f_.data();
  }

 private:
  std::unique_ptr<CudaStream> stream_;
  DeviceArray<float> init_, f_dev_, fn_dev_;
  const float* device_result_ = nullptr;
  bool dependent_launch_ = false;  // cuda_pdl, where the device has it
};

}  // namespace

std::unique_ptr<Instance> make_cuda(const Params& params) { return std::make_unique<Cuda>(params); }

}  // namespace acclab::diffusion3d
