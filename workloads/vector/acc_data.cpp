// Course step 05_data: step 04 inside one `data` region around the initialisation and the
// whole time loop: copyin(a), create(b), copyout(c). calc keeps its copy clauses, which now
// find the arrays present and move nothing, so the data crosses the bus once instead of nt
// times.
#include "core/profile.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

void calc(std::int64_t nx, std::int64_t ny, const float* a, const float* b, float* c) {
  profile::Region region("calc");  // --profile's label
  const std::int64_t n = nx * ny;
#pragma acc kernels copy(a [0:n], b [0:n], c [0:n])
#pragma acc loop independent
  for (std::int64_t j = 0; j < ny; ++j) {
#pragma acc loop independent
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t ix = i + j * nx;
      c[ix] += a[ix] + b[ix];
    }
  }
}

class AccData : public CourseInstance {
 public:
  using CourseInstance::CourseInstance;
  void run() override {
    const std::int64_t n = size_.n();
    const float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
#pragma acc data copyin(a [0:n]) create(b [0:n]) copyout(c [0:n])
    {
#pragma acc kernels copyout(b [0:n], c [0:n])
      {
#pragma acc loop independent
        for (std::int64_t i = 0; i < n; ++i) b[i] = course_b(i);
#pragma acc loop independent
        for (std::int64_t i = 0; i < n; ++i) c[i] = 0.0f;
      }
      for (std::int64_t step = 0; step < size_.nt; ++step) calc(size_.nx, size_.ny, a, b, c);
    }
    mean_on_host();
  }
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    const float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
#pragma acc data copyin(a [0:n]) create(b [0:n]) copyout(c [0:n])
    {}
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_data(const Params& params) {
  return std::make_unique<AccData>(params);
}

}  // namespace acclab::vector
