// jacobi2d in hand-written CUDA, grids resident on the device (copied in at setup, the result
// back in finish); the sweeps are queued on one stream, and the host waits only for a
// convergence check or at the end.
#include <cuda_runtime.h>

#include <cstring>

#include "core/cuda_check.hpp"
#include "workloads/jacobi2d/cuda_kernels.hpp"
#include "workloads/jacobi2d/jacobi2d.hpp"

namespace acclab::jacobi2d {
namespace {

class Cuda : public JacobiInstance {
 public:
  using JacobiInstance::JacobiInstance;
  ~Cuda() override {
    for (void* p : {static_cast<void*>(init_), static_cast<void*>(u0_dev_),
                    static_cast<void*>(u1_dev_), static_cast<void*>(change_)}) {
      if (p) cudaFree(p);
    }
    if (stream_) cudaStreamDestroy(stream_);
  }

  void setup() override {
    JacobiInstance::setup();
    const size_t bytes = p_.points() * sizeof(float);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&init_, bytes));
    CUDA_CHECK(cudaMalloc(&u0_dev_, bytes));
    CUDA_CHECK(cudaMalloc(&u1_dev_, bytes));
    CUDA_CHECK(cudaMalloc(&change_, sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(init_, initial_.data(), bytes, cudaMemcpyHostToDevice));
  }
  void reset() override {
    const size_t bytes = p_.points() * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(u0_dev_, init_, bytes, cudaMemcpyDeviceToDevice, stream_));
    CUDA_CHECK(cudaMemcpyAsync(u1_dev_, init_, bytes, cudaMemcpyDeviceToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void run() override {
    const cuda::Coefficients c{
        static_cast<int>(p_.rows), static_cast<int>(p_.cols), p_.c1f, p_.wy2, p_.hx2, p_.c2};
    iterate(u0_dev_, u1_dev_, [&](const float* in, float* out, bool check) {
      if (!check) {
        cuda::sweep(c, in, out, nullptr, stream_);
        return 0.0f;
      }
      CUDA_CHECK(cudaMemsetAsync(change_, 0, sizeof(unsigned int), stream_));
      cuda::sweep(c, in, out, change_, stream_);
      unsigned int bits = 0;
      CUDA_CHECK(cudaMemcpyAsync(&bits, change_, sizeof bits, cudaMemcpyDeviceToHost, stream_));
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      float change = 0.0f;
      std::memcpy(&change, &bits, sizeof change);
      return change;
    });
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    device_result_ = result_;
  }
  void finish() override {
    CUDA_CHECK(cudaMemcpy(u0_.data(), device_result_, p_.points() * sizeof(float),
                          cudaMemcpyDeviceToHost));
    result_ = u0_.data();
  }

 private:
  cudaStream_t stream_ = nullptr;
  float* init_ = nullptr;
  float* u0_dev_ = nullptr;
  float* u1_dev_ = nullptr;
  unsigned int* change_ = nullptr;
  const float* device_result_ = nullptr;
};

}  // namespace

std::unique_ptr<Instance> make_cuda(const Params& params) { return std::make_unique<Cuda>(params); }

}  // namespace acclab::jacobi2d
