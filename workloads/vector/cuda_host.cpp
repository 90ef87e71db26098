// The vector workload's CUDA variants: the course computation (c += a + b, nt steps, mean on
// the device) and the triad and dot kernels, all with data resident on the device: copied in
// during setup and back in finish.
#include <cuda_runtime.h>

#include "kit/cuda_check.hpp"
#include "kit/cuda_memory.hpp"
#include "workloads/vector/cuda_kernels.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

class CourseCuda : public CourseInstance {
 public:
  using CourseInstance::CourseInstance;
  void setup() override {
    CourseInstance::setup();
    const auto n = static_cast<std::size_t>(size_.n());
    a_dev_ = DeviceArray<float>(n);
    b_dev_ = DeviceArray<float>(n);
    c_dev_ = DeviceArray<float>(n);
    partial_ = DeviceArray<double>(cuda::reduction_blocks);
    a_dev_.upload(a_);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run() override {
    const std::int64_t n = size_.n();
    cuda::fill_course_b(b_dev_.get(), n);
    cuda::fill(c_dev_.get(), n, 0.0f);
    for (std::int64_t step = 0; step < size_.nt; ++step) {
      cuda::accumulate(c_dev_.get(), a_dev_.get(), b_dev_.get(), n);
    }
    mean_ = cuda::sum(c_dev_.get(), n, partial_.get()) / static_cast<double>(n);
  }
  void finish() override { c_dev_.download(c_); }

 private:
  DeviceArray<float> a_dev_, b_dev_, c_dev_;
  DeviceArray<double> partial_;
};

class StreamCuda : public StreamInstance {
 public:
  using StreamInstance::StreamInstance;
  void setup() override {
    StreamInstance::setup();
    const auto n = static_cast<std::size_t>(size_.n());
    a_dev_ = DeviceArray<float>(n);
    b_dev_ = DeviceArray<float>(n);
    c_dev_ = DeviceArray<float>(n);
    partial_ = DeviceArray<double>(cuda::reduction_blocks);
    b_dev_.upload(b_);
    c_dev_.upload(c_);
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run() override {
    const std::int64_t n = size_.n();
    for (std::int64_t pass = 0; pass < size_.nt; ++pass) {
      if (kernel_ == Kernel::triad) {
        cuda::triad(a_dev_.get(), b_dev_.get(), c_dev_.get(), triad_scalar, n);
      } else {
        dot_ = cuda::dot(b_dev_.get(), c_dev_.get(), n, partial_.get());
      }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  void finish() override {
    if (kernel_ == Kernel::triad) a_dev_.download(a_);
  }

 private:
  DeviceArray<float> a_dev_, b_dev_, c_dev_;
  DeviceArray<double> partial_;
};

}  // namespace

std::unique_ptr<Instance> make_course_cuda(const Params& params) {
  return std::make_unique<CourseCuda>(params);
}
std::unique_ptr<Instance> make_triad_cuda(const Params& params) {
  return std::make_unique<StreamCuda>(params, StreamInstance::Kernel::triad);
}
std::unique_ptr<Instance> make_dot_cuda(const Params& params) {
  return std::make_unique<StreamCuda>(params, StreamInstance::Kernel::dot);
}

}  // namespace acclab::vector
