// Course step 03_kernels_copy: step 02 plus explicit array sections. calc copies a, b and c
// to the device and back on every call (nt times), and main initialises b and c in a
// kernels region with copyout. Still no `loop` directive: the compiler decides alone whether
// the loops are independent.
#include "core/profile.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

void calc(std::int64_t nx, std::int64_t ny, const float* a, const float* b, float* c) {
  profile::Region region("calc");  // --profile's label
  const std::int64_t n = nx * ny;
#pragma acc kernels copy(a [0:n], b [0:n], c [0:n])
  for (std::int64_t j = 0; j < ny; ++j) {
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t ix = i + j * nx;
      c[ix] += a[ix] + b[ix];
    }
  }
}

class AccKernelsCopy : public CourseInstance {
 public:
  using CourseInstance::CourseInstance;
  void run() override {
    const std::int64_t n = size_.n();
    float* b = b_.data();
    float* c = c_.data();
#pragma acc kernels copyout(b [0:n], c [0:n])
    {
      for (std::int64_t i = 0; i < n; ++i) b[i] = course_b(i);
      for (std::int64_t i = 0; i < n; ++i) c[i] = 0.0f;
    }
    for (std::int64_t step = 0; step < size_.nt; ++step) calc(size_.nx, size_.ny, a_.data(), b, c);
    mean_on_host();
  }
  // The same data clauses with empty regions: copyout(b, c) once, copy(a, b, c) nt times.
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
#pragma acc data copyout(b [0:n], c [0:n])
    {}
    for (std::int64_t step = 0; step < size_.nt; ++step) {
#pragma acc data copy(a [0:n], b [0:n], c [0:n])
      {}
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_kernels_copy(const Params& params) {
  return std::make_unique<AccKernelsCopy>(params);
}

}  // namespace acclab::vector
