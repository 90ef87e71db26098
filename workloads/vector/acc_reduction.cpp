// Course step 07_reduction: step 06 with the mean computed on the device by a
// `loop reduction(+:sum)`. c is now only created on the device, never copied back: the only
// transfer left is a (in) and the sum (out). Verification therefore checks the mean alone.
#include "core/profile.hpp"
#include "workloads/vector/vector.hpp"

namespace acclab::vector {
namespace {

void calc(std::int64_t nx, std::int64_t ny, const float* a, const float* b, float* c) {
  profile::Region region("calc");  // --profile's label
  const std::int64_t n = nx * ny;
#pragma acc kernels present(a [0:n], b [0:n], c [0:n])
#pragma acc loop independent
  for (std::int64_t j = 0; j < ny; ++j) {
#pragma acc loop independent
    for (std::int64_t i = 0; i < nx; ++i) {
      const std::int64_t ix = i + j * nx;
      c[ix] += a[ix] + b[ix];
    }
  }
}

class AccReduction : public CourseInstance {
 public:
  explicit AccReduction(const Params& params) : CourseInstance(params) { c_on_host_ = false; }
  void run() override {
    const std::int64_t n = size_.n();
    const float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
    double sum = 0.0;
#pragma acc data copyin(a [0:n]) create(b [0:n], c [0:n])
    {
#pragma acc kernels present(b [0:n], c [0:n])
      {
#pragma acc loop independent
        for (std::int64_t i = 0; i < n; ++i) b[i] = course_b(i);
#pragma acc loop independent
        for (std::int64_t i = 0; i < n; ++i) c[i] = 0.0f;
      }
      for (std::int64_t step = 0; step < size_.nt; ++step) calc(size_.nx, size_.ny, a, b, c);
        // The course writes `loop reduction(+:sum)` and its compiler finds the loop parallel by
        // itself; GCC hands a loop not marked independent to parloops, which leaves it on one
        // gang of 32 lanes, slower than step 06 (bench/results/h200/vector/NOTES.md).
        // `independent` states what the course's compiler inferred.
#pragma acc kernels present(c [0:n])
#pragma acc loop independent reduction(+ : sum)
      for (std::int64_t i = 0; i < n; ++i) sum += c[i];
    }
    mean_ = sum / static_cast<double>(n);
  }
  bool transfers_only() override {
    const std::int64_t n = size_.n();
    const float* a = a_.data();
    float* b = b_.data();
    float* c = c_.data();
#pragma acc data copyin(a [0:n]) create(b [0:n], c [0:n])
    {}
    return true;
  }
};

}  // namespace

std::unique_ptr<Instance> make_acc_reduction(const Params& params) {
  return std::make_unique<AccReduction>(params);
}

}  // namespace acclab::vector
