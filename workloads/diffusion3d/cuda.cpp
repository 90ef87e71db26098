// diffusion3d in hand-written CUDA, fields resident on the device (copied in at setup, the
// result back in finish), the steps queued on one stream with no wait until the end.
#include <cuda_runtime.h>

#include "core/cuda_check.hpp"
#include "workloads/diffusion3d/cuda_kernels.hpp"
#include "workloads/diffusion3d/diffusion3d.hpp"

namespace acclab::diffusion3d {
namespace {

class Cuda : public DiffusionInstance {
 public:
  using DiffusionInstance::DiffusionInstance;
  ~Cuda() override {
    for (float* p : {init_, f_dev_, fn_dev_}) {
      if (p) cudaFree(p);
    }
    if (stream_) cudaStreamDestroy(stream_);
  }
  void setup() override {
    DiffusionInstance::setup();
    const size_t bytes = p_.points() * sizeof(float);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&init_, bytes));
    CUDA_CHECK(cudaMalloc(&f_dev_, bytes));
    CUDA_CHECK(cudaMalloc(&fn_dev_, bytes));
    CUDA_CHECK(cudaMemcpy(init_, initial_.data(), bytes, cudaMemcpyHostToDevice));
  }
  void reset() override {
    const size_t bytes = p_.points() * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(f_dev_, init_, bytes, cudaMemcpyDeviceToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(fn_dev_, init_, bytes, cudaMemcpyDeviceToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void run() override {
    const cuda::Coefficients c{static_cast<int>(p_.nx),
                               static_cast<int>(p_.ny),
                               static_cast<int>(p_.nz),
                               p_.cc,
                               p_.ce,
                               p_.cw,
                               p_.cn,
                               p_.cs,
                               p_.ct,
                               p_.cb};
    iterate(f_dev_, fn_dev_, [&](const float* f, float* fn) { cuda::step(c, f, fn, stream_); });
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    device_result_ = result_;
  }
  void finish() override {
    CUDA_CHECK(
        cudaMemcpy(f_.data(), device_result_, p_.points() * sizeof(float), cudaMemcpyDeviceToHost));
    result_ = f_.data();
  }

 private:
  cudaStream_t stream_ = nullptr;
  float* init_ = nullptr;
  float* f_dev_ = nullptr;
  float* fn_dev_ = nullptr;
  const float* device_result_ = nullptr;
};

}  // namespace

std::unique_ptr<Instance> make_cuda(const Params& params) { return std::make_unique<Cuda>(params); }

}  // namespace acclab::diffusion3d
