// Course step 02_kernels: the CPU loops of step 01 under one `kernels` directive and nothing
// else. C pointers carry no array size, so the compiler cannot copy a, b, c by itself (the
// course's PGI compiler stops with "size of the GPU copy is unknown"); GCC maps only the
// pointers, and what the device then reads depends on whether it can reach host memory.
#include "core/profile.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

void calc(std::int64_t nx, std::int64_t ny, const float* a, const float* b, float* c) {
  profile::Region region("calc");  // --profile's label
#pragma acc kernels
  for (std::int64_t j = 0; j < ny; ++j) {
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t ix = i + j * nx;
      c[ix] += a[ix] + b[ix];
    }
  }
}

class AccKernels : public CourseInstance {
 public:
  using CourseInstance::CourseInstance;
  void run() override {
    const std::int64_t n = size_.n();
    float* b = b_.data();
    float* c = c_.data();
    for (std::int64_t i = 0; i < n; ++i) b[i] = course_b(i);
    for (std::int64_t i = 0; i < n; ++i) c[i] = 0.0f;
    for (std::int64_t step = 0; step < size_.nt; ++step) calc(size_.nx, size_.ny, a_.data(), b, c);
    mean_on_host();
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_kernels(const Params& params) {
  return std::make_unique<AccKernels>(params);
}

}  // namespace acclab::vector
